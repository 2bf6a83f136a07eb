//! Object steps: `patternProperties` folded into the extra-properties map, lenient outputs,
//! `Option` for optional lists and maps, placeholder names for symbolic properties and
//! `extra` clashes, stray `required` names and field-name collisions.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use super::{Ctx, Role};
use crate::naming::{SYMBOL_WORDS, spelling, typify_sanitize};

/// `patternProperties` beside declared `properties` → the values they allow kept in the
/// flattened map of extra properties (`additionalProperties`), which typify types; alone
/// they leave a map of JSON values. The key patterns are not checked by the types.
pub(super) fn pattern_properties(obj: &mut Map<String, Value>) {
    let Some(Value::Object(patterns)) = obj.remove("patternProperties") else {
        return;
    };
    let has_properties = obj
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    if !has_properties || patterns.is_empty() {
        return;
    }
    let mut branches: Vec<Value> = patterns.into_iter().map(|(_, s)| s).collect();
    let extra = match obj.remove("additionalProperties") {
        // Other keys are allowed too: any value.
        None | Some(Value::Bool(true)) => json!({}),
        Some(Value::Bool(false)) if branches.len() == 1 => branches.remove(0),
        Some(Value::Bool(false)) => json!({ "anyOf": branches }),
        Some(other) => {
            branches.push(other);
            json!({ "anyOf": branches })
        }
    };
    obj.insert("additionalProperties".into(), extra);
}

/// Object rules: lenient outputs, `Option` for optional lists/maps, `extra` clashes,
/// stray `required` names and nested field-name collisions.
pub(super) fn object_rules(obj: &mut Map<String, Value>, at: &str, ctx: &mut Ctx) {
    if ctx.role == Role::Output && obj.get("additionalProperties") == Some(&Value::Bool(false)) {
        obj.remove("additionalProperties");
    }
    symbolic_property_names(obj, ctx);
    let Some(Value::Object(props)) = obj.get("properties") else {
        return;
    };
    let names: Vec<String> = props.keys().cloned().collect();

    // typify puts a schema-typed `additionalProperties` into a flattened field `extra`: a
    // property of that Rust name becomes `extra_property` (its JSON name kept).
    let map_extra =
        matches!(obj.get("additionalProperties"), Some(Value::Object(m)) if !m.is_empty());
    if map_extra {
        for name in names
            .iter()
            .filter(|n| typify_sanitize(n, false) == "extra")
        {
            rename_property(obj, ctx, name, "extra_property");
        }
    }
    let Some(Value::Object(props)) = obj.get("properties") else {
        return;
    };
    let names: Vec<String> = props.keys().cloned().collect();

    if let Some(Value::Array(required)) = obj.get_mut("required") {
        let before = required.len();
        required.retain(|r| r.as_str().is_some_and(|r| names.iter().any(|n| n == r)));
        let mut seen = BTreeSet::new();
        required.retain(|r| seen.insert(r.to_string()));
        if required.len() != before {
            ctx.warn(
                at,
                "`required` names without a matching property ignored".into(),
            );
        }
    }
    let required: BTreeSet<String> = match obj.get("required") {
        Some(Value::Array(r)) => r
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => BTreeSet::new(),
    };

    // Arguments and results alike: `[]` and "absent" are different values.
    if let Some(Value::Object(props)) = obj.get_mut("properties") {
        for (name, schema) in props.iter_mut() {
            if !required.contains(name) {
                optional_list_or_map(schema);
            }
        }
    }

    resolve_collisions(obj, at, ctx);
}

/// Properties of one object that map to the same Rust field (`orderBy` and `order_by`, an
/// OpenAPI-derived server's query and body spellings) get distinct fields on their own: the
/// property spelled exactly as the field keeps it; each other one gets the field plus a word
/// for its spelling (`order_by_camel`, `order_by_pascal`, `order_by_kebab`, `order_by_upper`,
/// …, then a number), with its JSON name kept. Stable: the names depend on the spellings
/// only, not on the order of the properties. Top-level properties the caller renames are left
/// to the `rename` option.
fn resolve_collisions(obj: &mut Map<String, Value>, at: &str, ctx: &mut Ctx) {
    let Some(Value::Object(props)) = obj.get("properties") else {
        return;
    };
    let renamed = |name: &str| at.is_empty() && ctx.root_renames.contains(name);
    let mut by_field: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for name in props.keys().filter(|n| !renamed(n)) {
        by_field
            .entry(typify_sanitize(name, false))
            .or_default()
            .push(name.clone());
    }
    if by_field.values().all(|names| names.len() < 2) {
        return;
    }
    let mut taken: BTreeSet<String> = by_field.keys().cloned().collect();
    let groups: Vec<(String, Vec<String>)> = by_field
        .into_iter()
        .filter(|(_, names)| names.len() > 1)
        .collect();
    for (field, mut names) in groups {
        names.sort();
        let exact = names.iter().find(|n| **n == field).cloned();
        let stem = field.trim_end_matches('_').to_string();
        let mut moved: Vec<(String, String)> = Vec::new();
        for name in names.iter().filter(|n| Some(*n) != exact.as_ref()) {
            let mut ident = format!("{stem}_{}", spelling(name));
            let mut n = 2;
            while taken.contains(&ident) {
                ident = format!("{stem}_{}_{n}", spelling(name));
                n += 1;
            }
            taken.insert(ident.clone());
            moved.push((name.clone(), ident));
        }
        if exact.is_none() {
            taken.remove(&field);
        }
        for (name, ident) in &moved {
            rename_property(obj, ctx, name, ident);
        }
        let list = moved
            .iter()
            .map(|(name, ident)| format!("\"{name}\" is `{ident}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let kept = exact.map_or(String::new(), |e| format!("\"{e}\" keeps `{field}`; "));
        let at = if at.is_empty() { "/" } else { at };
        ctx.renamed.push(
            format!(
                "properties {} at {at} map to one Rust field `{field}`: {kept}{list} (JSON names unchanged; `rename` chooses others at the top level)",
                crate::naming::quoted_list(&names)
            ),
        );
    }
}

/// Properties whose name has no letter or digit (`""`, `"_"`, `"-"`, `"$"`): typify would
/// call the field `x` and name its type after the parent object (a clash with the parent:
/// `Args` inside `Args`). They get a placeholder key spelling the name out (`dash`,
/// `underscore`, `empty`, …), restored to the JSON name after typify.
fn symbolic_property_names(obj: &mut Map<String, Value>, ctx: &mut Ctx) {
    let Some(Value::Object(props)) = obj.get("properties") else {
        return;
    };
    let symbolic: Vec<String> = props
        .keys()
        .filter(|n| !n.chars().any(char::is_alphanumeric))
        .cloned()
        .collect();
    for name in symbolic {
        let words: Vec<&str> = name
            .chars()
            .map(|c| match c {
                '-' => "dash",
                '_' => "underscore",
                ' ' => "space",
                '\'' => "apostrophe",
                '"' => "quote",
                '`' => "backtick",
                '(' | ')' => "paren",
                '[' | ']' => "bracket",
                '{' | '}' => "brace",
                '|' => "pipe",
                '\\' => "backslash",
                c => SYMBOL_WORDS
                    .iter()
                    .find(|(s, _)| *s == c)
                    .map_or("symbol", |(_, w)| *w),
            })
            .collect();
        let ident = if words.is_empty() {
            "empty".to_string()
        } else {
            words.join("_")
        };
        rename_property(obj, ctx, &name, &ident);
    }
}

/// Gives property `name` of `obj` the Rust field name `ident` (a placeholder key, restored to
/// `name` after typify), in `properties` and `required`.
fn rename_property(obj: &mut Map<String, Value>, ctx: &mut Ctx, name: &str, ident: &str) {
    let key = ctx.placeholder(ident, name);
    if let Some(Value::Object(props)) = obj.get_mut("properties")
        && let Some(schema) = props.remove(name)
    {
        props.insert(key.clone(), schema);
    }
    if let Some(Value::Array(required)) = obj.get_mut("required") {
        for r in required.iter_mut() {
            if r == name {
                *r = Value::String(key.clone());
            }
        }
    }
}

/// Makes an optional array or map typed as `Option<…>` (typify would use an empty `Vec` /
/// map for "absent", which cannot send an empty list).
///
/// A union whose every branch is an array or a map (`anyOf: [array of strings, array of
/// objects]`, merged into one list type later) gets a `null` branch for the same reason.
fn optional_list_or_map(schema: &mut Value) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    if list_or_map(obj) {
        let kind = obj
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        obj.insert("type".into(), json!([kind, "null"]));
        return;
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = obj.get_mut(key)
            && !branches.is_empty()
            && branches
                .iter()
                .all(|b| b.as_object().is_some_and(list_or_map))
        {
            branches.push(json!({"type": "null"}));
            return;
        }
    }
}

/// An array schema, or an object schema without properties (a map).
fn list_or_map(obj: &Map<String, Value>) -> bool {
    let kind = obj.get("type").and_then(Value::as_str).unwrap_or("");
    let no_properties = obj
        .get("properties")
        .is_none_or(|p| p.as_object().is_some_and(Map::is_empty));
    kind == "array" || (kind == "object" && no_properties)
}

fn first_collision_in(obj: &Map<String, Value>) -> Option<(String, String, String)> {
    let Some(Value::Object(props)) = obj.get("properties") else {
        return None;
    };
    let mut by_field: BTreeMap<String, &str> = BTreeMap::new();
    for name in props.keys() {
        let field = typify_sanitize(name, false);
        if let Some(first) = by_field.get(&field) {
            return Some((first.to_string(), name.clone(), field));
        }
        by_field.insert(field, name);
    }
    None
}

pub(super) fn first_collision(root: &Value) -> Option<(String, String, String)> {
    root.as_object().and_then(first_collision_in)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::tests::norm;
    use crate::normalize::{Request, normalize};

    #[test]
    fn keyword_and_symbol_property_names_pass_through() {
        let n = norm(json!({"type": "object", "properties": {
            "type": {"type": "string"}, "ref": {"type": "string"}, "self": {"type": "string"},
            "$meta": {"type": "string"}, "@timestamp": {"type": "string"}, "repo-name": {"type": "string"}
        }}));
        assert_eq!(n.root["properties"].as_object().unwrap().len(), 6);
    }

    #[test]
    fn symbol_only_property_names_get_spelled_out_placeholders() {
        let n = norm(json!({"type": "object", "required": ["-"], "properties": {
            "": {"enum": ["a", "b"]}, "-": {"type": "string"}, "_": {"type": "integer"},
            "$": {"type": "object", "properties": {"?": {"type": "string"}}}
        }}));
        let props = n.root["properties"].as_object().unwrap();
        let fields: BTreeSet<String> = props.keys().map(|k| typify_sanitize(k, false)).collect();
        let want: BTreeSet<String> = ["empty", "dash", "underscore", "dollar"]
            .map(String::from)
            .into();
        assert_eq!(fields, want);
        // Restored to the JSON names after typify; `required` follows the rename.
        let originals: BTreeSet<&str> = n.literals.values().map(String::as_str).collect();
        assert!(
            ["", "-", "_", "$", "?"]
                .iter()
                .all(|o| originals.contains(o)),
            "{originals:?}"
        );
        let req = n.root["required"][0].as_str().unwrap();
        assert_eq!(n.literals[req], "-");
    }

    #[test]
    fn optional_lists_and_maps_become_options() {
        let n = norm(json!({"type": "object", "required": ["r"], "properties": {
            "r": {"type": "array", "items": {"type": "string"}},
            "o": {"type": "array", "items": {"type": "string"}},
            "m": {"type": "object", "additionalProperties": {"type": "string"}}
        }}));
        let p = &n.root["properties"];
        assert_eq!(p["r"]["type"], "array");
        assert_eq!(p["o"]["type"], json!(["array", "null"]));
        assert_eq!(p["m"]["type"], json!(["object", "null"]));
        assert!(
            n.nullable_optional.is_empty(),
            "not nullable in the original schema"
        );
    }

    #[test]
    fn outputs_are_lenient() {
        let s = json!({"type": "object", "additionalProperties": false, "properties": {"a": {"type": "object", "additionalProperties": false, "properties": {}}}});
        let n = normalize(&s, Role::Output, &Request::default()).unwrap();
        assert!(n.root.get("additionalProperties").is_none());
        assert!(
            n.root["properties"]["a"]
                .get("additionalProperties")
                .is_none()
        );
        let i = normalize(&s, Role::Input, &Request::default()).unwrap();
        assert_eq!(i.root["additionalProperties"], false);
    }
}
