//! The agent layer: many MCP servers behind one [`Toolbox`], exported to models.
//!
//! * **Start-up.** [`Toolbox::builder`] takes a [`Registry`] (TOML or `mcpServers` JSON);
//!   [`ToolboxBuilder::connect`] connects every selected server in parallel. A server that
//!   cannot be reached, or whose `${SECRET}` is not set, is skipped and reported
//!   ([`Toolbox::skipped`], a `server skipped` warning) — unless it is `required`, which makes
//!   start-up fail. [`Toolbox::statuses`] shows each server's state and last error;
//!   [`Toolbox::reconnect`] retries failed (or all) servers.
//! * **Tools: what was reviewed.** A server with a fixture (`<alias>.json` beside the
//!   registry, [`ToolboxBuilder::fixtures_dir`], [`ToolboxBuilder::fixture`]) or typed by
//!   `mcp_tools!` ([`ToolboxBuilder::add_typed`], [`TypedTool`]) exports its reviewed
//!   definitions, never the live ones: each tool is pinned by its fingerprint (RFC 8785
//!   canonical JSON, SHA-256, of what the model reads and of its schemas). A live tool
//!   missing from the fixture is neither offered nor callable ([`Error::NotReviewed`]) unless
//!   the server or the agent sets `unreviewed_tools`; a reviewed tool that changed is
//!   refused when the change is breaking (or, with `drift = "error"`, any change:
//!   [`Error::Drift`]) and otherwise offered as reviewed, with one warning; a
//!   `tools/list_changed` judges again. A server without a fixture exports its live
//!   `tools/list`, with one warning (`require_fixture` refuses it). Per-server allow/deny
//!   lists (`tools`, `exclude_tools`) apply to all.
//! * **Names.** Each tool is exported as `mcp_<alias>_<tool>` ([`names`]): sanitized, ≤ 64
//!   characters, collisions resolved deterministically and reported
//!   ([`Toolbox::collisions`]); a map leads back to `(server, tool)` — names are never
//!   parsed. [`Toolbox::resolve`] also accepts `alias.tool` and unambiguous short names.
//! * **Function calls.** [`Toolbox::openai_tools`] is the `tools` array of a chat-completions
//!   request (non-strict, or strict with a per-tool fallback: [`Toolbox::openai_export`]).
//!   [`Toolbox::call`] dispatches a model's tool call (name + JSON arguments string):
//!   validates the arguments (typed: the generated argument type; untyped: the server's input schema, checked by the runtime's own validator of
//!   the subset tool schemas use),
//!   calls, and returns a [`Dispatch`] — text for the model (long results cut in the middle)
//!   and the typed result for code. Failures are short model-readable texts, never panics.
//! * **Fakes.** [`ToolboxBuilder::add_fake`] puts a [`FakeServer`](crate::fake::FakeServer)
//!   (a generated `Fake` of `mcp_tools!`) in place of a server: typed by its tools, it
//!   answers from stubs or a cassette with no process and no network, so an agent loop
//!   (export, the model's tool call, dispatch) runs offline. The registry entry of its alias,
//!   if any, is not connected but still filters its tools; its status says transport
//!   `"fake"`.
//! * **Native MCP.** [`Toolbox::native_servers`]: raw MCP tool definitions and the live
//!   [`Session`] of each server, for models that speak MCP.
//! * **Agents.** [`ModelPolicy`] says which models support MCP;
//!   `function_call_wrapper` (per server, registry key or
//!   [`ToolboxBuilder::function_call_wrapper`]) says which servers may be offered as function
//!   calls. [`Toolbox::agent`] checks an [`AgentConfig`] against both (error or warning) and
//!   returns the agent's toolbox: the same type, sharing the servers, that lists, exports,
//!   routes and dispatches only the agent's servers and tools.
//!
//! Every call runs in a `mcp_tool_call` span (`server`, `tool`, `exported`, `duration_ms`,
//! `outcome`); events: `tool called`, `tool failed`, `server skipped`, `server reconnected`.

pub mod adapters;
mod agent;
mod builder;
mod catalog;
mod discovery;
mod dispatch;
mod export;
mod extras;
#[cfg(test)]
mod fake_tests;
mod hooks;
mod lifecycle;
mod local;
pub mod names;
mod outcome;
pub mod provider;
pub(crate) mod review;
mod scope;
mod text;
pub(crate) mod typed;

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use serde_json::Value;

use crate::config::{Registry, ServerConfig};
use crate::error::{Error, ErrorKind};
use crate::session::{CallOptions, Session};
use catalog::{Snapshot, unavailable};

pub use crate::typed::{Normalize, TypedTool, normalize_as, normalize_no_args};
#[cfg(test)]
pub(crate) use agent::check_rules;
pub use agent::{AgentConfig, AgentTools, ApprovalRule, ModelPolicy, ModelRef};
pub use builder::ToolboxBuilder;
pub use catalog::{ExportedTool, ToolRef};
pub use export::{ConnectorOptions, MixedTools, NativeServer, export_offline};
pub use hooks::{ApprovalPolicy, Hook, ModelCall, ToolStats, Verdict};
pub use lifecycle::RefreshReport;
pub use local::LocalTool;
pub use mcp_bindgen_core::provider::Tokens;
pub use outcome::Dispatch;
pub use scope::Route;
pub use text::Truncation;
pub use typed::prepare_arguments;

/// Looks up `${NAME}` placeholders.
pub(crate) type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Default of [`ToolboxOptions::max_output_bytes`].
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 20_000;

/// Settings of a [`Toolbox`].
#[derive(Debug, Clone)]
pub struct ToolboxOptions {
    /// Tool results longer than this (bytes of text) are cut in the middle for the model
    /// (cut in the middle); the full result stays in [`Dispatch::result`].
    pub max_output_bytes: usize,
    /// Prefix every exported description with `[MCP: <alias>] `.
    pub description_prefix: bool,
    /// Options of every call (deadlines, progress).
    pub call_options: CallOptions,
    /// Export each prompt of a server as the tool `mcp_<alias>_get_prompt_<name>`.
    pub prompts_as_tools: bool,
    /// Export the tool `mcp_<alias>_read_resource` for each server with resources.
    pub resources_as_tools: bool,
    /// Re-list a server's tools when it reports `tools/list_changed` (default on).
    pub refresh_on_list_changed: bool,
    /// What every server's session connects with: the client capabilities it offers
    /// (sampling with the agent's model, roots, elicitation) and server-log receivers. The
    /// toolbox sets the placeholder lookup ([`ToolboxBuilder::env`]) and, with
    /// [`ToolboxOptions::refresh_on_list_changed`], the `tools/list_changed` receiver.
    pub connect_options: crate::ConnectOptions,
    /// Per server, the prefix its exported names take instead of `mcp_<alias>_` (`""`:
    /// the tools' own names; collisions are resolved as for any name).
    pub prefixes: BTreeMap<String, String>,
    /// Per server, a predicate on each tool's MCP definition: the tools it refuses are not
    /// exported (beside the registry's `tools`/`exclude_tools`).
    pub filters: BTreeMap<String, ToolFilter>,
    /// Per `(server, tool)`, how long a result is reused for a call with the same
    /// arguments: only for tools annotated read-only and idempotent (checked at connect),
    /// forgotten when the server reports `tools/list_changed`.
    pub cache: BTreeMap<(String, String), std::time::Duration>,
    /// Export the compact form of each server tool's schema
    /// ([`provider::compact`]: no `$schema`, titles that repeat a name, defaults the
    /// description states, keywords that allow everything, spare whitespace). A model's
    /// arguments are still checked against the full schema.
    pub compact: bool,
    /// The longest description exported for a server tool (`None`, the default: as the
    /// server wrote it). Some clients keep only the first 2 048 characters, silently, and a
    /// model then invents the arguments named past the cut; with a cap, a longer description
    /// is shortened at a sentence boundary and the sentences past it that name an argument
    /// move into that argument's description. A server's own
    /// [`ServerConfig::max_description_chars`](crate::ServerConfig::max_description_chars)
    /// (the registry's `max_description_chars`) overrides it.
    pub max_description_chars: Option<usize>,
    /// Progressive discovery ([`Progressive`]): export two tools that search and load the
    /// catalogue instead of every definition.
    pub progressive: Option<Progressive>,
}

/// Progressive discovery ([`ToolboxBuilder::progressive`]): instead of every tool's
/// definition, the exports hold [`provider::discovery`]'s two tools — `search_tools` (names
/// and one-line summaries of the tools matching a query) and `load_tools` (loads tools by
/// name) —, the tools loaded so far and the pinned ones. Calls are dispatched as usual; a
/// loaded tool takes the same path as without discovery. The exports stay byte-for-byte the
/// same from one turn to the next until a tool is loaded, so a provider's prompt cache
/// keeps working.
///
/// The discovery tools' names come first: a server tool exported under the same name (a
/// `prefix` of `""`) is reached as `alias.tool`. The loaded tools are the toolbox's, shared by
/// its agents' toolboxes (each still exports and dispatches only its own tools).
///
/// Worth it when the definitions take more than a few percent of the model's context
/// window (1–5 %: for a 200 000-token window, from about 2 000–10 000 tokens of tools); `mcp_tools!(…,
/// tokens = true)` and `cargo mcp-bindgen tools --tokens` give the count.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Progressive {
    /// Tools exported from the start (exported names, or `alias.tool`).
    pub pinned: std::collections::BTreeSet<String>,
}

/// A predicate on a tool's MCP definition ([`ToolboxOptions::filters`]).
#[derive(Clone)]
pub struct ToolFilter(Arc<dyn Fn(&serde_json::Value) -> bool + Send + Sync>);

impl ToolFilter {
    /// Keeps the tools for which `f` is true.
    pub fn new(f: impl Fn(&serde_json::Value) -> bool + Send + Sync + 'static) -> Self {
        ToolFilter(Arc::new(f))
    }

    /// Whether the tool `definition` is kept.
    pub fn keeps(&self, definition: &serde_json::Value) -> bool {
        (self.0)(definition)
    }
}

impl std::fmt::Debug for ToolFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ToolFilter(..)")
    }
}

impl Default for ToolboxOptions {
    fn default() -> Self {
        ToolboxOptions {
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
            description_prefix: false,
            call_options: CallOptions::default(),
            prompts_as_tools: false,
            resources_as_tools: false,
            refresh_on_list_changed: true,
            connect_options: crate::ConnectOptions::default(),
            prefixes: BTreeMap::new(),
            filters: BTreeMap::new(),
            cache: BTreeMap::new(),
            compact: false,
            max_description_chars: None,
            progressive: None,
        }
    }
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
    /// `stdio`, `sse` or `streamable-http`; `fake` for a fake
    /// ([`ToolboxBuilder::add_fake`]).
    pub transport: &'static str,
    /// Where the reviewed tools the model is offered come from (`fixtures/github.json`, the
    /// tools `mcp_tools!` compiled); `None`: no fixture, the live tools are offered.
    pub reviewed: Option<String>,
    /// Reviewed tools refused now (a breaking change, gone from the server), sorted.
    pub withheld: Vec<String>,
    /// Live tools that were never reviewed and are not offered, sorted (a server's
    /// `unreviewed_tools = true` offers them, and then they are counted in `tools`; an
    /// agent's shows them to that agent only).
    pub unreviewed: Vec<String>,
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

/// Many MCP servers behind one set of exported tools. Cheap to clone (shared state).
///
/// [`Toolbox::agent`] gives one agent's toolbox: the same servers, with everything a model
/// sees (tools, exports, sessions, calls, prompts and resources) restricted to the agent's
/// servers and tools. Closing, reconnecting or refreshing acts on the shared servers.
#[derive(Clone)]
pub struct Toolbox {
    inner: Arc<Inner>,
    /// The agent this toolbox is restricted to, if any.
    agent: Option<Arc<scope::Agent>>,
}

/// What a cached result is kept under: `(server, tool, arguments as JSON)`.
type CacheKey = (String, String, String);
/// The result cache: when each result came, and the result.
type ResultCache = std::collections::HashMap<CacheKey, (std::time::Instant, crate::ToolOutput)>;

struct Inner {
    options: ToolboxOptions,
    lookup: EnvLookup,
    skipped: Vec<SkippedServer>,
    state: RwLock<Arc<Snapshot>>,
    reconnecting: tokio::sync::Mutex<()>,
    /// Set by [`Toolbox::close`]: calls are refused from then on.
    closed: std::sync::atomic::AtomicBool,
    /// Sessions send their alias here on `tools/list_changed`.
    changed: lifecycle::ChangedTx,
    /// Cached results ([`ToolboxOptions::cache`]): `(server, tool, arguments)` → when the
    /// result came, and the result.
    results: std::sync::Mutex<ResultCache>,
    /// Tools loaded by progressive discovery's `load_tools` (exported names).
    loaded: std::sync::Mutex<std::collections::BTreeSet<String>>,
    /// Hooks, run-time switches and statistics.
    watch: hooks::Watch,
}

impl std::fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Toolbox")
            .field("agent", &self.agent.as_ref().map(|a| &a.config.name))
            .field("servers", &self.statuses())
            .field("options", &self.inner.options)
            .finish_non_exhaustive()
    }
}

impl Toolbox {
    /// A builder over every server of `registry`.
    pub fn builder(registry: &Registry) -> ToolboxBuilder {
        let mut builder = Self::from_servers(registry.servers().to_vec());
        builder.disabled = registry.disabled().to_vec();
        // `snapshot` writes a registry's fixtures next to it (`fixtures/`).
        builder.fixtures_dir = registry.path.parent().map(|d| {
            if d.as_os_str().is_empty() {
                std::path::PathBuf::from(".")
            } else {
                d.to_path_buf()
            }
        });
        builder
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
            locals: BTreeMap::new(),
            local_error: None,
            lazy: BTreeMap::new(),
            disabled: Vec::new(),
            fakes: BTreeMap::new(),
            fixtures_dir: None,
            fixtures: BTreeMap::new(),
            hooks: Vec::new(),
        }
    }

    /// The agent's servers and tools, for an agent's toolbox.
    fn scope(&self) -> Option<&scope::Scope> {
        self.agent.as_deref().map(|a| &a.scope)
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
                    alias: slot.config.alias().to_string(),
                    state: if slot.session.is_none() && !slot.is_fake() {
                        ServerState::Failed
                    } else {
                        state
                    },
                    last_error,
                    tools: snap
                        .entries
                        .iter()
                        .filter(|e| e.tool.server == slot.config.alias() && !e.unreviewed)
                        .count(),
                    reviewed: slot.reviewed.as_ref().map(|r| r.source.clone()),
                    withheld: snap
                        .withheld
                        .keys()
                        .filter(|(server, _)| server == slot.config.alias())
                        .map(|(_, tool)| tool.clone())
                        .collect(),
                    unreviewed: snap
                        .entries
                        .iter()
                        .filter(|e| e.tool.server == slot.config.alias() && e.unreviewed)
                        .map(|e| e.tool.tool.clone())
                        .collect(),
                    typed: slot.typed.is_some(),
                    transport: if slot.is_fake() {
                        "fake"
                    } else {
                        slot.config.transport().kind()
                    },
                }
            })
            .collect()
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

    /// The live session of a server (`None` for a fake: it has none, and for a server
    /// outside an agent's).
    pub fn session(&self, alias: &str) -> Option<Session> {
        if self.scope().is_some_and(|s| !s.has_server(alias)) {
            return None;
        }
        self.snapshot()
            .slots
            .get(alias)
            .and_then(|s| s.session.clone())
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
        let mut next = slot.next(slot.session.clone(), slot.tools.clone());
        next.typed = Some(tools);
        next.reviewed = Some(Arc::new(review::Reviewed::from_typed(alias, tools)));
        slots.insert(alias.to_string(), Arc::new(next));
        self.replace(Snapshot::build(
            slots,
            snap.locals.clone(),
            &self.inner.options,
        ));
        Ok(())
    }

    /// Adds a local tool after start-up (see [`ToolboxBuilder::add_local`]) and re-exports
    /// the tools. Fails for a bad name or a name already taken by a local tool.
    #[cfg(feature = "local-tools")]
    pub fn add_local<A, F, Fut, T, E>(
        &self,
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> Result<(), Error>
    where
        A: schemars::JsonSchema + serde::de::DeserializeOwned + Send + 'static,
        F: Fn(A) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<T, E>> + Send + 'static,
        T: Into<crate::output::ToolOutput>,
        E: std::fmt::Display,
    {
        self.add_local_tool(LocalTool::new(name, description, handler)?)
    }

    /// Adds a local tool built with [`LocalTool::with_schema`] (or `LocalTool::new`, with the `local-tools` feature) after
    /// start-up and re-exports the tools. Fails for a name already taken by a local tool.
    pub fn add_local_tool(&self, tool: LocalTool) -> Result<(), Error> {
        let snap = self.snapshot();
        if snap.locals.contains_key(tool.name()) {
            return Err(builder::duplicate_local(tool.name()));
        }
        let mut locals = snap.locals.clone();
        locals.insert(tool.name().to_string(), tool);
        self.replace(Snapshot::build(
            snap.slots.clone(),
            locals,
            &self.inner.options,
        ));
        Ok(())
    }

    /// The prompts of a server (`prompts/list`, all pages; empty without the capability,
    /// and for a fake).
    pub async fn list_prompts(&self, alias: &str) -> Result<Vec<Value>, Error> {
        let Some(session) = self.require_session(alias)? else {
            return Ok(Vec::new());
        };
        session.list_prompts().await.map_err(Error::into_toolbox)
    }

    /// The resource templates of a server (`resources/templates/list`, all pages; empty
    /// without the capability, and for a fake).
    pub async fn list_resource_templates(&self, alias: &str) -> Result<Vec<Value>, Error> {
        let Some(session) = self.require_session(alias)? else {
            return Ok(Vec::new());
        };
        session
            .list_resource_templates()
            .await
            .map_err(Error::into_toolbox)
    }

    /// The resources of a server (`resources/list`, all pages; empty without the
    /// capability, and for a fake).
    pub async fn list_resources(&self, alias: &str) -> Result<Vec<Value>, Error> {
        let Some(session) = self.require_session(alias)? else {
            return Ok(Vec::new());
        };
        session.list_resources().await.map_err(Error::into_toolbox)
    }

    /// Reads a resource of a server (`resources/read`; the result's JSON). A fake has no
    /// resources.
    pub async fn read_resource(&self, alias: &str, uri: &str) -> Result<Value, Error> {
        let Some(session) = self.require_session(alias)? else {
            return Err(no_extras(alias));
        };
        session
            .read_resource(uri)
            .await
            .map_err(Error::into_toolbox)
    }

    /// Gets a prompt of a server with its arguments (`prompts/get`; the result's JSON). A
    /// fake has no prompts.
    pub async fn get_prompt(
        &self,
        alias: &str,
        name: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<Value, Error> {
        let Some(session) = self.require_session(alias)? else {
            return Err(no_extras(alias));
        };
        session
            .get_prompt(name, arguments)
            .await
            .map_err(Error::into_toolbox)
    }

    /// The session of a server; `None` for a fake (which has none, and no prompts or
    /// resources).
    fn require_session(&self, alias: &str) -> Result<Option<Session>, Error> {
        self.check_server(alias)?;
        let snap = self.snapshot();
        match snap.slots.get(alias) {
            None => Err(Error::toolbox(
                ErrorKind::Config,
                format!(
                    "no server \"{alias}\" in the toolbox (servers: {})",
                    snap.slots.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            )),
            Some(slot) if slot.is_fake() => Ok(None),
            Some(slot) => slot
                .session
                .clone()
                .map(Some)
                .ok_or_else(|| unavailable(slot)),
        }
    }
}

/// Why a fake's prompts or resources cannot be read.
fn no_extras(alias: &str) -> Error {
    Error::toolbox(
        ErrorKind::Unavailable,
        format!(
            "server \"{alias}\" is a fake (ToolboxBuilder::add_fake): it has tools only, no prompts or resources"
        ),
    )
}
