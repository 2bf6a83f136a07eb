//! Provider-native MCP: the model provider's own infrastructure connects to a remote MCP
//! server, instead of the application calling the tools.
//!
//! | connector | request parameters |
//! |---|---|
//! | [`Connector::Anthropic`] | `mcp_servers: [{"type": "url", "url", "name", "authorization_token"?}]` and, in `tools`, one `{"type": "mcp_toolset", "mcp_server_name", "default_config": {"enabled": false}, "configs": {"<tool>": {"enabled": true}}}` per server (Messages API, beta header [`ANTHROPIC_BETA`]) |
//! | [`Connector::OpenAi`] | in `tools`, one `{"type": "mcp", "server_label", "server_url", "headers"?, "authorization"?, "allowed_tools", "require_approval"}` per server (Responses API) |
//!
//! Each entry allows exactly the tools the application knows (its fixture's or the live list,
//! after the registry's `tools`/`exclude_tools` and the agent's restrictions): a tool the
//! server adds later reaches no model before it is reviewed. A server the provider cannot
//! reach is refused with the reason: a stdio server (it runs on this machine), a URL on a
//! loopback or private address (give the URL the provider reaches it at), a URL that is not
//! `https://` (Anthropic requires it), and for Anthropic any header but `Authorization: Bearer
//! …` (its connector takes only a bearer token).

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Value, json};

/// The `anthropic-beta` header value of the MCP connector these entries follow.
pub const ANTHROPIC_BETA: &str = "mcp-client-2025-11-20";

/// A provider's native MCP connector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Connector {
    /// Anthropic's Messages API MCP connector (`mcp_servers` and `mcp_toolset`).
    Anthropic,
    /// OpenAI's Responses API `mcp` tool.
    OpenAi,
}

impl Connector {
    /// Both connectors.
    pub const ALL: [Connector; 2] = [Connector::Anthropic, Connector::OpenAi];

    /// `anthropic-mcp` or `openai-mcp`.
    pub fn as_str(self) -> &'static str {
        match self {
            Connector::Anthropic => "anthropic-mcp",
            Connector::OpenAi => "openai-mcp",
        }
    }
}

impl fmt::Display for Connector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Connector {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Connector::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown connector \"{s}\"{}; use anthropic-mcp or openai-mcp",
                    mcp_bindgen_core::naming::did_you_mean(
                        s,
                        Connector::ALL.map(Connector::as_str)
                    )
                )
            })
    }
}

/// Which tool calls the provider asks the application to approve first (OpenAI's
/// `require_approval`; Anthropic's connector has no such setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Approval {
    /// Tools annotated read-only (`readOnlyHint: true`) run without approval, the others
    /// need it.
    #[default]
    Auto,
    /// Every call needs approval.
    Always,
    /// No call needs approval.
    Never,
}

impl FromStr for Approval {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(Approval::Auto),
            "always" => Ok(Approval::Always),
            "never" => Ok(Approval::Never),
            other => Err(format!(
                "unknown approval \"{other}\"; use auto (read-only tools need none), always or never"
            )),
        }
    }
}

/// One remote server as a connector entry needs it.
#[derive(Clone, PartialEq)]
pub struct RemoteServer {
    /// The server's alias (the entry's name or label).
    pub alias: String,
    /// The URL the provider reaches the server at.
    pub url: String,
    /// HTTP headers the server needs (values as they should be sent).
    pub headers: BTreeMap<String, String>,
    /// An OAuth access token, if the server uses OAuth.
    pub bearer: Option<String>,
    /// The tools to allow, as MCP defines them (their annotations decide [`Approval::Auto`]).
    pub tools: Vec<Value>,
}

impl fmt::Debug for RemoteServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RemoteServer")
            .field("alias", &self.alias)
            .field("url", &self.url)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("bearer", &self.bearer.as_ref().map(|_| "<redacted>"))
            .field("tools", &self.tools.len())
            .finish()
    }
}

/// A server left out of a connector export, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The server's alias.
    pub alias: String,
    /// Why the provider cannot use it.
    pub reason: String,
}

impl Refused {
    /// A stdio server: it runs on this machine, and no provider can start it.
    pub fn stdio(alias: impl Into<String>) -> Self {
        Refused {
            alias: alias.into(),
            reason: "a stdio server runs on this machine and the provider cannot start it; export its tools as functions instead".into(),
        }
    }
}

/// The request parameters for a connector: what goes into the request besides the model and
/// the messages.
#[derive(Clone, PartialEq, Default)]
pub struct ConnectorExport {
    /// Anthropic: the `mcp_servers` array (empty for OpenAI).
    pub mcp_servers: Vec<Value>,
    /// Entries of the request's `tools` array: Anthropic's `mcp_toolset`s or OpenAI's `mcp`
    /// tools.
    pub tools: Vec<Value>,
    /// The servers left out, with the reason.
    pub refused: Vec<Refused>,
}

impl fmt::Debug for ConnectorExport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The entries carry credentials.
        f.debug_struct("ConnectorExport")
            .field("mcp_servers", &self.mcp_servers.len())
            .field("tools", &self.tools.len())
            .field("refused", &self.refused)
            .finish()
    }
}

/// Why a provider cannot reach `url`, if it cannot: not HTTP(S), a loopback or private
/// host, or (Anthropic) not `https://`.
pub fn unreachable(connector: Connector, url: &str) -> Option<String> {
    let Some((scheme, rest)) = url.split_once("://") else {
        return Some(format!("\"{url}\" is not a URL"));
    };
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "https" && scheme != "http" {
        return Some(format!("\"{url}\" is not an HTTP URL"));
    }
    if connector == Connector::Anthropic && scheme != "https" {
        return Some(format!(
            "Anthropic's MCP connector needs an https:// URL, not {url}"
        ));
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    let host = match host_port.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host_port.split(':').next().unwrap_or_default(),
    }
    .to_ascii_lowercase();
    if private_host(&host) {
        return Some(format!(
            "{host} is a loopback or private address, which the provider's servers cannot reach; give the URL they reach the server at"
        ));
    }
    None
}

fn private_host(host: &str) -> bool {
    if host == "localhost" || host.ends_with(".localhost") || host.ends_with(".local") {
        return true;
    }
    match host.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(ip)) => {
            ip.is_loopback()
                || ip.is_private()
                || ip.is_link_local()
                || ip.is_unspecified()
                || ip.octets()[0] == 100 && (ip.octets()[1] & 0xC0) == 64
        }
        Ok(std::net::IpAddr::V6(ip)) => {
            ip.is_loopback()
                || ip.is_unspecified()
                || (ip.segments()[0] & 0xfe00) == 0xfc00
                || (ip.segments()[0] & 0xffc0) == 0xfe80
        }
        Err(_) => false,
    }
}

/// The connector entries of `servers`, in their order; a server the provider cannot use
/// goes to [`ConnectorExport::refused`], beside those `refused` already (sorted by alias).
pub fn connector_export(
    connector: Connector,
    servers: &[RemoteServer],
    approval: Approval,
    refused: Vec<Refused>,
) -> ConnectorExport {
    let mut out = ConnectorExport {
        refused,
        ..ConnectorExport::default()
    };
    for server in servers {
        match entry(connector, server, approval) {
            Ok((mcp_server, tool)) => {
                out.mcp_servers.extend(mcp_server);
                out.tools.push(tool);
            }
            Err(reason) => out.refused.push(Refused {
                alias: server.alias.clone(),
                reason,
            }),
        }
    }
    out.refused.sort_by(|a, b| a.alias.cmp(&b.alias));
    out
}

/// The names of `tools`, sorted, once each.
fn tool_names<'t>(tools: impl IntoIterator<Item = &'t Value>) -> Vec<String> {
    let mut names: Vec<String> = tools
        .into_iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str).map(str::to_string))
        .collect();
    names.sort();
    names.dedup();
    names
}

fn read_only(tool: &Value) -> bool {
    tool.pointer("/annotations/readOnlyHint") == Some(&Value::Bool(true))
}

/// One server's entries: Anthropic's `(mcp_servers entry, mcp_toolset)`, OpenAI's
/// `(None, mcp tool)`.
fn entry(
    connector: Connector,
    server: &RemoteServer,
    approval: Approval,
) -> Result<(Option<Value>, Value), String> {
    if let Some(reason) = unreachable(connector, &server.url) {
        return Err(reason);
    }
    let names = tool_names(&server.tools);
    match connector {
        Connector::Anthropic => {
            let mut token = server.bearer.clone();
            for (name, value) in &server.headers {
                let bearer = value
                    .strip_prefix("Bearer ")
                    .filter(|_| name.eq_ignore_ascii_case("authorization"));
                match bearer {
                    Some(t) if token.is_none() => token = Some(t.to_string()),
                    _ => {
                        return Err(format!(
                            "Anthropic's MCP connector takes only a bearer token, not the header `{name}`"
                        ));
                    }
                }
            }
            let mut entry = Map::new();
            entry.insert("type".into(), json!("url"));
            entry.insert("url".into(), json!(server.url));
            entry.insert("name".into(), json!(server.alias));
            if let Some(token) = token {
                entry.insert("authorization_token".into(), json!(token));
            }
            let configs: Map<String, Value> = names
                .iter()
                .map(|n| (n.clone(), json!({"enabled": true})))
                .collect();
            let toolset = json!({
                "type": "mcp_toolset",
                "mcp_server_name": server.alias,
                "default_config": {"enabled": false},
                "configs": configs,
            });
            Ok((Some(Value::Object(entry)), toolset))
        }
        Connector::OpenAi => {
            let mut tool = Map::new();
            tool.insert("type".into(), json!("mcp"));
            tool.insert("server_label".into(), json!(server.alias));
            tool.insert("server_url".into(), json!(server.url));
            if !server.headers.is_empty() {
                tool.insert("headers".into(), json!(server.headers));
            }
            if let Some(token) = &server.bearer {
                tool.insert("authorization".into(), json!(token));
            }
            tool.insert("allowed_tools".into(), json!(names));
            let require = match approval {
                Approval::Always => json!("always"),
                Approval::Never => json!("never"),
                Approval::Auto => {
                    let (free, asked): (Vec<&Value>, Vec<&Value>) =
                        server.tools.iter().partition(|t| read_only(t));
                    match (free.is_empty(), asked.is_empty()) {
                        (true, _) => json!("always"),
                        (false, true) => json!("never"),
                        (false, false) => json!({
                            "never": {"tool_names": tool_names(free)},
                            "always": {"tool_names": tool_names(asked)},
                        }),
                    }
                }
            };
            tool.insert("require_approval".into(), require);
            Ok((None, Value::Object(tool)))
        }
    }
}

/// Checks an export against the connector's documented request shape: required fields,
/// their types, names that are unique and that the toolsets point to.
pub fn check(connector: Connector, export: &ConnectorExport) -> Result<(), String> {
    let text = |v: &Value, k: &str| -> Result<String, String> {
        v.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .ok_or_else(|| format!("an entry without `{k}`: {v}"))
    };
    let mut seen = std::collections::BTreeSet::new();
    match connector {
        Connector::Anthropic => {
            for s in &export.mcp_servers {
                if s.get("type") != Some(&json!("url")) {
                    return Err(format!(
                        "an mcp_servers entry whose type is not \"url\": {s}"
                    ));
                }
                let url = text(s, "url")?;
                if !url.starts_with("https://") {
                    return Err(format!("{url}: Anthropic's connector needs https://"));
                }
                if !seen.insert(text(s, "name")?) {
                    return Err(format!("two mcp_servers named {}", text(s, "name")?));
                }
            }
            for t in &export.tools {
                if t.get("type") != Some(&json!("mcp_toolset")) {
                    return Err(format!("a tools entry that is not an mcp_toolset: {t}"));
                }
                let name = text(t, "mcp_server_name")?;
                if !seen.contains(&name) {
                    return Err(format!("an mcp_toolset for the unknown server {name}"));
                }
                let configs = t.get("configs").and_then(Value::as_object);
                if configs.is_none_or(|c| c.values().any(|v| !v["enabled"].is_boolean())) {
                    return Err(format!(
                        "{name}: `configs` is not a map of {{\"enabled\": bool}}"
                    ));
                }
            }
        }
        Connector::OpenAi => {
            if !export.mcp_servers.is_empty() {
                return Err("OpenAI's connector has no mcp_servers array".into());
            }
            for t in &export.tools {
                if t.get("type") != Some(&json!("mcp")) {
                    return Err(format!("a tools entry whose type is not \"mcp\": {t}"));
                }
                text(t, "server_url")?;
                let label = text(t, "server_label")?;
                if !label
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                {
                    return Err(format!("server_label {label:?} is not [A-Za-z0-9_-]+"));
                }
                if !seen.insert(label.clone()) {
                    return Err(format!("two mcp tools labelled {label}"));
                }
                if !t["allowed_tools"]
                    .as_array()
                    .is_some_and(|a| a.iter().all(Value::is_string))
                {
                    return Err(format!("{label}: allowed_tools is not a list of names"));
                }
                let approval = &t["require_approval"];
                let filter_ok = |k: &str| {
                    approval.get(k).is_none_or(|f| {
                        f["tool_names"]
                            .as_array()
                            .is_some_and(|a| a.iter().all(Value::is_string))
                    })
                };
                let valid = matches!(approval.as_str(), Some("always" | "never"))
                    || (approval.is_object() && filter_ok("always") && filter_ok("never"));
                if !valid {
                    return Err(format!(
                        "{label}: require_approval is not always, never or a filter"
                    ));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(url: &str) -> RemoteServer {
        RemoteServer {
            alias: "gh".into(),
            url: url.into(),
            headers: BTreeMap::new(),
            bearer: None,
            tools: vec![
                json!({"name": "search", "annotations": {"readOnlyHint": true}}),
                json!({"name": "create_issue", "annotations": {"readOnlyHint": false}}),
                json!({"name": "merge"}),
            ],
        }
    }

    #[test]
    fn unreachable_urls_are_told() {
        for url in [
            "http://127.0.0.1:8000/mcp",
            "https://localhost/mcp",
            "https://10.0.0.4/mcp",
            "https://192.168.1.2:9000/mcp",
            "https://[::1]:8080/mcp",
            "https://printer.local/mcp",
            "https://user:pw@172.16.0.1/mcp",
        ] {
            let why = unreachable(Connector::OpenAi, url).unwrap_or_default();
            assert!(why.contains("loopback or private"), "{url}: {why:?}");
        }
        assert_eq!(
            unreachable(Connector::OpenAi, "https://mcp.example.com/mcp"),
            None
        );
        assert_eq!(
            unreachable(Connector::OpenAi, "http://mcp.example.com/mcp"),
            None
        );
        let why = unreachable(Connector::Anthropic, "http://mcp.example.com/mcp");
        assert!(why.is_some_and(|w| w.contains("https://")));
        assert!(unreachable(Connector::OpenAi, "stdio").is_some());
    }

    #[test]
    fn anthropic_entries_name_the_server_allow_its_tools_and_take_the_bearer() {
        let mut s = server("https://api.example.com/mcp");
        s.headers
            .insert("Authorization".into(), "Bearer t0k".into());
        let export = connector_export(
            Connector::Anthropic,
            &[s.clone()],
            Approval::Auto,
            Vec::new(),
        );
        assert!(export.refused.is_empty(), "{:?}", export.refused);
        assert_eq!(
            export.mcp_servers,
            [
                json!({"type": "url", "url": "https://api.example.com/mcp", "name": "gh", "authorization_token": "t0k"})
            ]
        );
        assert_eq!(
            export.tools,
            [
                json!({"type": "mcp_toolset", "mcp_server_name": "gh", "default_config": {"enabled": false},
                    "configs": {"create_issue": {"enabled": true}, "merge": {"enabled": true}, "search": {"enabled": true}}})
            ]
        );
        check(Connector::Anthropic, &export).expect("valid");
        // Any other header cannot be passed: refused with the header named.
        s.headers.insert("X-Tenant".into(), "acme".into());
        let export = connector_export(Connector::Anthropic, &[s], Approval::Auto, Vec::new());
        assert!(export.tools.is_empty());
        assert!(
            export.refused[0].reason.contains("`X-Tenant`"),
            "{:?}",
            export.refused
        );
    }

    #[test]
    fn openai_entries_carry_headers_token_allowlist_and_approval() {
        let mut s = server("https://api.example.com/mcp");
        s.headers.insert("X-Tenant".into(), "acme".into());
        s.bearer = Some("oauth-token".into());
        let auto = connector_export(Connector::OpenAi, &[s.clone()], Approval::Auto, Vec::new());
        assert!(auto.mcp_servers.is_empty());
        assert_eq!(
            auto.tools,
            [
                json!({"type": "mcp", "server_label": "gh", "server_url": "https://api.example.com/mcp",
                    "headers": {"X-Tenant": "acme"}, "authorization": "oauth-token",
                    "allowed_tools": ["create_issue", "merge", "search"],
                    "require_approval": {"never": {"tool_names": ["search"]},
                                         "always": {"tool_names": ["create_issue", "merge"]}}})
            ]
        );
        check(Connector::OpenAi, &auto).expect("valid");
        for (approval, want) in [(Approval::Always, "always"), (Approval::Never, "never")] {
            let e = connector_export(Connector::OpenAi, &[s.clone()], approval, Vec::new());
            assert_eq!(e.tools[0]["require_approval"], json!(want));
        }
        // Only read-only tools: nothing to approve.
        s.tools.truncate(1);
        let e = connector_export(Connector::OpenAi, &[s], Approval::Auto, Vec::new());
        assert_eq!(e.tools[0]["require_approval"], json!("never"));
        // Debug shows no credential.
        let shown = format!("{e:?} {:?}", server("https://x.example"));
        assert!(
            !shown.contains("oauth-token") && !shown.contains("acme"),
            "{shown}"
        );
    }

    #[test]
    fn check_refuses_what_the_providers_refuse() {
        let bad_anthropic = ConnectorExport {
            mcp_servers: vec![json!({"type": "url", "url": "http://x.example/mcp", "name": "a"})],
            ..Default::default()
        };
        assert!(check(Connector::Anthropic, &bad_anthropic).is_err());
        let orphan = ConnectorExport {
            tools: vec![json!({"type": "mcp_toolset", "mcp_server_name": "b", "configs": {}})],
            ..Default::default()
        };
        assert!(check(Connector::Anthropic, &orphan).is_err());
        let label = ConnectorExport {
            tools: vec![
                json!({"type": "mcp", "server_label": "a b", "server_url": "https://x.example",
                               "allowed_tools": [], "require_approval": "never"}),
            ],
            ..Default::default()
        };
        assert!(check(Connector::OpenAi, &label).is_err());
        let approval = ConnectorExport {
            tools: vec![
                json!({"type": "mcp", "server_label": "a", "server_url": "https://x.example",
                               "allowed_tools": [], "require_approval": "sometimes"}),
            ],
            ..Default::default()
        };
        assert!(check(Connector::OpenAi, &approval).is_err());
        assert_eq!("openai-mcp".parse::<Connector>(), Ok(Connector::OpenAi));
        assert!("mcp".parse::<Connector>().is_err());
        assert_eq!("never".parse::<Approval>(), Ok(Approval::Never));
    }
}
