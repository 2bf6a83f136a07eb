//! The application between the model and the tool: hooks on dispatch, an approval policy
//! that follows the reviewed annotations, run-time switches and usage statistics.
//!
//! * **Hooks** ([`Hook`], [`ToolboxBuilder::hook`]) see every model call of a toolbox (its
//!   agent views included) once its name resolved and its arguments passed the tool's
//!   schema: [`Hook::before`] allows it, refuses it with a reason the model reads
//!   ([`Verdict::Refuse`]: the call never reaches the server, the model gets
//!   `Error: … refused …: <reason>`), or rewrites its arguments ([`Verdict::Rewrite`],
//!   checked against the schema again); [`Hook::after`] sees the [`Dispatch`] before the
//!   model does and may change its text (redact, shorten) or log it. Hooks run in the order
//!   they were added. The two tools of progressive discovery are the toolbox's own and are
//!   not shown to hooks.
//! * **Approval** ([`ApprovalPolicy`]): a hook whose rule follows the tool's reviewed
//!   annotations — read-only tools run, destructive ones (MCP's defaults: a tool that is not
//!   `readOnlyHint` is destructive unless `destructiveHint: false`) ask an approver — with
//!   rules per tool and per server in code.
//! * **Switches** ([`Toolbox::switch_off`], [`Toolbox::switch_on`]): a tool or a whole server
//!   off at run time, without rebuilding the toolbox: the exports, the native servers and
//!   the connectors leave it out from then on, and a call of it is refused with words.
//! * **Statistics** ([`Toolbox::stats`]): per tool, the calls, errors, refusals, time and the
//!   bytes of text the model got.
//!
//! [`ToolboxBuilder::hook`]: super::ToolboxBuilder::hook

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::Value;

use super::Toolbox;
use super::catalog::ToolRef;
use super::outcome::Dispatch;
use crate::config::agents::ApprovalRule;
use crate::error::{Error, ErrorKind};

/// A model's call as hooks see it: the tool it resolved to, its arguments (checked against
/// the tool's schema) and the tool's reviewed annotations.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelCall {
    /// The tool (server alias, name on the server, exported name); a local tool's server is
    /// empty.
    pub tool: ToolRef,
    /// The arguments the tool will get.
    pub arguments: Value,
    /// The reviewed definition's `annotations` (`readOnlyHint`, `destructiveHint`,
    /// `idempotentHint`, `openWorldHint`, `title`), if it has any.
    pub annotations: Option<Value>,
    /// The agent whose toolbox dispatched the call, if any.
    pub agent: Option<String>,
    /// That agent's approval rule for the tool (the registry's `approval` of the agent:
    /// the tool's, else its server's), if it has one.
    pub approval: Option<ApprovalRule>,
}

impl ModelCall {
    /// An annotation's boolean value, if the tool sets it.
    pub fn hint(&self, name: &str) -> Option<bool> {
        self.annotations.as_ref()?.get(name)?.as_bool()
    }

    /// `readOnlyHint` (MCP's default: `false`).
    pub fn read_only(&self) -> bool {
        self.hint("readOnlyHint").unwrap_or(false)
    }

    /// Whether the tool may destroy or overwrite: not read-only and `destructiveHint` not
    /// `false` (MCP's default for a tool that is not read-only is `true`, so a tool without
    /// annotations counts as destructive).
    pub fn destructive(&self) -> bool {
        !self.read_only() && self.hint("destructiveHint").unwrap_or(true)
    }

    /// `alias.tool` (a local tool: its name).
    pub fn qualified_name(&self) -> String {
        if self.tool.server.is_empty() {
            self.tool.tool.clone()
        } else {
            format!("{}.{}", self.tool.server, self.tool.tool)
        }
    }
}

/// What a hook decides about a call before it runs.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Verdict {
    /// Run it (the next hook decides next).
    Allow,
    /// Do not run it; the model reads the reason.
    Refuse(String),
    /// Run it with these arguments instead (checked against the tool's schema again; the
    /// next hook sees them).
    Rewrite(Value),
}

/// The application's place between the model and the tool ([`ToolboxBuilder::hook`]).
///
/// [`ToolboxBuilder::hook`]: super::ToolboxBuilder::hook
pub trait Hook: Send + Sync + 'static {
    /// Before the call runs (an approval may wait for a person). The default allows it.
    fn before<'a>(&'a self, call: &'a ModelCall) -> BoxFuture<'a, Verdict> {
        let _ = call;
        Box::pin(async { Verdict::Allow })
    }

    /// After the call, before the model sees [`Dispatch::text`]; a refused call comes here
    /// too. The default changes nothing.
    fn after(&self, call: &ModelCall, dispatch: &mut Dispatch) {
        let _ = (call, dispatch);
    }
}

type Approver = dyn Fn(&ModelCall) -> BoxFuture<'static, Result<(), String>> + Send + Sync;

/// An approval hook that follows the reviewed annotations: by default a read-only tool runs
/// and a destructive one ([`ModelCall::destructive`]) asks the approver; [`Self::tool`] and
/// [`Self::server`] set a rule by name (a tool's rule wins over its server's), and an agent's
/// `approval` in the registry wins over both for that agent's calls. The approver
/// answers `Ok(())` to run the call or `Err(reason)` to refuse it (the model reads the
/// reason).
///
/// ```
/// use mcp_bindgen::toolbox::{ApprovalPolicy, ApprovalRule};
///
/// let policy = ApprovalPolicy::new(|call| {
///     let ok = call.qualified_name() != "filesystem.delete_file";
///     Box::pin(async move { if ok { Ok(()) } else { Err("not on this machine".into()) } })
/// })
/// .tool("github.merge_pull_request", ApprovalRule::Refuse)
/// .server("memory", ApprovalRule::Allow);
/// # let _ = policy;
/// ```
pub struct ApprovalPolicy {
    approver: Box<Approver>,
    tools: BTreeMap<String, ApprovalRule>,
    servers: BTreeMap<String, ApprovalRule>,
    others: ApprovalRule,
}

impl std::fmt::Debug for ApprovalPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApprovalPolicy")
            .field("tools", &self.tools)
            .field("servers", &self.servers)
            .field("others", &self.others)
            .finish_non_exhaustive()
    }
}

impl ApprovalPolicy {
    /// Destructive tools ask `approver`; the others run.
    pub fn new<F>(approver: F) -> Self
    where
        F: Fn(&ModelCall) -> BoxFuture<'static, Result<(), String>> + Send + Sync + 'static,
    {
        ApprovalPolicy {
            approver: Box::new(approver),
            tools: BTreeMap::new(),
            servers: BTreeMap::new(),
            others: ApprovalRule::Allow,
        }
    }

    /// The rule of one tool: `alias.tool` (or a local tool's name).
    pub fn tool(mut self, qualified_name: impl Into<String>, rule: ApprovalRule) -> Self {
        self.tools.insert(qualified_name.into(), rule);
        self
    }

    /// The rule of every tool of a server without a rule of its own.
    pub fn server(mut self, alias: impl Into<String>, rule: ApprovalRule) -> Self {
        self.servers.insert(alias.into(), rule);
        self
    }

    /// The rule of tools that are not destructive (default [`ApprovalRule::Allow`]).
    pub fn others(mut self, rule: ApprovalRule) -> Self {
        self.others = rule;
        self
    }

    /// The rule that applies to `call`: the agent's own ([`ModelCall::approval`], from the
    /// registry), else this policy's for the tool, else for its server, else by the
    /// annotations.
    pub fn rule(&self, call: &ModelCall) -> ApprovalRule {
        if let Some(rule) = call.approval {
            return rule;
        }
        if let Some(rule) = self.tools.get(&call.qualified_name()) {
            return *rule;
        }
        if let Some(rule) = self.servers.get(&call.tool.server) {
            return *rule;
        }
        if call.destructive() {
            ApprovalRule::Ask
        } else {
            self.others
        }
    }
}

impl Hook for ApprovalPolicy {
    fn before<'a>(&'a self, call: &'a ModelCall) -> BoxFuture<'a, Verdict> {
        match self.rule(call) {
            ApprovalRule::Allow => Box::pin(async { Verdict::Allow }),
            ApprovalRule::Refuse => {
                let reason = format!("{} is not allowed here", call.qualified_name());
                Box::pin(async move { Verdict::Refuse(reason) })
            }
            ApprovalRule::Ask => {
                let asked = (self.approver)(call);
                Box::pin(async move {
                    match asked.await {
                        Ok(()) => Verdict::Allow,
                        Err(reason) => Verdict::Refuse(reason),
                    }
                })
            }
        }
    }
}

/// Tools and servers switched off at run time.
#[derive(Debug, Default, Clone)]
pub(super) struct Switches {
    servers: BTreeSet<String>,
    /// `(server, tool)`; a local tool's server is empty.
    tools: BTreeSet<(String, String)>,
}

impl Switches {
    /// Whether the tool is off (itself or its server).
    pub(super) fn off(&self, server: &str, tool: &str) -> bool {
        (!server.is_empty() && self.servers.contains(server))
            || self.tools.contains(&(server.to_string(), tool.to_string()))
    }

    /// The refusal of a call of a tool that is off.
    pub(super) fn refusal(&self, tool: &ToolRef) -> Error {
        let what = if !tool.server.is_empty() && self.servers.contains(&tool.server) {
            format!("the server \"{}\"", tool.server)
        } else {
            "it".to_string()
        };
        Error::toolbox(
            ErrorKind::Refused,
            format!(
                "the application switched {what} off: {} cannot be called now; do not call it again",
                tool.exported
            ),
        )
    }
}

/// Usage of one tool since the toolbox was built ([`Toolbox::stats`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolStats {
    /// The server's alias (empty for a local tool).
    pub server: String,
    /// The tool's name on the server.
    pub tool: String,
    /// Calls dispatched (each resolved to this tool), whatever their outcome.
    pub calls: u64,
    /// Calls that failed (invalid arguments, a tool error, a transport error, …), refusals
    /// apart.
    pub errors: u64,
    /// Calls refused by a hook or because the tool was switched off.
    pub refusals: u64,
    /// Calls answered from the result cache.
    pub cached: u64,
    /// The time the calls took, in all.
    pub total_time: Duration,
    /// The longest call.
    pub max_time: Duration,
    /// Bytes of text the model got back, in all.
    pub result_bytes: u64,
}

impl ToolStats {
    /// The mean time of a call (zero before the first).
    pub fn mean_time(&self) -> Duration {
        match u32::try_from(self.calls) {
            Ok(0) | Err(_) => Duration::ZERO,
            Ok(n) => self.total_time / n,
        }
    }

    fn add(&mut self, d: &Dispatch) {
        self.calls += 1;
        match d.error_kind() {
            None => {}
            Some(ErrorKind::Refused) => self.refusals += 1,
            Some(_) => self.errors += 1,
        }
        if d.cached {
            self.cached += 1;
        }
        self.total_time += d.duration;
        self.max_time = self.max_time.max(d.duration);
        self.result_bytes += d.text.len() as u64;
    }

    /// The sum of several tools' usage, under `server` (and no tool name).
    pub fn sum<'a>(server: &str, stats: impl IntoIterator<Item = &'a ToolStats>) -> ToolStats {
        let mut out = ToolStats {
            server: server.to_string(),
            ..ToolStats::default()
        };
        for s in stats {
            out.calls += s.calls;
            out.errors += s.errors;
            out.refusals += s.refusals;
            out.cached += s.cached;
            out.total_time += s.total_time;
            out.max_time = out.max_time.max(s.max_time);
            out.result_bytes += s.result_bytes;
        }
        out
    }
}

/// What the toolbox keeps for hooks, switches and statistics (shared by its agent views).
#[derive(Default)]
pub(super) struct Watch {
    pub(super) hooks: Vec<Arc<dyn Hook>>,
    pub(super) switches: std::sync::RwLock<Arc<Switches>>,
    pub(super) stats: std::sync::Mutex<BTreeMap<(String, String), ToolStats>>,
}

impl Watch {
    pub(super) fn switches(&self) -> Arc<Switches> {
        match self.switches.read() {
            Ok(s) => s.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    pub(super) fn record(&self, d: &Dispatch) {
        let Some(tool) = &d.tool else {
            return;
        };
        if let Ok(mut stats) = self.stats.lock() {
            stats
                .entry((tool.server.clone(), tool.tool.clone()))
                .or_insert_with(|| ToolStats {
                    server: tool.server.clone(),
                    tool: tool.tool.clone(),
                    ..ToolStats::default()
                })
                .add(d);
        }
    }
}

impl Toolbox {
    /// Switches a tool (`alias.tool`, its exported name, a local tool's name or an
    /// unambiguous short name, as [`Toolbox::resolve`] takes them) or a whole server (its
    /// alias) off, for this toolbox and every agent view of it: the exports, the
    /// native servers and the connectors leave it out from the next call on, and a model's
    /// call of it is refused ([`ErrorKind::Refused`]) with words the model reads. `Err`
    /// ([`Toolbox::resolve`]'s) when the name is neither a server nor a tool of the toolbox.
    pub fn switch_off(&self, name: &str) -> Result<(), Error> {
        self.switch(name, true)
    }

    /// Switches a tool or server back on ([`Toolbox::switch_off`]).
    pub fn switch_on(&self, name: &str) -> Result<(), Error> {
        self.switch(name, false)
    }

    /// What is switched off: servers by alias, tools as `alias.tool`.
    pub fn switched_off(&self) -> Vec<String> {
        let s = self.inner.watch.switches();
        s.servers
            .iter()
            .cloned()
            .chain(s.tools.iter().map(|(server, tool)| {
                if server.is_empty() {
                    tool.clone()
                } else {
                    format!("{server}.{tool}")
                }
            }))
            .collect()
    }

    fn switch(&self, name: &str, off: bool) -> Result<(), Error> {
        let snap = self.snapshot();
        // A server's alias, else a tool named as a model's call names it.
        let target = if snap.slots.contains_key(name) {
            Target::Server(name.to_string())
        } else {
            let tool = self.resolve(name)?;
            Target::Tool((tool.server, tool.tool))
        };
        let mut guard = match self.inner.watch.switches.write() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut next = (**guard).clone();
        match (target, off) {
            (Target::Server(s), true) => {
                next.servers.insert(s);
            }
            (Target::Server(s), false) => {
                next.servers.remove(&s);
            }
            (Target::Tool(t), true) => {
                next.tools.insert(t);
            }
            (Target::Tool(t), false) => {
                next.tools.remove(&t);
            }
        }
        *guard = Arc::new(next);
        Ok(())
    }

    /// Usage per tool since the toolbox was built, for this toolbox and its agent views
    /// together, by server then tool. [`ToolStats::sum`] adds them up per server.
    pub fn stats(&self) -> Vec<ToolStats> {
        match self.inner.watch.stats.lock() {
            Ok(stats) => stats.values().cloned().collect(),
            Err(poisoned) => poisoned.into_inner().values().cloned().collect(),
        }
    }
}

enum Target {
    Server(String),
    Tool((String, String)),
}
