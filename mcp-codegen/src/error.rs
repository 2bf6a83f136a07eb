//! The one error type of `mcp-bindgen-codegen`.

/// Everything that can go wrong while reading fixtures or generating code.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A fixture could not be read or is malformed.
    #[error(transparent)]
    Fixture(#[from] mcp_bindgen_core::Error),
    /// A tool named in an option (`only`, `skip`, `rename`, `types`) is not in the fixture.
    #[error(
        "server \"{alias}\": unknown tool \"{tool}\" in `{option}`{hint}; the fixture has {listed}"
    )]
    UnknownTool {
        /// Server alias.
        alias: String,
        /// The option (`only`, `skip`, `rename`, `types`).
        option: &'static str,
        /// The unknown tool name.
        tool: String,
        /// " (did you mean …?)" or empty.
        hint: String,
        /// `N tools: a, b, …`: the fixture's tool count and names (the first 12, then
        /// "… and N more").
        listed: String,
    },
    /// An argument named in `rename` or `types` is not a top-level property of the tool.
    #[error(
        "tool \"{tool}\" of server \"{alias}\": unknown argument \"{argument}\" in `{option}`{hint}"
    )]
    UnknownArgument {
        /// Server alias.
        alias: String,
        /// The tool.
        tool: String,
        /// The option (`rename`, `types`).
        option: &'static str,
        /// The unknown argument.
        argument: String,
        /// " (did you mean …?)" or empty.
        hint: String,
    },
    /// An option value is not usable (bad identifier, unparsable type path).
    #[error("server \"{alias}\": {message}")]
    InvalidOption {
        /// Server alias.
        alias: String,
        /// The entry it is about: the option (`rename`, `types`) and the entry's key as
        /// written; `None` when no single entry is to blame.
        entry: Option<(&'static str, String)>,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// Two tools map to the same Rust function name because of a `rename`, or a tool's name
    /// is another tool's task method (`<name>_task`). Names that collide on their own get
    /// distinct functions instead ([`crate::WarningKind::Renamed`]).
    #[error(
        "tools \"{first}\" and \"{second}\" of server \"{alias}\" both map to the Rust function `{function}`; add rename = {{ \"{second}\" = \"{suggestion}\" }}"
    )]
    ToolNameCollision {
        /// Server alias.
        alias: String,
        /// First tool (fixture order).
        first: String,
        /// Second tool.
        second: String,
        /// The shared function name.
        function: String,
        /// A free name to rename the second tool to.
        suggestion: String,
    },
    /// A `rename` gives a top-level argument the Rust field of another (arguments whose names
    /// collide on their own get distinct fields instead, [`crate::WarningKind::Renamed`]).
    #[error("{0}")]
    ArgumentCollision(Box<ArgumentCollision>),
    /// A tool's `x-mcp-header` annotations break the protocol's rules (see
    /// `mcp_bindgen_core::headers`): a client must not call it.
    #[error(
        "tool \"{tool}\" of server \"{alias}\": {rule}; protocol 2026-07-28 forbids calling a tool with an invalid x-mcp-header: leave it out with skip = [\"{tool}\"], or snapshot the server again (a snapshot leaves such tools out)"
    )]
    InvalidHeaders {
        /// Server alias.
        alias: String,
        /// The tool.
        tool: String,
        /// The rule the annotation breaks, naming the property.
        rule: String,
    },
    /// The bound tools' OpenAI definitions take more tokens than `max_tokens` allows.
    #[error("{0}")]
    OverBudget(Box<crate::budget::OverBudget>),
}

impl Error {
    /// The macro option entry an error is about, for pointing at it: the option (`only`,
    /// `skip`, `rename`, `types`) and the key that names it. For an unknown tool the key is
    /// the tool's name (a `rename`/`types` key then starts with it and a `.`); for an unknown
    /// argument `tool.argument`.
    pub fn option_entry(&self) -> Option<(&'static str, String)> {
        match self {
            Error::UnknownTool { option, tool, .. } => Some((option, tool.clone())),
            Error::UnknownArgument {
                option,
                tool,
                argument,
                ..
            } => Some((option, format!("{tool}.{argument}"))),
            Error::InvalidOption { entry, .. } => entry.clone(),
            Error::ToolNameCollision { second, .. } => Some(("rename", second.clone())),
            Error::OverBudget(_) => Some(("max_tokens", String::new())),
            _ => None,
        }
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Details of [`Error::ArgumentCollision`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "tool \"{tool}\" of server \"{alias}\": arguments \"{first}\" and \"{second}\" both map to the Rust field `{field}`; add rename = {{ \"{tool}.{second}\" = \"{suggestion}\" }}"
)]
pub struct ArgumentCollision {
    /// Server alias.
    pub alias: String,
    /// The tool.
    pub tool: String,
    /// First property.
    pub first: String,
    /// Second property.
    pub second: String,
    /// The shared field name.
    pub field: String,
    /// A free field name for the second property.
    pub suggestion: String,
}
