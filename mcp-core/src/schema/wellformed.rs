//! Whether a schema is well formed in some JSON Schema draft (4 to 2020-12): the structural
//! part of the meta-schemas that providers enforce (a subschema that is neither an object
//! nor a boolean, `"type": "strin"`, `required` that is neither a list of names nor draft 3's
//! boolean, …), without a JSON Schema validator. A provider refuses a request carrying one
//! such schema, whichever tool it belongs to. The spellings of older drafts (`items` as a
//! list, boolean exclusive bounds) pass: the OpenAI formats carry a server's schema in its
//! own draft, and the other formats translate them before this check.

use serde_json::Value;

use super::{LIST_KEYWORDS, MAP_KEYWORDS, ONE_KEYWORDS, escape};

/// The seven type names of JSON Schema.
const TYPE_NAMES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "integer", "string",
];
/// Keywords whose value is a number.
const NUMBERS: &[&str] = &["minimum", "maximum"];
/// Keywords whose value is a number, or (draft 4) a boolean.
const BOUNDS: &[&str] = &["exclusiveMinimum", "exclusiveMaximum"];
/// Keywords whose value is a non-negative integer.
const COUNTS: &[&str] = &[
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minContains",
    "maxContains",
];
/// Keywords whose value is a string.
const STRINGS: &[&str] = &[
    "pattern",
    "format",
    "$ref",
    "$anchor",
    "$dynamicRef",
    "$id",
    "$schema",
    "title",
    "description",
    "$comment",
    "contentEncoding",
    "contentMediaType",
];
/// Keywords whose value is a boolean.
const BOOLEANS: &[&str] = &["uniqueItems", "deprecated", "readOnly", "writeOnly"];

/// The first place where `schema` is not a well-formed draft 2020-12 schema, as a JSON
/// pointer and what is wrong there; `None` when it is well formed.
///
/// Only the keywords' shapes are checked (what the meta-schema says of each keyword's value),
/// not whether a `$ref` resolves or a `pattern` compiles.
pub fn malformed(schema: &Value) -> Option<String> {
    let mut found = None;
    walk(schema, "", &mut found);
    found
}

fn walk(schema: &Value, at: &str, found: &mut Option<String>) {
    if found.is_some() {
        return;
    }
    let obj = match schema {
        Value::Bool(_) => return,
        Value::Object(obj) => obj,
        other => {
            *found = Some(format!(
                "{}: a schema is an object or a boolean, not {}",
                place(at),
                super::json_kind(other)
            ));
            return;
        }
    };
    if let Some(problem) = obj.iter().find_map(|(k, v)| keyword_problem(k, v)) {
        *found = Some(format!("{at}{problem}"));
        return;
    }
    super::for_each_child(schema, &mut |suffix, sub| {
        walk(sub, &format!("{at}{suffix}"), found);
    });
}

fn place(at: &str) -> String {
    if at.is_empty() {
        "/".to_string()
    } else {
        at.to_string()
    }
}

/// What is wrong with the value of keyword `k`, starting with its `/k` place.
fn keyword_problem(k: &str, v: &Value) -> Option<String> {
    let key = escape(k);
    let wrong = |what: &str| Some(format!("/{key}: must be {what}, not {}", short(v)));
    match k {
        "type" => {
            let names = match v {
                Value::String(s) => vec![s.as_str()],
                Value::Array(list) if !list.is_empty() => {
                    let names: Option<Vec<&str>> = list.iter().map(Value::as_str).collect();
                    match names {
                        Some(names) => names,
                        None => return wrong("a type name or a list of them"),
                    }
                }
                _ => return wrong("a type name or a non-empty list of them"),
            };
            let unknown = names.iter().find(|n| !TYPE_NAMES.contains(n))?;
            Some(format!(
                "/type: \"{unknown}\" is not a JSON Schema type ({})",
                TYPE_NAMES.join(", ")
            ))
        }
        "required" => match v {
            Value::Array(list) if list.iter().all(Value::is_string) => None,
            Value::Bool(_) => None,
            _ => wrong("a list of property names"),
        },
        "enum" => match v {
            Value::Array(_) => None,
            _ => wrong("a list of values"),
        },
        "multipleOf" => match v.as_f64() {
            Some(n) if n > 0.0 => None,
            _ => wrong("a number above 0"),
        },
        "items" => match v {
            Value::Bool(_) | Value::Object(_) | Value::Array(_) => None,
            _ => wrong("a schema or a list of them"),
        },
        _ if NUMBERS.contains(&k) => match v {
            Value::Number(_) => None,
            _ => wrong("a number"),
        },
        _ if BOUNDS.contains(&k) => match v {
            Value::Number(_) | Value::Bool(_) => None,
            _ => wrong("a number"),
        },
        _ if COUNTS.contains(&k) => match v.as_u64() {
            Some(_) => None,
            None => wrong("a non-negative integer"),
        },
        _ if STRINGS.contains(&k) => match v {
            Value::String(_) => None,
            _ => wrong("a string"),
        },
        _ if BOOLEANS.contains(&k) => match v {
            Value::Bool(_) => None,
            _ => wrong("true or false"),
        },
        _ if MAP_KEYWORDS.contains(&k) => match v {
            Value::Object(_) => None,
            _ => wrong("an object of schemas"),
        },
        _ if LIST_KEYWORDS.contains(&k) => match v {
            Value::Array(list) if !list.is_empty() => None,
            _ => wrong("a non-empty list of schemas"),
        },
        _ if ONE_KEYWORDS.contains(&k) => None,
        _ => None,
    }
}

/// A value, cut for a message.
fn short(v: &Value) -> String {
    super::truncate(&v.to_string(), 40)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::malformed;

    #[test]
    fn well_formed_schemas_pass() {
        for schema in [
            json!(true),
            json!({}),
            json!({"type": "object", "properties": {"a": {"type": ["string", "null"]}},
                   "required": ["a"], "additionalProperties": false}),
            json!({"anyOf": [{"type": "integer", "minimum": 0, "multipleOf": 2}, false]}),
            json!({"type": "array", "prefixItems": [{}], "items": {"enum": [1, "a"]}}),
            json!({"$defs": {"n": {"$ref": "#/$defs/n"}}, "x-vendor": 5}),
            // Older drafts' spellings.
            json!({"items": [{"type": "string"}], "additionalItems": false}),
            json!({"minimum": 0, "exclusiveMinimum": true, "properties": {"a": {"required": true}}}),
        ] {
            assert_eq!(malformed(&schema), None, "{schema}");
        }
    }

    #[test]
    fn malformed_schemas_name_the_place() {
        for (schema, want) in [
            (json!(5), "/: a schema is an object or a boolean"),
            (json!({"properties": {"a": 5}}), "/properties/a: a schema"),
            (
                json!({"properties": {"a": {"type": "strin"}}}),
                "/properties/a/type: \"strin\"",
            ),
            (json!({"type": []}), "/type: must be"),
            (json!({"required": "a"}), "/required: must be a list"),
            (json!({"anyOf": []}), "/anyOf: must be a non-empty list"),
            (json!({"items": 5}), "/items: must be a schema"),
            (json!({"items": [{}, 5]}), "/items/1: a schema is an object"),
            (
                json!({"exclusiveMinimum": "0"}),
                "/exclusiveMinimum: must be a number",
            ),
            (
                json!({"minLength": -1}),
                "/minLength: must be a non-negative integer",
            ),
            (
                json!({"multipleOf": 0}),
                "/multipleOf: must be a number above 0",
            ),
            (json!({"properties": []}), "/properties: must be an object"),
            (
                json!({"a/b": 1, "properties": {"x/y": {"pattern": 1}}}),
                "/properties/x~1y/pattern",
            ),
        ] {
            let got = malformed(&schema).unwrap_or_default();
            assert!(got.starts_with(want), "{schema}: {got}");
        }
    }
}
