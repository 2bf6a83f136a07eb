//! The native wire: rmcp's client over stdio, legacy HTTP+SSE or Streamable HTTP (the
//! transports below), with reconnection and backoff, drift re-checks on
//! `tools/list_changed`, progress routing, server-to-client requests (sampling, elicitation,
//! roots), streamed calls and tasks.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex};

use super::{
    CallOptions, ConnectOptions, DEFAULT_CONNECT_TIMEOUT, DEFAULT_TIMEOUT, Encode, HEALTH_TIMEOUT,
    Inner, Listing, Progress, ProgressFn, Session,
};
use crate::error::Result;
use crate::transport::{RawTap, StderrTail, StdoutNoise};

pub(super) mod call;
pub(super) mod client;
mod conn;
mod drift_guard;
mod handler;
pub(super) mod input;
mod lifecycle;
pub(super) mod notify;
mod progress;
mod requests;
pub(super) mod stream;
pub(super) mod task;
pub(super) mod watch;

use conn::Conn;
use drift_guard::DriftState;
use lifecycle::Reconnect;
use notify::Shared;

/// What the native wire keeps besides the session's shared part.
pub(super) struct Wire {
    kind: &'static str,
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
    /// One listing at a time, so the tap's pages belong to it.
    listing: tokio::sync::Mutex<()>,
    closed: AtomicBool,
    drift: Mutex<DriftState>,
    /// Tool name → annotated `readOnlyHint` or `idempotentHint` (fetched on demand).
    replay_safe: Mutex<Option<HashMap<String, bool>>>,
    /// The OAuth state of a server with an `auth` setting.
    #[cfg(feature = "oauth")]
    auth: Option<Arc<crate::auth::Engine>>,
}

impl Drop for Wire {
    fn drop(&mut self) {
        // Lets the drift watcher see that the session is gone.
        self.shared.list_changed.notify_one();
    }
}

impl Session {
    /// The transport's name.
    pub(super) fn wire_transport(&self) -> &'static str {
        self.inner.wire.kind
    }

    /// The last lines a stdio server wrote to stderr.
    pub(super) fn wire_stderr_tail(&self) -> Vec<String> {
        self.inner.wire.stderr.lines()
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
        if let Some(engine) = &self.inner.wire.auth {
            return engine.token().await;
        }
        Ok(None)
    }
}
