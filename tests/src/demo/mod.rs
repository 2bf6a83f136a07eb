//! The embedded demo/fault MCP server, built on rmcp's server side.
//!
//! It is the default server of the README's main job (a fresh machine needs nothing but
//! cargo), the fault injector of the runtime tests and the echo server of the benchmarks.
//! The binary `mcp-demo-server` is a thin wrapper around [`Options::parse`] and [`run`]:
//!
//! ```text
//! mcp-demo-server [--transport stdio|http] [--host 127.0.0.1] [--port N] [--pipes]
//!                 [--faults] [--exit-after N] [--startup-delay-ms N]
//!                 [--protocol all|2025-11-25|2026-07-28] [--misbehave MODE]
//!                 [--oauth [--oauth-token-ttl SECS] [--oauth-client ID:SECRET]…]
//!                 [--page-size N] [--task-poll-ms N] [--rug-pull poison|rename [--rug-pull-after N]]
//!                 [--tls-cert PEM --tls-key PEM]
//!                 [--require-header NAME:VALUE] [--expire-session-after N] [--json-response]
//! ```
//!
//! - stdio (default): newline-delimited JSON-RPC on stdin/stdout; `--pipes` uses rmcp's
//!   [`stdio_pipes`](rmcp::transport::stdio_pipes) (non-blocking pipe IO on Linux) instead of
//!   [`stdio`](rmcp::transport::stdio), which runs every read and write on tokio's blocking
//!   pool. Logs go to stderr only.
//! - http: Streamable HTTP at `/mcp`; prints exactly one line
//!   `listening on http://<host>:<port>/mcp` to stdout once bound (`--port 0`, the default,
//!   picks a free port). With `--oauth`, `/mcp` needs a bearer token from the authorization
//!   server the same process serves (see [`oauth`]).
//!
//! The tool list is deterministic: sorted by name, schema keys sorted recursively. The demo
//! tools are always listed ([`DEMO_TOOLS`]); the fault tools ([`FAULT_TOOLS`]) only with
//! `--faults`, so the committed `demo` fixture does not depend on them.

mod garbage;
mod http;
pub mod oauth;
pub mod resources;
mod server;
mod stdio;
pub mod types;

use std::{io, time::Duration};

pub use garbage::{GarbageQueue, GarbageWriter};
pub use server::{
    DEMO_TOOLS, DemoConfig, DemoServer, FAULT_TOOLS, SERVER_NAME, SERVER_VERSION, huge_text,
    rfc3339_utc,
};

/// Usage text of `mcp-demo-server --help`.
pub const USAGE: &str = "\
mcp-demo-server: the demo/fault MCP server of mcp-bindgen

USAGE:
    mcp-demo-server [OPTIONS]

OPTIONS:
    --transport stdio|http   transport to serve (default: stdio)
    --host HOST              http: address to bind (default: 127.0.0.1)
    --port N                 http: port to bind, 0 = pick a free one (default: 0)
    --pipes                  stdio: use rmcp's non-blocking stdio_pipes() transport
    --faults                 also list the fault tools: crash, hang, garbage, huge, sleep
    --exit-after N           exit after N tool calls have been answered
    --startup-delay-ms N     sleep N ms before serving
    --protocol REV           speak only this protocol revision: 2025-11-25 (the initialize
                             lifecycle and older) or 2026-07-28 (stateless); default: all
    --oauth                  http: protect /mcp with OAuth 2.1, served by an authorization
                             server on the same origin that approves every request at once
                             (dynamic registration, PKCE, refresh, client credentials;
                             GET /oauth/stats counts the grants)
    --oauth-token-ttl SECS   http --oauth: access token lifetime (default: 3600)
    --oauth-client ID:SECRET http --oauth: a pre-registered client (client credentials)
    --oauth-refresh-delay-ms N
                             http --oauth: answer refresh grants after N ms
    --misbehave MODE         answer tools/list as a broken server would: cursor-cycle (a
                             nextCursor it already sent), duplicate-tool (a tool listed twice);
                             stdio only: bad-utf8 (the answer is not valid UTF-8), unknown-id
                             (an answer to an id nobody sent), deep (an answer nested 200
                             levels deep) — these three never answer properly; many-tools
                             (20 000 tools in one answer, about 1.4 MB); reflect-env (the
                             value of MCP_DEMO_REFLECT in a tool's description, as a server
                             that echoes its configuration would); reflect-env-error (the
                             same value in a JSON-RPC error answering tools/list);
                             reflect-env-name (the value in the first tool's name);
                             reflect-env-title (the value in the first tool's title);
                             reflect-env-encoded (the value percent-encoded, JSON-escaped
                             with \\/ and in base64 in a JSON-RPC error answering tools/list);
                             deep-schema (one more tool, `nested`, whose inputSchema nests 40
                             arrays deep); long-task-id (with --faults: slow_sum's tasks
                             named by ids padded with dots to 1 MiB); stdio only:
                             exit-on-discover (a first message `server/discover` ends the
                             process unanswered, as servers on early rmcp do)
    --page-size N            list the tools N per page (tools/list pagination)
    --task-poll-ms N         the pollInterval slow_sum's tasks name (default 20; 0 as a
                             careless server would); a cancelled task is logged to stderr
                             with the tasks/get requests answered so far
    --rug-pull MODE          change the tool list after --rug-pull-after answers to
                             tools/list (default 1), then send tools/list_changed, as a
                             server that turns hostile after it was reviewed would:
                             poison (echo's description tells the model to call the new tool
                             exfil; add takes a new required argument carry) or rename
                             (get_weather is listed as forecast, the same schemas)
    --rug-pull-after N       answers to tools/list before the rug pull (0: from the start)
    --tls-cert PEM           http: serve HTTPS with this certificate chain (with --tls-key)
    --tls-key PEM            http: the certificate's private key
    --require-header N:V     http: answer 400 to a request without header N = V
    --expire-session-after N http: forget a session after N of its requests (the next one
                             gets 404, as a server that expired the session would)
    --json-response          http: answer stateless requests with application/json bodies
                             instead of event streams where it can
    -h, --help               print this help
    -V, --version            print the version

In http mode the server prints `listening on http://HOST:PORT/mcp` to stdout once bound.
Logs go to stderr; set MCP_DEMO_LOG (tracing filter, default `warn`) for rmcp's own logs.
";

/// Transport to serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TransportKind {
    /// Newline-delimited JSON-RPC over stdin/stdout.
    #[default]
    Stdio,
    /// Streamable HTTP at `/mcp`.
    Http,
}

/// Command-line options of `mcp-demo-server`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Transport to serve.
    pub transport: TransportKind,
    /// Address to bind in http mode.
    pub host: String,
    /// Port to bind in http mode; 0 picks a free one.
    pub port: u16,
    /// Serve stdio through rmcp's `stdio_pipes()` instead of `stdio()`.
    pub pipes: bool,
    /// List and serve the fault tools.
    pub faults: bool,
    /// Exit after this many answered tool calls.
    pub exit_after: Option<u64>,
    /// Sleep this long before serving.
    pub startup_delay: Duration,
    /// The protocol revisions served: `None` all, else exactly one wire.
    pub protocol: Option<Wire>,
    /// How `tools/list` misbehaves (`--misbehave`).
    pub misbehave: Option<Misbehave>,
    /// http: protect `/mcp` with OAuth, served by an authorization server on the same
    /// origin (`--oauth`).
    pub oauth: bool,
    /// How long its access tokens live (`--oauth-token-ttl SECONDS`).
    pub oauth_ttl: Duration,
    /// Pre-registered clients for the client credentials grant (`--oauth-client ID:SECRET`).
    pub oauth_clients: Vec<(String, String)>,
    /// How long answering a refresh takes (`--oauth-refresh-delay-ms N`).
    pub oauth_refresh_delay: Duration,
    /// Tools per `tools/list` page (`--page-size N`; `None`: one page).
    pub page_size: Option<usize>,
    /// The `pollInterval` of `slow_sum`'s tasks (`--task-poll-ms N`, default 20).
    pub task_poll_ms: u64,
    /// How the tool list changes after it was reviewed (`--rug-pull`).
    pub rug_pull: Option<RugPull>,
    /// After how many `tools/list` answers (`--rug-pull-after`, default 1).
    pub rug_pull_after: u64,
    /// http: serve HTTPS with this certificate chain and key (`--tls-cert`, `--tls-key`).
    pub tls: Option<(std::path::PathBuf, std::path::PathBuf)>,
    /// http: a header every request must carry (`--require-header NAME:VALUE`).
    pub require_header: Option<(String, String)>,
    /// http: a session is forgotten after this many of its requests.
    pub expire_session_after: Option<u64>,
    /// http: JSON bodies instead of event streams for stateless answers (`--json-response`).
    pub json_response: bool,
}

/// A server that changes its tools after they were reviewed (`--rug-pull`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RugPull {
    /// `echo`'s description tells the model to call the new tool `exfil`; `add` takes a
    /// new required argument `carry`.
    Poison,
    /// `get_weather` is listed as `forecast`, with the same schemas.
    Rename,
}

/// A broken server's `tools/list` (`--misbehave`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Misbehave {
    /// Every page names the same `nextCursor`.
    CursorCycle,
    /// The first tool is listed twice.
    DuplicateTool,
    /// The answer is written as a line that is not valid UTF-8 (stdio).
    BadUtf8,
    /// An answer to request id 424242, which nobody sent, instead of the real one (stdio).
    UnknownId,
    /// The answer nests 200 levels deep, past serde_json's limit of 128 (stdio).
    Deep,
    /// 20 000 tools in one answer (more than the client's default `max_tools`).
    ManyTools,
    /// The value of `MCP_DEMO_REFLECT` in a tool's description.
    ReflectEnv,
    /// The value of `MCP_DEMO_REFLECT` in a JSON-RPC error answering `tools/list`.
    ReflectEnvError,
    /// The value of `MCP_DEMO_REFLECT` in the first tool's name.
    ReflectEnvName,
    /// The value of `MCP_DEMO_REFLECT` in the first tool's title.
    ReflectEnvTitle,
    /// The value of `MCP_DEMO_REFLECT` percent-encoded, JSON-escaped (`/` as `\/`) and in
    /// base64, in a JSON-RPC error answering `tools/list`.
    ReflectEnvEncoded,
    /// One more tool, `nested`, whose `inputSchema` nests 40 arrays deep (legal JSON,
    /// deeper than a Rust type can nest).
    DeepSchema,
    /// `slow_sum`'s tasks are named by ids padded with dots to 1 MiB (the task requests
    /// take them back padded or not).
    LongTaskId,
    /// A first message `server/discover` ends the process unanswered (stdio): what servers
    /// on early rmcp (0.1) do with a method they cannot parse.
    ExitOnDiscover,
}

/// One of the two protocol wires (`--protocol`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// 2025-11-25 and older: the `initialize` lifecycle only.
    Initialize,
    /// 2026-07-28: stateless (`server/discover`, `_meta` per request) only.
    Stateless,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            transport: TransportKind::Stdio,
            host: "127.0.0.1".into(),
            port: 0,
            pipes: false,
            faults: false,
            exit_after: None,
            startup_delay: Duration::ZERO,
            protocol: None,
            misbehave: None,
            oauth: false,
            oauth_ttl: Duration::from_secs(3600),
            oauth_clients: Vec::new(),
            oauth_refresh_delay: Duration::ZERO,
            page_size: None,
            task_poll_ms: 20,
            rug_pull: None,
            rug_pull_after: 1,
            tls: None,
            require_header: None,
            expire_session_after: None,
            json_response: false,
        }
    }
}

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Serve with these options.
    Serve(Box<Options>),
    /// Print [`USAGE`].
    Help,
    /// Print the version.
    Version,
}

impl Options {
    /// Parses the arguments after the program name. Accepts `--flag value` and
    /// `--flag=value`.
    pub fn parse<I, S>(args: I) -> Result<Command, String>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut options = Options::default();
        let (mut cert, mut key) = (None, None);
        let mut args = args.into_iter().map(Into::into);
        while let Some(arg) = args.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) if flag.starts_with("--") => {
                    (flag.to_owned(), Some(value.to_owned()))
                }
                _ => (arg.clone(), None),
            };
            let mut value = |name: &str| -> Result<String, String> {
                match inline.clone() {
                    Some(value) => Ok(value),
                    None => args.next().ok_or_else(|| format!("{name} needs a value")),
                }
            };
            match flag.as_str() {
                "-h" | "--help" => return Ok(Command::Help),
                "-V" | "--version" => return Ok(Command::Version),
                "--transport" => {
                    options.transport = match value("--transport")?.as_str() {
                        "stdio" => TransportKind::Stdio,
                        "http" | "streamable-http" => TransportKind::Http,
                        other => {
                            return Err(format!(
                                "unknown transport {other:?} (expected stdio or http)"
                            ));
                        }
                    }
                }
                "--host" => options.host = value("--host")?,
                "--misbehave" => {
                    options.misbehave = Some(match value("--misbehave")?.as_str() {
                        "cursor-cycle" => Misbehave::CursorCycle,
                        "duplicate-tool" => Misbehave::DuplicateTool,
                        "bad-utf8" => Misbehave::BadUtf8,
                        "unknown-id" => Misbehave::UnknownId,
                        "deep" => Misbehave::Deep,
                        "many-tools" => Misbehave::ManyTools,
                        "reflect-env" => Misbehave::ReflectEnv,
                        "reflect-env-error" => Misbehave::ReflectEnvError,
                        "reflect-env-name" => Misbehave::ReflectEnvName,
                        "reflect-env-title" => Misbehave::ReflectEnvTitle,
                        "reflect-env-encoded" => Misbehave::ReflectEnvEncoded,
                        "deep-schema" => Misbehave::DeepSchema,
                        "long-task-id" => Misbehave::LongTaskId,
                        "exit-on-discover" => Misbehave::ExitOnDiscover,
                        other => {
                            return Err(format!(
                                "unknown misbehaviour {other:?} (expected cursor-cycle, duplicate-tool, bad-utf8, unknown-id, deep, many-tools, reflect-env, reflect-env-error, reflect-env-name, reflect-env-title, reflect-env-encoded, deep-schema, long-task-id or exit-on-discover)"
                            ));
                        }
                    })
                }
                "--rug-pull" => {
                    options.rug_pull = Some(match value("--rug-pull")?.as_str() {
                        "poison" => RugPull::Poison,
                        "rename" => RugPull::Rename,
                        other => {
                            return Err(format!(
                                "unknown rug pull {other:?} (expected poison or rename)"
                            ));
                        }
                    });
                }
                "--rug-pull-after" => {
                    options.rug_pull_after =
                        number("--rug-pull-after", &value("--rug-pull-after")?)?;
                }
                "--protocol" => {
                    options.protocol = match value("--protocol")?.as_str() {
                        "all" => None,
                        "2025-11-25" => Some(Wire::Initialize),
                        "2026-07-28" => Some(Wire::Stateless),
                        other => {
                            return Err(format!(
                                "unknown protocol {other:?} (expected all, 2025-11-25 or 2026-07-28)"
                            ));
                        }
                    }
                }
                "--port" => options.port = number("--port", &value("--port")?)?,
                "--exit-after" => {
                    options.exit_after = Some(number("--exit-after", &value("--exit-after")?)?)
                }
                "--startup-delay-ms" => {
                    let ms = number("--startup-delay-ms", &value("--startup-delay-ms")?)?;
                    options.startup_delay = Duration::from_millis(ms);
                }
                "--oauth-token-ttl" => {
                    let secs = number("--oauth-token-ttl", &value("--oauth-token-ttl")?)?;
                    options.oauth_ttl = Duration::from_secs(secs);
                }
                "--oauth-refresh-delay-ms" => {
                    let ms = number(
                        "--oauth-refresh-delay-ms",
                        &value("--oauth-refresh-delay-ms")?,
                    )?;
                    options.oauth_refresh_delay = Duration::from_millis(ms);
                }
                "--oauth-client" => {
                    let pair = value("--oauth-client")?;
                    let (id, secret) = pair
                        .split_once(':')
                        .ok_or("--oauth-client takes ID:SECRET")?;
                    options
                        .oauth_clients
                        .push((id.to_string(), secret.to_string()));
                }
                "--page-size" => {
                    options.page_size = Some(number("--page-size", &value("--page-size")?)?)
                }
                "--task-poll-ms" => {
                    options.task_poll_ms = number("--task-poll-ms", &value("--task-poll-ms")?)?
                }
                "--tls-cert" => cert = Some(std::path::PathBuf::from(value("--tls-cert")?)),
                "--tls-key" => key = Some(std::path::PathBuf::from(value("--tls-key")?)),
                "--require-header" => {
                    let pair = value("--require-header")?;
                    let (name, v) = pair
                        .split_once(':')
                        .ok_or("--require-header takes NAME:VALUE")?;
                    options.require_header = Some((name.to_ascii_lowercase(), v.to_string()));
                }
                "--expire-session-after" => {
                    options.expire_session_after = Some(number(
                        "--expire-session-after",
                        &value("--expire-session-after")?,
                    )?)
                }
                "--json-response" if inline.is_none() => options.json_response = true,
                "--faults" | "--pipes" | "--oauth" if inline.is_some() => {
                    return Err(format!("{flag} takes no value"));
                }
                "--faults" => options.faults = true,
                "--pipes" => options.pipes = true,
                "--oauth" => options.oauth = true,
                other => return Err(format!("unknown argument {other:?}")),
            }
        }
        if options.oauth && options.transport != TransportKind::Http {
            return Err("--oauth needs --transport http".into());
        }
        options.tls = match (cert, key) {
            (Some(cert), Some(key)) if options.transport == TransportKind::Http => {
                Some((cert, key))
            }
            (None, None) => None,
            _ => return Err("--tls-cert and --tls-key go together, with --transport http".into()),
        };
        if options.page_size == Some(0) {
            return Err("--page-size must be at least 1".into());
        }
        Ok(Command::Serve(Box::new(options)))
    }
}

fn number<T: std::str::FromStr>(flag: &str, text: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("{flag}: {text:?} is not a valid non-negative number"))
}

/// Serves until the client goes away (stdio), forever (http), or until `--exit-after`
/// calls have been answered. Must run inside a tokio runtime with IO and time enabled.
pub async fn run(options: Options) -> io::Result<()> {
    if !options.startup_delay.is_zero() {
        server::log(format_args!(
            "startup delay: sleeping {} ms",
            options.startup_delay.as_millis()
        ));
        tokio::time::sleep(options.startup_delay).await;
    }
    match options.transport {
        TransportKind::Stdio => stdio::serve(&options).await,
        TransportKind::Http => http::serve(&options).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serve(args: &[&str]) -> Options {
        match Options::parse(args.iter().copied()) {
            Ok(Command::Serve(options)) => *options,
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn parses_flags() {
        assert_eq!(serve(&[]), Options::default());
        let options = serve(&[
            "--transport=http",
            "--port",
            "0",
            "--host",
            "127.0.0.1",
            "--faults",
            "--exit-after",
            "3",
            "--startup-delay-ms=250",
            "--pipes",
        ]);
        assert_eq!(options.transport, TransportKind::Http);
        assert!(options.faults && options.pipes);
        assert_eq!(options.exit_after, Some(3));
        assert_eq!(options.startup_delay, Duration::from_millis(250));
        assert_eq!(Options::parse(["--help"]), Ok(Command::Help));
    }

    #[test]
    fn rejects_bad_input() {
        for (args, needle) in [
            (&["--transport", "sse"][..], "unknown transport"),
            (&["--port"][..], "needs a value"),
            (&["--port", "70000"][..], "not a valid"),
            (&["--bogus"][..], "unknown argument"),
            (&["--faults=yes"][..], "takes no value"),
            (
                &["--transport", "http", "--tls-cert", "c.pem"][..],
                "go together",
            ),
            (
                &["--tls-cert", "c.pem", "--tls-key", "k.pem"][..],
                "go together",
            ),
            (&["--page-size", "0"][..], "at least 1"),
            (&["--require-header", "x"][..], "NAME:VALUE"),
        ] {
            let error = Options::parse(args.iter().copied()).unwrap_err();
            assert!(error.contains(needle), "{args:?}: {error}");
        }
    }
}
