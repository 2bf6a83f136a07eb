//! OpenAI function-call definitions (`tools` of chat-completions) for MCP tools, under the
//! names the toolbox exports. The rules live in `mcp_codegen::openai` (shared with the
//! compile-time constants of `mcp_tools!`):
//!
//! * [`function_definition`]: `{"type": "function", "function": {"name", "description",
//!   "parameters"}}` with the tool's input schema as `parameters` (forced to an object
//!   schema, `$schema` removed).
//! * [`strict_function_definition`]: the `strict: true` form or the reason it cannot exist.
//!   Local `$ref`s are first inlined ([`inline_refs`], with a cycle guard and a size budget);
//!   then every object is closed (`additionalProperties: false`) with every property
//!   required, optional ones made nullable; `format`, `pattern`, bounds, `default`, …
//!   removed; `oneOf` → `anyOf`; free-form objects, any-JSON values, `allOf`, `not`,
//!   conditionals and tuples refused.

use serde_json::Value;

pub use mcp_codegen::openai::{
    INLINE_MAX_NODES, STRICT_MAX_DEPTH, STRICT_MAX_PROPERTIES, inline_refs, non_object_root,
    parameters,
};

/// The non-strict definition of a tool exported as `name`.
pub fn function_definition(name: &str, description: Option<&str>, input_schema: &Value) -> Value {
    mcp_codegen::openai::function_definition_named(name, description, input_schema)
}

/// The strict definition of a tool exported as `name`, or why there is none.
pub fn strict_function_definition(
    name: &str,
    description: Option<&str>,
    input_schema: &Value,
) -> Result<Value, String> {
    mcp_codegen::openai::strict_function_definition_named(name, description, input_schema)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, json};

    fn strict(schema: Value) -> Result<Value, String> {
        strict_function_definition("mcp_s_t", None, &schema)
            .map(|d| d["function"]["parameters"].clone())
    }

    #[test]
    fn non_strict_wraps_the_schema() {
        let d = function_definition("mcp_gh_get_me", Some("Who am I"), &json!({}));
        assert_eq!(
            d,
            json!({"type": "function", "function": {"name": "mcp_gh_get_me", "description": "Who am I", "parameters": {"type": "object", "properties": {}}}})
        );
        let d = function_definition(
            "n",
            None,
            &json!({"$schema": "x", "type": "object", "properties": {"a": {"type": "string", "format": "uri"}}}),
        );
        assert_eq!(
            d["function"]["parameters"]["properties"]["a"]["format"],
            "uri"
        );
        assert!(d["function"]["parameters"].get("$schema").is_none());
    }

    #[test]
    fn strict_rules_one_by_one() {
        let p = strict(json!({"type": "object", "required": ["a"], "properties": {
            "a": {"type": "string", "format": "date-time", "minLength": 1},
            "b": {"type": "integer", "default": 3, "maximum": 9},
            "c": {"type": "string", "enum": ["x", "y"]},
            "o": {"type": "object", "properties": {"z": {"type": "boolean"}}},
            "u": {"oneOf": [{"type": "string"}, {"type": "integer"}]}
        }}))
        .unwrap();
        // all properties required, additionalProperties false
        assert_eq!(p["required"], json!(["a", "b", "c", "o", "u"]));
        assert_eq!(p["additionalProperties"], false);
        assert_eq!(p["properties"]["o"]["additionalProperties"], false);
        assert_eq!(p["properties"]["o"]["required"], json!(["z"]));
        // no format (nor other constraints)
        assert_eq!(p["properties"]["a"], json!({"type": "string"}));
        // optionals nullable
        assert_eq!(p["properties"]["b"], json!({"type": ["integer", "null"]}));
        assert_eq!(p["properties"]["c"]["anyOf"][1], json!({"type": "null"}));
        assert_eq!(p["properties"]["o"]["type"], json!(["object", "null"]));
        // oneOf → anyOf
        assert!(p["properties"]["u"]["anyOf"][0]["anyOf"].is_array());
    }

    #[test]
    fn strict_inlines_refs() {
        let p = strict(json!({
            "$defs": {"Repo": {"type": "object", "properties": {"owner": {"type": "string"}}, "required": ["owner"]}},
            "type": "object",
            "properties": {
                "repo": {"$ref": "#/$defs/Repo", "description": "Where."},
                "more": {"type": "array", "items": {"$ref": "#/$defs/Repo"}}
            },
            "required": ["repo", "more"]
        }))
        .unwrap();
        assert!(p.get("$defs").is_none());
        let text = p.to_string();
        assert!(!text.contains("$ref"), "{text}");
        assert_eq!(p["properties"]["repo"]["description"], "Where.");
        assert_eq!(p["properties"]["repo"]["required"], json!(["owner"]));
        assert_eq!(
            p["properties"]["more"]["items"]["additionalProperties"],
            false
        );
    }

    #[test]
    fn cycle_guard_and_bad_refs_fall_back_with_a_reason() {
        let recursive = json!({
            "$defs": {"Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}}},
            "type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}}
        });
        let e = strict(recursive.clone()).unwrap_err();
        assert!(e.contains("recursive $ref \"#/$defs/Node\""), "{e}");
        assert!(
            inline_refs(&json!({"properties": {"a": {"$ref": "#"}}}))
                .unwrap_err()
                .contains("recursive")
        );
        let e = strict(json!({"type": "object", "properties": {"a": {"$ref": "http://x/s.json"}}}))
            .unwrap_err();
        assert!(e.contains("not a local reference"), "{e}");
        let e = strict(json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/Nope"}}}))
            .unwrap_err();
        assert!(e.contains("points to nothing"), "{e}");
        // Non-strict keeps the schema as it is.
        let d = function_definition("n", None, &recursive);
        assert_eq!(d["function"]["parameters"]["$defs"], recursive["$defs"]);
    }

    #[test]
    fn exponential_sharing_hits_the_budget() {
        let mut defs = Map::new();
        defs.insert("D0".into(), json!({"type": "string"}));
        for i in 1..30 {
            defs.insert(
                format!("D{i}"),
                json!({"type": "object", "properties": {
                    "a": {"$ref": format!("#/$defs/D{}", i - 1)},
                    "b": {"$ref": format!("#/$defs/D{}", i - 1)}
                }}),
            );
        }
        let schema =
            json!({"$defs": defs, "type": "object", "properties": {"x": {"$ref": "#/$defs/D29"}}});
        let e = inline_refs(&schema).unwrap_err();
        assert!(e.contains("beyond"), "{e}");
    }

    #[test]
    fn strict_refusals_name_the_place() {
        for (schema, needle) in [
            (
                json!({"type": "object", "properties": {"a": {}}}),
                "any-JSON value at /properties/a",
            ),
            (
                json!({"type": "object", "additionalProperties": true, "properties": {}}),
                "free-form",
            ),
            (
                json!({"type": "object", "properties": {"a": {"allOf": [{"type": "string"}]}}}),
                "keyword `allOf`",
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "object"}}}),
                "without properties",
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "array", "items": [{"type": "string"}]}}}),
                "tuple",
            ),
            (
                json!({"type": "object", "properties": {"a": {"not": {"type": "string"}}}}),
                "keyword `not`",
            ),
        ] {
            let e = strict(schema).unwrap_err();
            assert!(e.contains(needle), "{e}");
        }
        let mut deep = json!({"type": "string"});
        for _ in 0..12 {
            deep = json!({"type": "object", "properties": {"n": deep}, "required": ["n"]});
        }
        assert!(strict(deep).unwrap_err().contains("nesting deeper"));
    }

    #[test]
    fn percent_escapes_in_pointers() {
        let s = json!({"$defs": {"a b": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/a%20b"}}});
        assert_eq!(
            inline_refs(&s).unwrap()["properties"]["x"],
            json!({"type": "string"})
        );
    }
}
