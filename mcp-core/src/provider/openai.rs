//! OpenAI function-call definitions (`tools` of chat-completions) for MCP tools, under the
//! names the toolbox exports (the `TOOL` constants of `mcp_tools!` derive theirs with these
//! functions at run time):
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

use serde_json::{Map, Value, json};

pub use super::refs::{INLINE_MAX_NODES, inline_refs};
pub use super::root::{non_object_root, parameters};

/// Maximum nesting depth of objects OpenAI accepts in strict mode.
pub const STRICT_MAX_DEPTH: usize = 10;
/// Maximum number of object properties OpenAI accepts in strict mode (whole schema).
pub const STRICT_MAX_PROPERTIES: usize = 5000;

/// The non-strict definition of a tool exported under `name` (the agent layer's names may
/// carry a collision suffix): [`function_definition_and_reason`] without the reason.
pub fn function_definition(name: &str, description: Option<&str>, input_schema: &Value) -> Value {
    function_definition_and_reason(name, description, input_schema).0
}

/// The non-strict definition of a tool exported under `name`, its parameters as OpenAI
/// accepts them ([`accepted_parameters`]), and the reason when they had to widen.
pub fn function_definition_and_reason(
    name: &str,
    description: Option<&str>,
    input_schema: &Value,
) -> (Value, Option<String>) {
    let accepted = accepted_parameters(input_schema);
    let mut function = Map::new();
    function.insert("name".into(), json!(name));
    let description = match (description, accepted.notes.is_empty()) {
        (d, true) => d.map(str::to_string),
        (Some(d), false) => Some(format!("{d}\n\n{}", accepted.notes.join(" "))),
        (None, false) => Some(accepted.notes.join(" ")),
    };
    if let Some(d) = description {
        function.insert("description".into(), json!(d));
    }
    function.insert("parameters".into(), accepted.schema);
    (
        json!({"type": "function", "function": function}),
        accepted.fallback,
    )
}

/// What OpenAI's function calling refuses in any mode, and what the export writes instead.
/// Each row is a public report of a refused request; `check` refuses a definition that
/// still has the shape.
///
/// | shape | refused | written instead |
/// |---|---|---|
/// | `additionalProperties: {}` (zod's `z.record(z.any())`) | "schema must have a 'type' key", and the run completes with no tool call (chattermate #303) | `additionalProperties: true` (the same values) |
/// | `oneOf` anywhere | by the Responses API even without `strict`; one such tool fails the whole request (oh-my-pi #920) | `anyOf`; a fallback reason when two branches may match one value (the server takes exactly one) |
/// | `oneOf` / `anyOf` / `allOf` / `enum` / `not` at the root of `parameters` | function parameters must be an object schema (langchainjs #9804) | the object branches merged into the root (only what every branch requires stays required, the argument sets in the description); `enum`, `not`, `if`/`then`/`else` at the root dropped; a fallback reason for each |
///
/// Every value the input schema accepts is accepted by the result (the transforms only
/// widen); dispatch still validates arguments against the original schema.
pub fn accepted_parameters(input_schema: &Value) -> Accepted {
    let super::root::Root {
        mut schema,
        fallback,
        notes,
    } = super::root::object_root(input_schema);
    let mut reasons: Vec<String> = fallback.into_iter().collect();
    // The export carries no `$schema`, so it is read as draft 2020-12: older drafts'
    // spellings (tuple `items`, boolean exclusive bounds, draft 3's `required: true`)
    // are translated, as for Anthropic and Gemini.
    super::modernize(&mut schema);
    if let Value::Object(root) = &mut schema {
        for k in ROOT_DROPPED {
            if root.remove(*k).is_some() {
                reasons.push(format!(
                    "the root `{k}` was dropped (parameters must be a plain object schema)"
                ));
            }
        }
    }
    let mut overlapping = 0;
    accept_below(&mut schema, &mut overlapping);
    if overlapping > 0 {
        reasons.push(format!(
            "{overlapping} `oneOf` written as `anyOf` whose branches may match one value together (the server takes exactly one)"
        ));
    }
    Accepted {
        schema,
        notes,
        fallback: (!reasons.is_empty()).then(|| reasons.join("; ")),
    }
}

/// Checks `parameters` against the rules of [`accepted_parameters`]' table: an object
/// schema at the root with no combinator, `enum` or `not` there, no `oneOf` and no
/// `additionalProperties: {}` at any depth. The error names the place.
pub fn check_parameters(parameters: &Value) -> Result<(), String> {
    let Some(root) = parameters.as_object() else {
        return Err("parameters is not an object schema".into());
    };
    if root.get("type") != Some(&json!("object")) {
        return Err("parameters is not an object schema".into());
    }
    if let Some(problem) = crate::schema::malformed(parameters) {
        return Err(format!(
            "parameters is not a valid JSON Schema at {problem}"
        ));
    }
    for k in ["oneOf", "anyOf", "allOf"].iter().chain(ROOT_DROPPED) {
        if root.contains_key(*k) {
            return Err(format!(
                "parameters has `{k}` at the root (langchainjs #9804)"
            ));
        }
    }
    fn below(schema: &Value, at: &str) -> Result<(), String> {
        let Some(obj) = schema.as_object() else {
            return Ok(());
        };
        if obj.contains_key("oneOf") {
            return Err(format!(
                "`oneOf` at {at}/oneOf (the Responses API refuses it: oh-my-pi #920)"
            ));
        }
        if any_value_map(obj) {
            return Err(format!(
                "`additionalProperties: {{}}` at {at} (\"schema must have a 'type' key\": chattermate #303)"
            ));
        }
        let mut found = Ok(());
        crate::schema::for_each_child(schema, &mut |suffix, sub| {
            if found.is_ok() {
                found = below(sub, &format!("{at}{suffix}"));
            }
        });
        found
    }
    below(parameters, "")
}

/// Keywords that cannot stand at the root of `parameters` and have no object branches to
/// merge: dropped there (langchainjs #9804).
const ROOT_DROPPED: &[&str] = &["enum", "const", "not", "if", "then", "else"];

/// `additionalProperties: {}` (annotations at most): any value, spelled as OpenAI refuses.
fn any_value_map(obj: &Map<String, Value>) -> bool {
    obj.get("additionalProperties")
        .and_then(Value::as_object)
        .is_some_and(|a| a.keys().all(|k| crate::schema::is_annotation(k)))
}

/// [`accepted_parameters`]' result.
#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    /// The parameters schema.
    pub schema: Value,
    /// Sentences for the description (the argument sets of a merged root union).
    pub notes: Vec<String>,
    /// Why the schema accepts more than the input schema, when it does.
    pub fallback: Option<String>,
}

/// The rewrites of [`accepted_parameters`] below the root, at every depth.
fn accept_below(schema: &mut Value, overlapping: &mut usize) {
    let Value::Object(obj) = schema else { return };
    if any_value_map(obj) {
        obj.insert("additionalProperties".into(), Value::Bool(true));
    }
    if let Some(branches) = obj.remove("oneOf") {
        if let Value::Array(list) = &branches
            && !disjoint(list)
        {
            *overlapping += 1;
        }
        match obj.get_mut("anyOf") {
            // Both at one place: the `oneOf` becomes one more condition beside the `anyOf`.
            Some(_) => {
                let all = obj.entry("allOf").or_insert_with(|| json!([]));
                if let Value::Array(all) = all {
                    all.push(json!({ "anyOf": branches }));
                }
            }
            None => {
                obj.insert("anyOf".into(), branches);
            }
        }
    }
    for child in super::schema_children_mut(obj) {
        accept_below(child, overlapping);
    }
}

/// Whether no value can match two of `branches` (the drift classifier's rule:
/// [`crate::schema::branches_disjoint`]; a branch that is not an object schema may overlap).
fn disjoint(branches: &[Value]) -> bool {
    let maps: Option<Vec<&Map<String, Value>>> = branches.iter().map(Value::as_object).collect();
    maps.is_some_and(|maps| {
        maps.iter().enumerate().all(|(i, p)| {
            maps[i + 1..]
                .iter()
                .all(|q| crate::schema::branches_disjoint(p, q))
        })
    })
}

/// The Responses API's function tool: `{"type": "function", "name", "description",
/// "parameters", "strict"}` — the chat-completions definition flattened. The Responses API
/// takes `strict` as true when it is absent, so it is always written: `true` with the strict
/// parameters where the schema allows them, else `false` with the plain ones and the reason.
pub fn responses_function(
    name: &str,
    description: Option<&str>,
    input_schema: &Value,
) -> (Value, Option<String>) {
    let (chat, reason) = match strict_function_definition(name, description, input_schema) {
        Ok(strict) => (strict, None),
        Err(reason) => {
            let (plain, widened) = function_definition_and_reason(name, description, input_schema);
            (plain, super::join_reasons(Some(reason), widened))
        }
    };
    let mut flat = Map::new();
    flat.insert("type".into(), json!("function"));
    if let Some(Value::Object(function)) = chat.get("function") {
        for (k, v) in function {
            flat.insert(k.clone(), v.clone());
        }
    }
    flat.insert("strict".into(), json!(reason.is_none()));
    (Value::Object(flat), reason)
}

/// The strict definition of a tool exported under `name`, or why there is none: local
/// `$ref`s inlined first, then the strict rules.
pub fn strict_function_definition(
    name: &str,
    description: Option<&str>,
    input_schema: &Value,
) -> Result<Value, String> {
    if let Some(reason) = non_object_root(input_schema) {
        return Err(reason);
    }
    let inlined = inline_refs(input_schema)?;
    // Parameters are a plain object schema (langchainjs #9804): a root union or condition
    // is merged or dropped by the plain form, which then says so.
    if let Some(k) = ["oneOf", "anyOf", "allOf"]
        .iter()
        .chain(ROOT_DROPPED)
        .find(|k| inlined.get(**k).is_some())
    {
        return Err(format!(
            "the root `{k}` has no strict form (parameters must be a plain object schema)"
        ));
    }
    let mut count = 0;
    let params = strict_schema(&parameters(&inlined), "", 0, &mut count)?;
    if count > STRICT_MAX_PROPERTIES {
        return Err(format!(
            "{count} properties exceed strict mode's limit of {STRICT_MAX_PROPERTIES}"
        ));
    }
    let mut function = Map::new();
    function.insert("name".into(), json!(name));
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
            (
                json!({"type": "object", "properties": {"a": {"$ref": "http://x"}}}),
                "$ref",
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

    #[test]
    fn strict_closes_objects_and_makes_optionals_nullable() {
        let schema = json!({"type": "object", "required": ["a"], "properties": {
            "a": {"type": "string", "minLength": 1},
            "b": {"type": "integer", "default": 3},
            "c": {"type": "string", "enum": ["x", "y"]},
            "o": {"type": "object", "properties": {"z": {"type": "boolean"}}}
        }});
        let d = strict_function_definition("mcp_gh_t", None, &schema).unwrap();
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
}
