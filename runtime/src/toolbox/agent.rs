//! Agents: which model, which servers and tools; the model/server rules; the
//! restricted view each agent gets.

use std::collections::BTreeSet;

use serde_json::Value;

use super::Toolbox;
use super::catalog::{ExportedTool, Snapshot, ToolRef, tool_ref};
use super::dispatch::Dispatch;
use super::export::{NativeServer, OpenAiExport, export, native};
use super::provider::{Format, ToolExport};
use super::scope::Scope;
use crate::config::ServerConfig;
pub use crate::config::agents::{AgentConfig, ModelPolicy, ModelRef};
use crate::error::{Error, ErrorKind};
use crate::session::{CallOptions, CallStream, Session};

/// How an agent gets its tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// MCP tool definitions and sessions (direct passage): the model supports MCP.
    Native,
    /// Function-call definitions and dispatch (wrapper): the model does not.
    FunctionCalls,
}

/// The outcome of [`check_rules`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleCheck {
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
pub fn check_rules(
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
    /// Creates the view of one agent: checks the model/server rules (an error for a
    /// model without MCP support and a server without `function_call_wrapper`; a warning,
    /// logged and kept in [`AgentView::warnings`], for an MCP model and a wrapper server) and
    /// restricts everything to the agent's servers and tools.
    pub fn agent(&self, config: &AgentConfig, policy: &ModelPolicy) -> Result<AgentView, Error> {
        let servers = self.server_configs();
        let check = check_rules(config, policy, &servers)?;
        let scope = scope_of(config, &self.snapshot())?;
        Ok(AgentView::new(self.clone(), config.clone(), check, scope))
    }
}

/// What a model gets, by route.
#[derive(Debug, Clone)]
pub enum AgentTools {
    /// Raw MCP tool definitions and sessions.
    Native(Vec<NativeServer>),
    /// Function-call definitions (the `tools` array); calls go through
    /// [`AgentView::call`].
    FunctionCalls(OpenAiExport),
}

/// One agent's restricted view of a [`Toolbox`]: it lists, exports, routes and dispatches only
/// the agent's servers and tools; anything else is refused
/// ([`ErrorKind::NotAllowed`]).
#[derive(Debug, Clone)]
pub struct AgentView {
    toolbox: Toolbox,
    config: AgentConfig,
    check: RuleCheck,
    scope: Scope,
}

impl AgentView {
    pub(super) fn new(
        toolbox: Toolbox,
        config: AgentConfig,
        check: RuleCheck,
        scope: Scope,
    ) -> Self {
        AgentView {
            toolbox,
            config,
            check,
            scope,
        }
    }

    /// The agent's configuration.
    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    /// How the agent gets its tools.
    pub fn route(&self) -> Route {
        self.check.route
    }

    /// Warnings of the model/server rules.
    pub fn warnings(&self) -> &[String] {
        &self.check.warnings
    }

    /// The tools the agent may use.
    pub fn tools(&self) -> Vec<ExportedTool> {
        self.toolbox
            .snapshot()
            .entries
            .iter()
            .filter(|e| self.scope.allows(&e.tool.server, &e.tool.tool))
            .map(|e| e.tool.clone())
            .collect()
    }

    /// The agent's `tools` array of function definitions (strict where possible).
    pub fn openai_tools(&self, strict: bool) -> Vec<Value> {
        self.openai_export(strict).tools
    }

    /// [`AgentView::openai_tools`] with the strict fallbacks.
    pub fn openai_export(&self, strict: bool) -> OpenAiExport {
        self.export(if strict {
            Format::OpenAiStrict
        } else {
            Format::OpenAi
        })
    }

    /// The agent's tools in a provider's format, with the fallbacks.
    pub fn export(&self, format: Format) -> ToolExport {
        export(&self.toolbox.snapshot(), format, Some(&self.scope))
    }

    /// Raw MCP definitions and sessions of the agent's connected servers.
    pub fn native_servers(&self) -> Vec<NativeServer> {
        native(&self.toolbox.snapshot(), Some(&self.scope))
    }

    /// What the model gets: native servers for an MCP model, function definitions otherwise.
    pub fn model_tools(&self, strict: bool) -> AgentTools {
        match self.check.route {
            Route::Native => AgentTools::Native(self.native_servers()),
            Route::FunctionCalls => AgentTools::FunctionCalls(self.openai_export(strict)),
        }
    }

    /// The session of one of the agent's servers.
    pub fn session(&self, alias: &str) -> Option<Session> {
        if self.scope.has_server(alias) {
            self.toolbox.session(alias)
        } else {
            None
        }
    }

    /// Resolves a name among the agent's tools.
    pub fn resolve(&self, name: &str) -> Result<ToolRef, Error> {
        let snap = self.toolbox.snapshot();
        let i = snap.resolve(name, Some(&self.scope))?;
        Ok(tool_ref(&snap, i))
    }

    /// Dispatches a tool call of the agent's model; tools outside its configuration are
    /// refused.
    pub async fn call(&self, name: &str, arguments_json: &str) -> Dispatch {
        self.call_with(
            name,
            arguments_json,
            self.toolbox.options().call_options.clone(),
        )
        .await
    }

    /// [`Toolbox::call_stream`] within the agent's servers and tools.
    pub async fn call_stream(&self, name: &str, arguments_json: &str) -> CallStream {
        self.toolbox
            .stream(
                name,
                arguments_json,
                Some(&self.scope),
                self.toolbox.options().call_options.clone(),
            )
            .await
    }

    /// [`AgentView::call`] with per-call options.
    pub async fn call_with(
        &self,
        name: &str,
        arguments_json: &str,
        options: CallOptions,
    ) -> Dispatch {
        self.toolbox
            .dispatch(name, arguments_json, Some(&self.scope), options)
            .await
    }

    /// The prompts of one of the agent's servers.
    pub async fn list_prompts(&self, alias: &str) -> Result<Vec<Value>, Error> {
        self.check_server(alias)?;
        self.toolbox.list_prompts(alias).await
    }

    /// The resource templates of one of the agent's servers.
    pub async fn list_resource_templates(&self, alias: &str) -> Result<Vec<Value>, Error> {
        self.check_server(alias)?;
        self.toolbox.list_resource_templates(alias).await
    }

    /// The resources of one of the agent's servers.
    pub async fn list_resources(&self, alias: &str) -> Result<Vec<Value>, Error> {
        self.check_server(alias)?;
        self.toolbox.list_resources(alias).await
    }

    /// Reads a resource of one of the agent's servers.
    pub async fn read_resource(&self, alias: &str, uri: &str) -> Result<Value, Error> {
        self.check_server(alias)?;
        self.toolbox.read_resource(alias, uri).await
    }

    /// Gets a prompt of one of the agent's servers.
    pub async fn get_prompt(
        &self,
        alias: &str,
        name: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<Value, Error> {
        self.check_server(alias)?;
        self.toolbox.get_prompt(alias, name, arguments).await
    }

    fn check_server(&self, alias: &str) -> Result<(), Error> {
        if self.scope.has_server(alias) {
            Ok(())
        } else {
            Err(Error::toolbox(
                ErrorKind::NotAllowed,
                format!(
                    "server \"{alias}\" is not available to agent \"{}\" (its servers: {})",
                    self.config.name,
                    self.config.servers.join(", ")
                ),
            ))
        }
    }
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
