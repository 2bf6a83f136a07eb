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
//!   unreviewed_tools = false         # a toolbox offers live tools missing from the fixture
//!   require_fixture = false          # a toolbox refuses to start without the fixture
//!   protocol = "auto"                # or "2025-11-25" (initialize) / "2026-07-28" (stateless)
//!   required = false                 # a failure to connect is an error, not a warning
//!   tools = ["create_issue"]         # optional allowlist
//!   exclude_tools = ["delete_repo"]  # optional denylist
//!   function_call_wrapper = false    # offer the tools to non-MCP models as function calls
//!   enabled = true                   # false (or disabled = true): kept out of the servers
//!   max_message_bytes = 16777216     # largest message (stdio line, SSE event, HTTP body)
//!   max_tools = 10000                # most tools in one tools/list
//!   max_tools_list_bytes = 67108864  # largest tools/list (all pages)
//!   roots = ["."]                    # roots offered to the server (paths or file:// URIs)
//!   max_tokens = 8000                # token budget of the tool list (`tools --tokens --check`)
//!   max_description_chars = 2048     # shorten longer descriptions (off by default)
//!   # HTTP servers: ca_certs = ["certs/ca.pem"] trusts extra root certificates (PEM)
//!
//!   [servers.remote]
//!   transport = "streamable-http"
//!   url = "https://example.com/mcp"
//!   headers = { Authorization = "Bearer ${TOKEN}" }
//!
//!   [servers.linear]
//!   url = "https://mcp.linear.app/mcp"
//!   auth = "oauth"                   # OAuth 2.1: `cargo xtask login linear` once
//!
//!   [models.openai]                  # supports_mcp for every model of a provider
//!   supports_mcp = false
//!   [models."openai/gpt-5"]          # for one model: "provider/model", quoted
//!   supports_mcp = true
//!
//!   [agents.researcher]
//!   model = "openai/gpt-5"
//!   servers = ["github", "remote"]
//!   tools = ["github.search_code"]   # optional
//!   ```
//!
//!   `auth` (HTTP servers) also takes `{ oauth = { client_id, client_secret, scopes,
//!   client_metadata_url, redirect_port, token_store } }` and
//!   `{ client_credentials = { client_id, client_secret | private_key, algorithm, scopes } }`;
//!   see [`AuthConfig`].
//!
//! * the Claude-Desktop / Cursor JSON shape `{"mcpServers": {"name": {"command": …}}}`, or
//!   VS Code's `{"servers": {…}}` (`.vscode/mcp.json`; its `"inputs"` are not read), where
//!   `"type"` (`"stdio"`, `"sse"`, `"http"`/`"streamable-http"`) is optional: `command`
//!   means stdio and `url` means Streamable HTTP. Every other key of the TOML form is
//!   accepted too, in snake_case or camelCase (`excludeTools`, `toolTimeouts`,
//!   `connectTimeout`, `functionCallWrapper`). Both shapes are read through one set of keys,
//!   so the TOML shape takes these spellings (and `type`) as well.
//!
//! Files as other clients write them load unchanged:
//!
//! * `enabled = false` or `"disabled": true` keeps a server out of [`Registry::servers`]; it
//!   is listed by [`Registry::disabled`], and asking for it by alias is an error saying so.
//! * Keys other clients write into a server entry (`autoApprove`, `alwaysAllow`,
//!   `disabledTools`, `trust`, `envFile`, …) are ignored, with one warning per file naming
//!   each key and the servers it was found in ([`Registry::warnings`]). Their spellings of
//!   our keys are read as ours: `transportType` (`type`), `httpUrl` and `serverUrl` (`url`),
//!   `includeTools` (`tools`). A key that looks like a typo of ours (`comand`, `arg`) is
//!   refused with the key meant; any other unknown key is refused in the TOML shape and
//!   ignored (in the same warning) in the JSON shape.
//! * A server name that is not an alias (`"GitHub"`, `"brave search"`) is used under its
//!   normalized alias (`normalize_alias`: `github`, `brave_search`), with a warning; two
//!   names with the same alias are an error.
//!
//! Agents and the model policy can be declared in the registry too (`[models.<provider>]`,
//! `[models."<provider>/<model>"]`, `[agents.<name>]`; `"models"` / `"agents"` in JSON):
//! see [`Registry::agent`] and [`Registry::model_policy`].
//!
//! `${NAME}` and `${NAME:-default}` are substituted in `command`, `args`, `env`, `cwd`,
//! `url` and `headers` **at connect time only** (in [`crate::Session::connect`]); the registry
//! keeps the templates, so nothing read from the environment is ever stored, printed by
//! `Debug`, or written into a fixture. `$$` is a literal `$`; `${env:NAME}` (VS Code's and
//! Cursor's spelling) is `${NAME}`; VS Code's `${input:…}` is refused at load.
//!
//! The parts: `registry` finds and reads the file, `raw` holds the serde shape of one server
//! entry and builds a [`ServerConfig`] from it, `keys` judges the keys that are not ours and
//! normalizes aliases, `agents` holds [`crate::toolbox::AgentConfig`] and
//! [`crate::toolbox::ModelPolicy`] and their registry shape, `resolve` substitutes the
//! placeholders and collects the secrets to redact.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::drift::DriftPolicy;

pub(crate) mod agents;
mod auth;
mod keys;
mod limits;
mod protocol;
mod raw;
mod registry;
mod resolve;
#[cfg(test)]
mod shapes_tests;

pub use auth::{AuthConfig, ClientCredentialsSettings, OAuthSettings};
pub use limits::Limits;
#[cfg(not(target_arch = "wasm32"))]
pub(crate) use limits::fmt_bytes;
pub use protocol::Protocol;
pub(crate) use protocol::{LAST_WITH_INITIALIZE, REVISIONS};
pub use registry::Registry;
pub(crate) use resolve::Resolved;

/// One server of the registry, with its values still unsubstituted.
///
/// Built by [`Registry`] from the registry file, or in code from a constructor
/// ([`ServerConfig::stdio`], [`ServerConfig::http`]) and the `with_*` builders; each setting
/// is read back through the method of the same name.
///
/// ```
/// use std::time::Duration;
/// use mcp_bindgen::ServerConfig;
/// use mcp_bindgen::drift::DriftPolicy;
///
/// let config = ServerConfig::stdio("demo", "mcp-demo-server", vec![])
///     .with_timeout(Duration::from_secs(30))
///     .with_drift(DriftPolicy::Error)
///     .with_exclude_tools(["delete_everything"]);
/// assert_eq!(config.alias(), "demo");
/// assert_eq!(config.timeout(), Some(Duration::from_secs(30)));
/// assert!(!config.allows_tool("delete_everything"));
/// ```
#[derive(Clone, PartialEq)]
pub struct ServerConfig {
    /// The alias: `[a-z][a-z0-9_-]*`, unique in the registry.
    alias: String,
    /// How to reach the server.
    transport: TransportConfig,
    /// Default idle deadline of each request (progress notifications reset it).
    timeout: Option<Duration>,
    /// Whether a failure to connect (or a missing variable) is an error rather than a skip.
    required: bool,
    /// Whether a snapshot records the server's `resources/list`.
    record_resources: bool,
    /// Tool allowlist (`None`: every tool).
    tools: Option<Vec<String>>,
    /// Tool denylist.
    exclude_tools: Vec<String>,
    /// The directory relative `command` and `cwd` paths are resolved against
    /// (the registry file's directory).
    base_dir: PathBuf,
    /// Whether the agent layer may offer this server's tools to models without native MCP
    /// support as function calls.
    function_call_wrapper: bool,
    /// Per-tool idle deadlines that override `timeout`.
    tool_timeouts: BTreeMap<String, Duration>,
    /// How long connecting (start, handshake, `initialize`) may take.
    connect_timeout: Option<Duration>,
    /// What a drift between the live tool list and the compiled fixture does.
    drift: DriftPolicy,
    /// A toolbox offers live tools that are not in the server's fixture.
    unreviewed_tools: bool,
    /// A toolbox refuses to start without the server's fixture.
    require_fixture: bool,
    /// Which protocol revision to negotiate.
    protocol: Protocol,
    /// How an access token is obtained (HTTP servers only).
    auth: Option<AuthConfig>,
    /// How much the server may send.
    limits: Limits,
    /// Extra root certificates (PEM files) trusted for this HTTPS server.
    ca_certs: Vec<PathBuf>,
    roots: Vec<crate::Root>,
    max_tokens: Option<u32>,
    max_description_chars: Option<usize>,
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
            .field("record_resources", &self.record_resources)
            .field("tools", &self.tools)
            .field("exclude_tools", &self.exclude_tools)
            .field("function_call_wrapper", &self.function_call_wrapper)
            .field("tool_timeouts", &self.tool_timeouts)
            .field("connect_timeout", &self.connect_timeout)
            .field("drift", &self.drift)
            .field("unreviewed_tools", &self.unreviewed_tools)
            .field("require_fixture", &self.require_fixture)
            .field("protocol", &self.protocol)
            .field("auth", &self.auth)
            .field("limits", &self.limits)
            .field("ca_certs", &self.ca_certs)
            .field("roots", &self.roots)
            .field("max_tokens", &self.max_tokens)
            .field("max_description_chars", &self.max_description_chars)
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
            record_resources: false,
            tools: None,
            exclude_tools: Vec::new(),
            base_dir: PathBuf::from("."),
            function_call_wrapper: false,
            tool_timeouts: BTreeMap::new(),
            connect_timeout: None,
            drift: DriftPolicy::default(),
            unreviewed_tools: false,
            require_fixture: false,
            protocol: Protocol::Auto,
            auth: None,
            limits: Limits::default(),
            ca_certs: Vec::new(),
            roots: Vec::new(),
            max_tokens: None,
            max_description_chars: None,
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

    /// The alias: `[a-z][a-z0-9_-]*`, unique in the registry.
    pub fn alias(&self) -> &str {
        &self.alias
    }

    /// How to reach the server (values still unsubstituted).
    pub fn transport(&self) -> &TransportConfig {
        &self.transport
    }

    /// The default idle deadline of each request (progress notifications reset it);
    /// `None`: [`crate::DEFAULT_TIMEOUT`].
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// The idle deadlines of single tools that override [`ServerConfig::timeout`]
    /// (`tool_timeouts = { slow_tool = 300 }`, seconds).
    pub fn tool_timeouts(&self) -> &BTreeMap<String, Duration> {
        &self.tool_timeouts
    }

    /// How long connecting (start, handshake, `initialize`) may take (`connect_timeout = 10`);
    /// `None`: [`crate::DEFAULT_CONNECT_TIMEOUT`].
    pub fn connect_timeout(&self) -> Option<Duration> {
        self.connect_timeout
    }

    /// Whether a failure to connect (or a missing variable) is an error rather than a skip
    /// (`required = true`; default false).
    pub fn required(&self) -> bool {
        self.required
    }

    /// Whether a snapshot records the server's static resources (`resources/list`) in the
    /// fixture (`record_resources = true`; default false: many servers list live data
    /// there, which would change the fixture with every data change).
    pub fn record_resources(&self) -> bool {
        self.record_resources
    }

    /// This configuration with [`ServerConfig::record_resources`] set.
    pub fn with_record_resources(mut self, record: bool) -> Self {
        self.record_resources = record;
        self
    }

    /// The tool allowlist (`tools = [...]`); `None`: every tool.
    pub fn tools(&self) -> Option<&[String]> {
        self.tools.as_deref()
    }

    /// The tool denylist (`exclude_tools = [...]`).
    pub fn exclude_tools(&self) -> &[String] {
        &self.exclude_tools
    }

    /// The directory relative `command` and `cwd` paths are resolved against (the registry
    /// file's directory; `.` for a config built in code).
    pub fn base_dir(&self) -> &Path {
        &self.base_dir
    }

    /// Whether the agent layer may offer this server's tools to models without native MCP
    /// support as function calls (`function_call_wrapper = true`; default false). See
    /// [`crate::toolbox`] for the model/server rules that read it.
    pub fn function_call_wrapper(&self) -> bool {
        self.function_call_wrapper
    }

    /// What a drift between the live tool list and the compiled fixture does
    /// (`drift = "warn" | "error" | "ignore"`; default `warn`). In a toolbox, per tool:
    /// `warn` refuses a tool whose change is BREAKING and offers the reviewed definition of
    /// one whose change is not (with one warning), `error` refuses a tool at any change,
    /// `ignore` offers the reviewed definitions whatever changed.
    pub fn drift(&self) -> DriftPolicy {
        self.drift
    }

    /// Whether a toolbox offers this server's live tools that are not in its fixture
    /// (`unreviewed_tools = true`; default false: they are neither offered nor callable).
    pub fn unreviewed_tools(&self) -> bool {
        self.unreviewed_tools
    }

    /// Whether a toolbox refuses to start without this server's fixture
    /// (`require_fixture = true`; default false: a server without one is offered as it is
    /// live, with a warning).
    pub fn require_fixture(&self) -> bool {
        self.require_fixture
    }

    /// Which MCP protocol revision the session negotiates (`protocol = "auto"`, the
    /// default, or a revision such as `"2025-11-25"` or `"2026-07-28"`); see [`Protocol`].
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// How the client obtains an OAuth access token for this HTTP server (`auth = "oauth"`,
    /// `auth = { client_credentials = … }`); `None`: no OAuth (static `headers` only).
    pub fn auth(&self) -> Option<&AuthConfig> {
        self.auth.as_ref()
    }

    /// How much the server may send (`max_message_bytes`, `max_tools`,
    /// `max_tools_list_bytes`); see [`Limits`] for the defaults.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Sets [`ServerConfig::limits`].
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Extra root certificates, PEM files, that the client trusts for this HTTPS server
    /// besides the system's (`ca_certs = ["certs/corp-ca.pem"]`, relative to the registry
    /// file): a server behind a company CA, or a test CA.
    pub fn ca_certs(&self) -> &[PathBuf] {
        &self.ca_certs
    }

    /// Adds a root certificate file ([`ServerConfig::ca_certs`]).
    pub fn with_ca_cert(mut self, pem: impl Into<PathBuf>) -> Self {
        self.ca_certs.push(pem.into());
        self
    }

    /// The roots the client offers the server (`roots = [".", "file:///srv/data"]`: paths
    /// relative to the registry file, or URIs); the `roots` capability is declared when
    /// there is one (or when [`crate::ConnectOptions::with_roots`] sets them).
    pub fn roots(&self) -> &[crate::Root] {
        &self.roots
    }

    /// The token budget of the server's tool list (`max_tokens = 8000`): the most tokens its
    /// tools' OpenAI function definitions may take, after `tools`/`exclude_tools`.
    /// `cargo mcp-bindgen tools --tokens --check` fails over it; `mcp_tools!(…, max_tokens =
    /// N)` is the same gate at compile time.
    pub fn max_tokens(&self) -> Option<u32> {
        self.max_tokens
    }

    /// Sets [`ServerConfig::max_tokens`].
    pub fn with_max_tokens(mut self, max: u32) -> Self {
        self.max_tokens = Some(max);
        self
    }

    /// The longest description a toolbox exports for this server's tools
    /// (`max_description_chars = 2048`; off by default, since it changes what the model
    /// reads): a longer one is shortened at a sentence boundary, and the sentences past the
    /// cut that name an argument move into that argument's description. Overrides
    /// [`ToolboxBuilder::max_description_chars`](crate::toolbox::ToolboxBuilder::max_description_chars).
    pub fn max_description_chars(&self) -> Option<usize> {
        self.max_description_chars
    }

    /// Sets [`ServerConfig::max_description_chars`].
    pub fn with_max_description_chars(mut self, max: usize) -> Self {
        self.max_description_chars = Some(max);
        self
    }

    /// Adds a root ([`ServerConfig::roots`]).
    pub fn with_root(mut self, root: crate::Root) -> Self {
        self.roots.push(root);
        self
    }

    /// Sets [`ServerConfig::auth`].
    pub fn with_auth(mut self, auth: AuthConfig) -> Self {
        self.auth = Some(auth);
        self
    }

    /// Sets the protocol revision ([`ServerConfig::protocol`]).
    pub fn with_protocol(mut self, protocol: Protocol) -> Self {
        self.protocol = protocol;
        self
    }

    /// Sets the default idle deadline of each request ([`ServerConfig::timeout`]).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets the idle deadline of one tool's calls (overrides [`ServerConfig::timeout`]).
    pub fn with_tool_timeout(mut self, tool: impl Into<String>, timeout: Duration) -> Self {
        self.tool_timeouts.insert(tool.into(), timeout);
        self
    }

    /// Sets how long connecting may take ([`ServerConfig::connect_timeout`]).
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = Some(timeout);
        self
    }

    /// Sets whether a failure to connect is an error ([`ServerConfig::required`]).
    pub fn with_required(mut self, required: bool) -> Self {
        self.required = required;
        self
    }

    /// Sets the tool allowlist ([`ServerConfig::tools`]): only these tools are offered.
    pub fn with_tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tools = Some(tools.into_iter().map(Into::into).collect());
        self
    }

    /// Sets the tool denylist ([`ServerConfig::exclude_tools`]).
    pub fn with_exclude_tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.exclude_tools = tools.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the directory relative `command` and `cwd` paths are resolved against
    /// ([`ServerConfig::base_dir`]).
    pub fn with_base_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.base_dir = dir.into();
        self
    }

    /// Sets [`ServerConfig::function_call_wrapper`].
    pub fn with_function_call_wrapper(mut self, wrapper: bool) -> Self {
        self.function_call_wrapper = wrapper;
        self
    }

    /// Sets [`ServerConfig::unreviewed_tools`].
    pub fn with_unreviewed_tools(mut self, allow: bool) -> Self {
        self.unreviewed_tools = allow;
        self
    }

    /// Sets [`ServerConfig::require_fixture`].
    pub fn with_require_fixture(mut self, require: bool) -> Self {
        self.require_fixture = require;
        self
    }

    /// Sets the drift policy ([`ServerConfig::drift`]).
    pub fn with_drift(mut self, policy: DriftPolicy) -> Self {
        self.drift = policy;
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

    /// Sets [`ServerConfig::function_call_wrapper`] in place (the toolbox builder's
    /// per-server override).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn set_function_call_wrapper(&mut self, wrapper: bool) {
        self.function_call_wrapper = wrapper;
    }

    /// Whether the tool passes this server's allowlist and denylist.
    pub fn allows_tool(&self, tool: &str) -> bool {
        self.tools
            .as_ref()
            .is_none_or(|allow| allow.iter().any(|t| t == tool))
            && !self.exclude_tools.iter().any(|t| t == tool)
    }
}

#[cfg(test)]
mod test_support {
    use std::path::Path;

    use super::Registry;

    /// The error message of loading `text` as `fixtures/servers.toml`.
    pub(super) fn toml_err(text: &str) -> String {
        Registry::from_toml_str(text, Path::new("fixtures/servers.toml"))
            .unwrap_err()
            .to_string()
    }

    /// A lookup that knows exactly `vars`.
    pub(super) fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }
}
