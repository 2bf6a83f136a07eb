//! Start-up: which servers, which options; connecting them all in parallel.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use serde_json::Value;

use super::catalog::{Slot, Snapshot};
use super::lifecycle::connect_one;
use super::local::LocalTool;
use super::review::Reviewed;
use super::{EnvLookup, Inner, SkippedServer, Toolbox, ToolboxOptions, TypedTool};
use crate::config::ServerConfig;
use crate::error::{Error, ErrorKind};
use crate::fake::FakeServer;
use crate::session::CallOptions;

/// Configures and connects a [`Toolbox`].
pub struct ToolboxBuilder {
    pub(super) servers: Vec<ServerConfig>,
    pub(super) only: Option<Vec<String>>,
    pub(super) typed: BTreeMap<String, &'static [TypedTool]>,
    pub(super) wrappers: BTreeMap<String, bool>,
    pub(super) lookup: Option<EnvLookup>,
    pub(super) options: ToolboxOptions,
    pub(super) locals: BTreeMap<String, LocalTool>,
    /// Servers that connect on their first call, with the tools exported until then.
    pub(super) lazy: BTreeMap<String, Vec<Value>>,
    /// The registry's disabled servers (for the message when one is selected).
    pub(super) disabled: Vec<String>,
    /// The first bad local tool, reported by `connect`.
    pub(super) local_error: Option<Error>,
    /// Fakes that answer in place of servers, by alias.
    pub(super) fakes: BTreeMap<String, FakeServer>,
    /// Where `<alias>.json` fixtures are read (the registry's directory).
    pub(super) fixtures_dir: Option<PathBuf>,
    /// Fixtures given in code, by alias: `(where, text)`.
    pub(super) fixtures: BTreeMap<String, (String, String)>,
    /// Hooks on dispatch, in order.
    pub(super) hooks: Vec<Arc<dyn super::Hook>>,
}

impl std::fmt::Debug for ToolboxBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolboxBuilder")
            .field("servers", &self.servers)
            .field("only", &self.only)
            .field("typed", &self.typed.keys().collect::<Vec<_>>())
            .field("wrappers", &self.wrappers)
            .field("fakes", &self.fakes.keys().collect::<Vec<_>>())
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

    /// Puts a fake ([`FakeServer`], or a generated `Fake` of `mcp_tools!`) in place of the
    /// server of its alias, so the toolbox runs with no process and no network: an agent
    /// loop (export, the model's tool call, dispatch) works offline.
    ///
    /// * The server is typed by the fake's tools (as with [`ToolboxBuilder::add_typed`]):
    ///   it exports their compile-time definitions, and a call's arguments are checked by
    ///   the tool's generated type before the fake sees them.
    /// * A registry server of the same alias is not connected (no process is started), but
    ///   its settings still apply (`tools`, `exclude_tools`, `function_call_wrapper`, …).
    ///   Without one, the fake adds a server of its alias.
    /// * [`ToolboxBuilder::only`] selects a fake like any server.
    /// * A fake is always active ([`ServerStatus::transport`] is `"fake"`); reconnecting,
    ///   refreshing and health checks leave it alone. It has no [`Session`](crate::Session)
    ///   ([`Toolbox::session`] is `None`, [`Toolbox::native_servers`] leaves it out), and no
    ///   prompts or resources.
    ///
    /// A later fake of the same alias replaces an earlier one.
    ///
    /// [`ServerStatus::transport`]: super::ServerStatus::transport
    pub fn add_fake(mut self, fake: impl Into<FakeServer>) -> Self {
        let fake = fake.into();
        self.fakes.insert(fake.alias().to_string(), fake);
        self
    }

    /// Adds a local tool: `handler` runs when a model calls `name`; the arguments are an `A`
    /// (`schemars::JsonSchema + Deserialize`), and its schema is what models see. See
    /// [`LocalTool::new`]; a bad name or a second tool of the same name makes
    /// [`ToolboxBuilder::connect`] fail.
    #[cfg(feature = "local-tools")]
    pub fn add_local<A, F, Fut, T, E>(
        self,
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> Self
    where
        A: schemars::JsonSchema + serde::de::DeserializeOwned + Send + 'static,
        F: Fn(A) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<T, E>> + Send + 'static,
        T: Into<crate::output::ToolOutput>,
        E: std::fmt::Display,
    {
        self.add_local_tool(LocalTool::new(name, description, handler))
    }

    /// Adds a local tool built with [`LocalTool::with_schema`] (or `LocalTool::new`, with the `local-tools` feature); an
    /// `Err` (a bad name) or a second tool of the same name makes
    /// [`ToolboxBuilder::connect`] fail.
    pub fn add_local_tool(mut self, tool: Result<LocalTool, Error>) -> Self {
        match tool {
            Ok(tool) => {
                if self.locals.contains_key(tool.name()) {
                    self.local_error.get_or_insert(duplicate_local(tool.name()));
                }
                self.locals.insert(tool.name().to_string(), tool);
            }
            Err(e) => {
                self.local_error.get_or_insert(e);
            }
        }
        self
    }

    /// Connects a typed server ([`ToolboxBuilder::add_typed`]) on the first call of one of
    /// its tools instead of at start-up: its tools are exported from the `mcp_tools!`
    /// definitions until then.
    pub fn lazy(mut self, alias: impl Into<String>) -> Self {
        self.lazy.insert(alias.into(), Vec::new());
        self
    }

    /// Connects a server on the first call of one of its tools; until then it exports
    /// `tools` (MCP tool definitions). After connecting, its live `tools/list` replaces them.
    /// A server with a fixture exports the fixture's tools instead, before and after
    /// connecting.
    pub fn lazy_with_tools(mut self, alias: impl Into<String>, tools: Vec<Value>) -> Self {
        self.lazy.insert(alias.into(), tools);
        self
    }

    /// Adds a hook on dispatch ([`Hook`](super::Hook)): it sees every model call of the
    /// toolbox and its agent views before it runs (allow, refuse with a reason the model
    /// reads, rewrite the arguments) and its result before the model does. Hooks run in the
    /// order they were added; [`ApprovalPolicy`](super::ApprovalPolicy) is one.
    pub fn hook(mut self, hook: impl super::Hook) -> Self {
        self.hooks.push(Arc::new(hook));
        self
    }

    /// Reads each server's fixture, `<alias>.json`, from `dir` instead of the registry's
    /// directory (where `snapshot` writes them: `fixtures/`). A server with a fixture
    /// offers models its reviewed tools only ([`Toolbox`]: "What the model sees").
    pub fn fixtures_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.fixtures_dir = Some(dir.into());
        self
    }

    /// The fixture of server `alias`, as JSON text (e.g. `include_str!("../fixtures/github.json")`,
    /// so a deployed binary carries what was reviewed); it takes precedence over the
    /// fixtures directory. A fixture that does not parse makes [`ToolboxBuilder::connect`]
    /// fail.
    pub fn fixture(mut self, alias: impl Into<String>, json: impl Into<String>) -> Self {
        let alias = alias.into();
        self.fixtures.insert(
            alias.clone(),
            (format!("the fixture given for \"{alias}\""), json.into()),
        );
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

    /// Sets [`ToolboxOptions::prompts_as_tools`].
    pub fn prompts_as_tools(mut self, on: bool) -> Self {
        self.options.prompts_as_tools = on;
        self
    }

    /// Sets [`ToolboxOptions::resources_as_tools`].
    pub fn resources_as_tools(mut self, on: bool) -> Self {
        self.options.resources_as_tools = on;
        self
    }

    /// Sets [`ToolboxOptions::refresh_on_list_changed`].
    pub fn refresh_on_list_changed(mut self, on: bool) -> Self {
        self.options.refresh_on_list_changed = on;
        self
    }

    /// Sets [`ToolboxOptions::call_options`].
    pub fn call_options(mut self, options: CallOptions) -> Self {
        self.options.call_options = options;
        self
    }

    /// Exports `alias`'s tools as `<prefix><tool>` instead of `mcp_<alias>_<tool>`
    /// ([`ToolboxOptions::prefixes`]; `""` for the tools' own names). The prefix is made of
    /// `[A-Za-z0-9_-]`.
    pub fn prefix(mut self, alias: impl Into<String>, prefix: impl Into<String>) -> Self {
        self.options.prefixes.insert(alias.into(), prefix.into());
        self
    }

    /// Exports only the tools of `alias` whose MCP definition `keep` accepts
    /// ([`ToolboxOptions::filters`]), e.g. `|t| t["annotations"]["readOnlyHint"] == true`.
    pub fn filter(
        mut self,
        alias: impl Into<String>,
        keep: impl Fn(&Value) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.options
            .filters
            .insert(alias.into(), super::ToolFilter::new(keep));
        self
    }

    /// Reuses the results of `tool` of server `alias` for `ttl` when it is called again with
    /// the same arguments ([`ToolboxOptions::cache`]). Only for a tool the server annotates
    /// read-only and idempotent (`readOnlyHint` and `idempotentHint` true; otherwise
    /// [`ToolboxBuilder::connect`] fails); the cache of a server is forgotten when it reports
    /// `tools/list_changed`. A cached [`Dispatch`](super::Dispatch) says so (`cached`).
    pub fn cache(
        mut self,
        alias: impl Into<String>,
        tool: impl Into<String>,
        ttl: std::time::Duration,
    ) -> Self {
        self.options.cache.insert((alias.into(), tool.into()), ttl);
        self
    }

    /// Exports the compact form of each server tool's schema ([`ToolboxOptions::compact`]).
    pub fn compact(mut self, on: bool) -> Self {
        self.options.compact = on;
        self
    }

    /// Shortens every server tool's description past `max` characters at a sentence
    /// boundary, moving the sentences past it that name an argument into that argument's
    /// description ([`ToolboxOptions::max_description_chars`]; off by default, since it
    /// changes what the model reads).
    pub fn max_description_chars(mut self, max: usize) -> Self {
        self.options.max_description_chars = Some(max);
        self
    }

    /// Turns on progressive discovery ([`Progressive`](super::Progressive)): the exports hold
    /// `search_tools`, `load_tools`, the loaded tools and these pinned ones (exported names or
    /// `alias.tool`).
    pub fn progressive<I: IntoIterator<Item = S>, S: Into<String>>(mut self, pinned: I) -> Self {
        self.options.progressive = Some(super::Progressive {
            pinned: pinned.into_iter().map(Into::into).collect(),
        });
        self
    }

    /// Sets [`ToolboxOptions::connect_options`]: e.g. `ConnectOptions::new().on_sampling(…)`
    /// lets every server ask the agent's model for completions.
    pub fn connect_options(mut self, options: crate::ConnectOptions) -> Self {
        self.options.connect_options = options;
        self
    }

    /// Connects every selected server in parallel and lists its tools.
    ///
    /// Fails ([`ErrorKind::RequiredServer`]) when a `required` server cannot be
    /// started, and ([`ErrorKind::Config`]) for an unknown alias in
    /// [`ToolboxBuilder::only`], [`ToolboxBuilder::add_typed`] or
    /// [`ToolboxBuilder::function_call_wrapper`]. Other servers that fail are skipped and
    /// reported.
    pub async fn connect(mut self) -> Result<Toolbox, Error> {
        if let Some(e) = self.local_error.take() {
            return Err(e);
        }
        let known: Vec<&str> = self.servers.iter().map(|s| s.alias()).collect();
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
            None => {
                let mut out = self.servers.clone();
                for alias in self.fakes.keys() {
                    if !out.iter().any(|s| s.alias() == alias) {
                        out.push(fake_config(alias));
                    }
                }
                out
            }
            Some(only) => {
                let mut out = Vec::new();
                for alias in only {
                    match self.servers.iter().find(|s| s.alias() == alias) {
                        Some(s) => out.push(s.clone()),
                        None if self.fakes.contains_key(alias) => out.push(fake_config(alias)),
                        None if self.disabled.contains(alias) => {
                            return Err(Error::toolbox(
                                ErrorKind::Config,
                                format!(
                                    "the server selection names server \"{alias}\", which is disabled in the registry (`enabled = false` or `\"disabled\": true`); enable it to use it"
                                ),
                            ));
                        }
                        None => return Err(unknown("the server selection", alias)),
                    }
                }
                out.sort_by(|a, b| a.alias().cmp(b.alias()));
                out.dedup_by(|a, b| a.alias() == b.alias());
                out
            }
        };
        for (alias, wrapper) in &self.wrappers {
            match servers.iter_mut().find(|s| s.alias() == alias) {
                Some(s) => s.set_function_call_wrapper(*wrapper),
                None => return Err(unknown("a function_call_wrapper override", alias)),
            }
        }
        for alias in self.typed.keys() {
            if !servers.iter().any(|s| s.alias() == alias) {
                return Err(unknown("a typed server", alias));
            }
        }
        for (alias, prefix) in &self.options.prefixes {
            if !servers.iter().any(|s| s.alias() == alias) {
                return Err(unknown("a name prefix", alias));
            }
            if let Some(bad) = prefix
                .chars()
                .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
            {
                return Err(Error::toolbox(
                    ErrorKind::Config,
                    format!(
                        "the name prefix {prefix:?} of server \"{alias}\" holds {bad:?}; tool names take [A-Za-z0-9_-] only"
                    ),
                ));
            }
        }
        for alias in self.options.filters.keys() {
            if !servers.iter().any(|s| s.alias() == alias) {
                return Err(unknown("a tool filter", alias));
            }
        }
        for (alias, tools) in &self.lazy {
            if !servers.iter().any(|s| s.alias() == alias) {
                return Err(unknown("a lazy server", alias));
            }
            if tools.is_empty()
                && !self.typed.contains_key(alias)
                && !self.fakes.contains_key(alias)
            {
                return Err(Error::toolbox(
                    ErrorKind::Config,
                    format!(
                        "lazy server \"{alias}\" has no tool definitions: register it with add_typed (mcp_tools!), or give its tools (e.g. its fixture's) to lazy_with_tools"
                    ),
                ));
            }
        }
        // The reviewed tools of each untyped server: what its model may see.
        let mut reviewed: BTreeMap<String, Reviewed> = BTreeMap::new();
        for cfg in &servers {
            let alias = cfg.alias();
            if self.typed.contains_key(alias) || self.fakes.contains_key(alias) {
                continue;
            }
            if let Some(r) = self.read_fixture(alias)? {
                reviewed.insert(alias.to_string(), r);
            } else if cfg.require_fixture() {
                return Err(Error::toolbox(
                    ErrorKind::Config,
                    format!(
                        "server \"{alias}\" requires a fixture (`require_fixture = true`) and has none{}; run {} to record its tools for review",
                        self.fixtures_dir
                            .as_deref()
                            .map(|d| format!(" at {}", d.join(format!("{alias}.json")).display()))
                            .unwrap_or_default(),
                        mcp_bindgen_core::project::either_command(&format!("snapshot {alias}"))
                    ),
                ));
            }
        }
        let lookup: EnvLookup = self
            .lookup
            .clone()
            .unwrap_or_else(|| Arc::new(|name: &str| std::env::var(name).ok()));
        // Neither a fake nor a lazy server is connected at start-up.
        let lazy: Vec<bool> = servers
            .iter()
            .map(|cfg| self.lazy.contains_key(cfg.alias()) || self.fakes.contains_key(cfg.alias()))
            .collect();
        let (changed, changes) = tokio::sync::mpsc::unbounded_channel();
        let changed_ref = &changed;
        let lookup_ref = &lookup;
        let options = &self.options;
        let results =
            futures::future::join_all(servers.iter().zip(&lazy).map(|(cfg, lazy)| async move {
                if *lazy {
                    Ok(None)
                } else {
                    connect_one(cfg, lookup_ref, options, changed_ref)
                        .await
                        .map(Some)
                }
            }))
            .await;
        let mut slots = BTreeMap::new();
        let mut skipped = Vec::new();
        for (cfg, result) in servers.into_iter().zip(results) {
            let typed = self.typed.get(cfg.alias()).copied();
            let fake = self.fakes.get(cfg.alias()).cloned();
            let fixture = reviewed.remove(cfg.alias());
            let slot = match (fake, result) {
                (Some(fake), _) => Slot::with_fake(cfg, fake),
                (None, Ok(Some((session, tools, extras)))) => {
                    Slot::new(cfg, Some(session), tools, typed, None).with_lists(extras)
                }
                (None, Ok(None)) => {
                    let tools = self.lazy.get(cfg.alias()).cloned().unwrap_or_default();
                    let mut slot = Slot::new(cfg, None, tools, typed, None);
                    slot.lazy = true;
                    slot
                }
                (None, Err(e)) => {
                    if cfg.required() {
                        return Err(Error::toolbox(
                            ErrorKind::RequiredServer,
                            format!(
                                "{e} (the server is required: fix it, or set `required = false` to skip it instead)"
                            ),
                        )
                        .with_source(e));
                    }
                    let reason = e.to_string();
                    tracing::warn!(server = %cfg.alias(), reason = %reason, "server skipped");
                    skipped.push(SkippedServer {
                        alias: cfg.alias().to_string(),
                        reason: reason.clone(),
                    });
                    Slot::new(cfg, None, Vec::new(), typed, Some(reason))
                }
            };
            let slot = slot.with_reviewed(fixture);
            match (&slot.session, slot.lazy) {
                _ if slot.is_fake() => tracing::info!(
                    server = %slot.config.alias(),
                    "{} tools from {} (fake)",
                    slot.typed.map_or(0, <[TypedTool]>::len),
                    slot.config.alias()
                ),
                (Some(_), _) => tracing::info!(
                    server = %slot.config.alias(),
                    tools = slot.tools.len(),
                    "{} tools from {}",
                    slot.tools.len(),
                    slot.config.alias()
                ),
                (None, true) => tracing::info!(
                    server = %slot.config.alias(),
                    "{} tools from {} (lazy: it connects on the first call)",
                    slot.typed.map_or(slot.tools.len(), <[TypedTool]>::len),
                    slot.config.alias()
                ),
                (None, false) => {}
            }
            slots.insert(slot.config.alias().to_string(), Arc::new(slot));
        }
        let snapshot = Snapshot::build(slots, self.locals, &self.options);
        for (server, tool) in self.options.cache.keys() {
            let definition = snapshot
                .by_pair
                .get(&(server.clone(), tool.clone()))
                .and_then(|&i| snapshot.entries.get(i))
                .map(|e| &e.tool.definition);
            let Some(definition) = definition else {
                return Err(Error::toolbox(
                    ErrorKind::Config,
                    format!(
                        "a result cache names tool \"{tool}\" of server \"{server}\", which the toolbox does not export"
                    ),
                ));
            };
            let hint = |h: &str| {
                definition.pointer(&format!("/annotations/{h}")) == Some(&Value::Bool(true))
            };
            if !(hint("readOnlyHint") && hint("idempotentHint")) {
                return Err(Error::toolbox(
                    ErrorKind::Config,
                    format!(
                        "the results of tool \"{tool}\" of server \"{server}\" cannot be cached: the server does not annotate it read-only and idempotent (readOnlyHint and idempotentHint true), so a repeated call may give another result or change something"
                    ),
                ));
            }
        }
        let toolbox = Toolbox {
            agent: None,
            inner: Arc::new(Inner {
                options: self.options,
                lookup,
                skipped,
                state: RwLock::new(Arc::new(snapshot)),
                closed: std::sync::atomic::AtomicBool::new(false),
                reconnecting: tokio::sync::Mutex::new(()),
                changed,
                results: Default::default(),
                loaded: Default::default(),
                watch: super::hooks::Watch {
                    hooks: self.hooks,
                    ..Default::default()
                },
            }),
        };
        tokio::spawn(super::lifecycle::follow_list_changes(
            Arc::downgrade(&toolbox.inner),
            changes,
        ));
        Ok(toolbox)
    }
}

impl ToolboxBuilder {
    /// The reviewed tools of `alias`: the fixture given in code, else `<alias>.json` of the
    /// fixtures directory, else none. A fixture that cannot be read is an error (a toolbox
    /// never falls back to the live tools of a server it was told the fixture of).
    fn read_fixture(&self, alias: &str) -> Result<Option<Reviewed>, Error> {
        let (path, bytes) = match self.fixtures.get(alias) {
            Some((source, text)) => (PathBuf::from(source), text.as_bytes().to_vec()),
            None => {
                let Some(path) = self
                    .fixtures_dir
                    .as_deref()
                    .map(|d| d.join(format!("{alias}.json")))
                    .filter(|p| p.is_file())
                else {
                    return Ok(None);
                };
                let bytes = std::fs::read(&path).map_err(|e| {
                    Error::toolbox(
                        ErrorKind::Config,
                        format!("cannot read the fixture {}: {e}", path.display()),
                    )
                })?;
                (path, bytes)
            }
        };
        let fixture =
            mcp_bindgen_core::fixture::Fixture::from_slice(&bytes, &path).map_err(|e| {
                Error::toolbox(
                    ErrorKind::Config,
                    format!(
                        "server \"{alias}\": {e}; run {} to write it again",
                        mcp_bindgen_core::project::either_command(&format!("snapshot {alias}"))
                    ),
                )
            })?;
        let stale = fixture.stale_fingerprints();
        if !stale.is_empty() {
            super::review::warn(
                alias,
                &format!(
                    "{}: the fingerprints of {} do not match their definitions (edited by hand?); the definitions are what the model sees; run {} to write the fixture again",
                    relative(&path).display(),
                    stale.join(", "),
                    mcp_bindgen_core::project::either_command(&format!("snapshot {alias}"))
                ),
            );
        }
        Ok(Some(Reviewed::from_fixture(relative(&path), &fixture)))
    }
}

/// `path` relative to the current directory when it is inside it (shorter messages).
fn relative(path: &Path) -> &Path {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok())
        .unwrap_or(path)
}

/// The configuration of a fake's server when the registry has none of its alias (its
/// status says transport `"fake"`; it is never started).
fn fake_config(alias: &str) -> ServerConfig {
    ServerConfig::stdio(alias, "fake", Vec::new())
}

// ---------------------------------------------------------------------------------------
// State
// ---------------------------------------------------------------------------------------

pub(super) fn duplicate_local(name: &str) -> Error {
    Error::toolbox(
        ErrorKind::Config,
        format!("a local tool named \"{name}\" is already in the toolbox"),
    )
}
