//! Resource subscriptions ([`Session::subscribe`]): `resources/subscribe` and
//! `notifications/resources/updated` on an `initialize` session (up to 2025-11-25), one
//! `subscriptions/listen` request per URI on a stateless one (2026-07-28 on); both become
//! a [`ResourceUpdates`] stream that reads the resource again on each update, subscribes
//! again after a reconnection, and unsubscribes when dropped.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams};

use super::Session;
use super::conn::Conn;
use super::notify::{Listening, Shared, forward_listen};
use crate::error::{Error, Result};
use crate::resource::ResourceContents;

/// How often a waiting [`ResourceUpdates`] looks whether its connection died (a dead
/// connection is started again, which subscribes again).
const LIVENESS_TICK: Duration = Duration::from_secs(1);

/// The session's resource subscriptions: which URIs are watched, and whom an update wakes.
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
    fn add(&self, uri: &str) -> (u64, Arc<tokio::sync::Notify>) {
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
    fn remove(&self, id: u64, uri: &str) -> bool {
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
    fn uris(&self) -> Vec<Arc<str>> {
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
    fn has(&self, uri: &str) -> bool {
        self.0.lock().map(|l| l.contains_key(uri)).unwrap_or(false)
    }

    fn insert(&self, uri: Arc<str>, listening: Listening) {
        if let Ok(mut l) = self.0.lock() {
            l.insert(uri, listening);
        }
    }

    fn take(&self, uri: &str) -> Option<Listening> {
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

/// The updates of one resource ([`Session::subscribe`]): the first item is the resource as
/// read right after the subscription started, then one item per
/// `notifications/resources/updated` (updates that arrive while the resource is being read
/// are coalesced into the next read), and one after each reconnection (the resource may
/// have changed meanwhile).
///
/// An item is an error when the read failed (or reconnecting did); the stream goes on, and
/// the next item tries again. It ends (`None`) when the session is closed
/// ([`Session::close`]). Dropping it unsubscribes (`resources/unsubscribe`, or the
/// `subscriptions/listen` request cancelled), unless another `ResourceUpdates` of the same
/// session watches the same URI. It holds its session: the connection stays open while it
/// lives.
///
/// ```no_run
/// # async fn run(session: mcp_bindgen::Session) -> mcp_bindgen::Result<()> {
/// let mut updates = session.subscribe("demo://notes/groceries").await?;
/// while let Some(contents) = updates.next().await {
///     println!("{}", contents?.text().unwrap_or_default());
/// }
/// # Ok(())
/// # }
/// ```
pub struct ResourceUpdates {
    session: Session,
    uri: Arc<str>,
    id: u64,
    wake: Arc<tokio::sync::Notify>,
    /// Whether the first item (the read at subscription) was given.
    started: bool,
}

impl std::fmt::Debug for ResourceUpdates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceUpdates")
            .field("server", &self.session.alias())
            .field("uri", &self.uri)
            .finish_non_exhaustive()
    }
}

impl ResourceUpdates {
    /// The subscribed resource's URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The resource as read now: at once for the first item, then after the next update
    /// (or reconnection). `None` once the session is closed.
    pub async fn next(&mut self) -> Option<Result<ResourceContents>> {
        if self.started {
            loop {
                if self.session.is_closed() {
                    return None;
                }
                tokio::select! {
                    () = self.wake.notified() => break,
                    () = tokio::time::sleep(LIVENESS_TICK) => {
                        if self.session.current().is_some_and(|c| c.alive()) {
                            continue;
                        }
                        // Connecting again subscribes again and wakes this stream.
                        if let Err(e) = self.session.conn().await {
                            return (!self.session.is_closed()).then_some(Err(e));
                        }
                    }
                }
            }
            if self.session.is_closed() {
                return None;
            }
        }
        self.started = true;
        Some(self.session.read(&self.uri).await)
    }

    /// The updates as a [`futures::Stream`].
    pub fn into_stream(self) -> impl futures::Stream<Item = Result<ResourceContents>> + Send {
        futures::stream::unfold(self, |mut updates| async move {
            let item = updates.next().await?;
            Some((item, updates))
        })
    }
}

impl Drop for ResourceUpdates {
    fn drop(&mut self) {
        let shared = &self.session.inner.wire.shared;
        if shared.watchers.remove(self.id, &self.uri) {
            return;
        }
        let Some(conn) = self.session.current().filter(|c| c.alive()) else {
            return;
        };
        if conn.stateless {
            // Dropping the request's task handle ends it (`notifications/cancelled`).
            drop(conn.resource_listens.take(&self.uri));
            return;
        }
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let uri = self.uri.to_string();
        let server = self.session.alias().to_string();
        rt.spawn(async move {
            #[allow(deprecated)] // Legacy-only by name: the revisions with `initialize` have it.
            let sent = conn
                .peer
                .unsubscribe(UnsubscribeRequestParams::new(uri.clone()))
                .await;
            if let Err(e) = sent {
                tracing::debug!(server, uri, "resources/unsubscribe failed: {e}");
            }
        });
    }
}

impl Session {
    /// Subscribes to the resource at `uri`: a stream of its contents, read again each time
    /// the server says it changed ([`ResourceUpdates`]). Fails when the server did not
    /// declare `resources.subscribe` or refused the subscription.
    pub async fn subscribe(&self, uri: &str) -> Result<ResourceUpdates> {
        let conn = self.conn().await?;
        let offers = conn
            .peer
            .peer_info()
            .and_then(|i| i.capabilities.resources.as_ref().and_then(|r| r.subscribe))
            == Some(true);
        if !offers {
            return Err(Error::Protocol {
                server: self.inner.alias.clone(),
                method: format!("resources/subscribe \"{uri}\""),
                code: rmcp::model::ErrorCode::METHOD_NOT_FOUND.0,
                message: "the server does not offer resource subscriptions (its `resources` capability has no `subscribe: true`); read the resource with Session::read instead".into(),
            });
        }
        let shared = &self.inner.wire.shared;
        let (id, wake) = shared.watchers.add(uri);
        let updates = ResourceUpdates {
            session: self.clone(),
            uri: uri.into(),
            id,
            wake,
            started: false,
        };
        // Dropping `updates` on failure unregisters it (and unsubscribes, were it the last).
        self.subscribe_on(&conn, &updates.uri).await?;
        Ok(updates)
    }

    /// Subscribes to `uri` on `conn`: `resources/subscribe`, or a `subscriptions/listen`
    /// request for it (one per URI and connection).
    async fn subscribe_on(&self, conn: &Conn, uri: &Arc<str>) -> Result<()> {
        let what = format!("resources/subscribe \"{uri}\"");
        if !conn.stateless {
            #[allow(deprecated)] // Legacy-only by name: the revisions with `initialize` have it.
            let subscribing = conn
                .peer
                .subscribe(SubscribeRequestParams::new(uri.to_string()));
            return self.with_deadline(conn, &what, subscribing).await;
        }
        if conn.resource_listens.has(uri) {
            return Ok(());
        }
        let what = format!("subscriptions/listen for \"{uri}\"");
        let filter = SubscriptionFilter::builder()
            .resource_subscription(uri.to_string())
            .build();
        let subscription = self
            .with_deadline(conn, &what, conn.peer.listen(filter))
            .await?;
        let accepted = subscription
            .acknowledged()
            .resource_subscriptions
            .as_ref()
            .is_some_and(|uris| uris.iter().any(|u| **u == **uri));
        if !accepted {
            return Err(Error::Misbehaved {
                server: self.inner.alias.clone(),
                method: what,
                message: "the server acknowledged the request without the resource: it will not send its updates".into(),
            });
        }
        if let Some(listening) = forward_listen(subscription, self.inner.wire.shared.clone()) {
            conn.resource_listens.insert(uri.clone(), listening);
        }
        Ok(())
    }

    /// On a new connection: subscribes again to every watched URI (a failure is logged; the
    /// watchers read again anyway) and wakes the watchers, whose resources may have changed
    /// while no connection listened.
    pub(in crate::session) async fn resubscribe(&self, conn: &Conn) {
        let shared: &Arc<Shared> = &self.inner.wire.shared;
        let uris = shared.watchers.uris();
        if uris.is_empty() {
            return;
        }
        for uri in &uris {
            if let Err(e) = self.subscribe_on(conn, uri).await {
                tracing::warn!(server = %self.inner.alias, uri = &**uri, "subscribing again after reconnecting failed: {e}");
            }
        }
        shared.watchers.wake_all();
    }
}
