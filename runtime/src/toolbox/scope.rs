//! The servers and tools one agent may use: what the catalog, the export and the dispatch
//! consult to hide or refuse everything else.

use std::collections::BTreeSet;

use crate::config::agents::AgentConfig;
use crate::error::{Error, ErrorKind};

/// How an agent gets its tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// MCP tool definitions and sessions (direct passage): the model supports MCP.
    Native,
    /// Function-call definitions and dispatch (wrapper): the model does not.
    FunctionCalls,
}

/// What an agent's toolbox is restricted to: the agent, how its model gets tools, the
/// warnings of the model/server rules, its servers and tools.
pub(super) struct Agent {
    pub(super) config: AgentConfig,
    pub(super) route: Route,
    pub(super) warnings: Vec<String>,
    pub(super) scope: Scope,
}

/// The servers and tools an agent may use.
#[derive(Debug, Clone)]
pub(super) struct Scope {
    agent: String,
    servers: BTreeSet<String>,
    tools: Option<BTreeSet<(String, String)>>,
    /// The agent sees live tools missing from their server's fixture.
    pub(super) unreviewed: bool,
}

impl Scope {
    /// Every tool of `servers`, for the agent named `agent`.
    pub(super) fn new(agent: &str, servers: BTreeSet<String>) -> Scope {
        Scope {
            agent: agent.to_string(),
            servers,
            tools: None,
            unreviewed: false,
        }
    }

    /// Only these `(server, tool)` pairs.
    pub(super) fn restrict_to(&mut self, tools: BTreeSet<(String, String)>) {
        self.tools = Some(tools);
    }

    pub(super) fn has_server(&self, alias: &str) -> bool {
        self.servers.contains(alias)
    }

    /// Whether the agent may use `tool` of `server`. Local tools (empty `server`) are
    /// allowed unless the agent has a tool list that does not name them.
    pub(super) fn allows(&self, server: &str, tool: &str) -> bool {
        (server.is_empty() || self.servers.contains(server))
            && self
                .tools
                .as_ref()
                .is_none_or(|t| t.contains(&(server.to_string(), tool.to_string())))
    }

    pub(super) fn refusal(&self, name: &str, server: &str, tool: &str) -> Error {
        let why = if server.is_empty() {
            format!("local tool \"{tool}\" is not in its tool list")
        } else if self.servers.contains(server) {
            format!("tool \"{tool}\" of server \"{server}\" is not in its tool list")
        } else {
            format!(
                "server \"{server}\" is not one of its servers ({})",
                self.servers.iter().cloned().collect::<Vec<_>>().join(", ")
            )
        };
        Error::toolbox(
            ErrorKind::NotAllowed,
            format!(
                "tool \"{name}\" is not available to agent \"{}\": {why}; call one of the tools you were given",
                self.agent
            ),
        )
    }
}
