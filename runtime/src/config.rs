//! The server registry: which MCP servers exist and how to reach them.
//!
//! Two shapes are accepted:
//!
//! * `fixtures/servers.toml` (the project's own format):
//!
//!   ```toml
//!   [servers.github]
//!   transport = "stdio"              # "stdio" | "sse" | "streamable-http"
//!   command = "node"
//!   args = ["${MCP_SERVERS_DIR}/github/node_modules/@modelcontextprotocol/server-github/dist/index.js"]
//!   env = { GITHUB_PERSONAL_ACCESS_TOKEN = "${GITHUB_TOKEN:-dummy}" }
//!   timeout = 30                     # seconds per request (idle; progress resets it)
//!   tool_timeouts = { search_code = 120 }  # per-tool idle deadlines (seconds)
//!   connect_timeout = 10             # seconds for start-up + initialize (default 30)
//!   drift = "warn"                   # live tools ≠ fixture: "warn" | "error" | "ignore"
//!   required = false                 # a failure to connect is an error, not a warning
//!   tools = ["create_issue"]         # optional allowlist
//!   exclude_tools = ["delete_repo"]  # optional denylist
//!   function_call_wrapper = false    # offer the tools to non-MCP models as function calls
//!
//!   [servers.remote]
//!   transport = "streamable-http"
//!   url = "https://example.com/mcp"
//!   headers = { Authorization = "Bearer ${TOKEN}" }
//!   ```
//!
//! * the Claude-Desktop / Cursor JSON shape `{"mcpServers": {"name": {"command": …}}}`, where
//!   `"type"` (`"stdio"`, `"sse"`, `"http"`/`"streamable-http"`) is optional: `command`
//!   means stdio and `url` means Streamable HTTP. Every other key of the TOML form is
//!   accepted too, in snake_case or camelCase (`excludeTools`, `toolTimeouts`,
//!   `connectTimeout`, `functionCallWrapper`).
//!
//! `${NAME}` and `${NAME:-default}` are substituted in `command`, `args`, `env`, `cwd`,
//! `url` and `headers` **at connect time only** (in [`crate::Session::connect`]); the registry
//! keeps the templates, so nothing read from the environment is ever stored, printed by
//! `Debug`, or written into a fixture. `$$` is a literal `$`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use toml::Spanned;

pub use crate::drift::DriftPolicy;
use crate::error::{Error, Result};

/// A parsed registry: servers sorted by alias.
#[derive(Debug, Clone, PartialEq)]
pub struct Registry {
    /// The file it was read from.
    pub path: PathBuf,
    servers: Vec<ServerConfig>,
}

/// One server of the registry, with its values still unsubstituted.
#[derive(Clone, PartialEq)]
pub struct ServerConfig {
    /// The alias: `[a-z][a-z0-9_-]*`, unique in the registry.
    pub alias: String,
    /// How to reach the server.
    pub transport: TransportConfig,
    /// Default idle deadline of each request (progress notifications reset it).
    pub timeout: Option<Duration>,
    /// Whether a failure to connect (or a missing variable) is an error rather than a skip.
    pub required: bool,
    /// Tool allowlist (`None`: every tool).
    pub tools: Option<Vec<String>>,
    /// Tool denylist.
    pub exclude_tools: Vec<String>,
    /// The directory relative `command` and `cwd` paths are resolved against
    /// (the registry file's directory).
    pub base_dir: PathBuf,
    /// Whether the agent layer may offer this server's tools to models without native MCP
    /// support as function calls (`function_call_wrapper = true`; default false). See
    /// [`crate::toolbox`] for the model/server rules that read it.
    pub function_call_wrapper: bool,
    /// Per-tool idle deadlines that override [`ServerConfig::timeout`]
    /// (`tool_timeouts = { slow_tool = 300 }`, seconds).
    pub tool_timeouts: BTreeMap<String, Duration>,
    /// How long connecting (start, handshake, `initialize`) may take
    /// (`connect_timeout = 10`; default [`crate::DEFAULT_CONNECT_TIMEOUT`]).
    pub connect_timeout: Option<Duration>,
    /// What a drift between the live tool list and the compiled fixture does
    /// (`drift = "warn" | "error" | "ignore"`; default `warn`).
    pub drift: DriftPolicy,
}

/// How to reach a server. String values may contain `${NAME}` placeholders.
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub enum TransportConfig {
    /// A child process speaking newline-delimited JSON-RPC on stdin/stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment variables.
        env: BTreeMap<String, String>,
        /// Working directory (relative to the registry file's directory).
        cwd: Option<String>,
        /// Which variables of the parent process the server sees besides `env`.
        inherit: InheritEnv,
    },
    /// The legacy HTTP+SSE transport (protocol 2024-11-05): GET an event stream, POST messages.
    Sse {
        /// The event-stream URL (e.g. `http://127.0.0.1:3001/sse`).
        url: String,
        /// Extra request headers.
        headers: BTreeMap<String, String>,
    },
    /// The Streamable HTTP transport (protocol 2025-03-26 and later).
    StreamableHttp {
        /// The endpoint URL (e.g. `http://127.0.0.1:3001/mcp`).
        url: String,
        /// Extra request headers.
        headers: BTreeMap<String, String>,
    },
}

/// Which variables of the parent process a stdio server sees, besides its configured `env`.
///
/// By default a server gets only what the official MCP SDKs pass: [`InheritEnv::ALLOWLIST`]
/// (`HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`; on Windows its own essentials), so
/// no secret of the host process reaches a server (or a model calling a tool that prints its
/// environment) unless the registry names it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum InheritEnv {
    /// The allowlist plus these names (`env_passthrough = ["AWS_PROFILE"]`; default: none).
    Allowlist(Vec<String>),
    /// Every variable of the parent process (`inherit_env = true`).
    All,
}

impl InheritEnv {
    /// The variables every stdio server gets from its parent process (when set).
    #[cfg(not(windows))]
    pub const ALLOWLIST: &[&str] = &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];
    /// The variables every stdio server gets from its parent process (when set).
    #[cfg(windows)]
    pub const ALLOWLIST: &[&str] = &[
        "APPDATA",
        "HOMEDRIVE",
        "HOMEPATH",
        "LOCALAPPDATA",
        "PATH",
        "PROCESSOR_ARCHITECTURE",
        "PROGRAMFILES",
        "SYSTEMDRIVE",
        "SYSTEMROOT",
        "TEMP",
        "USERNAME",
        "USERPROFILE",
    ];
}

impl Default for InheritEnv {
    fn default() -> Self {
        InheritEnv::Allowlist(Vec::new())
    }
}

impl TransportConfig {
    /// The transport's name as written in the registry.
    pub fn kind(&self) -> &'static str {
        match self {
            TransportConfig::Stdio { .. } => "stdio",
            TransportConfig::Sse { .. } => "sse",
            TransportConfig::StreamableHttp { .. } => "streamable-http",
        }
    }
}

// Debug never shows env or header values: they are where secrets live.
impl fmt::Debug for TransportConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportConfig::Stdio {
                command,
                args,
                env,
                cwd,
                inherit,
            } => f
                .debug_struct("Stdio")
                .field("command", command)
                .field("args", args)
                .field("env", &Redacted(env))
                .field("cwd", cwd)
                .field("inherit", inherit)
                .finish(),
            TransportConfig::Sse { url, headers } => f
                .debug_struct("Sse")
                .field("url", url)
                .field("headers", &Redacted(headers))
                .finish(),
            TransportConfig::StreamableHttp { url, headers } => f
                .debug_struct("StreamableHttp")
                .field("url", url)
                .field("headers", &Redacted(headers))
                .finish(),
        }
    }
}

impl fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerConfig")
            .field("alias", &self.alias)
            .field("transport", &self.transport)
            .field("timeout", &self.timeout)
            .field("required", &self.required)
            .field("tools", &self.tools)
            .field("exclude_tools", &self.exclude_tools)
            .field("function_call_wrapper", &self.function_call_wrapper)
            .field("tool_timeouts", &self.tool_timeouts)
            .field("connect_timeout", &self.connect_timeout)
            .field("drift", &self.drift)
            .finish_non_exhaustive()
    }
}

/// Shows a map's keys with every value replaced by `<redacted>`.
pub(crate) struct Redacted<'a>(pub(crate) &'a BTreeMap<String, String>);

impl fmt::Debug for Redacted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.0.keys().map(|k| (k, "<redacted>")))
            .finish()
    }
}

impl Registry {
    /// Finds and reads the project's registry by the rule the command line and
    /// `mcp_tools!` use: `fixtures/servers.toml` next to the nearest `Cargo.toml`, from the
    /// current directory up. So a program run anywhere in its project (`cargo run`, tests)
    /// starts its servers exactly as `snapshot` did. A program deployed outside its project
    /// loads its registry with [`Registry::load`].
    pub fn discover() -> Result<Self> {
        let not_found = |path: PathBuf, why: String| Error::RegistryRead {
            path,
            source: std::io::Error::new(std::io::ErrorKind::NotFound, why),
        };
        let cwd = std::env::current_dir()
            .map_err(|e| not_found(PathBuf::from("."), format!("no current directory: {e}")))?;
        match mcp_codegen::project::find_registry(&cwd) {
            Some(path) => Self::load(path),
            None => Err(not_found(
                cwd.join(mcp_codegen::project::FIXTURES_DIR)
                    .join(mcp_codegen::project::REGISTRY_FILE),
                "no fixtures/servers.toml next to a Cargo.toml in this directory or its parents \
                 (run the program inside its project, or read the registry with Registry::load(path))"
                    .to_string(),
            )),
        }
    }

    /// Reads a registry: TOML (`servers.toml`) or JSON (`{"mcpServers": …}`), chosen by the
    /// file's extension (`.json` → JSON).
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| Error::RegistryRead {
            path: path.to_path_buf(),
            source,
        })?;
        if path.extension().is_some_and(|e| e == "json") {
            Self::from_json_str(&text, path)
        } else {
            Self::from_toml_str(&text, path)
        }
    }

    /// Parses the TOML shape; `path` names the file in errors and is the base of relative
    /// paths.
    pub fn from_toml_str(text: &str, path: &Path) -> Result<Self> {
        let file: TomlFile = toml::from_str(text).map_err(|e| {
            let (line, column) = e.span().map(|s| line_col(text, s.start)).unwrap_or((0, 0));
            Error::RegistrySyntax {
                path: path.to_path_buf(),
                line,
                column,
                message: e.message().trim().to_string(),
            }
        })?;
        let base_dir = base_dir(path);
        let mut servers = Vec::with_capacity(file.servers.len());
        for (alias, raw) in file.servers {
            let (line, column) = line_col(text, alias.span().start);
            let at = |message: String| Error::InvalidServer {
                path: path.to_path_buf(),
                alias: alias.get_ref().clone(),
                message: format!("line {line}:{column}: {message}"),
            };
            check_alias(alias.get_ref()).map_err(&at)?;
            let raw = raw.into_inner();
            let transport = match raw.transport.as_deref() {
                Some(kind) => kind.to_string(),
                None if raw.command.is_some() => "stdio".to_string(),
                None if raw.url.is_some() => "streamable-http".to_string(),
                None => {
                    return Err(at(
                        "no `transport`, `command` or `url`: add `command = \"…\"` (stdio) or `url = \"…\"` with `transport = \"sse\"` or `\"streamable-http\"`".into(),
                    ));
                }
            };
            let server = build_server(
                alias.get_ref().clone(),
                &transport,
                Fields {
                    command: raw.command,
                    args: raw.args,
                    env: raw.env,
                    inherit_env: raw.inherit_env,
                    env_passthrough: raw.env_passthrough,
                    cwd: raw.cwd,
                    url: raw.url,
                    headers: raw.headers,
                },
                &base_dir,
            )
            .map_err(&at)?;
            servers.push(ServerConfig {
                timeout: raw.timeout.map(|t| t.0),
                required: raw.required,
                tools: raw.tools,
                exclude_tools: raw.exclude_tools,
                function_call_wrapper: raw.function_call_wrapper,
                tool_timeouts: raw
                    .tool_timeouts
                    .into_iter()
                    .map(|(k, v)| (k, v.0))
                    .collect(),
                connect_timeout: raw.connect_timeout.map(|t| t.0),
                drift: raw.drift.unwrap_or_default(),
                ..server
            });
        }
        servers.sort_by(|a, b| a.alias.cmp(&b.alias));
        Ok(Registry {
            path: path.to_path_buf(),
            servers,
        })
    }

    /// Parses the Claude-Desktop / Cursor JSON shape `{"mcpServers": {…}}`.
    pub fn from_json_str(text: &str, path: &Path) -> Result<Self> {
        let syntax = |e: serde_json::Error| Error::RegistrySyntax {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        };
        let file: JsonFile = serde_json::from_str(text).map_err(syntax)?;
        let base_dir = base_dir(path);
        let mut servers = Vec::with_capacity(file.servers.0.len());
        for (alias, raw) in file.servers.0 {
            let at = |message: String| Error::InvalidServer {
                path: path.to_path_buf(),
                alias: alias.clone(),
                message,
            };
            check_alias(&alias).map_err(at)?;
            let transport = match raw.kind.as_deref() {
                Some("http") => "streamable-http".to_string(),
                Some(kind) => kind.to_string(),
                None if raw.command.is_some() => "stdio".to_string(),
                None if raw.url.is_some() => "streamable-http".to_string(),
                None => return Err(at("no `command` or `url`".into())),
            };
            let server = build_server(
                alias.clone(),
                &transport,
                Fields {
                    command: raw.command,
                    args: raw.args,
                    env: raw.env,
                    inherit_env: raw.inherit_env,
                    env_passthrough: raw.env_passthrough,
                    cwd: raw.cwd,
                    url: raw.url,
                    headers: raw.headers,
                },
                &base_dir,
            )
            .map_err(at)?;
            servers.push(ServerConfig {
                timeout: raw.timeout.map(|t| t.0),
                required: raw.required,
                tools: raw.tools,
                exclude_tools: raw.exclude_tools,
                function_call_wrapper: raw.function_call_wrapper,
                tool_timeouts: raw
                    .tool_timeouts
                    .into_iter()
                    .map(|(tool, t)| (tool, t.0))
                    .collect(),
                connect_timeout: raw.connect_timeout.map(|t| t.0),
                drift: raw.drift.unwrap_or_default(),
                ..server
            });
        }
        servers.sort_by(|a, b| a.alias.cmp(&b.alias));
        Ok(Registry {
            path: path.to_path_buf(),
            servers,
        })
    }

    /// All servers, sorted by alias.
    pub fn servers(&self) -> &[ServerConfig] {
        &self.servers
    }

    /// The server with this alias.
    pub fn get(&self, alias: &str) -> Result<&ServerConfig> {
        self.servers
            .iter()
            .find(|s| s.alias == alias)
            .ok_or_else(|| Error::UnknownServer {
                alias: alias.to_string(),
                known: self
                    .servers
                    .iter()
                    .map(|s| s.alias.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

/// A server's connection settings with every placeholder substituted. Kept in memory by
/// its session (for reconnects) and never written anywhere; its `Debug` redacts env and
/// header values.
#[derive(Clone)]
pub(crate) struct Resolved {
    pub(crate) transport: TransportConfig,
    /// Every value that came from the environment (a `${NAME}` substituted, a passed-on
    /// variable) or sits in a header: what must never appear in a log line or an error.
    pub(crate) secrets: Vec<String>,
}

/// Secrets shorter than this are not redacted: replacing every `1` or `on` in a line would
/// hide the line, not a secret.
const MIN_SECRET_LEN: usize = 4;

/// `text` with every one of `secrets` replaced by `<redacted>` (longest first, so a secret
/// that contains another is replaced whole).
pub(crate) fn redact(secrets: &[String], text: &str) -> String {
    let mut out = text.to_string();
    for secret in secrets {
        if out.contains(secret.as_str()) {
            out = out.replace(secret.as_str(), "<redacted>");
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
    /// Builds a stdio server entry (for programmatic use and tests).
    pub fn stdio(alias: impl Into<String>, command: impl Into<String>, args: Vec<String>) -> Self {
        ServerConfig {
            alias: alias.into(),
            transport: TransportConfig::Stdio {
                command: command.into(),
                args,
                env: BTreeMap::new(),
                cwd: None,
                inherit: InheritEnv::default(),
            },
            timeout: None,
            required: false,
            tools: None,
            exclude_tools: Vec::new(),
            base_dir: PathBuf::from("."),
            function_call_wrapper: false,
            tool_timeouts: BTreeMap::new(),
            connect_timeout: None,
            drift: DriftPolicy::default(),
        }
    }

    /// Builds an HTTP server entry: `kind` is `"sse"` or `"streamable-http"`.
    pub fn http(alias: impl Into<String>, sse: bool, url: impl Into<String>) -> Self {
        let url = url.into();
        let headers = BTreeMap::new();
        ServerConfig {
            transport: if sse {
                TransportConfig::Sse { url, headers }
            } else {
                TransportConfig::StreamableHttp { url, headers }
            },
            ..ServerConfig::stdio(alias, "", Vec::new())
        }
    }

    /// Sets the idle deadline of one tool's calls (overrides [`ServerConfig::timeout`]).
    pub fn with_tool_timeout(mut self, tool: impl Into<String>, timeout: Duration) -> Self {
        self.tool_timeouts.insert(tool.into(), timeout);
        self
    }

    /// Sets how long connecting may take.
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = Some(timeout);
        self
    }

    /// Sets the drift policy.
    pub fn with_drift(mut self, policy: DriftPolicy) -> Self {
        self.drift = policy;
        self
    }

    /// Sets the default idle deadline of each request.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Adds an environment variable (stdio) or a header (HTTP).
    pub fn with_env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        match &mut self.transport {
            TransportConfig::Stdio { env, .. } => {
                env.insert(key.into(), value.into());
            }
            TransportConfig::Sse { headers, .. }
            | TransportConfig::StreamableHttp { headers, .. } => {
                headers.insert(key.into(), value.into());
            }
        }
        self
    }

    /// Sets which variables of the parent process a stdio server sees besides its `env`
    /// (no effect on HTTP servers).
    pub fn with_inherit_env(mut self, policy: InheritEnv) -> Self {
        if let TransportConfig::Stdio { inherit, .. } = &mut self.transport {
            *inherit = policy;
        }
        self
    }

    /// Sets [`ServerConfig::function_call_wrapper`].
    pub fn with_function_call_wrapper(mut self, wrapper: bool) -> Self {
        self.function_call_wrapper = wrapper;
        self
    }

    /// Whether the tool passes this server's allowlist and denylist.
    pub fn allows_tool(&self, tool: &str) -> bool {
        self.tools
            .as_ref()
            .is_none_or(|allow| allow.iter().any(|t| t == tool))
            && !self.exclude_tools.iter().any(|t| t == tool)
    }

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
                    self.base_dir.join(&command).to_string_lossy().into_owned()
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
        // Header values are credentials more often than not, written in or substituted.
        if let TransportConfig::Sse { headers, .. }
        | TransportConfig::StreamableHttp { headers, .. } = &transport
        {
            secrets.extend(headers.values().cloned());
        }
        secrets.retain(|s| s.chars().count() >= MIN_SECRET_LEN);
        secrets.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        secrets.dedup();
        Ok(Resolved { transport, secrets })
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
/// empty); `$$` is a literal `$`; any other `$` is kept as is.
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

/// Fields shared by both registry shapes.
struct Fields {
    command: Option<String>,
    args: Vec<String>,
    env: BTreeMap<String, String>,
    inherit_env: bool,
    env_passthrough: Vec<String>,
    cwd: Option<String>,
    url: Option<String>,
    headers: BTreeMap<String, String>,
}

fn build_server(
    alias: String,
    transport: &str,
    f: Fields,
    base_dir: &Path,
) -> std::result::Result<ServerConfig, String> {
    // Validate every template now, so a typo fails at load time, not at connect time.
    let no_env = |_: &str| Some(String::new());
    let check = |v: &str, what: &str| match substitute(v, &no_env) {
        Err(SubstError::Syntax(m)) => Err(format!("{what}: {m}")),
        _ => Ok(()),
    };
    for (what, v) in [("command", &f.command), ("cwd", &f.cwd), ("url", &f.url)] {
        if let Some(v) = v {
            check(v, what)?;
        }
    }
    for a in &f.args {
        check(a, "args")?;
    }
    for (k, v) in f.env.iter().chain(f.headers.iter()) {
        check(v, k)?;
    }
    let http_only = |kind: &str| -> std::result::Result<(), String> {
        if f.command.is_some()
            || !f.args.is_empty()
            || !f.env.is_empty()
            || f.cwd.is_some()
            || f.inherit_env
            || !f.env_passthrough.is_empty()
        {
            return Err(format!(
                "`command`, `args`, `env`, `cwd`, `inherit_env` and `env_passthrough` are for stdio servers, not `transport = \"{kind}\"`"
            ));
        }
        Ok(())
    };
    let transport = match transport {
        "stdio" => {
            if f.url.is_some() || !f.headers.is_empty() {
                return Err(
                    "`url` and `headers` are for HTTP servers; a stdio server needs `command`"
                        .into(),
                );
            }
            let command = f.command.filter(|c| !c.trim().is_empty()).ok_or(
                "stdio server without `command`: add `command = \"…\"` (and `args = […]`)",
            )?;
            if f.inherit_env && !f.env_passthrough.is_empty() {
                return Err(
                    "`env_passthrough` names variables to pass on, but `inherit_env = true` passes them all: keep one of the two".into(),
                );
            }
            if let Some(bad) = f
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
                args: f.args,
                env: f.env,
                cwd: f.cwd,
                inherit: if f.inherit_env {
                    InheritEnv::All
                } else {
                    InheritEnv::Allowlist(f.env_passthrough)
                },
            }
        }
        "sse" | "streamable-http" => {
            http_only(transport)?;
            let url = f.url.filter(|u| !u.trim().is_empty()).ok_or_else(|| {
                format!("`transport = \"{transport}\"` without `url`: add `url = \"http://…\"`")
            })?;
            if transport == "sse" {
                TransportConfig::Sse {
                    url,
                    headers: f.headers,
                }
            } else {
                TransportConfig::StreamableHttp {
                    url,
                    headers: f.headers,
                }
            }
        }
        other => {
            return Err(format!(
                "unknown transport \"{other}\" (expected \"stdio\", \"sse\" or \"streamable-http\")"
            ));
        }
    };
    Ok(ServerConfig {
        alias,
        transport,
        timeout: None,
        required: false,
        tools: None,
        exclude_tools: Vec::new(),
        base_dir: base_dir.to_path_buf(),
        function_call_wrapper: false,
        tool_timeouts: BTreeMap::new(),
        connect_timeout: None,
        drift: DriftPolicy::default(),
    })
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

fn base_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlFile {
    #[serde(default)]
    servers: BTreeMap<Spanned<String>, Spanned<TomlServer>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlServer {
    transport: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    inherit_env: bool,
    #[serde(default)]
    env_passthrough: Vec<String>,
    cwd: Option<String>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    timeout: Option<Seconds>,
    #[serde(default)]
    required: bool,
    tools: Option<Vec<String>>,
    #[serde(default)]
    exclude_tools: Vec<String>,
    #[serde(default)]
    function_call_wrapper: bool,
    #[serde(default)]
    tool_timeouts: BTreeMap<String, Seconds>,
    connect_timeout: Option<Seconds>,
    drift: Option<DriftPolicy>,
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

#[derive(Deserialize)]
struct JsonFile {
    #[serde(rename = "mcpServers")]
    servers: UniqueMap<JsonServer>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonServer {
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
    /// Some clients write `"disabled": true`; accepted and ignored is worse than refused,
    /// so it is refused by `deny_unknown_fields` unless false.
    #[serde(default)]
    #[allow(dead_code)]
    disabled: Option<FalseOnly>,
    #[serde(default, alias = "functionCallWrapper")]
    function_call_wrapper: bool,
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
struct UniqueMap<T>(Vec<(String, T)>);

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
    use super::*;

    fn toml_err(text: &str) -> String {
        Registry::from_toml_str(text, Path::new("fixtures/servers.toml"))
            .unwrap_err()
            .to_string()
    }

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn parses_all_three_transports_sorted_by_alias() {
        let r = Registry::from_toml_str(
            r#"
[servers.b]
transport = "sse"
url = "http://127.0.0.1:1/sse"
headers = { Authorization = "Bearer ${TOKEN}" }
[servers.a]
command = "node"
args = ["x.js", "stdio"]
env = { K = "v" }
timeout = 2.5
required = true
tools = ["echo"]
[servers.c]
transport = "streamable-http"
url = "http://127.0.0.1:1/mcp"
exclude_tools = ["rm"]
"#,
            Path::new("dir/servers.toml"),
        )
        .unwrap();
        let aliases: Vec<_> = r.servers().iter().map(|s| s.alias.as_str()).collect();
        assert_eq!(aliases, ["a", "b", "c"]);
        let a = r.get("a").unwrap();
        assert_eq!(a.transport.kind(), "stdio");
        assert_eq!(a.timeout, Some(Duration::from_millis(2500)));
        assert!(a.required);
        assert!(a.allows_tool("echo") && !a.allows_tool("add"));
        assert_eq!(a.base_dir, Path::new("dir"));
        assert_eq!(r.get("b").unwrap().transport.kind(), "sse");
        let c = r.get("c").unwrap();
        assert!(c.allows_tool("echo") && !c.allows_tool("rm"));
        assert!(
            r.get("zz")
                .unwrap_err()
                .to_string()
                .contains("known: a, b, c")
        );
    }

    #[test]
    fn toml_syntax_error_has_file_line_and_column() {
        let e = toml_err("[servers.a]\ncommand = \"x\"\nargs = [\n");
        assert!(e.starts_with("fixtures/servers.toml:3:"), "{e}");
    }

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
    fn duplicate_alias_is_rejected() {
        let e = toml_err("[servers.a]\ncommand = \"x\"\n[servers.a]\ncommand = \"y\"\n");
        assert!(e.starts_with("fixtures/servers.toml:3:"), "{e}");
        assert!(e.to_lowercase().contains("duplicate"), "{e}");
        let e = Registry::from_json_str(
            r#"{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}"#,
            Path::new("m.json"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("duplicate server alias \"a\""), "{e}");
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
    fn claude_desktop_json_shape() {
        let r = Registry::from_json_str(
            r#"{"mcpServers": {
                "fs": {"command": "npx", "args": ["-y", "x"], "env": {"A": "b"}},
                "remote": {"url": "http://127.0.0.1:9/mcp", "headers": {"X": "y"}},
                "legacy": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
                "h": {"type": "http", "url": "http://127.0.0.1:9/mcp"}
            }}"#,
            Path::new("claude_desktop_config.json"),
        )
        .unwrap();
        let kinds: Vec<_> = r
            .servers()
            .iter()
            .map(|s| (s.alias.as_str(), s.transport.kind()))
            .collect();
        assert_eq!(
            kinds,
            [
                ("fs", "stdio"),
                ("h", "streamable-http"),
                ("legacy", "sse"),
                ("remote", "streamable-http")
            ]
        );
        let e = Registry::from_json_str(r#"{"mcpServers": {"a": {}}}"#, Path::new("m.json"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("no `command` or `url`"), "{e}");
        let e = Registry::from_json_str("{\"mcpServers\": [}", Path::new("m.json"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("m.json:1:"), "{e}");
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
    fn relative_command_and_cwd_resolve_against_the_registry_dir() {
        let r = Registry::from_toml_str(
            "[servers.a]\ncommand = \"./bin/srv\"\ncwd = \"work\"\n",
            Path::new("/etc/mcp/servers.toml"),
        )
        .unwrap();
        let res = r.get("a").unwrap().resolve(&env(&[])).unwrap();
        match res.transport {
            TransportConfig::Stdio { command, cwd, .. } => {
                assert_eq!(command, "/etc/mcp/./bin/srv");
                assert_eq!(cwd.as_deref(), Some("/etc/mcp/work"));
            }
            other => panic!("{other:?}"),
        }
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
