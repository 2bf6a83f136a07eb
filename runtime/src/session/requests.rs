//! Requests other than `tools/call`, written once for both wires: listings (with the tools a
//! client must not call left out), resources, prompts, ping, drift and closing.

use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::Session;
use crate::drift::DriftPolicy;
use crate::error::{Error, Result};
use crate::resource::ResourceContents;

/// A paged listing other than `tools/list`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Listing {
    /// `prompts/list`.
    Prompts,
    /// `resources/list`.
    Resources,
    /// `resources/templates/list`.
    ResourceTemplates,
}

impl Listing {
    /// The request's method.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(super) fn method(self) -> &'static str {
        match self {
            Listing::Prompts => "prompts/list",
            Listing::Resources => "resources/list",
            Listing::ResourceTemplates => "resources/templates/list",
        }
    }

    /// The key of the items in a page.
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub(super) fn key(self) -> &'static str {
        match self {
            Listing::Prompts => "prompts",
            Listing::Resources => "resources",
            Listing::ResourceTemplates => "resourceTemplates",
        }
    }
}

impl Session {
    /// Every tool of the server (all pages), as JSON objects in the server's order, exactly
    /// as the server sent them (fields rmcp's model does not know, such as `execution`,
    /// included) — except over Streamable HTTP answered with `application/json` on the
    /// native wire, where rmcp's model is all there is (a debug event says so). Tools a
    /// client must not call are left out ([`Session::rejected_tools`]).
    pub async fn list_tools(&self) -> Result<Vec<Value>> {
        self.wire_list_tools().await
    }

    /// Leaves out the tools whose `x-mcp-header` annotations break protocol 2026-07-28's
    /// rules (a client must not call them), on every wire so that a snapshot is the same on
    /// both; remembers why ([`Session::rejected_tools`]) and the valid annotations (mirrored
    /// into `Mcp-Param-*` headers over Streamable HTTP).
    pub(super) fn keep_valid_tools(&self, tools: Vec<Value>) -> Vec<Value> {
        let mut rejected = Vec::new();
        let mut kept = Vec::with_capacity(tools.len());
        for tool in tools {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
            match mcp_bindgen_core::headers::param_headers(
                tool.get("inputSchema").unwrap_or(&Value::Null),
            ) {
                Ok(headers) => {
                    self.inner.param_headers.set(name, headers);
                    kept.push(tool);
                }
                Err(rule) => {
                    let (name, rule) = (self.redact(name), self.redact(&rule));
                    tracing::warn!(target: REJECTED_TOOL_TARGET, server = %self.inner.alias, tool = %name, "tool left out: {rule}");
                    rejected.push((name, rule));
                }
            }
        }
        if let Ok(mut r) = self.inner.rejected.lock() {
            *r = rejected;
        }
        kept
    }

    /// What a drift is, in words ([`crate::drift::summary`]); the live side quotes the
    /// server (a title, a tool name), so it is redacted like the server's errors.
    pub(super) fn drift_summary(&self, expected: &str, live: &str, tools: &[Value]) -> String {
        let summary =
            crate::drift::summary(expected, live, tools, self.inner.options.fixture_tools);
        self.redact(&summary)
    }

    /// The tools the last `tools/list` left out, with the rule each broke: tools whose
    /// `x-mcp-header` annotations are invalid (protocol 2026-07-28 forbids calling them).
    pub fn rejected_tools(&self) -> Vec<(String, String)> {
        self.inner
            .rejected
            .lock()
            .map(|r| r.clone())
            .unwrap_or_default()
    }

    /// Every prompt (all pages); empty when the server has no `prompts` capability or does
    /// not know the method (`-32601`).
    pub async fn list_prompts(&self) -> Result<Vec<Value>> {
        self.listing(Listing::Prompts).await
    }

    /// Every resource template (all pages); empty without the `resources` capability or
    /// when the server does not know the method (`-32601`; servers of older SDKs declare
    /// `resources` without templates).
    pub async fn list_resource_templates(&self) -> Result<Vec<Value>> {
        self.listing(Listing::ResourceTemplates).await
    }

    /// Every resource (all pages); empty without the `resources` capability.
    pub async fn list_resources(&self) -> Result<Vec<Value>> {
        self.listing(Listing::Resources).await
    }

    /// A listing the server declared the capability for (connecting first to know).
    async fn listing(&self, what: Listing) -> Result<Vec<Value>> {
        self.wire_connect().await?;
        let info = self.server_info();
        let declared = match what {
            Listing::Prompts => info.has_prompts,
            Listing::Resources | Listing::ResourceTemplates => info.has_resources,
        };
        if !declared {
            return Ok(Vec::new());
        }
        let items = self.wire_list(what).await;
        match what {
            Listing::Resources => items,
            _ => Ok(unless_method_not_found(items)?.unwrap_or_default()),
        }
    }

    /// Reads a resource: the `resources/read` result (`{"contents": [...]}`) as JSON.
    pub async fn read_resource(&self, uri: &str) -> Result<Value> {
        self.wire_read_resource(uri).await
    }

    /// Reads the resource at `uri`, decoded into [`ResourceContents`]
    /// ([`Session::read_resource`] gives the raw JSON).
    pub async fn read(&self, uri: &str) -> Result<ResourceContents> {
        let raw = self.read_resource(uri).await?;
        ResourceContents::deserialize(&raw).map_err(|e| Error::Misbehaved {
            server: self.alias().to_string(),
            method: format!("resources/read of \"{uri}\""),
            message: format!(
                "the answer is not a list of `contents` with `uri` and `text` or `blob` ({e}): {}",
                self.redact(&crate::error::excerpt(&raw))
            ),
        })
    }

    /// Gets a prompt with its arguments: the `prompts/get` result (`{"messages": [...]}`)
    /// as JSON.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<Value> {
        self.wire_get_prompt(name, arguments).await
    }

    /// The server's suggestions for `argument` of `reference` (a prompt or a resource
    /// template) whose value so far is `value`; `context` holds the arguments already
    /// chosen (`("department", "Engineering")`), which a server may narrow by. Empty when the
    /// server did not declare the `completions` capability or does not know the method.
    ///
    /// ```no_run
    /// # async fn run(session: mcp_bindgen::Session) -> mcp_bindgen::Result<()> {
    /// use mcp_bindgen::CompletionRef;
    /// let team = CompletionRef::prompt("completable-prompt");
    /// let names = session
    ///     .complete(&team, "name", "A", &[("department", "Engineering")])
    ///     .await?;
    /// assert_eq!(names.values, ["Alice"]);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn complete(
        &self,
        reference: &crate::CompletionRef,
        argument: &str,
        value: &str,
        context: &[(&str, &str)],
    ) -> Result<crate::Completion> {
        self.wire_connect().await?;
        if !self.server_info().has_completions {
            return Ok(crate::Completion::default());
        }
        let what = format!(
            "completion/complete of \"{argument}\" of {}",
            reference.describe()
        );
        let params = crate::completion::params(reference, argument, value, context);
        let Some(result) = unless_method_not_found(self.wire_complete(&what, params).await)? else {
            return Ok(crate::Completion::default());
        };
        crate::completion::from_result(&result).ok_or_else(|| Error::Misbehaved {
            server: self.inner.alias.clone(),
            method: what,
            message: format!(
                "the answer holds no `completion` with a list of string `values`: {}",
                self.redact(&crate::error::excerpt(&result))
            ),
        })
    }

    /// [`Session::complete`] for an argument a generated module typed: a prompt's
    /// `prompts::<prompt>::Argument`, a resource template's
    /// `resources::<template>::Variable`; `context` gives the values of other arguments of
    /// the same prompt or template.
    pub async fn complete_argument<A: crate::CompletionArgument>(
        &self,
        argument: A,
        value: &str,
        context: &[(A, &str)],
    ) -> Result<crate::Completion> {
        let context: Vec<(&str, &str)> = context.iter().map(|(a, v)| (a.name(), *v)).collect();
        self.complete(&argument.reference(), argument.name(), value, &context)
            .await
    }

    /// Asks the server whether it is there and waits up to `timeout` for the answer (connects
    /// or reconnects first when needed): `ping`, or `server/discover` on a session of
    /// protocol 2026-07-28, which has no `ping`.
    pub async fn ping(&self, timeout: Duration) -> Result<()> {
        self.wire_ping(timeout).await
    }

    /// Compares the live tool list with `expected_hash` (generated code's `FIXTURE_HASH`)
    /// and applies `policy`; returns whether the server drifted (a `tracing` warning under
    /// [`DriftPolicy::Warn`], [`Error::Drift`] under [`DriftPolicy::Error`]). A session whose
    /// options carry the fixture's hash (a generated `Client::connect`) checks at connect.
    ///
    /// Natively the expectation is kept: every reconnection and every
    /// `tools/list_changed` notification re-checks it, and with [`DriftPolicy::Error`]
    /// calls fail with the drift until a re-check finds the tools back in line. On wasm32
    /// (no server-to-client stream) drift is checked when asked and at connect.
    pub async fn check_drift(&self, expected_hash: &str, policy: DriftPolicy) -> Result<bool> {
        self.wire_check_drift(expected_hash, policy).await
    }

    /// Ends the session. Requests afterwards (from any clone) fail with
    /// [`Error::Transport`]. Natively, stdio servers get their stdin closed, then SIGTERM,
    /// then SIGKILL, and the session does not reconnect; over `fetch`, a 2025-11-25 session
    /// is deleted on the server (`DELETE` with its `Mcp-Session-Id`).
    pub async fn close(&self) -> Result<()> {
        self.wire_close().await
    }
}

/// The `tracing` target of the warning about a tool left out of a listing (a program that
/// reports [`Session::rejected_tools`] itself, as `snapshot` does, can silence it).
pub const REJECTED_TOOL_TARGET: &str = "mcp_bindgen::rejected_tool";

/// `None` for a JSON-RPC "method not found" answer (an optional listing a server declares a
/// capability for but does not implement: nothing to list).
pub(in crate::session) fn unless_method_not_found<T>(result: Result<T>) -> Result<Option<T>> {
    match result {
        Ok(v) => Ok(Some(v)),
        Err(Error::Protocol { code: -32601, .. }) => Ok(None),
        Err(e) => Err(e),
    }
}
