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

#[cfg(not(target_arch = "wasm32"))]
use std::time::Duration;

#[cfg(not(target_arch = "wasm32"))]
use rmcp::model::Task;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{CallOptions, Session};
use crate::error::{Error, Result};
use crate::output::{TaskState, ToolOutput};

/// A call the server runs as a task. [`TaskHandle::wait`] polls at the server's interval
/// and decodes the result exactly as the direct call does; [`TaskHandle::cancel`] stops it;
/// dropping an unfinished handle cancels the task too.
///
/// A handle from a `Fake` (or a recording `Recorder`), or from a session on wasm32 (whose
/// `fetch` wire runs a task call as a plain call), holds its result already: no task id,
/// [`TaskState::Completed`] ([`TaskState::Failed`] when the result is an error), and
/// `wait()` gives that result.
#[must_use = "dropping a task handle cancels the task"]
pub struct TaskHandle<O> {
    pub(super) inner: Handle<O>,
    pub(super) tool: String,
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub(super) finished: bool,
}

pub(super) enum Handle<O> {
    /// A live server's call.
    #[cfg(not(target_arch = "wasm32"))]
    Live {
        session: Session,
        /// `None` when the server answered the call at once (no task was made).
        task: Option<Task>,
        done: Option<ToolOutput>,
        decode: fn(&Session, &str, ToolOutput) -> Result<O>,
        /// The call's idle and total deadlines, which bound [`TaskHandle::wait`].
        limits: (Duration, Duration),
    },
    /// A task of protocol 2025-11-25 (task augmentation of `tools/call`).
    #[cfg(not(target_arch = "wasm32"))]
    Augmented {
        session: Session,
        id: String,
        poll: Duration,
        decode: fn(&Session, &str, ToolOutput) -> Result<O>,
        /// The call's idle and total deadlines, which bound [`TaskHandle::wait`].
        limits: (Duration, Duration),
    },
    /// A result known when the handle was made (`None` once taken).
    Ready {
        server: String,
        result: Option<Result<O>>,
    },
}

impl<O> std::fmt::Debug for TaskHandle<O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskHandle")
            .field("server", &self.server())
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

    /// The server's task id (at most 1 024 bytes: a longer one is refused when the task is
    /// made); `None` when the server answered the call directly (or the
    /// handle is a fake's).
    pub fn id(&self) -> Option<&str> {
        match &self.inner {
            #[cfg(not(target_arch = "wasm32"))]
            Handle::Live { task, .. } => task.as_ref().map(|t| t.task_id.as_str()),
            #[cfg(not(target_arch = "wasm32"))]
            Handle::Augmented { id, .. } => Some(id),
            Handle::Ready { .. } => None,
        }
    }

    /// Asks the server where the task stands (one `tasks/get`).
    pub async fn status(&self) -> Result<TaskState> {
        match &self.inner {
            Handle::Ready {
                result: Some(Err(_)),
                ..
            } => Ok(TaskState::Failed),
            Handle::Ready { .. } => Ok(TaskState::Completed),
            #[cfg(not(target_arch = "wasm32"))]
            _ => self.status_on_server().await,
        }
    }

    /// Waits for the task's result: polls `tasks/get` at the interval the server asks for,
    /// answers input requests, and decodes the result as the direct call would.
    pub async fn wait(mut self) -> Result<O> {
        #[allow(irrefutable_let_patterns)] // on wasm32 every handle is `Ready`
        if let Handle::Ready { result, .. } = &mut self.inner {
            if let Some(result) = result.take() {
                return result;
            }
        } else {
            #[cfg(not(target_arch = "wasm32"))]
            return self.wait_on_server().await;
        }
        Err(Error::Misbehaved {
            server: self.server().to_string(),
            method: format!("tools/call \"{}\"", self.tool),
            message: "the task handle's result was already taken".into(),
        })
    }

    /// The server's alias.
    fn server(&self) -> &str {
        match &self.inner {
            #[cfg(not(target_arch = "wasm32"))]
            Handle::Live { session, .. } | Handle::Augmented { session, .. } => session.alias(),
            Handle::Ready { server, .. } => server,
        }
    }

    /// Cancels the task (`tasks/cancel`); [`TaskHandle::status`] then reports
    /// [`TaskState::Cancelled`] and [`TaskHandle::wait`] an error.
    pub async fn cancel(&mut self) -> Result<()> {
        self.finished = true;
        #[cfg(not(target_arch = "wasm32"))]
        return self.cancel_on_server().await;
        #[cfg(target_arch = "wasm32")]
        Ok(())
    }
}

impl<O> Drop for TaskHandle<O> {
    fn drop(&mut self) {
        // Natively, an unfinished task is cancelled on the server.
        #[cfg(not(target_arch = "wasm32"))]
        self.cancel_on_drop();
    }
}

impl Session {
    /// Calls a tool as a task: the handle's [`TaskHandle::wait`] gives the same result as
    /// [`Session::call_with`], except that an `isError` result is [`Error::Tool`]. A server without
    /// the tasks extension answers at once; the handle then holds the result.
    pub async fn call_task<A: Serialize + Sync + ?Sized>(
        &self,
        tool: &str,
        args: &A,
        options: CallOptions,
    ) -> Result<TaskHandle<ToolOutput>> {
        self.wire_task(tool, &args, options, |s, tool, out| {
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
        self.wire_task(tool, &args, options, |s, tool, out| s.decode(tool, out))
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ready handle (a fake's, a recording's, any on wasm32) reports its result's state.
    #[tokio::test]
    async fn a_ready_handle_reports_completed_or_failed() {
        let ok = TaskHandle::ready("demo", "add", Ok(ToolOutput::from_text("3")));
        assert_eq!(ok.id(), None);
        assert_eq!(ok.status().await.ok(), Some(TaskState::Completed));
        assert_eq!(ok.wait().await.ok().map(|o| o.text()), Some("3".into()));
        let failed: TaskHandle<ToolOutput> = TaskHandle::ready(
            "demo",
            "fail",
            Err(Error::Misbehaved {
                server: "demo".into(),
                method: "tools/call".into(),
                message: "boom".into(),
            }),
        );
        assert_eq!(failed.status().await.ok(), Some(TaskState::Failed));
        assert!(format!("{failed:?}").contains("\"demo\""));
        assert!(failed.wait().await.is_err());
    }
}
