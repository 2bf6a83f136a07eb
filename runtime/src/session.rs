//! A connected MCP server: [`Session`], the typed call path and its result types.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientConfig, ClientRequest,
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability,
    FormElicitationCapability, Implementation, PingRequest, ProgressNotificationParam,
    ProgressToken, ServerResult,
};
use rmcp::service::{
    NotificationContext, PeerRequestOptions, RequestContext, RunningService, ServiceError,
};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::config::{Resolved, ServerConfig, TransportConfig};
use crate::drift::{self, DriftPolicy};
use crate::error::{Error, Result};
#[cfg(feature = "http")]
use crate::transport::SseTransport;
use crate::transport::{Direct, RawTap, StderrEof, StderrTail, StdioTransport, StdoutNoise};

/// Idle deadline of a request when neither the call nor the registry sets one.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// Upper bound of a request however much progress it reports, unless the call sets one.
pub const DEFAULT_MAX_TOTAL: Duration = Duration::from_secs(600);
/// How long connecting (spawn or HTTP handshake, then `initialize`) may take by default.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a failed connect or call waits for a dying server's stderr to reach the tail.
const STDERR_DRAIN: Duration = Duration::from_millis(500);
/// The ping deadline of [`Session::health`].
pub const HEALTH_TIMEOUT: Duration = Duration::from_secs(2);
/// Longest wait between two reconnection attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

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
    retry_if_idempotent: bool,
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("timeout", &self.timeout)
            .field("max_total", &self.max_total)
            .field("on_progress", &self.on_progress.is_some())
            .field("retry_if_idempotent", &self.retry_if_idempotent)
            .finish()
    }
}

impl CallOptions {
    /// Default options: the tool's or server's configured deadline (or
    /// [`DEFAULT_TIMEOUT`]), no progress observer, no replay.
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
    /// the call returns. `f` runs on the connection's reader: keep it short (send to a
    /// channel for anything slow).
    pub fn on_progress(mut self, f: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.on_progress = Some(Arc::new(f));
        self
    }

    /// Opts in to replaying the call once, on a fresh connection, when the connection dies
    /// while the call is in flight — only if the server annotates the tool `readOnlyHint` or
    /// `idempotentHint` (read from the live `tools/list`). Without this option, or for other
    /// tools, such a call fails with [`Error::Transport`] and is never sent twice.
    pub fn with_retry_if_idempotent(mut self) -> Self {
        self.retry_if_idempotent = true;
        self
    }
}

/// Options of [`Session::connect_with`]: lazy connection, connect deadline, drift check and
/// optional client capabilities.
#[derive(Clone, Default)]
pub struct ConnectOptions {
    lookup: Option<Lookup>,
    lazy: bool,
    connect_timeout: Option<Duration>,
    fixture_hash: Option<String>,
    fixture_tools: Option<&'static [crate::toolbox::TypedTool]>,
    drift: Option<DriftPolicy>,
    elicitation_defaults: bool,
}

type Lookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

impl std::fmt::Debug for ConnectOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectOptions")
            .field("lookup", &self.lookup.is_some())
            .field("lazy", &self.lazy)
            .field("connect_timeout", &self.connect_timeout)
            .field("fixture_hash", &self.fixture_hash)
            .field("fixture_tools", &self.fixture_tools.map(<[_]>::len))
            .field("drift", &self.drift)
            .field("elicitation_defaults", &self.elicitation_defaults)
            .finish()
    }
}

impl ConnectOptions {
    /// Eager connection, the registry's deadlines and drift policy, no extra capabilities.
    pub fn new() -> Self {
        Self::default()
    }

    /// Looks `${NAME}` placeholders up with `lookup` instead of the process environment.
    pub fn with_env_lookup(
        mut self,
        lookup: impl Fn(&str) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.lookup = Some(Arc::new(lookup));
        self
    }

    /// Connects on the first request instead of in [`Session::connect_with`] (placeholders
    /// are still substituted right away, so a missing variable fails early).
    pub fn lazy(mut self) -> Self {
        self.lazy = true;
        self
    }

    /// How long starting the server and `initialize` may take (overrides the registry's
    /// `connect_timeout`).
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = Some(timeout);
        self
    }

    /// Compares the live tool list with this fixture hash (generated code's
    /// `FIXTURE_HASH`) after every (re)connection and on `tools/list_changed`.
    pub fn with_fixture_hash(mut self, hash: impl Into<String>) -> Self {
        self.fixture_hash = Some(hash.into());
        self
    }

    /// The tools the program was generated with (generated code's `TYPED_TOOLS`): a drift
    /// is then reported tool by tool, classified as `snapshot --check` classifies it
    /// (`create_issue: BREAKING — new required argument "type"`), for the tools the program
    /// uses.
    pub fn with_fixture_tools(mut self, tools: &'static [crate::toolbox::TypedTool]) -> Self {
        self.fixture_tools = Some(tools);
        self
    }

    /// The drift policy (overrides the registry's `drift`).
    pub fn with_drift_policy(mut self, policy: DriftPolicy) -> Self {
        self.drift = Some(policy);
        self
    }

    /// Declares the `elicitation` (form) capability and accepts every `elicitation/create`
    /// with the defaults of the requested schema (fields without a default are left out).
    /// URL elicitations are declined. Off by default: servers may offer other tools to
    /// clients that can elicit.
    pub fn accept_elicitation_defaults(mut self) -> Self {
        self.elicitation_defaults = true;
        self
    }
}

/// The state of a session's connection, from [`Session::health`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Health {
    /// The server answered `ping`.
    Ok {
        /// Round-trip time of the ping.
        latency: Duration,
    },
    /// A lazy session that has not connected yet.
    NotConnected,
    /// The transport is closed (the server exited or dropped the connection); the next
    /// request reconnects.
    TransportClosed,
    /// [`Session::close`] was called.
    Closed,
    /// The transport is open but `ping` failed or timed out.
    Unresponsive {
        /// Why.
        error: String,
    },
}

impl Health {
    /// Whether the server answered `ping`.
    pub fn is_ok(&self) -> bool {
        matches!(self, Health::Ok { .. })
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
    /// Converts rmcp's content block, moving its data (`None` for a kind we do not model).
    fn from_rmcp(block: rmcp::model::ContentBlock) -> Option<Content> {
        use rmcp::model::ContentBlock;
        match block {
            ContentBlock::Text(t) => Some(Content::Text { text: t.text }),
            ContentBlock::Image(i) => Some(Content::Image {
                data: i.data,
                mime_type: i.mime_type,
            }),
            ContentBlock::Audio(a) => Some(Content::Audio {
                data: a.data,
                mime_type: a.mime_type,
            }),
            ContentBlock::ResourceLink(r) => Some(Content::ResourceLink {
                uri: r.uri,
                name: r.name,
            }),
            other => serde_json::to_value(&other)
                .ok()
                .and_then(|v| serde_json::from_value::<Content>(v).ok()),
        }
    }

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
    /// When progress last arrived, per token: a call's idle deadline counts from it
    /// (removed when the call ends; bounded).
    last_progress: HashMap<ProgressToken, Instant>,
}

const LAST_PROGRESS_MAX: usize = 4096;

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
            if !st.last_progress.is_empty() {
                st.last_progress.remove(token);
            }
        }
    }

    /// When progress for `token` last arrived.
    fn last_progress(&self, token: &ProgressToken) -> Option<Instant> {
        self.inner
            .lock()
            .ok()
            .and_then(|st| st.last_progress.get(token).copied())
    }

    fn dispatch(&self, params: ProgressNotificationParam) {
        let p = Progress {
            progress: params.progress,
            total: params.total,
            message: params.message,
        };
        let f = match self.inner.lock() {
            Ok(mut st) => {
                if st.last_progress.len() >= LAST_PROGRESS_MAX
                    && !st.last_progress.contains_key(&params.progress_token)
                {
                    st.last_progress.clear();
                }
                st.last_progress
                    .insert(params.progress_token.clone(), Instant::now());
                match st.subscribers.get(&params.progress_token) {
                    Some(f) => Some(f.clone()),
                    None => {
                        if st.early.len() == EARLY_PROGRESS_MAX {
                            st.early.remove(0);
                        }
                        st.early.push((params.progress_token, p.clone()));
                        None
                    }
                }
            }
            Err(_) => None,
        };
        if let Some(f) = f {
            f(p);
        }
    }
}

/// State the rmcp client handler shares with its session (and every reconnection).
struct Shared {
    alias: Arc<str>,
    progress: ProgressRouter,
    /// Woken by `tools/list_changed` (and when the session is dropped).
    list_changed: tokio::sync::Notify,
}

/// Our rmcp client handler: routes progress, reports `tools/list_changed`, and (opt-in)
/// answers elicitations with the schema defaults.
struct Handler {
    config: ClientConfig,
    shared: Arc<Shared>,
    elicitation_defaults: bool,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        self.config.clone()
    }

    async fn on_progress(
        &self,
        _params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        // Delivered by the transport's tap instead, in order and before the result.
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        tracing::info!(server = %self.shared.alias, "server reported tools/list_changed");
        self.shared.list_changed.notify_one();
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> std::result::Result<ElicitResult, rmcp::ErrorData> {
        if !self.elicitation_defaults {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        }
        match request {
            ElicitRequestParams::FormElicitationParams {
                requested_schema, ..
            } => {
                let schema = serde_json::to_value(&requested_schema).unwrap_or(Value::Null);
                Ok(ElicitResult::new(ElicitationAction::Accept)
                    .with_content(schema_defaults(&schema)))
            }
            _ => Ok(ElicitResult::new(ElicitationAction::Decline)),
        }
    }
}

/// `{property: default}` for every property of an object schema that has a default.
fn schema_defaults(schema: &Value) -> Value {
    let mut content = serde_json::Map::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, prop) in props {
            if let Some(default) = prop.get("default") {
                content.insert(name.clone(), default.clone());
            }
        }
    }
    Value::Object(content)
}

/// A live connection to one MCP server. Cheap to clone; the connection closes when the
/// last clone is dropped (stdio servers are terminated) or on [`Session::close`].
///
/// When the transport dies (the server crashed or exited), the next request reconnects
/// (one attempt at a time, with backoff after failures); a call that was in flight fails
/// with [`Error::Transport`] and is only replayed when the caller opted in
/// ([`CallOptions::with_retry_if_idempotent`]) and the tool is annotated read-only or
/// idempotent.
#[derive(Clone)]
pub struct Session {
    inner: Arc<Inner>,
}

struct Inner {
    alias: String,
    kind: &'static str,
    config: ServerConfig,
    /// The substituted settings, kept for reconnections (`Debug` redacts them).
    resolved: Resolved,
    options: ConnectOptions,
    shared: Arc<Shared>,
    stderr: StderrTail,
    /// What a stdio server wrote to stdout besides JSON-RPC (quoted by errors).
    noise: StdoutNoise,
    tap: Arc<RawTap>,
    conn: Mutex<Option<Arc<Conn>>>,
    /// One connection attempt at a time.
    reconnect: tokio::sync::Mutex<Reconnect>,
    /// Connection attempts so far (successful or not).
    attempts: AtomicU64,
    info: OnceLock<ServerInfo>,
    /// One listing at a time, so the tap's pages belong to it.
    listing: tokio::sync::Mutex<()>,
    closed: AtomicBool,
    drift: Mutex<DriftState>,
    /// Tool name → annotated `readOnlyHint` or `idempotentHint` (fetched on demand).
    replay_safe: Mutex<Option<HashMap<String, bool>>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Lets the drift watcher see that the session is gone.
        self.shared.list_changed.notify_one();
    }
}

#[derive(Default)]
struct Reconnect {
    /// Consecutive failed attempts.
    failures: u32,
    /// When the last attempt failed, and why.
    last_failure: Option<(Instant, String)>,
}

#[derive(Default)]
struct DriftState {
    expected: Option<String>,
    policy: DriftPolicy,
    /// With policy `error`: why calls are refused.
    drifted: Option<String>,
    /// A drift warning reached stderr already (shown once per session when the program has
    /// no `tracing` subscriber).
    shown_on_stderr: bool,
}

/// One established connection.
struct Conn {
    peer: rmcp::Peer<RoleClient>,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, Handler>>>,
    stderr_eof: Option<StderrEof>,
    /// stdio: `tools/call` past rmcp's service loop.
    direct: Option<Arc<Direct>>,
    dead: AtomicBool,
}

impl Conn {
    fn alive(&self) -> bool {
        !self.dead.load(Ordering::Acquire) && !self.peer.is_transport_closed()
    }
}

static NO_INFO: ServerInfo = ServerInfo {
    name: String::new(),
    version: String::new(),
    protocol_version: String::new(),
    has_prompts: false,
    has_resources: false,
};

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("alias", &self.inner.alias)
            .field("transport", &self.inner.kind)
            .field("server", self.server_info())
            .finish_non_exhaustive()
    }
}

fn client_config(elicitation: bool) -> ClientConfig {
    let mut capabilities = ClientCapabilities::default();
    if elicitation {
        capabilities.elicitation =
            Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
    }
    let mut config = ClientConfig::new(
        capabilities,
        Implementation::new("mcp-bindgen", env!("CARGO_PKG_VERSION")),
    );
    // rmcp's default is `LATEST` (2026-07-28), a revision without `initialize`; the
    // handshake we run must name the newest revision that has it (servers negotiate down).
    config.protocol_version = rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE;
    config
}

/// What went wrong with one attempt of a call.
enum CallFailure {
    /// The request never left (the transport was already closed): safe to send again.
    NotSent(Error),
    /// The connection died while the request was in flight.
    InFlight(Error),
    /// Anything else (timeout, protocol error, …): final.
    Final(Error),
}

impl Session {
    /// Connects to a server of the registry: substitutes `${NAME}` placeholders from the
    /// process environment, starts or reaches the server, and runs `initialize`.
    pub async fn connect(config: &ServerConfig) -> Result<Session> {
        Self::connect_with(config, ConnectOptions::default()).await
    }

    /// Like [`Session::connect`], with placeholders looked up in `lookup`.
    pub fn connect_with_env<'a>(
        config: &'a ServerConfig,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> impl Future<Output = Result<Session>> + Send + 'a {
        let resolved = config.resolve(lookup);
        async move { Self::start(config, resolved?, ConnectOptions::default()).await }
    }

    /// Like [`Session::connect`], with options (lazy, connect deadline, drift check,
    /// elicitation).
    pub async fn connect_with(config: &ServerConfig, options: ConnectOptions) -> Result<Session> {
        let resolved = match &options.lookup {
            Some(lookup) => config.resolve(&|name| lookup(name))?,
            None => config.resolve(&|name| std::env::var(name).ok())?,
        };
        Self::start(config, resolved, options).await
    }

    /// A session that connects on its first request. Placeholders are substituted now.
    pub fn connect_lazy(config: &ServerConfig) -> Result<Session> {
        let resolved = config.resolve(&|name| std::env::var(name).ok())?;
        Ok(Self::new_unconnected(
            config,
            resolved,
            ConnectOptions::default().lazy(),
        ))
    }

    fn new_unconnected(
        config: &ServerConfig,
        resolved: Resolved,
        options: ConnectOptions,
    ) -> Session {
        let policy = options.drift.unwrap_or(config.drift);
        let shared = Arc::new(Shared {
            alias: config.alias.as_str().into(),
            progress: ProgressRouter::default(),
            list_changed: tokio::sync::Notify::new(),
        });
        let inner = Arc::new(Inner {
            alias: config.alias.clone(),
            kind: resolved.transport.kind(),
            config: config.clone(),
            stderr: StderrTail::redacting(resolved.secrets.clone()),
            noise: StdoutNoise::default(),
            resolved,
            shared,
            tap: Arc::new(RawTap::default()),
            conn: Mutex::new(None),
            reconnect: tokio::sync::Mutex::new(Reconnect::default()),
            attempts: AtomicU64::new(0),
            info: OnceLock::new(),
            listing: tokio::sync::Mutex::new(()),
            closed: AtomicBool::new(false),
            drift: Mutex::new(DriftState {
                expected: options.fixture_hash.clone(),
                policy,
                drifted: None,
                shown_on_stderr: false,
            }),
            replay_safe: Mutex::new(None),
            options,
        });
        let router = Arc::downgrade(&inner.shared);
        inner.tap.set_progress_sink(Arc::new(move |params| {
            if let Some(shared) = router.upgrade() {
                shared.progress.dispatch(params);
            }
        }));
        if tokio::runtime::Handle::try_current().is_ok() {
            tokio::spawn(watch_list_changed(
                Arc::downgrade(&inner),
                inner.shared.clone(),
            ));
        }
        Session { inner }
    }

    async fn start(
        config: &ServerConfig,
        resolved: Resolved,
        options: ConnectOptions,
    ) -> Result<Session> {
        let lazy = options.lazy;
        let session = Self::new_unconnected(config, resolved, options);
        if !lazy {
            session.conn().await?;
        }
        Ok(session)
    }

    fn current(&self) -> Option<Arc<Conn>> {
        self.inner.conn.lock().ok().and_then(|c| c.clone())
    }

    fn closed_error(&self) -> Error {
        Error::Transport {
            server: self.inner.alias.clone(),
            message: "the session was closed (Session::close); connect again".into(),
            stderr_tail: Vec::new(),
        }
    }

    /// The live connection: the current one, or a new one when there is none or its
    /// transport died. One attempt at a time; after failures, attempts are spaced by a
    /// backoff (100 ms doubling up to 5 s), and callers that waited for a failed attempt get
    /// its error instead of starting another.
    async fn conn(&self) -> Result<Arc<Conn>> {
        if self.inner.closed.load(Ordering::Acquire) {
            return Err(self.closed_error());
        }
        if let Some(c) = self.current().filter(|c| c.alive()) {
            return Ok(c);
        }
        // Boxed: connecting is a large future, and every call's future would carry (and
        // move) its size otherwise.
        Box::pin(self.reconnect()).await
    }

    /// The slow path of [`Session::conn`]: connects or reconnects.
    async fn reconnect(&self) -> Result<Arc<Conn>> {
        let seen = self.inner.attempts.load(Ordering::Acquire);
        let mut state = self.inner.reconnect.lock().await;
        if self.inner.closed.load(Ordering::Acquire) {
            return Err(self.closed_error());
        }
        if let Some(c) = self.current().filter(|c| c.alive()) {
            return Ok(c);
        }
        if let Some((at, why)) = &state.last_failure {
            if self.inner.attempts.load(Ordering::Acquire) != seen {
                return Err(Error::Transport {
                    server: self.inner.alias.clone(),
                    message: format!("reconnecting failed: {why}"),
                    stderr_tail: self.inner.stderr.lines(),
                });
            }
            let backoff = backoff(state.failures);
            if let Some(wait) = backoff.checked_sub(at.elapsed()) {
                tokio::time::sleep(wait).await;
            }
        }
        let reconnecting = self.current().is_some();
        self.inner.attempts.fetch_add(1, Ordering::AcqRel);
        match self.establish().await {
            Ok(conn) => {
                if reconnecting {
                    tracing::info!(server = %self.inner.alias, "reconnected");
                }
                state.failures = 0;
                state.last_failure = None;
                if let Ok(mut slot) = self.inner.conn.lock() {
                    *slot = Some(conn.clone());
                }
                Ok(conn)
            }
            Err(e) => {
                state.failures = state.failures.saturating_add(1);
                state.last_failure = Some((Instant::now(), e.to_string()));
                Err(e)
            }
        }
    }

    fn connect_timeout(&self) -> Duration {
        let config = &self.inner.config;
        self.inner
            .options
            .connect_timeout
            .or(config.connect_timeout)
            .unwrap_or_else(|| {
                config
                    .timeout
                    .unwrap_or(DEFAULT_CONNECT_TIMEOUT)
                    .max(DEFAULT_CONNECT_TIMEOUT)
            })
    }

    /// Starts or reaches the server, runs `initialize`, and checks drift.
    async fn establish(&self) -> Result<Arc<Conn>> {
        let inner = &self.inner;
        let alias = inner.alias.as_str();
        let connect_timeout = self.connect_timeout();
        let handler = Handler {
            config: client_config(inner.options.elicitation_defaults),
            shared: inner.shared.clone(),
            elicitation_defaults: inner.options.elicitation_defaults,
        };
        let stderr = &inner.stderr;
        let tap = inner.tap.clone();
        let transport_err = |message: String| Error::Transport {
            server: alias.to_string(),
            message: match inner.noise.summary() {
                Some(noise) => format!("{message}; {noise}"),
                None => message,
            },
            stderr_tail: stderr.lines(),
        };
        let target = match &inner.resolved.transport {
            TransportConfig::Stdio { command, .. } => format!("`{command}`"),
            TransportConfig::Sse { url, .. } | TransportConfig::StreamableHttp { url, .. } => {
                url.clone()
            }
        };
        let init_err = |e: rmcp::service::ClientInitializeError| {
            transport_err(describe_initialize_error(&e, &target))
        };
        let mut stderr_eof: Option<StderrEof> = None;
        let mut direct: Option<Arc<Direct>> = None;
        let serving = async {
            match &inner.resolved.transport {
                TransportConfig::Stdio {
                    command,
                    args,
                    env,
                    cwd,
                    inherit,
                } => {
                    let mut cmd = tokio::process::Command::new(command);
                    // `env` is the server's whole environment unless it inherits everything.
                    if *inherit != crate::config::InheritEnv::All {
                        cmd.env_clear();
                    }
                    cmd.args(args).envs(env);
                    if let Some(dir) = cwd {
                        cmd.current_dir(dir);
                    }
                    let (transport, eof) =
                        StdioTransport::spawn(alias, cmd, tap.clone(), stderr, &inner.noise)
                            .map_err(|e| transport_err(format!("cannot start `{command}`: {e}")))?;
                    stderr_eof = Some(eof.clone());
                    direct = Some(transport.direct());
                    match handler.serve(transport).await {
                        Ok(service) => Ok(service),
                        Err(e) => {
                            // The server probably died: let its last words reach the tail.
                            eof.wait(STDERR_DRAIN).await;
                            Err(init_err(e))
                        }
                    }
                }
                #[cfg(feature = "http")]
                TransportConfig::StreamableHttp { url, headers } => {
                    let t = crate::transport::streamable_http(alias, url, headers, tap.clone())?;
                    handler.serve(t).await.map_err(init_err)
                }
                #[cfg(feature = "http")]
                TransportConfig::Sse { url, headers } => {
                    let t =
                        SseTransport::connect(alias, url, headers, connect_timeout, tap.clone())
                            .await?;
                    handler.serve(t).await.map_err(init_err)
                }
                #[cfg(not(feature = "http"))]
                TransportConfig::StreamableHttp { .. } | TransportConfig::Sse { .. } => {
                    Err(transport_err(format!(
                        "this build of mcp-runtime has no HTTP transports, so `transport = \"{}\"` cannot connect; enable the `http` feature of mcp-runtime (on by default)",
                        inner.kind
                    )))
                }
            }
        };
        let service = match tokio::time::timeout(connect_timeout, serving).await {
            Ok(r) => r?,
            Err(_) => {
                return Err(transport_err(format!(
                    "no answer to initialize within {} (raise `connect_timeout` in the registry if the server starts slowly)",
                    crate::error::fmt_duration(connect_timeout)
                )));
            }
        };
        let peer = service.peer().clone();
        peer.set_response_cache_config(rmcp::ClientCacheConfig::disabled())
            .await;
        let info = match peer.peer_info() {
            Some(i) => ServerInfo {
                name: i
                    .server_info
                    .as_ref()
                    .map(|s| s.name.clone())
                    .unwrap_or_default(),
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
        tracing::debug!(server = %alias, transport = inner.kind, name = %info.name, version = %info.version, protocol = %info.protocol_version, "connected");
        let _ = inner.info.set(info);
        let conn = Arc::new(Conn {
            peer,
            service: tokio::sync::Mutex::new(Some(service)),
            stderr_eof,
            direct,
            dead: AtomicBool::new(false),
        });
        // A new server process may have other tools.
        if let Ok(mut hints) = inner.replay_safe.lock() {
            *hints = None;
        }
        let (expected, policy) = match inner.drift.lock() {
            Ok(d) => (d.expected.clone(), d.policy),
            Err(_) => (None, DriftPolicy::Ignore),
        };
        if let Some(expected) = expected
            && policy != DriftPolicy::Ignore
        {
            let tools = self.list_tools_on(&conn).await?;
            if let Err(e) = self.apply_drift(&expected, policy, &tools) {
                if let Some(mut s) = conn.service.lock().await.take() {
                    let _ = s.close_with_timeout(Duration::from_secs(5)).await;
                }
                return Err(e);
            }
        }
        Ok(conn)
    }

    /// The server's alias in the registry.
    pub fn alias(&self) -> &str {
        &self.inner.alias
    }

    /// The transport's name: `stdio`, `sse` or `streamable-http`.
    pub fn transport(&self) -> &'static str {
        self.inner.kind
    }

    /// What the server reported in `initialize` (empty before a lazy session connected).
    pub fn server_info(&self) -> &ServerInfo {
        self.inner.info.get().unwrap_or(&NO_INFO)
    }

    /// The last lines the server wrote to stderr (stdio servers).
    pub fn stderr_tail(&self) -> Vec<String> {
        self.inner.stderr.lines()
    }

    /// Ping with a short deadline ([`HEALTH_TIMEOUT`]) plus the transport's state. Never
    /// connects or reconnects.
    pub async fn health(&self) -> Health {
        if self.inner.closed.load(Ordering::Acquire) {
            return Health::Closed;
        }
        let Some(conn) = self.current() else {
            return Health::NotConnected;
        };
        if !conn.alive() {
            return Health::TransportClosed;
        }
        let started = Instant::now();
        match self.ping_on(&conn, HEALTH_TIMEOUT).await {
            Ok(()) => Health::Ok {
                latency: started.elapsed(),
            },
            Err(_) if !conn.alive() => Health::TransportClosed,
            Err(e) => Health::Unresponsive {
                error: e.to_string(),
            },
        }
    }

    /// Maps an rmcp error; transport failures wait briefly for the server's stderr to end so
    /// its last lines are in the error.
    async fn map_service_error(
        &self,
        conn: &Conn,
        what: &str,
        idle: Duration,
        e: ServiceError,
    ) -> Error {
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
                diagnosis: self.inner.noise.summary(),
                kind: if timeout == idle {
                    "idle timeout"
                } else {
                    "total timeout"
                },
            },
            ServiceError::TransportClosed => {
                conn.dead.store(true, Ordering::Release);
                if let Some(eof) = &conn.stderr_eof {
                    eof.wait(STDERR_DRAIN).await;
                }
                let why = if self.inner.kind == "stdio" {
                    "the server exited or closed its stdout"
                } else {
                    "the server closed the connection"
                };
                let noise = self
                    .inner
                    .noise
                    .summary()
                    .map(|n| format!("; {n}"))
                    .unwrap_or_default();
                Error::Transport {
                    server: self.inner.alias.clone(),
                    message: format!("{what} failed: {why} before answering{noise}"),
                    stderr_tail: self.inner.stderr.lines(),
                }
            }
            ServiceError::TransportSend(e) => Error::Transport {
                server: self.inner.alias.clone(),
                message: format!(
                    "{what} could not be sent: {}",
                    crate::error::cause(&*e.error)
                ),
                stderr_tail: self.inner.stderr.lines(),
            },
            ServiceError::UnexpectedResponse => Error::Transport {
                server: self.inner.alias.clone(),
                message: format!("{what}: the server answered with a message of another kind"),
                stderr_tail: self.inner.stderr.lines(),
            },
            other => Error::Transport {
                server: self.inner.alias.clone(),
                message: format!("{what}: {other}"),
                stderr_tail: self.inner.stderr.lines(),
            },
        }
    }

    fn request_timeout(&self) -> Duration {
        self.inner.config.timeout.unwrap_or(DEFAULT_TIMEOUT)
    }

    async fn with_deadline<T>(
        &self,
        conn: &Conn,
        what: &str,
        fut: impl Future<Output = std::result::Result<T, ServiceError>>,
    ) -> Result<T> {
        let limit = self.request_timeout();
        match tokio::time::timeout(limit, fut).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(self.map_service_error(conn, what, limit, e).await),
            Err(_) => Err(Error::Timeout {
                server: self.inner.alias.clone(),
                what: what.to_string(),
                limit,
                kind: "total timeout",
                diagnosis: self.inner.noise.summary(),
            }),
        }
    }

    /// Every tool of the server (all pages), as JSON objects in the server's order, exactly
    /// as the server sent them (fields rmcp's model does not know, such as `execution`,
    /// included) — except over Streamable HTTP answered with `application/json`, where
    /// rmcp's model is all there is (a debug event says so).
    pub async fn list_tools(&self) -> Result<Vec<Value>> {
        let conn = self.conn().await?;
        self.list_tools_on(&conn).await
    }

    async fn list_tools_on(&self, conn: &Conn) -> Result<Vec<Value>> {
        let _one_at_a_time = self.inner.listing.lock().await;
        self.inner.tap.reset();
        let tools = self
            .with_deadline(conn, "tools/list", conn.peer.list_all_tools())
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
        tools
            .iter()
            .map(|t| self.to_json("tools/list", t))
            .collect()
    }

    /// Every prompt (all pages); empty when the server has no `prompts` capability or does
    /// not know the method (`-32601`).
    pub async fn list_prompts(&self) -> Result<Vec<Value>> {
        let conn = self.conn().await?;
        if !self.server_info().has_prompts {
            return Ok(Vec::new());
        }
        let prompts = self
            .with_deadline(&conn, "prompts/list", conn.peer.list_all_prompts())
            .await;
        let Some(prompts) = unless_method_not_found(prompts)? else {
            return Ok(Vec::new());
        };
        prompts
            .iter()
            .map(|t| self.to_json("prompts/list", t))
            .collect()
    }

    /// Every resource template (all pages); empty without the `resources` capability or
    /// when the server does not know the method (`-32601`; servers of older SDKs declare
    /// `resources` without templates).
    pub async fn list_resource_templates(&self) -> Result<Vec<Value>> {
        let conn = self.conn().await?;
        if !self.server_info().has_resources {
            return Ok(Vec::new());
        }
        let templates = self
            .with_deadline(
                &conn,
                "resources/templates/list",
                conn.peer.list_all_resource_templates(),
            )
            .await;
        let Some(templates) = unless_method_not_found(templates)? else {
            return Ok(Vec::new());
        };
        templates
            .iter()
            .map(|t| self.to_json("resources/templates/list", t))
            .collect()
    }

    /// Every resource (all pages); empty without the `resources` capability.
    pub async fn list_resources(&self) -> Result<Vec<Value>> {
        let conn = self.conn().await?;
        if !self.server_info().has_resources {
            return Ok(Vec::new());
        }
        let resources = self
            .with_deadline(&conn, "resources/list", conn.peer.list_all_resources())
            .await?;
        resources
            .iter()
            .map(|r| self.to_json("resources/list", r))
            .collect()
    }

    /// Reads a resource: the `resources/read` result (`{"contents": [...]}`) as JSON.
    pub async fn read_resource(&self, uri: &str) -> Result<Value> {
        let conn = self.conn().await?;
        let what = format!("resources/read \"{uri}\"");
        let result = self
            .with_deadline(
                &conn,
                &what,
                conn.peer
                    .read_resource(rmcp::model::ReadResourceRequestParams::new(uri)),
            )
            .await?;
        self.to_json(&what, &result)
    }

    /// Gets a prompt with its arguments: the `prompts/get` result (`{"messages": [...]}`)
    /// as JSON.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<Value> {
        let conn = self.conn().await?;
        let what = format!("prompts/get \"{name}\"");
        let params = rmcp::model::GetPromptRequestParams::new(name).with_arguments(arguments);
        let result = self
            .with_deadline(&conn, &what, conn.peer.get_prompt(params))
            .await?;
        self.to_json(&what, &result)
    }

    fn to_json(&self, what: &str, item: &impl Serialize) -> Result<Value> {
        serde_json::to_value(item).map_err(|e| Error::Transport {
            server: self.inner.alias.clone(),
            message: format!("{what}: cannot re-encode an item: {e}"),
            stderr_tail: Vec::new(),
        })
    }

    /// Sends `ping` and waits up to `timeout` for the answer (connects or reconnects first
    /// when needed; [`Session::health`] never does).
    pub async fn ping(&self, timeout: Duration) -> Result<()> {
        let conn = self.conn().await?;
        self.ping_on(&conn, timeout).await
    }

    async fn ping_on(&self, conn: &Conn, timeout: Duration) -> Result<()> {
        let handle = match conn
            .peer
            .send_cancellable_request(
                ClientRequest::PingRequest(PingRequest::default()),
                PeerRequestOptions::with_timeout(timeout),
            )
            .await
        {
            Ok(h) => h,
            Err(e) => return Err(self.map_service_error(conn, "ping", timeout, e).await),
        };
        match handle.await_response().await {
            Ok(_) => Ok(()),
            Err(e) => Err(self.map_service_error(conn, "ping", timeout, e).await),
        }
    }

    /// Compares the live tool list with `expected_hash` (generated code's `FIXTURE_HASH`)
    /// and applies `policy`; returns whether the server drifted. The expectation is kept:
    /// every reconnection and every `tools/list_changed` notification re-checks it. With
    /// [`DriftPolicy::Error`], drift is [`Error::Drift`] here, and calls fail with it until
    /// a re-check finds the tools back in line.
    pub async fn check_drift(&self, expected_hash: &str, policy: DriftPolicy) -> Result<bool> {
        if let Ok(mut d) = self.inner.drift.lock() {
            d.expected = Some(expected_hash.to_string());
            d.policy = policy;
            d.drifted = None;
        }
        if policy == DriftPolicy::Ignore {
            return Ok(false);
        }
        let tools = self.list_tools().await?;
        self.apply_drift(expected_hash, policy, &tools)
    }

    fn apply_drift(&self, expected: &str, policy: DriftPolicy, tools: &[Value]) -> Result<bool> {
        let live = drift::tools_hash(tools);
        let drifted = live != expected;
        let summary = drifted
            .then(|| drift::summary(expected, &live, tools, self.inner.options.fixture_tools));
        if let Ok(mut d) = self.inner.drift.lock() {
            d.drifted = match policy {
                DriftPolicy::Error => summary.clone(),
                _ => None,
            };
        }
        match (summary, policy) {
            (None, _) | (_, DriftPolicy::Ignore) => Ok(false),
            (Some(summary), DriftPolicy::Warn) => {
                let fix = mcp_codegen::project::either_command(&format!(
                    "snapshot --check {}",
                    self.inner.alias
                ));
                tracing::warn!(
                    server = %self.inner.alias,
                    "server drifted from its fixture: {summary}; run {fix} to see the changes"
                );
                // A program without a `tracing` subscriber would never see the warning.
                let first = self
                    .inner
                    .drift
                    .lock()
                    .map(|mut d| !std::mem::replace(&mut d.shown_on_stderr, true))
                    .unwrap_or(false);
                if first && !tracing::dispatcher::has_been_set() {
                    eprintln!(
                        "warning: server \"{}\" drifted from its fixture: {summary}; run {fix} to see the changes",
                        self.inner.alias
                    );
                }
                Ok(true)
            }
            (Some(summary), DriftPolicy::Error) => Err(Error::Drift {
                server: self.inner.alias.clone(),
                summary,
            }),
        }
    }

    /// Re-checks drift after `tools/list_changed`.
    async fn recheck_drift(&self) {
        let (expected, policy) = match self.inner.drift.lock() {
            Ok(d) => (d.expected.clone(), d.policy),
            Err(_) => return,
        };
        let Some(expected) = expected else {
            return;
        };
        if policy == DriftPolicy::Ignore {
            return;
        }
        // A notification during (re)connection: wait for that connection to be in place.
        drop(self.inner.reconnect.lock().await);
        let Some(conn) = self.current().filter(|c| c.alive()) else {
            return;
        };
        match self.list_tools_on(&conn).await {
            Ok(tools) => {
                if let Err(e) = self.apply_drift(&expected, policy, &tools) {
                    tracing::error!(server = %self.inner.alias, "{e}; calls fail until the tools match again");
                }
            }
            Err(e) => {
                tracing::warn!(server = %self.inner.alias, "cannot re-check drift after tools/list_changed: {e}")
            }
        }
    }

    /// Whether the server annotates `tool` `readOnlyHint` or `idempotentHint`.
    async fn replay_safe(&self, tool: &str) -> bool {
        let known = self
            .inner
            .replay_safe
            .lock()
            .ok()
            .and_then(|h| h.as_ref().map(|h| h.get(tool).copied().unwrap_or(false)));
        if let Some(safe) = known {
            return safe;
        }
        let Ok(tools) = self.list_tools().await else {
            return false;
        };
        let hints: HashMap<String, bool> = tools
            .iter()
            .filter_map(|t| {
                let name = t.get("name")?.as_str()?.to_string();
                let ann = t.get("annotations");
                let hint =
                    |k: &str| ann.and_then(|a| a.get(k)).and_then(Value::as_bool) == Some(true);
                Some((name, hint("readOnlyHint") || hint("idempotentHint")))
            })
            .collect();
        let safe = hints.get(tool).copied().unwrap_or(false);
        if let Ok(mut h) = self.inner.replay_safe.lock() {
            *h = Some(hints);
        }
        safe
    }

    /// Calls a tool with default options.
    pub async fn call<A: Serialize + ?Sized>(&self, tool: &str, args: &A) -> Result<ToolOutput> {
        self.call_with(tool, args, CallOptions::default()).await
    }

    /// The idle and total deadlines of a call: the call's options, else the registry's
    /// `tool_timeouts`, else the server's `timeout`, else [`DEFAULT_TIMEOUT`]; the total
    /// defaults to [`DEFAULT_MAX_TOTAL`] (at least the idle deadline).
    fn limits(&self, tool: &str, options: &CallOptions) -> (Duration, Duration) {
        let config = &self.inner.config;
        let idle = options
            .timeout
            .or_else(|| config.tool_timeouts.get(tool).copied())
            .or(config.timeout)
            .unwrap_or(DEFAULT_TIMEOUT);
        let total = options.max_total.unwrap_or(DEFAULT_MAX_TOTAL.max(idle));
        (idle, total)
    }

    /// Calls a tool. `args` must serialize to a JSON object. A tool-level error
    /// (`isError: true`) is returned as `Ok` with [`ToolOutput::is_error`] set; use
    /// [`Session::call_structured`] or check the flag.
    ///
    /// The call has an idle deadline (reset by progress) and a total deadline; when one
    /// expires the server is sent `notifications/cancelled` and the call returns
    /// [`Error::Timeout`]. Dropping the returned future also cancels the request. A dead
    /// transport is reconnected first; see [`CallOptions::with_retry_if_idempotent`] for
    /// calls cut off mid-flight.
    pub async fn call_with<A: Serialize + ?Sized>(
        &self,
        tool: &str,
        args: &A,
        options: CallOptions,
    ) -> Result<ToolOutput> {
        // Encoded per attempt (a replay needs the arguments again) instead of cloning them.
        let mut arguments = Some(self.encode_arguments(tool, args)?);
        let (idle, total) = self.limits(tool, &options);
        let (mut resent, mut replayed) = (false, false);
        loop {
            let drifted = self.inner.drift.lock().ok().and_then(|d| d.drifted.clone());
            if let Some(summary) = drifted {
                return Err(Error::Drift {
                    server: self.inner.alias.clone(),
                    summary,
                });
            }
            let conn = self.conn().await?;
            let attempt = match arguments.take() {
                Some(a) => a,
                None => self.encode_arguments(tool, args)?,
            };
            match self
                .call_once(&conn, tool, attempt, idle, total, &options)
                .await
            {
                Ok(output) => return Ok(output),
                Err(CallFailure::NotSent(_)) if !resent => {
                    conn.dead.store(true, Ordering::Release);
                    resent = true;
                }
                Err(CallFailure::InFlight(e)) => {
                    if replayed
                        || !options.retry_if_idempotent
                        || !Box::pin(self.replay_safe(tool)).await
                    {
                        return Err(e);
                    }
                    tracing::info!(server = %self.inner.alias, tool, "the connection died mid-call; replaying the read-only/idempotent call once: {e}");
                    replayed = true;
                }
                Err(CallFailure::NotSent(e) | CallFailure::Final(e)) => return Err(e),
            }
        }
    }

    /// `args` as the JSON object of a `tools/call` (`null` is `{}`).
    fn encode_arguments<A: Serialize + ?Sized>(
        &self,
        tool: &str,
        args: &A,
    ) -> Result<serde_json::Map<String, Value>> {
        let encode_error = |message: String| Error::Encode {
            server: self.inner.alias.clone(),
            tool: tool.to_string(),
            message,
        };
        match serde_json::to_value(args) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(Value::Null) => Ok(serde_json::Map::new()),
            Ok(other) => Err(encode_error(format!(
                "found {}",
                mcp_codegen::fixture::json_kind(&other)
            ))),
            Err(e) => Err(encode_error(e.to_string())),
        }
    }

    async fn call_once(
        &self,
        conn: &Conn,
        tool: &str,
        arguments: serde_json::Map<String, Value>,
        idle: Duration,
        total: Duration,
        options: &CallOptions,
    ) -> std::result::Result<ToolOutput, CallFailure> {
        // Only error messages name the request: built when one is needed.
        let what = || format!("tools/call \"{tool}\"");
        // The deadlines are ours (one timer, see below), not rmcp's: its per-request progress
        // watcher (a channel and two async lock round trips) and two boxed timers cost more
        // than the rest of the client's side of a small call. Over stdio the request skips
        // rmcp's service loop altogether (see `Direct`).
        let started = tokio::time::Instant::now();
        let sent = match &conn.direct {
            // Queued now, written below once the guard can cancel it.
            Some(direct) => direct.call(tool, &arguments).map(|call| {
                (
                    call.id.clone(),
                    call.token.clone(),
                    futures::future::Either::Left(async move {
                        let mut call = call;
                        call.flush().await;
                        call.answer
                            .await
                            .unwrap_or(Err(ServiceError::TransportClosed))
                    }),
                )
            }),
            None => {
                let request = ClientRequest::CallToolRequest(CallToolRequest::new(
                    CallToolRequestParams::new(tool.to_string()).with_arguments(arguments),
                ));
                conn.peer
                    .send_cancellable_request(request, PeerRequestOptions::no_options())
                    .await
                    .map(|handle| {
                        (
                            handle.id.clone(),
                            handle.progress_token.clone(),
                            futures::future::Either::Right(handle.await_response()),
                        )
                    })
            }
        };
        let (id, token, response) = match sent {
            Ok(sent) => sent,
            Err(e @ ServiceError::TransportClosed) => {
                return Err(CallFailure::NotSent(
                    Box::pin(self.map_service_error(conn, &what(), idle, e)).await,
                ));
            }
            Err(e) => {
                return Err(CallFailure::Final(
                    Box::pin(self.map_service_error(conn, &what(), idle, e)).await,
                ));
            }
        };
        if let Some(f) = options.on_progress.clone() {
            self.inner.shared.progress.subscribe(token.clone(), f);
        }
        let guard = CancelOnDrop {
            peer: Some(conn.peer.clone()),
            direct: conn.direct.clone(),
            id,
            shared: self.inner.shared.clone(),
            token,
        };
        // Idle deadline (pushed back by progress) and total deadline on one timer: when it
        // fires, the idle deadline is recomputed from the last progress update of this call
        // and the timer re-armed if that moved it.
        let total_deadline = later(started, total);
        let response = {
            tokio::pin!(response);
            let timer = tokio::time::sleep_until(later(started, idle).min(total_deadline));
            tokio::pin!(timer);
            loop {
                tokio::select! {
                    biased;
                    r = &mut response => break r,
                    () = &mut timer => {
                        let active = self
                            .inner
                            .shared
                            .progress
                            .last_progress(&guard.token)
                            .map(tokio::time::Instant::from_std)
                            .filter(|t| *t > started)
                            .unwrap_or(started);
                        let idle_deadline = later(active, idle);
                        let deadline = idle_deadline.min(total_deadline);
                        if deadline > tokio::time::Instant::now() {
                            timer.as_mut().reset(deadline);
                            continue;
                        }
                        let (limit, kind, reason) = if idle_deadline <= total_deadline {
                            (idle, "idle timeout", "request timeout")
                        } else {
                            (total, "total timeout", "maximum total timeout exceeded")
                        };
                        guard.cancel(reason).await;
                        return Err(CallFailure::Final(Error::Timeout {
                            server: self.inner.alias.clone(),
                            what: what(),
                            limit,
                            kind,
                            diagnosis: self.inner.noise.summary(),
                        }));
                    }
                }
            }
        };
        guard.disarm();
        match response {
            Ok(ServerResult::CallToolResult(r)) => Ok(ToolOutput {
                content: r
                    .content
                    .into_iter()
                    .filter_map(Content::from_rmcp)
                    .collect(),
                structured: r.structured_content,
                is_error: r.is_error.unwrap_or(false),
            }),
            Ok(other) => Err(CallFailure::Final(Error::Transport {
                server: self.inner.alias.clone(),
                message: format!(
                    "the server answered {} with a result that is not a CallToolResult: {}",
                    what(),
                    excerpt(&other)
                ),
                stderr_tail: Vec::new(),
            })),
            Err(e @ ServiceError::TransportClosed) => Err(CallFailure::InFlight(
                Box::pin(self.map_service_error(conn, &what(), idle, e)).await,
            )),
            Err(e) => Err(CallFailure::Final(
                Box::pin(self.map_service_error(conn, &what(), idle, e)).await,
            )),
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
        // Read from a reference: the structured result is not copied.
        let parsed;
        let json = match &output.structured {
            Some(v) => v,
            None => {
                parsed = output.json().unwrap_or(Value::Null);
                &parsed
            }
        };
        O::deserialize(json).map_err(|e| Error::Decode {
            server: self.inner.alias.clone(),
            tool: tool.to_string(),
            type_name: std::any::type_name::<O>(),
            message: e.to_string(),
            excerpt: excerpt(json),
        })
    }

    /// Closes the connection: stdio servers get their stdin closed, then SIGTERM, then
    /// SIGKILL. Requests afterwards (from any clone) fail with [`Error::Transport`]; the
    /// session does not reconnect.
    pub async fn close(&self) -> Result<()> {
        self.inner.closed.store(true, Ordering::Release);
        let _no_reconnect = self.inner.reconnect.lock().await;
        let conn = self.inner.conn.lock().ok().and_then(|mut c| c.take());
        if let Some(conn) = conn {
            let service = conn.service.lock().await.take();
            if let Some(mut s) = service {
                let _ = s.close_with_timeout(Duration::from_secs(5)).await;
            }
        }
        Ok(())
    }
}

/// Re-checks drift whenever the server reports `tools/list_changed`; ends with the session.
async fn watch_list_changed(session: Weak<Inner>, shared: Arc<Shared>) {
    loop {
        shared.list_changed.notified().await;
        let Some(inner) = session.upgrade() else {
            return;
        };
        Session { inner }.recheck_drift().await;
    }
}

/// `t + d`, or about 30 years after `t` when that overflows (like `tokio::time::sleep`).
fn later(t: tokio::time::Instant, d: Duration) -> tokio::time::Instant {
    t.checked_add(d)
        .unwrap_or_else(|| t + Duration::from_secs(86400 * 365 * 30))
}

fn backoff(failures: u32) -> Duration {
    if failures == 0 {
        return Duration::ZERO;
    }
    let exp = failures.saturating_sub(1).min(16);
    Duration::from_millis(100)
        .saturating_mul(1 << exp)
        .min(MAX_BACKOFF)
}

/// Sends `notifications/cancelled` when a call future is dropped before its answer.
struct CancelOnDrop {
    peer: Option<rmcp::Peer<RoleClient>>,
    /// Set for direct calls: their pending entry is removed on cancel.
    direct: Option<Arc<Direct>>,
    id: rmcp::model::RequestId,
    shared: Arc<Shared>,
    token: ProgressToken,
}

impl CancelOnDrop {
    fn disarm(mut self) {
        self.peer = None;
    }

    /// Sends `notifications/cancelled` with `reason` now (a deadline expired), instead of
    /// on drop.
    async fn cancel(mut self, reason: &str) {
        if let Some(direct) = &self.direct {
            direct.forget(&self.id);
        }
        if let Some(peer) = self.peer.take() {
            let n = rmcp::model::CancelledNotification::new(
                rmcp::model::CancelledNotificationParam::new(
                    Some(self.id.clone()),
                    Some(reason.to_string()),
                ),
            );
            let _ = peer.send_notification(n.into()).await;
        }
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.shared.progress.unsubscribe(&self.token);
        if let Some(peer) = self.peer.take() {
            if let Some(direct) = &self.direct {
                direct.forget(&self.id);
            }
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

/// `None` for a JSON-RPC "method not found" answer (an optional listing a server declares a
/// capability for but does not implement: nothing to list).
fn unless_method_not_found<T>(result: Result<T>) -> Result<Option<T>> {
    match result {
        Ok(v) => Ok(Some(v)),
        Err(Error::Protocol { code: -32601, .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// A JSON excerpt of what a server sent (at most 200 bytes, then its size).
fn excerpt(v: &impl Serialize) -> String {
    let s = serde_json::to_string(v).unwrap_or_else(|e| format!("<{e}>"));
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

/// Why `initialize` failed, in words (rmcp's messages name its transport types and print
/// messages with `Debug`).
fn describe_initialize_error(e: &rmcp::service::ClientInitializeError, target: &str) -> String {
    use rmcp::service::ClientInitializeError as E;
    match e {
        E::TransportError { error, .. } => format!(
            "could not connect to {target}: {}",
            crate::error::cause(&*error.error)
        ),
        E::ConnectionClosed(_) => {
            "the server closed the connection before answering initialize".to_string()
        }
        E::ExpectedInitResponse(Some(message)) => format!(
            "the server answered initialize with something else: {}",
            excerpt(message)
        ),
        E::ExpectedInitResult(Some(result)) => format!(
            "the server answered initialize with a result that is not an InitializeResult: {}",
            excerpt(result)
        ),
        E::JsonRpcError(data) => format!(
            "the server rejected initialize: {} (JSON-RPC error {})",
            data.message, data.code.0
        ),
        other => format!("initialize failed: {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        assert_eq!(backoff(0), Duration::ZERO);
        assert_eq!(backoff(1), Duration::from_millis(100));
        assert_eq!(backoff(3), Duration::from_millis(400));
        assert_eq!(backoff(40), MAX_BACKOFF);
    }

    #[test]
    fn elicitation_answer_holds_the_schema_defaults() {
        let schema = serde_json::json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "nick": {"type": "string"}
        }});
        assert_eq!(
            schema_defaults(&schema),
            serde_json::json!({"name": "John Doe", "age": 30})
        );
    }

    #[test]
    fn content_summaries_never_dump_binary_data() {
        let image = Content::Image {
            data: "AAAA".repeat(100),
            mime_type: "image/png".into(),
        };
        assert_eq!(image.to_text(), "[image image/png, 300 bytes]");
        let out = ToolOutput {
            content: vec![
                Content::Text {
                    text: "{\"a\":1}".into(),
                },
                Content::Audio {
                    data: "AAAA".into(),
                    mime_type: "audio/wav".into(),
                },
            ],
            structured: None,
            is_error: false,
        };
        assert_eq!(out.text(), "{\"a\":1}\n[audio audio/wav, 3 bytes]");
        assert_eq!(out.json(), Some(serde_json::json!({"a": 1})));
    }
}
