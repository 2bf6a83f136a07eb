//! The agent layer: many MCP servers behind one [`Toolbox`], exported to models.
//!
//! * **Start-up.** [`Toolbox::builder`] takes a [`Registry`] (TOML or `mcpServers` JSON);
//!   [`ToolboxBuilder::connect`] connects every selected server in parallel. A server that
//!   cannot be reached, or whose `${SECRET}` is not set, is skipped and reported
//!   ([`Toolbox::skipped`], a `server skipped` warning) — unless it is `required`, which makes
//!   start-up fail. [`Toolbox::statuses`] shows each server's state and last error;
//!   [`Toolbox::reconnect`] retries failed (or all) servers.
//! * **Tools.** Untyped servers export their live `tools/list`; typed servers
//!   ([`ToolboxBuilder::add_typed`]) export the definitions `mcp_tools!` fixed at compile time
//!   ([`TypedTool`]). Per-server allow/deny lists (`tools`, `exclude_tools`) apply to both.
//! * **Names.** Each tool is exported as `mcp_<alias>_<tool>` ([`names`]): sanitized, ≤ 64
//!   characters, collisions resolved deterministically and reported
//!   ([`Toolbox::collisions`]); a map leads back to `(server, tool)` — names are never
//!   parsed. [`Toolbox::resolve`] also accepts `alias.tool` and unambiguous short names.
//! * **Function calls.** [`Toolbox::openai_tools`] is the `tools` array of a chat-completions
//!   request (non-strict, or strict with a per-tool fallback: [`Toolbox::openai_export`]).
//!   [`Toolbox::call`] dispatches a model's tool call (name + JSON arguments string):
//!   validates the arguments (typed: the generated argument type; untyped: [`validate`]),
//!   calls, and returns a [`Dispatch`] — text for the model (long results cut in the middle)
//!   and the typed result for code. Failures are short model-readable texts, never panics.
//! * **Native MCP.** [`Toolbox::native_servers`]: raw MCP tool definitions and the live
//!   [`Session`] of each server, for models that speak MCP.
//! * **Agents.** [`ModelPolicy`] says which models support MCP;
//!   `function_call_wrapper` (per server, registry key or
//!   [`ToolboxBuilder::function_call_wrapper`]) says which servers may be offered as function
//!   calls. [`Toolbox::agent`] checks an [`AgentConfig`] against both (error or warning) and
//!   returns an [`AgentView`] that exports, routes and dispatches only the agent's servers
//!   and tools.
//!
//! Every call runs in a `mcp_tool_call` span (`server`, `tool`, `exported`, `duration_ms`,
//! `outcome`); events: `tool called`, `tool failed`, `server skipped`, `server reconnected`.

mod agent;
pub mod names;
pub mod openai;
mod text;
pub(crate) mod typed;
pub mod validate;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tracing::Instrument;

use crate::config::{Registry, ServerConfig};
use crate::error::{Error, ErrorKind};
use crate::output::ToolOutput;
use crate::session::{CallOptions, Session};

pub use agent::{
    AgentConfig, AgentTools, AgentView, ModelPolicy, ModelRef, Route, RuleCheck, check_rules,
};
pub use names::{MAX_NAME_LEN, NameCollision, exported_name};
pub use text::{Truncation, truncate_middle};
pub use typed::{Normalize, TypedTool, normalize_as, normalize_no_args, prepare_arguments};

/// Looks up `${NAME}` placeholders.
pub type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Default of [`ToolboxOptions::max_output_bytes`].
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 20_000;

/// Settings of a [`Toolbox`].
#[derive(Debug, Clone)]
pub struct ToolboxOptions {
    /// Tool results longer than this (bytes of text) are cut in the middle for the model
    /// ([`truncate_middle`]); the full result stays in [`Dispatch::result`].
    pub max_output_bytes: usize,
    /// Prefix every exported description with `[MCP: <alias>] `.
    pub description_prefix: bool,
    /// Options of every call (deadlines, progress).
    pub call_options: CallOptions,
}

impl Default for ToolboxOptions {
    fn default() -> Self {
        ToolboxOptions {
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
            description_prefix: false,
            call_options: CallOptions::default(),
        }
    }
}

/// A tool as the toolbox exports it.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportedTool {
    /// The server's alias.
    pub server: String,
    /// The tool's name on the server.
    pub tool: String,
    /// The exported (function) name.
    pub exported: String,
    /// The tool's description.
    pub description: Option<String>,
    /// Whether the definition comes from `mcp_tools!` (typed) rather than the live list.
    pub typed: bool,
    /// The MCP tool definition (`name`, `description`, `inputSchema`, …).
    pub definition: Value,
    /// The tool's input schema.
    pub input_schema: Value,
    /// The non-strict OpenAI function definition.
    pub function: Value,
    /// The strict OpenAI function definition, or why there is none.
    pub strict_function: Result<Value, String>,
}

/// Where an exported name leads.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ToolRef {
    /// The server's alias.
    pub server: String,
    /// The tool's name on the server.
    pub tool: String,
    /// The exported name.
    pub exported: String,
}

/// A tool whose strict definition fell back to the non-strict one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrictFallback {
    /// The exported name.
    pub exported: String,
    /// The server's alias.
    pub server: String,
    /// The tool's name.
    pub tool: String,
    /// Why strict mode is unavailable.
    pub reason: String,
}

/// The `tools` array of a chat-completions request, with the strict fallbacks.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenAiExport {
    /// Function definitions, sorted by exported name.
    pub tools: Vec<Value>,
    /// Tools exported non-strict although strict mode was asked for.
    pub fallbacks: Vec<StrictFallback>,
}

/// Whether a server is usable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerState {
    /// Connected; its last call (if any) did not fail at the transport level.
    Active,
    /// Not connected, or its connection failed.
    Failed,
}

/// A server's status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerStatus {
    /// The server's alias.
    pub alias: String,
    /// Active or failed.
    pub state: ServerState,
    /// The last error (connect, list or transport), if any.
    pub last_error: Option<String>,
    /// Number of exported tools.
    pub tools: usize,
    /// Whether the server is typed.
    pub typed: bool,
    /// `stdio`, `sse` or `streamable-http`.
    pub transport: &'static str,
}

/// A server skipped at start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedServer {
    /// The server's alias.
    pub alias: String,
    /// Why (the connect error, e.g. an unset `${SECRET}` or an unreachable URL).
    pub reason: String,
}

/// What [`Toolbox::reconnect`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReconnectReport {
    /// Servers connected again.
    pub reconnected: Vec<String>,
    /// Servers that still fail, with the error.
    pub failed: Vec<(String, String)>,
}

/// A server for a model with native MCP support: its tool definitions as MCP defines them,
/// and the live session to call them on.
#[derive(Debug, Clone)]
pub struct NativeServer {
    /// The server's alias.
    pub alias: String,
    /// The raw MCP tool definitions (after allow/deny lists and agent restrictions).
    pub tools: Vec<Value>,
    /// The session.
    pub session: Session,
}

/// The outcome of a dispatched tool call.
#[derive(Debug)]
pub struct Dispatch {
    /// What to give the model: the result as text (cut in the middle when longer than
    /// [`ToolboxOptions::max_output_bytes`]) or a short error starting with `Error:`.
    pub text: String,
    /// The full result for code.
    pub result: Result<ToolOutput, Error>,
    /// The tool the name resolved to, if it did.
    pub tool: Option<ToolRef>,
    /// What was cut from `text`, if anything.
    pub truncation: Option<Truncation>,
    /// How long the dispatch took.
    pub duration: Duration,
}

impl Dispatch {
    /// Whether the call succeeded (`isError` false).
    pub fn is_ok(&self) -> bool {
        self.result.is_ok()
    }

    /// The error kind, if it failed.
    pub fn error_kind(&self) -> Option<ErrorKind> {
        self.result.as_ref().err().map(Error::kind)
    }

    /// The tool's output: on success, and for a tool error (`isError: true`).
    pub fn output(&self) -> Option<&ToolOutput> {
        match &self.result {
            Ok(o) => Some(o),
            Err(e) => e.output(),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Builder
// ---------------------------------------------------------------------------------------

/// Configures and connects a [`Toolbox`].
pub struct ToolboxBuilder {
    servers: Vec<ServerConfig>,
    only: Option<Vec<String>>,
    typed: BTreeMap<String, &'static [TypedTool]>,
    wrappers: BTreeMap<String, bool>,
    lookup: Option<EnvLookup>,
    options: ToolboxOptions,
}

impl std::fmt::Debug for ToolboxBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolboxBuilder")
            .field("servers", &self.servers)
            .field("only", &self.only)
            .field("typed", &self.typed.keys().collect::<Vec<_>>())
            .field("wrappers", &self.wrappers)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl ToolboxBuilder {
    /// Only these servers of the registry (default: all).
    pub fn only<I, S>(mut self, aliases: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.only = Some(aliases.into_iter().map(Into::into).collect());
        self
    }

    /// Registers a typed server: its exported tools are `tools` (from `mcp_tools!`), its
    /// arguments are checked by each tool's validator.
    pub fn add_typed(mut self, alias: impl Into<String>, tools: &'static [TypedTool]) -> Self {
        self.typed.insert(alias.into(), tools);
        self
    }

    /// Overrides a server's `function_call_wrapper` setting.
    pub fn function_call_wrapper(mut self, alias: impl Into<String>, wrapper: bool) -> Self {
        self.wrappers.insert(alias.into(), wrapper);
        self
    }

    /// Looks up `${NAME}` placeholders with `lookup` instead of the process environment.
    pub fn env(mut self, lookup: impl Fn(&str) -> Option<String> + Send + Sync + 'static) -> Self {
        self.lookup = Some(Arc::new(lookup));
        self
    }

    /// Sets [`ToolboxOptions::max_output_bytes`].
    pub fn max_output_bytes(mut self, max: usize) -> Self {
        self.options.max_output_bytes = max;
        self
    }

    /// Sets [`ToolboxOptions::description_prefix`].
    pub fn description_prefix(mut self, on: bool) -> Self {
        self.options.description_prefix = on;
        self
    }

    /// Sets [`ToolboxOptions::call_options`].
    pub fn call_options(mut self, options: CallOptions) -> Self {
        self.options.call_options = options;
        self
    }

    /// Connects every selected server in parallel and lists its tools.
    ///
    /// Fails ([`ErrorKind::RequiredServer`]) when a `required` server cannot be
    /// started, and ([`ErrorKind::Config`]) for an unknown alias in
    /// [`ToolboxBuilder::only`], [`ToolboxBuilder::add_typed`] or
    /// [`ToolboxBuilder::function_call_wrapper`]. Other servers that fail are skipped and
    /// reported.
    pub async fn connect(self) -> Result<Toolbox, Error> {
        let known: Vec<&str> = self.servers.iter().map(|s| s.alias.as_str()).collect();
        let unknown = |what: &str, alias: &str| {
            Error::toolbox(
                ErrorKind::Config,
                format!(
                    "{what} names server \"{alias}\", which the registry does not define (known: {})",
                    known.join(", ")
                ),
            )
        };
        let mut servers: Vec<ServerConfig> = match &self.only {
            None => self.servers.clone(),
            Some(only) => {
                let mut out = Vec::new();
                for alias in only {
                    match self.servers.iter().find(|s| &s.alias == alias) {
                        Some(s) => out.push(s.clone()),
                        None => return Err(unknown("the server selection", alias)),
                    }
                }
                out.sort_by(|a, b| a.alias.cmp(&b.alias));
                out.dedup_by(|a, b| a.alias == b.alias);
                out
            }
        };
        for (alias, wrapper) in &self.wrappers {
            match servers.iter_mut().find(|s| &s.alias == alias) {
                Some(s) => s.function_call_wrapper = *wrapper,
                None => return Err(unknown("a function_call_wrapper override", alias)),
            }
        }
        for alias in self.typed.keys() {
            if !servers.iter().any(|s| &s.alias == alias) {
                return Err(unknown("a typed server", alias));
            }
        }
        let lookup: EnvLookup = self
            .lookup
            .clone()
            .unwrap_or_else(|| Arc::new(|name: &str| std::env::var(name).ok()));
        let results =
            futures::future::join_all(servers.iter().map(|cfg| connect_one(cfg, &lookup))).await;
        let mut slots = BTreeMap::new();
        let mut skipped = Vec::new();
        for (cfg, result) in servers.into_iter().zip(results) {
            let typed = self.typed.get(&cfg.alias).copied();
            let slot = match result {
                Ok((session, tools)) => Slot {
                    session: Some(session),
                    tools,
                    typed,
                    health: Arc::new(Mutex::new(Health {
                        state: ServerState::Active,
                        last_error: None,
                    })),
                    config: cfg,
                },
                Err(e) => {
                    if cfg.required {
                        return Err(Error::toolbox(
                            ErrorKind::RequiredServer,
                            format!(
                                "{e} (the server is required: fix it, or set `required = false` to skip it instead)"
                            ),
                        )
                        .with_source(e));
                    }
                    let reason = e.to_string();
                    tracing::warn!(server = %cfg.alias, reason = %reason, "server skipped");
                    skipped.push(SkippedServer {
                        alias: cfg.alias.clone(),
                        reason: reason.clone(),
                    });
                    Slot {
                        session: None,
                        tools: Vec::new(),
                        typed,
                        health: Arc::new(Mutex::new(Health {
                            state: ServerState::Failed,
                            last_error: Some(reason),
                        })),
                        config: cfg,
                    }
                }
            };
            slots.insert(slot.config.alias.clone(), Arc::new(slot));
        }
        let snapshot = Snapshot::build(slots, &self.options);
        Ok(Toolbox {
            inner: Arc::new(Inner {
                options: self.options,
                lookup,
                skipped,
                state: RwLock::new(Arc::new(snapshot)),
                reconnecting: tokio::sync::Mutex::new(()),
            }),
        })
    }
}

async fn connect_one(
    cfg: &ServerConfig,
    lookup: &EnvLookup,
) -> Result<(Session, Vec<Value>), Error> {
    let session = Session::connect_with_env(cfg, &|name| lookup(name)).await?;
    match session.list_tools().await {
        Ok(tools) => Ok((session, tools)),
        Err(e) => {
            let _ = session.close().await;
            Err(e)
        }
    }
}

// ---------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------

#[derive(Debug)]
struct Health {
    state: ServerState,
    last_error: Option<String>,
}

struct Slot {
    config: ServerConfig,
    session: Option<Session>,
    /// The live `tools/list`, unfiltered.
    tools: Vec<Value>,
    typed: Option<&'static [TypedTool]>,
    /// Shared by every version of the slot.
    health: Arc<Mutex<Health>>,
}

impl Slot {
    fn set_health(&self, state: ServerState, error: Option<String>) {
        if let Ok(mut h) = self.health.lock() {
            h.state = state;
            if error.is_some() {
                h.last_error = error;
            }
        }
    }

    fn health(&self) -> (ServerState, Option<String>) {
        match self.health.lock() {
            Ok(h) => (h.state, h.last_error.clone()),
            Err(_) => (ServerState::Failed, Some("health lock poisoned".into())),
        }
    }
}

struct Entry {
    tool: ExportedTool,
    typed: Option<&'static TypedTool>,
}

/// An immutable view of the servers and the exported tools; replaced as a whole.
struct Snapshot {
    slots: BTreeMap<String, Arc<Slot>>,
    entries: Vec<Entry>,
    by_exported: BTreeMap<String, usize>,
    by_pair: BTreeMap<(String, String), usize>,
    by_short: BTreeMap<String, Vec<usize>>,
    collisions: Vec<NameCollision>,
}

struct Candidate {
    server: String,
    tool: String,
    description: Option<String>,
    definition: Value,
    input_schema: Value,
    typed: Option<&'static TypedTool>,
}

impl Snapshot {
    fn build(slots: BTreeMap<String, Arc<Slot>>, options: &ToolboxOptions) -> Snapshot {
        let mut candidates: Vec<Candidate> = Vec::new();
        for slot in slots.values() {
            if slot.session.is_none() {
                continue;
            }
            candidates.extend(server_candidates(slot));
        }
        Snapshot::build_from(slots, candidates, options)
    }

    fn build_from(
        slots: BTreeMap<String, Arc<Slot>>,
        mut candidates: Vec<Candidate>,
        options: &ToolboxOptions,
    ) -> Snapshot {
        candidates.sort_by(|a, b| (&a.server, &a.tool).cmp(&(&b.server, &b.tool)));
        let assignment = names::assign_names(
            candidates
                .iter()
                .map(|c| (c.server.as_str(), c.tool.as_str())),
        );
        for c in &assignment.collisions {
            tracing::warn!(name = %c.name, "{c}");
        }
        let mut snapshot = Snapshot {
            slots,
            entries: Vec::new(),
            by_exported: BTreeMap::new(),
            by_pair: BTreeMap::new(),
            by_short: BTreeMap::new(),
            collisions: assignment.collisions.clone(),
        };
        for c in candidates {
            let key = (c.server.clone(), c.tool.clone());
            let Some(exported) = assignment.names.get(&key).cloned() else {
                continue;
            };
            let description = match (&c.description, options.description_prefix) {
                (Some(d), true) => Some(format!("[MCP: {}] {d}", c.server)),
                (None, true) => Some(format!("[MCP: {}]", c.server)),
                (d, false) => d.clone(),
            };
            let (function, strict_function) = match c.typed {
                Some(t) => typed_functions(t, &exported, description.as_deref(), &c.input_schema),
                None => (
                    openai::function_definition(&exported, description.as_deref(), &c.input_schema),
                    openai::strict_function_definition(
                        &exported,
                        description.as_deref(),
                        &c.input_schema,
                    ),
                ),
            };
            let index = snapshot.entries.len();
            snapshot.by_exported.insert(exported.clone(), index);
            snapshot.by_pair.insert(key, index);
            snapshot
                .by_short
                .entry(c.tool.clone())
                .or_default()
                .push(index);
            snapshot.entries.push(Entry {
                tool: ExportedTool {
                    server: c.server,
                    tool: c.tool,
                    exported,
                    description: c.description,
                    typed: c.typed.is_some(),
                    definition: c.definition,
                    input_schema: c.input_schema,
                    function,
                    strict_function,
                },
                typed: c.typed,
            });
        }
        snapshot
    }

    fn entry(&self, index: usize) -> Option<&Entry> {
        self.entries.get(index)
    }

    /// Resolves a name among the tools `visible` accepts. Tools outside it are reported as
    /// [`ErrorKind::NotAllowed`] (with `scope` naming the agent).
    fn resolve(&self, name: &str, scope: Option<&agent::Scope>) -> Result<usize, Error> {
        let visible = |i: usize| {
            scope.is_none_or(|s| {
                self.entries
                    .get(i)
                    .is_some_and(|e| s.allows(&e.tool.server, &e.tool.tool))
            })
        };
        let refuse = |i: usize| -> Error {
            let (server, tool) = self
                .entries
                .get(i)
                .map(|e| (e.tool.server.as_str(), e.tool.tool.as_str()))
                .unwrap_or(("?", "?"));
            match scope {
                Some(s) => s.refusal(name, server, tool),
                None => Error::toolbox(ErrorKind::NotAllowed, "not allowed"),
            }
        };
        let exact = self.by_exported.get(name).copied().or_else(|| {
            name.split_once('.').and_then(|(alias, tool)| {
                self.by_pair
                    .get(&(alias.to_string(), tool.to_string()))
                    .copied()
            })
        });
        if let Some(i) = exact {
            return if visible(i) { Ok(i) } else { Err(refuse(i)) };
        }
        if let Some((alias, tool)) = name.split_once('.')
            && let Some(s) = scope
            && !s.allows(alias, tool)
            && self.slots.contains_key(alias)
        {
            return Err(s.refusal(name, alias, tool));
        }
        if let Some(list) = self.by_short.get(name) {
            let mine: Vec<usize> = list.iter().copied().filter(|&i| visible(i)).collect();
            match mine.len() {
                1 => return Ok(mine[0]),
                0 => return Err(refuse(list[0])),
                _ => {
                    let names: Vec<String> = mine
                        .iter()
                        .filter_map(|&i| self.entries.get(i))
                        .map(|e| {
                            format!(
                                "{}.{} (\"{}\")",
                                e.tool.server, e.tool.tool, e.tool.exported
                            )
                        })
                        .collect();
                    return Err(Error::toolbox(
                        ErrorKind::AmbiguousTool,
                        format!(
                            "tool name \"{name}\" is ambiguous: it matches {}; use one of the exported names or alias.tool",
                            names.join(", ")
                        ),
                    ));
                }
            }
        }
        let names: Vec<&str> = self
            .entries
            .iter()
            .enumerate()
            .filter(|(i, _)| visible(*i))
            .map(|(_, e)| e.tool.exported.as_str())
            .collect();
        let hint = mcp_codegen::naming::close_matches(name, names.iter().copied());
        Err(Error::toolbox(
            ErrorKind::UnknownTool,
            if hint.is_empty() {
                format!("unknown tool \"{name}\"; call one of the tools you were given")
            } else {
                format!(
                    "unknown tool \"{name}\" (did you mean {}?)",
                    hint.iter()
                        .map(|h| format!("\"{h}\""))
                        .collect::<Vec<_>>()
                        .join(" or ")
                )
            },
        ))
    }
}

/// The tools a connected server exports, before naming.
fn server_candidates(slot: &Slot) -> Vec<Candidate> {
    let alias = &slot.config.alias;
    let live: BTreeMap<&str, &Value> = slot
        .tools
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str).map(|n| (n, t)))
        .collect();
    let mut out: Vec<Candidate> = Vec::new();
    let mut seen = BTreeSet::new();
    match slot.typed {
        Some(typed) => {
            for t in typed {
                if !slot.config.allows_tool(t.name) || !seen.insert(t.name.to_string()) {
                    continue;
                }
                let input_schema: Value =
                    serde_json::from_str(t.input_schema).unwrap_or_else(|_| json!({}));
                let definition = match live.get(t.name) {
                    Some(d) => (*d).clone(),
                    None => {
                        tracing::warn!(
                            server = %alias, tool = t.name,
                            "typed tool is not in the server's live tools/list (drift); run {}",
                            mcp_codegen::project::either_command(&format!("snapshot --check {alias}"))
                        );
                        let mut d = json!({"name": t.name, "inputSchema": input_schema});
                        if let Some(desc) = t.description {
                            d["description"] = json!(desc);
                        }
                        d
                    }
                };
                out.push(Candidate {
                    server: alias.clone(),
                    tool: t.name.to_string(),
                    description: t.description.map(str::to_string),
                    definition,
                    input_schema,
                    typed: Some(t),
                });
            }
        }
        None => {
            for t in &slot.tools {
                let Some(name) = t.get("name").and_then(Value::as_str) else {
                    continue;
                };
                if !slot.config.allows_tool(name) {
                    continue;
                }
                if !seen.insert(name.to_string()) {
                    tracing::warn!(server = %alias, tool = name, "server lists the tool twice; the first definition is used");
                    continue;
                }
                out.push(Candidate {
                    server: alias.clone(),
                    tool: name.to_string(),
                    description: t
                        .get("description")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    definition: t.clone(),
                    input_schema: match t.get("inputSchema") {
                        Some(s @ (Value::Object(_) | Value::Bool(_))) => s.clone(),
                        _ => json!({}),
                    },
                    typed: None,
                });
            }
        }
    }
    out
}

/// The function definitions of a typed tool: its compile-time constants, renamed when the
/// toolbox had to (collisions) and prefixed when asked.
fn typed_functions(
    t: &TypedTool,
    exported: &str,
    description: Option<&str>,
    input_schema: &Value,
) -> (Value, Result<Value, String>) {
    let patch = |text: &str| -> Option<Value> {
        let mut v: Value = serde_json::from_str(text).ok()?;
        let f = v.get_mut("function")?.as_object_mut()?;
        f.insert("name".into(), json!(exported));
        match description {
            Some(d) => {
                f.insert("description".into(), json!(d));
            }
            None => {
                f.remove("description");
            }
        }
        Some(v)
    };
    let function = patch(t.openai_function)
        .unwrap_or_else(|| openai::function_definition(exported, description, input_schema));
    let strict = match (t.openai_function_strict, t.openai_strict_unavailable) {
        (Some(text), _) => {
            patch(text).ok_or_else(|| "invalid compile-time strict definition".to_string())
        }
        (None, Some(reason)) => Err(reason.to_string()),
        (None, None) => Err("no strict definition was generated".to_string()),
    };
    (function, strict)
}

// ---------------------------------------------------------------------------------------
// Toolbox
// ---------------------------------------------------------------------------------------

/// Many MCP servers behind one set of exported tools. Cheap to clone (shared state).
#[derive(Clone)]
pub struct Toolbox {
    inner: Arc<Inner>,
}

struct Inner {
    options: ToolboxOptions,
    lookup: EnvLookup,
    skipped: Vec<SkippedServer>,
    state: RwLock<Arc<Snapshot>>,
    reconnecting: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Toolbox")
            .field("servers", &self.statuses())
            .field("options", &self.inner.options)
            .finish_non_exhaustive()
    }
}

impl Toolbox {
    /// A builder over every server of `registry`.
    pub fn builder(registry: &Registry) -> ToolboxBuilder {
        Self::from_servers(registry.servers().to_vec())
    }

    /// A builder over these servers (for programmatic configurations).
    pub fn from_servers(servers: Vec<ServerConfig>) -> ToolboxBuilder {
        ToolboxBuilder {
            servers,
            only: None,
            typed: BTreeMap::new(),
            wrappers: BTreeMap::new(),
            lookup: None,
            options: ToolboxOptions::default(),
        }
    }

    fn snapshot(&self) -> Arc<Snapshot> {
        match self.inner.state.read() {
            Ok(s) => s.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    fn replace(&self, snapshot: Snapshot) {
        let new = Arc::new(snapshot);
        match self.inner.state.write() {
            Ok(mut s) => *s = new,
            Err(poisoned) => *poisoned.into_inner() = new,
        }
    }

    /// The toolbox's options.
    pub fn options(&self) -> &ToolboxOptions {
        &self.inner.options
    }

    /// Servers skipped at start-up, with the reason.
    pub fn skipped(&self) -> &[SkippedServer] {
        &self.inner.skipped
    }

    /// Every server's status, sorted by alias.
    pub fn statuses(&self) -> Vec<ServerStatus> {
        let snap = self.snapshot();
        snap.slots
            .values()
            .map(|slot| {
                let (state, last_error) = slot.health();
                ServerStatus {
                    alias: slot.config.alias.clone(),
                    state: if slot.session.is_none() {
                        ServerState::Failed
                    } else {
                        state
                    },
                    last_error,
                    tools: snap
                        .entries
                        .iter()
                        .filter(|e| e.tool.server == slot.config.alias)
                        .count(),
                    typed: slot.typed.is_some(),
                    transport: slot.config.transport.kind(),
                }
            })
            .collect()
    }

    /// Pings every connected server in parallel ([`Session::health`]: short deadline, never
    /// reconnects), records the outcome as each server's state, and returns the statuses.
    pub async fn check_health(&self) -> Vec<ServerStatus> {
        let snap = self.snapshot();
        let slots: Vec<&Arc<Slot>> = snap
            .slots
            .values()
            .filter(|s| s.session.is_some())
            .collect();
        let checks = futures::future::join_all(slots.iter().map(|slot| async move {
            match &slot.session {
                Some(session) => Some(session.health().await),
                None => None,
            }
        }))
        .await;
        for (slot, health) in slots.iter().zip(checks) {
            match health {
                Some(h) if h.is_ok() => slot.set_health(ServerState::Active, None),
                Some(h) => {
                    let why = format!("health check: {h:?}");
                    tracing::warn!(server = %slot.config.alias, health = ?h, "server unhealthy");
                    slot.set_health(ServerState::Failed, Some(why));
                }
                None => {}
            }
        }
        self.statuses()
    }

    /// One server's status.
    pub fn status(&self, alias: &str) -> Option<ServerStatus> {
        self.statuses().into_iter().find(|s| s.alias == alias)
    }

    /// The configuration of every server of the toolbox (connected or not).
    pub fn server_configs(&self) -> Vec<ServerConfig> {
        self.snapshot()
            .slots
            .values()
            .map(|s| s.config.clone())
            .collect()
    }

    /// The live session of a server.
    pub fn session(&self, alias: &str) -> Option<Session> {
        self.snapshot()
            .slots
            .get(alias)
            .and_then(|s| s.session.clone())
    }

    /// Every exported tool, sorted by server and tool.
    pub fn tools(&self) -> Vec<ExportedTool> {
        self.snapshot()
            .entries
            .iter()
            .map(|e| e.tool.clone())
            .collect()
    }

    /// Collisions of exported names and how they were resolved.
    pub fn collisions(&self) -> Vec<NameCollision> {
        self.snapshot().collisions.clone()
    }

    /// Resolves an exported name, `alias.tool`, or an unambiguous short tool name.
    pub fn resolve(&self, name: &str) -> Result<ToolRef, Error> {
        let snap = self.snapshot();
        let i = snap.resolve(name, None)?;
        Ok(tool_ref(&snap, i))
    }

    /// The `tools` array of a chat-completions request: non-strict definitions, or strict
    /// ones where possible (the others non-strict; see [`Toolbox::openai_export`]).
    pub fn openai_tools(&self, strict: bool) -> Vec<Value> {
        self.openai_export(strict).tools
    }

    /// [`Toolbox::openai_tools`] with the list of strict fallbacks.
    pub fn openai_export(&self, strict: bool) -> OpenAiExport {
        export(&self.snapshot(), strict, None)
    }

    /// Raw MCP tool definitions and the live session of every connected server.
    pub fn native_servers(&self) -> Vec<NativeServer> {
        native(&self.snapshot(), None)
    }

    /// Dispatches a model's tool call: `name` as exported (or `alias.tool`, or an
    /// unambiguous short name), `arguments_json` the model's arguments string (empty means
    /// `{}`).
    pub async fn call(&self, name: &str, arguments_json: &str) -> Dispatch {
        self.dispatch(
            name,
            arguments_json,
            None,
            self.inner.options.call_options.clone(),
        )
        .await
    }

    /// [`Toolbox::call`] with per-call options.
    pub async fn call_with(
        &self,
        name: &str,
        arguments_json: &str,
        options: CallOptions,
    ) -> Dispatch {
        self.dispatch(name, arguments_json, None, options).await
    }

    /// [`Toolbox::call`] with arguments already parsed.
    pub async fn call_value(&self, name: &str, arguments: &Value) -> Dispatch {
        self.dispatch(
            name,
            &arguments.to_string(),
            None,
            self.inner.options.call_options.clone(),
        )
        .await
    }

    /// Registers (or replaces) a typed server after start-up and re-exports the tools.
    pub fn add_typed(&self, alias: &str, tools: &'static [TypedTool]) -> Result<(), Error> {
        let snap = self.snapshot();
        let Some(slot) = snap.slots.get(alias) else {
            return Err(Error::toolbox(
                ErrorKind::Config,
                format!(
                    "a typed server names server \"{alias}\", which the toolbox does not have (servers: {})",
                    snap.slots.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            ));
        };
        let mut slots = snap.slots.clone();
        slots.insert(
            alias.to_string(),
            Arc::new(Slot {
                config: slot.config.clone(),
                session: slot.session.clone(),
                tools: slot.tools.clone(),
                typed: Some(tools),
                health: slot.health.clone(),
            }),
        );
        self.replace(Snapshot::build(slots, &self.inner.options));
        Ok(())
    }

    /// Connects again the failed servers (`failed_only`) or all of them, in parallel, and
    /// re-exports the tools. A server that fails again keeps its previous session, if any.
    pub async fn reconnect(&self, failed_only: bool) -> ReconnectReport {
        let _one_at_a_time = self.inner.reconnecting.lock().await;
        let snap = self.snapshot();
        let targets: Vec<Arc<Slot>> = snap
            .slots
            .values()
            .filter(|s| !failed_only || s.session.is_none() || s.health().0 == ServerState::Failed)
            .cloned()
            .collect();
        let lookup = self.inner.lookup.clone();
        let results = futures::future::join_all(
            targets
                .iter()
                .map(|slot| connect_one(&slot.config, &lookup)),
        )
        .await;
        let mut slots = snap.slots.clone();
        let mut report = ReconnectReport::default();
        for (slot, result) in targets.into_iter().zip(results) {
            let alias = slot.config.alias.clone();
            match result {
                Ok((session, tools)) => {
                    if let Some(old) = &slot.session {
                        let _ = old.close().await;
                    }
                    slot.set_health(ServerState::Active, None);
                    tracing::info!(server = %alias, tools = tools.len(), "server reconnected");
                    slots.insert(
                        alias.clone(),
                        Arc::new(Slot {
                            config: slot.config.clone(),
                            session: Some(session),
                            tools,
                            typed: slot.typed,
                            health: slot.health.clone(),
                        }),
                    );
                    report.reconnected.push(alias);
                }
                Err(e) => {
                    let reason = e.to_string();
                    slot.set_health(ServerState::Failed, Some(reason.clone()));
                    tracing::warn!(server = %alias, reason = %reason, "reconnect failed");
                    report.failed.push((alias, reason));
                }
            }
        }
        self.replace(Snapshot::build(slots, &self.inner.options));
        report
    }

    /// The prompts of a server (`prompts/list`, all pages; empty without the capability).
    pub async fn list_prompts(&self, alias: &str) -> Result<Vec<Value>, Error> {
        let session = self.require_session(alias)?;
        session.list_prompts().await.map_err(Error::into_toolbox)
    }

    /// The resource templates of a server (`resources/templates/list`, all pages; empty
    /// without the capability).
    pub async fn list_resource_templates(&self, alias: &str) -> Result<Vec<Value>, Error> {
        let session = self.require_session(alias)?;
        session
            .list_resource_templates()
            .await
            .map_err(Error::into_toolbox)
    }

    /// The resources of a server (`resources/list`, all pages; empty without the capability).
    pub async fn list_resources(&self, alias: &str) -> Result<Vec<Value>, Error> {
        let session = self.require_session(alias)?;
        session.list_resources().await.map_err(Error::into_toolbox)
    }

    /// Reads a resource of a server (`resources/read`; the result's JSON).
    pub async fn read_resource(&self, alias: &str, uri: &str) -> Result<Value, Error> {
        let session = self.require_session(alias)?;
        session
            .read_resource(uri)
            .await
            .map_err(Error::into_toolbox)
    }

    /// Gets a prompt of a server with its arguments (`prompts/get`; the result's JSON).
    pub async fn get_prompt(
        &self,
        alias: &str,
        name: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<Value, Error> {
        let session = self.require_session(alias)?;
        session
            .get_prompt(name, arguments)
            .await
            .map_err(Error::into_toolbox)
    }

    fn require_session(&self, alias: &str) -> Result<Session, Error> {
        let snap = self.snapshot();
        match snap.slots.get(alias) {
            None => Err(Error::toolbox(
                ErrorKind::Config,
                format!(
                    "no server \"{alias}\" in the toolbox (servers: {})",
                    snap.slots.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            )),
            Some(slot) => slot.session.clone().ok_or_else(|| unavailable(slot)),
        }
    }

    /// Creates the view of one agent: checks the model/server rules (an error for a
    /// model without MCP support and a server without `function_call_wrapper`; a warning,
    /// logged and kept in [`AgentView::warnings`], for an MCP model and a wrapper server) and
    /// restricts everything to the agent's servers and tools.
    pub fn agent(&self, config: &AgentConfig, policy: &ModelPolicy) -> Result<AgentView, Error> {
        let servers = self.server_configs();
        let check = check_rules(config, policy, &servers)?;
        let scope = agent::Scope::new(config, &self.snapshot())?;
        Ok(AgentView::new(self.clone(), config.clone(), check, scope))
    }

    async fn dispatch(
        &self,
        name: &str,
        arguments_json: &str,
        scope: Option<&agent::Scope>,
        options: CallOptions,
    ) -> Dispatch {
        let start = Instant::now();
        let snap = self.snapshot();
        let max = self.inner.options.max_output_bytes;
        let fail = |e: Error, tool: Option<ToolRef>| {
            let (server, tool_name) = tool
                .as_ref()
                .map(|t| (t.server.as_str(), t.tool.as_str()))
                .unwrap_or(("", ""));
            tracing::warn!(server, tool = tool_name, name, kind = e.kind().as_str(), error = %e, "tool failed");
            let (text, truncation) = truncate_middle(&format!("Error: {e}"), max);
            Dispatch {
                text,
                result: Err(e),
                tool,
                truncation,
                duration: start.elapsed(),
            }
        };
        let index = match snap.resolve(name, scope) {
            Ok(i) => i,
            Err(e) => return fail(e, None),
        };
        let Some(entry) = snap.entry(index) else {
            return fail(
                Error::toolbox(ErrorKind::UnknownTool, format!("unknown tool \"{name}\"")),
                None,
            );
        };
        let target = tool_ref(&snap, index);
        let arguments = match parse_arguments(arguments_json, &target.exported) {
            Ok(a) => a,
            Err(e) => return fail(e, Some(target)),
        };
        let arguments = typed::prepare_arguments(
            &entry.tool.input_schema,
            entry.typed.and_then(|t| t.normalize),
            arguments,
        );
        let arguments = match arguments {
            Ok(a) => a,
            Err(problems) => {
                return fail(
                    Error::toolbox(
                        ErrorKind::InvalidArguments,
                        format!(
                            "invalid arguments for {}: {problems}. Fix the arguments and call it again.",
                            target.exported
                        ),
                    ),
                    Some(target),
                );
            }
        };
        let Some(slot) = snap.slots.get(&target.server) else {
            return fail(
                Error::toolbox(
                    ErrorKind::Unavailable,
                    format!("server \"{}\" is not in the toolbox", target.server),
                ),
                Some(target),
            );
        };
        let Some(session) = slot.session.clone() else {
            return fail(unavailable(slot), Some(target));
        };
        let span = tracing::info_span!(
            "mcp_tool_call",
            server = %target.server,
            tool = %target.tool,
            exported = %target.exported,
            duration_ms = tracing::field::Empty,
            outcome = tracing::field::Empty,
        );
        let call = async {
            tracing::info!(server = %target.server, tool = %target.tool, "tool called");
            session.call_with(&target.tool, &arguments, options).await
        };
        let result = call.instrument(span.clone()).await;
        let elapsed = start.elapsed();
        span.record("duration_ms", elapsed.as_millis() as u64);
        let _entered = span.enter();
        match result {
            Ok(output) if !output.is_error => {
                span.record("outcome", "ok");
                slot.set_health(ServerState::Active, None);
                tracing::debug!(duration_ms = elapsed.as_millis() as u64, "tool returned");
                let (text, truncation) = truncate_middle(&model_text(&output), max);
                Dispatch {
                    text,
                    result: Ok(output),
                    tool: Some(target),
                    truncation,
                    duration: elapsed,
                }
            }
            Ok(output) => {
                span.record("outcome", "tool_error");
                let body = output.text();
                let e = Error::toolbox(
                    ErrorKind::ToolFailed,
                    format!(
                        "tool {} failed: {}",
                        target.exported,
                        if body.trim().is_empty() {
                            "(no message)"
                        } else {
                            body.trim()
                        }
                    ),
                )
                .with_output(output);
                fail(e, Some(target))
            }
            Err(e) => {
                let e = e.into_toolbox();
                span.record("outcome", e.kind().as_str());
                if e.kind() == ErrorKind::Transport {
                    slot.set_health(ServerState::Failed, Some(e.to_string()));
                }
                fail(e, Some(target))
            }
        }
    }
}

fn unavailable(slot: &Slot) -> Error {
    let (_, last) = slot.health();
    Error::toolbox(
        ErrorKind::Unavailable,
        format!(
            "server \"{}\" is not connected{}; its tools cannot be called right now",
            slot.config.alias,
            last.map(|l| format!(" (last error: {l})"))
                .unwrap_or_default()
        ),
    )
}

fn tool_ref(snap: &Snapshot, index: usize) -> ToolRef {
    match snap.entry(index) {
        Some(e) => ToolRef {
            server: e.tool.server.clone(),
            tool: e.tool.tool.clone(),
            exported: e.tool.exported.clone(),
        },
        None => ToolRef {
            server: String::new(),
            tool: String::new(),
            exported: String::new(),
        },
    }
}

fn parse_arguments(text: &str, exported: &str) -> Result<Value, Error> {
    let invalid = |m: String| Error::toolbox(ErrorKind::InvalidArguments, m);
    if text.trim().is_empty() {
        return Ok(json!({}));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Null) => Ok(json!({})),
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(other) => Err(invalid(format!(
            "invalid arguments for {exported}: expected a JSON object, found {}",
            mcp_codegen::fixture::json_kind(&other)
        ))),
        Err(e) => Err(invalid(format!(
            "invalid arguments for {exported}: not valid JSON ({e}); send a JSON object"
        ))),
    }
}

/// The model's view of a result: the content blocks as text; the structured result when
/// there is no content.
fn model_text(output: &ToolOutput) -> String {
    let text = output.text();
    if !text.is_empty() {
        return text;
    }
    match &output.structured {
        Some(v) => v.to_string(),
        None => "(the tool returned no content)".to_string(),
    }
}

fn export(snap: &Snapshot, strict: bool, scope: Option<&agent::Scope>) -> OpenAiExport {
    let mut entries: Vec<&Entry> = snap
        .entries
        .iter()
        .filter(|e| scope.is_none_or(|s| s.allows(&e.tool.server, &e.tool.tool)))
        .collect();
    entries.sort_by(|a, b| a.tool.exported.cmp(&b.tool.exported));
    let mut out = OpenAiExport {
        tools: Vec::with_capacity(entries.len()),
        fallbacks: Vec::new(),
    };
    for e in entries {
        match (&e.tool.strict_function, strict) {
            (Ok(s), true) => out.tools.push(s.clone()),
            (Err(reason), true) => {
                out.fallbacks.push(StrictFallback {
                    exported: e.tool.exported.clone(),
                    server: e.tool.server.clone(),
                    tool: e.tool.tool.clone(),
                    reason: reason.clone(),
                });
                out.tools.push(e.tool.function.clone());
            }
            (_, false) => out.tools.push(e.tool.function.clone()),
        }
    }
    out
}

fn native(snap: &Snapshot, scope: Option<&agent::Scope>) -> Vec<NativeServer> {
    snap.slots
        .values()
        .filter(|slot| scope.is_none_or(|s| s.has_server(&slot.config.alias)))
        .filter_map(|slot| {
            let session = slot.session.clone()?;
            let tools = snap
                .entries
                .iter()
                .filter(|e| e.tool.server == slot.config.alias)
                .filter(|e| scope.is_none_or(|s| s.allows(&e.tool.server, &e.tool.tool)))
                .map(|e| e.tool.definition.clone())
                .collect();
            Some(NativeServer {
                alias: slot.config.alias.clone(),
                tools,
                session,
            })
        })
        .collect()
}

/// Exports the tools of several servers offline (from fixtures or any tool lists), exactly
/// as a [`Toolbox`] over live servers with the same tools would: used by
/// `cargo xtask tools`.
pub fn export_offline(
    servers: &[(String, Vec<Value>)],
    options: &ToolboxOptions,
    strict: bool,
) -> (OpenAiExport, Vec<NameCollision>) {
    let slots: BTreeMap<String, Arc<Slot>> = servers
        .iter()
        .map(|(alias, tools)| {
            (
                alias.clone(),
                Arc::new(Slot {
                    config: ServerConfig::stdio(alias.clone(), "", Vec::new()),
                    session: None,
                    tools: tools.clone(),
                    typed: None,
                    health: Arc::new(Mutex::new(Health {
                        state: ServerState::Active,
                        last_error: None,
                    })),
                }),
            )
        })
        .collect();
    let mut candidates = Vec::new();
    for slot in slots.values() {
        candidates.extend(server_candidates(slot));
    }
    let snap = Snapshot::build_from(slots, candidates, options);
    (export(&snap, strict, None), snap.collisions.clone())
}
