//! The serde shape of the two registry files and the one builder that turns a server entry
//! of either into a [`ServerConfig`].
//!
//! Both shapes read a server entry into the same [`RawServer`]; what differs between them is
//! the file around it ([`TomlFile`], [`JsonFile`]) and the two points [`Shape`] names.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use toml::Spanned;

use super::auth::RawAuth;
use super::resolve::{SubstError, substitute};
use super::{InheritEnv, Protocol, ServerConfig, TransportConfig};
use crate::drift::DriftPolicy;

/// `fixtures/servers.toml`: `[servers.<alias>]` tables.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TomlFile {
    #[serde(default)]
    pub(super) servers: BTreeMap<Spanned<String>, Spanned<RawServer>>,
}

/// The Claude-Desktop / Cursor shape `{"mcpServers": {…}}` (other top-level keys are
/// ignored: the file usually holds a client's other settings too).
#[derive(Deserialize)]
pub(super) struct JsonFile {
    #[serde(rename = "mcpServers")]
    pub(super) servers: UniqueMap<RawServer>,
}

/// Which file a server entry was read from: where the two shapes still differ.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    /// `servers.toml`: a missing transport gets the longer hint, `"http"` is no transport.
    Toml,
    /// `{"mcpServers": …}`: `"type": "http"` means Streamable HTTP, as in those clients.
    Json,
}

/// One server entry of either shape. Every key is taken in snake_case and, where it has two
/// words, in camelCase (`excludeTools`); `type` and `transport` are the same key.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawServer {
    #[serde(rename = "type", alias = "transport")]
    kind: Option<String>,
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
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    timeout: Option<Seconds>,
    #[serde(default)]
    required: bool,
    tools: Option<Vec<String>>,
    #[serde(default, alias = "excludeTools")]
    exclude_tools: Vec<String>,
    #[serde(default, alias = "toolTimeouts")]
    tool_timeouts: BTreeMap<String, Seconds>,
    #[serde(alias = "connectTimeout")]
    connect_timeout: Option<Seconds>,
    drift: Option<DriftPolicy>,
    protocol: Option<Protocol>,
    /// Some clients write `"disabled": true`; accepted and ignored is worse than refused,
    /// so it is refused by `deny_unknown_fields` unless false.
    #[serde(default)]
    #[allow(dead_code)]
    disabled: Option<FalseOnly>,
    #[serde(default, alias = "functionCallWrapper")]
    function_call_wrapper: bool,
    auth: Option<RawAuth>,
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
                if self.url.is_some() || !self.headers.is_empty() || self.auth.is_some() {
                    return Err(
                        "`url`, `headers` and `auth` are for HTTP servers; a stdio server needs `command`"
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
        Ok(ServerConfig {
            alias: alias.to_string(),
            transport,
            auth,
            timeout: self.timeout.map(|t| t.0),
            required: self.required,
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
            protocol: self.protocol.unwrap_or_default(),
        })
    }

    /// The transport's name: the one written, else `command` means stdio and `url` means
    /// Streamable HTTP.
    fn transport(&self, shape: Shape) -> Result<String, String> {
        Ok(match self.kind.as_deref() {
            Some("http") if shape == Shape::Json => "streamable-http".to_string(),
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

/// Checks an alias against `[a-z][a-z0-9_-]*`.
pub fn check_alias(alias: &str) -> std::result::Result<(), String> {
    let mut chars = alias.chars();
    let ok = chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
    if ok {
        Ok(())
    } else {
        let suggestion: String = alias
            .to_ascii_lowercase()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        Err(format!(
            "malformed alias \"{alias}\": aliases match [a-z][a-z0-9_-]* (e.g. \"{}\")",
            suggestion.trim_start_matches(|c: char| !c.is_ascii_lowercase())
        ))
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

/// Accepts only `false`.
struct FalseOnly;

impl<'de> Deserialize<'de> for FalseOnly {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        if bool::deserialize(d)? {
            Err(serde::de::Error::custom(
                "\"disabled\": true is not supported; remove the server from the file instead",
            ))
        } else {
            Ok(FalseOnly)
        }
    }
}

/// A JSON object read in order that rejects duplicate keys (serde_json keeps the last one
/// silently).
pub(super) struct UniqueMap<T>(pub(super) Vec<(String, T)>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for UniqueMap<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = UniqueMap<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of servers")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                let mut out: Vec<(String, T)> = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    if out.iter().any(|(k, _)| *k == key) {
                        return Err(serde::de::Error::custom(format!(
                            "duplicate server alias \"{key}\""
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
    fn malformed_alias_is_rejected_with_a_suggestion() {
        let e = toml_err("[servers.GitHub]\ncommand = \"x\"\n");
        assert!(e.contains("malformed alias \"GitHub\""), "{e}");
        assert!(e.contains("\"github\""), "{e}");
        let e = toml_err("[servers.\"9x\"]\ncommand = \"x\"\n");
        assert!(e.contains("malformed alias \"9x\""), "{e}");
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
