//! Dispatch of a model's tool call: arguments parsed and validated, the call, and the text
//! the model gets back.

use std::time::Instant;

use serde_json::{Value, json};
use tracing::Instrument;

use std::sync::Arc;

use super::CacheKey;
use super::catalog::{Kind, Slot, Snapshot, ToolRef, tool_ref, unavailable};
use super::discovery::Which;
use super::extras;
use super::hooks::{ModelCall, Verdict};
use super::local::LocalTool;
use super::outcome::Dispatch;
use super::scope::Scope;
use super::text::truncate_middle;
use super::{ServerState, Toolbox, typed};
use crate::error::{Error, ErrorKind};
use crate::fake::FakeServer;
use crate::output::{Content, ToolOutput};
use crate::session::{CallOptions, CallStream, Session};

// ---------------------------------------------------------------------------------------
// Builder
// ---------------------------------------------------------------------------------------

impl Toolbox {
    /// Dispatches a model's tool call: `name` as exported (or `alias.tool`, or an
    /// unambiguous short name), `arguments_json` the model's arguments string (empty means
    /// `{}`). An agent's toolbox refuses tools outside the agent's
    /// ([`ErrorKind::NotAllowed`]).
    pub async fn call(&self, name: &str, arguments_json: &str) -> Dispatch {
        self.dispatch(
            name,
            arguments_json,
            self.scope(),
            self.inner.options.call_options.clone(),
        )
        .await
    }

    /// [`Toolbox::call`] with per-call options.
    pub async fn call_with(
        &self,
        name: &str,
        arguments_json: &str,
        options: CallOptions,
    ) -> Dispatch {
        self.dispatch(name, arguments_json, self.scope(), options)
            .await
    }

    /// A model's tool call as a stream of events ([`CallEvent`]): resolved, checked and
    /// routed as [`Toolbox::call`] does, then the tool's progress and the server's log
    /// messages while it runs, and exactly one final `Result` or `Error` (the same error a
    /// [`Dispatch`] carries, before its text is cut for the model). A local tool's or a
    /// prompt/resource tool's stream holds the final event only. Dropping the stream cancels
    /// the call.
    ///
    /// [`CallEvent`]: crate::CallEvent
    pub async fn call_stream(&self, name: &str, arguments_json: &str) -> CallStream {
        self.stream(
            name,
            arguments_json,
            self.scope(),
            self.inner.options.call_options.clone(),
        )
        .await
    }

    pub(super) async fn stream(
        &self,
        name: &str,
        arguments_json: &str,
        scope: Option<&Scope>,
        options: CallOptions,
    ) -> CallStream {
        let mut prepared = match self.prepare(name, arguments_json, scope).await {
            Ok(p) => p,
            Err((e, _)) => return CallStream::from_future(async move { Err(e) }),
        };
        if let (_, Some(e)) = self.judge(&mut prepared).await {
            return CallStream::from_future(async move { Err(e) });
        }
        let Prepared {
            target,
            arguments,
            runner,
            ..
        } = prepared;
        match runner {
            Runner::Local(local) => {
                CallStream::from_future(async move { local.run(arguments).await })
            }
            Runner::Discovery(which) => {
                let result = self.discover(which, &arguments, scope);
                CallStream::from_future(async move { result })
            }
            Runner::Fake(fake) => {
                CallStream::from_future(async move { fake.call_json(&target.tool, arguments) })
            }
            Runner::Server {
                session,
                kind: Kind::Tool,
                ..
            } => session.call_stream(&target.tool, &arguments, options),
            Runner::Server { session, kind, .. } => {
                CallStream::from_future(
                    async move { extras::run(&session, &kind, &arguments).await },
                )
            }
        }
    }

    /// [`Toolbox::call`] with arguments already parsed (an agent's toolbox: within the
    /// agent's tools, as `call`).
    pub async fn call_value(&self, name: &str, arguments: &Value) -> Dispatch {
        self.dispatch(
            name,
            &arguments.to_string(),
            self.scope(),
            self.inner.options.call_options.clone(),
        )
        .await
    }
}

/// A model's call, resolved and checked: what runs it.
pub(super) struct Prepared {
    pub(super) target: ToolRef,
    pub(super) arguments: Value,
    pub(super) runner: Runner,
    /// The catalog entry the call resolved to (none for progressive discovery's tools):
    /// what hooks see of it, and the schema a rewrite is checked against.
    pub(super) entry: Option<(Arc<Snapshot>, usize)>,
}

pub(super) enum Runner {
    /// A local tool.
    Local(LocalTool),
    /// One of progressive discovery's two tools.
    Discovery(Which),
    /// A tool of a fake ([`ToolboxBuilder::add_fake`](super::ToolboxBuilder::add_fake)).
    Fake(FakeServer),
    /// A tool of a server (`Kind::Tool`), or a prompt/resource tool.
    Server {
        slot: Arc<Slot>,
        session: Session,
        kind: Kind,
    },
}

impl Toolbox {
    /// Resolves `name` (within `scope`), parses and checks the arguments, and connects a lazy
    /// server: everything before the call, shared by [`Toolbox::call`] and
    /// [`Toolbox::call_stream`]. The error comes with the tool when the name resolved.
    pub(super) async fn prepare(
        &self,
        name: &str,
        arguments_json: &str,
        scope: Option<&Scope>,
    ) -> Result<Prepared, (Error, Option<ToolRef>)> {
        if self.is_closed() {
            return Err((self.closed_error(name, false), None));
        }
        if self.inner.options.progressive.is_some()
            && let Some(which) = Which::of(name)
        {
            let target = ToolRef {
                server: String::new(),
                tool: which.name().to_string(),
                exported: which.name().to_string(),
            };
            let arguments = parse_arguments(arguments_json, &target.exported)
                .and_then(|a| {
                    typed::prepare_arguments(&which.schema(), None, a).map_err(|problems| {
                        Error::toolbox(
                            ErrorKind::InvalidArguments,
                            format!(
                                "invalid arguments for {}: {problems}. Fix the arguments and call it again.",
                                target.exported
                            ),
                        )
                    })
                });
            return match arguments {
                Ok(arguments) => Ok(Prepared {
                    target,
                    arguments,
                    runner: Runner::Discovery(which),
                    entry: None,
                }),
                Err(e) => Err((e, Some(target))),
            };
        }
        let snap = self.snapshot();
        let index = snap.resolve(name, scope).map_err(|e| (e, None))?;
        let Some(entry) = snap.entry(index) else {
            return Err((
                Error::toolbox(ErrorKind::UnknownTool, format!("unknown tool \"{name}\"")),
                None,
            ));
        };
        let target = tool_ref(&snap, index);
        let switches = self.inner.watch.switches();
        if switches.off(&target.server, &target.tool) {
            return Err((switches.refusal(&target), Some(target)));
        }
        let arguments = match parse_arguments(arguments_json, &target.exported) {
            Ok(a) => a,
            Err(e) => return Err((e, Some(target))),
        };
        let arguments = match typed::prepare_arguments(
            &entry.tool.input_schema,
            entry.typed.and_then(|t| t.normalize),
            arguments,
        ) {
            Ok(a) => a,
            Err(problems) => {
                let e = Error::toolbox(
                    ErrorKind::InvalidArguments,
                    format!(
                        "invalid arguments for {}: {problems}. Fix the arguments and call it again.",
                        target.exported
                    ),
                );
                return Err((e, Some(target)));
            }
        };
        let at = Some((snap.clone(), index));
        if let Some(local) = &entry.local {
            return Ok(Prepared {
                target,
                arguments,
                runner: Runner::Local(local.clone()),
                entry: at,
            });
        }
        let Some(slot) = snap.slots.get(&target.server).cloned() else {
            let e = Error::toolbox(
                ErrorKind::Unavailable,
                format!("server \"{}\" is not in the toolbox", target.server),
            );
            return Err((e, Some(target)));
        };
        if let Some(fake) = &slot.fake {
            // Never connected: the fake answers (it has tools only, no prompts/resources).
            return Ok(Prepared {
                target,
                arguments,
                runner: Runner::Fake(fake.clone()),
                entry: at,
            });
        }
        let slot = match (&slot.session, slot.lazy) {
            // Boxed: connecting (spawn, handshake, listing, review) is a large future that
            // every dispatch would otherwise carry inline for its rare first call.
            (None, true) => match Box::pin(self.connect_lazy(&target.server)).await {
                Ok(connected) => connected,
                Err(e) => return Err((e, Some(target))),
            },
            _ => slot,
        };
        let Some(session) = slot.session.clone() else {
            return Err((unavailable(&slot), Some(target)));
        };
        Ok(Prepared {
            target,
            arguments,
            runner: Runner::Server {
                slot,
                session,
                kind: entry.kind.clone(),
            },
            entry: at,
        })
    }

    /// The hooks' verdicts on a prepared call, in order: the call as they saw it last (none
    /// without hooks, or for progressive discovery's tools), and the refusal, if one refused
    /// (or a rewrite that fails the schema). A rewrite replaces the arguments.
    pub(super) async fn judge(
        &self,
        prepared: &mut Prepared,
    ) -> (Option<ModelCall>, Option<Error>) {
        let hooks = &self.inner.watch.hooks;
        let Some((snap, index)) = &prepared.entry else {
            return (None, None);
        };
        if hooks.is_empty() {
            return (None, None);
        }
        let Some(entry) = snap.entry(*index) else {
            return (None, None);
        };
        let mut call = ModelCall {
            tool: prepared.target.clone(),
            arguments: prepared.arguments.clone(),
            annotations: entry.tool.definition.get("annotations").cloned(),
            agent: self.agent.as_ref().map(|a| a.config.name.clone()),
            approval: self.agent.as_ref().and_then(|a| {
                a.config
                    .approval_rule(&prepared.target.server, &prepared.target.tool)
            }),
        };
        for hook in hooks {
            match hook.before(&call).await {
                Verdict::Allow => {}
                Verdict::Refuse(reason) => {
                    let e = Error::toolbox(
                        ErrorKind::Refused,
                        format!(
                            "the application refused the call to {}: {}",
                            call.tool.exported,
                            reason.trim()
                        ),
                    );
                    return (Some(call), Some(e));
                }
                Verdict::Rewrite(arguments) => {
                    match typed::prepare_arguments(
                        &entry.tool.input_schema,
                        entry.typed.and_then(|t| t.normalize),
                        arguments,
                    ) {
                        Ok(checked) => call.arguments = checked,
                        Err(problems) => {
                            let e = Error::toolbox(
                                ErrorKind::InvalidArguments,
                                format!(
                                    "the application rewrote the arguments for {} into invalid ones: {problems}",
                                    call.tool.exported
                                ),
                            );
                            return (Some(call), Some(e));
                        }
                    }
                }
            }
        }
        prepared.arguments = call.arguments.clone();
        (Some(call), None)
    }

    /// A result of the cache younger than `ttl`; an older one is dropped.
    fn cached(&self, key: &CacheKey, ttl: std::time::Duration) -> Option<ToolOutput> {
        let mut results = self.inner.results.lock().ok()?;
        match results.get(key) {
            Some((at, output)) if at.elapsed() < ttl => Some(output.clone()),
            Some(_) => {
                results.remove(key);
                None
            }
            None => None,
        }
    }

    /// Keeps a result for [`Toolbox::cached`] (never a tool error).
    fn keep(&self, key: CacheKey, output: &ToolOutput) {
        if !output.is_error
            && let Ok(mut results) = self.inner.results.lock()
        {
            results.insert(key, (std::time::Instant::now(), output.clone()));
        }
    }

    pub(super) async fn dispatch(
        &self,
        name: &str,
        arguments_json: &str,
        scope: Option<&Scope>,
        options: CallOptions,
    ) -> Dispatch {
        let (mut dispatch, call) = self
            .dispatch_judged(name, arguments_json, scope, options)
            .await;
        if let Some(call) = &call {
            for hook in &self.inner.watch.hooks {
                hook.after(call, &mut dispatch);
            }
        }
        self.inner.watch.record(&dispatch);
        dispatch
    }

    /// [`Toolbox::dispatch`] before the hooks' `after` and the statistics: the dispatch, and
    /// the call as the hooks saw it.
    async fn dispatch_judged(
        &self,
        name: &str,
        arguments_json: &str,
        scope: Option<&Scope>,
        options: CallOptions,
    ) -> (Dispatch, Option<ModelCall>) {
        let start = Instant::now();
        let max = self.inner.options.max_output_bytes;
        let fail = |e: Error, tool: Option<ToolRef>| {
            let (server, tool_name) = tool
                .as_ref()
                .map(|t| (t.server.as_str(), t.tool.as_str()))
                .unwrap_or(("", ""));
            tracing::warn!(server, tool = tool_name, name, kind = e.kind().as_str(), error = %e, "tool failed");
            let (text, truncation) = truncate_middle(&format!("Error: {e}"), max);
            Dispatch {
                text,
                result: Err(e),
                tool,
                truncation,
                duration: start.elapsed(),
                cached: false,
                max_output_bytes: max,
            }
        };
        let mut prepared = match self.prepare(name, arguments_json, scope).await {
            Ok(p) => p,
            Err((e, tool)) => return (fail(e, tool), None),
        };
        let (call, refused) = self.judge(&mut prepared).await;
        let Prepared {
            target,
            arguments,
            runner,
            ..
        } = prepared;
        if let Some(e) = refused {
            return (fail(e, Some(target)), call);
        }
        let span = tracing::info_span!(
            "mcp_tool_call",
            server = %target.server,
            tool = %target.tool,
            exported = %target.exported,
            duration_ms = tracing::field::Empty,
            outcome = tracing::field::Empty,
        );
        let mut cached = false;
        let (slot, result) = match runner {
            Runner::Local(local) => {
                let call = async {
                    tracing::info!(tool = %target.tool, "local tool called");
                    local.run(arguments).await
                };
                (None, call.instrument(span.clone()).await)
            }
            Runner::Discovery(which) => {
                let _entered = span.enter();
                tracing::info!(tool = %target.tool, "discovery tool called");
                (None, self.discover(which, &arguments, scope))
            }
            Runner::Fake(fake) => {
                let call = async {
                    tracing::info!(server = %target.server, tool = %target.tool, "tool called");
                    fake.call_json(&target.tool, arguments)
                };
                (None, call.instrument(span.clone()).await)
            }
            Runner::Server {
                slot,
                session,
                kind,
            } => {
                let ttl = matches!(kind, Kind::Tool)
                    .then(|| {
                        self.inner
                            .options
                            .cache
                            .get(&(target.server.clone(), target.tool.clone()))
                    })
                    .flatten()
                    .copied();
                let key = (
                    target.server.clone(),
                    target.tool.clone(),
                    arguments.to_string(),
                );
                let hit = ttl.and_then(|ttl| self.cached(&key, ttl));
                if let Some(output) = hit {
                    tracing::debug!(server = %target.server, tool = %target.tool, "result from the cache");
                    cached = true;
                    (Some(slot), Ok(output))
                } else {
                    let call = async {
                        tracing::info!(server = %target.server, tool = %target.tool, "tool called");
                        match &kind {
                            Kind::Tool => {
                                session.call_with(&target.tool, &arguments, options).await
                            }
                            // Boxed: a rare path, and the call's future (moved whole
                            // once per dispatch) would carry its size.
                            kind => Box::pin(extras::run(&session, kind, &arguments)).await,
                        }
                    };
                    let result = call.instrument(span.clone()).await;
                    if let (Some(_), Ok(output)) = (ttl, &result) {
                        self.keep(key, output);
                    }
                    (Some(slot), result)
                }
            }
        };
        let elapsed = start.elapsed();
        span.record("duration_ms", elapsed.as_millis() as u64);
        let _entered = span.enter();
        let dispatch = match result {
            Ok(output) if !output.is_error => {
                span.record("outcome", "ok");
                if let Some(slot) = slot {
                    slot.set_health(ServerState::Active, None);
                }
                tracing::debug!(duration_ms = elapsed.as_millis() as u64, "tool returned");
                let (text, truncation) = truncate_middle(&model_text(&output), max);
                Dispatch {
                    text,
                    result: Ok(output),
                    tool: Some(target),
                    truncation,
                    duration: elapsed,
                    cached,
                    max_output_bytes: max,
                }
            }
            Ok(output) => {
                span.record("outcome", "tool_error");
                let body = output.text();
                let e = Error::toolbox(
                    ErrorKind::ToolFailed,
                    format!(
                        "tool {} failed: {}",
                        target.exported,
                        if body.trim().is_empty() {
                            "(no message)"
                        } else {
                            body.trim()
                        }
                    ),
                )
                .with_output(output);
                fail(e, Some(target))
            }
            Err(_) if self.is_closed() => {
                span.record("outcome", "closed");
                fail(self.closed_error(&target.exported, true), Some(target))
            }
            Err(e) => {
                let e = e.into_toolbox();
                span.record("outcome", e.kind().as_str());
                if e.kind() == ErrorKind::Transport
                    && let Some(slot) = slot
                {
                    slot.set_health(ServerState::Failed, Some(e.to_string()));
                }
                fail(e, Some(target))
            }
        };
        (dispatch, call)
    }
}

pub(super) fn parse_arguments(text: &str, exported: &str) -> Result<Value, Error> {
    let invalid = |m: String| Error::toolbox(ErrorKind::InvalidArguments, m);
    if text.trim().is_empty() {
        return Ok(json!({}));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Null) => Ok(json!({})),
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(other) => Err(invalid(format!(
            "invalid arguments for {exported}: expected a JSON object, found {}",
            mcp_bindgen_core::schema::json_kind(&other)
        ))),
        Err(e) => Err(invalid(format!(
            "invalid arguments for {exported}: not valid JSON ({e}); send a JSON object"
        ))),
    }
}

/// The model's view of a result: the content blocks as text; the structured result when
/// there is no content.
pub(super) fn model_text(output: &ToolOutput) -> String {
    model_text_of(&output.content, output.structured.as_ref())
}

/// [`model_text`] of some of a result's blocks.
pub(crate) fn model_text_of(content: &[Content], structured: Option<&Value>) -> String {
    let text = content
        .iter()
        .map(Content::to_text)
        .collect::<Vec<_>>()
        .join("\n");
    if !text.is_empty() {
        return text;
    }
    match structured {
        Some(v) => v.to_string(),
        None => "(the tool returned no content)".to_string(),
    }
}
