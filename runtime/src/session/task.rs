//! Calls run as tasks (the `io.modelcontextprotocol/tasks` extension of protocol
//! 2026-07-28): the server answers `tools/call` with a task id, the client polls `tasks/get`
//! at the server's interval until the task ends, answers its input requests with
//! `tasks/update`, and may cancel it with `tasks/cancel`.
//!
//! Every session declares the extension, so a server may turn any call into a task;
//! [`Session::call_with`] then follows the task to its result under the call's total
//! deadline. [`Session::call_task`] (and the generated `*_task` methods) hand the task to
//! the caller as a [`TaskHandle`].

use std::time::Duration;

use rmcp::model::{CancelTaskParams, GetTaskParams, Task, TaskPayload, UpdateTaskParams};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::call::{Started, output_of};
use super::{CallOptions, Session};
use crate::error::{Error, Result};
use crate::output::ToolOutput;

/// The polling interval when the server names none.
const DEFAULT_POLL: Duration = Duration::from_millis(500);
/// Bounds on the server's interval (a zero or huge value is not honoured as such).
const POLL_BOUNDS: (Duration, Duration) = (Duration::from_millis(10), Duration::from_secs(30));

/// Where a task stands ([`TaskHandle::status`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskState {
    /// Running; the server's status message, if any.
    Working(Option<String>),
    /// Waiting for input from the user (answered by the session's elicitation callback).
    InputRequired,
    /// Done: [`TaskHandle::wait`] returns the result.
    Completed,
    /// Ended with an error.
    Failed,
    /// Cancelled.
    Cancelled,
}

/// A call the server runs as a task. [`TaskHandle::wait`] polls at the server's interval
/// and decodes the result exactly as the direct call does; [`TaskHandle::cancel`] stops it;
/// dropping an unfinished handle cancels the task too.
#[must_use = "dropping a task handle cancels the task"]
pub struct TaskHandle<O> {
    session: Session,
    tool: String,
    /// `None` when the server answered the call at once (no task was made).
    task: Option<Task>,
    done: Option<ToolOutput>,
    decode: fn(&Session, &str, ToolOutput) -> Result<O>,
    finished: bool,
}

impl<O> std::fmt::Debug for TaskHandle<O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskHandle")
            .field("server", &self.session.alias())
            .field("tool", &self.tool)
            .field("task_id", &self.id())
            .finish_non_exhaustive()
    }
}

impl<O> TaskHandle<O> {
    /// The server's task id; `None` when the server answered the call directly.
    pub fn id(&self) -> Option<&str> {
        self.task.as_ref().map(|t| t.task_id.as_str())
    }

    /// Asks the server where the task stands (one `tasks/get`).
    pub async fn status(&self) -> Result<TaskState> {
        match &self.task {
            Some(task) => self.session.task_status(&task.task_id).await,
            None => Ok(TaskState::Completed),
        }
    }

    /// Waits for the task's result: polls `tasks/get` at the interval the server asks for,
    /// answers input requests, and decodes the result as the direct call would.
    pub async fn wait(mut self) -> Result<O> {
        let output = match (self.done.take(), self.task.take()) {
            (Some(output), _) => output,
            (None, Some(task)) => {
                let result = self.session.poll_task(&self.tool, task).await;
                self.finished = true;
                result?
            }
            (None, None) => unreachable_state(&self.session, &self.tool)?,
        };
        self.finished = true;
        (self.decode)(&self.session, &self.tool, output)
    }

    /// Cancels the task (`tasks/cancel`); [`TaskHandle::status`] then reports
    /// [`TaskState::Cancelled`] and [`TaskHandle::wait`] an error.
    pub async fn cancel(&mut self) -> Result<()> {
        self.finished = true;
        match &self.task {
            Some(task) => self.session.cancel_task(&task.task_id).await,
            None => Ok(()),
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
        let Some(task) = self.task.take() else {
            return;
        };
        let session = self.session.clone();
        let tool = std::mem::take(&mut self.tool);
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                if let Err(e) = session.cancel_task(&task.task_id).await {
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
        let (task, done) = match self.start_call(tool, &args, &options).await? {
            Started::Done(output) => (None, Some(output)),
            Started::Task(task) => (Some(task), None),
        };
        Ok(TaskHandle {
            session: self.clone(),
            tool: tool.to_string(),
            task,
            done,
            decode,
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
