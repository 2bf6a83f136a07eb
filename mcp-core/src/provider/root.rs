//! The root every format wants: [`parameters`] (an object schema, `$schema` removed, a root
//! of another type replaced by one taking no arguments: [`non_object_root`] says why) and
//! [`object_root`], where a root `allOf` / `anyOf` / `oneOf` (Anthropic refuses them, OpenAI
//! too: langchainjs #9804) has its object branches merged into the root.

use serde_json::{Map, Value, json};

use super::refs::inline_refs;

/// Why a tool's input schema is not an object schema (MCP arguments are always a JSON
/// object), or `None` when it is one (or says nothing about the type).
pub fn non_object_root(input_schema: &Value) -> Option<String> {
    match input_schema.get("type") {
        None => None,
        Some(Value::String(t)) if t == "object" => None,
        Some(Value::Array(ts)) if ts.iter().any(|t| t == "object") => None,
        Some(other) => Some(format!(
            "the input schema's root is not an object schema (type {other}), but MCP arguments are an object; exported as taking no arguments"
        )),
    }
}

/// The parameters schema OpenAI sees: the input schema, forced to be an object schema (a
/// root of another type — a broken tool, since MCP arguments are an object — becomes an
/// object with no properties).
pub fn parameters(input_schema: &Value) -> Value {
    if non_object_root(input_schema).is_some() {
        return json!({"type": "object", "properties": {}});
    }
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

/// A tool's input schema as an object root, the fallback reason when that widened it, and
/// the sentences for the description (the argument sets a merged `anyOf` stood for).
pub(crate) struct Root {
    pub(crate) schema: Value,
    pub(crate) fallback: Option<String>,
    pub(crate) notes: Vec<String>,
}

/// [`parameters`] of `input_schema`, typed `object`, its root combinators merged.
pub(crate) fn object_root(input_schema: &Value) -> Root {
    let mut schema = parameters(input_schema);
    let mut fallback = non_object_root(input_schema);
    let mut notes = Vec::new();
    if let Value::Object(root) = &mut schema {
        if root.get("type") != Some(&json!("object")) {
            // `["object", "null"]` and the like: an object.
            root.insert("type".into(), json!("object"));
            root.entry("properties").or_insert(json!({}));
        }
        if let Some(reason) = merge_root_combinators(root, &mut notes) {
            fallback = Some(reason);
        }
    }
    Root {
        schema,
        fallback,
        notes,
    }
}

/// Removes a root `allOf` / `anyOf` / `oneOf` by merging its object branches into the root.
/// Returns the fallback reason when the result accepts more than the original.
fn merge_root_combinators(
    root: &mut Map<String, Value>,
    notes: &mut Vec<String>,
) -> Option<String> {
    if !["allOf", "anyOf", "oneOf"]
        .iter()
        .any(|k| root.contains_key(*k))
    {
        return None;
    }
    // Branches may be `$ref`s into the root's `$defs`.
    let resolved = inline_refs(&Value::Object(root.clone())).ok();
    let source = resolved.as_ref().and_then(Value::as_object).unwrap_or(root);
    let all_of = source.get("allOf").cloned();
    let alternatives: Vec<(&str, Value)> = ["anyOf", "oneOf"]
        .iter()
        .filter_map(|k| source.get(*k).map(|v| (*k, v.clone())))
        .collect();
    for k in ["allOf", "anyOf", "oneOf"] {
        root.remove(k);
    }
    let mut reasons = Vec::new();
    if let Some(Value::Array(branches)) = all_of {
        for (i, branch) in branches.iter().enumerate() {
            match object_parts(branch) {
                Some((props, required)) => {
                    add_properties(root, &props);
                    add_required(root, required);
                }
                None => reasons.push(format!(
                    "root allOf branch {i} is not an object schema and was dropped"
                )),
            }
        }
    }
    for (keyword, branches) in alternatives {
        let Value::Array(branches) = branches else {
            continue;
        };
        let mut sets = Vec::new();
        let mut common: Option<Vec<String>> = None;
        for (i, branch) in branches.iter().enumerate() {
            let Some((props, required)) = object_parts(branch) else {
                reasons.push(format!(
                    "root {keyword} branch {i} is not an object schema and was dropped"
                ));
                continue;
            };
            add_properties(root, &props);
            let names: Vec<String> = if required.is_empty() {
                props.keys().cloned().collect()
            } else {
                required.clone()
            };
            sets.push(format!("({})", names.join(", ")));
            common = Some(match common {
                None => required,
                Some(c) => c.into_iter().filter(|r| required.contains(r)).collect(),
            });
        }
        add_required(root, common.unwrap_or_default());
        notes.push(format!(
            "Arguments: {} of these sets: {}.",
            if keyword == "oneOf" {
                "exactly one"
            } else {
                "at least one"
            },
            sets.join(" or ")
        ));
        reasons.push(format!(
            "the root {keyword} ({} alternatives) was merged into one object schema; only the arguments every alternative requires are required",
            branches.len()
        ));
    }
    if reasons.is_empty() {
        None
    } else {
        Some(reasons.join("; "))
    }
}

/// `(properties, required)` of an object-like schema.
fn object_parts(schema: &Value) -> Option<(Map<String, Value>, Vec<String>)> {
    let obj = schema.as_object()?;
    match obj.get("type") {
        None => {}
        Some(Value::String(t)) if t == "object" => {}
        _ => return None,
    }
    let props = obj
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let required = crate::schema::required_names(obj)
        .into_iter()
        .map(str::to_string)
        .collect();
    // `{"required": ["a"]}` alone is a constraint over the root's own properties.
    Some((props, required))
}

fn add_properties(root: &mut Map<String, Value>, props: &Map<String, Value>) {
    let target = root.entry("properties").or_insert_with(|| json!({}));
    if let Value::Object(target) = target {
        for (k, v) in props {
            target.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
}

pub(crate) fn add_required(root: &mut Map<String, Value>, required: Vec<String>) {
    if required.is_empty() {
        return;
    }
    let list = root.entry("required").or_insert_with(|| json!([]));
    if let Value::Array(list) = list {
        for r in required {
            if !list.iter().any(|v| v == &json!(r)) {
                list.push(json!(r));
            }
        }
    }
}
