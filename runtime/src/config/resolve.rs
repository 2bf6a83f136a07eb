//! Connect-time substitution of `${NAME}` / `${NAME:-default}` ([`ServerConfig::resolve`]),
//! its result [`Resolved`], with the secrets it collects (redacted by [`crate::redact`]).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use super::{AuthConfig, InheritEnv, ServerConfig, TransportConfig};
use crate::error::{Error, Result};

/// A server's connection settings with every placeholder substituted. Kept in memory by
/// its session (for reconnects) and never written anywhere; its `Debug` redacts env and
/// header values.
#[derive(Clone)]
pub(crate) struct Resolved {
    pub(crate) transport: TransportConfig,
    /// The `auth` setting with its secrets substituted (read by the native OAuth engine).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub(crate) auth: Option<AuthConfig>,
    /// Every value that came from the environment (a `${NAME}` substituted, a passed-on
    /// variable) or sits in a header: what must never appear in a log line or an error.
    pub(crate) secrets: Vec<String>,
}

/// Secrets shorter than this are not redacted: replacing every `1` or `on` in a line would
/// hide the line, not a secret.
const MIN_SECRET_LEN: usize = 4;

/// Whether a query parameter's name says it carries a credential.
fn credential_name(name: &str) -> bool {
    const WORDS: &[&str] = &[
        "key",
        "token",
        "secret",
        "auth",
        "pass",
        "pwd",
        "sig",
        "credential",
        "session",
        "code",
        "jwt",
    ];
    let name = name.to_ascii_lowercase();
    WORDS.iter().any(|w| name.contains(w))
}

/// The parts of `url` that carry credentials: the userinfo's user and password, and the
/// values of query parameters named like credentials (`?api_key=…`, `?token=…`, `?sig=…`;
/// hosted servers take keys there). Other query values (`?version=2`) are not secrets.
fn url_secrets(url: &str) -> Vec<String> {
    let mut out = Vec::new();
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = after_scheme
        .split(['/', '?', '#'])
        .next()
        .unwrap_or_default();
    if let Some((userinfo, _)) = authority.rsplit_once('@') {
        out.extend(
            userinfo
                .split(':')
                .filter(|s| !s.is_empty())
                .map(str::to_string),
        );
    }
    if let Some((_, query)) = url.split_once('?') {
        let query = query.split('#').next().unwrap_or_default();
        for pair in query.split('&') {
            if let Some((name, value)) = pair.split_once('=')
                && !value.is_empty()
                && credential_name(name)
            {
                out.push(value.to_string());
            }
        }
    }
    out
}

/// The values `template`'s `${NAME}` references take from `lookup` (defaults are written in
/// the registry: not secrets).
fn looked_up(template: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(i) = rest.find("${") {
        let body = &rest[i + 2..];
        let Some(end) = body.find('}') else { break };
        let name = body[..end].split(":-").next().unwrap_or("");
        let name = name.strip_prefix("env:").unwrap_or(name);
        if let Some(v) = lookup(name).filter(|v| !v.is_empty()) {
            out.push(v);
        }
        rest = &body[end + 1..];
    }
    out
}

impl fmt::Debug for Resolved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.transport.fmt(f)
    }
}

impl ServerConfig {
    /// Substitutes every `${NAME}` / `${NAME:-default}` from `lookup`.
    ///
    /// An undefined variable without a default is [`Error::UndefinedVariable`], naming the
    /// variable and where it is used.
    pub(crate) fn resolve(&self, lookup: &dyn Fn(&str) -> Option<String>) -> Result<Resolved> {
        let sub = |value: &str, location: &str| -> Result<String> {
            substitute(value, lookup).map_err(|e| match e {
                SubstError::Undefined(variable) => Error::UndefinedVariable {
                    alias: self.alias.clone(),
                    variable,
                    location: location.to_string(),
                },
                // Templates are validated at load time; programmatic configs land here.
                SubstError::Syntax(message) => Error::InvalidServer {
                    path: PathBuf::new(),
                    alias: self.alias.clone(),
                    message: format!("{location}: {message}"),
                },
            })
        };
        let sub_map =
            |map: &BTreeMap<String, String>, what: &str| -> Result<BTreeMap<String, String>> {
                map.iter()
                    .map(|(k, v)| Ok((k.clone(), sub(v, &format!("{what}.{k}"))?)))
                    .collect()
            };
        let mut secrets: Vec<String> = Vec::new();
        let mut from_env = |template: &str| secrets.extend(looked_up(template, lookup));
        match &self.transport {
            TransportConfig::Stdio {
                command,
                args,
                env,
                cwd,
                ..
            } => {
                from_env(command);
                cwd.iter().for_each(|c| from_env(c));
                args.iter().for_each(|a| from_env(a));
                env.values().for_each(|v| from_env(v));
            }
            TransportConfig::Sse { url, headers }
            | TransportConfig::StreamableHttp { url, headers } => {
                from_env(url);
                headers.values().for_each(|v| from_env(v));
            }
        }
        let transport = match &self.transport {
            TransportConfig::Stdio {
                command,
                args,
                env,
                cwd,
                inherit,
            } => {
                let command = sub(command, "command")?;
                let command = if command.contains('/') && Path::new(&command).is_relative() {
                    let relative = command.strip_prefix("./").unwrap_or(&command);
                    self.base_dir.join(relative).to_string_lossy().into_owned()
                } else {
                    command
                };
                let cwd = match cwd {
                    Some(c) => {
                        let c = sub(c, "cwd")?;
                        Some(self.base_dir.join(c).to_string_lossy().into_owned())
                    }
                    None => None,
                };
                // The server's whole environment: the allowlist and the passthrough names
                // from the parent (through `lookup`), then the configured `env`.
                let mut full = BTreeMap::new();
                if let InheritEnv::Allowlist(passthrough) = inherit {
                    for name in InheritEnv::ALLOWLIST {
                        if let Some(value) = lookup(name) {
                            full.insert(name.to_string(), value);
                        }
                    }
                    for name in passthrough {
                        if let Some(value) = lookup(name) {
                            secrets.push(value.clone());
                            full.insert(name.clone(), value);
                        }
                    }
                }
                full.extend(sub_map(env, "env")?);
                TransportConfig::Stdio {
                    command,
                    args: args
                        .iter()
                        .enumerate()
                        .map(|(i, a)| sub(a, &format!("args[{i}]")))
                        .collect::<Result<_>>()?,
                    env: full,
                    cwd,
                    inherit: inherit.clone(),
                }
            }
            TransportConfig::Sse { url, headers } => TransportConfig::Sse {
                url: sub(url, "url")?,
                headers: sub_map(headers, "headers")?,
            },
            TransportConfig::StreamableHttp { url, headers } => TransportConfig::StreamableHttp {
                url: sub(url, "url")?,
                headers: sub_map(headers, "headers")?,
            },
        };
        // The auth secrets: substituted, and redacted wherever they could show.
        let auth = match &self.auth {
            Some(AuthConfig::OAuth(o)) => {
                let mut o = o.clone();
                if let Some(secret) = &o.client_secret {
                    let value = sub(secret, "auth.client_secret")?;
                    secrets.push(value.clone());
                    o.client_secret = Some(value);
                }
                if let Some(dir) = &o.token_store {
                    let dir = sub(&dir.to_string_lossy(), "auth.token_store")?;
                    o.token_store = Some(self.base_dir.join(dir));
                }
                Some(AuthConfig::OAuth(o))
            }
            Some(AuthConfig::ClientCredentials(c)) => {
                let mut c = c.clone();
                if let Some(secret) = &c.client_secret {
                    let value = sub(secret, "auth.client_secret")?;
                    secrets.push(value.clone());
                    c.client_secret = Some(value);
                }
                if let Some(key) = &c.private_key {
                    let value = sub(key, "auth.private_key")?;
                    secrets.push(value.clone());
                    c.private_key = Some(value);
                }
                Some(AuthConfig::ClientCredentials(c))
            }
            None => None,
        };
        // Header values are credentials more often than not, written in or substituted; so
        // are a URL's userinfo and query values.
        if let TransportConfig::Sse { headers, url }
        | TransportConfig::StreamableHttp { headers, url } = &transport
        {
            secrets.extend(headers.values().cloned());
            secrets.extend(url_secrets(url));
        }
        secrets.retain(|s| s.chars().count() >= MIN_SECRET_LEN);
        secrets.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        secrets.dedup();
        Ok(Resolved {
            transport,
            auth,
            secrets,
        })
    }
}

/// Why a template could not be substituted.
#[derive(Debug, PartialEq)]
pub(crate) enum SubstError {
    /// `${NAME}` is not set and has no default.
    Undefined(String),
    /// The template itself is malformed.
    Syntax(String),
}

/// Substitutes `${NAME}` and `${NAME:-default}` (the default is used when NAME is unset or
/// empty; `${env:NAME}`, VS Code's and Cursor's spelling, is `${NAME}`); `$$` is a literal
/// `$`; any other `$` is kept as is. VS Code's `${input:…}` is a syntax error saying so.
pub(crate) fn substitute(
    template: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> std::result::Result<String, SubstError> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
        } else if let Some(body) = after.strip_prefix('{') {
            let end = body.find('}').ok_or_else(|| {
                SubstError::Syntax(format!("unterminated `${{` in \"{template}\""))
            })?;
            let inner = &body[..end];
            let (name, default) = match inner.split_once(":-") {
                Some((n, d)) => (n, Some(d)),
                None => (inner, None),
            };
            if inner.starts_with("input:") {
                return Err(SubstError::Syntax(format!(
                    "`${{{inner}}}` is a VS Code input, which only VS Code prompts for; write `${{env:NAME}}` (or `${{NAME}}`) and set NAME in the environment"
                )));
            }
            // `${env:NAME}` (VS Code, Cursor) is `${NAME}`.
            let name = name.strip_prefix("env:").unwrap_or(name);
            if name.is_empty()
                || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                || name.starts_with(|c: char| c.is_ascii_digit())
            {
                return Err(SubstError::Syntax(format!(
                    "`${{{inner}}}` is not a variable reference (expected ${{NAME}} or ${{NAME:-default}})"
                )));
            }
            match (
                lookup(name).filter(|v| !v.is_empty() || default.is_none()),
                default,
            ) {
                (Some(v), _) => out.push_str(&v),
                (None, Some(d)) => out.push_str(d),
                (None, None) => return Err(SubstError::Undefined(name.to_string())),
            }
            rest = &body[end + 1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Registry;
    use crate::config::test_support::env;
    use crate::redact::redact;

    #[test]
    fn substitution_rules() {
        let look = env(&[("A", "1"), ("EMPTY", "")]);
        assert_eq!(substitute("x${A}y", &look).unwrap(), "x1y");
        assert_eq!(substitute("${B:-dflt}", &look).unwrap(), "dflt");
        assert_eq!(substitute("${EMPTY:-dflt}", &look).unwrap(), "dflt");
        assert_eq!(substitute("${EMPTY}", &look).unwrap(), "");
        assert_eq!(substitute("$$A $A", &look).unwrap(), "$A $A");
        assert_eq!(
            substitute("${B}", &look),
            Err(SubstError::Undefined("B".into()))
        );
        assert!(matches!(
            substitute("${1X}", &look),
            Err(SubstError::Syntax(_))
        ));
        assert_eq!(substitute("x${env:A}", &look).unwrap(), "x1");
        assert_eq!(substitute("${env:B:-d}", &look).unwrap(), "d");
        assert_eq!(looked_up("${env:A}", &look), ["1"]);
        match substitute("${input:api-key}", &look) {
            Err(SubstError::Syntax(m)) => assert!(m.contains("VS Code input"), "{m}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn undefined_variable_names_the_variable_and_place() {
        let r = Registry::from_toml_str(
            "[servers.gh]\ncommand = \"x\"\nenv = { TOKEN = \"${GH_TOKEN}\" }\n",
            Path::new("s.toml"),
        )
        .unwrap();
        let e = r.get("gh").unwrap().resolve(&env(&[])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "server \"gh\": GH_TOKEN is not set (used in env.TOKEN); set it or write ${GH_TOKEN:-default}"
        );
    }

    #[test]
    fn secrets_never_appear_in_debug() {
        let r = Registry::from_toml_str(
            "[servers.gh]\ntransport = \"streamable-http\"\nurl = \"http://h/mcp\"\nheaders = { Authorization = \"Bearer ${T}\" }\n[servers.s]\ncommand = \"x\"\nenv = { K = \"${T}\" }\n",
            Path::new("s.toml"),
        )
        .unwrap();
        let secret = "sekrit-value-123";
        for s in r.servers() {
            let resolved = s.resolve(&env(&[("T", secret)])).unwrap();
            let dbg = format!("{resolved:?} {s:?} {r:?}");
            assert!(!dbg.contains(secret), "{dbg}");
            assert!(dbg.contains("<redacted>"), "{dbg}");
        }
    }

    #[test]
    fn relative_command_and_cwd_resolve_against_the_registry_dir() {
        let r = Registry::from_toml_str(
            "[servers.a]\ncommand = \"./bin/srv\"\ncwd = \"work\"\n",
            Path::new("/etc/mcp/servers.toml"),
        )
        .unwrap();
        let res = r.get("a").unwrap().resolve(&env(&[])).unwrap();
        match res.transport {
            TransportConfig::Stdio { command, cwd, .. } => {
                assert_eq!(command, "/etc/mcp/bin/srv");
                assert_eq!(cwd.as_deref(), Some("/etc/mcp/work"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn url_credentials_and_bearer_tokens_are_redacted() {
        assert_eq!(
            url_secrets("https://me:pw1234@h.example/mcp?api_key=k-123456&v=2#frag"),
            ["me", "pw1234", "k-123456"]
        );
        assert!(url_secrets("http://127.0.0.1:3001/mcp").is_empty());
        assert_eq!(
            redact(
                &[],
                "got Authorization: Bearer eyJhbGciOi.J9x-y_1Z and bearer x"
            ),
            "got Authorization: Bearer <redacted> and bearer x"
        );
        // Words after "bearer" are not credentials.
        let words = "unsupported_grant_type: only jwt-bearer grant is supported, Bearer realm";
        assert_eq!(redact(&[], words), words);
        assert_eq!(
            redact(&["k-123456".into()], "?api_key=k-123456"),
            "?api_key=<redacted>"
        );
    }
}
