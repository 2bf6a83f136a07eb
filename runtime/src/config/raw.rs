//! The serde shape of the two registry files and the one builder that turns a server entry
//! of either into a [`ServerConfig`].
//!
//! Both shapes read a server entry into the same [`RawServer`]; what differs between them is
//! the file around it ([`TomlFile`], [`JsonFile`]) and the points [`Shape`] names. Keys that
//! are not ours are kept in [`RawServer::other`] and judged by `registry` with `keys`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use toml::Spanned;

use super::agents::{RawAgent, RawModel};
use super::auth::RawAuth;
use super::keys::check_alias;
use super::resolve::{SubstError, substitute};
use super::{InheritEnv, Protocol, ServerConfig, TransportConfig};
use crate::drift::DriftPolicy;

/// `fixtures/servers.toml`: `[servers.<alias>]`, `[models.<provider>]` /
/// `[models."<provider>/<model>"]` and `[agents.<name>]` tables.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TomlFile {
    #[serde(default)]
    pub(super) servers: BTreeMap<Spanned<String>, Spanned<RawServer>>,
    #[serde(default)]
    pub(super) models: BTreeMap<Spanned<String>, RawModel>,
    #[serde(default)]
    pub(super) agents: BTreeMap<Spanned<String>, RawAgent>,
}

/// The Claude-Desktop / Cursor shape `{"mcpServers": {…}}` or VS Code's `{"servers": {…}}`
/// (`.vscode/mcp.json`), with our `"models"` and `"agents"`. Other top-level keys are
/// ignored: the file usually holds a client's other settings too.
#[derive(Deserialize)]
pub(super) struct JsonFile {
    #[serde(rename = "mcpServers")]
    pub(super) mcp_servers: Option<UniqueMap<RawServer>>,
    /// VS Code's spelling of `mcpServers`.
    pub(super) servers: Option<UniqueMap<RawServer>>,
    /// VS Code's prompted variables: not read (one warning).
    pub(super) inputs: Option<IgnoredAny>,
    pub(super) models: Option<UniqueMap<RawModel>>,
    pub(super) agents: Option<UniqueMap<RawAgent>>,
}

/// Which file a server entry was read from: where the two shapes still differ.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    /// `servers.toml`: a missing transport gets the longer hint, `"http"` is no transport.
    Toml,
    /// `{"mcpServers": …}`: `"type": "http"` means Streamable HTTP, as in those clients;
    /// unknown keys that are no typo of ours are ignored (other clients' keys).
    Json,
}

impl Shape {
    /// How a key is written in this shape, for messages: `enabled = false` or
    /// `"enabled": false`.
    pub(super) fn key_value(self, key: &str, value: bool) -> String {
        match self {
            Shape::Toml => format!("`{key} = {value}`"),
            Shape::Json => format!("`\"{key}\": {value}`"),
        }
    }
}

/// One server entry of either shape. Every key is taken in snake_case and, where it has two
/// words, in camelCase (`excludeTools`); `type` and `transport` are the same key. Other
/// clients' spellings of our keys are ours too: `transportType` (Cline) is `type`,
/// `httpUrl` (Gemini CLI) and `serverUrl` (Windsurf) are `url`, `includeTools` (Gemini CLI)
/// is `tools`.
#[derive(Deserialize)]
pub(super) struct RawServer {
    #[serde(rename = "type", alias = "transport")]
    kind: Option<String>,
    /// Cline's `type`, which its files may hold beside `type`.
    #[serde(rename = "transportType")]
    transport_type: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default, alias = "inheritEnv")]
    inherit_env: bool,
    #[serde(default, alias = "envPassthrough")]
    env_passthrough: Vec<String>,
    cwd: Option<String>,
    #[serde(alias = "httpUrl", alias = "serverUrl")]
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    timeout: Option<Seconds>,
    #[serde(default)]
    required: bool,
    #[serde(default, alias = "recordResources")]
    record_resources: bool,
    #[serde(alias = "includeTools")]
    tools: Option<Vec<String>>,
    #[serde(default, alias = "excludeTools")]
    exclude_tools: Vec<String>,
    #[serde(default, alias = "toolTimeouts")]
    tool_timeouts: BTreeMap<String, Seconds>,
    #[serde(alias = "connectTimeout")]
    connect_timeout: Option<Seconds>,
    drift: Option<DriftPolicy>,
    #[serde(default, alias = "unreviewedTools")]
    unreviewed_tools: bool,
    #[serde(default, alias = "requireFixture")]
    require_fixture: bool,
    protocol: Option<Protocol>,
    #[serde(alias = "maxMessageBytes")]
    max_message_bytes: Option<Bytes>,
    #[serde(alias = "maxTools")]
    max_tools: Option<Bytes>,
    #[serde(alias = "maxToolsListBytes")]
    max_tools_list_bytes: Option<Bytes>,
    #[serde(alias = "maxServerRequests")]
    max_server_requests: Option<Bytes>,
    #[serde(default, alias = "caCerts")]
    ca_certs: Vec<String>,
    #[serde(default)]
    roots: Vec<String>,
    #[serde(alias = "maxTokens")]
    max_tokens: Option<u32>,
    #[serde(alias = "maxDescriptionChars")]
    max_description_chars: Option<usize>,
    /// `enabled = false` (Zed, Goose, Codex CLI, ours) keeps the server out of the registry's
    /// servers.
    pub(super) enabled: Option<bool>,
    /// `"disabled": true` (Claude Desktop, Cline, Roo Code, Windsurf): the same.
    pub(super) disabled: Option<bool>,
    #[serde(default, alias = "functionCallWrapper")]
    function_call_wrapper: bool,
    auth: Option<RawAuth>,
    /// Every other key: another client's (ignored) or a typo of ours (refused).
    #[serde(flatten)]
    pub(super) other: BTreeMap<String, IgnoredAny>,
}

impl RawServer {
    /// The server `alias` (checked here) of a registry file in directory `base_dir`. The
    /// error is the message of an [`crate::Error::InvalidServer`].
    pub(super) fn into_server(
        self,
        alias: &str,
        shape: Shape,
        base_dir: &Path,
    ) -> Result<ServerConfig, String> {
        check_alias(alias)?;
        let transport = self.transport(shape)?;
        self.check_templates()?;
        let http_only = |kind: &str| -> Result<(), String> {
            if self.command.is_some()
                || !self.args.is_empty()
                || !self.env.is_empty()
                || self.cwd.is_some()
                || self.inherit_env
                || !self.env_passthrough.is_empty()
            {
                return Err(format!(
                    "`command`, `args`, `env`, `cwd`, `inherit_env` and `env_passthrough` are for stdio servers, not `transport = \"{kind}\"`"
                ));
            }
            Ok(())
        };
        let transport = match transport.as_str() {
            "stdio" => {
                if self.url.is_some()
                    || !self.headers.is_empty()
                    || self.auth.is_some()
                    || !self.ca_certs.is_empty()
                {
                    return Err(
                        "`url`, `headers`, `auth` and `ca_certs` are for HTTP servers; a stdio server needs `command`"
                            .into(),
                    );
                }
                let command = self.command.filter(|c| !c.trim().is_empty()).ok_or(
                    "stdio server without `command`: add `command = \"…\"` (and `args = […]`)",
                )?;
                if self.inherit_env && !self.env_passthrough.is_empty() {
                    return Err(
                        "`env_passthrough` names variables to pass on, but `inherit_env = true` passes them all: keep one of the two".into(),
                    );
                }
                if let Some(bad) = self
                    .env_passthrough
                    .iter()
                    .find(|n| n.is_empty() || n.contains('=') || n.contains('\0'))
                {
                    return Err(format!(
                        "`env_passthrough`: \"{bad}\" is not a variable name"
                    ));
                }
                TransportConfig::Stdio {
                    command,
                    args: self.args,
                    env: self.env,
                    cwd: self.cwd,
                    inherit: if self.inherit_env {
                        InheritEnv::All
                    } else {
                        InheritEnv::Allowlist(self.env_passthrough)
                    },
                }
            }
            kind @ ("sse" | "streamable-http") => {
                http_only(kind)?;
                let url = self.url.filter(|u| !u.trim().is_empty()).ok_or_else(|| {
                    format!("`transport = \"{kind}\"` without `url`: add `url = \"http://…\"`")
                })?;
                if kind == "sse" {
                    TransportConfig::Sse {
                        url,
                        headers: self.headers,
                    }
                } else {
                    TransportConfig::StreamableHttp {
                        url,
                        headers: self.headers,
                    }
                }
            }
            other => {
                return Err(format!(
                    "unknown transport \"{other}\" (expected \"stdio\", \"sse\" or \"streamable-http\")"
                ));
            }
        };
        let auth = match self.auth {
            Some(_) if matches!(transport, TransportConfig::Sse { .. }) => {
                return Err("`auth` needs `transport = \"streamable-http\"` (the legacy SSE transport predates MCP authorization)".into());
            }
            Some(raw) => Some(raw.into_config()?),
            None => None,
        };
        let ca_certs = self.ca_certs.iter().map(|p| base_dir.join(p)).collect();
        // A URI as written; a path, relative to the registry file, as its `file://` URI
        // (normalized). A relative path must stay inside the registry's folder: one outside
        // it is written as an absolute path or a URI, so that it is seen for what it is.
        let inside = crate::root::normalize(base_dir);
        let roots = self
            .roots
            .iter()
            .map(|r| match r.split_once("://") {
                Some((scheme, _)) if !scheme.is_empty() && !scheme.contains('/') => {
                    Ok(crate::Root::new(r.clone()))
                }
                _ if Path::new(r).is_absolute() => Ok(crate::Root::directory(r)),
                _ => {
                    let path = crate::root::normalize(&base_dir.join(r));
                    if path.starts_with(&inside) {
                        Ok(crate::Root::directory(path))
                    } else {
                        Err(format!(
                            "root \"{r}\" leads outside the registry's folder ({}): write it as an absolute path or a file:// URI",
                            inside.display()
                        ))
                    }
                }
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(ServerConfig {
            alias: alias.to_string(),
            transport,
            auth,
            ca_certs,
            roots,
            max_tokens: self.max_tokens,
            max_description_chars: self.max_description_chars,
            timeout: self.timeout.map(|t| t.0),
            required: self.required,
            record_resources: self.record_resources,
            tools: self.tools,
            exclude_tools: self.exclude_tools,
            base_dir: base_dir.to_path_buf(),
            function_call_wrapper: self.function_call_wrapper,
            tool_timeouts: self
                .tool_timeouts
                .into_iter()
                .map(|(tool, t)| (tool, t.0))
                .collect(),
            connect_timeout: self.connect_timeout.map(|t| t.0),
            drift: self.drift.unwrap_or_default(),
            unreviewed_tools: self.unreviewed_tools,
            require_fixture: self.require_fixture,
            protocol: self.protocol.unwrap_or_default(),
            limits: {
                let mut limits = super::Limits::default();
                if let Some(Bytes(n)) = self.max_message_bytes {
                    limits = limits.with_max_message_bytes(n);
                }
                if let Some(Bytes(n)) = self.max_tools {
                    limits = limits.with_max_tools(n);
                }
                if let Some(Bytes(n)) = self.max_tools_list_bytes {
                    limits = limits.with_max_tools_list_bytes(n);
                }
                if let Some(Bytes(n)) = self.max_server_requests {
                    limits = limits.with_max_server_requests(n);
                }
                limits
            },
        })
    }

    /// The transport's name: the one written, else `command` means stdio and `url` means
    /// Streamable HTTP.
    fn transport(&self, shape: Shape) -> Result<String, String> {
        fn same(k: &str) -> &str {
            match k {
                "http" | "streamableHttp" => "streamable-http",
                other => other,
            }
        }
        let kind = match (self.kind.as_deref(), self.transport_type.as_deref()) {
            (Some(kind), Some(cline)) if same(kind) != same(cline) => {
                return Err(format!(
                    "`type = \"{kind}\"` and `transportType = \"{cline}\"` disagree; keep one of them"
                ));
            }
            (kind, cline) => kind.or(cline),
        };
        Ok(match kind {
            Some("http" | "streamableHttp") if shape == Shape::Json => {
                "streamable-http".to_string()
            }
            Some(kind) => kind.to_string(),
            None if self.command.is_some() => "stdio".to_string(),
            None if self.url.is_some() => "streamable-http".to_string(),
            None => {
                return Err(match shape {
                    Shape::Toml => "no `transport`, `command` or `url`: add `command = \"…\"` (stdio) or `url = \"…\"` with `transport = \"sse\"` or `\"streamable-http\"`".into(),
                    Shape::Json => "no `command` or `url`".into(),
                });
            }
        })
    }

    /// Validates every template now, so a typo fails at load time, not at connect time.
    fn check_templates(&self) -> Result<(), String> {
        let no_env = |_: &str| Some(String::new());
        let check = |v: &str, what: &str| match substitute(v, &no_env) {
            Err(SubstError::Syntax(m)) => Err(format!("{what}: {m}")),
            _ => Ok(()),
        };
        for (what, v) in [
            ("command", &self.command),
            ("cwd", &self.cwd),
            ("url", &self.url),
        ] {
            if let Some(v) = v {
                check(v, what)?;
            }
        }
        for a in &self.args {
            check(a, "args")?;
        }
        for (k, v) in self.env.iter().chain(self.headers.iter()) {
            check(v, k)?;
        }
        Ok(())
    }
}

/// A positive number of seconds (integer or float).
struct Seconds(Duration);

impl<'de> Deserialize<'de> for Seconds {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let secs = f64::deserialize(d)?;
        if secs.is_finite() && secs > 0.0 && secs < 1e9 {
            Ok(Seconds(Duration::from_secs_f64(secs)))
        } else {
            Err(serde::de::Error::custom(format!(
                "timeout must be a positive number of seconds, found {secs}"
            )))
        }
    }
}

/// A positive count (bytes, tools) of a `max_*` key.
struct Bytes(usize);

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let n = u64::deserialize(d)?;
        match usize::try_from(n) {
            Ok(n) if n > 0 => Ok(Bytes(n)),
            _ => Err(serde::de::Error::custom(format!(
                "a `max_*` limit must be a positive whole number, found {n}"
            ))),
        }
    }
}

/// What the entries of a [`UniqueMap`] are, for its messages.
pub(super) trait Entry {
    /// The entries (`servers`).
    const PLURAL: &'static str;
    /// The name of one key (`server alias`).
    const KEY: &'static str;
}

impl Entry for RawServer {
    const PLURAL: &'static str = "servers";
    const KEY: &'static str = "server alias";
}

impl Entry for RawModel {
    const PLURAL: &'static str = "models";
    const KEY: &'static str = "model";
}

impl Entry for RawAgent {
    const PLURAL: &'static str = "agents";
    const KEY: &'static str = "agent";
}

/// A JSON object read in order that rejects duplicate keys (serde_json keeps the last one
/// silently).
pub(super) struct UniqueMap<T>(pub(super) Vec<(String, T)>);

impl<'de, T: Deserialize<'de> + Entry> Deserialize<'de> for UniqueMap<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de> + Entry> Visitor<'de> for V<T> {
            type Value = UniqueMap<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "an object of {}", T::PLURAL)
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                let mut out: Vec<(String, T)> = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    if out.iter().any(|(k, _)| *k == key) {
                        return Err(serde::de::Error::custom(format!(
                            "duplicate {} \"{key}\"",
                            T::KEY
                        )));
                    }
                    let value = map.next_value()?;
                    out.push((key, value));
                }
                Ok(UniqueMap(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::config::Registry;
    use crate::config::test_support::toml_err;

    #[test]
    fn unknown_transport_is_named() {
        let e = toml_err("[servers.a]\ntransport = \"websocket\"\nurl = \"ws://x\"\n");
        assert!(e.contains("server \"a\""), "{e}");
        assert!(e.contains("unknown transport \"websocket\""), "{e}");
        assert!(e.contains("line 1:10"), "{e}");
    }

    #[test]
    fn stdio_without_command() {
        let e = toml_err("[servers.a]\ntransport = \"stdio\"\nargs = [\"x\"]\n");
        assert!(e.contains("stdio server without `command`"), "{e}");
    }

    #[test]
    fn http_without_url() {
        for t in ["sse", "streamable-http"] {
            let e = toml_err(&format!("[servers.a]\ntransport = \"{t}\"\n"));
            assert!(
                e.contains(&format!("`transport = \"{t}\"` without `url`")),
                "{e}"
            );
        }
    }

    #[test]
    fn aliases_are_normalized_and_names_without_a_letter_refused() {
        let r = Registry::from_toml_str(
            "[servers.GitHub]\ncommand = \"x\"\n",
            Path::new("fixtures/servers.toml"),
        )
        .unwrap();
        assert!(r.get("github").is_ok());
        assert_eq!(
            r.warnings(),
            [
                "fixtures/servers.toml: server \"GitHub\" is used as alias \"github\" (aliases match [a-z][a-z0-9_-]*)"
            ]
        );
        let e = toml_err("[servers.\"9x\"]\ncommand = \"x\"\n");
        assert!(e.contains("malformed alias \"9x\""), "{e}");
        assert!(e.contains("line 1:10"), "{e}");
    }

    #[test]
    fn unknown_key_and_bad_template_fail_at_load() {
        let e = toml_err("[servers.a]\ncommand = \"x\"\nargz = []\n");
        assert!(e.contains("unknown field `argz`"), "{e}");
        let e = toml_err("[servers.a]\ncommand = \"${UNCLOSED\"\n");
        assert!(e.contains("unterminated"), "{e}");
    }

    #[test]
    fn json_shape_takes_every_registry_key() {
        let r = Registry::from_json_str(
            r#"{"mcpServers": {"gh": {
                "command": "x", "timeout": 5, "required": true,
                "tools": ["a", "b"], "excludeTools": ["c"],
                "toolTimeouts": {"slow": 120}, "connectTimeout": 2.5, "drift": "error"
            }, "snake": {"command": "x", "exclude_tools": ["d"], "tool_timeouts": {"t": 1},
                "connect_timeout": 3}}}"#,
            Path::new("m.json"),
        )
        .unwrap();
        let gh = r.get("gh").unwrap();
        assert_eq!(gh.timeout, Some(Duration::from_secs(5)));
        assert!(gh.required);
        assert_eq!(
            gh.tools.as_deref(),
            Some(&["a".to_string(), "b".to_string()][..])
        );
        assert_eq!(gh.exclude_tools, ["c"]);
        assert_eq!(gh.tool_timeouts["slow"], Duration::from_secs(120));
        assert_eq!(gh.connect_timeout, Some(Duration::from_millis(2500)));
        assert_eq!(gh.drift, DriftPolicy::Error);
        let snake = r.get("snake").unwrap();
        assert_eq!(snake.exclude_tools, ["d"]);
        assert_eq!(snake.tool_timeouts["t"], Duration::from_secs(1));
        assert_eq!(snake.connect_timeout, Some(Duration::from_secs(3)));
        // Bad values are errors with a position, never a panic.
        for bad in [
            r#"{"mcpServers": {"a": {"command": "x", "timeout": -1}}}"#,
            r#"{"mcpServers": {"a": {"command": "x", "toolTimeouts": {"t": 0}}}}"#,
            r#"{"mcpServers": {"a": {"command": "x", "drift": "sometimes"}}}"#,
        ] {
            let e = Registry::from_json_str(bad, Path::new("m.json"))
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("m.json:1:"), "{e}");
        }
    }

    #[test]
    fn an_agents_approval_rules_by_tool_and_server() {
        use crate::config::agents::ApprovalRule;
        let servers = "[servers.fs]\ncommand = \"x\"\n[servers.gh]\ncommand = \"x\"\n";
        let r = Registry::from_toml_str(
            &format!(
                "{servers}[agents.bot]\nmodel = \"openai/gpt-5\"\nservers = [\"fs\", \"gh\"]\n\
                 approval = {{ ask = [\"gh\"], allow = [\"fs.write_file\"], refuse = [\"gh.merge\"] }}\n"
            ),
            Path::new("s.toml"),
        )
        .unwrap();
        let bot = r.agent("bot").unwrap();
        assert_eq!(
            bot.approval_rule("fs", "write_file"),
            Some(ApprovalRule::Allow)
        );
        assert_eq!(bot.approval_rule("fs", "read_file"), None);
        assert_eq!(bot.approval_rule("gh", "merge"), Some(ApprovalRule::Refuse));
        assert_eq!(
            bot.approval_rule("gh", "create_issue"),
            Some(ApprovalRule::Ask)
        );
        for (approval, needle) in [
            ("{ ask = [\"web\"] }", "server \"web\""),
            ("{ ask = [\"gh.x\"], allow = [\"gh.x\"] }", "two rules"),
            ("{ deny = [\"gh\"] }", "deny"),
        ] {
            let e = toml_err(&format!(
                "{servers}[servers.web]\ncommand = \"x\"\n[agents.bot]\nmodel = \"openai/gpt-5\"\nservers = [\"fs\", \"gh\"]\napproval = {approval}\n"
            ));
            assert!(e.contains(needle), "{approval}: {e}");
        }
    }

    #[test]
    fn review_keys_default_to_off_and_are_read_in_both_shapes_and_by_agents() {
        let r = Registry::from_toml_str(
            "[servers.a]\ncommand = \"x\"\n[servers.b]\ncommand = \"x\"\nunreviewed_tools = true\nrequire_fixture = true\n\
             [agents.bot]\nmodel = \"openai/gpt-5\"\nservers = [\"a\"]\nunreviewed_tools = true\nrequire_fixture = true\n",
            Path::new("s.toml"),
        )
        .unwrap();
        let (a, b) = (r.get("a").unwrap(), r.get("b").unwrap());
        assert!(!a.unreviewed_tools() && !a.require_fixture());
        assert!(b.unreviewed_tools() && b.require_fixture());
        let bot = r.agent("bot").unwrap();
        assert!(bot.unreviewed_tools && bot.require_fixture);
        let r = Registry::from_json_str(
            r#"{"mcpServers": {"a": {"command": "x", "unreviewedTools": true, "requireFixture": true}}}"#,
            Path::new("m.json"),
        )
        .unwrap();
        assert!(r.get("a").unwrap().unreviewed_tools() && r.get("a").unwrap().require_fixture());
        let e = toml_err("[servers.a]\ncommand = \"x\"\nrequire_fixtures = true\n");
        assert!(e.contains("require_fixture"), "{e}");
    }

    #[test]
    fn function_call_wrapper_defaults_to_false_in_both_shapes() {
        let r = Registry::from_toml_str(
            "[servers.a]\ncommand = \"x\"\n[servers.b]\ncommand = \"x\"\nfunction_call_wrapper = true\n",
            Path::new("s.toml"),
        )
        .unwrap();
        assert!(!r.get("a").unwrap().function_call_wrapper);
        assert!(r.get("b").unwrap().function_call_wrapper);
        let r = Registry::from_json_str(
            r#"{"mcpServers": {"a": {"command": "x"}, "b": {"command": "x", "function_call_wrapper": true}, "c": {"command": "x", "functionCallWrapper": true}}}"#,
            Path::new("m.json"),
        )
        .unwrap();
        assert!(!r.get("a").unwrap().function_call_wrapper);
        assert!(r.get("b").unwrap().function_call_wrapper);
        assert!(r.get("c").unwrap().function_call_wrapper);
        assert!(
            ServerConfig::stdio("a", "x", vec![])
                .with_function_call_wrapper(true)
                .function_call_wrapper
        );
        let e = toml_err("[servers.a]\ncommand = \"x\"\nfunction_call_wrapper = \"yes\"\n");
        assert!(e.contains("invalid type"), "{e}");
    }

    #[test]
    fn tool_timeouts_connect_timeout_and_drift_policy() {
        let r = Registry::from_toml_str(
            "[servers.a]\ncommand = \"x\"\ntimeout = 5\ntool_timeouts = { slow = 300, quick = 0.5 }\nconnect_timeout = 2\ndrift = \"error\"\n[servers.b]\ncommand = \"x\"\n",
            Path::new("servers.toml"),
        )
        .unwrap();
        let a = r.get("a").unwrap();
        assert_eq!(a.tool_timeouts["slow"], Duration::from_secs(300));
        assert_eq!(a.tool_timeouts["quick"], Duration::from_millis(500));
        assert_eq!(a.connect_timeout, Some(Duration::from_secs(2)));
        assert_eq!(a.drift, DriftPolicy::Error);
        let b = r.get("b").unwrap();
        assert!(b.tool_timeouts.is_empty());
        assert_eq!((b.connect_timeout, b.drift), (None, DriftPolicy::Warn));
        let e = toml_err("[servers.a]\ncommand = \"x\"\ndrift = \"loud\"\n");
        assert!(e.contains("unknown drift policy \"loud\""), "{e}");
        let e = toml_err("[servers.a]\ncommand = \"x\"\ntool_timeouts = { t = -1 }\n");
        assert!(e.contains("positive number of seconds"), "{e}");
        let built = ServerConfig::stdio("a", "x", vec![])
            .with_tool_timeout("t", Duration::from_secs(1))
            .with_connect_timeout(Duration::from_secs(3))
            .with_drift(DriftPolicy::Ignore);
        assert_eq!(built.tool_timeouts["t"], Duration::from_secs(1));
        assert_eq!(built.connect_timeout, Some(Duration::from_secs(3)));
        assert_eq!(built.drift, DriftPolicy::Ignore);
    }
}
