//! The outcome of a dispatched tool call: what the model reads, and the result for code.

use std::time::Duration;

use super::catalog::ToolRef;
use super::text::Truncation;
use crate::error::{Error, ErrorKind};
use crate::output::ToolOutput;

/// The outcome of a dispatched tool call.
#[derive(Debug)]
pub struct Dispatch {
    /// What to give the model: the result as text (cut in the middle when longer than
    /// [`ToolboxOptions::max_output_bytes`]) or a short error starting with `Error:`.
    ///
    /// [`ToolboxOptions::max_output_bytes`]: super::ToolboxOptions::max_output_bytes
    pub text: String,
    /// The full result for code.
    pub result: Result<ToolOutput, Error>,
    /// The tool the name resolved to, if it did.
    pub tool: Option<ToolRef>,
    /// What was cut from `text`, if anything.
    pub truncation: Option<Truncation>,
    /// How long the dispatch took.
    pub duration: Duration,
    /// The result came from the toolbox's result cache ([`ToolboxBuilder::cache`]), not
    /// from a call.
    ///
    /// [`ToolboxBuilder::cache`]: super::ToolboxBuilder::cache
    pub cached: bool,
    /// The toolbox's limit the texts were cut to (for the provider forms of the result).
    pub(crate) max_output_bytes: usize,
}

impl Dispatch {
    /// Whether the call succeeded (`isError` false).
    pub fn is_ok(&self) -> bool {
        self.result.is_ok()
    }

    /// The error kind, if it failed.
    pub fn error_kind(&self) -> Option<ErrorKind> {
        self.result.as_ref().err().map(Error::kind)
    }

    /// The tool's output: on success, and for a tool error (`isError: true`).
    pub fn output(&self) -> Option<&ToolOutput> {
        match &self.result {
            Ok(o) => Some(o),
            Err(e) => e.output(),
        }
    }
}
