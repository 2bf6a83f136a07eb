//! Anthropic's tool format: `{"name", "description", "input_schema"}`.
//!
//! The Messages API checks `input_schema` against JSON Schema draft 2020-12, wants an object
//! schema at the root and refuses `anyOf` / `oneOf` / `allOf` there. Everything below the
//! root passes through unchanged. The rewrites, each only where the input needs it:
//!
//! * `$schema` is removed; the root gets `"type": "object"` (and `properties`);
//! * a root `allOf` of object schemas is merged into the root (properties and `required`
//!   joined);
//! * a root `anyOf` / `oneOf` of object schemas becomes one object with every branch's
//!   properties, requiring only what every branch requires; the description lists the
//!   argument sets. This widens what the model may send, so it is reported as a fallback
//!   (dispatch still validates against the original schema);
//! * draft-04 spellings that are invalid in 2020-12 are translated: `"required": true` on a
//!   property (moved to the parent's `required`), boolean `exclusiveMinimum` /
//!   `exclusiveMaximum`, `items` as an array (`prefixItems`), `"type": "any"`;
//! * a root that is not an object schema (a broken tool: MCP arguments are an object) is
//!   exported as taking no arguments, and `$ref`s that lead nowhere in the schema are
//!   removed — both reported as fallbacks.

use serde_json::{Map, Value, json};

use super::openai;
use super::{drop_unresolvable_refs, join_reasons, modernize, obj_without};

/// The definition of a tool exported as `name`, and the reason when the schema had to be
/// widened to fit.
pub fn tool_definition(
    name: &str,
    description: Option<&str>,
    input_schema: &Value,
) -> (Value, Option<String>) {
    let mut schema = openai::parameters(input_schema);
    let mut fallback = openai::non_object_root(input_schema);
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
    modernize(&mut schema);
    let fallback = join_reasons(fallback, drop_unresolvable_refs(&mut schema));
    let mut out = Map::new();
    out.insert("name".into(), json!(name));
    let description = match (description, notes.is_empty()) {
        (d, true) => d.map(str::to_string),
        (Some(d), false) => Some(format!("{d}\n\n{}", notes.join(" "))),
        (None, false) => Some(notes.join(" ")),
    };
    if let Some(d) = description {
        out.insert("description".into(), json!(d));
    }
    out.insert("input_schema".into(), schema);
    (Value::Object(out), fallback)
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
    let resolved = openai::inline_refs(&Value::Object(root.clone())).ok();
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
    let required = obj
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
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

pub(super) fn add_required(root: &mut Map<String, Value>, required: Vec<String>) {
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

/// Checks a definition against the format's rules: a valid name, an object schema at the
/// root without a root `anyOf` / `oneOf` / `allOf`, no `$schema`.
pub fn check(definition: &Value) -> Result<(), String> {
    let name = definition
        .get("name")
        .and_then(Value::as_str)
        .ok_or("no name")?;
    if !crate::naming::is_valid_exported_name(name) {
        return Err(format!("name \"{name}\" is not ^[A-Za-z0-9_-]{{1,64}}$"));
    }
    let extra = obj_without(definition, &["name", "description", "input_schema"]);
    if !extra.is_empty() {
        return Err(format!("{name}: unexpected keys {extra:?}"));
    }
    let schema = definition
        .get("input_schema")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("{name}: input_schema is not an object"))?;
    if schema.get("type") != Some(&json!("object")) {
        return Err(format!("{name}: input_schema's type is not \"object\""));
    }
    for k in ["anyOf", "oneOf", "allOf", "$schema"] {
        if schema.contains_key(k) {
            return Err(format!("{name}: input_schema has `{k}` at the root"));
        }
    }
    Ok(())
}
