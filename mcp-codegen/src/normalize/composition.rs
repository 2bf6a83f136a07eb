//! `anyOf`/`oneOf`/`allOf`/`not` shapes typify mishandles: a single `allOf` inlined, unions
//! with `null` spelled one way, unions with an unconstrained branch and untyped `not`
//! dropped with a note.

use crate::schema::is_null_schema;
use serde_json::{Map, Value, json};

use super::Ctx;

/// `allOf: [X]` (pydantic's way to attach a description to a reference) → `X`.
pub(super) fn single_all_of(obj: &mut Map<String, Value>) {
    let only_one = matches!(obj.get("allOf"), Some(Value::Array(list)) if list.len() == 1);
    let others = obj
        .keys()
        .any(|k| !["allOf", "description"].contains(&k.as_str()));
    if !only_one || others {
        return;
    }
    let Some(Value::Array(mut list)) = obj.remove("allOf") else {
        return;
    };
    let description = obj.remove("description");
    match list.pop() {
        Some(Value::Object(inner)) => {
            obj.extend(inner);
            if let Some(d) = description {
                obj.insert("description".into(), d);
            }
        }
        Some(other) => {
            obj.insert("allOf".into(), Value::Array(vec![other]));
            if let Some(d) = description {
                obj.insert("description".into(), d);
            }
        }
        None => {}
    }
}

/// `anyOf`/`oneOf` of one schema and `null`, in any order → `anyOf: [X, {"type": "null"}]`.
pub(super) fn nullable_union(obj: &mut Map<String, Value>) {
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(list)) = obj.get(key) else {
            continue;
        };
        if list.len() != 2 {
            continue;
        }
        let nulls = list.iter().filter(|s| is_null_schema(s)).count();
        if nulls != 1 {
            continue;
        }
        let Some(Value::Array(list)) = obj.remove(key) else {
            continue;
        };
        let other = list
            .into_iter()
            .find(|s| !is_null_schema(s))
            .unwrap_or(json!({}));
        obj.insert("anyOf".into(), json!([other, {"type": "null"}]));
    }
}

/// A definition that is itself nullable (`Node: {anyOf: [{…}, null]}`, zod's and pydantic's
/// `Optional` recursive models) is moved to its uses: the definition becomes the non-null
/// schema and each reference to it `anyOf: [{$ref}, null]`. typify names both the
/// definition's `Option` newtype and the object inside it after the definition (two `Node`
/// types, which do not compile), and the value at each use is then exactly as nullable as
/// the schema says, at every depth of a recursion.
pub(super) fn nullable_definitions(
    root: &mut Value,
    defs: &mut std::collections::BTreeMap<String, Value>,
) {
    let mut nullable: Vec<String> = Vec::new();
    for (name, def) in defs.iter_mut() {
        let Some(obj) = def.as_object_mut() else {
            continue;
        };
        let only_union = obj
            .keys()
            .all(|k| k == "anyOf" || crate::schema::is_annotation(k));
        let Some(Value::Array(list)) = obj.get("anyOf") else {
            continue;
        };
        if !only_union || list.len() != 2 || !is_null_schema(&list[1]) || is_null_schema(&list[0]) {
            continue;
        }
        let Some(Value::Object(inner)) = list.first().cloned() else {
            continue;
        };
        obj.remove("anyOf");
        for (k, v) in inner {
            obj.entry(k).or_insert(v);
        }
        nullable.push(format!("#/$defs/{name}"));
    }
    if nullable.is_empty() {
        return;
    }
    wrap_nullable_refs(root, &nullable);
    for def in defs.values_mut() {
        wrap_nullable_refs(def, &nullable);
    }
}

/// Rewrites each `{$ref: R}` with `R` in `nullable` into `anyOf: [{$ref: R}, null]`, unless
/// it already is the non-null branch of such a union.
fn wrap_nullable_refs(v: &mut Value, nullable: &[String]) {
    let Some(obj) = v.as_object_mut() else {
        return;
    };
    let target = obj.get("$ref").and_then(Value::as_str);
    if let Some(r) = target.filter(|r| nullable.iter().any(|n| n == r)) {
        let reference = json!({ "$ref": r });
        obj.remove("$ref");
        obj.insert("anyOf".into(), json!([reference, {"type": "null"}]));
        return;
    }
    let already = matches!(obj.get("anyOf"), Some(Value::Array(list))
        if list.len() == 2 && is_null_schema(&list[1])
            && list[0].get("$ref").and_then(Value::as_str).is_some_and(|r| nullable.iter().any(|n| n == r)));
    if already {
        return;
    }
    for child in obj.values_mut() {
        match child {
            Value::Array(list) => list
                .iter_mut()
                .for_each(|c| wrap_nullable_refs(c, nullable)),
            Value::Object(_) => wrap_nullable_refs(child, nullable),
            _ => {}
        }
    }
}

/// Whether a schema accepts every value (`true`, or only annotations).
fn is_unconstrained(v: &Value) -> bool {
    match v {
        Value::Bool(true) => true,
        Value::Object(m) => m.keys().all(|k| crate::schema::is_annotation(k)),
        _ => false,
    }
}

/// `anyOf`/`oneOf` with an unconstrained branch accepts (almost) anything; typify would
/// turn it into a struct of flattened optional fields that cannot hold a number or a
/// string. The union is removed, so the value is typed as JSON.
pub(super) fn unconstrained_union(obj: &mut Map<String, Value>, at: &str, ctx: &mut Ctx) {
    for key in ["anyOf", "oneOf"] {
        let open = matches!(obj.get(key), Some(Value::Array(branches)) if branches.iter().any(is_unconstrained));
        if open {
            obj.remove(key);
            let note = if key == "oneOf" {
                " (`oneOf` would also reject values matching two branches; the server checks that)"
            } else {
                ""
            };
            ctx.warn(
                at,
                format!(
                    "`{key}` with an unconstrained branch accepts any value; typed as JSON{note}"
                ),
            );
        }
    }
}

/// `not` on a schema without a `type`: typify takes the excluded schema's type as the
/// value's type (`{"not": {"type": "string", "enum": ["x"]}}` became a string, rejecting
/// numbers and `null` that the schema allows). Dropped with a note: the value is typed by
/// its other keywords, or as JSON.
pub(super) fn untyped_not(obj: &mut Map<String, Value>, at: &str, ctx: &mut Ctx) {
    if obj.contains_key("not") && !obj.contains_key("type") {
        obj.remove("not");
        ctx.warn(
            at,
            "`not` without a `type` dropped; the excluded values are not checked by the generated types".into(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::tests::norm;
    use std::collections::BTreeSet;

    #[test]
    fn a_nullable_definition_is_nullable_where_it_is_used() {
        let n = norm(json!({"type": "object",
            "$defs": {"Node": {"anyOf": [
                {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}, "name": {"type": "string"}}},
                {"type": "null"}
            ]}},
            "properties": {
                "root": {"$ref": "#/$defs/Node"},
                "maybe": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}
            }
        }));
        let node = &n.defs["Node"];
        assert!(node.get("anyOf").is_none(), "{node}");
        assert_eq!(node["type"], "object");
        let nullable = json!({"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]});
        assert_eq!(node["properties"]["child"], nullable);
        assert_eq!(n.root["properties"]["root"], nullable);
        // Already nullable at the use: not wrapped twice.
        assert_eq!(n.root["properties"]["maybe"], nullable);
    }

    #[test]
    fn three_nullable_spellings() {
        let n = norm(json!({"type": "object", "properties": {
            "a": {"anyOf": [{"type": "null"}, {"type": "string"}]},
            "b": {"type": ["string", "null"]},
            "c": {"type": "string", "default": null},
            "d": {"oneOf": [{"type": "integer"}, {"const": null}]}
        }}));
        let p = &n.root["properties"];
        assert_eq!(
            p["a"],
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
        );
        assert_eq!(p["b"], json!({"type": ["string", "null"]}));
        assert_eq!(p["c"], json!({"type": "string"}));
        assert_eq!(p["d"]["anyOf"][1], json!({"type": "null"}));
        let expected: BTreeSet<String> = ["a", "b", "d"].iter().map(|s| s.to_string()).collect();
        assert_eq!(n.nullable_optional, expected);
    }

    #[test]
    fn unions_with_an_unconstrained_branch_become_json() {
        let n = norm(json!({"type": "object", "properties": {
            "a": {"anyOf": [{"type": "integer"}, {}]},
            "b": {"oneOf": [{"type": "string"}, {"description": "anything"}]},
            "c": {"anyOf": [{"type": "integer"}, {"type": "string"}]}
        }}));
        let p = &n.root["properties"];
        assert!(p["a"].get("anyOf").is_none() && p["b"].get("oneOf").is_none());
        assert!(p["c"].get("oneOf").is_some(), "constrained unions stay");
        assert!(
            n.warnings
                .iter()
                .any(|w| w.contains("`anyOf` with an unconstrained branch")),
            "{:?}",
            n.warnings
        );
    }

    #[test]
    fn untyped_not_is_dropped_typed_not_kept() {
        let n = norm(json!({"type": "object", "properties": {
            "a": {"not": {"type": "string", "enum": ["x"]}},
            "b": {"type": "string", "not": {"enum": ["x"]}}
        }}));
        assert!(n.root["properties"]["a"].get("not").is_none());
        assert!(n.root["properties"]["b"].get("not").is_some());
        assert!(
            n.warnings
                .iter()
                .any(|w| w.starts_with("`not` without a `type` dropped"))
        );
    }
}
