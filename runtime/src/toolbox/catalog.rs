//! The catalog: each server's slot and health, its exported tools, and the resolution of a
//! model's tool name back to (server, tool).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};

use super::local::LocalTool;
use super::names::{self, NameCollision};
use super::provider::{self, Format, model_definition, openai};
use super::review::{self, Reviewed};
use super::scope::Scope;
use super::{ServerState, Toolbox, ToolboxOptions, TypedTool};
use crate::config::ServerConfig;
use crate::error::{Error, ErrorKind};
use crate::fake::FakeServer;
use crate::session::Session;

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

/// A tool as the toolbox exports it.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportedTool {
    /// The server's alias (empty for a local tool).
    pub server: String,
    /// The tool's name on the server.
    pub tool: String,
    /// The exported (function) name.
    pub exported: String,
    /// The tool's description.
    pub description: Option<String>,
    /// The description models see (with the `[MCP: <alias>]` prefix when
    /// [`ToolboxOptions::description_prefix`] is on).
    pub exported_description: Option<String>,
    /// Whether the definition comes from `mcp_tools!` (typed) rather than the live list.
    pub typed: bool,
    /// The MCP tool definition (`name`, `description`, `inputSchema`, …).
    pub definition: Value,
    /// The tool's input schema (what the model's arguments are checked against).
    pub input_schema: Value,
    /// The input schema the model reads, when it differs from [`ExportedTool::input_schema`]
    /// in descriptions only: the sentences that
    /// [`ToolboxOptions::max_description_chars`] moved out of the tool's description.
    pub model_schema: Option<Value>,
    /// The non-strict OpenAI function definition.
    pub function: Value,
    /// The strict OpenAI function definition, or why there is none.
    pub strict_function: Result<Value, String>,
}

impl ExportedTool {
    /// The input schema the model reads: [`ExportedTool::model_schema`], else
    /// [`ExportedTool::input_schema`].
    pub fn model_schema(&self) -> &Value {
        self.model_schema.as_ref().unwrap_or(&self.input_schema)
    }
}

#[derive(Debug)]
pub(super) struct Health {
    pub(super) state: ServerState,
    pub(super) last_error: Option<String>,
}

pub(super) struct Slot {
    pub(super) config: ServerConfig,
    pub(super) session: Option<Session>,
    /// The live `tools/list`, unfiltered.
    pub(super) tools: Vec<Value>,
    pub(super) typed: Option<&'static [TypedTool]>,
    /// Shared by every version of the slot.
    pub(super) health: Arc<Mutex<Health>>,
    /// Connected on the first call of one of its tools (whose definitions are known
    /// before: typed, or given to [`ToolboxBuilder::lazy`](super::ToolboxBuilder::lazy)).
    pub(super) lazy: bool,
    /// Held while a lazy server connects; shared by every version of the slot.
    pub(super) connecting: Arc<tokio::sync::Mutex<()>>,
    /// `prompts/list`, when prompts are exported as tools.
    pub(super) prompts: Vec<Value>,
    /// `resources/list`, when resources are exported as a tool.
    pub(super) resources: Vec<Value>,
    /// The fake that answers in place of the server
    /// ([`ToolboxBuilder::add_fake`](super::ToolboxBuilder::add_fake)): no session, never
    /// connected, always active; its tools are `typed`.
    pub(super) fake: Option<FakeServer>,
    /// The reviewed tools (its fixture's, or `typed`): what the model may see. `None`: no
    /// fixture, the live tools are offered unreviewed.
    pub(super) reviewed: Option<Arc<Reviewed>>,
    /// The warnings already given (each once per toolbox); shared by every version.
    pub(super) warned: Arc<Mutex<BTreeSet<String>>>,
}

/// A live tool list as a toolbox keeps it: what a server reflects of its configuration's
/// secrets (a `${NAME}` value in a title, a description, a name) redacted, so that no
/// warning, error, drift summary or export to a model carries it.
fn live_tools(session: Option<&Session>, tools: Vec<Value>) -> Vec<Value> {
    match session {
        Some(session) => session.redact_tools(tools),
        None => tools,
    }
}

impl Slot {
    pub(super) fn new(
        config: ServerConfig,
        session: Option<Session>,
        tools: Vec<Value>,
        typed: Option<&'static [TypedTool]>,
        error: Option<String>,
    ) -> Slot {
        let reviewed = typed.map(|t| Arc::new(Reviewed::from_typed(config.alias(), t)));
        let tools = live_tools(session.as_ref(), tools);
        Slot {
            reviewed,
            warned: Arc::default(),
            config,
            session,
            tools,
            typed,
            health: Arc::new(Mutex::new(Health {
                state: if error.is_none() {
                    ServerState::Active
                } else {
                    ServerState::Failed
                },
                last_error: error,
            })),
            lazy: false,
            connecting: Arc::new(tokio::sync::Mutex::new(())),
            prompts: Vec::new(),
            resources: Vec::new(),
            fake: None,
        }
    }

    /// The slot of a fake: typed by the fake's tools, active, not lazy, no session.
    pub(super) fn with_fake(config: ServerConfig, fake: FakeServer) -> Slot {
        let mut slot = Slot::new(config, None, Vec::new(), Some(fake.tools()), None);
        slot.fake = Some(fake);
        slot
    }

    /// Whether a fake answers in place of the server.
    pub(super) fn is_fake(&self) -> bool {
        self.fake.is_some()
    }

    /// The next version of the slot: another session and tool list, the rest shared.
    pub(super) fn next(&self, session: Option<Session>, tools: Vec<Value>) -> Slot {
        let tools = live_tools(session.as_ref(), tools);
        Slot {
            config: self.config.clone(),
            session,
            tools,
            typed: self.typed,
            health: self.health.clone(),
            lazy: self.lazy,
            connecting: self.connecting.clone(),
            prompts: self.prompts.clone(),
            resources: self.resources.clone(),
            fake: self.fake.clone(),
            reviewed: self.reviewed.clone(),
            warned: self.warned.clone(),
        }
    }

    /// With these reviewed tools (a fixture's).
    pub(super) fn with_reviewed(mut self, reviewed: Option<Reviewed>) -> Slot {
        if let Some(r) = reviewed {
            self.reviewed = Some(Arc::new(r));
        }
        self
    }

    /// Warns once per toolbox: through `tracing`, or on stderr when the program has no
    /// `tracing` subscriber (it would never see the warning).
    pub(super) fn warn_once(&self, text: String) {
        let first = self
            .warned
            .lock()
            .map(|mut w| w.insert(text.clone()))
            .unwrap_or(false);
        if !first {
            return;
        }
        review::warn(self.config.alias(), &text);
    }

    /// The slot with these prompt and resource lists.
    pub(super) fn with_lists(mut self, lists: Extras) -> Slot {
        self.prompts = lists.prompts;
        self.resources = lists.resources;
        self
    }

    pub(super) fn set_health(&self, state: ServerState, error: Option<String>) {
        if let Ok(mut h) = self.health.lock() {
            h.state = state;
            if error.is_some() {
                h.last_error = error;
            }
        }
    }

    pub(super) fn health(&self) -> (ServerState, Option<String>) {
        match self.health.lock() {
            Ok(h) => (h.state, h.last_error.clone()),
            Err(_) => (ServerState::Failed, Some("health lock poisoned".into())),
        }
    }
}

pub(super) struct Entry {
    pub(super) tool: ExportedTool,
    pub(super) typed: Option<&'static TypedTool>,
    /// Set for a local tool (then `tool.server` is empty).
    pub(super) local: Option<LocalTool>,
    /// What a call of the entry does on its server.
    pub(super) kind: Kind,
    /// A live tool that was never reviewed, which only an agent that allows unreviewed
    /// tools sees.
    pub(super) unreviewed: bool,
    /// The live definition tells the model other words than the reviewed one offered.
    pub(super) words_differ: bool,
    /// Why the plain OpenAI definition (`tool.function`) accepts more than the input schema
    /// (a root union merged, a `oneOf` that may overlap written `anyOf`), when it does.
    pub(super) widened: Option<String>,
    /// Why OpenAI would refuse the plain definition (`provider::check`), when it would: the
    /// tool is then left out of both OpenAI chat formats. Checked once per snapshot, like the
    /// definitions (a refused strict one is an `Err` of `tool.strict_function`).
    pub(super) refused: Option<String>,
}

/// The OpenAI definitions' checks, once per snapshot: a strict definition the checks refuse
/// becomes the reason it has no strict form; the plain one's refusal, if any.
fn checked_openai(
    function: &Value,
    strict: Result<Value, String>,
) -> (Result<Value, String>, Option<String>) {
    let strict = strict.and_then(|s| provider::check(Format::OpenAiStrict, &s).map(|()| s));
    (strict, provider::check(Format::OpenAi, function).err())
}

/// What an exported entry of a server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Kind {
    /// One of its tools.
    Tool,
    /// `prompts/get` of this prompt.
    Prompt(String),
    /// `resources/read` of the URI the model gives.
    ReadResource,
}

/// The prompt and resource lists of a server, for the tools they are exported as.
#[derive(Debug, Clone, Default)]
pub(super) struct Extras {
    pub(super) prompts: Vec<Value>,
    pub(super) resources: Vec<Value>,
}

/// An immutable view of the servers and the exported tools; replaced as a whole.
pub(super) struct Snapshot {
    pub(super) slots: BTreeMap<String, Arc<Slot>>,
    /// The local tools, by name (kept across rebuilds).
    pub(super) locals: BTreeMap<String, LocalTool>,
    pub(super) entries: Vec<Entry>,
    pub(super) by_exported: BTreeMap<String, usize>,
    pub(super) by_pair: BTreeMap<(String, String), usize>,
    pub(super) by_short: BTreeMap<String, Vec<usize>>,
    pub(super) collisions: Vec<NameCollision>,
    /// Tools refused (a breaking change, a removal, a schema too deep), by `(server,
    /// tool)`.
    pub(super) withheld: BTreeMap<(String, String), Withheld>,
}

/// Why a tool of a server is refused, as the error a call of it gets.
#[derive(Debug, Clone)]
pub(super) struct Withheld {
    /// [`ErrorKind::Drift`] for a reviewed tool that changed or is gone, else the kind.
    pub(super) kind: ErrorKind,
    /// A sentence naming the tool.
    pub(super) why: String,
}

pub(super) struct Candidate {
    pub(super) server: String,
    pub(super) tool: String,
    pub(super) description: Option<String>,
    pub(super) definition: Value,
    pub(super) input_schema: Value,
    pub(super) typed: Option<&'static TypedTool>,
    pub(super) kind: Kind,
    pub(super) unreviewed: bool,
    pub(super) words_differ: bool,
}

impl Snapshot {
    pub(super) fn build(
        slots: BTreeMap<String, Arc<Slot>>,
        locals: BTreeMap<String, LocalTool>,
        options: &ToolboxOptions,
    ) -> Snapshot {
        let mut candidates: Vec<Candidate> = Vec::new();
        let mut withheld = BTreeMap::new();
        for slot in slots.values() {
            if slot.session.is_none() && !slot.lazy && !slot.is_fake() {
                continue;
            }
            let filter = options.filters.get(slot.config.alias());
            let listing = server_candidates(slot);
            candidates.extend(
                listing.candidates.into_iter().filter(|c| {
                    c.kind != Kind::Tool || filter.is_none_or(|f| f.keeps(&c.definition))
                }),
            );
            withheld.extend(listing.withheld);
        }
        let mut snapshot = Snapshot::build_from(slots, locals, candidates, options);
        snapshot.withheld = withheld;
        snapshot
    }

    pub(super) fn build_from(
        slots: BTreeMap<String, Arc<Slot>>,
        locals: BTreeMap<String, LocalTool>,
        mut candidates: Vec<Candidate>,
        options: &ToolboxOptions,
    ) -> Snapshot {
        candidates.sort_by(|a, b| (&a.server, &a.tool).cmp(&(&b.server, &b.tool)));
        let assignment = names::assign_names_with(
            candidates
                .iter()
                .map(|c| (c.server.as_str(), c.tool.as_str())),
            &options.prefixes,
        );
        for c in &assignment.collisions {
            tracing::warn!(name = %c.name, "{c}");
        }
        let mut snapshot = Snapshot {
            slots,
            locals: BTreeMap::new(),
            entries: Vec::new(),
            by_exported: BTreeMap::new(),
            by_pair: BTreeMap::new(),
            by_short: BTreeMap::new(),
            collisions: assignment.collisions.clone(),
            withheld: BTreeMap::new(),
        };
        for c in candidates {
            let key = (c.server.clone(), c.tool.clone());
            let Some(exported) = assignment.names.get(&key).cloned() else {
                continue;
            };
            let mut description = match (&c.description, options.description_prefix) {
                (Some(d), true) => Some(format!("[MCP: {}] {d}", c.server)),
                (None, true) => Some(format!("[MCP: {}]", c.server)),
                (d, false) => d.clone(),
            };
            // The cap counts what the model reads: the prefix included.
            let cap = snapshot
                .slots
                .get(&c.server)
                .and_then(|slot| slot.config.max_description_chars())
                .or(options.max_description_chars);
            let shortened = cap.and_then(|max| {
                provider::shorten_description(description.as_deref()?, &c.input_schema, max)
            });
            let model_schema = shortened.map(|s| {
                description = Some(s.description);
                s.input_schema
            });
            let schema = model_schema.as_ref().unwrap_or(&c.input_schema);
            // Typed or not, the definitions follow from the schema: a typed tool's is its
            // compile-time one (see `candidates`), so both agree with `TypedTool::openai_function`.
            // The model's view: the compact form when asked (arguments are still checked
            // against the full schema).
            let (function, widened) = model_definition(
                Format::OpenAi,
                options.compact,
                &exported,
                description.as_deref(),
                schema,
            );
            // The strict form, or why there is none (then the format's definition is the
            // non-strict one, with the reason).
            let strict_function = match model_definition(
                Format::OpenAiStrict,
                options.compact,
                &exported,
                description.as_deref(),
                schema,
            ) {
                (strict, None) => Ok(strict),
                (_, Some(reason)) => Err(reason),
            };
            let (strict_function, refused) = checked_openai(&function, strict_function);
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
                    exported_description: description,
                    typed: c.typed.is_some(),
                    definition: c.definition,
                    input_schema: c.input_schema,
                    model_schema,
                    function,
                    strict_function,
                },
                typed: c.typed,
                local: None,
                kind: c.kind,
                unreviewed: c.unreviewed,
                words_differ: c.words_differ,
                widened,
                refused,
            });
        }
        for (name, local) in &locals {
            // Local names never start with `mcp_`, so they cannot meet an MCP tool's.
            let description = match options.description_prefix {
                true => format!("[local] {}", local.description),
                false => local.description.clone(),
            };
            let (function, widened) = openai::function_definition_and_reason(
                name,
                Some(&description),
                &local.input_schema,
            );
            let (strict_function, refused) = checked_openai(
                &function,
                openai::strict_function_definition(name, Some(&description), &local.input_schema),
            );
            let index = snapshot.entries.len();
            snapshot.by_exported.insert(name.clone(), index);
            snapshot
                .by_pair
                .insert((String::new(), name.clone()), index);
            snapshot.entries.push(Entry {
                tool: ExportedTool {
                    server: String::new(),
                    tool: name.clone(),
                    exported: name.clone(),
                    description: Some(local.description.clone()),
                    exported_description: Some(description.clone()),
                    typed: false,
                    definition: local.definition(),
                    input_schema: local.input_schema.clone(),
                    model_schema: None,
                    function,
                    strict_function,
                },
                typed: None,
                local: Some(local.clone()),
                kind: Kind::Tool,
                unreviewed: false,
                words_differ: false,
                widened,
                refused,
            });
        }
        snapshot.locals = locals;
        snapshot
    }

    pub(super) fn entry(&self, index: usize) -> Option<&Entry> {
        self.entries.get(index)
    }

    /// The refusal of a reviewed tool this snapshot withholds (a breaking change, a
    /// removal) that `name` designates: `alias.tool`, its exported name or its short name.
    fn withheld_refusal(&self, name: &str, scope: Option<&Scope>) -> Option<Error> {
        let ((server, _), refused) = self.withheld.iter().find(|((server, tool), _)| {
            scope.is_none_or(|s| s.allows(server, tool))
                && (name == format!("{server}.{tool}")
                    || name == tool
                    || name == mcp_bindgen_core::naming::openai_name(server, tool))
        })?;
        Some(match refused.kind {
            ErrorKind::Drift => Error::Drift {
                server: server.clone(),
                summary: refused.why.clone(),
            },
            kind => Error::toolbox(kind, format!("server \"{server}\": {}", refused.why)),
        })
    }

    /// The refusal of an unreviewed tool an agent that allows none asks for.
    fn unreviewed_refusal(&self, e: &Entry) -> Error {
        Error::NotReviewed {
            server: e.tool.server.clone(),
            tool: e.tool.tool.clone(),
            reviewed: self
                .slots
                .get(&e.tool.server)
                .and_then(|s| s.reviewed.as_ref())
                .map_or_else(|| "its fixture".to_string(), |r| r.source.clone()),
        }
    }

    /// Resolves a name among the tools `visible` accepts. Tools outside it are reported as
    /// [`ErrorKind::NotAllowed`] (with `scope` naming the agent).
    pub(super) fn resolve(&self, name: &str, scope: Option<&Scope>) -> Result<usize, Error> {
        let visible = |i: usize| self.entries.get(i).is_some_and(|e| visible(e, scope));
        let refuse = |i: usize| -> Error {
            if let Some(e) = self.entries.get(i)
                && scope.is_none_or(|s| s.allows(&e.tool.server, &e.tool.tool))
                && e.unreviewed
            {
                return self.unreviewed_refusal(e);
            }
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
        if let Some(refusal) = self.withheld_refusal(name, scope) {
            return Err(refusal);
        }
        let names: Vec<&str> = self
            .entries
            .iter()
            .enumerate()
            .filter(|(i, _)| visible(*i))
            .map(|(_, e)| e.tool.exported.as_str())
            .collect();
        let hint = mcp_bindgen_core::naming::close_matches(name, names.iter().copied());
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

/// Whether a model of `scope` (`None`: the toolbox's own) sees the entry: the agent's tool,
/// and reviewed unless the agent allows unreviewed tools.
pub(super) fn visible(e: &Entry, scope: Option<&Scope>) -> bool {
    scope.is_none_or(|s| s.allows(&e.tool.server, &e.tool.tool))
        && (!e.unreviewed || scope.is_some_and(|s| s.unreviewed))
}

/// What a server exports, before naming, and the reviewed tools it withholds.
pub(super) struct Listing {
    pub(super) candidates: Vec<Candidate>,
    /// `(server, tool)` → why it is refused.
    pub(super) withheld: Vec<((String, String), Withheld)>,
}

/// The tools a connected server exports, before naming: its reviewed tools as reviewed
/// ([`review`]), or without a fixture its live `tools/list`.
pub(super) fn server_candidates(slot: &Slot) -> Listing {
    let alias = slot.config.alias();
    let mut out: Vec<Candidate> = Vec::new();
    let mut withheld = Vec::new();
    let mut seen = BTreeSet::new();
    match &slot.reviewed {
        Some(reviewed) => {
            // Before connecting (lazy, fake), every reviewed tool is offered.
            let live = slot.session.as_ref().map(|_| slot.tools.as_slice());
            let verdict = review::judge(reviewed, live, slot.config.drift());
            let fix = |command: &str| {
                mcp_bindgen_core::project::either_command(&format!("{command} {alias}"))
            };
            for warning in &verdict.warnings {
                slot.warn_once(format!(
                    "{warning}; run {} to see the changes, {} to accept them",
                    fix("snapshot --check"),
                    fix("snapshot")
                ));
            }
            for (tool, why) in verdict.withheld {
                if slot.config.allows_tool(&tool) {
                    slot.warn_once(format!(
                        "{why}; run {} to see the change",
                        fix("snapshot --check")
                    ));
                    let kind = ErrorKind::Drift;
                    withheld.push(((alias.to_string(), tool), Withheld { kind, why }));
                }
            }
            let allow_unreviewed = slot.config.unreviewed_tools();
            let unreviewed: Vec<&(String, &Value)> = verdict
                .unreviewed
                .iter()
                .filter(|(t, _)| slot.config.allows_tool(t))
                .collect();
            if !unreviewed.is_empty() {
                let names: Vec<String> =
                    unreviewed.iter().map(|(t, _)| format!("\"{t}\"")).collect();
                slot.warn_once(format!(
                    "the server lists {} tool(s) that are not in {}: {}; {}; run {} to review them",
                    names.len(),
                    reviewed.source,
                    names.join(", "),
                    if allow_unreviewed {
                        "offered unreviewed (`unreviewed_tools = true`)"
                    } else {
                        "they are neither offered nor callable"
                    },
                    fix("snapshot --check")
                ));
            }
            for (name, offer) in &verdict.offered {
                if !slot.config.allows_tool(name) || !seen.insert(name.clone()) {
                    continue;
                }
                let typed = slot.typed.and_then(|t| t.iter().find(|t| t.name == name));
                let mut c = tool_candidate(alias, name, offer.definition, false);
                c.typed = typed;
                c.words_differ = offer.words_differ;
                out.push(c);
            }
            for (name, t) in unreviewed {
                if seen.insert(name.clone()) {
                    out.push(tool_candidate(alias, name, t, !allow_unreviewed));
                }
            }
        }
        None => {
            slot.warn_once(format!(
                "no fixture: its live tools are offered to the model unreviewed (a server that changes its descriptions or adds tools reaches the model unseen); run {} to record them for review",
                mcp_bindgen_core::project::either_command(&format!("snapshot {alias}"))
            ));
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
                out.push(tool_candidate(alias, name, t, false));
            }
        }
    }
    // A schema nesting deeper than the generator types reaches neither a model nor the
    // argument validator, whichever list it comes from.
    out.retain(
        |c| match mcp_bindgen_core::schema::too_deep(&c.input_schema) {
            None => true,
            Some(deep) => {
                let why = format!("tool \"{}\" is refused: in its inputSchema, {deep}", c.tool);
                slot.warn_once(why.clone());
                let kind = ErrorKind::NotAllowed;
                withheld.push(((alias.to_string(), c.tool.clone()), Withheld { kind, why }));
                false
            }
        },
    );
    out.extend(extra_candidates(slot, &seen));
    Listing {
        candidates: out,
        withheld,
    }
}

/// The candidate of server `alias`'s tool `name` defined by `definition`.
fn tool_candidate(alias: &str, name: &str, definition: &Value, unreviewed: bool) -> Candidate {
    Candidate {
        server: alias.to_string(),
        tool: name.to_string(),
        description: definition
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string),
        definition: definition.clone(),
        input_schema: input_schema_of(definition),
        typed: None,
        kind: Kind::Tool,
        unreviewed,
        words_differ: false,
    }
}

/// A tool's input schema (`{}` when it has none or a bad one).
fn input_schema_of(tool: &Value) -> Value {
    match tool.get("inputSchema") {
        Some(s @ (Value::Object(_) | Value::Bool(_))) => s.clone(),
        _ => json!({}),
    }
}

// ---------------------------------------------------------------------------------------
// Toolbox
// ---------------------------------------------------------------------------------------

pub(super) fn unavailable(slot: &Slot) -> Error {
    let (_, last) = slot.health();
    Error::toolbox(
        ErrorKind::Unavailable,
        format!(
            "server \"{}\" is not connected{}; its tools cannot be called right now",
            slot.config.alias(),
            last.map(|l| format!(" (last error: {l})"))
                .unwrap_or_default()
        ),
    )
}

pub(super) fn tool_ref(snap: &Snapshot, index: usize) -> ToolRef {
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

/// Most resources named in `read_resource`'s description.
pub(crate) const MAX_LISTED_RESOURCES: usize = 50;

/// The prompt and resource tools of a server; `taken` are the names of its own tools.
fn extra_candidates(slot: &Slot, taken: &BTreeSet<String>) -> Vec<Candidate> {
    let alias = slot.config.alias();
    let mut out = Vec::new();
    let mut push = |tool: String, description: String, input_schema: Value, kind: Kind| {
        if taken.contains(&tool) {
            tracing::warn!(server = %alias, tool = %tool, "the server has a tool of this name; its prompt/resource tool is left out");
            return;
        }
        out.push(Candidate {
            server: alias.to_string(),
            definition: json!({"name": tool, "description": description, "inputSchema": input_schema}),
            tool,
            description: Some(description),
            input_schema,
            typed: None,
            kind,
            unreviewed: false,
            words_differ: false,
        });
    };
    for prompt in &slot.prompts {
        let Some(name) = prompt.get("name").and_then(Value::as_str) else {
            continue;
        };
        let mut properties = Map::new();
        let mut required = Vec::new();
        for arg in prompt
            .get("arguments")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(arg_name) = arg.get("name").and_then(Value::as_str) else {
                continue;
            };
            let mut p = json!({"type": "string"});
            if let Some(d) = arg.get("description").and_then(Value::as_str) {
                p["description"] = json!(d);
            }
            properties.insert(arg_name.to_string(), p);
            if arg.get("required") == Some(&json!(true)) {
                required.push(json!(arg_name));
            }
        }
        let mut schema = json!({"type": "object", "properties": properties});
        if !required.is_empty() {
            schema["required"] = Value::Array(required);
        }
        let about = prompt
            .get("description")
            .and_then(Value::as_str)
            .map(|d| format!(": {d}"))
            .unwrap_or_default();
        push(
            format!("get_prompt_{name}"),
            format!(
                "Get the prompt \"{name}\" of the MCP server {alias}{about}. Returns its messages as text."
            ),
            schema,
            Kind::Prompt(name.to_string()),
        );
    }
    if !slot.resources.is_empty() {
        let mut listed: Vec<String> = slot
            .resources
            .iter()
            .take(MAX_LISTED_RESOURCES)
            .filter_map(|r| {
                let uri = r.get("uri").and_then(Value::as_str)?;
                let name = r.get("name").and_then(Value::as_str).unwrap_or("");
                let about = r
                    .get("description")
                    .and_then(Value::as_str)
                    .map(|d| format!(": {}", d.lines().next().unwrap_or("")))
                    .unwrap_or_default();
                Some(format!("- {uri} ({name}){about}"))
            })
            .collect();
        if slot.resources.len() > MAX_LISTED_RESOURCES {
            listed.push(format!(
                "- … and {} more",
                slot.resources.len() - MAX_LISTED_RESOURCES
            ));
        }
        push(
            "read_resource".to_string(),
            format!(
                "Read a resource of the MCP server {alias} by its URI. Resources:\n{}",
                listed.join("\n")
            ),
            json!({"type": "object", "properties": {"uri": {"type": "string", "description": "The resource's URI."}}, "required": ["uri"]}),
            Kind::ReadResource,
        );
    }
    out
}

impl Toolbox {
    /// Every exported tool (an agent's: its tools; none switched off), sorted by server and
    /// tool.
    pub fn tools(&self) -> Vec<ExportedTool> {
        let scope = self.scope();
        let off = self.inner.watch.switches();
        self.snapshot()
            .entries
            .iter()
            .filter(|e| visible(e, scope))
            .filter(|e| !off.off(&e.tool.server, &e.tool.tool))
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
        let i = snap.resolve(name, self.scope())?;
        Ok(tool_ref(&snap, i))
    }
}
