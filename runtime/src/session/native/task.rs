//! The native wire's tasks (the `io.modelcontextprotocol/tasks` extension): polling
//! `tasks/get` at the server's interval, `tasks/update` answers, `tasks/cancel`, and the
//! task augmentation of protocol 2025-11-25.

use std::time::Duration;

use rmcp::model::{CancelTaskParams, GetTaskParams, Task, TaskPayload, UpdateTaskParams};
use serde_json::Value;

use super::call::{Started, later, output_of};
use super::{CallOptions, Encode, Session};
use crate::error::{Error, Result};
use crate::output::{TaskState, ToolOutput};
use crate::session::task::{Handle, TaskHandle};

/// A task that did not change for the call's idle deadline.
pub(in crate::session) struct Stalled;

/// Cancels a task (`tasks/cancel`, on a spawned task) when dropped armed: a caller that
/// stops waiting for a task does not leave it running on the server.
struct CancelTaskOnDrop {
    session: Option<Session>,
    id: String,
    /// A task of protocol 2025-11-25 (cancelled with a plain `tasks/cancel` request).
    augmented: bool,
}

impl Drop for CancelTaskOnDrop {
    fn drop(&mut self) {
        let Some(session) = self.session.take() else {
            return;
        };
        let id = std::mem::take(&mut self.id);
        let augmented = self.augmented;
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                let cancelled = if augmented {
                    session
                        .custom_request("tasks/cancel", task_id(&id))
                        .await
                        .map(drop)
                } else {
                    session.cancel_task(&id).await
                };
                if let Err(e) = cancelled {
                    tracing::debug!(
                        server = session.alias(),
                        "cancelling an abandoned task failed: {e}"
                    );
                }
            });
        }
    }
}

/// The polling interval when the server names none.
const DEFAULT_POLL: Duration = Duration::from_millis(500);
/// Bounds on the server's interval (a zero or huge value is not honoured as such).
const POLL_BOUNDS: (Duration, Duration) = (Duration::from_millis(100), Duration::from_secs(30));
/// The longest task id a server may name (an opaque handle: a UUID has 36 bytes). A longer
/// one is refused, so [`TaskHandle::id`] and every message that names a task stay small.
pub(in crate::session) const MAX_TASK_ID_BYTES: usize = 1024;

impl Session {
    /// `id` when it is a task id this client keeps, else [`Error::Misbehaved`] (and the
    /// task, which the server started, is cancelled). `augmented`: a task of protocol
    /// 2025-11-25.
    pub(in crate::session) fn checked_task_id<'i>(
        &self,
        method: &str,
        id: &'i str,
        augmented: bool,
    ) -> Result<&'i str> {
        if id.len() <= MAX_TASK_ID_BYTES {
            return Ok(id);
        }
        drop(CancelTaskOnDrop {
            session: Some(self.clone()),
            id: id.to_string(),
            augmented,
        });
        Err(Error::Misbehaved {
            server: self.inner.alias.clone(),
            method: method.to_string(),
            message: format!(
                "the server named its task with an id of {} bytes (\"{}\"); a task id may have at most {MAX_TASK_ID_BYTES}",
                id.len(),
                mcp_bindgen_core::schema::truncate(id, 80)
            ),
        })
    }
}

impl<O> TaskHandle<O> {
    /// [`TaskHandle::status`] of a live server's call: one `tasks/get`.
    pub(in crate::session) async fn status_on_server(&self) -> Result<TaskState> {
        match &self.inner {
            Handle::Live {
                session,
                task: Some(task),
                ..
            } => session.task_status(&task.task_id).await,
            Handle::Augmented { session, id, .. } => {
                let task = session.custom_request("tasks/get", task_id(id)).await?;
                Ok(augmented_state(&task))
            }
            _ => Ok(TaskState::Completed),
        }
    }

    /// [`TaskHandle::cancel`] of a live server's task: `tasks/cancel`.
    pub(in crate::session) async fn cancel_on_server(&mut self) -> Result<()> {
        match &self.inner {
            Handle::Live {
                session,
                task: Some(task),
                ..
            } => session.cancel_task(&task.task_id).await,
            Handle::Augmented { session, id, .. } => session
                .custom_request("tasks/cancel", task_id(id))
                .await
                .map(drop),
            _ => Ok(()),
        }
    }

    /// [`TaskHandle::wait`] on a live server's task.
    pub(in crate::session) async fn wait_on_server(mut self) -> Result<O> {
        let tool = std::mem::take(&mut self.tool);
        let (session, task, done, decode) = match &mut self.inner {
            // `TaskHandle::wait` answers a ready handle itself.
            Handle::Ready { server, .. } => {
                return Err(Error::Misbehaved {
                    server: server.clone(),
                    method: format!("tools/call \"{tool}\""),
                    message: "the task handle holds no task".into(),
                });
            }
            Handle::Augmented {
                session,
                id,
                poll,
                decode,
                limits,
            } => {
                let (session, id, poll, decode) = (session.clone(), id.clone(), *poll, *decode);
                let result = session.await_augmented(&tool, &id, poll, *limits).await;
                self.finished = true;
                return decode(&session, &tool, result?);
            }
            Handle::Live {
                session,
                task,
                done,
                decode,
                limits,
            } => (
                session.clone(),
                task.take(),
                done.take(),
                (*decode, *limits),
            ),
        };
        let (decode, limits) = decode;
        let output = match (done, task) {
            (Some(output), _) => output,
            (None, Some(task)) => {
                // Cancelled on the server if this wait is dropped or runs out of time.
                let result = session.follow_within(&tool, task, limits).await;
                self.finished = true;
                result?
            }
            (None, None) => unreachable_state(&session, &tool)?,
        };
        self.finished = true;
        decode(&session, &tool, output)
    }
}

fn unreachable_state(session: &Session, tool: &str) -> Result<ToolOutput> {
    Err(Error::Misbehaved {
        server: session.alias().to_string(),
        method: format!("tools/call \"{tool}\""),
        message: "the task handle holds neither a task nor a result".into(),
    })
}

impl<O> TaskHandle<O> {
    /// Cancels an unfinished task on the server when its handle is dropped.
    pub(in crate::session) fn cancel_on_drop(&mut self) {
        if self.finished {
            return;
        }
        let augmented = matches!(self.inner, Handle::Augmented { .. });
        let (session, id) = match &mut self.inner {
            Handle::Live { session, task, .. } => match task.take() {
                Some(task) => (session.clone(), task.task_id),
                None => return,
            },
            Handle::Augmented { session, id, .. } => (session.clone(), std::mem::take(id)),
            Handle::Ready { .. } => return,
        };
        // The guard sends `tasks/cancel` (on a spawned task) as it is dropped.
        drop(CancelTaskOnDrop {
            session: Some(session),
            id,
            augmented,
        });
    }
}

impl Session {
    /// The wire's task call: a task of either revision, or the direct answer.
    pub(in crate::session) async fn wire_task<O>(
        &self,
        tool: &str,
        args: &dyn Encode,
        options: CallOptions,
        decode: fn(&Session, &str, ToolOutput) -> Result<O>,
    ) -> Result<TaskHandle<O>> {
        if !self.conn().await?.stateless {
            return self
                .augmented_task(tool, args, decode, self.limits(tool, &options))
                .await;
        }
        let (task, done) = match self.start_call(tool, args, &options).await? {
            Started::Done(output) => (None, Some(output)),
            Started::Task(task) => (Some(task), None),
        };
        Ok(TaskHandle {
            inner: Handle::Live {
                session: self.clone(),
                task,
                done,
                decode,
                limits: self.limits(tool, &options),
            },
            tool: tool.to_string(),
            finished: false,
        })
    }

    /// Where the task `id` stands (one `tasks/get`), for a task id kept from
    /// [`TaskHandle::id`].
    pub async fn task_status(&self, id: &str) -> Result<TaskState> {
        let (task, payload) = self.get_task(id).await?;
        Ok(match payload {
            TaskPayload::Working => TaskState::Working(task.status_message),
            TaskPayload::InputRequired { .. } => TaskState::InputRequired,
            TaskPayload::Completed { .. } => TaskState::Completed,
            TaskPayload::Failed { .. } => TaskState::Failed,
            _ => TaskState::Cancelled,
        })
    }

    /// Follows a task the server made of a direct call, under the call's deadlines.
    pub(in crate::session) async fn follow_task(
        &self,
        tool: &str,
        task: Task,
        options: &CallOptions,
    ) -> Result<ToolOutput> {
        self.follow_within(tool, task, self.limits(tool, options))
            .await
    }

    /// Follows a task to its end under a call's deadlines: `idle` since the task last
    /// changed (its status, status message or update time), `total` in all. Past either,
    /// the task is cancelled (`tasks/cancel`, once) and the call is [`Error::Timeout`]; a
    /// caller that stops waiting (drops this future) cancels it too.
    pub(in crate::session) async fn follow_within(
        &self,
        tool: &str,
        task: Task,
        (idle, total): (Duration, Duration),
    ) -> Result<ToolOutput> {
        let id = task.task_id.clone();
        let mut guard = CancelTaskOnDrop {
            session: Some(self.clone()),
            id: id.clone(),
            augmented: false,
        };
        let timeout = |limit, kind| Error::Timeout {
            server: self.inner.alias.clone(),
            what: format!(
                "tools/call \"{tool}\" (task {})",
                mcp_bindgen_core::schema::truncate(&id, 80)
            ),
            limit,
            kind,
            diagnosis: None,
        };
        let result = match tokio::time::timeout(total, self.poll_task(tool, task, idle)).await {
            Ok(Err(Stalled)) => Err(timeout(idle, "idle timeout")),
            Ok(Ok(result)) => {
                // The task ended (done, failed or cancelled by the server): nothing to cancel.
                guard.session = None;
                return result;
            }
            Err(_) => Err(timeout(total, "total timeout")),
        };
        guard.session = None;
        let _ = self.cancel_task(&id).await;
        result
    }

    /// Polls a task until it ends (its result as a [`ToolOutput`], or the error it ended
    /// with), or until it has not changed for `idle` ([`Stalled`]). The server's interval is
    /// honoured within [`POLL_BOUNDS`].
    pub(in crate::session) async fn poll_task(
        &self,
        tool: &str,
        task: Task,
        idle: Duration,
    ) -> std::result::Result<Result<ToolOutput>, Stalled> {
        let id = task.task_id.clone();
        let mut interval = poll_interval(&task);
        let mut seen = (task.status, task.status_message, task.last_updated_at);
        let mut changed = tokio::time::Instant::now();
        loop {
            tokio::time::sleep(interval).await;
            let (task, payload) = match self.get_task(&id).await {
                Ok(answer) => answer,
                Err(e) => return Ok(Err(e)),
            };
            if task.task_id != id {
                return Ok(Err(self.task_error(
                    tool,
                    &id,
                    0,
                    format!(
                        "was answered by tasks/get with another task ({})",
                        mcp_bindgen_core::schema::truncate(&task.task_id, 80)
                    ),
                )));
            }
            interval = poll_interval(&task);
            let now = (
                task.status,
                task.status_message.clone(),
                task.last_updated_at.clone(),
            );
            if now != seen {
                seen = now;
                changed = tokio::time::Instant::now();
            }
            match payload {
                TaskPayload::Working => {}
                TaskPayload::InputRequired { input_requests } => {
                    let result = rmcp::model::InputRequiredResult::new(Some(input_requests), None);
                    let answered = async {
                        let round = self.answer_input_required(tool, result).await?;
                        let responses = round.input_responses.unwrap_or_default();
                        let conn = self.conn().await?;
                        let update =
                            UpdateTaskParams::new(id.clone(), responses.into_iter().collect());
                        self.with_deadline(&conn, "tasks/update", conn.peer.update_task(update))
                            .await
                    };
                    if let Err(e) = answered.await {
                        return Ok(Err(e));
                    }
                    changed = tokio::time::Instant::now();
                }
                TaskPayload::Completed { result } => {
                    let r = serde_json::from_value::<rmcp::model::CallToolResult>(Value::Object(
                        result,
                    ))
                    .map_err(|e| {
                        self.task_error(
                            tool,
                            &id,
                            0,
                            format!("its result is not a tool result: {e}"),
                        )
                    });
                    return Ok(r.map(output_of));
                }
                TaskPayload::Failed { error } => {
                    let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
                    let message = error
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("no message")
                        .to_string();
                    return Ok(Err(self.task_error(
                        tool,
                        &id,
                        code as i32,
                        format!("failed: {message}"),
                    )));
                }
                _ => return Ok(Err(self.task_error(tool, &id, 0, "was cancelled".into()))),
            }
            if changed.elapsed() >= idle {
                return Err(Stalled);
            }
        }
    }

    /// A task that ended without a result: the server's JSON-RPC error when it gave one.
    fn task_error(&self, tool: &str, id: &str, code: i32, message: String) -> Error {
        // The server's words (and the id it chose) may echo a secret, and may be long.
        let id = mcp_bindgen_core::schema::truncate(id, 80);
        let message = mcp_bindgen_core::schema::truncate(&message, 2000);
        let (server, method, message) = (
            self.inner.alias.clone(),
            format!("tools/call \"{tool}\""),
            self.redact(&format!("task {id} {message}")),
        );
        if code == 0 {
            Error::Misbehaved {
                server,
                method,
                message,
            }
        } else {
            Error::Protocol {
                server,
                method,
                code,
                message,
            }
        }
    }

    pub(in crate::session) async fn get_task(&self, id: &str) -> Result<(Task, TaskPayload)> {
        let conn = self.conn().await?;
        let got = self
            .with_deadline(
                &conn,
                "tasks/get",
                conn.peer.get_task(GetTaskParams::new(id)),
            )
            .await?;
        Ok((got.task.task, got.task.payload))
    }

    pub(in crate::session) async fn cancel_task(&self, id: &str) -> Result<()> {
        let conn = self.conn().await?;
        self.with_deadline(
            &conn,
            "tasks/cancel",
            conn.peer.cancel_task(CancelTaskParams::new(id)),
        )
        .await
    }
}

fn poll_interval(task: &Task) -> Duration {
    task.poll_interval_ms
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_POLL)
        .clamp(POLL_BOUNDS.0, POLL_BOUNDS.1)
}

impl Session {
    /// A request rmcp's model does not type, its answer as JSON.
    pub(in crate::session) async fn custom_request(
        &self,
        method: &str,
        params: Value,
    ) -> Result<Value> {
        let conn = self.conn().await?;
        let request = rmcp::model::ClientRequest::CustomRequest(rmcp::model::CustomRequest::new(
            method,
            Some(params),
        ));
        let answer = self
            .with_deadline(&conn, method, conn.peer.send_request(request))
            .await?;
        serde_json::to_value(answer).map_err(|e| Error::Misbehaved {
            server: self.inner.alias.clone(),
            method: method.to_string(),
            message: format!("the answer is not JSON: {e}"),
        })
    }
}

/// `{"taskId": id}`: the parameters of `tasks/get`, `tasks/result` and `tasks/cancel`.
fn task_id(id: &str) -> Value {
    serde_json::json!({ "taskId": id })
}

/// A 2025-11-25 task's status as a [`TaskState`].
fn augmented_state(task: &Value) -> TaskState {
    let message = task
        .get("statusMessage")
        .and_then(Value::as_str)
        .map(str::to_string);
    match task.get("status").and_then(Value::as_str) {
        Some("completed") => TaskState::Completed,
        Some("failed") => TaskState::Failed,
        Some("cancelled") => TaskState::Cancelled,
        Some("input_required") => TaskState::InputRequired,
        _ => TaskState::Working(message),
    }
}

impl Session {
    /// `tools/call` with task augmentation (protocol 2025-11-25): a handle on the task the
    /// server made, or on the result when it answered at once (it ignores the `task`
    /// parameter when it does not run the tool as a task).
    async fn augmented_task<O>(
        &self,
        tool: &str,
        args: &dyn Encode,
        decode: fn(&Session, &str, ToolOutput) -> Result<O>,
        limits: (Duration, Duration),
    ) -> Result<TaskHandle<O>> {
        let arguments = self.encode_arguments(tool, args)?;
        let params = serde_json::json!({"name": tool, "arguments": arguments, "task": {}});
        let answer = self.custom_request("tools/call", params).await?;
        let method = || format!("tools/call \"{tool}\"");
        // A server of the tasks extension (2026-07-28) may make a task on this session too.
        if answer.get("resultType").and_then(Value::as_str) == Some("task") {
            let created: rmcp::model::CreateTaskResult =
                serde_json::from_value(answer).map_err(|e| Error::Misbehaved {
                    server: self.inner.alias.clone(),
                    method: method(),
                    message: format!("a task result that is not one: {e}"),
                })?;
            self.checked_task_id(&method(), &created.task.task_id, false)?;
            return Ok(TaskHandle {
                inner: Handle::Live {
                    session: self.clone(),
                    task: Some(created.task),
                    done: None,
                    decode,
                    limits,
                },
                tool: tool.to_string(),
                finished: false,
            });
        }
        let inner = match answer.get("task").filter(|t| t.get("taskId").is_some()) {
            Some(task) => {
                let id = task.get("taskId").and_then(Value::as_str).ok_or_else(|| {
                    Error::Misbehaved {
                        server: self.inner.alias.clone(),
                        method: method(),
                        message: "the server answered with a task without `taskId`".into(),
                    }
                })?;
                let id = self.checked_task_id(&method(), id, true)?;
                let poll = task
                    .get("pollInterval")
                    .and_then(Value::as_u64)
                    .map_or(DEFAULT_POLL, Duration::from_millis)
                    .clamp(POLL_BOUNDS.0, POLL_BOUNDS.1);
                Handle::Augmented {
                    session: self.clone(),
                    id: id.to_string(),
                    poll,
                    decode,
                    limits,
                }
            }
            None => Handle::Live {
                session: self.clone(),
                task: None,
                done: Some(self.result_json(tool, answer)?),
                decode,
                limits,
            },
        };
        Ok(TaskHandle {
            inner,
            tool: tool.to_string(),
            finished: false,
        })
    }

    /// Polls a 2025-11-25 task until it ends or waits for input, then takes its result
    /// with `tasks/result` (which also delivers the elicitations the task waits for).
    pub(in crate::session) async fn await_augmented(
        &self,
        tool: &str,
        id: &str,
        poll: Duration,
        (idle, total): (Duration, Duration),
    ) -> Result<ToolOutput> {
        let mut guard = CancelTaskOnDrop {
            session: Some(self.clone()),
            id: id.to_string(),
            augmented: true,
        };
        let what = || {
            format!(
                "tools/call \"{tool}\" (task {})",
                mcp_bindgen_core::schema::truncate(id, 80)
            )
        };
        let polled = async {
            let mut seen = None;
            let mut changed = tokio::time::Instant::now();
            let stalled = || Error::Timeout {
                server: self.inner.alias.clone(),
                what: what(),
                limit: idle,
                kind: "idle timeout",
                diagnosis: None,
            };
            loop {
                // A server may hold `tasks/get` until the task moves: the idle deadline
                // bounds the wait for its answer too.
                let get = self.custom_request("tasks/get", task_id(id));
                let task = match tokio::time::timeout_at(later(changed, idle), get).await {
                    Ok(answer) => answer?,
                    Err(_) => return Err(stalled()),
                };
                let now = (
                    task.get("status").cloned(),
                    task.get("statusMessage").cloned(),
                );
                if seen.as_ref() != Some(&now) {
                    seen = Some(now);
                    changed = tokio::time::Instant::now();
                }
                match augmented_state(&task) {
                    TaskState::Working(_) if changed.elapsed() >= idle => return Err(stalled()),
                    TaskState::Working(_) => tokio::time::sleep(poll).await,
                    TaskState::Cancelled => {
                        return Err(Error::Misbehaved {
                            server: self.inner.alias.clone(),
                            method: what(),
                            message: "the task was cancelled".into(),
                        });
                    }
                    _ => return Ok(()),
                }
            }
        };
        let ended = match tokio::time::timeout(total, polled).await {
            Ok(ended) => ended,
            Err(_) => Err(Error::Timeout {
                server: self.inner.alias.clone(),
                what: what(),
                limit: total,
                kind: "total timeout",
                diagnosis: None,
            }),
        };
        guard.session = None;
        match ended {
            Ok(()) => {
                let result = self.custom_request("tasks/result", task_id(id)).await?;
                self.result_json(tool, result)
            }
            Err(e @ Error::Timeout { .. }) => {
                let _ = self.custom_request("tasks/cancel", task_id(id)).await;
                Err(e)
            }
            Err(e) => Err(e),
        }
    }

    /// A `tools/call` result given as JSON.
    fn result_json(&self, tool: &str, result: Value) -> Result<ToolOutput> {
        serde_json::from_value::<rmcp::model::CallToolResult>(result)
            .map(output_of)
            .map_err(|e| Error::Misbehaved {
                server: self.inner.alias.clone(),
                method: format!("tools/call \"{tool}\""),
                message: format!("the result is not a tool result: {e}"),
            })
    }
}
