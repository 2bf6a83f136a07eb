//! Warnings about one tool, prompt or resource template: what the generated code does not type or enforce.

/// The kind of a [`Warning`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum WarningKind {
    /// The arguments fell back to `serde_json::Value`.
    ArgsFallback,
    /// The `outputSchema` could not be typed; the function returns `ToolOutput`.
    OutputFallback,
    /// A schema constraint is not enforced by the types (dropped keyword, renamed variant…).
    Note,
    /// Names that would collide got distinct ones on their own (properties mapping to one
    /// Rust field, tools mapping to one function); `verify` lists them.
    Renamed,
    /// A prompt got no typed method (name or argument collision); `tool` holds the prompt's
    /// name.
    PromptSkipped,
    /// A resource template got no typed method (a `uriTemplate` the generator cannot
    /// expand, a name or variable collision); `tool` holds the template's name.
    ResourceTemplateSkipped,
}

/// Something the user should know about one tool or prompt (the macro shows everything but
/// notes as warnings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The tool's original name (the prompt's, for [`WarningKind::PromptSkipped`]).
    pub tool: String,
    /// What kind of warning.
    pub kind: WarningKind,
    /// Human-readable reason.
    pub message: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            WarningKind::ArgsFallback => {
                write!(
                    f,
                    "tool \"{}\": arguments are untyped JSON: {}",
                    self.tool, self.message
                )
            }
            WarningKind::OutputFallback => {
                write!(
                    f,
                    "tool \"{}\": result is untyped (ToolOutput): {}",
                    self.tool, self.message
                )
            }
            WarningKind::Note | WarningKind::Renamed => {
                write!(f, "tool \"{}\": {}", self.tool, self.message)
            }
            WarningKind::PromptSkipped => write!(
                f,
                "prompt \"{}\" is not generated: {}",
                self.tool, self.message
            ),
            WarningKind::ResourceTemplateSkipped => write!(
                f,
                "resource template \"{}\" is not generated: {}",
                self.tool, self.message
            ),
        }
    }
}
