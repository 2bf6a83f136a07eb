//! Calls run as tasks (the `io.modelcontextprotocol/tasks` extension of protocol
//! 2026-07-28): the server answers `tools/call` with a task id, the client polls `tasks/get`
//! at the server's interval until the task ends, answers its input requests with
//! `tasks/update`, and may cancel it with `tasks/cancel`.
//!
//! Every session declares the extension, so a server may turn any call into a task;
//! [`Session::call_with`] then follows the task to its result under the call's total
//! deadline. [`Session::call_task`] (and the generated `*_task` methods) hand the task to
//! the caller as a [`TaskHandle`].
//!
//! On a session of protocol 2025-11-25 (whose `execution.taskSupport` the fixtures record)
//! [`Session::call_task`] asks for the task itself, the way that revision's experimental
//! tasks work: `tools/call` with a `task` parameter answers with the task, `tasks/get`
//! reports its status, `tasks/result` gives its result (and delivers the elicitations it
//! waits for), `tasks/cancel` stops it.

use std::time::Duration;

use rmcp::model::{CancelTaskParams, GetTaskParams, Task, TaskPayload, UpdateTaskParams};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::call::{Started, output_of};
use super::{CallOptions, Session};
use crate::error::{Error, Result};
use crate::output::{TaskState, ToolOutput};

/// The polling interval when the server names none.
const DEFAULT_POLL: Duration = Duration::from_millis(500);
/// Bounds on the server's interval (a zero or huge value is not honoured as such).
const POLL_BOUNDS: (Duration, Duration) = (Duration::from_millis(10), Duration::from_secs(30));

/// A call the server runs as a task. [`TaskHandle::wait`] polls at the server's interval
/// and decodes the result exactly as the direct call does; [`TaskHandle::cancel`] stops it;
/// dropping an unfinished handle cancels the task too.
///
/// A handle from a `Fake` (or a recording `Recorder`) holds its result already: no task id,
/// [`TaskState::Completed`], and `wait()` gives the stub's (or the recorded) result.
#[must_use = "dropping a task handle cancels the task"]
pub struct TaskHandle<O> {
    inner: Handle<O>,
    tool: String,
    finished: bool,
}

enum Handle<O> {
    /// A live server's call.
    Live {
        session: Session,
        /// `None` when the server answered the call at once (no task was made).
        task: Option<Task>,
        done: Option<ToolOutput>,
        decode: fn(&Session, &str, ToolOutput) -> Result<O>,
    },
    /// A task of protocol 2025-11-25 (task augmentation of `tools/call`).
    Augmented {
        session: Session,
        id: String,
        poll: Duration,
        decode: fn(&Session, &str, ToolOutput) -> Result<O>,
    },
    /// A result known when the handle was made (`None` once taken).
    Ready {
        server: String,
        result: Option<Result<O>>,
    },
}

impl<O> std::fmt::Debug for TaskHandle<O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let server = match &self.inner {
            Handle::Live { session, .. } | Handle::Augmented { session, .. } => session.alias(),
            Handle::Ready { server, .. } => server,
        };
        f.debug_struct("TaskHandle")
            .field("server", &server)
            .field("tool", &self.tool)
            .field("task_id", &self.id())
            .finish_non_exhaustive()
    }
}

impl<O> TaskHandle<O> {
    /// A handle whose result is already known: a fake's, or a recorded call's.
    pub(crate) fn ready(server: &str, tool: &str, result: Result<O>) -> Self {
        TaskHandle {
            inner: Handle::Ready {
                server: server.to_string(),
                result: Some(result),
            },
            tool: tool.to_string(),
            finished: true,
        }
    }

    /// The server's task id; `None` when the server answered the call directly (or the
    /// handle is a fake's).
    pub fn id(&self) -> Option<&str> {
        match &self.inner {
            Handle::Live { task, .. } => task.as_ref().map(|t| t.task_id.as_str()),
            Handle::Augmented { id, .. } => Some(id),
            Handle::Ready { .. } => None,
        }
    }

    /// Asks the server where the task stands (one `tasks/get`).
    pub async fn status(&self) -> Result<TaskState> {
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

    /// Waits for the task's result: polls `tasks/get` at the interval the server asks for,
    /// answers input requests, and decodes the result as the direct call would.
    pub async fn wait(mut self) -> Result<O> {
        let tool = std::mem::take(&mut self.tool);
        let (session, task, done, decode) = match &mut self.inner {
            Handle::Ready { server, result } => {
                return result.take().unwrap_or_else(|| {
                    Err(Error::Misbehaved {
                        server: server.clone(),
                        method: format!("tools/call \"{tool}\""),
                        message: "the task handle's result was already taken".into(),
                    })
                });
            }
            Handle::Augmented {
                session,
                id,
                poll,
                decode,
            } => {
                let (session, id, poll, decode) = (session.clone(), id.clone(), *poll, *decode);
                let result = session.await_augmented(&tool, &id, poll).await;
                self.finished = true;
                return decode(&session, &tool, result?);
            }
            Handle::Live {
                session,
                task,
                done,
                decode,
            } => (session.clone(), task.take(), done.take(), *decode),
        };
        let output = match (done, task) {
            (Some(output), _) => output,
            (None, Some(task)) => {
                let result = session.poll_task(&tool, task).await;
                self.finished = true;
                result?
            }
            (None, None) => unreachable_state(&session, &tool)?,
        };
        self.finished = true;
        decode(&session, &tool, output)
    }

    /// Cancels the task (`tasks/cancel`); [`TaskHandle::status`] then reports
    /// [`TaskState::Cancelled`] and [`TaskHandle::wait`] an error.
    pub async fn cancel(&mut self) -> Result<()> {
        self.finished = true;
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
}

fn unreachable_state(session: &Session, tool: &str) -> Result<ToolOutput> {
    Err(Error::Misbehaved {
        server: session.alias().to_string(),
        method: format!("tools/call \"{tool}\""),
        message: "the task handle holds neither a task nor a result".into(),
    })
}

impl<O> Drop for TaskHandle<O> {
    fn drop(&mut self) {
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
        let tool = std::mem::take(&mut self.tool);
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
                        tool,
                        "cancelling a dropped task failed: {e}"
                    );
                }
            });
        }
    }
}

impl Session {
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

    /// Calls a tool as a task: the handle's [`TaskHandle::wait`] gives the same result as
    /// [`Session::call_with`], except that an `isError` result is [`Error::Tool`]. A server without
    /// the tasks extension answers at once; the handle then holds the result.
    pub async fn call_task<A: Serialize + Sync + ?Sized>(
        &self,
        tool: &str,
        args: &A,
        options: CallOptions,
    ) -> Result<TaskHandle<ToolOutput>> {
        self.task_handle(tool, args, options, |s, tool, out| {
            s.check_tool_error(tool, out)
        })
        .await
    }

    /// [`Session::call_task`] decoding the structured result into `O`, as
    /// [`Session::call_structured`] does.
    pub async fn call_task_structured<A: Serialize + Sync + ?Sized, O: DeserializeOwned>(
        &self,
        tool: &str,
        args: &A,
        options: CallOptions,
    ) -> Result<TaskHandle<O>> {
        self.task_handle(tool, args, options, |s, tool, out| s.decode(tool, out))
            .await
    }

    async fn task_handle<A: Serialize + Sync + ?Sized, O>(
        &self,
        tool: &str,
        args: &A,
        options: CallOptions,
        decode: fn(&Session, &str, ToolOutput) -> Result<O>,
    ) -> Result<TaskHandle<O>> {
        if !self.conn().await?.stateless {
            return self.augmented_task(tool, &args, decode).await;
        }
        let (task, done) = match self.start_call(tool, &args, &options).await? {
            Started::Done(output) => (None, Some(output)),
            Started::Task(task) => (Some(task), None),
        };
        Ok(TaskHandle {
            inner: Handle::Live {
                session: self.clone(),
                task,
                done,
                decode,
            },
            tool: tool.to_string(),
            finished: false,
        })
    }

    /// Follows a task the server made of a direct call, under the call's total deadline.
    pub(super) async fn follow_task(
        &self,
        tool: &str,
        task: Task,
        options: &CallOptions,
    ) -> Result<ToolOutput> {
        let (_, total) = self.limits(tool, options);
        let id = task.task_id.clone();
        match tokio::time::timeout(total, self.poll_task(tool, task)).await {
            Ok(result) => result,
            Err(_) => {
                let _ = self.cancel_task(&id).await;
                Err(Error::Timeout {
                    server: self.inner.alias.clone(),
                    what: format!("tools/call \"{tool}\" (task {id})"),
                    limit: total,
                    kind: "total timeout",
                    diagnosis: None,
                })
            }
        }
    }

    /// Polls a task until it ends; its result as a [`ToolOutput`].
    pub(super) async fn poll_task(&self, tool: &str, task: Task) -> Result<ToolOutput> {
        let id = task.task_id.clone();
        let mut interval = poll_interval(&task);
        loop {
            tokio::time::sleep(interval).await;
            let (task, payload) = self.get_task(&id).await?;
            interval = poll_interval(&task);
            match payload {
                TaskPayload::Working => {}
                TaskPayload::InputRequired { input_requests } => {
                    let result = rmcp::model::InputRequiredResult::new(Some(input_requests), None);
                    let round = self.answer_input_required(tool, result).await?;
                    let responses = round.input_responses.unwrap_or_default();
                    let conn = self.conn().await?;
                    let update = UpdateTaskParams::new(id.clone(), responses.into_iter().collect());
                    self.with_deadline(&conn, "tasks/update", conn.peer.update_task(update))
                        .await?;
                }
                TaskPayload::Completed { result } => {
                    let r: rmcp::model::CallToolResult =
                        serde_json::from_value(Value::Object(result)).map_err(|e| {
                            self.task_error(
                                tool,
                                &id,
                                0,
                                format!("its result is not a tool result: {e}"),
                            )
                        })?;
                    return Ok(output_of(r));
                }
                TaskPayload::Failed { error } => {
                    let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
                    let message = error
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("no message")
                        .to_string();
                    return Err(self.task_error(
                        tool,
                        &id,
                        code as i32,
                        format!("failed: {message}"),
                    ));
                }
                _ => return Err(self.task_error(tool, &id, 0, "was cancelled".into())),
            }
        }
    }

    /// A task that ended without a result: the server's JSON-RPC error when it gave one.
    fn task_error(&self, tool: &str, id: &str, code: i32, message: String) -> Error {
        let (server, method, message) = (
            self.inner.alias.clone(),
            format!("tools/call \"{tool}\""),
            format!("task {id} {message}"),
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

    async fn get_task(&self, id: &str) -> Result<(Task, TaskPayload)> {
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

    async fn cancel_task(&self, id: &str) -> Result<()> {
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
    pub(super) async fn custom_request(&self, method: &str, params: Value) -> Result<Value> {
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
    async fn augmented_task<A: Serialize + Sync + ?Sized, O>(
        &self,
        tool: &str,
        args: &A,
        decode: fn(&Session, &str, ToolOutput) -> Result<O>,
    ) -> Result<TaskHandle<O>> {
        let arguments = self.encode_arguments(tool, &args)?;
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
            return Ok(TaskHandle {
                inner: Handle::Live {
                    session: self.clone(),
                    task: Some(created.task),
                    done: None,
                    decode,
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
                }
            }
            None => Handle::Live {
                session: self.clone(),
                task: None,
                done: Some(self.result_json(tool, answer)?),
                decode,
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
    async fn await_augmented(&self, tool: &str, id: &str, poll: Duration) -> Result<ToolOutput> {
        loop {
            let task = self.custom_request("tasks/get", task_id(id)).await?;
            match augmented_state(&task) {
                TaskState::Working(_) => tokio::time::sleep(poll).await,
                TaskState::Cancelled => {
                    return Err(Error::Misbehaved {
                        server: self.inner.alias.clone(),
                        method: format!("tools/call \"{tool}\" (task {id})"),
                        message: "the task was cancelled".into(),
                    });
                }
                _ => break,
            }
        }
        let result = self.custom_request("tasks/result", task_id(id)).await?;
        self.result_json(tool, result)
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
