//! The tool formats of model providers, and tool results with images.
//!
//! [`Format`] names a format; [`definition`] turns one tool (exported name, description,
//! input schema) into it, with the reason when the tool had to take a weaker form than the
//! format's best (a [`Fallback`]); [`check`] verifies a definition against the format's rules
//! (what `cargo xtask tools --format …` gates on):
//!
//! | format | one tool | where the schema does not fit |
//! |---|---|---|
//! | [`Format::OpenAi`] | `{"type": "function", "function": {"name", "description", "parameters"}}` | — |
//! | [`Format::OpenAiStrict`] | the same with `"strict": true` ([`openai`]) | the non-strict form |
//! | [`Format::OpenAiResponses`] | `{"type": "function", "name", "description", "parameters", "strict"}` ([`openai::responses_function`]) | `"strict": false` |
//! | [`Format::Anthropic`] | `{"name", "description", "input_schema"}` ([`anthropic`]) | a root `anyOf`/`oneOf` merged into one object |
//! | [`Format::Gemini`] | `{"name", "description", "parameters"}` in Gemini's `Schema` subset ([`gemini`]) | `parametersJsonSchema` |
//!
//! Results: a [`Dispatch`]'s [`ToolOutput`] as each provider takes it back — text, and images
//! as image parts rather than placeholders ([`Dispatch::anthropic_tool_result`],
//! [`Dispatch::gemini_function_response`], [`Dispatch::openai_tool_messages`]).

pub mod connector;
mod results;

use serde_json::Value;

pub use mcp_bindgen_core::provider::{
    Format, Shortened, anthropic, check, compact, compact_definition, definition, discovery,
    gemini, openai, shorten_description,
};

/// [`definition`], or [`compact_definition`] when `compact`.
pub(crate) fn model_definition(
    format: Format,
    compact: bool,
    name: &str,
    description: Option<&str>,
    input_schema: &Value,
) -> (Value, Option<String>) {
    if compact {
        compact_definition(format, name, description, input_schema)
    } else {
        definition(format, name, description, input_schema)
    }
}
pub use results::{IMAGE_TYPES_ANTHROPIC, IMAGE_TYPES_GEMINI};

#[cfg(doc)]
use crate::{output::ToolOutput, toolbox::Dispatch};

/// A tool exported in a weaker form than its format's best, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fallback {
    /// The exported name.
    pub exported: String,
    /// The server's alias (empty for a local tool).
    pub server: String,
    /// The tool's name.
    pub tool: String,
    /// Why: what the format cannot express, and where.
    pub reason: String,
}

/// Tool definitions in one format, with the fallbacks.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolExport {
    /// The format.
    pub format: Format,
    /// One definition per tool, sorted by exported name.
    pub tools: Vec<Value>,
    /// Tools that took a weaker form, with the reason.
    pub fallbacks: Vec<Fallback>,
    /// Tools no transform could make acceptable to this format (a schema that is not valid
    /// JSON Schema, …): left out of this export alone, with the reason, since a provider
    /// refuses a whole request for one bad definition. Other formats may still carry them.
    pub left_out: Vec<Fallback>,
}
