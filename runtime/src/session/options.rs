//! Settings of a session and of one call.

use std::sync::Arc;
use std::time::Duration;

#[cfg(not(target_arch = "wasm32"))]
use super::native::input::{Elicit, Elicitation, ElicitationAnswer};
#[cfg(not(target_arch = "wasm32"))]
use super::native::notify::{LogFn, ServerLog};
use crate::drift::DriftPolicy;

/// Idle deadline of a request when neither the call nor the registry sets one.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// Upper bound of a request however much progress it reports, unless the call sets one.
pub const DEFAULT_MAX_TOTAL: Duration = Duration::from_secs(600);
/// How long connecting (spawn or HTTP handshake, then `initialize`) may take by default.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// The ping deadline of [`Session::health`](crate::Session::health).
pub const HEALTH_TIMEOUT: Duration = Duration::from_secs(2);
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

pub(super) type ProgressFn = Arc<dyn Fn(Progress) + Send + Sync>;

/// Per-call settings: deadlines and progress observer.
#[derive(Clone, Default)]
pub struct CallOptions {
    pub(super) timeout: Option<Duration>,
    pub(super) max_total: Option<Duration>,
    pub(super) on_progress: Option<ProgressFn>,
    pub(super) retry_if_idempotent: bool,
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
    ///
    /// [`Error::Timeout`]: crate::Error::Timeout
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
    ///
    /// [`Error::Transport`]: crate::Error::Transport
    pub fn with_retry_if_idempotent(mut self) -> Self {
        self.retry_if_idempotent = true;
        self
    }
}

/// How to connect a session: placeholder lookup, lazy connection, connect deadline, drift
/// check and optional client capabilities. Build them, then call [`ConnectOptions::connect`]
/// ([`Session::connect`](crate::Session::connect) is `ConnectOptions::new().connect(config)`).
#[derive(Clone, Default)]
pub struct ConnectOptions {
    pub(super) lookup: Option<Lookup>,
    pub(super) lazy: bool,
    pub(super) connect_timeout: Option<Duration>,
    pub(super) fixture_hash: Option<String>,
    pub(super) fixture_tools: Option<&'static [crate::typed::TypedTool]>,
    pub(super) fixture_protocol: Option<&'static str>,
    pub(super) drift: Option<DriftPolicy>,
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) elicit: Option<Elicit>,
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) sampling: Option<super::native::client::SampleFn>,
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) roots: Option<Vec<crate::root::Root>>,
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) on_log: Option<LogFn>,
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) on_tools_changed: Option<super::native::notify::ToolsChangedFn>,
    /// Overrides the registry's `max_server_requests`.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) max_server_requests: Option<usize>,
    #[cfg(feature = "oauth")]
    pub(super) authorizer: Option<Arc<dyn crate::auth::Authorizer>>,
}

pub(super) type Lookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

impl std::fmt::Debug for ConnectOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("ConnectOptions");
        d.field("lookup", &self.lookup.is_some())
            .field("lazy", &self.lazy)
            .field("connect_timeout", &self.connect_timeout)
            .field("fixture_hash", &self.fixture_hash)
            .field("fixture_tools", &self.fixture_tools.map(<[_]>::len))
            .field("fixture_protocol", &self.fixture_protocol)
            .field("drift", &self.drift);
        #[cfg(not(target_arch = "wasm32"))]
        d.field("on_sampling", &self.sampling.is_some())
            .field("roots", &self.roots)
            .field("on_server_log", &self.on_log.is_some())
            .field("on_tools_changed", &self.on_tools_changed.is_some())
            .field("authorizer", &{
                #[cfg(feature = "oauth")]
                let set = self.authorizer.is_some();
                #[cfg(not(feature = "oauth"))]
                let set = false;
                set
            })
            .field(
                "elicitation",
                &self.elicit.as_ref().map(|e| match e {
                    Elicit::Defaults => "schema defaults",
                    Elicit::Callback(_) => "callback",
                }),
            );
        d.finish()
    }
}

impl ConnectOptions {
    /// Placeholders from the process environment, eager connection, the registry's deadlines
    /// and drift policy, no extra capabilities.
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

    /// [`ConnectOptions::with_env_lookup`] with a lookup that is already shared (the
    /// toolbox's).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn with_shared_env_lookup(mut self, lookup: Lookup) -> Self {
        self.lookup = Some(lookup);
        self
    }

    /// Connects on the first request instead of in [`ConnectOptions::connect`] (placeholders
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
    pub fn with_fixture_tools(mut self, tools: &'static [crate::typed::TypedTool]) -> Self {
        self.fixture_tools = Some(tools);
        self
    }

    /// The protocol revision the fixture was snapshotted at (generated code's
    /// `FIXTURE_PROTOCOL`): a typed result that fits none of the spellings of either
    /// revision is then a decode error naming both the fixture's and the session's.
    pub fn with_fixture_protocol(mut self, revision: Option<&'static str>) -> Self {
        self.fixture_protocol = revision;
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
    #[cfg(not(target_arch = "wasm32"))]
    pub fn accept_elicitation_defaults(mut self) -> Self {
        self.elicit = Some(Elicit::Defaults);
        self
    }

    /// Calls `f` with every log message the server sends (`notifications/message`), besides
    /// the `tracing` event each one becomes (target `mcp_bindgen::server_log`, at the
    /// server's level). `f` runs on the connection's task: keep it short.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn on_server_log(mut self, f: impl Fn(ServerLog) + Send + Sync + 'static) -> Self {
        self.on_log = Some(Arc::new(f));
        self
    }

    /// Calls `f` whenever the server reports `notifications/tools/list_changed` (after the
    /// session's own drift re-check is scheduled). `f` runs on the connection's task: keep it
    /// short (send a message, set a flag).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn on_tools_changed(mut self, f: impl Fn() + Send + Sync + 'static) -> Self {
        self.on_tools_changed = Some(Arc::new(f));
        self
    }

    /// Lets the session log in by itself when an OAuth server (`auth = "oauth"`) needs it:
    /// no stored login, a login that cannot be refreshed, or a 403 `insufficient_scope`
    /// asking for more scopes (at most three authorizations per request). Without it such
    /// a request fails with [`ErrorKind::Unauthorized`](crate::ErrorKind::Unauthorized),
    /// naming `cargo xtask login ALIAS`.
    #[cfg(feature = "oauth")]
    pub fn with_authorizer(mut self, authorizer: Arc<dyn crate::auth::Authorizer>) -> Self {
        self.authorizer = Some(authorizer);
        self
    }

    /// Logs in to `config`'s OAuth server now, whatever is stored, through `authorizer`
    /// (the authorization code flow with PKCE; for `auth = { client_credentials = … }`
    /// the grant), and stores the tokens for later sessions. Placeholders are looked up as
    /// [`ConnectOptions::connect`] does. This is what `cargo xtask login ALIAS` runs, with
    /// a [`LoopbackAuthorizer`](crate::auth::LoopbackAuthorizer).
    #[cfg(feature = "oauth")]
    pub async fn login(
        &self,
        config: &crate::ServerConfig,
        authorizer: Arc<dyn crate::auth::Authorizer>,
    ) -> crate::Result<crate::auth::Login> {
        let env = |name: &str| std::env::var(name).ok();
        match &self.lookup {
            Some(lookup) => crate::auth::login(config, &|n| lookup(n), authorizer).await,
            None => crate::auth::login(config, &env, authorizer).await,
        }
    }

    /// Declares the `elicitation` capability and asks `f` whenever the server needs input
    /// from the user — as an `elicitation/create` request (protocol up to 2025-11-25) or as
    /// an `input_required` answer to a call (2026-07-28), which the call then retries with
    /// the answer. Without this (or [`ConnectOptions::accept_elicitation_defaults`]) the
    /// capability is not declared and any such request is declined at once.
    ///
    /// ```
    /// use mcp_bindgen::{ConnectOptions, ElicitationAnswer};
    ///
    /// let options = ConnectOptions::new().on_elicitation(|request| async move {
    ///     eprintln!("{} asks: {}", request.server, request.message);
    ///     ElicitationAnswer::Accept(request.defaults())
    /// });
    /// # let _ = options;
    /// ```
    #[cfg(not(target_arch = "wasm32"))]
    pub fn on_elicitation<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Elicitation) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = ElicitationAnswer> + Send + 'static,
    {
        self.elicit = Some(Elicit::Callback(Arc::new(move |e| Box::pin(f(e)))));
        self
    }

    /// Declares the `sampling` capability and asks `f` for a completion whenever the server
    /// needs one from the application's model — as a `sampling/createMessage` request
    /// (protocol up to 2025-11-25) or as an `input_required` answer to a call (2026-07-28).
    /// `f` picks the model (the request's [`SamplingRequest::model_hints`] are hints) and
    /// may refuse with a reason, which the server receives as a JSON-RPC error. Without
    /// this the capability is not declared and a sampling request is refused with a
    /// JSON-RPC error that says so.
    ///
    /// ```
    /// use mcp_bindgen::{ConnectOptions, SamplingReply};
    ///
    /// let options = ConnectOptions::new().on_sampling(|request| async move {
    ///     let prompt = request.messages.last().map(|m| m.text()).unwrap_or_default();
    ///     // Ask your model here; this one only repeats the prompt.
    ///     Ok(SamplingReply::new("echo", format!("you said: {prompt}")))
    /// });
    /// # let _ = options;
    /// ```
    ///
    /// [`SamplingRequest::model_hints`]: super::SamplingRequest::model_hints
    #[cfg(not(target_arch = "wasm32"))]
    pub fn on_sampling<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(super::SamplingRequest) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = std::result::Result<super::SamplingReply, String>>
            + Send
            + 'static,
    {
        self.sampling = Some(Arc::new(move |r| Box::pin(f(r))));
        self
    }

    /// How many requests from the server (sampling, elicitation, `roots/list`) are answered
    /// at once (at least 1); one past it is refused with a JSON-RPC error that says so.
    /// Overrides the registry's `max_server_requests` (default
    /// [`Limits::DEFAULT_MAX_SERVER_REQUESTS`](crate::Limits::DEFAULT_MAX_SERVER_REQUESTS)).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn with_max_server_requests(mut self, requests: usize) -> Self {
        self.max_server_requests = Some(requests.max(1));
        self
    }

    /// Declares the `roots` capability (with `listChanged`) and answers `roots/list` with
    /// `roots` (overrides the registry's `roots`). [`Session::set_roots`] changes them later
    /// and tells the server. Without roots here or in the registry the capability is not
    /// declared.
    ///
    /// [`Session::set_roots`]: super::Session::set_roots
    #[cfg(not(target_arch = "wasm32"))]
    pub fn with_roots(mut self, roots: impl IntoIterator<Item = crate::root::Root>) -> Self {
        self.roots = Some(roots.into_iter().collect());
        self
    }
}
