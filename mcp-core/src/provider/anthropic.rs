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

use super::root::{Root, object_root};
use super::{drop_unresolvable_refs, join_reasons, modernize, obj_without};

/// The definition of a tool exported as `name`, and the reason when the schema had to be
/// widened to fit.
pub fn tool_definition(
    name: &str,
    description: Option<&str>,
    input_schema: &Value,
) -> (Value, Option<String>) {
    let Root {
        mut schema,
        fallback,
        notes,
    } = object_root(input_schema);
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
    if let Some(problem) = crate::schema::malformed(&definition["input_schema"]) {
        return Err(format!(
            "{name}: input_schema is not a valid JSON Schema at {problem}"
        ));
    }
    Ok(())
}
