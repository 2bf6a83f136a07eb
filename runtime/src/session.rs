//! A connected MCP server: [`Session`], the typed call path and its result types.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientConfig, ClientRequest,
    Implementation, PingRequest, ProgressNotificationParam, ProgressToken, ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService, ServiceError};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::config::{Resolved, ServerConfig, TransportConfig};
use crate::error::{Error, Result};
use crate::transport::{RawTap, SseTransport, StderrTail, StdioTransport};

/// Idle deadline of a request when neither the call nor the registry sets one.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// Upper bound of a request however much progress it reports, unless the call sets one.
pub const DEFAULT_MAX_TOTAL: Duration = Duration::from_secs(600);
/// How long connecting (spawn or HTTP handshake, then `initialize`) may take by default.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a failed connect waits for a dying server's stderr to reach the tail.
const STDERR_DRAIN: Duration = Duration::from_millis(500);

/// A progress update of a running call (`notifications/progress`).
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Progress so far; increases with every update.
    pub progress: f64,
    /// The total, when the server knows it.
    pub total: Option<f64>,
    /// A human-readable message.
    pub message: Option<String>,
}

type ProgressFn = Arc<dyn Fn(Progress) + Send + Sync>;

/// Per-call settings: deadlines and progress observer.
#[derive(Clone, Default)]
pub struct CallOptions {
    timeout: Option<Duration>,
    max_total: Option<Duration>,
    on_progress: Option<ProgressFn>,
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("timeout", &self.timeout)
            .field("max_total", &self.max_total)
            .field("on_progress", &self.on_progress.is_some())
            .finish()
    }
}

impl CallOptions {
    /// Default options: the server's configured deadline (or [`DEFAULT_TIMEOUT`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// Idle deadline: the call fails with [`Error::Timeout`] when the server neither
    /// answers nor reports progress for this long.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Total deadline, however much progress the server reports.
    pub fn with_max_total(mut self, max_total: Duration) -> Self {
        self.max_total = Some(max_total);
        self
    }

    /// Calls `f` for every progress notification of this call, in arrival order, before
    /// the call returns.
    pub fn on_progress(mut self, f: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.on_progress = Some(Arc::new(f));
        self
    }
}

/// Arguments of a tool that takes none: serializes as `{}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct NoArgs {}

/// One content block of a tool result.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Content {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image (base64 data).
    Image {
        /// Base64 data.
        data: String,
        /// MIME type.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// Audio (base64 data).
    Audio {
        /// Base64 data.
        data: String,
        /// MIME type.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// An embedded resource.
    Resource {
        /// The resource (`uri`, `mimeType`, `text` or `blob`).
        resource: Value,
    },
    /// A link to a resource.
    ResourceLink {
        /// The resource URI.
        uri: String,
        /// The resource name.
        #[serde(default)]
        name: String,
    },
}

impl Content {
    /// The block as text: text as is, JSON-free summaries for binary content.
    pub fn to_text(&self) -> String {
        match self {
            Content::Text { text } => text.clone(),
            Content::Image { data, mime_type } => {
                format!("[image {mime_type}, {} bytes]", data.len() / 4 * 3)
            }
            Content::Audio { data, mime_type } => {
                format!("[audio {mime_type}, {} bytes]", data.len() / 4 * 3)
            }
            Content::Resource { resource } => match resource.get("text").and_then(Value::as_str) {
                Some(t) => t.to_string(),
                None => format!(
                    "[resource {}]",
                    resource.get("uri").and_then(Value::as_str).unwrap_or("?")
                ),
            },
            Content::ResourceLink { uri, name } => format!("[resource link {name} {uri}]"),
        }
    }
}

/// The result of a tool call.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolOutput {
    /// The content blocks.
    pub content: Vec<Content>,
    /// `structuredContent`, when the server sent it.
    pub structured: Option<Value>,
    /// Whether the tool reported an error (`isError: true`).
    pub is_error: bool,
}

impl ToolOutput {
    /// All content blocks as text, joined by newlines.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .map(Content::to_text)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The structured result as JSON: `structuredContent`, else the first text block parsed
    /// as JSON.
    pub fn json(&self) -> Option<Value> {
        if let Some(v) = &self.structured {
            return Some(v.clone());
        }
        self.content.iter().find_map(|c| match c {
            Content::Text { text } => serde_json::from_str(text).ok(),
            _ => None,
        })
    }
}

/// What the server said about itself in `initialize`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ServerInfo {
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.version`.
    pub version: String,
    /// The negotiated protocol version.
    pub protocol_version: String,
    /// Whether the server declared the `prompts` capability.
    pub has_prompts: bool,
    /// Whether the server declared the `resources` capability.
    pub has_resources: bool,
}

/// Routes `notifications/progress` to the call that asked for it.
#[derive(Default)]
struct ProgressRouter {
    inner: Mutex<RouterState>,
}

#[derive(Default)]
struct RouterState {
    subscribers: HashMap<ProgressToken, ProgressFn>,
    /// Updates that arrived before their call registered (bounded).
    early: Vec<(ProgressToken, Progress)>,
}

const EARLY_PROGRESS_MAX: usize = 256;

impl ProgressRouter {
    fn subscribe(&self, token: ProgressToken, f: ProgressFn) {
        let early: Vec<Progress> = match self.inner.lock() {
            Ok(mut st) => {
                let mut mine = Vec::new();
                st.early.retain(|(t, p)| {
                    if *t == token {
                        mine.push(p.clone());
                        false
                    } else {
                        true
                    }
                });
                st.subscribers.insert(token, f.clone());
                mine
            }
            Err(_) => Vec::new(),
        };
        for p in early {
            f(p);
        }
    }

    fn unsubscribe(&self, token: &ProgressToken) {
        if let Ok(mut st) = self.inner.lock() {
            st.subscribers.remove(token);
        }
    }

    fn dispatch(&self, params: ProgressNotificationParam) {
        let p = Progress {
            progress: params.progress,
            total: params.total,
            message: params.message,
        };
        let f = match self.inner.lock() {
            Ok(mut st) => match st.subscribers.get(&params.progress_token) {
                Some(f) => Some(f.clone()),
                None => {
                    if st.early.len() == EARLY_PROGRESS_MAX {
                        st.early.remove(0);
                    }
                    st.early.push((params.progress_token, p.clone()));
                    None
                }
            },
            Err(_) => None,
        };
        if let Some(f) = f {
            f(p);
        }
    }
}

/// Our rmcp client handler: declares no optional capabilities, routes progress.
struct Handler {
    config: ClientConfig,
    progress: Arc<ProgressRouter>,
    alias: Arc<str>,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        self.config.clone()
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.dispatch(params);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        tracing::info!(server = %self.alias, "server reported tools/list_changed");
    }
}

/// A live connection to one MCP server. Cheap to clone; the connection closes when the
/// last clone is dropped (stdio servers are terminated) or on [`Session::close`].
#[derive(Clone)]
pub struct Session {
    inner: Arc<Inner>,
}

struct Inner {
    alias: String,
    transport: &'static str,
    default_timeout: Duration,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, Handler>>>,
    peer: rmcp::Peer<RoleClient>,
    progress: Arc<ProgressRouter>,
    stderr: StderrTail,
    info: ServerInfo,
    tap: Arc<RawTap>,
    /// One listing at a time, so the tap's pages belong to it.
    listing: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("alias", &self.inner.alias)
            .field("transport", &self.inner.transport)
            .field("server", &self.inner.info)
            .finish_non_exhaustive()
    }
}

fn client_config() -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("mcp-bindgen", env!("CARGO_PKG_VERSION")),
    )
}

impl Session {
    /// Connects to a server of the registry: substitutes `${NAME}` placeholders from the
    /// process environment, starts or reaches the server, and runs `initialize`.
    pub async fn connect(config: &ServerConfig) -> Result<Session> {
        let resolved = config.resolve(&|name| std::env::var(name).ok())?;
        Self::connect_resolved(config, resolved).await
    }

    /// Like [`Session::connect`], with placeholders looked up in `lookup`.
    pub fn connect_with_env<'a>(
        config: &'a ServerConfig,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> impl Future<Output = Result<Session>> + Send + 'a {
        let resolved = config.resolve(lookup);
        async move { Self::connect_resolved(config, resolved?).await }
    }

    async fn connect_resolved(config: &ServerConfig, resolved: Resolved) -> Result<Session> {
        let alias = config.alias.clone();
        let connect_timeout = config.timeout.unwrap_or(DEFAULT_CONNECT_TIMEOUT).max(DEFAULT_CONNECT_TIMEOUT);
        let progress = Arc::new(ProgressRouter::default());
        let handler = Handler {
            config: client_config(),
            progress: progress.clone(),
            alias: alias.as_str().into(),
        };
        let stderr = StderrTail::default();
        let tap = Arc::new(RawTap::default());
        let transport_err = |message: String, stderr: &StderrTail| Error::Transport {
            server: alias.clone(),
            message,
            stderr_tail: stderr.lines(),
        };
        let kind = resolved.transport.kind();
        let init_err = |e: rmcp::service::ClientInitializeError, stderr: &StderrTail| {
            transport_err(format!("initialize failed: {e}"), stderr)
        };
        let serving = async {
            match &resolved.transport {
                TransportConfig::Stdio {
                    command,
                    args,
                    env,
                    cwd,
                } => {
                    let mut cmd = tokio::process::Command::new(command);
                    cmd.args(args).envs(env);
                    if let Some(dir) = cwd {
                        cmd.current_dir(dir);
                    }
                    let (transport, reader) =
                        StdioTransport::spawn(&alias, cmd, tap.clone(), &stderr).map_err(|e| {
                            transport_err(format!("cannot start `{command}`: {e}"), &stderr)
                        })?;
                    match handler.serve(transport).await {
                        Ok(service) => Ok(service),
                        Err(e) => {
                            // The server probably died: let its last words reach the tail.
                            let _ = tokio::time::timeout(STDERR_DRAIN, reader).await;
                            Err(init_err(e, &stderr))
                        }
                    }
                }
                TransportConfig::StreamableHttp { url, headers } => {
                    let t = crate::transport::streamable_http(&alias, url, headers, tap.clone())?;
                    handler.serve(t).await.map_err(|e| init_err(e, &stderr))
                }
                TransportConfig::Sse { url, headers } => {
                    let t =
                        SseTransport::connect(&alias, url, headers, connect_timeout, tap.clone())
                            .await?;
                    handler.serve(t).await.map_err(|e| init_err(e, &stderr))
                }
            }
        };
        let service = match tokio::time::timeout(connect_timeout, serving).await {
            Ok(r) => r?,
            Err(_) => {
                return Err(transport_err(
                    format!(
                        "no answer to initialize within {}",
                        crate::error::fmt_duration(connect_timeout)
                    ),
                    &stderr,
                ));
            }
        };
        let peer = service.peer().clone();
        peer.set_response_cache_config(rmcp::ClientCacheConfig::disabled())
            .await;
        let info = match peer.peer_info() {
            Some(i) => ServerInfo {
                name: i.server_info.as_ref().map(|s| s.name.clone()).unwrap_or_default(),
                version: i
                    .server_info
                    .as_ref()
                    .map(|s| s.version.clone())
                    .unwrap_or_default(),
                protocol_version: i.protocol_version.to_string(),
                has_prompts: i.capabilities.prompts.is_some(),
                has_resources: i.capabilities.resources.is_some(),
            },
            None => ServerInfo::default(),
        };
        tracing::debug!(server = %alias, transport = kind, name = %info.name, version = %info.version, protocol = %info.protocol_version, "connected");
        Ok(Session {
            inner: Arc::new(Inner {
                alias,
                transport: kind,
                default_timeout: config.timeout.unwrap_or(DEFAULT_TIMEOUT),
                service: tokio::sync::Mutex::new(Some(service)),
                peer,
                progress,
                stderr,
                info,
                tap,
                listing: tokio::sync::Mutex::new(()),
            }),
        })
    }

    /// The server's alias in the registry.
    pub fn alias(&self) -> &str {
        &self.inner.alias
    }

    /// The transport's name: `stdio`, `sse` or `streamable-http`.
    pub fn transport(&self) -> &'static str {
        self.inner.transport
    }

    /// What the server reported in `initialize`.
    pub fn server_info(&self) -> &ServerInfo {
        &self.inner.info
    }

    /// The last lines the server wrote to stderr (stdio servers).
    pub fn stderr_tail(&self) -> Vec<String> {
        self.inner.stderr.lines()
    }

    fn map_service_error(&self, what: &str, limit: Duration, e: ServiceError) -> Error {
        match e {
            ServiceError::McpError(data) => Error::Protocol {
                server: self.inner.alias.clone(),
                method: what.to_string(),
                code: data.code.0,
                message: data.message.to_string(),
            },
            ServiceError::Timeout { timeout } => Error::Timeout {
                server: self.inner.alias.clone(),
                what: what.to_string(),
                limit: timeout,
                kind: if timeout == limit {
                    "idle timeout"
                } else {
                    "total timeout"
                },
            },
            other => Error::Transport {
                server: self.inner.alias.clone(),
                message: format!("{what}: {other}"),
                stderr_tail: self.inner.stderr.lines(),
            },
        }
    }

    async fn with_deadline<T>(
        &self,
        what: &str,
        fut: impl Future<Output = std::result::Result<T, ServiceError>>,
    ) -> Result<T> {
        let limit = self.inner.default_timeout;
        match tokio::time::timeout(limit, fut).await {
            Ok(r) => r.map_err(|e| self.map_service_error(what, limit, e)),
            Err(_) => Err(Error::Timeout {
                server: self.inner.alias.clone(),
                what: what.to_string(),
                limit,
                kind: "total timeout",
            }),
        }
    }

    /// Every tool of the server (all pages), as JSON objects in the server's order, exactly
    /// as the server sent them (fields rmcp's model does not know, such as `execution`,
    /// included) — except over Streamable HTTP answered with `application/json`, where
    /// rmcp's model is all there is (a debug event says so).
    pub async fn list_tools(&self) -> Result<Vec<Value>> {
        let _one_at_a_time = self.inner.listing.lock().await;
        self.inner.tap.reset();
        let tools = self
            .with_deadline("tools/list", self.inner.peer.list_all_tools())
            .await?;
        let raw: Vec<Value> = self.inner.tap.take_pages().into_iter().flatten().collect();
        let same = raw.len() == tools.len()
            && raw
                .iter()
                .zip(&tools)
                .all(|(r, t)| r.get("name").and_then(Value::as_str) == Some(&*t.name));
        if same {
            return Ok(raw);
        }
        tracing::debug!(server = %self.inner.alias, "raw tools/list not captured; using rmcp's tool model");
        tools.iter().map(|t| self.to_json("tools/list", t)).collect()
    }

    /// Every prompt (all pages); empty when the server has no `prompts` capability.
    pub async fn list_prompts(&self) -> Result<Vec<Value>> {
        if !self.inner.info.has_prompts {
            return Ok(Vec::new());
        }
        let prompts = self
            .with_deadline("prompts/list", self.inner.peer.list_all_prompts())
            .await?;
        prompts
            .iter()
            .map(|t| self.to_json("prompts/list", t))
            .collect()
    }

    /// Every resource template (all pages); empty without the `resources` capability.
    pub async fn list_resource_templates(&self) -> Result<Vec<Value>> {
        if !self.inner.info.has_resources {
            return Ok(Vec::new());
        }
        let templates = self
            .with_deadline(
                "resources/templates/list",
                self.inner.peer.list_all_resource_templates(),
            )
            .await?;
        templates
            .iter()
            .map(|t| self.to_json("resources/templates/list", t))
            .collect()
    }

    fn to_json(&self, what: &str, item: &impl Serialize) -> Result<Value> {
        serde_json::to_value(item).map_err(|e| Error::Transport {
            server: self.inner.alias.clone(),
            message: format!("{what}: cannot re-encode an item: {e}"),
            stderr_tail: Vec::new(),
        })
    }

    /// Sends `ping` and waits up to `timeout` for the answer.
    pub async fn ping(&self, timeout: Duration) -> Result<()> {
        let handle = self
            .inner
            .peer
            .send_cancellable_request(
                ClientRequest::PingRequest(PingRequest::default()),
                PeerRequestOptions::with_timeout(timeout),
            )
            .await
            .map_err(|e| self.map_service_error("ping", timeout, e))?;
        handle
            .await_response()
            .await
            .map(|_| ())
            .map_err(|e| self.map_service_error("ping", timeout, e))
    }

    /// Calls a tool with default options.
    pub async fn call<A: Serialize + ?Sized>(&self, tool: &str, args: &A) -> Result<ToolOutput> {
        self.call_with(tool, args, CallOptions::default()).await
    }

    /// Calls a tool. `args` must serialize to a JSON object. A tool-level error
    /// (`isError: true`) is returned as `Ok` with [`ToolOutput::is_error`] set; use
    /// [`Session::call_structured`] or check the flag.
    ///
    /// The call has an idle deadline (reset by progress) and a total deadline; when one
    /// expires the server is sent `notifications/cancelled` and the call returns
    /// [`Error::Timeout`]. Dropping the returned future also cancels the request.
    pub async fn call_with<A: Serialize + ?Sized>(
        &self,
        tool: &str,
        args: &A,
        options: CallOptions,
    ) -> Result<ToolOutput> {
        let arguments = match serde_json::to_value(args) {
            Ok(Value::Object(map)) => map,
            Ok(Value::Null) => serde_json::Map::new(),
            Ok(other) => {
                return Err(Error::Encode {
                    server: self.inner.alias.clone(),
                    tool: tool.to_string(),
                    message: format!("found {}", json_kind(&other)),
                });
            }
            Err(e) => {
                return Err(Error::Encode {
                    server: self.inner.alias.clone(),
                    tool: tool.to_string(),
                    message: e.to_string(),
                });
            }
        };
        let what = format!("tools/call \"{tool}\"");
        let idle = options.timeout.unwrap_or(self.inner.default_timeout);
        let total = options.max_total.unwrap_or(DEFAULT_MAX_TOTAL.max(idle));
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(
            CallToolRequestParams::new(tool.to_string()).with_arguments(arguments),
        ));
        let peer_options = PeerRequestOptions::with_timeout(idle)
            .reset_timeout_on_progress()
            .with_max_total_timeout(total);
        let handle = self
            .inner
            .peer
            .send_cancellable_request(request, peer_options)
            .await
            .map_err(|e| self.map_service_error(&what, idle, e))?;
        let token = handle.progress_token.clone();
        if let Some(f) = options.on_progress.clone() {
            self.inner.progress.subscribe(token.clone(), f);
        }
        let guard = CancelOnDrop {
            peer: Some(self.inner.peer.clone()),
            id: handle.id.clone(),
            progress: self.inner.progress.clone(),
            token,
        };
        let response = handle.await_response().await;
        guard.disarm();
        match response {
            Ok(ServerResult::CallToolResult(r)) => {
                let content = r
                    .content
                    .iter()
                    .filter_map(|c| {
                        serde_json::to_value(c)
                            .ok()
                            .and_then(|v| serde_json::from_value::<Content>(v).ok())
                    })
                    .collect();
                Ok(ToolOutput {
                    content,
                    structured: r.structured_content,
                    is_error: r.is_error.unwrap_or(false),
                })
            }
            Ok(_) => Err(Error::Transport {
                server: self.inner.alias.clone(),
                message: format!(
                    "{what}: unexpected answer (not a tool result; tasks and input requests are not supported)"
                ),
                stderr_tail: Vec::new(),
            }),
            Err(e) => Err(self.map_service_error(&what, idle, e)),
        }
    }

    /// Calls a tool and decodes its structured result into `O`: `structuredContent`,
    /// falling back to JSON in the first text block. `isError: true` is [`Error::Tool`].
    pub async fn call_structured<A: Serialize + ?Sized, O: DeserializeOwned>(
        &self,
        tool: &str,
        args: &A,
        options: CallOptions,
    ) -> Result<O> {
        let output = self.call_with(tool, args, options).await?;
        self.decode(tool, output)
    }

    /// Checks `isError` and decodes a tool result into `O`.
    pub fn decode<O: DeserializeOwned>(&self, tool: &str, output: ToolOutput) -> Result<O> {
        if output.is_error {
            return Err(Error::Tool {
                server: self.inner.alias.clone(),
                tool: tool.to_string(),
                output,
            });
        }
        let json = output.json().unwrap_or(Value::Null);
        serde_json::from_value::<O>(json.clone()).map_err(|e| Error::Decode {
            server: self.inner.alias.clone(),
            tool: tool.to_string(),
            type_name: std::any::type_name::<O>(),
            message: e.to_string(),
            excerpt: excerpt(&json),
        })
    }

    /// Closes the connection: stdio servers get their stdin closed, then SIGTERM, then
    /// SIGKILL. Other clones of this session fail afterwards with a transport error.
    pub async fn close(&self) -> Result<()> {
        let service = self.inner.service.lock().await.take();
        if let Some(mut s) = service {
            let _ = s.close_with_timeout(Duration::from_secs(5)).await;
        }
        Ok(())
    }
}

/// Sends `notifications/cancelled` when a call future is dropped before its answer.
struct CancelOnDrop {
    peer: Option<rmcp::Peer<RoleClient>>,
    id: rmcp::model::RequestId,
    progress: Arc<ProgressRouter>,
    token: ProgressToken,
}

impl CancelOnDrop {
    fn disarm(mut self) {
        self.peer = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.progress.unsubscribe(&self.token);
        if let Some(peer) = self.peer.take() {
            let id = self.id.clone();
            if let Ok(rt) = tokio::runtime::Handle::try_current() {
                rt.spawn(async move {
                    let n = rmcp::model::CancelledNotification::new(
                        rmcp::model::CancelledNotificationParam::new(
                            Some(id),
                            Some("the caller dropped the call".into()),
                        ),
                    );
                    let _ = peer.send_notification(n.into()).await;
                });
            }
        }
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn excerpt(v: &Value) -> String {
    let s = v.to_string();
    if s.len() <= 200 {
        s
    } else {
        let mut cut = 200;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}… ({} bytes)", &s[..cut], s.len())
    }
}
