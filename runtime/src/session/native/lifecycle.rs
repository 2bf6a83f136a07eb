//! Connecting, reconnecting with backoff, and closing.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::conn::Conn;
use super::drift_guard::{DriftState, watch_list_changed};
use super::notify::Shared;
use super::progress::ProgressRouter;
use super::{ConnectOptions, DEFAULT_CONNECT_TIMEOUT, Session, Wire};
use crate::config::{Resolved, ServerConfig};
use crate::error::{Error, Result};
use crate::transport::{RawTap, StderrTail, StdoutNoise};

/// Longest wait between two reconnection attempts.
pub(in crate::session) const MAX_BACKOFF: Duration = Duration::from_secs(5);

#[derive(Default)]
pub(in crate::session) struct Reconnect {
    /// Consecutive failed attempts.
    pub(in crate::session) failures: u32,
    /// When the last attempt failed, and why.
    pub(in crate::session) last_failure: Option<(Instant, String)>,
}

impl Session {
    pub(in crate::session) fn new_unconnected(
        config: &ServerConfig,
        resolved: Resolved,
        options: ConnectOptions,
    ) -> Result<Session> {
        #[cfg(feature = "oauth")]
        let auth = {
            let env = |name: &str| std::env::var(name).ok();
            let lookup: &dyn Fn(&str) -> Option<String> = match &options.lookup {
                Some(l) => l.as_ref(),
                None => &env,
            };
            crate::auth::engine_for(config, &resolved, lookup, options.authorizer.clone())?
        };
        #[cfg(not(feature = "oauth"))]
        if resolved.auth.is_some() {
            return Err(Error::InvalidServer {
                path: Default::default(),
                alias: config.alias().to_string(),
                message: "this build of mcp-bindgen has no OAuth support, so `auth` cannot be used; enable the `oauth` feature of mcp-bindgen (`features = [\"oauth\"]`; the CLI has it)".into(),
            });
        }
        let policy = options.drift.unwrap_or(config.drift());
        let max_server_requests = options
            .max_server_requests
            .unwrap_or(config.limits().max_server_requests());
        let shared = Arc::new(Shared {
            alias: config.alias().into(),
            progress: ProgressRouter::default(),
            list_changed: tokio::sync::Notify::new(),
            on_log: options.on_log.clone(),
            on_tools_changed: options.on_tools_changed.clone(),
            log_taps: Default::default(),
            roots: options
                .roots
                .clone()
                .or_else(|| (!config.roots().is_empty()).then(|| config.roots().to_vec()))
                .map(std::sync::Mutex::new),
            server_requests: tokio::sync::Semaphore::new(max_server_requests),
            max_server_requests,
            watchers: Default::default(),
        });
        let wire = Wire {
            kind: resolved.transport.kind(),
            stderr: StderrTail::redacting(resolved.secrets.clone()),
            noise: StdoutNoise::redacting(resolved.secrets.clone()),
            shared,
            tap: Arc::new(RawTap::default()),
            conn: Mutex::new(None),
            reconnect: tokio::sync::Mutex::new(Reconnect::default()),
            attempts: AtomicU64::new(0),
            listing: tokio::sync::Mutex::new(()),
            closed: AtomicBool::new(false),
            drift: Mutex::new(DriftState {
                expected: options.fixture_hash.clone(),
                policy,
                drifted: None,
                shown_on_stderr: false,
            }),
            replay_safe: Mutex::new(None),
            #[cfg(feature = "oauth")]
            auth,
        };
        let inner = Session::assemble(config, resolved, options, wire);
        let router = Arc::downgrade(&inner.wire.shared);
        inner.wire.tap.set_progress_sink(Arc::new(move |params| {
            if let Some(shared) = router.upgrade() {
                shared.progress.dispatch(params);
            }
        }));
        if tokio::runtime::Handle::try_current().is_ok() {
            tokio::spawn(watch_list_changed(
                Arc::downgrade(&inner),
                inner.wire.shared.clone(),
            ));
        }
        Ok(Session { inner })
    }

    /// A session of the native wire: connected, unless the options say `lazy`.
    pub(in crate::session) async fn open(
        config: &ServerConfig,
        resolved: Resolved,
        options: ConnectOptions,
    ) -> Result<Session> {
        let lazy = options.lazy;
        let session = Self::new_unconnected(config, resolved, options)?;
        if !lazy {
            session.conn().await?;
        }
        Ok(session)
    }

    /// Whether [`Session::close`] was called.
    pub(in crate::session) fn is_closed(&self) -> bool {
        self.inner.wire.closed.load(Ordering::Acquire)
    }

    pub(in crate::session) fn current(&self) -> Option<Arc<Conn>> {
        self.inner.wire.conn.lock().ok().and_then(|c| c.clone())
    }

    pub(in crate::session) fn closed_error(&self) -> Error {
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
    pub(in crate::session) async fn conn(&self) -> Result<Arc<Conn>> {
        if self.inner.wire.closed.load(Ordering::Acquire) {
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
    pub(in crate::session) async fn reconnect(&self) -> Result<Arc<Conn>> {
        let seen = self.inner.wire.attempts.load(Ordering::Acquire);
        let mut state = self.inner.wire.reconnect.lock().await;
        if self.inner.wire.closed.load(Ordering::Acquire) {
            return Err(self.closed_error());
        }
        if let Some(c) = self.current().filter(|c| c.alive()) {
            return Ok(c);
        }
        if let Some((at, why)) = &state.last_failure {
            if self.inner.wire.attempts.load(Ordering::Acquire) != seen {
                return Err(Error::Transport {
                    server: self.inner.alias.clone(),
                    message: format!("reconnecting failed: {why}"),
                    stderr_tail: self.inner.wire.stderr.lines(),
                });
            }
            let backoff = backoff(state.failures);
            if let Some(wait) = backoff.checked_sub(at.elapsed()) {
                tokio::time::sleep(wait).await;
            }
        }
        let reconnecting = self.current().is_some();
        self.inner.wire.attempts.fetch_add(1, Ordering::AcqRel);
        match self.establish().await {
            Ok(conn) => {
                if reconnecting {
                    tracing::info!(server = %self.inner.alias, "reconnected");
                }
                state.failures = 0;
                state.last_failure = None;
                if let Ok(mut slot) = self.inner.wire.conn.lock() {
                    *slot = Some(conn.clone());
                }
                Ok(conn)
            }
            Err(e) => {
                let e = e.redacted(&self.inner.resolved.secrets);
                state.failures = state.failures.saturating_add(1);
                state.last_failure = Some((Instant::now(), e.to_string()));
                Err(e)
            }
        }
    }

    pub(in crate::session) fn connect_timeout(&self) -> Duration {
        let config = &self.inner.config;
        self.inner
            .options
            .connect_timeout
            .or(config.connect_timeout())
            .unwrap_or_else(|| {
                config
                    .timeout()
                    .unwrap_or(DEFAULT_CONNECT_TIMEOUT)
                    .max(DEFAULT_CONNECT_TIMEOUT)
            })
    }

    /// Closes the connection for good (stdio servers: stdin closed, then SIGTERM, then
    /// SIGKILL).
    pub(in crate::session) async fn wire_close(&self) -> Result<()> {
        self.inner.wire.closed.store(true, Ordering::Release);
        let _no_reconnect = self.inner.wire.reconnect.lock().await;
        let conn = self.inner.wire.conn.lock().ok().and_then(|mut c| c.take());
        if let Some(conn) = conn {
            conn.close().await;
        }
        // Lets the resource subscriptions see that the session is closed.
        self.inner.wire.shared.watchers.wake_all();
        Ok(())
    }
}

pub(in crate::session) fn backoff(failures: u32) -> Duration {
    if failures == 0 {
        return Duration::ZERO;
    }
    let exp = failures.saturating_sub(1).min(16);
    Duration::from_millis(100)
        .saturating_mul(1 << exp)
        .min(MAX_BACKOFF)
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
}
