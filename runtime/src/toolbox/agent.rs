//! Agents: which model, which servers and tools; the model/server rules; each agent's
//! toolbox, restricted to its servers and tools.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::Toolbox;
use super::catalog::{Snapshot, tool_ref};
use super::export::NativeServer;
use super::provider::ToolExport;
use super::scope::{Agent, Route, Scope};
use crate::config::ServerConfig;
pub use crate::config::agents::{AgentConfig, ApprovalRule, ModelPolicy, ModelRef};
use crate::error::{Error, ErrorKind};

/// The outcome of [`check_rules`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RuleCheck {
    /// Whether the agent's model supports MCP.
    pub supports_mcp: bool,
    /// How the agent gets its tools.
    pub route: Route,
    /// Warnings (already logged with `tracing::warn!`).
    pub warnings: Vec<String>,
}

/// Checks the model/server rules for one agent against the servers' configuration:
///
/// * model without MCP support + server without `function_call_wrapper` → error
///   ([`ErrorKind::ModelServerMismatch`]) naming the model, the server and both fixes
///   (one line per such server);
/// * model with MCP support + server with `function_call_wrapper` → warning (unneeded
///   overhead), logged and returned;
/// * a server the configuration does not define → [`ErrorKind::Config`].
///
/// The route follows the model: native when it supports MCP, function calls otherwise.
pub(crate) fn check_rules(
    agent: &AgentConfig,
    policy: &ModelPolicy,
    servers: &[ServerConfig],
) -> Result<RuleCheck, Error> {
    let supports = policy.supports_mcp(&agent.model);
    let model = &agent.model;
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let mut seen = BTreeSet::new();
    for alias in &agent.servers {
        if !seen.insert(alias.as_str()) {
            continue;
        }
        let Some(server) = servers.iter().find(|s| s.alias() == alias) else {
            return Err(Error::toolbox(
                ErrorKind::Config,
                format!(
                    "agent \"{}\" names server \"{alias}\", which is not configured (servers: {})",
                    agent.name,
                    servers
                        .iter()
                        .map(|s| s.alias())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        };
        match (supports, server.function_call_wrapper()) {
            (false, false) => errors.push(format!(
                "agent \"{agent_name}\": model \"{model}\" does not support MCP and server \"{alias}\" has no function-call wrapper. Fix either: set `function_call_wrapper = true` for server \"{alias}\" (in [servers.{alias}]) so its tools are offered as function calls, or use a model with MCP support (or declare it: supports_mcp = true for provider \"{provider}\" or for model \"{name}\").",
                agent_name = agent.name,
                provider = model.provider,
                name = model.model,
            )),
            (true, true) => {
                let w = format!(
                    "agent \"{agent_name}\": model \"{model}\" supports MCP natively, so the function-call wrapper of server \"{alias}\" is unneeded overhead; the agent gets the server's MCP tools and session directly. Set `function_call_wrapper = false` for server \"{alias}\" unless a model without MCP support uses it.",
                    agent_name = agent.name,
                );
                tracing::warn!(agent = %agent.name, model = %model, server = %alias, "{w}");
                warnings.push(w);
            }
            _ => {}
        }
    }
    if !errors.is_empty() {
        return Err(Error::toolbox(
            ErrorKind::ModelServerMismatch,
            errors.join("\n"),
        ));
    }
    Ok(RuleCheck {
        supports_mcp: supports,
        route: if supports {
            Route::Native
        } else {
            Route::FunctionCalls
        },
        warnings,
    })
}

/// The scope of an agent: its servers, and its tool list resolved against the toolbox's
/// names (`alias.tool`, an exported name or an unambiguous short name).
fn scope_of(config: &AgentConfig, snap: &Snapshot) -> Result<Scope, Error> {
    let mut scope = Scope::new(&config.name, config.servers.iter().cloned().collect());
    scope.unreviewed = config.unreviewed_tools;
    if config.require_fixture {
        let bare: Vec<&str> = config
            .servers
            .iter()
            .filter(|alias| {
                snap.slots
                    .get(alias.as_str())
                    .is_some_and(|slot| slot.reviewed.is_none())
            })
            .map(String::as_str)
            .collect();
        if !bare.is_empty() {
            return Err(Error::toolbox(
                ErrorKind::Config,
                format!(
                    "agent \"{}\" requires a fixture for each of its servers (`require_fixture = true`), and {} ha{} none; run {} to record {}",
                    config.name,
                    bare.iter()
                        .map(|a| format!("\"{a}\""))
                        .collect::<Vec<_>>()
                        .join(", "),
                    if bare.len() == 1 { "s" } else { "ve" },
                    mcp_bindgen_core::project::either_command(&format!(
                        "snapshot {}",
                        bare.join(" ")
                    )),
                    if bare.len() == 1 { "it" } else { "them" },
                ),
            ));
        }
    }
    let Some(list) = &config.tools else {
        return Ok(scope);
    };
    let mut tools = BTreeSet::new();
    for name in list {
        if let Some((alias, tool)) = name.split_once('.')
            && scope.has_server(alias)
        {
            tools.insert((alias.to_string(), tool.to_string()));
            continue;
        }
        match snap.resolve(name, Some(&scope)) {
            Ok(i) => {
                let r = tool_ref(snap, i);
                tools.insert((r.server, r.tool));
            }
            Err(e) => {
                return Err(Error::toolbox(
                    ErrorKind::Config,
                    format!(
                        "agent \"{}\": tool \"{name}\" of its tool list does not name one tool of its servers ({}): {e}; write it as alias.tool",
                        config.name,
                        config.servers.join(", ")
                    ),
                ));
            }
        }
    }
    scope.restrict_to(tools);
    Ok(scope)
}

impl Toolbox {
    /// One agent's toolbox: checks the model/server rules (an error for a model without MCP
    /// support and a server without `function_call_wrapper`; a warning, logged and kept in
    /// [`Toolbox::warnings`], for an MCP model and a wrapper server) and restricts what a
    /// model sees — tools, exports, sessions, calls, prompts and resources — to the agent's
    /// servers and tools; anything else is refused ([`ErrorKind::NotAllowed`]). The servers
    /// are shared with `self`.
    pub fn agent(&self, config: &AgentConfig, policy: &ModelPolicy) -> Result<Toolbox, Error> {
        let servers = self.server_configs();
        let check = check_rules(config, policy, &servers)?;
        let scope = scope_of(config, &self.snapshot())?;
        Ok(Toolbox {
            inner: self.inner.clone(),
            agent: Some(Arc::new(Agent {
                config: config.clone(),
                route: check.route,
                warnings: check.warnings,
                scope,
            })),
        })
    }

    /// The agent's configuration, for an agent's toolbox ([`Toolbox::agent`]).
    pub fn agent_config(&self) -> Option<&AgentConfig> {
        self.agent.as_deref().map(|a| &a.config)
    }

    /// How the agent gets its tools, for an agent's toolbox: [`Route::Native`] for a model
    /// that supports MCP, else [`Route::FunctionCalls`].
    pub fn route(&self) -> Option<Route> {
        self.agent.as_deref().map(|a| a.route)
    }

    /// Warnings of the model/server rules (none outside an agent's toolbox).
    pub fn warnings(&self) -> &[String] {
        self.agent.as_deref().map_or(&[], |a| &a.warnings)
    }

    /// What the model gets: native servers for an MCP model, function definitions (strict
    /// where possible when `strict`) otherwise, and for a toolbox without an agent.
    pub fn model_tools(&self, strict: bool) -> AgentTools {
        match self.route() {
            Some(Route::Native) => AgentTools::Native(self.native_servers()),
            _ => AgentTools::FunctionCalls(self.openai_export(strict)),
        }
    }

    /// `Ok` when a model of this toolbox may use `alias`'s server.
    pub(super) fn check_server(&self, alias: &str) -> Result<(), Error> {
        match self.agent.as_deref() {
            Some(agent) if !agent.scope.has_server(alias) => Err(Error::toolbox(
                ErrorKind::NotAllowed,
                format!(
                    "server \"{alias}\" is not available to agent \"{}\" (its servers: {})",
                    agent.config.name,
                    agent.config.servers.join(", ")
                ),
            )),
            _ => Ok(()),
        }
    }
}

/// What a model gets, by route.
#[derive(Debug, Clone)]
pub enum AgentTools {
    /// Raw MCP tool definitions and sessions.
    Native(Vec<NativeServer>),
    /// Function-call definitions (the `tools` array); calls go through [`Toolbox::call`].
    FunctionCalls(ToolExport),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn servers() -> Vec<ServerConfig> {
        vec![
            ServerConfig::stdio("plain", "x", vec![]),
            ServerConfig::stdio("wrapped", "x", vec![]).with_function_call_wrapper(true),
        ]
    }

    #[test]
    fn policy_defaults_and_overrides() {
        let p = ModelPolicy::new()
            .provider("anthropic", true)
            .model("openai", "gpt-mcp", true)
            .model("anthropic", "old", false);
        assert!(p.supports_mcp(&ModelRef::new("anthropic", "claude")));
        assert!(!p.supports_mcp(&ModelRef::new("anthropic", "old")));
        assert!(p.supports_mcp(&ModelRef::new("openai", "gpt-mcp")));
        assert!(!p.supports_mcp(&ModelRef::new("openai", "gpt-4o")));
        assert!(!p.supports_mcp(&ModelRef::new("unknown", "m")));
        assert_eq!(
            ModelRef::parse("openai/gpt-4o"),
            Some(ModelRef::new("openai", "gpt-4o"))
        );
        assert_eq!(ModelRef::parse("nope"), None);
    }

    #[test]
    fn the_four_combinations() {
        let policy = ModelPolicy::new().provider("mcp", true);
        let native = ModelRef::new("mcp", "m1");
        let plain = ModelRef::new("openai", "gpt-4o");

        // no MCP + no wrapper: error naming model, server, both fixes
        let e = check_rules(
            &AgentConfig::new("a", plain.clone(), ["plain"]),
            &policy,
            &servers(),
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ModelServerMismatch);
        let m = e.to_string();
        for needle in [
            "model \"openai/gpt-4o\"",
            "server \"plain\"",
            "function_call_wrapper = true",
            "supports_mcp = true",
        ] {
            assert!(m.contains(needle), "{needle}: {m}");
        }
        // no MCP + wrapper: function calls, no warning
        let ok = check_rules(
            &AgentConfig::new("a", plain, ["wrapped"]),
            &policy,
            &servers(),
        )
        .unwrap();
        assert_eq!((ok.route, ok.warnings.len()), (Route::FunctionCalls, 0));
        // MCP + no wrapper: native, no warning
        let ok = check_rules(
            &AgentConfig::new("a", native.clone(), ["plain"]),
            &policy,
            &servers(),
        )
        .unwrap();
        assert_eq!((ok.route, ok.warnings.len()), (Route::Native, 0));
        // MCP + wrapper: native, warning
        let ok = check_rules(
            &AgentConfig::new("a", native, ["wrapped"]),
            &policy,
            &servers(),
        )
        .unwrap();
        assert_eq!(ok.route, Route::Native);
        assert_eq!(ok.warnings.len(), 1);
        assert!(
            ok.warnings[0].contains("unneeded overhead"),
            "{}",
            ok.warnings[0]
        );
        assert!(ok.warnings[0].contains("server \"wrapped\""));
    }

    #[test]
    fn unknown_server_is_a_config_error() {
        let e = check_rules(
            &AgentConfig::new("a", ModelRef::new("p", "m"), ["nope"]),
            &ModelPolicy::new(),
            &servers(),
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Config);
        assert!(e.to_string().contains("servers: plain, wrapped"), "{e}");
    }
}
