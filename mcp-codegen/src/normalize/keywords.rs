//! Keywords typify mishandles: dropped silently or with a warning, `title` and `default`
//! turned into documentation, constraints next to a `$ref` trimmed.

use serde_json::{Map, Value};

use super::Ctx;

/// Keywords removed without a note (annotations or constraints left to the server).
const SILENT_DROP: &[&str] = &[
    "$schema",
    "$id",
    "$anchor",
    "$comment",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "format",
    "pattern",
    "patternProperties",
    "propertyNames",
    "minLength",
    "maxLength",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "exclusiveMaximum",
    "maximum",
    "$vocabulary",
    "dependentRequired",
];
/// Keywords removed with a warning: the constraint is real but the types cannot carry it.
const WARN_DROP: &[(&str, &str)] = &[
    (
        "if",
        "conditional schema (if/then/else) dropped; the condition is not checked by the generated types",
    ),
    (
        "then",
        "conditional schema (if/then/else) dropped; the condition is not checked by the generated types",
    ),
    (
        "else",
        "conditional schema (if/then/else) dropped; the condition is not checked by the generated types",
    ),
    (
        "prefixItems",
        "prefixItems (tuple positions) dropped; items are typed as JSON values",
    ),
    (
        "$dynamicRef",
        "$dynamicRef is not supported; the value is typed as any JSON",
    ),
    ("$dynamicAnchor", "$dynamicAnchor ignored"),
    (
        "$recursiveRef",
        "$recursiveRef is not supported; the value is typed as any JSON",
    ),
    ("$recursiveAnchor", "$recursiveAnchor ignored"),
    (
        "unevaluatedProperties",
        "unevaluatedProperties dropped; not checked by the generated types",
    ),
    (
        "unevaluatedItems",
        "unevaluatedItems dropped; not checked by the generated types",
    ),
    (
        "dependentSchemas",
        "dependentSchemas dropped; not checked by the generated types",
    ),
    (
        "dependencies",
        "dependencies dropped; not checked by the generated types",
    ),
];

/// Drops keywords typify mishandles (see [`SILENT_DROP`], [`WARN_DROP`], `x-*`).
pub(super) fn drop_keywords(obj: &mut Map<String, Value>, at: &str, ctx: &mut Ctx) {
    // Most nodes have none of them: one pass over the node's few keys says so.
    let droppable = |k: &str| {
        k.starts_with("x-") || SILENT_DROP.contains(&k) || WARN_DROP.iter().any(|(w, _)| *w == k)
    };
    if !obj.keys().any(|k| droppable(k)) {
        return;
    }
    for key in SILENT_DROP {
        obj.remove(*key);
    }
    // `exclusiveMinimum` is needed by the integer step; it removes it.
    obj.retain(|k, _| !k.starts_with("x-"));
    for (key, message) in WARN_DROP {
        if obj.remove(*key).is_some() {
            ctx.warn(at, (*message).to_string());
        }
    }
}

/// `title` → description (typify would name types after it), `default` → documented and
/// removed (the server applies it; typify would make the field mandatory).
pub(super) fn annotations_to_docs(obj: &mut Map<String, Value>, is_root: bool) {
    if let Some(Value::String(title)) = obj.remove("title")
        && !is_root
        && !obj.contains_key("description")
        && !title.trim().is_empty()
    {
        obj.insert("description".into(), Value::String(title));
    }
    if let Some(default) = obj.remove("default")
        && !default.is_null()
    {
        let note = format!("Default: `{default}`.");
        let description = match obj.get("description").and_then(Value::as_str) {
            Some(d) if !d.trim().is_empty() => format!("{}\n\n{note}", d.trim_end()),
            _ => note,
        };
        obj.insert("description".into(), Value::String(description));
    }
}

/// `$ref` with sibling constraints: keep the reference and its description only.
pub(super) fn ref_siblings(obj: &mut Map<String, Value>, at: &str, ctx: &mut Ctx) {
    if !obj.contains_key("$ref") {
        return;
    }
    let extra: Vec<String> = obj
        .keys()
        .filter(|k| !["$ref", "description"].contains(&k.as_str()))
        .cloned()
        .collect();
    if !extra.is_empty() {
        ctx.warn(
            at,
            format!("keywords next to $ref dropped: {}", extra.join(", ")),
        );
        obj.retain(|k, _| k == "$ref" || k == "description");
    }
}

#[cfg(test)]
mod tests {
    use crate::normalize::tests::norm;
    use serde_json::json;

    #[test]
    fn unsupported_keywords_are_dropped_with_warnings() {
        let n = norm(json!({"type": "object", "properties": {
            "a": {"type": "string", "if": {"minLength": 1}, "then": {}, "else": {}},
            "b": {"type": "array", "prefixItems": [{"type": "string"}]},
            "c": {"$dynamicRef": "#meta"},
            "d": {"type": "object", "unevaluatedProperties": false, "properties": {}}
        }}));
        let p = &n.root["properties"];
        assert!(p["a"].get("if").is_none() && p["a"].get("then").is_none());
        assert!(p["b"].get("prefixItems").is_none());
        assert_eq!(p["c"], json!({}));
        assert!(p["d"].get("unevaluatedProperties").is_none());
        let all = n.warnings.join("\n");
        for needle in [
            "if/then/else",
            "prefixItems",
            "$dynamicRef",
            "unevaluatedProperties",
            "/properties/a",
        ] {
            assert!(all.contains(needle), "{needle} in {all}");
        }
        assert_eq!(
            n.warnings
                .iter()
                .filter(|w| w.contains("if/then/else"))
                .count(),
            1
        );
    }

    #[test]
    fn defaults_and_titles_become_docs() {
        let n = norm(json!({"title": "Root", "type": "object", "properties": {
            "a": {"type": "integer", "default": 30, "description": "Page size"},
            "b": {"type": "string", "title": "Bee"}
        }}));
        assert!(n.root.get("title").is_none());
        assert_eq!(
            n.root["properties"]["a"]["description"],
            "Page size\n\nDefault: `30`."
        );
        assert_eq!(
            n.root["properties"]["b"],
            json!({"type": "string", "description": "Bee"})
        );
    }

    #[test]
    fn single_all_of_is_inlined_and_ref_siblings_trimmed() {
        let n = norm(json!({"type": "object", "properties": {
            "a": {"allOf": [{"$ref": "#/$defs/X"}], "description": "an x"},
            "b": {"$ref": "#/$defs/X", "type": "string", "description": "b"}
        }, "$defs": {"X": {"type": "string"}}}));
        assert_eq!(
            n.root["properties"]["a"],
            json!({"$ref": "#/$defs/X", "description": "an x"})
        );
        assert_eq!(
            n.root["properties"]["b"],
            json!({"$ref": "#/$defs/X", "description": "b"})
        );
        assert!(
            n.warnings
                .iter()
                .any(|w| w.contains("next to $ref dropped: type")),
            "{:?}",
            n.warnings
        );
    }

    #[test]
    fn extension_keywords_are_removed() {
        let n = norm(
            json!({"type": "object", "properties": {"a": {"type": "string", "x-rust-type": {"crate": "evil"}}}}),
        );
        assert_eq!(n.root["properties"]["a"], json!({"type": "string"}));
    }
}
