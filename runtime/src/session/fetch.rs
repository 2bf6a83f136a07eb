//! The `fetch` wire (wasm32, the `wasm` feature): Streamable HTTP through the host's
//! `fetch` (reqwest's wasm backend).
//!
//! Both protocol revisions: 2026-07-28 is stateless (`server/discover`, then one POST per
//! request with the client's context in `_meta` and the `Mcp-Method`/`Mcp-Name` headers);
//! 2025-11-25 and older start with `initialize` and send the `Mcp-Session-Id` the server
//! gave. An answer may be a JSON body or an event stream (read with `sse-stream`, the
//! parser of the native transports); progress notifications in a stream reach
//! [`CallOptions::on_progress`] as they arrive. A deadline aborts the `fetch`.
//!
//! What the native wire has and this one has not: stdio and the legacy HTTP+SSE transport,
//! OAuth login (send a bearer token in the server's `headers`), reconnection (every request
//! stands alone; a 2025-11-25 session the server expired is started again),
//! server-to-client requests (sampling, elicitation, roots: none are offered), drift
//! re-checks on `tools/list_changed` (drift is checked at connect and when asked), and
//! tasks (a `*_task` call runs as a plain call; its handle holds the result).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

use futures::StreamExt;
use serde_json::{Map, Value, json};

use super::task::TaskHandle;
use super::{
    CallOptions, ConnectOptions, DEFAULT_CONNECT_TIMEOUT, Encode, Listing, Progress, ProgressFn,
    Session,
};
use crate::config::{LAST_WITH_INITIALIZE, Protocol, Resolved, ServerConfig, TransportConfig};
use crate::drift::{self, DriftPolicy};
use crate::error::{Error, Result};
use crate::output::{Content, ServerInfo, ToolOutput};
use mcp_bindgen_core::headers::header_value;

/// The revision a stateless session speaks.
const STATELESS: &str = "2026-07-28";

/// What the `fetch` wire keeps besides the session's shared part.
pub(super) struct Wire {
    url: String,
    headers: BTreeMap<String, String>,
    http: reqwest::Client,
    next_id: AtomicU64,
    /// The revision the session speaks, once connected.
    protocol: OnceLock<&'static str>,
    /// `Mcp-Session-Id` of a 2025-11-25 session.
    session_id: Mutex<Option<String>>,
    /// Set by [`Session::close`]: no request afterwards.
    closed: AtomicBool,
}

impl Session {
    /// A session of the `fetch` wire: asks the server what it speaks unless the options say
    /// `lazy`.
    pub(super) async fn open(
        config: &ServerConfig,
        resolved: Resolved,
        options: ConnectOptions,
    ) -> Result<Session> {
        let (url, headers) = match &resolved.transport {
            TransportConfig::StreamableHttp { url, headers } => (url.clone(), headers.clone()),
            TransportConfig::Stdio { .. } | TransportConfig::Sse { .. } => {
                return Err(Error::Transport {
                    server: config.alias().to_string(),
                    message: format!(
                        "the {} transport is not available on wasm32: give the server a Streamable HTTP `url`",
                        config.transport().kind()
                    ),
                    stderr_tail: Vec::new(),
                });
            }
        };
        let lazy = options.lazy;
        let wire = Wire {
            url,
            headers,
            http: reqwest::Client::new(),
            next_id: AtomicU64::new(0),
            protocol: OnceLock::new(),
            session_id: Mutex::new(None),
            closed: AtomicBool::new(false),
        };
        let session = Session {
            inner: Session::assemble(config, resolved, options, wire),
        };
        if !lazy {
            session.start().await?;
        }
        Ok(session)
    }

    /// The transport's name.
    pub(super) fn wire_transport(&self) -> &'static str {
        "streamable-http"
    }

    /// A server behind `fetch` has no stderr to show.
    pub(super) fn wire_stderr_tail(&self) -> Vec<String> {
        Vec::new()
    }

    /// Learns what the server speaks when not known yet.
    pub(super) async fn wire_connect(&self) -> Result<()> {
        self.start().await.map(drop)
    }

    /// One `tools/call` under the call's deadline (its idle deadline: a `fetch` cannot be
    /// kept alive by progress).
    pub(super) async fn wire_call(
        &self,
        tool: &str,
        args: &dyn Encode,
        options: &CallOptions,
    ) -> Result<ToolOutput> {
        let arguments = self.encode_arguments(tool, args)?;
        let (limit, _) = self.limits(tool, options);
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

    /// A `*_task` call: run to its end as a plain call; the handle holds the result.
    pub(super) async fn wire_task<O>(
        &self,
        tool: &str,
        args: &dyn Encode,
        options: CallOptions,
        decode: fn(&Session, &str, ToolOutput) -> Result<O>,
    ) -> Result<TaskHandle<O>> {
        let result = self.wire_call(tool, args, &options).await;
        let result = result.and_then(|out| decode(self, tool, out));
        Ok(TaskHandle::ready(self.alias(), tool, result))
    }

    /// `tools/list`, all pages, the tools a client must not call left out.
    pub(super) async fn wire_list_tools(&self) -> Result<Vec<Value>> {
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

    /// Every item of a paged listing.
    pub(super) async fn wire_list(&self, what: Listing) -> Result<Vec<Value>> {
        let protocol = self.start().await?;
        self.pages(what.method(), what.key(), protocol, |_| Ok(()))
            .await
    }

    /// `resources/read`.
    pub(super) async fn wire_read_resource(&self, uri: &str) -> Result<Value> {
        let (limit, _) = self.limits("", &CallOptions::default());
        self.request(
            "resources/read",
            Some(uri),
            json!({ "uri": uri }),
            limit,
            None,
        )
        .await
    }

    /// `prompts/get`.
    pub(super) async fn wire_get_prompt(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<Value> {
        let (limit, _) = self.limits("", &CallOptions::default());
        let params = json!({ "name": name, "arguments": arguments });
        self.request("prompts/get", Some(name), params, limit, None)
            .await
    }

    /// `completion/complete` with `params`; the result as JSON.
    pub(super) async fn wire_complete(&self, _what: &str, params: Value) -> Result<Value> {
        let (limit, _) = self.limits("", &CallOptions::default());
        self.request("completion/complete", None, params, limit, None)
            .await
    }

    /// `ping` on a 2025-11-25 session, `server/discover` on a stateless one.
    pub(super) async fn wire_ping(&self, timeout: Duration) -> Result<()> {
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

    /// Compares the live tools with `expected_hash` now.
    pub(super) async fn wire_check_drift(
        &self,
        expected_hash: &str,
        policy: DriftPolicy,
    ) -> Result<bool> {
        let protocol = self.start().await?;
        self.drift_at(protocol, expected_hash, policy).await
    }

    /// Ends the session: a 2025-11-25 session is deleted on the server; no request follows.
    pub(super) async fn wire_close(&self) -> Result<()> {
        self.inner.wire.closed.store(true, Ordering::Release);
        let id = self.session_id().take();
        if let Some(id) = id {
            let request = self
                .with_headers(self.inner.wire.http.delete(&self.inner.wire.url))
                .header("Mcp-Session-Id", id);
            // The server may not support DELETE (405): the session then simply lapses.
            let _ = request.send().await;
        }
        Ok(())
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
        let (limit, _) = self.limits("", &CallOptions::default());
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

    /// Learns the revision the server speaks: `server/discover` (2026-07-28), else the
    /// `initialize` handshake of 2025-11-25, as `protocol` in the registry allows.
    async fn start(&self) -> Result<&'static str> {
        if self.inner.wire.closed.load(Ordering::Acquire) {
            return Err(self.transport_error(
                "the session was closed (Session::close); connect again".to_string(),
            ));
        }
        if let Some(protocol) = self.inner.wire.protocol.get() {
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
        let protocol = *self.inner.wire.protocol.get_or_init(|| protocol);
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
        let summary = self.drift_summary(expected_hash, &live, &tools);
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
            has_completions: has("completions"),
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
        for (name, value) in &self.inner.wire.headers {
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
            .with_headers(self.inner.wire.http.post(&self.inner.wire.url))
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
            .wire
            .session_id
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn next_id(&self) -> u64 {
        self.inner.wire.next_id.fetch_add(1, Ordering::Relaxed) + 1
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
                let arguments = params.get("arguments").unwrap_or(&Value::Null);
                for (header, value) in self.inner.param_headers.mirrored(tool, arguments) {
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
        let mut body = response.bytes_stream();
        if event_stream && status.is_success() {
            return match self.read_events(body, id, max, progress).await {
                Ok(Some(answer)) => self.answer(&what, answer),
                Ok(None) => Err(self.misbehaved(
                    &what,
                    "ended its event stream without a JSON-RPC response".to_string(),
                )),
                Err(BodyError::TooLarge) => Err(self.too_large(&what, max)),
                Err(BodyError::Fetch(e)) => Err(fail(e)),
                Err(BodyError::Events(e)) => Err(self.misbehaved(
                    &what,
                    format!("sent an event stream that does not parse: {e}"),
                )),
            };
        }
        let mut buffer = Vec::new();
        while let Some(chunk) = body.next().await {
            buffer.extend_from_slice(&chunk.map_err(fail)?);
            if buffer.len() > max {
                return Err(self.too_large(&what, max));
            }
        }
        if method.starts_with("notifications/") && status.is_success() {
            return Ok(Value::Null);
        }
        let answer = serde_json::from_slice::<Value>(&buffer).ok();
        if !status.is_success() {
            if let Some(answer) = answer.filter(|a| a.get("error").is_some()) {
                return self.answer(&what, answer);
            }
            let text = String::from_utf8_lossy(&buffer);
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

    /// Reads an event stream (at most `max` bytes) until the response to request `id`;
    /// progress for it goes to `progress` on the way. `None` when the stream ends first.
    async fn read_events(
        &self,
        body: impl futures::Stream<Item = reqwest::Result<bytes::Bytes>>,
        id: u64,
        max: usize,
        progress: Option<&ProgressFn>,
    ) -> std::result::Result<Option<Value>, BodyError> {
        let mut seen = 0usize;
        let counted = body.map(move |chunk| {
            let chunk = chunk.map_err(BodyError::Fetch)?;
            seen += chunk.len();
            if seen > max {
                return Err(BodyError::TooLarge);
            }
            Ok(chunk)
        });
        let mut events = std::pin::pin!(sse_stream::SseStream::from_bytes_stream(counted));
        while let Some(event) = events.next().await {
            let event = event.map_err(BodyError::from_events)?;
            let Some(message) = event
                .data
                .and_then(|data| serde_json::from_str::<Value>(&data).ok())
            else {
                continue;
            };
            if message.get("id").and_then(Value::as_u64) == Some(id)
                && message.get("method").is_none()
            {
                return Ok(Some(message));
            }
            if message.get("method").and_then(Value::as_str) == Some("notifications/progress")
                && let (Some(report), Some(params)) = (progress, message.get("params"))
                && params.get("progressToken").and_then(Value::as_u64) == Some(id)
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
        Ok(None)
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
            self.inner.wire.url
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

/// Why reading an event stream stopped.
#[derive(Debug)]
enum BodyError {
    /// The `fetch` failed (or hit its deadline).
    Fetch(reqwest::Error),
    /// More than `max_message_bytes`.
    TooLarge,
    /// A line the event-stream format does not allow.
    Events(sse_stream::Error),
}

impl std::fmt::Display for BodyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BodyError::Fetch(e) => e.fmt(f),
            BodyError::TooLarge => f.write_str("the answer is too large"),
            BodyError::Events(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for BodyError {}

impl BodyError {
    /// The parser's error, or ours when it carries one of ours (the body's errors).
    fn from_events(e: sse_stream::Error) -> Self {
        match e {
            sse_stream::Error::Body(body) => match body.downcast::<BodyError>() {
                Ok(ours) => *ours,
                Err(other) => BodyError::Events(sse_stream::Error::Body(other)),
            },
            other => BodyError::Events(other),
        }
    }
}
