//! The agent layer's error: a [`ToolboxErrorKind`] for code to match on, a short message a
//! model can read, and the runtime [`Error`](crate::Error) underneath when there is one.

use std::fmt;

use crate::error::Error;
use crate::session::ToolOutput;

/// What went wrong, for code to match on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolboxErrorKind {
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
    /// The server rejected the request (JSON-RPC error).
    Protocol,
    /// A server marked `required = true` could not be started.
    RequiredServer,
    /// BRIEF §5: a model without MCP support was given a server without a function-call
    /// wrapper.
    ModelServerMismatch,
    /// The toolbox or agent configuration is invalid (unknown server, unknown tool in an
    /// allowlist, …).
    Config,
}

impl ToolboxErrorKind {
    /// A stable lower-case name (`unknown_tool`, `invalid_arguments`, …), used in tracing
    /// events.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolboxErrorKind::UnknownTool => "unknown_tool",
            ToolboxErrorKind::AmbiguousTool => "ambiguous_tool",
            ToolboxErrorKind::NotAllowed => "not_allowed",
            ToolboxErrorKind::InvalidArguments => "invalid_arguments",
            ToolboxErrorKind::ToolFailed => "tool_failed",
            ToolboxErrorKind::Unavailable => "unavailable",
            ToolboxErrorKind::Timeout => "timeout",
            ToolboxErrorKind::Transport => "transport",
            ToolboxErrorKind::Protocol => "protocol",
            ToolboxErrorKind::RequiredServer => "required_server",
            ToolboxErrorKind::ModelServerMismatch => "model_server_mismatch",
            ToolboxErrorKind::Config => "config",
        }
    }
}

impl fmt::Display for ToolboxErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error of the agent layer.
///
/// `Display` is the short message (no stack of causes): it is what a model is shown, so it
/// names the tool or server and what to do. [`ToolboxError::source_error`] holds the runtime
/// error underneath, [`ToolboxError::output`] the tool's output for
/// [`ToolboxErrorKind::ToolFailed`].
#[derive(Debug)]
pub struct ToolboxError(Box<Inner>);

#[derive(Debug)]
struct Inner {
    kind: ToolboxErrorKind,
    message: String,
    source: Option<Error>,
    output: Option<ToolOutput>,
}

impl ToolboxError {
    /// A new error.
    pub fn new(kind: ToolboxErrorKind, message: impl Into<String>) -> Self {
        ToolboxError(Box::new(Inner {
            kind,
            message: message.into(),
            source: None,
            output: None,
        }))
    }

    pub(crate) fn with_source(mut self, source: Error) -> Self {
        self.0.source = Some(source);
        self
    }

    pub(crate) fn with_output(mut self, output: ToolOutput) -> Self {
        self.0.output = Some(output);
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> ToolboxErrorKind {
        self.0.kind
    }

    /// The message (same as `Display`).
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The runtime error underneath, if any.
    pub fn source_error(&self) -> Option<&Error> {
        self.0.source.as_ref()
    }

    /// The tool's output, for [`ToolboxErrorKind::ToolFailed`].
    pub fn output(&self) -> Option<&ToolOutput> {
        self.0.output.as_ref()
    }

    /// Maps a runtime error of a call or connection to a toolbox error, keeping it as the
    /// source.
    pub(crate) fn from_runtime(e: Error) -> Self {
        let kind = match &e {
            Error::Timeout { .. } => ToolboxErrorKind::Timeout,
            Error::Protocol { code: -32602, .. } => ToolboxErrorKind::InvalidArguments,
            Error::Protocol { .. } => ToolboxErrorKind::Protocol,
            Error::Tool { .. } => ToolboxErrorKind::ToolFailed,
            Error::Encode { .. } => ToolboxErrorKind::InvalidArguments,
            Error::UndefinedVariable { .. } | Error::UnknownServer { .. } => {
                ToolboxErrorKind::Config
            }
            _ => ToolboxErrorKind::Transport,
        };
        ToolboxError::new(kind, e.to_string()).with_source(e)
    }
}

impl fmt::Display for ToolboxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl std::error::Error for ToolboxError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0
            .source
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<Error> for ToolboxError {
    fn from(e: Error) -> Self {
        ToolboxError::from_runtime(e)
    }
}
