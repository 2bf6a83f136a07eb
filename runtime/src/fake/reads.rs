//! A fake's resource templates, prompts and completions: typed stubs per template and
//! prompt (a generated `Fake`'s `on_resource_<template>` and `on_prompt_<prompt>`), one
//! completion stub, and [`Source`], through which a generated module's `Resources` and
//! `Prompts` reach a live session or a fake alike.

use std::any::Any;
use std::sync::Arc;

use super::{FakeServer, lock};
use crate::completion::{Completion, CompletionArgument, CompletionRef};
use crate::error::{Error, Result};
use crate::prompt::PromptResult;
use crate::resource::ResourceContents;
use crate::session::Session;

/// One `completion/complete` request a fake received.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompletionRequest {
    /// The prompt or resource template.
    pub reference: CompletionRef,
    /// The argument (or variable) being completed.
    pub argument: String,
    /// Its value so far.
    pub value: String,
    /// The other arguments already chosen.
    pub context: Vec<(String, String)>,
}

/// The completion stub: any `Fn(&CompletionRequest) -> Result<Completion>`.
pub(super) type CompleteFn = Arc<dyn Fn(&CompletionRequest) -> Result<Completion> + Send + Sync>;

/// Where a generated module's `Resources` and `Prompts` read: the live session of a
/// `Client`, or the stubs of a `Fake`.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// A live session.
    Live(&'a Session),
    /// A fake's stubs.
    Fake(&'a FakeServer),
}

impl Source<'_> {
    /// Reads resource template `template` (its generated `Args`, or [`crate::NoArgs`] for a
    /// template without variables) at `uri`: `resources/read`, or the template's stub.
    pub async fn read_template<A: Clone + 'static>(
        self,
        template: &str,
        args: &A,
        uri: String,
    ) -> Result<ResourceContents> {
        match self {
            Source::Live(session) => session.read(&uri).await,
            Source::Fake(fake) => fake.read_template(template, args.clone(), uri),
        }
    }

    /// Gets prompt `prompt` with its generated `Args` (or [`crate::NoArgs`]): `prompts/get`,
    /// or the prompt's stub.
    pub async fn prompt<A: serde::Serialize + Clone + 'static>(
        self,
        prompt: &str,
        args: &A,
    ) -> Result<PromptResult> {
        match self {
            Source::Live(session) => session.prompt(prompt, args).await,
            Source::Fake(fake) => fake.get_prompt(prompt, args.clone()),
        }
    }

    /// [`Session::complete_argument`], or the fake's completion stub.
    pub async fn complete<A: CompletionArgument>(
        self,
        argument: A,
        value: &str,
        context: &[(A, &str)],
    ) -> Result<Completion> {
        match self {
            Source::Live(session) => session.complete_argument(argument, value, context).await,
            Source::Fake(fake) => fake.complete(CompletionRequest {
                reference: argument.reference(),
                argument: argument.name().to_string(),
                value: value.to_string(),
                context: context
                    .iter()
                    .map(|(a, v)| (a.name().to_string(), (*v).to_string()))
                    .collect(),
            }),
        }
    }
}

/// A typed stub, stored erased: `Arc<dyn Fn(A) -> Result<R> + Send + Sync>`.
type Erased = Box<dyn Any + Send + Sync>;

fn erase<A: 'static, R: 'static>(stub: impl Fn(A) -> Result<R> + Send + Sync + 'static) -> Erased {
    let stub: Arc<dyn Fn(A) -> Result<R> + Send + Sync> = Arc::new(stub);
    Box::new(stub)
}

impl FakeServer {
    /// Answers reads of resource template `template` (its name) with `stub` from now on. `A`
    /// is the template's generated `Args` ([`crate::NoArgs`] for one without variables).
    pub fn stub_resource<A, F>(&self, template: &str, stub: F)
    where
        A: 'static,
        F: Fn(A) -> Result<ResourceContents> + Send + Sync + 'static,
    {
        lock(&self.inner.resources).insert(template.to_string(), erase(stub));
    }

    /// Answers prompt `prompt` with `stub` from now on. `A` is the prompt's generated `Args`
    /// ([`crate::NoArgs`] for one without arguments).
    pub fn stub_prompt<A, F>(&self, prompt: &str, stub: F)
    where
        A: 'static,
        F: Fn(A) -> Result<PromptResult> + Send + Sync + 'static,
    {
        lock(&self.inner.prompts).insert(prompt.to_string(), erase(stub));
    }

    /// Answers every `completion/complete` with `stub` from now on.
    pub fn stub_completion(
        &self,
        stub: impl Fn(&CompletionRequest) -> Result<Completion> + Send + Sync + 'static,
    ) {
        *lock(&self.inner.completion) = Some(Arc::new(stub));
    }

    /// The URIs read so far, in order (stubbed or not).
    pub fn reads(&self) -> Vec<String> {
        lock(&self.inner.reads).clone()
    }

    /// The completions asked for so far, in order.
    pub fn completions(&self) -> Vec<CompletionRequest> {
        lock(&self.inner.completions).clone()
    }

    fn read_template<A: 'static>(
        &self,
        template: &str,
        args: A,
        uri: String,
    ) -> Result<ResourceContents> {
        lock(&self.inner.reads).push(uri.clone());
        let stub = stub_of::<A, ResourceContents>(&self.inner.resources, template);
        match stub {
            Some(stub) => stub(args),
            None => Err(self.no_stub(
                template,
                format!(
                    "no stub for resource template \"{template}\" (read of {uri}); give it one with the fake's `on_resource_…` method, or `server().stub_resource`"
                ),
            )),
        }
    }

    fn get_prompt<A: 'static>(&self, prompt: &str, args: A) -> Result<PromptResult> {
        let stub = stub_of::<A, PromptResult>(&self.inner.prompts, prompt);
        match stub {
            Some(stub) => stub(args),
            None => Err(self.no_stub(
                prompt,
                format!(
                    "no stub for prompt \"{prompt}\"; give it one with the fake's `on_prompt_…` method, or `server().stub_prompt`"
                ),
            )),
        }
    }

    fn complete(&self, request: CompletionRequest) -> Result<Completion> {
        lock(&self.inner.completions).push(request.clone());
        let stub = lock(&self.inner.completion).clone();
        match stub {
            Some(stub) => stub(&request),
            None => Err(self.no_stub(
                &request.argument,
                format!(
                    "no completion stub (completion of \"{}\" of {}); give it one with the fake's `on_complete`, or `server().stub_completion`",
                    request.argument,
                    request.reference.describe()
                ),
            )),
        }
    }

    fn no_stub(&self, what: &str, message: String) -> Error {
        Error::Fake {
            server: self.inner.alias.clone(),
            tool: what.to_string(),
            message,
        }
    }
}

/// The stub stored under `name` when it takes `A` and answers `R` (cloned out, so it runs
/// with no lock held).
#[allow(clippy::type_complexity)]
fn stub_of<A: 'static, R: 'static>(
    stubs: &std::sync::Mutex<std::collections::HashMap<String, Erased>>,
    name: &str,
) -> Option<Arc<dyn Fn(A) -> Result<R> + Send + Sync>> {
    lock(stubs)
        .get(name)
        .and_then(|s| s.downcast_ref::<Arc<dyn Fn(A) -> Result<R> + Send + Sync>>())
        .cloned()
}
