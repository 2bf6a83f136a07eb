//! The native wire's `tools/call`: reconnection, replay, the idle and total deadlines on one
//! timer, progress, cancellation, `input_required` rounds, and tasks made of direct calls.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::Duration;

use rmcp::model::ServerResult;
use rmcp::service::ServiceError;
use serde_json::Value;

use super::conn::Conn;
use super::{CallOptions, Encode, Session};
use crate::error::{Error, Result, excerpt};
use crate::output::{Content, ToolOutput};
use crate::protocol::Round;

/// How many `input_required` answers one call follows before it gives up.
const MAX_INPUT_ROUNDS: usize = 10;

/// What went wrong with one attempt of a call.
pub(in crate::session) enum CallFailure {
    /// The request never left (the transport was already closed): safe to send again.
    NotSent(Error),
    /// The connection died while the request was in flight.
    InFlight(Error),
    /// Anything else (timeout, protocol error, …): final.
    Final(Error),
}

impl Session {
    /// The wire's call: sends it and follows a task the server made of it.
    pub(in crate::session) async fn wire_call(
        &self,
        tool: &str,
        args: &dyn Encode,
        options: &CallOptions,
    ) -> Result<ToolOutput> {
        match self.start_call(tool, args, options).await? {
            Started::Done(output) => Ok(output),
            // A server of the tasks extension may run any call as a task: follow it.
            // Boxed, like every rare path of a call: a call's future carries (and moves, once
            // per call) the largest state of everything it awaits inline.
            Started::Task(task) => Box::pin(self.follow_task(tool, task, options)).await,
        }
    }

    /// Whether the server annotates `tool` `readOnlyHint` or `idempotentHint`.
    pub(in crate::session) async fn replay_safe(&self, tool: &str) -> bool {
        let known = self
            .inner
            .wire
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
        if let Ok(mut h) = self.inner.wire.replay_safe.lock() {
            *h = Some(hints);
        }
        safe
    }

    /// Sends a call (reconnecting, replaying as [`Session::call_with`] says) and returns the
    /// result, or the task the server made of the call (tasks extension).
    pub(in crate::session) async fn start_call(
        &self,
        tool: &str,
        args: &dyn Encode,
        options: &CallOptions,
    ) -> Result<Started> {
        // Encoded per attempt (a replay needs the arguments again) instead of cloning them.
        let mut arguments = Some(self.encode_arguments(tool, args)?);
        let (idle, total) = self.limits(tool, options);
        let (mut resent, mut replayed) = (false, false);
        loop {
            let drifted = self
                .inner
                .wire
                .drift
                .lock()
                .ok()
                .and_then(|d| d.drifted.clone());
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
                .call_once(&conn, tool, attempt, idle, total, options)
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

    pub(in crate::session) async fn call_once(
        &self,
        conn: &Conn,
        tool: &str,
        arguments: serde_json::Map<String, Value>,
        idle: Duration,
        total: Duration,
        options: &CallOptions,
    ) -> std::result::Result<Started, CallFailure> {
        // Only error messages name the request: built when one is needed.
        let what = || format!("tools/call \"{tool}\"");
        // The deadlines are ours (one timer, see below), not rmcp's: its per-request progress
        // watcher (a channel and two async lock round trips) and two boxed timers cost more
        // than the rest of the client's side of a small call.
        let started = tokio::time::Instant::now();
        // Protocol 2026-07-28: a server may answer `input_required`; the call is then sent
        // again (a new request id) with the answers and the server's state, up to
        // MAX_INPUT_ROUNDS times, under the same total deadline.
        let mut round: Option<Round> = None;
        for _ in 0..=MAX_INPUT_ROUNDS {
            let sent = conn.send_call(tool, &arguments, round.as_ref()).await;
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
                self.inner.wire.shared.progress.subscribe(token.clone(), f);
            }
            let guard = conn.cancel_guard(id, token, self.inner.wire.shared.clone());
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
                                .wire
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
                            Box::pin(guard.cancel(reason)).await;
                            return Err(CallFailure::Final(Error::Timeout {
                                server: self.inner.alias.clone(),
                                what: what(),
                                limit,
                                kind,
                                diagnosis: self.inner.wire.noise.summary(),
                            }));
                        }
                    }
                }
            };
            guard.disarm();
            return match response {
                Ok(ServerResult::CallToolResult(r)) => Ok(Started::Done(output_of(r))),
                Ok(ServerResult::CreateTaskResult(r)) => {
                    match self.checked_task_id(&what(), &r.task.task_id, false) {
                        Ok(_) => Ok(Started::Task(r.task)),
                        Err(e) => Err(CallFailure::Final(e)),
                    }
                }
                Ok(ServerResult::InputRequiredResult(r)) => {
                    round = Some(
                        Box::pin(self.answer_input_required(tool, r))
                            .await
                            .map_err(CallFailure::Final)?,
                    );
                    continue;
                }
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
            };
        }
        Err(CallFailure::Final(Error::Misbehaved {
            server: self.inner.alias.clone(),
            method: what(),
            message: format!(
                "the server still asked for input after {MAX_INPUT_ROUNDS} rounds of answers"
            ),
        }))
    }
}

/// What sending a call gave: its result, or a task that will produce it.
pub(in crate::session) enum Started {
    /// The server answered.
    Done(ToolOutput),
    /// The server runs the call as a task (tasks extension).
    Task(rmcp::model::Task),
}

/// A tool result as [`ToolOutput`].
pub(in crate::session) fn output_of(r: rmcp::model::CallToolResult) -> ToolOutput {
    ToolOutput {
        content: r
            .content
            .into_iter()
            .filter_map(Content::from_rmcp)
            .collect(),
        structured: r.structured_content,
        is_error: r.is_error.unwrap_or(false),
    }
}

/// `t + d`, or about 30 years after `t` when that overflows (like `tokio::time::sleep`).
pub(in crate::session) fn later(t: tokio::time::Instant, d: Duration) -> tokio::time::Instant {
    t.checked_add(d)
        .unwrap_or_else(|| t + Duration::from_secs(86400 * 365 * 30))
}
