//! The one error type of `mcp-runtime`.
//!
//! Messages name the server (its alias), the tool and what to do. They never contain a
//! resolved secret: configuration values are reported in their unsubstituted form
//! (`${GITHUB_TOKEN}`), and server output is only quoted from its stderr tail.

use std::path::PathBuf;
use std::time::Duration;

use crate::session::ToolOutput;

/// Everything that can go wrong in `mcp-runtime`.
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
        "server \"{alias}\" skipped: {variable} is not set (used in {location}); set it or write ${{{variable}:-default}}"
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
    #[error("no server \"{alias}\" in the registry (known: {known})")]
    UnknownServer {
        /// The alias asked for.
        alias: String,
        /// The aliases the registry defines, comma-separated.
        known: String,
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
    /// A request did not complete in time; the server was sent `notifications/cancelled`.
    #[error("server \"{server}\": {what} timed out after {} ({kind})", fmt_duration(*.limit))]
    Timeout {
        /// The server's alias.
        server: String,
        /// The request, e.g. `tools/call "echo"`.
        what: String,
        /// The limit that expired.
        limit: Duration,
        /// Which limit: `idle timeout` or `total timeout`.
        kind: &'static str,
    },
    /// The tool ran and reported an error (`isError: true`).
    #[error("tool \"{tool}\" of server \"{server}\" failed: {}", .output.text())]
    Tool {
        /// The server's alias.
        server: String,
        /// The tool's name.
        tool: String,
        /// The tool's output (its content usually explains the error).
        output: ToolOutput,
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
        "server \"{server}\" drifted from its fixture: {summary}; run `cargo xtask snapshot --check {server}` to see the changes"
    )]
    Drift {
        /// The server's alias.
        server: String,
        /// A short summary.
        summary: String,
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

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

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
    fn timeout_names_server_tool_and_limit() {
        let e = Error::Timeout {
            server: "demo".into(),
            what: "tools/call \"hang\"".into(),
            limit: Duration::from_millis(1500),
            kind: "idle timeout",
        };
        assert_eq!(
            e.to_string(),
            "server \"demo\": tools/call \"hang\" timed out after 1.5 s (idle timeout)"
        );
    }
}
