//! The one error type of `mcp-bindgen` ([`Error`], classified by [`ErrorKind`]), shared by
//! the runtime and the agent layer.
//!
//! Messages name the server (its alias), the tool and what to do. They never contain a
//! resolved secret: configuration values are reported in their unsubstituted form
//! (`${GITHUB_TOKEN}`), and server output is only quoted from its stderr tail.

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use crate::output::ToolOutput;

/// Everything that can go wrong in `mcp-bindgen`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A registry file could not be read.
    #[error("cannot read server registry {}: {source}", path.display())]
    RegistryRead {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A registry file is not valid TOML/JSON or has a wrong shape.
    #[error("{}:{line}:{column}: {message}", path.display())]
    RegistrySyntax {
        /// The file.
        path: PathBuf,
        /// 1-based line (0 when unknown).
        line: usize,
        /// 1-based column (0 when unknown).
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A server entry of the registry is invalid.
    #[error("{}: server \"{alias}\": {message}", path.display())]
    InvalidServer {
        /// The registry file.
        path: PathBuf,
        /// The server's alias.
        alias: String,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// A `${NAME}` used by a server's configuration is not set.
    #[error(
        "server \"{alias}\": {variable} is not set (used in {location}); set it or write ${{{variable}:-default}}"
    )]
    UndefinedVariable {
        /// The server's alias.
        alias: String,
        /// The variable's name.
        variable: String,
        /// Where it is used, e.g. `env.GITHUB_TOKEN` or `headers.Authorization`.
        location: String,
    },
    /// An alias was asked for that the registry does not define.
    #[error(
        "no server \"{alias}\" in the registry{} (known: {known})",
        mcp_bindgen_core::naming::did_you_mean(alias, known.split(", ").filter(|k| !k.is_empty()))
    )]
    UnknownServer {
        /// The alias asked for.
        alias: String,
        /// The aliases the registry defines, comma-separated.
        known: String,
    },
    /// OAuth failed: no stored login, a refused refresh, a failed authorization or token
    /// request. The message names the command that fixes it where there is one
    /// (`cargo xtask login ALIAS`).
    #[error("server \"{server}\": OAuth: {message}")]
    Auth {
        /// The server's alias.
        server: String,
        /// What failed (never a token or a secret).
        message: String,
    },
    /// Connecting to, or talking with, the server failed at the transport level.
    #[error("server \"{server}\": {message}{}", stderr_suffix(.stderr_tail))]
    Transport {
        /// The server's alias.
        server: String,
        /// What failed.
        message: String,
        /// The last lines the server wrote to stderr (stdio servers).
        stderr_tail: Vec<String>,
    },
    /// The server answered with a JSON-RPC error.
    #[error("server \"{server}\" rejected {method}: {message} (JSON-RPC error {code})")]
    Protocol {
        /// The server's alias.
        server: String,
        /// The request method, with the tool for `tools/call`.
        method: String,
        /// The JSON-RPC error code.
        code: i32,
        /// The server's message.
        message: String,
    },
    /// The server broke the protocol in a way the client caught (a pagination cycle, an
    /// answer of the wrong kind, a request for a capability the client did not declare).
    #[error("server \"{server}\": {method}: {message}")]
    Misbehaved {
        /// The server's alias.
        server: String,
        /// The request it happened in (with the tool for `tools/call`).
        method: String,
        /// What the server did.
        message: String,
    },
    /// A request did not complete in time; the server was sent `notifications/cancelled`.
    #[error(
        "server \"{server}\": {what} timed out after {} ({kind}){}",
        fmt_duration(*.limit),
        diagnosis_suffix(.diagnosis)
    )]
    Timeout {
        /// The server's alias.
        server: String,
        /// The request, e.g. `tools/call "echo"`.
        what: String,
        /// The limit that expired.
        limit: Duration,
        /// Which limit: `idle timeout` or `total timeout`.
        kind: &'static str,
        /// What the server did meanwhile that may explain it (lines it wrote to stdout that
        /// are not JSON-RPC, …).
        diagnosis: Option<String>,
    },
    /// The tool ran and reported an error (`isError: true`).
    #[error("tool \"{tool}\" of server \"{server}\" failed: {}", .output.text())]
    Tool {
        /// The server's alias.
        server: String,
        /// The tool's name.
        tool: String,
        /// The tool's output (its content usually explains the error); boxed, so that a
        /// `Result<T, Error>` stays small.
        output: Box<ToolOutput>,
    },
    /// The tool's result did not match the type generated from its schema.
    #[error(
        "tool \"{tool}\" of server \"{server}\": cannot decode result as {type_name}: {message}; received: {excerpt}"
    )]
    Decode {
        /// The server's alias.
        server: String,
        /// The tool's name.
        tool: String,
        /// The Rust type that was expected.
        type_name: &'static str,
        /// The decoder's message (names the field).
        message: String,
        /// The start of the offending JSON.
        excerpt: String,
    },
    /// Arguments could not be serialized to a JSON object.
    #[error(
        "tool \"{tool}\" of server \"{server}\": arguments must serialize to a JSON object: {message}"
    )]
    Encode {
        /// The server's alias.
        server: String,
        /// The tool's name.
        tool: String,
        /// What went wrong.
        message: String,
    },
    /// The live server's tools differ from the fixture the code was generated from.
    #[error(
        "server \"{server}\" drifted from its fixture: {summary}; run {} to see the changes",
        mcp_bindgen_core::project::either_command(&format!("snapshot --check {server}"))
    )]
    Drift {
        /// The server's alias.
        server: String,
        /// A short summary.
        summary: String,
    },
    /// A toolbox refused a live tool that is not among its server's reviewed tools (the
    /// fixture, or what `mcp_tools!` compiled): it is neither offered to a model nor callable
    /// unless the server or the agent allows unreviewed tools (`unreviewed_tools = true`).
    #[error(
        "tool \"{tool}\" of server \"{server}\" was never reviewed (it is not in {reviewed}), so it is neither offered to the model nor callable; run {} to review it and {} to accept it",
        mcp_bindgen_core::project::either_command(&format!("snapshot --check {server}")),
        mcp_bindgen_core::project::either_command(&format!("snapshot {server}"))
    )]
    NotReviewed {
        /// The server's alias.
        server: String,
        /// The live tool's name.
        tool: String,
        /// Where the reviewed tools come from (`fixtures/demo.json`, …).
        reviewed: String,
    },
    /// An error of the agent layer ([`crate::toolbox`]): unknown or ambiguous tool names,
    /// refused calls, invalid model arguments, rule violations, or a runtime error as seen by
    /// a dispatch. `Display` is the short message a model is shown; [`Error::kind`] is for
    /// code; the runtime error underneath is the `source`.
    #[error("{message}")]
    Toolbox {
        /// What went wrong.
        kind: ErrorKind,
        /// The model-readable message (names the tool or server and what to do).
        message: String,
        /// The runtime error underneath, if any.
        #[source]
        source: Option<Box<Error>>,
        /// The tool's output, for [`ErrorKind::ToolFailed`].
        output: Option<Box<ToolOutput>>,
    },
    /// A fake server ([`crate::fake`]) has no answer for a call: no stub for the tool, and
    /// no recorded call with these arguments.
    #[error("fake server \"{server}\": {message}")]
    Fake {
        /// The server's alias.
        server: String,
        /// The tool's name.
        tool: String,
        /// What is missing and how to add it.
        message: String,
    },
    /// A cassette ([`crate::fake`]) cannot be read or written, or a line of it does not fit
    /// the tools generated from the fixture (the message names the tool and the field).
    #[error("cassette {}{}: {message}", path.display(), line_suffix(*.line))]
    Cassette {
        /// The cassette file.
        path: PathBuf,
        /// The 1-based line (0 for the whole file).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A prompt's arguments could not be encoded, or its `prompts/get` result has an
    /// unexpected shape.
    #[error("prompt \"{prompt}\" of server \"{server}\": {message}")]
    Prompt {
        /// The server's alias.
        server: String,
        /// The prompt's name.
        prompt: String,
        /// What went wrong.
        message: String,
    },
}

fn line_suffix(line: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!(" line {line}")
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong, for code to match on: [`Error::kind`] classifies every error, the agent
/// layer's and the runtime's alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// No tool has that name (exported name, `alias.tool` or short name).
    UnknownTool,
    /// A short tool name matches tools of several servers.
    AmbiguousTool,
    /// The tool exists but the agent's configuration does not allow it.
    NotAllowed,
    /// The arguments are not JSON, not an object, or fail the tool's schema / argument type.
    InvalidArguments,
    /// The tool ran and reported an error (`isError: true`).
    ToolFailed,
    /// The server is not connected (skipped at start-up or failed since).
    Unavailable,
    /// The server did not answer in time.
    Timeout,
    /// The connection to the server failed.
    Transport,
    /// The server rejected the request (JSON-RPC error) or answered with an unexpected shape.
    Protocol,
    /// A result did not match the type generated from the tool's `outputSchema`.
    Decode,
    /// The live server's tools differ from the fixture.
    Drift,
    /// A live tool that was never reviewed (not in its server's fixture).
    NotReviewed,
    /// A server marked `required = true` could not be started.
    RequiredServer,
    /// A model without MCP support was given a server without a function-call
    /// wrapper.
    ModelServerMismatch,
    /// The server needs an OAuth login (none stored, or it expired and cannot be
    /// refreshed), or the authorization failed.
    Unauthorized,
    /// The registry, toolbox or agent configuration is invalid (unreadable registry, unknown
    /// server, undefined variable, unknown tool in an allowlist, …).
    Config,
    /// The application refused the call: a hook on dispatch (an approval that was not
    /// given), or the tool or its server switched off at run time.
    Refused,
}

impl ErrorKind {
    /// A stable lower-case name (`unknown_tool`, `invalid_arguments`, …), used in tracing
    /// events.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::UnknownTool => "unknown_tool",
            ErrorKind::AmbiguousTool => "ambiguous_tool",
            ErrorKind::NotAllowed => "not_allowed",
            ErrorKind::InvalidArguments => "invalid_arguments",
            ErrorKind::ToolFailed => "tool_failed",
            ErrorKind::Unavailable => "unavailable",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Transport => "transport",
            ErrorKind::Protocol => "protocol",
            ErrorKind::Decode => "decode",
            ErrorKind::Drift => "drift",
            ErrorKind::NotReviewed => "not_reviewed",
            ErrorKind::RequiredServer => "required_server",
            ErrorKind::ModelServerMismatch => "model_server_mismatch",
            ErrorKind::Unauthorized => "unauthorized",
            ErrorKind::Config => "config",
            ErrorKind::Refused => "refused",
        }
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Error {
    /// This error with every text field passed through the redaction rule of the server's
    /// configuration ([`crate::redact::redact`]): what a transport, an HTTP body or a
    /// server's JSON-RPC error message echoed of a resolved secret (a `${NAME}` value, a
    /// header, the URL's userinfo or query, a bearer token) becomes `<redacted>`. A tool's
    /// output (data, not a message) is kept as the server sent it.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn redacted(self, secrets: &[String]) -> Error {
        let r = |s: String| crate::redact::redact(secrets, &s);
        match self {
            Error::RegistrySyntax {
                path,
                line,
                column,
                message,
            } => Error::RegistrySyntax {
                path,
                line,
                column,
                message: r(message),
            },
            Error::InvalidServer {
                path,
                alias,
                message,
            } => Error::InvalidServer {
                path,
                alias,
                message: r(message),
            },
            Error::Auth { server, message } => Error::Auth {
                server,
                message: r(message),
            },
            Error::Transport {
                server,
                message,
                stderr_tail,
            } => Error::Transport {
                server,
                message: r(message),
                stderr_tail: stderr_tail.into_iter().map(r).collect(),
            },
            Error::Protocol {
                server,
                method,
                code,
                message,
            } => Error::Protocol {
                server,
                method: r(method),
                code,
                message: r(message),
            },
            Error::Misbehaved {
                server,
                method,
                message,
            } => Error::Misbehaved {
                server,
                method: r(method),
                message: r(message),
            },
            Error::Timeout {
                server,
                what,
                limit,
                kind,
                diagnosis,
            } => Error::Timeout {
                server,
                what: r(what),
                limit,
                kind,
                diagnosis: diagnosis.map(r),
            },
            Error::Decode {
                server,
                tool,
                type_name,
                message,
                excerpt,
            } => Error::Decode {
                server,
                tool,
                type_name,
                message: r(message),
                excerpt: r(excerpt),
            },
            Error::Encode {
                server,
                tool,
                message,
            } => Error::Encode {
                server,
                tool,
                message: r(message),
            },
            Error::Drift { server, summary } => Error::Drift {
                server,
                summary: r(summary),
            },
            Error::NotReviewed {
                server,
                tool,
                reviewed,
            } => Error::NotReviewed {
                server,
                tool: r(tool),
                reviewed,
            },
            Error::Toolbox {
                kind,
                message,
                source,
                output,
            } => Error::Toolbox {
                kind,
                message: r(message),
                source: source.map(|e| Box::new(e.redacted(secrets))),
                output,
            },
            Error::Prompt {
                server,
                prompt,
                message,
            } => Error::Prompt {
                server,
                prompt,
                message: r(message),
            },
            other => other,
        }
    }

    /// What went wrong, for code to match on.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Toolbox { kind, .. } => *kind,
            Error::RegistryRead { .. }
            | Error::RegistrySyntax { .. }
            | Error::InvalidServer { .. }
            | Error::UndefinedVariable { .. }
            | Error::UnknownServer { .. } => ErrorKind::Config,
            Error::Transport { .. } => ErrorKind::Transport,
            Error::Auth { .. } => ErrorKind::Unauthorized,
            Error::Protocol { code: -32602, .. } | Error::Encode { .. } => {
                ErrorKind::InvalidArguments
            }
            Error::Protocol { .. } | Error::Misbehaved { .. } | Error::Prompt { .. } => {
                ErrorKind::Protocol
            }
            Error::Timeout { .. } => ErrorKind::Timeout,
            Error::Tool { .. } => ErrorKind::ToolFailed,
            Error::Decode { .. } => ErrorKind::Decode,
            Error::Drift { .. } => ErrorKind::Drift,
            Error::NotReviewed { .. } => ErrorKind::NotReviewed,
            Error::Fake { .. } => ErrorKind::Unavailable,
            Error::Cassette { .. } => ErrorKind::Config,
        }
    }

    /// The runtime error underneath an agent-layer error ([`Error::Toolbox`]), if any.
    pub fn source_error(&self) -> Option<&Error> {
        match self {
            Error::Toolbox { source, .. } => source.as_deref(),
            _ => None,
        }
    }

    /// The tool's output of a failed tool ([`ErrorKind::ToolFailed`]), if there is one.
    pub fn output(&self) -> Option<&ToolOutput> {
        match self {
            Error::Toolbox { output, .. } => output.as_deref(),
            Error::Tool { output, .. } => Some(output),
            _ => None,
        }
    }

    /// A new agent-layer error.
    pub(crate) fn toolbox(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error::Toolbox {
            kind,
            message: message.into(),
            source: None,
            output: None,
        }
    }

    /// Sets the runtime error underneath an agent-layer error.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn with_source(mut self, e: Error) -> Self {
        if let Error::Toolbox { source, .. } = &mut self {
            *source = Some(Box::new(e));
        }
        self
    }

    /// Sets the tool output of an agent-layer error.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn with_output(mut self, o: ToolOutput) -> Self {
        if let Error::Toolbox { output, .. } = &mut self {
            *output = Some(Box::new(o));
        }
        self
    }

    /// A runtime error as the agent layer reports it: an [`Error::Toolbox`] with the same
    /// message and kind, the original as its source (agent-layer errors are kept as they are).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn into_toolbox(self) -> Self {
        if matches!(self, Error::Toolbox { .. }) {
            return self;
        }
        Error::toolbox(self.kind(), self.to_string()).with_source(self)
    }
}

/// What went wrong at the bottom of an error chain, in words: the innermost error's message,
/// an operating-system error as its plain description (`connection refused`, not
/// `Connection refused (os error 111)`). Library wrappers above it (their messages name
/// their types) are skipped.
pub(crate) fn cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut innermost = error;
    while let Some(next) = innermost.source() {
        innermost = next;
    }
    // rmcp's Streamable HTTP errors hold the HTTP client's error without exposing it as
    // their source.
    #[cfg(all(feature = "http", not(target_arch = "wasm32")))]
    if let Some(rmcp::transport::streamable_http_client::StreamableHttpError::Client(inner)) =
        innermost.downcast_ref::<rmcp::transport::streamable_http_client::StreamableHttpError<
            reqwest::Error,
        >>()
    {
        return cause(inner);
    }
    let text = innermost.to_string();
    let text = match text.find(" (os error ") {
        Some(i) if innermost.downcast_ref::<std::io::Error>().is_some() => text[..i].to_string(),
        _ => text,
    };
    let mut chars = text.chars();
    match chars.next() {
        // `Connection refused` → `connection refused`; keep acronyms (`DNS …`).
        Some(c) if c.is_uppercase() && chars.next().is_some_and(char::is_lowercase) => {
            c.to_lowercase().chain(text.chars().skip(1)).collect()
        }
        _ => text,
    }
}

fn diagnosis_suffix(diagnosis: &Option<String>) -> String {
    diagnosis
        .as_deref()
        .map(|d| format!("; {d}"))
        .unwrap_or_default()
}

fn stderr_suffix(tail: &[String]) -> String {
    if tail.is_empty() {
        String::new()
    } else {
        format!("; server stderr (last lines):\n  {}", tail.join("\n  "))
    }
}

pub(crate) fn fmt_duration(d: Duration) -> String {
    if d.as_millis() < 1000 {
        format!("{} ms", d.as_millis())
    } else if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// A JSON excerpt of what a server sent (at most 200 bytes, then its size).
pub(crate) fn excerpt(v: &impl Serialize) -> String {
    let s = serde_json::to_string(v).unwrap_or_else(|e| format!("<{e}>"));
    if s.len() <= 200 {
        s
    } else {
        format!(
            "{}… ({} bytes)",
            mcp_bindgen_core::schema::prefix_bytes(&s, 200),
            s.len()
        )
    }
}

/// Any error, for `main`: `fn main() -> Result<(), mcp_bindgen::Report>` prints a failure in
/// words — its `Display`, then each cause the text does not already hold — where
/// `Box<dyn Error>` prints the `Debug` form (`Transport { server: "demo", … }`).
///
/// ```
/// fn main() -> Result<(), mcp_bindgen::Report> {
///     let toml = "[servers.demo]\ncommand = \"mcp-demo-server\"\n";
///     let registry = mcp_bindgen::Registry::from_toml_str(toml, "servers.toml".as_ref())?;
///     let err = mcp_bindgen::Report::from(registry.get("dmo").unwrap_err());
///     assert_eq!(
///         format!("{err:?}"),
///         "no server \"dmo\" in the registry (did you mean \"demo\"?) (known: demo)"
///     );
///     Ok(())
/// }
/// ```
///
/// Like `anyhow::Error`, it is not itself a `std::error::Error`, so that `?` converts any
/// error into it.
pub struct Report(Box<dyn std::error::Error + Send + Sync + 'static>);

impl<E: std::error::Error + Send + Sync + 'static> From<E> for Report {
    fn from(error: E) -> Self {
        Report(Box::new(error))
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl std::fmt::Debug for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = self.0.to_string();
        f.write_str(&text)?;
        let mut cause = self.0.source();
        while let Some(c) = cause {
            let line = c.to_string();
            if !text.contains(&line) {
                write!(f, "\n  caused by: {line}")?;
            }
            cause = c.source();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transport_error_shows_stderr_tail() {
        let e = Error::Transport {
            server: "demo".into(),
            message: "connection closed".into(),
            stderr_tail: vec!["boom".into(), "panicked".into()],
        };
        assert_eq!(
            e.to_string(),
            "server \"demo\": connection closed; server stderr (last lines):\n  boom\n  panicked"
        );
    }

    #[test]
    fn every_error_has_a_kind_and_the_agent_layer_keeps_the_source() {
        let timeout = Error::Timeout {
            server: "demo".into(),
            what: "tools/call \"hang\"".into(),
            limit: Duration::from_secs(1),
            kind: "idle timeout",
            diagnosis: None,
        };
        assert_eq!(timeout.kind(), ErrorKind::Timeout);
        let bad_args = Error::Protocol {
            server: "demo".into(),
            method: "tools/call \"add\"".into(),
            code: -32602,
            message: "invalid params".into(),
        };
        assert_eq!(bad_args.kind(), ErrorKind::InvalidArguments);
        let message = timeout.to_string();
        let wrapped = timeout.into_toolbox();
        assert_eq!(wrapped.kind(), ErrorKind::Timeout);
        assert_eq!(wrapped.to_string(), message);
        assert!(matches!(
            wrapped.source_error(),
            Some(Error::Timeout { .. })
        ));
        assert!(std::error::Error::source(&wrapped).is_some());
        // Wrapping twice keeps one layer.
        let again = wrapped.into_toolbox();
        assert!(matches!(again.source_error(), Some(Error::Timeout { .. })));
        let refused = Error::toolbox(ErrorKind::NotAllowed, "not for this agent");
        assert_eq!(refused.kind().as_str(), "not_allowed");
        assert!(refused.source_error().is_none() && refused.output().is_none());
    }

    fn hang_timeout() -> Error {
        Error::Timeout {
            server: "demo".into(),
            what: "tools/call \"hang\"".into(),
            limit: Duration::from_millis(1500),
            kind: "idle timeout",
            diagnosis: None,
        }
    }

    #[test]
    fn timeout_names_server_tool_and_limit() {
        assert_eq!(
            hang_timeout().to_string(),
            "server \"demo\": tools/call \"hang\" timed out after 1.5 s (idle timeout)"
        );
    }

    #[test]
    fn a_report_prints_words_and_the_causes_the_text_lacks() {
        #[derive(Debug)]
        struct Outer(std::io::Error);
        impl std::fmt::Display for Outer {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("cannot read the registry")
            }
        }
        impl std::error::Error for Outer {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let report = super::Report::from(Outer(std::io::Error::other("disk on fire")));
        assert_eq!(
            format!("{report:?}"),
            "cannot read the registry\n  caused by: disk on fire"
        );
        assert_eq!(report.to_string(), "cannot read the registry");
        // The `Debug` form of a report is the error's words, never its fields.
        let timeout = hang_timeout();
        let words = timeout.to_string();
        assert_eq!(format!("{:?}", super::Report::from(timeout)), words);
    }
}
