//! Drift as a guard over the connection: the live `tools/list` against the fixture's hash,
//! checked at connect, on every reconnection and on `tools/list_changed`.

use std::sync::{Arc, Weak};

use serde_json::Value;

use super::notify::Shared;
use super::{Inner, Session};
use crate::drift::{self, DriftPolicy};
use crate::error::{Error, Result};

#[derive(Default)]
pub(in crate::session) struct DriftState {
    pub(in crate::session) expected: Option<String>,
    pub(in crate::session) policy: DriftPolicy,
    /// With policy `error`: why calls are refused.
    pub(in crate::session) drifted: Option<String>,
    /// A drift warning reached stderr already (shown once per session when the program has
    /// no `tracing` subscriber).
    pub(in crate::session) shown_on_stderr: bool,
}

impl Session {
    /// The wire's drift check: the expectation is kept for re-checks.
    pub(in crate::session) async fn wire_check_drift(
        &self,
        expected_hash: &str,
        policy: DriftPolicy,
    ) -> Result<bool> {
        if let Ok(mut d) = self.inner.wire.drift.lock() {
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

    pub(in crate::session) fn apply_drift(
        &self,
        expected: &str,
        policy: DriftPolicy,
        tools: &[Value],
    ) -> Result<bool> {
        let live = drift::tools_hash(tools);
        let drifted = live != expected;
        let summary = drifted.then(|| self.drift_summary(expected, &live, tools));
        if let Ok(mut d) = self.inner.wire.drift.lock() {
            d.drifted = match policy {
                DriftPolicy::Error => summary.clone(),
                _ => None,
            };
        }
        match (summary, policy) {
            (None, _) | (_, DriftPolicy::Ignore) => Ok(false),
            (Some(summary), DriftPolicy::Warn) => {
                let fix = mcp_bindgen_core::project::either_command(&format!(
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
                    .wire
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
    pub(in crate::session) async fn recheck_drift(&self) {
        let (expected, policy) = match self.inner.wire.drift.lock() {
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
        drop(self.inner.wire.reconnect.lock().await);
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
}

/// Re-checks drift whenever the server reports `tools/list_changed`; ends with the session.
pub(in crate::session) async fn watch_list_changed(session: Weak<Inner>, shared: Arc<Shared>) {
    loop {
        shared.list_changed.notified().await;
        let Some(inner) = session.upgrade() else {
            return;
        };
        Session { inner }.recheck_drift().await;
    }
}
