//! Typed servers: tool definitions decided at compile time by `mcp_tools!`.

use serde::de::DeserializeOwned;
use serde_json::Value;

/// One tool of a typed server, built from the constants `mcp_tools!` generates per tool
/// (`NAME`, `INPUT_SCHEMA`, `OPENAI_FUNCTION`, `OPENAI_FUNCTION_STRICT`,
/// `OPENAI_STRICT_UNAVAILABLE`) plus a validator that deserializes arguments into the
/// generated argument type ([`validate_as`]). The macro emits the whole list per server as
/// `TYPED_TOOLS`:
///
/// ```no_run
/// # async fn run(registry: mcp_runtime::Registry) -> Result<(), Box<dyn std::error::Error>> {
/// use mcp_runtime::toolbox::{Toolbox, TypedTool};
///
/// mcp_runtime::mcp_tools!("demo");
///
/// const DEMO: &[TypedTool] = demo::TYPED_TOOLS;
/// let toolbox = Toolbox::builder(&registry).add_typed("demo", DEMO).connect().await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct TypedTool {
    /// The tool's name on the server.
    pub name: &'static str,
    /// The tool's description.
    pub description: Option<&'static str>,
    /// The tool's `inputSchema` (JSON text).
    pub input_schema: &'static str,
    /// The non-strict OpenAI function definition (JSON text).
    pub openai_function: &'static str,
    /// The strict OpenAI function definition (JSON text), when the schema allows one.
    pub openai_function_strict: Option<&'static str>,
    /// Why there is no strict definition.
    pub openai_strict_unavailable: Option<&'static str>,
    /// Checks model-supplied arguments: `Err` says what is wrong (e.g. a `serde_json`
    /// message naming the field).
    pub validate: fn(&Value) -> Result<(), String>,
}

/// A [`TypedTool::validate`] that deserializes the arguments into `T`.
pub fn validate_as<T: DeserializeOwned>(arguments: &Value) -> Result<(), String> {
    T::deserialize(arguments)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// A [`TypedTool::validate`] for tools without parameters: any object is accepted.
pub fn validate_no_args(arguments: &Value) -> Result<(), String> {
    if arguments.is_object() || arguments.is_null() {
        Ok(())
    } else {
        Err("this tool takes no arguments; send {}".into())
    }
}
