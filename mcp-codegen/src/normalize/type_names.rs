//! Distinct type names. typify names a nested type after its place (`{parent}_{property}`,
//! `{array}Item`, `{map}Value`) and, when two different schemas get one name, keeps the
//! first and silently uses it for both (`TypeSpace::assign_type`): the second schema's
//! properties are dropped, or its enum values refused. Names collide more often than one
//! would think: `{"a_b": {…}}` and `{"a": {"b": {…}}}` are both `ArgsAB`, a property `list`
//! of objects and a property `list_item` are both `ArgsListItem`, a property `foo` and a
//! definition `ArgsFoo` are both `ArgsFoo`.
//!
//! This pass predicts those names (the rules `emit::direct` reproduces byte for byte, plus
//! definition names and titles) and gives each later schema that would take a name already
//! taken by a *different* schema a title with a number (`ArgsAb2`), which typify uses
//! instead. Equal schemas keep sharing a name (typify's merge is then harmless), so names
//! only change where types would have been wrong.

use std::collections::BTreeMap;

use heck::ToSnakeCase;
use serde_json::{Map, Value};

use super::unions::without_annotations;
use crate::naming::typify_sanitize;

/// Gives the schemas of `root` and `defs` whose typify names collide distinct titles.
pub(super) fn distinct_type_names(
    root: &mut Value,
    defs: &mut BTreeMap<String, Value>,
    root_name: &str,
) {
    let mut claimed: BTreeMap<String, Option<Value>> = BTreeMap::new();
    // The root's and the definitions' names are final (typify's required names).
    claimed.insert(root_name.to_string(), None);
    for name in defs.keys() {
        claimed.insert(typify_sanitize(name, true), None);
    }
    children(root, root_name, &mut claimed);
    for (name, def) in defs.iter_mut() {
        children(def, &typify_sanitize(name, true), &mut claimed);
    }
}

/// Whether typify makes a named type of `obj` (a struct, an enum, a union).
fn named(obj: &Map<String, Value>) -> bool {
    if obj.contains_key("$ref") {
        return false;
    }
    let has_properties = obj
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    let union = ["anyOf", "oneOf"]
        .iter()
        .any(|k| obj.get(*k).is_some_and(Value::is_array))
        && option_of(obj).is_none();
    has_properties || obj.contains_key("enum") || obj.contains_key("allOf") || union
}

/// `X` of `anyOf: [X, {"type": "null"}]` (typify's `Option<X>`, `X` named as the option).
fn option_of(obj: &Map<String, Value>) -> Option<usize> {
    let Some(Value::Array(list)) = obj.get("anyOf") else {
        return None;
    };
    let is_null = |v: &Value| v.get("type").and_then(Value::as_str) == Some("null");
    (list.len() == 2 && is_null(&list[1]) && !is_null(&list[0])).then_some(0)
}

/// The node at a place typify names `derived`: claims its name, or retitles it.
fn place(schema: &mut Value, derived: String, claimed: &mut BTreeMap<String, Option<Value>>) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    if let Some(i) = option_of(obj) {
        if let Some(Value::Array(list)) = obj.get_mut("anyOf") {
            place(&mut list[i], derived, claimed);
        }
        return;
    }
    let mut name = match obj.get("title").and_then(Value::as_str) {
        Some(title) => typify_sanitize(title, true),
        None => derived,
    };
    if named(obj) {
        let shape = without_annotations(&Value::Object(obj.clone()));
        match claimed.get(&name) {
            None => {
                claimed.insert(name.clone(), Some(shape));
            }
            Some(Some(same)) if *same == shape => {}
            Some(_) => {
                let numbered = |n: usize| typify_sanitize(&format!("{name}{n}"), true);
                let mut n = 2;
                while claimed.contains_key(&numbered(n)) {
                    n += 1;
                }
                name = numbered(n);
                obj.insert("title".into(), Value::String(name.clone()));
                claimed.insert(name.clone(), Some(shape));
            }
        }
    }
    children(schema, &name, claimed);
}

/// The places under a node named `name`: its properties, its items, its map's values.
fn children(schema: &mut Value, name: &str, claimed: &mut BTreeMap<String, Option<Value>>) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    if let Some(Value::Object(props)) = obj.get_mut("properties") {
        let has_properties = !props.is_empty();
        for (property, sub) in props.iter_mut() {
            let derived = typify_sanitize(&format!("{name}_{}", property.to_snake_case()), true);
            place(sub, derived, claimed);
        }
        if has_properties {
            return;
        }
    }
    if let Some(items) = obj.get_mut("items").filter(|i| i.is_object()) {
        place(
            items,
            typify_sanitize(&format!("{name}Item"), true),
            claimed,
        );
    }
    if let Some(values) = obj
        .get_mut("additionalProperties")
        .filter(|v| v.is_object())
    {
        place(
            values,
            typify_sanitize(&format!("{name}Value"), true),
            claimed,
        );
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::normalize::tests::norm;

    #[test]
    fn types_typify_would_name_alike_get_distinct_titles() {
        let n = norm(
            json!({"type": "object", "$defs": {"ArgsFoo": {"type": "object", "properties": {"z": {"type": "boolean"}}}},
                "properties": {
                "a_b": {"type": "object", "properties": {"x": {"type": "string"}}},
                "a": {"type": "object", "properties": {"b": {"type": "object", "properties": {"y": {"type": "integer"}}}}},
                "list": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "string"}}}},
                "list_item": {"type": "object", "properties": {"y": {"type": "integer"}}},
                "foo": {"type": "object", "properties": {"w": {"type": "string"}}},
                "bar": {"$ref": "#/$defs/ArgsFoo"},
                "same_a": {"type": "object", "properties": {"s": {"enum": ["x"]}}},
                "same": {"type": "object", "properties": {"a": {"type": "object", "properties": {"s": {"enum": ["x"]}}}}}
            }}),
        );
        let p = &n.root["properties"];
        let titles = [
            p["a"]["properties"]["b"].get("title"),
            p["a_b"].get("title"),
            p["list_item"].get("title"),
            p["list"]["items"].get("title"),
            p["foo"].get("title"),
        ];
        // One of each colliding pair is renamed, the other keeps typify's name.
        assert_eq!(titles[0].or(titles[1]), Some(&json!("ArgsAb2")), "{p}");
        assert!(titles[0].is_none() || titles[1].is_none());
        assert_eq!(
            titles[2].or(titles[3]),
            Some(&json!("ArgsListItem2")),
            "{p}"
        );
        assert_eq!(titles[4], Some(&json!("ArgsFoo2")));
        // The same schema under one name stays one type.
        assert!(p["same"]["properties"]["a"].get("title").is_none());
        assert!(p["same_a"].get("title").is_none());
    }
}
