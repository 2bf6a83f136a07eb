//! Resource subscriptions ([`Session::subscribe`]): `resources/subscribe` and
//! `notifications/resources/updated` on an `initialize` session (up to 2025-11-25), one
//! `subscriptions/listen` request per URI on a stateless one (2026-07-28 on); both become
//! a [`ResourceUpdates`] stream that reads the resource again on each update, subscribes
//! again after a reconnection, and unsubscribes when dropped.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams};

use super::Session;
use super::conn::Conn;
use super::notify::{Shared, forward_listen};
use crate::error::{Error, Result};
use crate::resource::ResourceContents;

/// How often a waiting [`ResourceUpdates`] looks whether its connection died (a dead
/// connection is started again, which subscribes again).
const LIVENESS_TICK: Duration = Duration::from_secs(1);

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
