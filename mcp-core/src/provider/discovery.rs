//! Progressive discovery: the two tools a model is given instead of a large catalogue's
//! definitions, so their cost is paid only for the tools it uses.
//!
//! [`SEARCH_TOOLS`] finds tools by words of their names and descriptions and answers with
//! names and one-line summaries; [`LOAD_TOOLS`] loads tools by name: their full definitions
//! join the exported tools from the next model turn on (until then the tool list stays
//! byte-for-byte the same, so a provider's prompt cache keeps working) and are returned to
//! the model as the call's result. The runtime's toolbox answers both; the generator counts
//! their definitions to say what discovery costs up front.

use serde_json::{Value, json};

/// The name of the search tool.
pub const SEARCH_TOOLS: &str = "search_tools";
/// The name of the load tool.
pub const LOAD_TOOLS: &str = "load_tools";

/// The search tool's description.
pub const SEARCH_DESCRIPTION: &str = "Search the available tools by words of their names and descriptions. Returns the matching tool names with one-line summaries; call load_tools with the names you need before calling them.";
/// The load tool's description.
pub const LOAD_DESCRIPTION: &str = "Load tools by name (from search_tools). Their full definitions are returned, and the tools can be called from the next turn on.";

/// The search tool's input schema.
pub fn search_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Words to look for, e.g. \"create issue\"."},
            "limit": {"type": "integer", "minimum": 1, "description": "Most results (default 10)."}
        },
        "required": ["query"]
    })
}

/// The load tool's input schema.
pub fn load_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "names": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                      "description": "Tool names as search_tools returned them."}
        },
        "required": ["names"]
    })
}

/// The two discovery tools as `(name, description, input schema)`.
pub fn tools() -> [(&'static str, &'static str, Value); 2] {
    [
        (SEARCH_TOOLS, SEARCH_DESCRIPTION, search_schema()),
        (LOAD_TOOLS, LOAD_DESCRIPTION, load_schema()),
    ]
}
