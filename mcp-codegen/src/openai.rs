//! OpenAI function-call definitions of MCP tools.
//!
//! * [`function_definition`]: the non-strict form, `{"type": "function", "function": {"name",
//!   "description", "parameters"}}`, with the tool's input schema as parameters (made an
//!   object schema when the tool has none);
//! * [`strict_function_definition`]: the `strict: true` form, or the reason it cannot exist.
//!   Strict mode needs every object closed (`additionalProperties: false`) with every
//!   property required (optional ones become nullable), and a keyword subset; free-form
//!   objects, `{}` (any JSON), `allOf`, `not`, conditionals and tuples are not expressible.

use serde_json::{Map, Value, json};

use crate::naming::openai_name;

/// Maximum nesting depth of objects OpenAI accepts in strict mode.
pub const STRICT_MAX_DEPTH: usize = 10;
/// Maximum number of object properties OpenAI accepts in strict mode (whole schema).
pub const STRICT_MAX_PROPERTIES: usize = 5000;

/// The parameters schema OpenAI sees: the input schema, forced to be an object schema.
fn parameters(input_schema: &Value) -> Value {
    let mut schema = match input_schema {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    };
    schema.remove("$schema");
    schema.entry("type").or_insert(json!("object"));
    if schema.get("type") == Some(&json!("object")) {
        schema.entry("properties").or_insert(json!({}));
    }
    Value::Object(schema)
}

/// The non-strict OpenAI function definition of a tool.
pub fn function_definition(
    alias: &str,
    tool: &str,
    description: Option<&str>,
    input_schema: &Value,
) -> Value {
    let mut function = Map::new();
    function.insert("name".into(), json!(openai_name(alias, tool)));
    if let Some(d) = description {
        function.insert("description".into(), json!(d));
    }
    function.insert("parameters".into(), parameters(input_schema));
    json!({"type": "function", "function": function})
}

/// The strict OpenAI function definition of a tool, or why there is none.
pub fn strict_function_definition(
    alias: &str,
    tool: &str,
    description: Option<&str>,
    input_schema: &Value,
) -> Result<Value, String> {
    let mut count = 0;
    let params = strict_schema(&parameters(input_schema), "", 0, &mut count)?;
    if count > STRICT_MAX_PROPERTIES {
        return Err(format!(
            "{count} properties exceed strict mode's limit of {STRICT_MAX_PROPERTIES}"
        ));
    }
    let mut function = Map::new();
    function.insert("name".into(), json!(openai_name(alias, tool)));
    if let Some(d) = description {
        function.insert("description".into(), json!(d));
    }
    function.insert("strict".into(), json!(true));
    function.insert("parameters".into(), params);
    Ok(json!({"type": "function", "function": function}))
}

/// Keywords strict mode accepts (annotations and the structural subset).
const STRICT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "anyOf",
    "description",
    "title",
    "$ref",
    "$defs",
    "definitions",
    "const",
];
/// Keywords that are only constraints or annotations: removed without changing the shape.
const STRICT_DROP: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "default",
    "examples",
    "format",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "readOnly",
    "writeOnly",
    "deprecated",
    "minProperties",
    "maxProperties",
    "propertyNames",
];

fn strict_schema(
    schema: &Value,
    at: &str,
    depth: usize,
    count: &mut usize,
) -> Result<Value, String> {
    let where_ = if at.is_empty() {
        "/".to_string()
    } else {
        at.to_string()
    };
    let obj = match schema {
        Value::Object(m) => m,
        Value::Bool(_) => {
            return Err(format!(
                "boolean schema at {where_} is not allowed in strict mode"
            ));
        }
        _ => return Err(format!("invalid schema at {where_}")),
    };
    if obj.is_empty() || (obj.len() == 1 && obj.contains_key("description")) {
        return Err(format!(
            "any-JSON value at {where_} is not allowed in strict mode"
        ));
    }
    if depth > STRICT_MAX_DEPTH {
        return Err(format!(
            "nesting deeper than {STRICT_MAX_DEPTH} levels at {where_}"
        ));
    }
    let mut out = Map::new();
    for (key, value) in obj {
        let k = key.as_str();
        if STRICT_DROP.contains(&k) || k.starts_with("x-") {
            continue;
        }
        if !STRICT_KEYWORDS.contains(&k) && k != "oneOf" {
            return Err(format!(
                "keyword `{k}` at {where_} is not supported in strict mode"
            ));
        }
        out.insert(key.clone(), value.clone());
    }
    if let Some(r) = out.get("$ref").and_then(Value::as_str)
        && !(r == "#" || r.starts_with("#/$defs/") || r.starts_with("#/definitions/"))
    {
        return Err(format!(
            "$ref \"{r}\" at {where_} is not supported in strict mode"
        ));
    }
    // oneOf → anyOf (strict mode only knows anyOf).
    if let Some(v) = out.remove("oneOf") {
        out.insert("anyOf".into(), v);
    }
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(defs)) = out.get(key).cloned() {
            let mut new = Map::new();
            for (name, def) in defs {
                new.insert(
                    name.clone(),
                    strict_schema(&def, &format!("{at}/{key}/{name}"), depth, count)?,
                );
            }
            out.insert(key.into(), Value::Object(new));
        }
    }
    if let Some(Value::Array(list)) = out.get("anyOf").cloned() {
        let mut new = Vec::new();
        for (i, s) in list.iter().enumerate() {
            new.push(strict_schema(s, &format!("{at}/anyOf/{i}"), depth, count)?);
        }
        out.insert("anyOf".into(), Value::Array(new));
    }
    if let Some(items) = out.get("items").cloned() {
        if items.is_array() {
            return Err(format!(
                "tuple `items` at {where_} is not supported in strict mode"
            ));
        }
        out.insert(
            "items".into(),
            strict_schema(&items, &format!("{at}/items"), depth + 1, count)?,
        );
    }
    let is_object = match out.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => out.contains_key("properties"),
    };
    if is_object {
        match out.get("additionalProperties") {
            None | Some(Value::Bool(false)) => {}
            Some(_) => {
                return Err(format!(
                    "free-form object (additionalProperties) at {where_} is not allowed in strict mode"
                ));
            }
        }
        let props = match out.get("properties") {
            Some(Value::Object(p)) => p.clone(),
            _ if at.is_empty() => Map::new(),
            _ => {
                return Err(format!(
                    "object without properties at {where_} is not allowed in strict mode"
                ));
            }
        };
        let required: Vec<String> = match out.get("required") {
            Some(Value::Array(r)) => r
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
            _ => Vec::new(),
        };
        let mut new_props = Map::new();
        for (name, prop) in &props {
            *count += 1;
            let mut p = strict_schema(prop, &format!("{at}/properties/{name}"), depth + 1, count)?;
            if !required.contains(name) {
                p = nullable(p);
            }
            new_props.insert(name.clone(), p);
        }
        out.insert("type".into(), json!("object"));
        out.insert("properties".into(), Value::Object(new_props));
        out.insert("required".into(), json!(props.keys().collect::<Vec<_>>()));
        out.insert("additionalProperties".into(), json!(false));
    }
    Ok(Value::Object(out))
}

/// `X` → `X` or `null` (how strict mode spells "optional").
fn nullable(schema: Value) -> Value {
    let Value::Object(mut obj) = schema else {
        return schema;
    };
    match obj.get("type").cloned() {
        Some(Value::String(t)) if !obj.contains_key("enum") => {
            if t != "null" {
                obj.insert("type".into(), json!([t, "null"]));
            }
            Value::Object(obj)
        }
        Some(Value::Array(mut ts)) if !obj.contains_key("enum") => {
            if !ts.iter().any(|t| t == "null") {
                ts.push(json!("null"));
            }
            obj.insert("type".into(), Value::Array(ts));
            Value::Object(obj)
        }
        _ => {
            let description = obj.remove("description");
            let mut wrapper = Map::new();
            if let Some(d) = description {
                wrapper.insert("description".into(), d);
            }
            wrapper.insert(
                "anyOf".into(),
                json!([Value::Object(obj), {"type": "null"}]),
            );
            Value::Object(wrapper)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_strict_wraps_the_schema() {
        let d = function_definition("gh", "get_me", Some("Who am I"), &json!({}));
        assert_eq!(
            d,
            json!({"type": "function", "function": {"name": "mcp_gh_get_me", "description": "Who am I", "parameters": {"type": "object", "properties": {}}}})
        );
    }

    #[test]
    fn strict_closes_objects_and_makes_optionals_nullable() {
        let schema = json!({"type": "object", "required": ["a"], "properties": {
            "a": {"type": "string", "minLength": 1},
            "b": {"type": "integer", "default": 3},
            "c": {"type": "string", "enum": ["x", "y"]},
            "o": {"type": "object", "properties": {"z": {"type": "boolean"}}}
        }});
        let d = strict_function_definition("gh", "t", None, &schema).unwrap();
        let p = &d["function"]["parameters"];
        assert_eq!(d["function"]["strict"], true);
        assert_eq!(p["additionalProperties"], false);
        assert_eq!(p["required"], json!(["a", "b", "c", "o"]));
        assert_eq!(p["properties"]["a"], json!({"type": "string"}));
        assert_eq!(p["properties"]["b"], json!({"type": ["integer", "null"]}));
        assert_eq!(p["properties"]["c"]["anyOf"][1], json!({"type": "null"}));
        assert_eq!(p["properties"]["o"]["required"], json!(["z"]));
        assert_eq!(p["properties"]["o"]["type"], json!(["object", "null"]));
        assert_eq!(
            p["properties"]["o"]["properties"]["z"]["type"],
            json!(["boolean", "null"])
        );
    }

    #[test]
    fn strict_is_unavailable_for_free_form_values() {
        for (schema, needle) in [
            (
                json!({"type": "object", "properties": {"a": {}}}),
                "any-JSON",
            ),
            (
                json!({"type": "object", "additionalProperties": true, "properties": {}}),
                "free-form",
            ),
            (
                json!({"type": "object", "properties": {"a": {"allOf": [{"type": "string"}]}}}),
                "allOf",
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "object"}}}),
                "without properties",
            ),
            (
                json!({"type": "object", "properties": {"a": {"$ref": "http://x"}}}),
                "$ref",
            ),
        ] {
            let err = strict_function_definition("gh", "t", None, &schema).unwrap_err();
            assert!(err.contains(needle), "{err}");
        }
    }
}
