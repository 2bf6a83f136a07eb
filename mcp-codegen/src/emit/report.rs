//! What generation reports: how each tool got typed, the counts, and the generated module
//! with its warnings.

use proc_macro2::TokenStream;

use crate::warning::Warning;
use crate::{Error, Result};

/// How much of a tool got Rust types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Typing {
    /// Typed by the generated types.
    Typed,
    /// The tool takes no arguments (the function has none).
    NoArgs,
    /// Untyped JSON (`serde_json::Value` arguments / `ToolOutput` result), with the reason.
    Untyped(String),
}

/// Per-tool outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolReport {
    /// Original tool name.
    pub name: String,
    /// The Rust function name (as written, e.g. `r#type`).
    pub function: String,
    /// Arguments.
    pub args: Typing,
    /// Result: `None` when the tool has no `outputSchema`.
    pub output: Option<Typing>,
}

impl ToolReport {
    /// Arguments typed (or none) and, when an `outputSchema` exists, the result typed.
    pub fn fully_typed(&self) -> bool {
        !matches!(self.args, Typing::Untyped(_)) && !matches!(self.output, Some(Typing::Untyped(_)))
    }

    /// The reasons this tool is not fully typed.
    pub fn reasons(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Typing::Untyped(r) = &self.args {
            out.push(format!("arguments untyped: {r}"));
        }
        if let Some(Typing::Untyped(r)) = &self.output {
            out.push(format!("output untyped: {r}"));
        }
        out
    }
}

/// Counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Tools generated.
    pub tools: usize,
    /// Fully typed tools (see [`ToolReport::fully_typed`]).
    pub typed: usize,
    /// Tools with untyped arguments or result.
    pub fallback: usize,
    /// Tools without arguments.
    pub no_args: usize,
    /// Tools with a typed result.
    pub typed_outputs: usize,
}

/// The generated module and what happened on the way.
#[derive(Debug, Clone)]
pub struct Generated {
    /// `pub mod <alias> { … }` as Rust source text (unformatted; what `mcp_tools!` hands the
    /// compiler). The tools are generated in parallel, each as text.
    pub code: String,
    /// Fallbacks and notes, per tool, in tool order.
    pub warnings: Vec<Warning>,
    /// Counts.
    pub stats: Stats,
    /// One report per generated tool, in fixture order.
    pub tools: Vec<ToolReport>,
}

impl Generated {
    /// The module as tokens (lexes [`code`](Self::code)).
    pub fn tokens(&self) -> Result<TokenStream> {
        self.code.parse().map_err(|e| Error::InvalidOption {
            alias: String::new(),
            entry: None,
            message: format!("internal error: the generated code does not lex: {e}"),
        })
    }
}
