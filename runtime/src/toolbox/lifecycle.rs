//! The toolbox's life: health checks, reconnecting, re-listing tools, connecting lazy
//! servers on first use, closing (explicitly, or when the last clone is dropped).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::Value;

use super::catalog::{Extras, Slot, Snapshot};
use super::extras;
use super::{
    EnvLookup, Inner, ReconnectReport, ServerState, ServerStatus, Toolbox, ToolboxOptions,
};
use crate::config::ServerConfig;
use crate::error::{Error, ErrorKind};
use crate::session::Session;

/// What [`Toolbox::refresh`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RefreshReport {
    /// Servers whose tool list changed: `(alias, tools before, tools after)`.
    pub changed: Vec<(String, usize, usize)>,
    /// Servers whose tool list could not be read, with the error (their tools stay).
    pub failed: Vec<(String, String)>,
}

impl Toolbox {
    /// Pings every connected server in parallel ([`Session::health`](crate::Session::health): short deadline, never
    /// reconnects), records the outcome as each server's state, and returns the statuses.
    /// Fakes are not pinged (they stay active).
    pub async fn check_health(&self) -> Vec<ServerStatus> {
        let snap = self.snapshot();
        let slots: Vec<&Arc<Slot>> = snap
            .slots
            .values()
            .filter(|s| s.session.is_some() && !s.is_fake())
            .collect();
        let checks = futures::future::join_all(slots.iter().map(|slot| async move {
            match &slot.session {
                Some(session) => Some(session.health().await),
                None => None,
            }
        }))
        .await;
        for (slot, health) in slots.iter().zip(checks) {
            match health {
                Some(h) if h.is_ok() => slot.set_health(ServerState::Active, None),
                Some(h) => {
                    let why = format!("health check: {h}");
                    tracing::warn!(server = %slot.config.alias(), "server unhealthy: {h}");
                    slot.set_health(ServerState::Failed, Some(why));
                }
                None => {}
            }
        }
        self.statuses()
    }

    /// Connects again the failed servers (`failed_only`) or all of them, in parallel, and
    /// re-exports the tools. A server that fails again keeps its previous session, if any.
    /// Fakes are left as they are (never connected).
    pub async fn reconnect(&self, failed_only: bool) -> ReconnectReport {
        let _one_at_a_time = self.inner.reconnecting.lock().await;
        let snap = self.snapshot();
        let targets: Vec<Arc<Slot>> = snap
            .slots
            .values()
            .filter(|s| !s.is_fake())
            .filter(|s| {
                !failed_only
                    || (s.session.is_none() && !s.lazy)
                    || s.health().0 == ServerState::Failed
            })
            .cloned()
            .collect();
        let lookup = self.inner.lookup.clone();
        let results = futures::future::join_all(targets.iter().map(|slot| {
            connect_one(
                &slot.config,
                &lookup,
                &self.inner.options,
                &self.inner.changed,
            )
        }))
        .await;
        let mut slots = snap.slots.clone();
        let mut report = ReconnectReport::default();
        for (slot, result) in targets.into_iter().zip(results) {
            let alias = slot.config.alias().to_string();
            match result {
                Ok((session, tools, extras)) => {
                    if let Some(old) = &slot.session {
                        let _ = old.close().await;
                    }
                    slot.set_health(ServerState::Active, None);
                    tracing::info!(server = %alias, tools = tools.len(), "server reconnected");
                    slots.insert(
                        alias.clone(),
                        Arc::new(slot.next(Some(session), tools).with_lists(extras)),
                    );
                    report.reconnected.push(alias);
                }
                Err(e) => {
                    let reason = e.to_string();
                    slot.set_health(ServerState::Failed, Some(reason.clone()));
                    tracing::warn!(server = %alias, reason = %reason, "reconnect failed");
                    report.failed.push((alias, reason));
                }
            }
        }
        self.replace(Snapshot::build(
            slots,
            snap.locals.clone(),
            &self.inner.options,
        ));
        report
    }

    /// Lists every connected server's tools again (`tools/list`; and its prompts and
    /// resources when they are exported as tools) and re-exports: the
    /// definitions, the exported names and the name map follow the servers. A server whose
    /// list cannot be read keeps its tools and is reported. A fake's tools are its
    /// compile-time definitions: nothing to re-list.
    pub async fn refresh(&self) -> RefreshReport {
        self.refresh_only(None).await
    }

    /// [`Toolbox::refresh`] of one server, or of all.
    async fn refresh_only(&self, only: Option<&str>) -> RefreshReport {
        let _one_at_a_time = self.inner.reconnecting.lock().await;
        let snap = self.snapshot();
        let connected: Vec<(&Arc<Slot>, crate::session::Session)> = snap
            .slots
            .values()
            .filter(|s| only.is_none_or(|a| a == s.config.alias()) && !s.is_fake())
            .filter_map(|s| s.session.clone().map(|session| (s, session)))
            .collect();
        let lists = futures::future::join_all(connected.iter().map(|(_, session)| async move {
            let tools = session.list_tools().await;
            (tools, extras::list(session, &self.inner.options).await)
        }))
        .await;
        let mut slots = snap.slots.clone();
        let mut report = RefreshReport::default();
        for ((slot, session), (list, extras)) in connected.into_iter().zip(lists) {
            let alias = slot.config.alias().to_string();
            match list {
                Ok(tools) => {
                    if tools != slot.tools {
                        tracing::info!(
                            server = %alias,
                            before = slot.tools.len(),
                            after = tools.len(),
                            "{} tools from {} (refreshed)",
                            tools.len(),
                            alias
                        );
                        report
                            .changed
                            .push((alias.clone(), slot.tools.len(), tools.len()));
                    }
                    slots.insert(
                        alias,
                        Arc::new(slot.next(Some(session), tools).with_lists(extras)),
                    );
                }
                Err(e) => {
                    tracing::warn!(server = %alias, error = %e, "cannot refresh the tool list");
                    report.failed.push((alias, e.to_string()));
                }
            }
        }
        self.replace(Snapshot::build(
            slots,
            snap.locals.clone(),
            &self.inner.options,
        ));
        report
    }

    /// Closes every server gracefully, in parallel (stdio: stdin closed, then SIGTERM, then
    /// SIGKILL; HTTP: the session is ended). Calls running at that moment end with an error
    /// saying the toolbox was closed; later calls are refused the same way. Idempotent;
    /// dropping the last clone of a toolbox inside a Tokio runtime does the same in the
    /// background.
    pub async fn close(&self) {
        if self.inner.closed.swap(true, Ordering::AcqRel) {
            return;
        }
        let snap = self.snapshot();
        close_sessions(&snap).await;
        tracing::info!(servers = snap.slots.len(), "toolbox closed");
    }

    /// Whether [`Toolbox::close`] was called.
    pub fn is_closed(&self) -> bool {
        self.inner.closed.load(Ordering::Acquire)
    }

    pub(super) fn closed_error(&self, exported: &str, during: bool) -> Error {
        Error::toolbox(
            ErrorKind::Unavailable,
            if during {
                format!("the toolbox was closed while {exported} ran; its result is lost")
            } else {
                format!("the toolbox is closed; {exported} cannot be called")
            },
        )
    }

    /// The session of a lazy server, connecting it first if needed (one connection however
    /// many calls wait for it).
    pub(super) async fn connect_lazy(&self, alias: &str) -> Result<Arc<Slot>, Error> {
        let slot = self.snapshot().slots.get(alias).cloned();
        let Some(slot) = slot else {
            return Err(Error::toolbox(
                ErrorKind::Unavailable,
                format!("server \"{alias}\" is not in the toolbox"),
            ));
        };
        if slot.is_fake() {
            // A fake answers in place of the server: nothing to connect.
            return Ok(slot);
        }
        let _connecting = slot.connecting.lock().await;
        // Connected by another call meanwhile?
        let snap = self.snapshot();
        if let Some(current) = snap.slots.get(alias)
            && current.session.is_some()
        {
            return Ok(current.clone());
        }
        tracing::info!(server = %alias, "connecting lazy server on its first call");
        let connected = connect_one(
            &slot.config,
            &self.inner.lookup,
            &self.inner.options,
            &self.inner.changed,
        )
        .await;
        match connected {
            Ok((session, tools, extras)) => {
                if self.is_closed() {
                    let _ = session.close().await;
                    return Err(self.closed_error(alias, false));
                }
                slot.set_health(ServerState::Active, None);
                tracing::info!(server = %alias, tools = tools.len(), "{} tools from {}", tools.len(), alias);
                let next = Arc::new(slot.next(Some(session), tools).with_lists(extras));
                let _one_at_a_time = self.inner.reconnecting.lock().await;
                let snap = self.snapshot();
                let mut slots = snap.slots.clone();
                slots.insert(alias.to_string(), next.clone());
                self.replace(Snapshot::build(
                    slots,
                    snap.locals.clone(),
                    &self.inner.options,
                ));
                Ok(next)
            }
            Err(e) => {
                slot.set_health(ServerState::Failed, Some(e.to_string()));
                Err(e.into_toolbox())
            }
        }
    }
}

/// Connects a server and lists its tools (and, when `options` asks, its prompts and
/// resources).
pub(super) async fn connect_one(
    cfg: &ServerConfig,
    lookup: &EnvLookup,
    options: &ToolboxOptions,
    changed: &ChangedTx,
) -> Result<(Session, Vec<Value>, Extras), Error> {
    let mut connect = options
        .connect_options
        .clone()
        .with_shared_env_lookup(lookup.clone());
    if options.refresh_on_list_changed {
        let changed = changed.clone();
        let alias = cfg.alias().to_string();
        connect = connect.on_tools_changed(move || {
            let _ = changed.send(alias.clone());
        });
    }
    let session = connect.connect(cfg).await?;
    match session.list_tools().await {
        Ok(tools) => {
            let extras = extras::list(&session, options).await;
            Ok((session, tools, extras))
        }
        Err(e) => {
            let _ = session.close().await;
            Err(e)
        }
    }
}

/// Where sessions report `tools/list_changed`: their alias.
pub(super) type ChangedTx = tokio::sync::mpsc::UnboundedSender<String>;

/// Refreshes a server's tools each time it reports `tools/list_changed`, for as long as the
/// toolbox lives.
pub(super) async fn follow_list_changes(
    toolbox: std::sync::Weak<Inner>,
    mut changes: tokio::sync::mpsc::UnboundedReceiver<String>,
) {
    while let Some(alias) = changes.recv().await {
        let Some(inner) = toolbox.upgrade() else {
            return;
        };
        let tb = Toolbox { inner, agent: None };
        if tb.is_closed() {
            return;
        }
        tracing::info!(server = %alias, "tools/list_changed: refreshing the server's tools");
        if let Ok(mut results) = tb.inner.results.lock() {
            results.retain(|(server, _, _), _| *server != alias);
        }
        tb.refresh_only(Some(&alias)).await;
    }
}

async fn close_sessions(snap: &Snapshot) {
    let sessions: Vec<crate::session::Session> = snap
        .slots
        .values()
        .filter_map(|s| s.session.clone())
        .collect();
    futures::future::join_all(sessions.iter().map(|s| s.close())).await;
}

impl Drop for Inner {
    /// The last clone is gone: close the servers gracefully in the background when a Tokio
    /// runtime is running (otherwise each session's own drop ends its server).
    fn drop(&mut self) {
        if self.closed.swap(true, Ordering::AcqRel) {
            return;
        }
        let snap = match self.state.read() {
            Ok(s) => s.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        };
        if snap.slots.values().all(|s| s.session.is_none()) {
            return;
        }
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            handle.spawn(async move { close_sessions(&snap).await });
        }
    }
}
