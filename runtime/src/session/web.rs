//! A connected MCP server on wasm32 (the `wasm` feature): [`Session`] over Streamable HTTP
//! through the host's `fetch` (reqwest's wasm backend), with the native session's API for
//! everything generated code calls.
//!
//! Both protocol revisions: 2026-07-28 is stateless (`server/discover`, then one POST per
//! request with the client's context in `_meta` and the `Mcp-Method`/`Mcp-Name` headers);
//! 2025-11-25 and older start with `initialize` and send the `Mcp-Session-Id` the server
//! gave. An answer may be a JSON body or an event stream; progress notifications in a stream
//! reach [`CallOptions::on_progress`] as they arrive. A deadline aborts the `fetch`.
//!
//! What the native session has and this one has not: stdio and the legacy HTTP+SSE
//! transport, OAuth login (send a bearer token in the server's `headers`), reconnection
//! (every request stands alone; a 2025-11-25 session the server expired is started again),
//! server-to-client requests (sampling, elicitation, roots: none are offered), drift
//! re-checks on `tools/list_changed` (drift is checked at connect), `health()`,
//! `call_stream`, and tasks (a `*_task` call runs as a plain call; its handle holds the
//! result).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use futures::StreamExt;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::config::{LAST_WITH_INITIALIZE, Protocol, ServerConfig, TransportConfig};
use crate::drift::{self, DriftPolicy};
use crate::error::{Error, Result};
pub use crate::output::TaskState;
use crate::output::{Content, NO_INFO, ServerInfo, ToolOutput};
use mcp_bindgen_core::headers::{ParamHeader, header_value, param_headers, value_at};

mod options;

pub use options::*;

/// The revision a stateless session speaks.
const STATELESS: &str = "2026-07-28";

/// A connected MCP server (on wasm32: Streamable HTTP through `fetch`). Cheap to clone;
/// clones share the connection state.
#[derive(Clone)]
pub struct Session {
    inner: Arc<Inner>,
}

struct Inner {
    alias: String,
    config: ServerConfig,
    url: String,
    headers: BTreeMap<String, String>,
    secrets: Vec<String>,
    options: ConnectOptions,
    http: reqwest::Client,
    next_id: AtomicU64,
    /// The revision the session speaks, once connected.
    protocol: OnceLock<&'static str>,
    info: OnceLock<ServerInfo>,
    /// `Mcp-Session-Id` of a 2025-11-25 session.
    session_id: Mutex<Option<String>>,
    /// Each tool's valid `x-mcp-header` annotations (from the fixture, then from
    /// `tools/list`): mirrored into `Mcp-Param-*` headers of its calls on 2026-07-28.
    param_headers: Mutex<HashMap<String, Vec<ParamHeader>>>,
    /// The tools the last `tools/list` left out, and why.
    rejected: Mutex<Vec<(String, String)>>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("alias", &self.inner.alias)
            .field("transport", &self.transport())
            .field("server", self.server_info())
            .finish_non_exhaustive()
    }
}

impl ConnectOptions {
    /// Connects to `config` with these options: resolves its `${NAME}` placeholders
    /// ([`ConnectOptions::with_env_lookup`]; a wasm32 host has no process environment) and,
    /// unless [`ConnectOptions::lazy`], asks the server what it speaks.
    pub async fn connect(self, config: &ServerConfig) -> Result<Session> {
        let resolved = match &self.lookup {
            Some(lookup) => config.resolve(&|name| lookup(name)),
            None => config.resolve(&|_| None),
        }?;
        let alias = config.alias().to_string();
        let (url, headers) = match resolved.transport {
            TransportConfig::StreamableHttp { url, headers } => (url, headers),
            TransportConfig::Stdio { .. } | TransportConfig::Sse { .. } => {
                return Err(Error::Transport {
                    server: alias,
                    message: format!(
                        "the {} transport is not available on wasm32: give the server a Streamable HTTP `url`",
                        config.transport().kind()
                    ),
                    stderr_tail: Vec::new(),
                });
            }
        };
        let lazy = self.lazy;
        let mut mirrored = HashMap::new();
        for tool in self.fixture_tools.into_iter().flatten() {
            if let Ok(schema) = serde_json::from_str(tool.input_schema)
                && let Ok(headers) = param_headers(&schema)
            {
                mirrored.insert(tool.name.to_string(), headers);
            }
        }
        let session = Session {
            inner: Arc::new(Inner {
                alias,
                config: config.clone(),
                url,
                headers,
                secrets: resolved.secrets,
                options: self,
                http: reqwest::Client::new(),
                next_id: AtomicU64::new(0),
                protocol: OnceLock::new(),
                info: OnceLock::new(),
                session_id: Mutex::new(None),
                param_headers: Mutex::new(mirrored),
                rejected: Mutex::new(Vec::new()),
            }),
        };
        if !lazy {
            session.start().await?;
        }
        Ok(session)
    }
}

impl Session {
    /// Connects to the server `config` describes, with default [`ConnectOptions`].
    pub async fn connect(config: &ServerConfig) -> Result<Session> {
        ConnectOptions::new().connect(config).await
    }

    /// The server's alias.
    pub fn alias(&self) -> &str {
        &self.inner.alias
    }

    /// The transport: `"streamable-http"`.
    pub fn transport(&self) -> &'static str {
        "streamable-http"
    }

    /// What the server said about itself when the session started (empty before).
    pub fn server_info(&self) -> &ServerInfo {
        self.inner.info.get().unwrap_or(&NO_INFO)
    }

    /// `text` with every secret of the configuration (resolved placeholders, header values)
    /// replaced by `<redacted>`.
    pub fn redact(&self, text: &str) -> String {
        crate::config::redact(&self.inner.secrets, text)
    }

    /// Whether `text` holds a secret of the configuration.
    pub fn contains_secret(&self, text: &str) -> bool {
        self.inner.secrets.iter().any(|s| text.contains(s.as_str()))
    }

    /// [`Session::redact`] on every string of a JSON value.
    pub(crate) fn redact_json(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.redact(s)),
            Value::Array(items) => {
                Value::Array(items.iter().map(|v| self.redact_json(v)).collect())
            }
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (self.redact(k), self.redact_json(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// Lines a stdio server wrote to stderr: none on wasm32.
    pub fn stderr_tail(&self) -> Vec<String> {
        Vec::new()
    }

    /// Calls a tool. `args` must serialize to a JSON object. A tool-level error
    /// (`isError: true`) is returned as `Ok` with [`ToolOutput::is_error`] set.
    pub async fn call<A: Serialize + Sync + ?Sized>(
        &self,
        tool: &str,
        args: &A,
    ) -> Result<ToolOutput> {
        self.call_with(tool, args, CallOptions::default()).await
    }

    /// [`Session::call`] with per-call options: the deadline (the registry's `timeout` or
    /// tool timeout by default, 60 s without one) aborts the request and gives
    /// [`Error::Timeout`]; progress the server streams reaches the options' callback.
    pub async fn call_with<A: Serialize + Sync + ?Sized>(
        &self,
        tool: &str,
        args: &A,
        options: CallOptions,
    ) -> Result<ToolOutput> {
        self.call_encoded(tool, &args, options).await
    }

    /// [`Session::call_with`] past the argument type.
    pub(crate) async fn call_encoded(
        &self,
        tool: &str,
        args: &dyn Encode,
        options: CallOptions,
    ) -> Result<ToolOutput> {
        let arguments = args.to_json().map_err(|e| Error::Encode {
            server: self.alias().to_string(),
            tool: tool.to_string(),
            message: e.to_string(),
        })?;
        let limit = self.limit(tool, &options);
        let params = json!({ "name": tool, "arguments": arguments });
        let result = self
            .request(
                "tools/call",
                Some(tool),
                params,
                limit,
                options.on_progress.as_ref(),
            )
            .await?;
        Ok(output_of(result))
    }

    /// Calls a tool and decodes its structured result into `O`; a tool-level error is
    /// [`Error::Tool`].
    pub async fn call_structured<A: Serialize + Sync + ?Sized, O: DeserializeOwned>(
        &self,
        tool: &str,
        args: &A,
    ) -> Result<O> {
        let output = self.call(tool, args).await?;
        self.decode(tool, output)
    }

    /// Checks `isError` and decodes a tool result into `O`, as the native session does.
    pub fn decode<O: DeserializeOwned>(&self, tool: &str, output: ToolOutput) -> Result<O> {
        output.decode_in_session(
            &self.inner.alias,
            tool,
            self.inner.options.fixture_protocol,
            &self.server_info().protocol_version,
        )
    }

    /// Runs a tool as a task: on wasm32 the call runs to its end and the handle holds the
    /// result.
    pub async fn call_task<A: Serialize + Sync + ?Sized>(
        &self,
        tool: &str,
        args: &A,
        options: CallOptions,
    ) -> Result<TaskHandle<ToolOutput>> {
        self.as_task(tool, args, options, |session, tool, out| {
            out.checked(session.alias(), tool)
        })
        .await
    }

    /// [`Session::call_task`] with a typed result.
    pub async fn call_task_structured<A: Serialize + Sync + ?Sized, O: DeserializeOwned>(
        &self,
        tool: &str,
        args: &A,
        options: CallOptions,
    ) -> Result<TaskHandle<O>> {
        self.as_task(tool, args, options, Self::decode).await
    }

    /// A call run to its end, its output `finish`ed, in a handle that holds the result.
    async fn as_task<A: Serialize + Sync + ?Sized, O>(
        &self,
        tool: &str,
        args: &A,
        options: CallOptions,
        finish: impl FnOnce(&Self, &str, ToolOutput) -> Result<O>,
    ) -> Result<TaskHandle<O>> {
        let result = self.call_with(tool, args, options).await;
        let result = result.and_then(|out| finish(self, tool, out));
        Ok(TaskHandle::ready(self.alias(), tool, result))
    }

    /// Every tool the server lists (`tools/list`, all pages), as raw JSON.
    pub async fn list_tools(&self) -> Result<Vec<Value>> {
        let protocol = self.start().await?;
        self.list_tools_at(protocol).await
    }

    async fn list_tools_at(&self, protocol: &'static str) -> Result<Vec<Value>> {
        let max_tools = self.inner.config.limits().max_tools();
        self.pages("tools/list", "tools", protocol, |tools| {
            if tools.len() > max_tools {
                return Err(format!(
                    "more than {max_tools} tools (the registry's limits.max_tools)"
                ));
            }
            Ok(())
        })
        .await
        .map(|tools| self.keep_valid_tools(tools))
    }

    /// Leaves out the tools whose `x-mcp-header` annotations break protocol 2026-07-28's
    /// rules (a client must not call them), as the native session does; remembers why
    /// ([`Session::rejected_tools`]) and the valid annotations (mirrored into `Mcp-Param-*`).
    fn keep_valid_tools(&self, tools: Vec<Value>) -> Vec<Value> {
        let mut mirrored = self
            .inner
            .param_headers
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut rejected = Vec::new();
        let mut kept = Vec::with_capacity(tools.len());
        for tool in tools {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
            match param_headers(tool.get("inputSchema").unwrap_or(&Value::Null)) {
                Ok(headers) => {
                    mirrored.insert(name.to_string(), headers);
                    kept.push(tool);
                }
                Err(rule) => {
                    tracing::warn!(server = %self.alias(), tool = name, "tool left out: {rule}");
                    rejected.push((name.to_string(), rule));
                }
            }
        }
        *self
            .inner
            .rejected
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = rejected;
        kept
    }

    /// The tools the last `tools/list` left out, with the rule each broke: tools whose
    /// `x-mcp-header` annotations are invalid (protocol 2026-07-28 forbids calling them).
    pub fn rejected_tools(&self) -> Vec<(String, String)> {
        self.inner
            .rejected
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The server's prompts (`prompts/list`, all pages); none when it declared no prompts.
    pub async fn list_prompts(&self) -> Result<Vec<Value>> {
        self.start().await?;
        if !self.server_info().has_prompts {
            return Ok(Vec::new());
        }
        self.list_paged("prompts/list", "prompts").await
    }

    /// The server's resources (`resources/list`, all pages); none when it declared no
    /// resources.
    pub async fn list_resources(&self) -> Result<Vec<Value>> {
        self.start().await?;
        if !self.server_info().has_resources {
            return Ok(Vec::new());
        }
        self.list_paged("resources/list", "resources").await
    }

    /// The server's resource templates (`resources/templates/list`, all pages).
    pub async fn list_resource_templates(&self) -> Result<Vec<Value>> {
        self.start().await?;
        if !self.server_info().has_resources {
            return Ok(Vec::new());
        }
        self.list_paged("resources/templates/list", "resourceTemplates")
            .await
    }

    /// Reads the resource at `uri` (`resources/read`), as raw JSON.
    pub async fn read_resource(&self, uri: &str) -> Result<Value> {
        let limit = self.limit("", &CallOptions::default());
        self.request(
            "resources/read",
            Some(uri),
            json!({ "uri": uri }),
            limit,
            None,
        )
        .await
    }

    /// Asks the server whether it is there, within `timeout`: `ping` on a 2025-11-25
    /// session, `server/discover` on a stateless one (2026-07-28 has no `ping`).
    pub async fn ping(&self, timeout: Duration) -> Result<()> {
        let protocol = self.start().await?;
        let method = if protocol > LAST_WITH_INITIALIZE {
            "server/discover"
        } else {
            "ping"
        };
        self.request(method, None, json!({}), timeout, None)
            .await
            .map(drop)
    }

    /// Every item under `key` of a paged list request.
    async fn list_paged(&self, method: &str, key: &str) -> Result<Vec<Value>> {
        let protocol = self.start().await?;
        self.pages(method, key, protocol, |_| Ok(())).await
    }

    /// Every item under `key` of `method`'s pages, `check`ed after each page; a cursor sent
    /// twice (a cycle) or more than 1000 pages is [`Error::Misbehaved`].
    async fn pages(
        &self,
        method: &str,
        key: &str,
        protocol: &'static str,
        check: impl Fn(&[Value]) -> std::result::Result<(), String>,
    ) -> Result<Vec<Value>> {
        const MAX_PAGES: usize = 1000;
        let limit = self.limit("", &CallOptions::default());
        let mut items = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let page = self
                .send(method, None, params, protocol, limit, None)
                .await?;
            if let Some(Value::Array(page_items)) = page.get(key) {
                items.extend(page_items.iter().cloned());
            }
            check(&items).map_err(|message| self.misbehaved(method, message))?;
            match page.get("nextCursor").and_then(Value::as_str) {
                None => return Ok(items),
                Some(next) if !seen.insert(next.to_string()) => {
                    return Err(self.misbehaved(
                        method,
                        format!("server returned cursor {next:?} twice: pagination cycle"),
                    ));
                }
                Some(next) => cursor = Some(next.to_string()),
            }
        }
        Err(self.misbehaved(method, format!("more than {MAX_PAGES} pages")))
    }

    /// Gets the prompt `name` (`prompts/get`) as raw JSON.
    pub async fn get_prompt(&self, name: &str, arguments: Map<String, Value>) -> Result<Value> {
        let limit = self.limit("", &CallOptions::default());
        let params = json!({ "name": name, "arguments": arguments });
        self.request("prompts/get", Some(name), params, limit, None)
            .await
    }

    /// Ends the session: a 2025-11-25 session is deleted on the server (`DELETE` with its
    /// `Mcp-Session-Id`); a stateless one has nothing to end.
    pub async fn close(&self) -> Result<()> {
        let id = self.session_id().take();
        if let Some(id) = id {
            let request = self
                .with_headers(self.inner.http.delete(&self.inner.url))
                .header("Mcp-Session-Id", id);
            // The server may not support DELETE (405): the session then simply lapses.
            let _ = request.send().await;
        }
        Ok(())
    }

    /// The deadline of one request.
    fn limit(&self, tool: &str, options: &CallOptions) -> Duration {
        let config = &self.inner.config;
        options
            .timeout
            .or_else(|| config.tool_timeouts().get(tool).copied())
            .or(config.timeout())
            .unwrap_or(DEFAULT_TIMEOUT)
    }

    /// Learns the revision the server speaks: `server/discover` (2026-07-28), else the
    /// `initialize` handshake of 2025-11-25, as `protocol` in the registry allows.
    async fn start(&self) -> Result<&'static str> {
        if let Some(protocol) = self.inner.protocol.get() {
            return Ok(protocol);
        }
        let limit = self
            .inner
            .options
            .connect_timeout
            .unwrap_or(DEFAULT_CONNECT_TIMEOUT);
        let protocol = match self.inner.config.protocol() {
            Protocol::Revision(r) if r <= LAST_WITH_INITIALIZE => self.initialize(r, limit).await?,
            Protocol::Revision(_) => self.discover(limit).await?,
            Protocol::Auto => match self.discover(limit).await {
                Ok(protocol) => protocol,
                // The server could not be reached: `initialize` would not reach it either.
                Err(Error::Transport { message, .. }) if !message.starts_with("HTTP ") => {
                    return Err(self.transport_error(message));
                }
                // A server of the initialize lifecycle refuses `server/discover` (an unknown
                // method, an unsupported revision, or a request without a session).
                Err(discover @ (Error::Protocol { .. } | Error::Transport { .. })) => {
                    match self.initialize(LAST_WITH_INITIALIZE, limit).await {
                        Ok(protocol) => protocol,
                        Err(Error::Transport { message, .. }) => {
                            return Err(self.transport_error(format!(
                                "{message} (after server/discover: {})",
                                reason(&discover)
                            )));
                        }
                        Err(e) => return Err(e),
                    }
                }
                Err(e) => return Err(e),
            },
        };
        let protocol = *self.inner.protocol.get_or_init(|| protocol);
        if let Some(expected) = &self.inner.options.fixture_hash {
            let policy = self
                .inner
                .options
                .drift
                .unwrap_or(self.inner.config.drift());
            self.drift_at(protocol, expected, policy).await?;
        }
        Ok(protocol)
    }

    /// Compares the live `tools/list` with `expected_hash` (a generated `FIXTURE_HASH`):
    /// `Ok(true)` when they differ under [`DriftPolicy::Warn`] (a `tracing` warning),
    /// [`Error::Drift`] under [`DriftPolicy::Error`]. A session whose options carry the
    /// fixture's hash (a generated `Client::connect`) checks at connect.
    pub async fn check_drift(&self, expected_hash: &str, policy: DriftPolicy) -> Result<bool> {
        let protocol = self.start().await?;
        self.drift_at(protocol, expected_hash, policy).await
    }

    async fn drift_at(
        &self,
        protocol: &'static str,
        expected_hash: &str,
        policy: DriftPolicy,
    ) -> Result<bool> {
        if policy == DriftPolicy::Ignore {
            return Ok(false);
        }
        let tools = self.list_tools_at(protocol).await?;
        let live = drift::tools_hash(&tools);
        if live == expected_hash {
            return Ok(false);
        }
        let summary = drift::summary(
            expected_hash,
            &live,
            &tools,
            self.inner.options.fixture_tools,
        );
        if policy == DriftPolicy::Error {
            return Err(Error::Drift {
                server: self.alias().to_string(),
                summary,
            });
        }
        tracing::warn!(server = %self.alias(), "server drifted from its fixture: {summary}");
        Ok(true)
    }

    async fn discover(&self, limit: Duration) -> Result<&'static str> {
        let result = self
            .send("server/discover", None, json!({}), STATELESS, limit, None)
            .await?;
        let speaks = result
            .get("supportedVersions")
            .and_then(Value::as_array)
            .is_some_and(|v| v.iter().any(|v| v.as_str() == Some(STATELESS)));
        if !speaks {
            return Err(self.misbehaved(
                "server/discover",
                format!(
                    "the server does not list protocol {STATELESS} among its supportedVersions"
                ),
            ));
        }
        let server = result
            .get("_meta")
            .and_then(|m| m.get("io.modelcontextprotocol/serverInfo"));
        self.set_info(server, result.get("capabilities"), STATELESS);
        Ok(STATELESS)
    }

    async fn initialize(&self, revision: &'static str, limit: Duration) -> Result<&'static str> {
        let params = json!({
            "protocolVersion": revision,
            "capabilities": {},
            "clientInfo": client_info(),
        });
        let result = self
            .send("initialize", None, params, revision, limit, None)
            .await?;
        let spoken = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or(revision);
        let Some(spoken) = crate::config::REVISIONS
            .iter()
            .copied()
            .find(|r| *r == spoken && *r <= LAST_WITH_INITIALIZE)
        else {
            return Err(self.misbehaved(
                "initialize",
                format!("answered with protocol {spoken:?}, which this client does not speak"),
            ));
        };
        self.set_info(result.get("serverInfo"), result.get("capabilities"), spoken);
        self.notify("notifications/initialized", spoken, limit)
            .await?;
        Ok(spoken)
    }

    fn set_info(&self, server: Option<&Value>, capabilities: Option<&Value>, protocol: &str) {
        let text = |k: &str| {
            server
                .and_then(|s| s.get(k))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let has = |k: &str| capabilities.and_then(|c| c.get(k)).is_some();
        let _ = self.inner.info.set(ServerInfo {
            name: text("name"),
            version: text("version"),
            protocol_version: protocol.to_string(),
            has_prompts: has("prompts"),
            has_resources: has("resources"),
        });
    }

    /// One request of the session: starts the session first if needed; a 2025-11-25
    /// session the server forgot (404) is started again once.
    async fn request(
        &self,
        method: &str,
        name: Option<&str>,
        params: Value,
        limit: Duration,
        progress: Option<&ProgressFn>,
    ) -> Result<Value> {
        let protocol = self.start().await?;
        let answer = self
            .send(method, name, params.clone(), protocol, limit, progress)
            .await;
        match answer {
            Err(Error::Transport { ref message, .. })
                if protocol <= LAST_WITH_INITIALIZE && message.starts_with("HTTP 404") =>
            {
                self.session_id().take();
                self.initialize(protocol, limit).await?;
                self.send(method, name, params, protocol, limit, progress)
                    .await
            }
            other => other,
        }
    }

    fn with_headers(&self, mut request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        for (name, value) in &self.inner.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        request
    }

    /// A POST of `body` to the server with the configured headers, `MCP-Protocol-Version`
    /// (when given), the session's `Mcp-Session-Id` (if any) and the deadline `limit`.
    fn post(
        &self,
        body: &Value,
        protocol: Option<&str>,
        limit: Duration,
    ) -> reqwest::RequestBuilder {
        let mut request = self
            .with_headers(self.inner.http.post(&self.inner.url))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .timeout(limit)
            .body(body.to_string());
        if let Some(protocol) = protocol {
            request = request.header("MCP-Protocol-Version", protocol);
        }
        if let Some(id) = self.session_id().clone() {
            request = request.header("Mcp-Session-Id", id);
        }
        request
    }

    /// The `Mcp-Session-Id` of a 2025-11-25 session.
    fn session_id(&self) -> std::sync::MutexGuard<'_, Option<String>> {
        self.inner
            .session_id
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The `Mcp-Param-*` headers of a call of `tool` with `params`.
    fn mirrored(&self, tool: &str, params: &Value) -> Vec<(String, String)> {
        let known = self
            .inner
            .param_headers
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let (Some(headers), Some(arguments)) = (known.get(tool), params.get("arguments")) else {
            return Vec::new();
        };
        headers
            .iter()
            .filter_map(|p| {
                let value = value_at(arguments, &p.path).and_then(header_value)?;
                Some((format!("Mcp-Param-{}", p.header), value))
            })
            .collect()
    }

    fn next_id(&self) -> u64 {
        self.inner.next_id.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// POSTs one JSON-RPC request and reads its answer (a JSON body or an event stream),
    /// within `limit`.
    async fn send(
        &self,
        method: &str,
        name: Option<&str>,
        mut params: Value,
        protocol: &'static str,
        limit: Duration,
        progress: Option<&ProgressFn>,
    ) -> Result<Value> {
        let id = self.next_id();
        let stateless = protocol > LAST_WITH_INITIALIZE;
        if let Value::Object(map) = &mut params {
            let meta = map
                .entry("_meta")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(meta) = meta {
                if progress.is_some() {
                    meta.insert("progressToken".into(), json!(id));
                }
                if stateless {
                    meta.insert(
                        "io.modelcontextprotocol/protocolVersion".into(),
                        json!(protocol),
                    );
                    meta.insert("io.modelcontextprotocol/clientInfo".into(), client_info());
                    meta.insert(
                        "io.modelcontextprotocol/clientCapabilities".into(),
                        json!({}),
                    );
                }
                if meta.is_empty() {
                    map.remove("_meta");
                }
            }
        }
        let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        // `initialize` negotiates the revision: no header before it.
        let header = (method != "initialize").then_some(protocol);
        let mut request = self.post(&body, header, limit);
        if stateless {
            request = request.header("Mcp-Method", method);
            if let Some(name) = name.and_then(|n| header_value(&json!(n))) {
                request = request.header("Mcp-Name", name);
            }
            if let (Some(tool), "tools/call") = (name, method) {
                for (header, value) in self.mirrored(tool, &params) {
                    request = request.header(header, value);
                }
            }
        }
        let what = match name {
            Some(name) => format!("{method} {name:?}"),
            None => method.to_string(),
        };
        let fail = |e: reqwest::Error| self.fetch_error(&what, limit, &e);
        let response = request.send().await.map_err(fail)?;
        if let Some(id) = response
            .headers()
            .get("Mcp-Session-Id")
            .and_then(|v| v.to_str().ok())
        {
            *self.session_id() = Some(id.to_string());
        }
        let status = response.status();
        let event_stream = response
            .headers()
            .get("Content-Type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let max = self.inner.config.limits().max_message_bytes();
        if response.content_length().is_some_and(|n| n > max as u64) {
            return Err(self.too_large(&what, max));
        }
        let mut reader = Reader::default();
        let mut body = response.bytes_stream();
        while let Some(chunk) = body.next().await {
            let chunk = chunk.map_err(fail)?;
            reader.buffer.extend_from_slice(&chunk);
            if reader.buffer.len() > max {
                return Err(self.too_large(&what, max));
            }
            if event_stream
                && status.is_success()
                && let Some(answer) = reader.events(id, progress)
            {
                return self.answer(&what, answer);
            }
        }
        if event_stream && status.is_success() {
            reader.buffer.extend_from_slice(b"\n\n");
            if let Some(answer) = reader.events(id, progress) {
                return self.answer(&what, answer);
            }
        }
        if method.starts_with("notifications/") && status.is_success() {
            return Ok(Value::Null);
        }
        let answer = serde_json::from_slice::<Value>(&reader.buffer).ok();
        if !status.is_success() {
            if let Some(answer) = answer.filter(|a| a.get("error").is_some()) {
                return self.answer(&what, answer);
            }
            let text = String::from_utf8_lossy(&reader.buffer);
            let text = text.trim();
            let advice = match status.as_u16() {
                401 | 403 => {
                    " (the server wants credentials: set an `Authorization` header in the server's `headers`)"
                }
                _ => "",
            };
            return Err(self.transport_error(format!(
                "HTTP {status} from {what}{advice}{}",
                if text.is_empty() {
                    String::new()
                } else {
                    format!(": {}", crate::error::excerpt(&text))
                }
            )));
        }
        match answer {
            Some(answer) => self.answer(&what, answer),
            None => Err(self.misbehaved(&what, "answered with no JSON-RPC response".to_string())),
        }
    }

    async fn notify(&self, method: &str, protocol: &'static str, limit: Duration) -> Result<()> {
        let body = json!({ "jsonrpc": "2.0", "method": method });
        let response = self
            .post(&body, Some(protocol), limit)
            .send()
            .await
            .map_err(|e| self.fetch_error(method, limit, &e))?;
        if response.status().is_success() {
            Ok(())
        } else {
            Err(self.transport_error(format!("HTTP {} from {method}", response.status())))
        }
    }

    /// A JSON-RPC response: its `result`, or its `error` as [`Error::Protocol`].
    fn answer(&self, what: &str, answer: Value) -> Result<Value> {
        if let Some(error) = answer.get("error") {
            let code = error
                .get("code")
                .and_then(Value::as_i64)
                .and_then(|c| i32::try_from(c).ok())
                .unwrap_or(0);
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default();
            return Err(Error::Protocol {
                server: self.alias().to_string(),
                method: what.to_string(),
                code,
                message: self.redact(message),
            });
        }
        match answer.get("result") {
            Some(result) => Ok(result.clone()),
            None => {
                Err(self.misbehaved(what, "answered with neither result nor error".to_string()))
            }
        }
    }

    fn fetch_error(&self, what: &str, limit: Duration, e: &reqwest::Error) -> Error {
        // reqwest's wasm backend aborts the fetch at the deadline; a body read cut off that
        // way carries the abort reason, not its timeout error.
        if e.is_timeout() || format!("{e:?}").contains("TimedOut") {
            return Error::Timeout {
                server: self.alias().to_string(),
                what: what.to_string(),
                limit,
                kind: "total timeout",
                diagnosis: None,
            };
        }
        // The wasm backend's error is the JavaScript exception, stack trace included:
        // keep its first line (`TypeError: fetch failed`).
        let cause = crate::error::cause(e);
        let cause = cause
            .strip_prefix("jsValue(")
            .unwrap_or(&cause)
            .lines()
            .next()
            .unwrap_or_default()
            .trim_end_matches(')');
        self.transport_error(format!(
            "{what}: the request to {} failed: {cause}",
            self.inner.url
        ))
    }

    fn transport_error(&self, message: String) -> Error {
        Error::Transport {
            server: self.alias().to_string(),
            message: self.redact(&message),
            stderr_tail: Vec::new(),
        }
    }

    fn misbehaved(&self, method: &str, message: String) -> Error {
        Error::Misbehaved {
            server: self.alias().to_string(),
            method: method.to_string(),
            message: self.redact(&message),
        }
    }

    fn too_large(&self, what: &str, max: usize) -> Error {
        self.misbehaved(
            what,
            format!(
                "answered with more than {max} bytes (the registry's limits.max_message_bytes)"
            ),
        )
    }
}

/// Why a request failed, without the server's name (the error that wraps it names it).
fn reason(e: &Error) -> String {
    match e {
        Error::Transport { message, .. } => message.clone(),
        Error::Protocol { code, message, .. } => format!("JSON-RPC error {code}: {message}"),
        other => other.to_string(),
    }
}

/// This client, as `clientInfo`.
fn client_info() -> Value {
    json!({ "name": "mcp-bindgen", "version": env!("CARGO_PKG_VERSION") })
}

/// A `tools/call` result as [`ToolOutput`]; content blocks of kinds it does not model are
/// left out, as the native session does.
fn output_of(mut result: Value) -> ToolOutput {
    let content = match result.get_mut("content").map(Value::take) {
        Some(Value::Array(blocks)) => blocks
            .into_iter()
            .filter_map(|b| serde_json::from_value::<Content>(b).ok())
            .collect(),
        _ => Vec::new(),
    };
    ToolOutput {
        content,
        structured: result
            .get_mut("structuredContent")
            .map(Value::take)
            .filter(|v| !v.is_null()),
        is_error: result.get("isError").and_then(Value::as_bool) == Some(true),
    }
}

/// An event stream read so far.
#[derive(Default)]
struct Reader {
    buffer: Vec<u8>,
}

impl Reader {
    /// Takes every complete event from the buffer: progress for request `id` goes to
    /// `progress`; the response to `id` is returned.
    fn events(&mut self, id: u64, progress: Option<&ProgressFn>) -> Option<Value> {
        loop {
            let (end, sep) = [&b"\n\n"[..], b"\r\n\r\n"]
                .iter()
                .filter_map(|sep| memchr::memmem::find(&self.buffer, sep).map(|i| (i, sep.len())))
                .min()?;
            let event: Vec<u8> = self.buffer.drain(..end + sep).collect();
            let event = String::from_utf8_lossy(&event[..end]);
            let data: Vec<&str> = event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            let Ok(message) = serde_json::from_str::<Value>(&data.join("\n")) else {
                continue;
            };
            if message.get("id").and_then(Value::as_u64) == Some(id)
                && message.get("method").is_none()
            {
                return Some(message);
            }
            if message.get("method").and_then(Value::as_str) == Some("notifications/progress") {
                let params = message.get("params");
                let token = params.and_then(|p| p.get("progressToken"));
                if let (Some(report), Some(params)) = (progress, params)
                    && token.and_then(Value::as_u64) == Some(id)
                {
                    report(Progress {
                        progress: params
                            .get("progress")
                            .and_then(Value::as_f64)
                            .unwrap_or(0.0),
                        total: params.get("total").and_then(Value::as_f64),
                        message: params
                            .get("message")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                    });
                }
            }
        }
    }
}

/// Tool arguments behind one type (`&dyn Encode`).
pub(crate) trait Encode: Sync {
    /// The arguments as JSON.
    fn to_json(&self) -> serde_json::Result<Value>;
}

impl<T: Serialize + Sync> Encode for T {
    fn to_json(&self) -> serde_json::Result<Value> {
        serde_json::to_value(self)
    }
}

/// What a `*_task` method of a generated client returns: on wasm32 the call has run to its
/// end, and the handle holds its result.
#[must_use = "a task handle holds the call's result"]
pub struct TaskHandle<O> {
    server: String,
    tool: String,
    result: Option<Result<O>>,
}

impl<O> std::fmt::Debug for TaskHandle<O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskHandle")
            .field("server", &self.server)
            .field("tool", &self.tool)
            .finish_non_exhaustive()
    }
}

impl<O> TaskHandle<O> {
    pub(crate) fn ready(server: &str, tool: &str, result: Result<O>) -> Self {
        TaskHandle {
            server: server.to_string(),
            tool: tool.to_string(),
            result: Some(result),
        }
    }

    /// The task's id: none (the call ran as a plain call).
    pub fn id(&self) -> Option<&str> {
        None
    }

    /// [`TaskState::Completed`] or [`TaskState::Failed`].
    pub async fn status(&self) -> Result<TaskState> {
        Ok(match &self.result {
            Some(Ok(_)) => TaskState::Completed,
            _ => TaskState::Failed,
        })
    }

    /// The call's result.
    pub async fn wait(mut self) -> Result<O> {
        self.result.take().unwrap_or_else(|| {
            Err(Error::Misbehaved {
                server: self.server.clone(),
                method: format!("tools/call {:?}", self.tool),
                message: "the task's result was already taken".to_string(),
            })
        })
    }

    /// Nothing to cancel: the call has ended.
    pub async fn cancel(&mut self) -> Result<()> {
        Ok(())
    }
}
