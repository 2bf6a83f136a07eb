//! How generated code calls a tool: the [`Calls`] trait, and its live implementation
//! ([`Live`]: the server, through a [`Session`]).
//!
//! A generated `Tools` trait names, for each of its implementations, the `Calls` value its
//! methods go through: a `Client` goes through [`Live`]; a `Fake` through its
//! [`FakeServer`](crate::fake::FakeServer) and a `Recorder` through a
//! [`Recording`](crate::fake::Recording), both implemented in [`fake`](crate::fake). Used by
//! generated code; the `Tools` and `Client` methods are what users call.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::call_future::CallFuture;
use crate::error::Result;
use crate::output::ToolOutput;
use crate::session::{CallOptions, Encode, Session, TaskHandle};

/// One way to call a server's tools from generated code: the live server ([`Live`]), a
/// fake, or a recording. A cheap copy (references inside).
pub trait Calls<'a>: Copy + Send + Sync + 'a {
    /// Calls a tool with a typed structured result.
    fn typed<A, O>(self, tool: &'a str, args: A) -> CallFuture<'a, O>
    where
        A: Serialize + Send + Sync + 'static,
        O: DeserializeOwned + Send + 'static;

    /// Calls a tool whose result is untyped; `isError: true` is an error.
    fn untyped<A>(self, tool: &'a str, args: A) -> CallFuture<'a, ToolOutput>
    where
        A: Serialize + Send + Sync + 'static;

    /// Runs a tool as a task with a typed structured result (the generated `*_task`
    /// methods).
    fn task_typed<A, O>(self, tool: &'a str, args: A) -> CallFuture<'a, TaskHandle<O>>
    where
        A: Serialize + Send + Sync + 'static,
        O: DeserializeOwned + Send + 'static;

    /// [`Calls::task_typed`] for a tool whose result is untyped.
    fn task_untyped<A>(self, tool: &'a str, args: A) -> CallFuture<'a, TaskHandle<ToolOutput>>
    where
        A: Serialize + Send + Sync + 'static;
}

/// The live server: a session and the call options of the `Client` that calls.
#[derive(Clone, Copy, Debug)]
pub struct Live<'a> {
    session: &'a Session,
    options: &'a CallOptions,
}

impl<'a> Live<'a> {
    /// Calls through `session` with `options`.
    pub fn new(session: &'a Session, options: &'a CallOptions) -> Self {
        Live { session, options }
    }

    /// The call with the arguments' type erased: one future type for every tool, so the
    /// call path is compiled and proven `Send` once.
    async fn call(self, tool: &str, args: Box<dyn Encode + Send>) -> Result<ToolOutput> {
        self.session
            .call_encoded(tool, &*args, self.options.clone())
            .await
    }
}

impl<'a> Calls<'a> for Live<'a> {
    fn typed<A, O>(self, tool: &'a str, args: A) -> CallFuture<'a, O>
    where
        A: Serialize + Send + Sync + 'static,
        O: DeserializeOwned + Send + 'static,
    {
        // The call's future is made inside the boxed one, where it runs: made outside, its
        // whole state (kilobytes) would be copied into the box and again on the first poll.
        let args: Box<dyn Encode + Send> = Box::new(args);
        CallFuture::new(async move { self.session.decode(tool, self.call(tool, args).await?) })
    }

    fn untyped<A>(self, tool: &'a str, args: A) -> CallFuture<'a, ToolOutput>
    where
        A: Serialize + Send + Sync + 'static,
    {
        let args: Box<dyn Encode + Send> = Box::new(args);
        CallFuture::new(async move {
            self.call(tool, args)
                .await?
                .checked(self.session.alias(), tool)
        })
    }

    fn task_typed<A, O>(self, tool: &'a str, args: A) -> CallFuture<'a, TaskHandle<O>>
    where
        A: Serialize + Send + Sync + 'static,
        O: DeserializeOwned + Send + 'static,
    {
        CallFuture::new(async move {
            self.session
                .call_task_structured::<A, O>(tool, &args, self.options.clone())
                .await
        })
    }

    fn task_untyped<A>(self, tool: &'a str, args: A) -> CallFuture<'a, TaskHandle<ToolOutput>>
    where
        A: Serialize + Send + Sync + 'static,
    {
        CallFuture::new(async move {
            self.session
                .call_task(tool, &args, self.options.clone())
                .await
        })
    }
}
