//! A connected MCP server: [`Session`], the typed call path and its result types.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex, OnceLock};

use crate::config::{Resolved, ServerConfig};
use crate::error::Result;
use crate::output::*;
use crate::transport::{ParamHeaders, RawTap, StderrTail, StdoutNoise};

mod call;
mod client;
mod conn;
mod drift_guard;
mod handler;
mod input;
mod lifecycle;
mod notify;
mod options;
mod progress;
mod requests;
mod stream;
mod task;

pub use crate::output::TaskState;
pub use client::{Root, SamplingFuture, SamplingMessage, SamplingReply, SamplingRequest};
pub use input::{Elicitation, ElicitationAnswer, ElicitationFuture};
pub use notify::ServerLog;
pub use options::*;
pub use requests::REJECTED_TOOL_TARGET;
pub use stream::{CallEvent, CallStream};
pub use task::TaskHandle;

pub(crate) use call::Encode;
use conn::Conn;
use drift_guard::DriftState;
use lifecycle::Reconnect;
use notify::Shared;

/// A live connection to one MCP server. Cheap to clone; the connection closes when the
/// last clone is dropped (stdio servers are terminated) or on [`Session::close`].
///
/// When the transport dies (the server crashed or exited), the next request reconnects
/// (one attempt at a time, with backoff after failures); a call that was in flight fails
/// with [`Error::Transport`](crate::Error::Transport) and is only replayed when the caller opted in
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
    /// The tools the last listing left out, and why.
    rejected: Mutex<Vec<(String, String)>>,
    /// The valid `x-mcp-header` annotations by tool (shared with the HTTP transport).
    param_headers: Arc<ParamHeaders>,
    /// The OAuth state of a server with an `auth` setting.
    #[cfg(feature = "oauth")]
    auth: Option<Arc<crate::auth::Engine>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Lets the drift watcher see that the session is gone.
        self.shared.list_changed.notify_one();
    }
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("alias", &self.inner.alias)
            .field("transport", &self.inner.kind)
            .field("server", self.server_info())
            .finish_non_exhaustive()
    }
}

impl Session {
    /// Connects to a server of the registry: substitutes `${NAME}` placeholders from the
    /// process environment, starts or reaches the server, and runs `initialize`.
    ///
    /// For anything else (placeholders from another source, lazy connection, connect
    /// deadline, drift check, elicitation), build [`ConnectOptions`] and call
    /// [`ConnectOptions::connect`].
    pub async fn connect(config: &ServerConfig) -> Result<Session> {
        ConnectOptions::new().connect(config).await
    }

    /// The server's alias in the registry.
    pub fn alias(&self) -> &str {
        &self.inner.alias
    }

    /// `value` with every secret of the server's configuration (the values its `${NAME}`
    /// placeholders resolved to, auth secrets) replaced by `<redacted>` in every string, keys
    /// included: what may be written where the configuration is not (cassettes).
    pub(crate) fn redact_json(&self, value: &serde_json::Value) -> serde_json::Value {
        use serde_json::Value;
        let secrets = &self.inner.resolved.secrets;
        let text = |s: &str| crate::config::redact(secrets, s);
        match value {
            Value::String(s) => Value::String(text(s)),
            Value::Array(items) => {
                Value::Array(items.iter().map(|v| self.redact_json(v)).collect())
            }
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (text(k), self.redact_json(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// `text` with every secret of the server's configuration replaced by `<redacted>`: the
    /// values its `${NAME}` placeholders resolved to, its headers, its URL's userinfo and
    /// credential query parameters, auth secrets, and bearer tokens (16 or more token
    /// characters with a digit, after `Bearer `). The rule every error of the session
    /// follows; for text of your own (a log line).
    pub fn redact(&self, text: &str) -> String {
        crate::config::redact(&self.inner.resolved.secrets, text)
    }

    /// Whether `text` contains a secret of the server's configuration (as
    /// [`Session::redact`] would replace, but for `Bearer ` examples): what must never be
    /// written to a file meant for git, such as a fixture.
    pub fn contains_secret(&self, text: &str) -> bool {
        self.inner
            .resolved
            .secrets
            .iter()
            .any(|s| text.contains(s.as_str()))
    }

    /// The transport's name: `stdio`, `sse` or `streamable-http`.
    pub fn transport(&self) -> &'static str {
        self.inner.kind
    }

    /// An HTTP server's URL and headers as the session sends them (placeholders
    /// substituted); `None` for a stdio server. For provider-native MCP entries.
    pub(crate) fn http_target(
        &self,
    ) -> Option<(String, std::collections::BTreeMap<String, String>)> {
        match &self.inner.resolved.transport {
            crate::config::TransportConfig::Stdio { .. } => None,
            crate::config::TransportConfig::Sse { url, headers }
            | crate::config::TransportConfig::StreamableHttp { url, headers } => {
                Some((url.clone(), headers.clone()))
            }
        }
    }

    /// The OAuth access token the session would send now (refreshed when due); `None` for a
    /// server without OAuth. For provider-native MCP entries.
    pub(crate) async fn bearer_token(&self) -> Result<Option<String>> {
        #[cfg(feature = "oauth")]
        if let Some(engine) = &self.inner.auth {
            return engine.token().await;
        }
        Ok(None)
    }

    /// What the server reported in `initialize` (empty before a lazy session connected).
    pub fn server_info(&self) -> &ServerInfo {
        self.inner.info.get().unwrap_or(&NO_INFO)
    }

    /// The last lines the server wrote to stderr (stdio servers).
    pub fn stderr_tail(&self) -> Vec<String> {
        self.inner.stderr.lines()
    }
}

impl ConnectOptions {
    /// Connects to a server of the registry with these options: substitutes `${NAME}`
    /// placeholders (from [`ConnectOptions::with_env_lookup`], or the process environment),
    /// starts or reaches the server, and runs `initialize`.
    ///
    /// With [`ConnectOptions::lazy`], the placeholders are substituted now (a missing
    /// variable fails here) and the session is returned at once, unconnected: it connects on
    /// its first request.
    ///
    /// ```no_run
    /// # async fn demo(config: &mcp_bindgen::ServerConfig) -> mcp_bindgen::Result<()> {
    /// use std::time::Duration;
    /// use mcp_bindgen::ConnectOptions;
    ///
    /// let session = ConnectOptions::new()
    ///     .with_connect_timeout(Duration::from_secs(5))
    ///     .with_env_lookup(|name| (name == "TOKEN").then(|| "secret".to_string()))
    ///     .connect(config)
    ///     .await?;
    /// # let _ = session;
    /// # Ok(())
    /// # }
    /// ```
    pub fn connect(
        self,
        config: &ServerConfig,
    ) -> impl Future<Output = Result<Session>> + Send + '_ {
        let resolved = match &self.lookup {
            Some(lookup) => config.resolve(&|name| lookup(name)),
            None => config.resolve(&|name| std::env::var(name).ok()),
        };
        async move { Session::start(config, resolved?, self).await }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send<T: Send>(_: &T) {}

    /// Both ways to connect give `Send` futures (the toolbox and users spawn them).
    #[test]
    fn connecting_futures_are_send() {
        let config = ServerConfig::stdio("send", "/nonexistent/mcp-server", vec![]);
        assert_send(&Session::connect(&config));
        assert_send(&ConnectOptions::new().connect(&config));
        let options = ConnectOptions::new()
            .lazy()
            .with_env_lookup(|_| None)
            .with_connect_timeout(std::time::Duration::from_secs(1));
        assert_send(&options.connect(&config));
    }
}
