//! Agents and the model policy: the data the agent layer ([`crate::toolbox`]) checks, built
//! in code or read from the registry's `[models.*]` and `[agents.*]` tables (`"models"` and
//! `"agents"` in the JSON shape).

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::IgnoredAny;

/// A model: its provider and its name (`openai` / `gpt-4o`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModelRef {
    /// The provider (`openai`, `anthropic`, …).
    pub provider: String,
    /// The model's name.
    pub model: String,
}

impl ModelRef {
    /// A model of a provider.
    pub fn new(provider: impl Into<String>, model: impl Into<String>) -> Self {
        ModelRef {
            provider: provider.into(),
            model: model.into(),
        }
    }

    /// Parses `provider/model` (the model part may contain further `/`).
    pub fn parse(text: &str) -> Option<Self> {
        let (p, m) = text.split_once('/')?;
        (!p.is_empty() && !m.is_empty()).then(|| ModelRef::new(p, m))
    }
}

impl fmt::Display for ModelRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.provider, self.model)
    }
}

/// Which models support MCP natively: per provider (default false), with per-model
/// overrides.
///
/// Built in code, or read from the registry ([`crate::Registry::model_policy`]):
///
/// ```toml
/// [models.anthropic]          # every model of the provider
/// supports_mcp = true
/// [models."openai/gpt-5"]     # one model: "provider/model", quoted
/// supports_mcp = true
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelPolicy {
    providers: BTreeMap<String, bool>,
    models: BTreeMap<(String, String), bool>,
}

impl ModelPolicy {
    /// No provider supports MCP.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `supports_mcp` for every model of a provider.
    pub fn provider(mut self, provider: impl Into<String>, supports_mcp: bool) -> Self {
        self.providers.insert(provider.into(), supports_mcp);
        self
    }

    /// Sets `supports_mcp` for one model, overriding its provider's setting.
    pub fn model(
        mut self,
        provider: impl Into<String>,
        model: impl Into<String>,
        supports_mcp: bool,
    ) -> Self {
        self.models
            .insert((provider.into(), model.into()), supports_mcp);
        self
    }

    /// Whether the model supports MCP: its override, else its provider's setting, else
    /// false.
    pub fn supports_mcp(&self, model: &ModelRef) -> bool {
        self.models
            .get(&(model.provider.clone(), model.model.clone()))
            .or_else(|| self.providers.get(&model.provider))
            .copied()
            .unwrap_or(false)
    }

    /// Whether no provider or model has a setting.
    pub fn is_empty(&self) -> bool {
        self.providers.is_empty() && self.models.is_empty()
    }
}

/// One agent: its model and the servers (and optionally tools) it may use.
///
/// Built in code, or read from the registry ([`crate::Registry::agent`]):
///
/// ```toml
/// [agents.researcher]
/// model = "openai/gpt-5"
/// servers = ["github", "fetch"]
/// tools = ["github.search_code", "fetch.fetch"]   # optional
/// unreviewed_tools = false   # optional: offer live tools missing from a server's fixture
/// require_fixture = false    # optional: refuse a server without a fixture
/// # optional: the rules an approval hook (`toolbox::ApprovalPolicy`) applies to this
/// # agent's calls, by tool (`alias.tool`) or whole server (`alias`)
/// approval = { ask = ["fetch"], allow = ["github.create_issue"], refuse = ["github.merge_pull_request"] }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentConfig {
    /// The agent's name (in messages).
    pub name: String,
    /// Its model.
    pub model: ModelRef,
    /// The servers it may use.
    pub servers: Vec<String>,
    /// If set, only these tools of those servers: `alias.tool`, exported names or
    /// unambiguous short names.
    pub tools: Option<Vec<String>>,
    /// The agent is offered (and may call) live tools missing from their server's fixture
    /// (default false: only reviewed tools).
    pub unreviewed_tools: bool,
    /// The agent may use only servers that have a fixture (default false).
    pub require_fixture: bool,
    /// The approval rules of this agent's calls, by `alias.tool` or `alias` (the registry's
    /// `approval = { ask, allow, refuse }`): an approval hook applies them first
    /// ([`ApprovalRule`]; `toolbox::ModelCall::approval`).
    pub approval: BTreeMap<String, ApprovalRule>,
}

/// What an approval hook does with a call (`toolbox::ApprovalPolicy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ApprovalRule {
    /// Run without asking.
    Allow,
    /// Ask the approver.
    Ask,
    /// Never run.
    Refuse,
}

impl AgentConfig {
    /// An agent using every tool of `servers`.
    pub fn new<I, S>(name: impl Into<String>, model: ModelRef, servers: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        AgentConfig {
            name: name.into(),
            model,
            servers: servers.into_iter().map(Into::into).collect(),
            tools: None,
            unreviewed_tools: false,
            require_fixture: false,
            approval: BTreeMap::new(),
        }
    }

    /// Sets the approval rule of a tool (`alias.tool`) or a whole server (`alias`) for this
    /// agent ([`AgentConfig::approval`]).
    pub fn with_approval(mut self, name: impl Into<String>, rule: ApprovalRule) -> Self {
        self.approval.insert(name.into(), rule);
        self
    }

    /// The agent's approval rule of one tool: the tool's own, else its server's.
    pub fn approval_rule(&self, server: &str, tool: &str) -> Option<ApprovalRule> {
        self.approval
            .get(&format!("{server}.{tool}"))
            .or_else(|| self.approval.get(server))
            .copied()
    }

    /// Sets [`AgentConfig::unreviewed_tools`].
    pub fn with_unreviewed_tools(mut self, allow: bool) -> Self {
        self.unreviewed_tools = allow;
        self
    }

    /// Sets [`AgentConfig::require_fixture`].
    pub fn with_require_fixture(mut self, require: bool) -> Self {
        self.require_fixture = require;
        self
    }

    /// Restricts the agent to these tools.
    pub fn with_tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tools = Some(tools.into_iter().map(Into::into).collect());
        self
    }
}

/// One entry of `[models]`: `[models.<provider>]` or `[models."<provider>/<model>"]`.
#[derive(Deserialize)]
pub(super) struct RawModel {
    #[serde(alias = "supportsMcp")]
    supports_mcp: Option<bool>,
    #[serde(flatten)]
    other: BTreeMap<String, IgnoredAny>,
}

/// One entry of `[agents]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAgent {
    model: String,
    servers: Vec<String>,
    tools: Option<Vec<String>>,
    #[serde(default, alias = "unreviewedTools")]
    unreviewed_tools: bool,
    #[serde(default, alias = "requireFixture")]
    require_fixture: bool,
    approval: Option<RawApproval>,
}

/// An agent's `approval = { ask = […], allow = […], refuse = […] }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawApproval {
    #[serde(default)]
    ask: Vec<String>,
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    refuse: Vec<String>,
}

/// Adds one `[models.<key>]` entry to `policy`; the error is the message of a registry
/// error about that entry.
pub(super) fn add_model(
    policy: ModelPolicy,
    key: &str,
    raw: RawModel,
) -> Result<ModelPolicy, String> {
    if let Some(extra) = raw.other.keys().next() {
        return Err(if key.contains('/') {
            format!("unknown key `{extra}` (a model entry takes `supports_mcp` only)")
        } else {
            format!(
                "unknown key `{extra}` (a model entry takes `supports_mcp` only; one model of a provider is written [models.\"{key}/{extra}\"])"
            )
        });
    }
    let Some(supports) = raw.supports_mcp else {
        return Err("missing `supports_mcp = true|false`".into());
    };
    if key.contains('/') {
        let model = ModelRef::parse(key)
            .ok_or_else(|| format!("\"{key}\" is neither a provider nor \"provider/model\""))?;
        Ok(policy.model(model.provider, model.model, supports))
    } else if key.is_empty() {
        Err("an empty provider name".into())
    } else {
        Ok(policy.provider(key, supports))
    }
}

impl RawAgent {
    /// The agent `name`, with `server` mapping a server name as written (the alias, or the
    /// entry's name before its normalization) to its alias. The error is the message of a
    /// registry error about the agent.
    pub(super) fn into_agent(
        self,
        name: &str,
        server: impl Fn(&str) -> Result<String, String>,
    ) -> Result<AgentConfig, String> {
        if name.trim().is_empty() {
            return Err("an agent needs a name".into());
        }
        let model = ModelRef::parse(&self.model).ok_or_else(|| {
            format!(
                "`model = \"{}\"` is not \"provider/model\" (e.g. \"openai/gpt-5\")",
                self.model
            )
        })?;
        let mut servers = Vec::with_capacity(self.servers.len());
        let mut renamed = Vec::new();
        for written in &self.servers {
            let alias = server(written)?;
            if alias != *written {
                renamed.push((written.clone(), alias.clone()));
            }
            if !servers.contains(&alias) {
                servers.push(alias);
            }
        }
        // `alias.tool` entries follow their server's normalized alias.
        let tools = self.tools.map(|tools| {
            tools
                .into_iter()
                .map(|t| {
                    renamed
                        .iter()
                        .find_map(|(from, to)| {
                            t.strip_prefix(from.as_str())
                                .and_then(|rest| rest.strip_prefix('.'))
                                .map(|tool| format!("{to}.{tool}"))
                        })
                        .unwrap_or(t)
                })
                .collect()
        });
        let mut approval = BTreeMap::new();
        if let Some(raw) = self.approval {
            for (rule, names) in [
                (ApprovalRule::Ask, raw.ask),
                (ApprovalRule::Allow, raw.allow),
                (ApprovalRule::Refuse, raw.refuse),
            ] {
                for written in names {
                    let (server_written, tool) = match written.split_once('.') {
                        Some((s, t)) => (s, Some(t)),
                        None => (written.as_str(), None),
                    };
                    let alias = server(server_written)?;
                    if !servers.contains(&alias) {
                        return Err(format!(
                            "`approval` names \"{written}\", and server \"{alias}\" is not one of the agent's servers ({})",
                            servers.join(", ")
                        ));
                    }
                    let name = match tool {
                        Some(tool) => format!("{alias}.{tool}"),
                        None => alias,
                    };
                    if let Some(before) = approval.insert(name.clone(), rule)
                        && before != rule
                    {
                        return Err(format!(
                            "`approval` gives \"{name}\" two rules ({before:?} and {rule:?})"
                        ));
                    }
                }
            }
        }
        Ok(AgentConfig {
            name: name.to_string(),
            model,
            servers,
            tools,
            unreviewed_tools: self.unreviewed_tools,
            require_fixture: self.require_fixture,
            approval,
        })
    }
}
