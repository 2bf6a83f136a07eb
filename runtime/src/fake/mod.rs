//! Offline tests of code that calls MCP tools: typed fakes and record/replay.
//!
//! `mcp_tools!` generates, next to each server module's [`Client`](crate::Session), a
//! `pub trait Tools` with one method per tool (the `Client` method's exact signature) and
//! three implementations of it:
//!
//! * `Client`: the live server;
//! * `Fake`: answers from typed stubs (`Fake::new().on_add(|args: add::Args| …)`) and from
//!   recorded calls (`Fake::from_cassette(path)`), with no process and no network; a call it
//!   has no answer for is an [`Error::Fake`] naming the tool; `Fake::calls()` lists the calls
//!   made;
//! * `Recorder`: forwards each call to a `Client` and appends it to a cassette.
//!
//! A module with prompts or resource templates gives `Fake` the `prompts()` and
//! `resources()` of `Client` as well (both read through [`Source`]), answered by typed stubs
//! (`on_prompt_<prompt>`, `on_resource_<template>`, `on_complete`).
//!
//! Code written against `impl demo::Tools` runs unchanged on all three:
//!
//! ```no_run
//! mcp_bindgen::mcp_tools!("demo");
//!
//! async fn sum(tools: &impl demo::Tools) -> mcp_bindgen::Result<String> {
//!     Ok(tools.add(demo::add::Args { a: 1.0, b: 2.0 }).await?.text())
//! }
//!
//! # async fn run() -> mcp_bindgen::Result<()> {
//! let fake = demo::Fake::new()
//!     .on_add(|args| Ok(mcp_bindgen::ToolOutput::from_text((args.a + args.b).to_string())));
//! assert_eq!(sum(&fake).await?, "3");
//! assert_eq!(fake.calls()[0].tool, "add");
//! # Ok(()) }
//! ```
//!
//! A cassette is JSON Lines, one call per line:
//! `{"server": "demo", "tool": "add", "arguments": {…}, "result": {…}}`, where `result` is
//! MCP's `CallToolResult` (`content`, `structuredContent`, `isError`). Loading it decodes every
//! recorded argument and result through the generated types, so a cassette that no longer
//! fits the fixture fails at load, naming the line, the tool and the field. A call is
//! answered by the recorded calls of the same tool with the same arguments (compared as the
//! generated type writes them), in recorded order; the last answer repeats.
//!
//! A [`Toolbox`](crate::toolbox::Toolbox) takes a fake in place of a server
//! ([`ToolboxBuilder::add_fake`](crate::toolbox::ToolboxBuilder::add_fake)), so a whole
//! agent loop (export, the model's tool call, dispatch) runs offline.

mod cassette;
mod reads;
#[cfg(test)]
mod tests;

use std::any::Any;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::call_future::CallFuture;
use crate::calls::Calls;
use crate::error::{Error, Result};
use crate::output::ToolOutput;
use crate::session::{CallOptions, Encode, Session, TaskHandle};
use crate::typed::TypedTool;

pub use cassette::Tape;
pub use reads::{CompletionRequest, Source};

/// A stub of a tool with arguments `A` and result `R` (what a generated `Fake::on_<tool>`
/// takes): any `Fn(A) -> Result<R> + Send + Sync + 'static`, closures included.
pub trait Stub<A, R>: Fn(A) -> Result<R> + Send + Sync + 'static {}

impl<A, R, F: Fn(A) -> Result<R> + Send + Sync + 'static> Stub<A, R> for F {}

/// A stub of a tool without arguments: any `Fn() -> Result<R> + Send + Sync + 'static`.
pub trait StubNoArgs<R>: Fn() -> Result<R> + Send + Sync + 'static {}

impl<R, F: Fn() -> Result<R> + Send + Sync + 'static> StubNoArgs<R> for F {}

/// One call a fake received: the tool's name and its arguments as JSON (as the generated
/// argument type writes them).
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The tool's name on the server.
    pub tool: String,
    /// The arguments.
    pub arguments: Value,
}

/// A stub's answer as JSON, for calls that arrive as JSON (the toolbox's dispatch).
type JsonStub = Arc<dyn Fn(Value) -> Result<ToolOutput> + Send + Sync>;

struct StubEntry {
    /// `Arc<dyn Fn(A) -> Result<O> + Send + Sync>` for the tool's generated `A` and `O`.
    typed: Box<dyn Any + Send + Sync>,
    json: JsonStub,
}

/// Recorded answers to one (tool, arguments) pair, in recorded order.
#[derive(Default)]
struct Replies {
    outputs: Vec<ToolOutput>,
    next: usize,
}

/// The engine of a generated `Fake`: stubs, recorded answers and the calls made, for one
/// server's tools. Cheap to clone (clones share everything), so a test keeps one clone for
/// [`FakeServer::calls`] while a toolbox holds another.
#[derive(Clone)]
pub struct FakeServer {
    inner: Arc<Inner>,
}

struct Inner {
    alias: String,
    tools: &'static [TypedTool],
    stubs: Mutex<HashMap<String, StubEntry>>,
    /// Keyed by (tool, canonical arguments).
    replies: Mutex<HashMap<(String, String), Replies>>,
    calls: Mutex<Vec<Call>>,
    /// Resource template name → its typed stub.
    resources: Mutex<HashMap<String, Box<dyn Any + Send + Sync>>>,
    /// Prompt name → its typed stub.
    prompts: Mutex<HashMap<String, Box<dyn Any + Send + Sync>>>,
    completion: Mutex<Option<reads::CompleteFn>>,
    /// The URIs read.
    reads: Mutex<Vec<String>>,
    /// The completions asked for.
    completions: Mutex<Vec<CompletionRequest>>,
}

impl std::fmt::Debug for FakeServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let stubs: Vec<String> = lock(&self.inner.stubs).keys().cloned().collect();
        f.debug_struct("FakeServer")
            .field("alias", &self.inner.alias)
            .field("stubs", &stubs)
            .field("recorded", &lock(&self.inner.replies).len())
            .field("calls", &lock(&self.inner.calls).len())
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A stub that panicked poisons nothing we could leave inconsistent: every critical
    // section below is a single insert, push or lookup.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl FakeServer {
    /// A fake of the server `alias` whose tools are `tools` (a generated `TYPED_TOOLS`), with
    /// no stubs and no recorded calls.
    pub fn new(alias: impl Into<String>, tools: &'static [TypedTool]) -> Self {
        FakeServer {
            inner: Arc::new(Inner {
                alias: alias.into(),
                tools,
                stubs: Mutex::new(HashMap::new()),
                replies: Mutex::new(HashMap::new()),
                calls: Mutex::new(Vec::new()),
                resources: Mutex::new(HashMap::new()),
                prompts: Mutex::new(HashMap::new()),
                completion: Mutex::new(None),
                reads: Mutex::new(Vec::new()),
                completions: Mutex::new(Vec::new()),
            }),
        }
    }

    /// A fake that answers from the cassette at `path` ([`FakeServer::load_cassette`]).
    pub fn from_cassette(
        alias: impl Into<String>,
        tools: &'static [TypedTool],
        path: impl AsRef<Path>,
    ) -> Result<Self> {
        let fake = FakeServer::new(alias, tools);
        fake.load_cassette(path)?;
        Ok(fake)
    }

    /// Adds the calls recorded in the cassette at `path`. Every line is checked first: it
    /// names a tool of this server, was recorded from this server, and its arguments and
    /// result decode into the tool's generated types ([`Error::Cassette`] names the line, the
    /// tool and the field otherwise); nothing is added when a line fails.
    pub fn load_cassette(&self, path: impl AsRef<Path>) -> Result<()> {
        let entries = cassette::load(path.as_ref(), &self.inner.alias, self.inner.tools)?;
        let mut replies = lock(&self.inner.replies);
        for entry in entries {
            replies
                .entry((entry.tool, entry.key))
                .or_default()
                .outputs
                .push(entry.result);
        }
        Ok(())
    }

    /// The server's alias.
    pub fn alias(&self) -> &str {
        &self.inner.alias
    }

    /// The server's tools (the generated `TYPED_TOOLS`).
    pub fn tools(&self) -> &'static [TypedTool] {
        self.inner.tools
    }

    /// The calls made so far, in order (stubbed, replayed and unanswered alike).
    pub fn calls(&self) -> Vec<Call> {
        lock(&self.inner.calls).clone()
    }

    /// Forgets the calls made so far.
    pub fn clear_calls(&self) {
        lock(&self.inner.calls).clear();
    }

    /// Answers `tool` with `stub` from now on (replacing an earlier stub of it): a tool with
    /// a typed structured result. `A` and `O` are the tool's generated `Args` and `Output`.
    pub fn stub_typed<A, O, F>(&self, tool: &str, stub: F)
    where
        A: DeserializeOwned + Send + 'static,
        O: Serialize + Send + 'static,
        F: Fn(A) -> Result<O> + Send + Sync + 'static,
    {
        let stub: Arc<dyn Fn(A) -> Result<O> + Send + Sync> = Arc::new(stub);
        let typed = stub.clone();
        let (alias, name) = (self.inner.alias.clone(), tool.to_string());
        let json: JsonStub = Arc::new(move |arguments| {
            let args = decode_arguments::<A>(&alias, &name, arguments)?;
            let value = serde_json::to_value(stub(args)?).map_err(|e| Error::Fake {
                server: alias.clone(),
                tool: name.clone(),
                message: format!("the stub's result of \"{name}\" does not serialize: {e}"),
            })?;
            Ok(ToolOutput::from_json(value))
        });
        self.insert(tool, Box::new(typed), json);
    }

    /// Answers `tool` with `stub` from now on (replacing an earlier stub of it): a tool whose
    /// result is untyped ([`ToolOutput`]; [`ToolOutput::from_text`], [`ToolOutput::from_json`]
    /// build one). `A` is the tool's generated `Args`.
    pub fn stub_untyped<A, F>(&self, tool: &str, stub: F)
    where
        A: DeserializeOwned + Send + 'static,
        F: Fn(A) -> Result<ToolOutput> + Send + Sync + 'static,
    {
        let stub: Arc<dyn Fn(A) -> Result<ToolOutput> + Send + Sync> = Arc::new(stub);
        let typed = stub.clone();
        let (alias, name) = (self.inner.alias.clone(), tool.to_string());
        let json: JsonStub =
            Arc::new(move |arguments| stub(decode_arguments::<A>(&alias, &name, arguments)?));
        self.insert(tool, Box::new(typed), json);
    }

    fn insert(&self, tool: &str, typed: Box<dyn Any + Send + Sync>, json: JsonStub) {
        lock(&self.inner.stubs).insert(tool.to_string(), StubEntry { typed, json });
    }

    /// The stub of `tool`: as `F` when it was registered with that type (else `None`: the
    /// caller goes through its JSON twin), and as JSON. Cloned out, so the stub runs with no
    /// lock held (it may call the fake).
    fn stub<F: Clone + 'static>(&self, tool: &str) -> Option<(Option<F>, JsonStub)> {
        lock(&self.inner.stubs)
            .get(tool)
            .map(|s| (s.typed.downcast_ref::<F>().cloned(), s.json.clone()))
    }

    /// A typed call (what the generated `Fake` runs for a tool with a typed result): the stub,
    /// else a recorded answer decoded into `O` as the live call would be.
    pub(crate) fn call_typed<A, O>(&self, tool: &str, args: A) -> Result<O>
    where
        A: Serialize + 'static,
        O: DeserializeOwned + 'static,
    {
        let arguments = self.log(tool, &args)?;
        let typed = self.stub::<Arc<dyn Fn(A) -> Result<O> + Send + Sync>>(tool);
        match typed {
            Some((Some(stub), _)) => self.own(tool, stub(args)),
            Some((None, json)) => self
                .own(tool, json(arguments))?
                .decode(&self.inner.alias, tool),
            None => self
                .replay(tool, &arguments)?
                .decode(&self.inner.alias, tool),
        }
    }

    /// An untyped call (the generated `Fake`'s path for a tool whose result is
    /// [`ToolOutput`]): `isError: true` becomes [`Error::Tool`], as on a live server.
    pub(crate) fn call_untyped<A>(&self, tool: &str, args: A) -> Result<ToolOutput>
    where
        A: Serialize + 'static,
    {
        let arguments = self.log(tool, &args)?;
        let typed = self.stub::<Arc<dyn Fn(A) -> Result<ToolOutput> + Send + Sync>>(tool);
        let output = match typed {
            Some((Some(stub), _)) => self.own(tool, stub(args))?,
            Some((None, json)) => self.own(tool, json(arguments))?,
            None => self.replay(tool, &arguments)?,
        };
        output.checked(&self.inner.alias, tool)
    }

    /// A call whose arguments are JSON (the toolbox's dispatch): the stub's or the recorded
    /// result as the server would send it (`isError` included).
    pub fn call_json(&self, tool: &str, arguments: Value) -> Result<ToolOutput> {
        lock(&self.inner.calls).push(Call {
            tool: tool.to_string(),
            arguments: arguments.clone(),
        });
        let json = lock(&self.inner.stubs).get(tool).map(|s| s.json.clone());
        match json {
            Some(json) => match self.own(tool, json(arguments)) {
                Err(Error::Tool { output, .. }) => Ok(*output),
                other => other,
            },
            None => self.replay(tool, &arguments),
        }
    }

    /// Logs a call; its arguments as JSON.
    fn log(&self, tool: &str, args: &impl Serialize) -> Result<Value> {
        let arguments = serde_json::to_value(args).map_err(|e| Error::Encode {
            server: self.inner.alias.clone(),
            tool: tool.to_string(),
            message: e.to_string(),
        })?;
        lock(&self.inner.calls).push(Call {
            tool: tool.to_string(),
            arguments: arguments.clone(),
        });
        Ok(arguments)
    }

    /// A stub's error made this server's: [`tool_error`]'s blank server and tool filled in.
    fn own<T>(&self, tool: &str, result: Result<T>) -> Result<T> {
        result.map_err(|e| match e {
            Error::Tool {
                server,
                tool: t,
                output,
            } if server.is_empty() && t.is_empty() => Error::Tool {
                server: self.inner.alias.clone(),
                tool: tool.to_string(),
                output,
            },
            e => e,
        })
    }

    /// The next recorded answer to `tool` with `arguments`.
    fn replay(&self, tool: &str, arguments: &Value) -> Result<ToolOutput> {
        let key = (tool.to_string(), cassette::canonical(arguments));
        let mut replies = lock(&self.inner.replies);
        if let Some(r) = replies.get_mut(&key)
            && let Some(last) = r.outputs.len().checked_sub(1)
        {
            let output = r.outputs[r.next.min(last)].clone();
            r.next += 1;
            return Ok(output);
        }
        let mut recorded: Vec<&str> = replies
            .keys()
            .filter(|(t, _)| t == tool)
            .map(|(_, args)| args.as_str())
            .collect();
        recorded.sort_unstable();
        recorded.truncate(3);
        let known = self.inner.tools.iter().any(|t| t.name == tool);
        let message = if !known {
            format!("the fixture has no tool \"{tool}\"")
        } else if recorded.is_empty() {
            format!(
                "no stub for tool \"{tool}\" and no recorded call of it; give it one with the fake's `on_…` method for \"{tool}\", or record one"
            )
        } else {
            format!(
                "no stub for tool \"{tool}\" and no recorded call of it with the arguments {}; recorded: {}",
                cassette::canonical(arguments),
                recorded.join(", ")
            )
        };
        Err(Error::Fake {
            server: self.inner.alias.clone(),
            tool: tool.to_string(),
            message,
        })
    }
}

fn decode_arguments<A: DeserializeOwned>(alias: &str, tool: &str, arguments: Value) -> Result<A> {
    A::deserialize(&arguments).map_err(|e| Error::Fake {
        server: alias.to_string(),
        tool: tool.to_string(),
        message: format!("the arguments of \"{tool}\" do not fit its generated type: {e}"),
    })
}

/// The error a stub returns for the tool reporting an error (`isError: true` with `text`):
/// the call fails with [`Error::Tool`], as a live server's would, and a toolbox's dispatch
/// shows the model the text.
pub fn tool_error(text: impl Into<String>) -> Error {
    Error::Tool {
        server: String::new(),
        tool: String::new(),
        output: Box::new(ToolOutput {
            is_error: true,
            ..ToolOutput::from_text(text)
        }),
    }
}

/// A live server whose calls are appended to a cassette: what a generated `Recorder` calls
/// through. A task call is recorded followed to its end; its handle holds the result.
#[derive(Clone, Copy, Debug)]
pub struct Recording<'a> {
    session: &'a Session,
    options: &'a CallOptions,
    tape: &'a Tape,
}

impl<'a> Recording<'a> {
    /// Calls through `session` with `options`, each call appended to `tape`.
    pub fn new(session: &'a Session, options: &'a CallOptions, tape: &'a Tape) -> Self {
        Recording {
            session,
            options,
            tape,
        }
    }

    /// A recorded call with the arguments' type erased (one future type for every tool).
    async fn call(
        self,
        tool: &str,
        args: Box<dyn Encode + Send>,
        follow_task: bool,
    ) -> Result<ToolOutput> {
        self.tape
            .call(
                self.session,
                tool,
                &*args,
                self.options.clone(),
                follow_task,
            )
            .await
    }
}

impl<'a> Calls<'a> for Recording<'a> {
    fn typed<A, O>(self, tool: &'a str, args: A) -> CallFuture<'a, O>
    where
        A: Serialize + Send + Sync + 'static,
        O: DeserializeOwned + Send + 'static,
    {
        let call = self.call(tool, Box::new(args), false);
        CallFuture::new(async move { self.session.decode(tool, call.await?) })
    }

    fn untyped<A>(self, tool: &'a str, args: A) -> CallFuture<'a, ToolOutput>
    where
        A: Serialize + Send + Sync + 'static,
    {
        let call = self.call(tool, Box::new(args), false);
        CallFuture::new(async move { call.await?.checked(self.session.alias(), tool) })
    }

    fn task_typed<A, O>(self, tool: &'a str, args: A) -> CallFuture<'a, TaskHandle<O>>
    where
        A: Serialize + Send + Sync + 'static,
        O: DeserializeOwned + Send + 'static,
    {
        let call = self.call(tool, Box::new(args), true);
        CallFuture::new(async move {
            let result = call.await.and_then(|out| self.session.decode(tool, out));
            Ok(TaskHandle::ready(self.session.alias(), tool, result))
        })
    }

    fn task_untyped<A>(self, tool: &'a str, args: A) -> CallFuture<'a, TaskHandle<ToolOutput>>
    where
        A: Serialize + Send + Sync + 'static,
    {
        let call = self.call(tool, Box::new(args), true);
        CallFuture::new(async move {
            let result = call
                .await
                .and_then(|out| out.checked(self.session.alias(), tool));
            Ok(TaskHandle::ready(self.session.alias(), tool, result))
        })
    }
}

/// A fake answers from its stubs and recorded calls; a task's handle holds the result.
impl<'a> Calls<'a> for &'a FakeServer {
    fn typed<A, O>(self, tool: &'a str, args: A) -> CallFuture<'a, O>
    where
        A: Serialize + Send + Sync + 'static,
        O: DeserializeOwned + Send + 'static,
    {
        CallFuture::new(async move { self.call_typed(tool, args) })
    }

    fn untyped<A>(self, tool: &'a str, args: A) -> CallFuture<'a, ToolOutput>
    where
        A: Serialize + Send + Sync + 'static,
    {
        CallFuture::new(async move { self.call_untyped(tool, args) })
    }

    fn task_typed<A, O>(self, tool: &'a str, args: A) -> CallFuture<'a, TaskHandle<O>>
    where
        A: Serialize + Send + Sync + 'static,
        O: DeserializeOwned + Send + 'static,
    {
        CallFuture::new(async move {
            Ok(TaskHandle::ready(
                self.alias(),
                tool,
                self.call_typed(tool, args),
            ))
        })
    }

    fn task_untyped<A>(self, tool: &'a str, args: A) -> CallFuture<'a, TaskHandle<ToolOutput>>
    where
        A: Serialize + Send + Sync + 'static,
    {
        CallFuture::new(async move {
            Ok(TaskHandle::ready(
                self.alias(),
                tool,
                self.call_untyped(tool, args),
            ))
        })
    }
}
