//! What a server tells the client on its own: log messages (`notifications/message`, to
//! `tracing` and an optional callback) and tool-list changes (`notifications/tools/list_changed`
//! on an `initialize` session, or through a `subscriptions/listen` request on a stateless
//! one), which trigger the drift re-check; resource updates (`notifications/resources/updated`,
//! or through a `subscriptions/listen` request per URI), which wake the [`Watchers`]; and
//! [`Shared`], the state those notifications (and progress) reach, shared by the rmcp client
//! handler, the session and every reconnection.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::RoleClient;
use rmcp::model::{ServerNotification, SubscriptionFilter};
use serde_json::Value;

use super::progress::ProgressRouter;

/// State the rmcp client handler shares with its session (and every reconnection).
pub(in crate::session) struct Shared {
    pub(in crate::session) alias: Arc<str>,
    pub(in crate::session) progress: ProgressRouter,
    /// Woken by `tools/list_changed` (and when the session is dropped).
    pub(in crate::session) list_changed: tokio::sync::Notify,
    /// The application's receiver of server log messages.
    pub(in crate::session) on_log: Option<LogFn>,
    /// The running call streams' receivers of server log messages.
    pub(in crate::session) log_taps: LogTaps,
    /// The application's receiver of `tools/list_changed`.
    pub(in crate::session) on_tools_changed: Option<ToolsChangedFn>,
    /// The roots the client offers (`None`: the `roots` capability is not declared).
    pub(in crate::session) roots: Option<std::sync::Mutex<Vec<crate::root::Root>>>,
    /// Requests from the server (sampling, elicitation, `roots/list`) answered at once: one
    /// permit each, [`Shared::max_server_requests`] in all.
    pub(in crate::session) server_requests: tokio::sync::Semaphore,
    pub(in crate::session) max_server_requests: usize,
    /// The resource subscriptions ([`Session::subscribe`](crate::Session::subscribe)).
    pub(in crate::session) watchers: Watchers,
}

/// A receiver of `tools/list_changed` ([`ConnectOptions::on_tools_changed`]).
///
/// [`ConnectOptions::on_tools_changed`]: super::ConnectOptions::on_tools_changed
pub(in crate::session) type ToolsChangedFn = Arc<dyn Fn() + Send + Sync>;

/// A log message a server sent (`notifications/message`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ServerLog {
    /// The server's alias.
    pub server: String,
    /// The syslog level the server gave: `debug`, `info`, `notice`, `warning`, `error`,
    /// `critical`, `alert` or `emergency`.
    pub level: String,
    /// The logger's name, when the server gave one.
    pub logger: Option<String>,
    /// The message (any JSON; often a string).
    pub data: Value,
}

/// Receives every [`ServerLog`] of a session.
pub(in crate::session) type LogFn = Arc<dyn Fn(ServerLog) + Send + Sync>;

/// Receives the [`ServerLog`]s that arrive while it is registered.
pub(in crate::session) type LogTapFn = Arc<dyn Fn(&ServerLog) + Send + Sync>;

/// The session's temporary log receivers (one per running [`Session::call_stream`]).
///
/// [`Session::call_stream`]: crate::Session::call_stream
#[derive(Default)]
pub(in crate::session) struct LogTaps {
    next: AtomicU64,
    /// Whether any tap is registered (the fast path of a log message is one load).
    any: AtomicBool,
    taps: Mutex<Vec<(u64, LogTapFn)>>,
}

impl LogTaps {
    /// Registers `f` until the returned guard is dropped.
    pub(in crate::session) fn add(shared: &Arc<Shared>, f: LogTapFn) -> LogTap {
        let id = shared.log_taps.next.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut taps) = shared.log_taps.taps.lock() {
            taps.push((id, f));
            shared.log_taps.any.store(true, Ordering::Release);
        }
        LogTap {
            shared: shared.clone(),
            id,
        }
    }

    /// The registered receivers, cloned so that none runs under the lock.
    fn current(&self) -> Vec<LogTapFn> {
        if !self.any.load(Ordering::Acquire) {
            return Vec::new();
        }
        self.taps
            .lock()
            .map(|taps| taps.iter().map(|(_, f)| f.clone()).collect())
            .unwrap_or_default()
    }
}

/// Unregisters its log receiver when dropped.
pub(in crate::session) struct LogTap {
    shared: Arc<Shared>,
    id: u64,
}

impl Drop for LogTap {
    fn drop(&mut self) {
        let taps = &self.shared.log_taps;
        if let Ok(mut list) = taps.taps.lock() {
            list.retain(|(id, _)| *id != self.id);
            taps.any.store(!list.is_empty(), Ordering::Release);
        }
    }
}

/// Forwards a server's log message to `tracing` (target `mcp_bindgen::server_log`, at the
/// server's level), to the running call streams and to the application's callback.
#[allow(deprecated)] // Logging is deprecated by protocol 2026-07-28; servers still send it.
pub(in crate::session) fn server_log(
    shared: &Shared,
    params: rmcp::model::LoggingMessageNotificationParam,
) {
    use rmcp::model::LoggingLevel as L;
    let level = serde_json::to_value(params.level)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "info".into());
    let server = &*shared.alias;
    let logger = params.logger.as_deref().unwrap_or("");
    let data = &params.data;
    match params.level {
        L::Debug => {
            tracing::debug!(target: "mcp_bindgen::server_log", server, logger, %data, "server log")
        }
        L::Info | L::Notice => {
            tracing::info!(target: "mcp_bindgen::server_log", server, logger, %data, "server log")
        }
        L::Warning => {
            tracing::warn!(target: "mcp_bindgen::server_log", server, logger, %data, "server log")
        }
        _ => {
            tracing::error!(target: "mcp_bindgen::server_log", server, logger, %data, level, "server log")
        }
    }
    let taps = shared.log_taps.current();
    if taps.is_empty() && shared.on_log.is_none() {
        return;
    }
    let log = ServerLog {
        server: server.to_string(),
        level,
        logger: params.logger,
        data: params.data,
    };
    for tap in &taps {
        tap(&log);
    }
    if let Some(f) = &shared.on_log {
        f(log);
    }
}

/// How long closing a connection waits for its `subscriptions/listen` request to be
/// cancelled on the wire.
const LISTEN_END_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// A connection's open `subscriptions/listen` request.
pub(in crate::session) struct Listening {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl Listening {
    /// Cancels the request (`notifications/cancelled`) before the connection closes: a
    /// server waits for its open requests when its input ends (rmcp servers for 5 s), so a
    /// request left open would hold a stdio server past its stdin's end until SIGTERM.
    pub(in crate::session) async fn end(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let _ = tokio::time::timeout(LISTEN_END_WAIT, &mut self.task).await;
    }
}

/// On a stateless session whose server announces tool-list changes: keeps a
/// `subscriptions/listen` request open and wakes the drift re-check on each change, until
/// the connection ends or [`Listening::end`].
pub(in crate::session) fn listen_for_tool_changes(
    peer: rmcp::Peer<RoleClient>,
    shared: Arc<Shared>,
) -> Option<Listening> {
    let rt = tokio::runtime::Handle::try_current().ok()?;
    let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
    let task = rt.spawn(async move {
        let filter = SubscriptionFilter::builder().tools_list_changed().build();
        let subscription = tokio::select! {
            listening = peer.listen(filter) => match listening {
                Ok(s) => s,
                Err(e) => {
                    tracing::debug!(server = %shared.alias, "subscriptions/listen failed: {e}");
                    return;
                }
            },
            // Dropping the pending request cancels it.
            _ = &mut stopped => return,
        };
        deliver(subscription, &shared, stopped).await;
    });
    Some(Listening {
        stop: Some(stop),
        task,
    })
}

/// Delivers what an acknowledged `subscriptions/listen` request carries (resource updates,
/// tool-list changes), until the connection ends or [`Listening::end`].
pub(in crate::session) fn forward_listen(
    subscription: rmcp::service::Subscription,
    shared: Arc<Shared>,
) -> Option<Listening> {
    let rt = tokio::runtime::Handle::try_current().ok()?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = rt.spawn(async move { deliver(subscription, &shared, stopped).await });
    Some(Listening {
        stop: Some(stop),
        task,
    })
}

/// The loop of one `subscriptions/listen` request: each notification to whom it concerns;
/// `stopped` (sent, or its sender dropped) cancels the request.
async fn deliver(
    mut subscription: rmcp::service::Subscription,
    shared: &Shared,
    mut stopped: tokio::sync::oneshot::Receiver<()>,
) {
    loop {
        tokio::select! {
            next = subscription.next() => match next {
                Ok(Some(ServerNotification::ToolListChangedNotification(_))) => {
                    tracing::info!(server = %shared.alias, "server reported tools/list_changed");
                    shared.list_changed.notify_one();
                }
                Ok(Some(ServerNotification::ResourceUpdatedNotification(n))) => {
                    shared.watchers.wake(&n.params.uri);
                }
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => return,
            },
            _ = &mut stopped => {
                let _ = subscription.cancel().await;
                return;
            }
        }
    }
}

/// The session's resource subscriptions ([`Session::subscribe`](crate::Session::subscribe)):
/// which URIs are watched, and whom an update wakes.
#[derive(Default)]
pub(in crate::session) struct Watchers {
    next: AtomicU64,
    list: Mutex<Vec<Watcher>>,
}

struct Watcher {
    id: u64,
    uri: Arc<str>,
    wake: Arc<tokio::sync::Notify>,
}

impl Watchers {
    pub(in crate::session) fn add(&self, uri: &str) -> (u64, Arc<tokio::sync::Notify>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let wake = Arc::new(tokio::sync::Notify::new());
        if let Ok(mut list) = self.list.lock() {
            list.push(Watcher {
                id,
                uri: uri.into(),
                wake: wake.clone(),
            });
        }
        (id, wake)
    }

    /// Removes watcher `id`; whether another one still watches `uri`.
    pub(in crate::session) fn remove(&self, id: u64, uri: &str) -> bool {
        let Ok(mut list) = self.list.lock() else {
            return true;
        };
        list.retain(|w| w.id != id);
        list.iter().any(|w| &*w.uri == uri)
    }

    /// Wakes the watchers of `uri` (an update while a watcher reads is kept for its next
    /// wait: updates coalesce into one read).
    pub(in crate::session) fn wake(&self, uri: &str) {
        if let Ok(list) = self.list.lock() {
            for w in list.iter().filter(|w| &*w.uri == uri) {
                w.wake.notify_one();
            }
        }
    }

    /// Wakes every watcher (after a reconnection, or when the session closes).
    pub(in crate::session) fn wake_all(&self) {
        if let Ok(list) = self.list.lock() {
            for w in list.iter() {
                w.wake.notify_one();
            }
        }
    }

    /// The watched URIs, each once.
    pub(in crate::session) fn uris(&self) -> Vec<Arc<str>> {
        let mut uris: Vec<Arc<str>> = self
            .list
            .lock()
            .map(|l| l.iter().map(|w| w.uri.clone()).collect())
            .unwrap_or_default();
        uris.sort();
        uris.dedup();
        uris
    }
}

/// A connection's open `subscriptions/listen` requests for resource updates, one per URI
/// (stateless sessions).
#[derive(Default)]
pub(in crate::session) struct ResourceListens(Mutex<HashMap<Arc<str>, Listening>>);

impl ResourceListens {
    pub(in crate::session) fn has(&self, uri: &str) -> bool {
        self.0.lock().map(|l| l.contains_key(uri)).unwrap_or(false)
    }

    pub(in crate::session) fn insert(&self, uri: Arc<str>, listening: Listening) {
        if let Ok(mut l) = self.0.lock() {
            l.insert(uri, listening);
        }
    }

    pub(in crate::session) fn take(&self, uri: &str) -> Option<Listening> {
        self.0.lock().ok().and_then(|mut l| l.remove(uri))
    }

    /// Every open request, for the connection's close.
    pub(in crate::session) fn take_all(&self) -> Vec<Listening> {
        self.0
            .lock()
            .map(|mut l| l.drain().map(|(_, v)| v).collect())
            .unwrap_or_default()
    }
}
