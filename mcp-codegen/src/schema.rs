//! JSON-Schema facts shared by the normalizer, the union shaping, the instance generator
//! and the oracle.

use serde_json::{Map, Value};

/// Keywords that do not constrain values: annotations, identifiers, definitions and `x-…`
/// extensions.
pub(crate) fn is_annotation(key: &str) -> bool {
    key.starts_with("x-")
        || matches!(
            key,
            "description"
                | "title"
                | "default"
                | "examples"
                | "$comment"
                | "deprecated"
                | "readOnly"
                | "writeOnly"
                | "$schema"
                | "$id"
                | "$defs"
                | "definitions"
                | "markdownDescription"
        )
}

/// Whether a tool's `inputSchema` leaves its arguments free-form: it declares nothing (`{}`,
/// `true`, only annotations such as `$schema` — what a server whose schema conversion failed
/// sends), or it is an object without properties that explicitly allows any
/// (`additionalProperties: true` or `{}`). The arguments are then any JSON object. An object
/// without properties and without `additionalProperties` is the usual way to declare *no*
/// arguments and is not free-form.
pub(crate) fn free_form_arguments(schema: &Value) -> bool {
    let Some(obj) = schema.as_object() else {
        return schema == &Value::Bool(true);
    };
    if obj.keys().all(|k| is_annotation(k)) {
        return true;
    }
    let no_properties = obj
        .get("properties")
        .is_none_or(|p| p.as_object().is_some_and(Map::is_empty));
    let open = matches!(obj.get("additionalProperties"), Some(Value::Bool(true)))
        || matches!(obj.get("additionalProperties"), Some(Value::Object(m)) if m.keys().all(|k| is_annotation(k)));
    let structural = [
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
        "not",
        "enum",
        "const",
        "patternProperties",
    ];
    obj.get("type").is_none_or(|t| t == "object")
        && no_properties
        && open
        && !structural.iter().any(|k| obj.contains_key(*k))
}

/// Keywords whose value is a map of name → schema.
pub(crate) const MAP_KEYWORDS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
/// Keywords whose value is one schema.
pub(crate) const ONE_KEYWORDS: &[&str] = &[
    "additionalProperties",
    "additionalItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
];
/// Keywords whose value is a list of schemas.
pub(crate) const LIST_KEYWORDS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

/// Calls `f(pointer_suffix, subschema)` for every direct subschema of `schema`.
pub(crate) fn for_each_child<'a>(schema: &'a Value, f: &mut dyn FnMut(String, &'a Value)) {
    let Some(obj) = schema.as_object() else {
        return;
    };
    for (key, value) in obj {
        let k = key.as_str();
        if MAP_KEYWORDS.contains(&k) {
            if let Some(map) = value.as_object() {
                for (name, sub) in map {
                    f(format!("/{}/{}", escape(k), escape(name)), sub);
                }
            }
        } else if ONE_KEYWORDS.contains(&k) || (k == "items" && !value.is_array()) {
            f(format!("/{}", escape(k)), value);
        } else if (LIST_KEYWORDS.contains(&k) || k == "items")
            && let Some(list) = value.as_array()
        {
            for (i, sub) in list.iter().enumerate() {
                f(format!("/{k}/{i}"), sub);
            }
        }
    }
}

/// JSON-pointer escaping of one segment.
pub(crate) fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// The JSON pointer a same-document `$ref` designates in `root`: `""` or `#` (the
/// document), a JSON pointer (`#/$defs/Item`, percent escapes decoded: `#/%24defs/Item`) or
/// an anchor name (`#item`: `$anchor`, or draft-07's `$id: "#item"`). `None` for other
/// references and for targets that do not exist.
pub(crate) fn ref_pointer(root: &Value, reference: &str) -> Option<String> {
    if reference.is_empty() {
        return Some(String::new());
    }
    let fragment = crate::openai::percent_decode(reference.strip_prefix('#')?);
    if fragment.is_empty() || fragment.starts_with('/') {
        return root.pointer(&fragment).map(|_| fragment);
    }
    find_anchor(root, &fragment)
}

/// The schema a same-document `$ref` designates (see [`ref_pointer`]).
#[cfg(feature = "oracle")]
pub(crate) fn resolve_local<'v>(root: &'v Value, reference: &str) -> Option<&'v Value> {
    root.pointer(&ref_pointer(root, reference)?)
}

/// The pointer of the subschema declaring `$anchor: name` (or draft-07 `$id: "#name"`).
fn find_anchor(schema: &Value, name: &str) -> Option<String> {
    fn go(v: &Value, at: String, name: &str, depth: usize) -> Option<String> {
        let hit = v.get("$anchor").and_then(Value::as_str) == Some(name)
            || v.get("$id").and_then(Value::as_str) == Some(&format!("#{name}"));
        if hit {
            return Some(at);
        }
        if depth > 64 {
            return None;
        }
        let mut found = None;
        for_each_child(v, &mut |suffix, sub| {
            if found.is_none() {
                found = go(sub, format!("{at}{suffix}"), name, depth + 1);
            }
        });
        found
    }
    go(schema, String::new(), name, 0)
}

/// A `$ref` cycle that never leaves the value being checked (`a: {anyOf: [{"$ref":
/// "#/properties/a"}, …]}`): the pointer of one schema on it. Such a schema constrains
/// nothing by its recursion and sends validators that expand references eagerly into
/// endless recursion.
#[cfg(feature = "oracle")]
pub(crate) fn same_value_cycle(root: &Value) -> Option<String> {
    // Edges that stay on the same value: `$ref`, the combinators, `not`, `if/then/else`.
    fn edges(root: &Value, at: &str) -> Vec<String> {
        let Some(node) = root.pointer(at) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if let Some(p) = node
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| ref_pointer(root, r))
        {
            out.push(p);
        }
        for_each_child(node, &mut |suffix, _| {
            let keyword = suffix.split('/').nth(1).unwrap_or("");
            if matches!(
                keyword,
                "allOf" | "anyOf" | "oneOf" | "not" | "if" | "then" | "else"
            ) {
                out.push(format!("{at}{suffix}"));
            }
        });
        out
    }
    fn all(v: &Value, at: String, out: &mut Vec<String>) {
        out.push(at.clone());
        for_each_child(v, &mut |suffix, sub| all(sub, format!("{at}{suffix}"), out));
    }
    let mut nodes = Vec::new();
    all(root, String::new(), &mut nodes);
    // Depth-first search with three colours: unseen, on the stack, done.
    let mut state: std::collections::HashMap<String, u8> = std::collections::HashMap::new();
    for start in nodes {
        if state.contains_key(&start) {
            continue;
        }
        let mut stack = vec![(start.clone(), edges(root, &start))];
        state.insert(start, 1);
        while let Some((at, next)) = stack.last_mut() {
            match next.pop() {
                Some(n) => match state.get(&n) {
                    Some(1) => return Some(n),
                    Some(_) => {}
                    None => {
                        state.insert(n.clone(), 1);
                        let e = edges(root, &n);
                        stack.push((n, e));
                    }
                },
                None => {
                    state.insert(at.clone(), 2);
                    stack.pop();
                }
            }
        }
    }
    None
}

#[cfg(all(test, feature = "oracle"))]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn free_form_arguments_are_told_from_no_arguments() {
        for free in [
            json!({}),
            json!(true),
            json!({"$schema": "http://json-schema.org/draft-07/schema#"}),
            json!({"title": "x", "description": "y"}),
            json!({"type": "object", "additionalProperties": true}),
            json!({"type": "object", "properties": {}, "additionalProperties": {}}),
        ] {
            assert!(free_form_arguments(&free), "{free}");
        }
        for not_free in [
            json!({"type": "object"}),
            json!({"type": "object", "properties": {}}),
            json!({"type": "object", "additionalProperties": false}),
            json!({"type": "object", "properties": {"a": {}}, "additionalProperties": true}),
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
            json!({"type": "string"}),
        ] {
            assert!(!free_form_arguments(&not_free), "{not_free}");
        }
    }

    #[test]
    fn same_value_cycles_are_found() {
        let looped = json!({"properties": {"a": {"anyOf": [{"type": "string"}, {"$ref": "#/properties/a"}]}}});
        assert!(same_value_cycle(&looped).is_some());
        let through_items = json!({"$defs": {"Node": {"type": "object", "properties": {
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}});
        assert_eq!(same_value_cycle(&through_items), None);
        let self_ref = json!({"allOf": [{"$ref": "#"}]});
        assert!(same_value_cycle(&self_ref).is_some());
    }

    #[test]
    fn local_references_resolve_by_pointer_escape_and_anchor() {
        let root = json!({"$defs": {"Item": {"type": "string"}, "a/b": {"$anchor": "ab", "type": "integer"}}});
        assert_eq!(resolve_local(&root, "#"), Some(&root));
        assert_eq!(
            resolve_local(&root, "#/$defs/Item"),
            Some(&json!({"type": "string"}))
        );
        assert_eq!(
            resolve_local(&root, "#/%24defs/Item"),
            Some(&json!({"type": "string"}))
        );
        assert_eq!(
            resolve_local(&root, "#/$defs/a~1b").map(|s| &s["type"]),
            Some(&json!("integer"))
        );
        assert_eq!(
            resolve_local(&root, "#ab").map(|s| &s["type"]),
            Some(&json!("integer"))
        );
        assert_eq!(resolve_local(&root, "#/$defs/Missing"), None);
        assert_eq!(resolve_local(&root, ""), Some(&root));
        assert_eq!(resolve_local(&root, "other.json#/x"), None);
    }
}
