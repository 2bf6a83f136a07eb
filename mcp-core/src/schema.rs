//! JSON-Schema plumbing shared by every part of mcp-bindgen that reads schemas: the
//! normalizer, union shaping, the instance generator and the oracle, the drift classifier,
//! the OpenAI export and the runtime's argument validator. JSON pointers and same-document
//! `$ref`s, value kinds, and cutting text for messages.

use serde_json::Value;

mod disjoint;
mod nesting;
mod wellformed;
pub use disjoint::{allowed_values, branches_disjoint, type_names};
pub use nesting::{MAX_NESTING, TooDeep, too_deep};
pub use wellformed::malformed;

/// Keywords that do not constrain values: annotations, identifiers, definitions and `x-…`
/// extensions.
pub fn is_annotation(key: &str) -> bool {
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
pub fn free_form_arguments(schema: &Value) -> bool {
    let Some(obj) = schema.as_object() else {
        return schema == &Value::Bool(true);
    };
    if obj.keys().all(|k| is_annotation(k)) {
        return true;
    }
    let no_properties = obj
        .get("properties")
        .is_none_or(|p| p.as_object().is_some_and(serde_json::Map::is_empty));
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
pub const MAP_KEYWORDS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
/// Keywords whose value is one schema.
pub const ONE_KEYWORDS: &[&str] = &[
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
pub const LIST_KEYWORDS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

/// Calls `f(pointer_suffix, subschema)` for every direct subschema of `schema`.
pub fn for_each_child<'a>(schema: &'a Value, f: &mut dyn FnMut(String, &'a Value)) {
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

/// JSON-pointer escaping of one segment (`a/b` → `a~1b`).
pub fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// The inverse of [`escape`] (`a~1b` → `a/b`).
pub fn unescape(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

/// Decodes the `%XX` escapes of a URI fragment (invalid escapes are kept as they are).
pub fn percent_decode(s: &str) -> String {
    fn hex(b: u8) -> Option<u8> {
        (b as char).to_digit(16).and_then(|d| u8::try_from(d).ok())
    }
    if !s.contains('%') {
        return s.to_string();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The names an object schema's `required` lists (none when it lists none).
pub fn required_names(obj: &serde_json::Map<String, Value>) -> Vec<&str> {
    obj.get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// Whether a schema is `null` and nothing else: `{"type": "null"}`, `{"const": null}`,
/// `{"enum": [null]}`.
pub fn is_null_schema(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("null")
        || v.get("const").is_some_and(Value::is_null)
        || matches!(v.get("enum"), Some(Value::Array(a)) if a.len() == 1 && a[0].is_null())
}

/// Whether a schema allows `null` beside other values by its own words: `null` among its
/// `type`s, a `null` branch of `anyOf`/`oneOf`, `null` among its `enum` values, or OpenAPI's
/// `nullable: true` (what becomes an `Option` in Rust).
pub fn accepts_null(schema: &Value) -> bool {
    matches!(schema.get("type"), Some(Value::Array(ts)) if ts.iter().any(|t| t == "null"))
        || schema.get("nullable") == Some(&Value::Bool(true))
        || ["anyOf", "oneOf"].iter().any(|k| {
            matches!(schema.get(*k), Some(Value::Array(list)) if list.iter().any(is_null_schema))
        })
        || matches!(schema.get("enum"), Some(Value::Array(vals)) if vals.iter().any(Value::is_null))
}

/// A `#…` reference written as a JSON pointer (`#`, `#/$defs/Item`, percent escapes
/// decoded), as that pointer; `None` for anchors (`#item`) and other documents.
pub fn local_pointer(reference: &str) -> Option<String> {
    let fragment = percent_decode(reference.strip_prefix('#')?);
    (fragment.is_empty() || fragment.starts_with('/')).then_some(fragment)
}

/// The JSON pointer a same-document `$ref` designates in `root`: `""` or `#` (the
/// document), a JSON pointer (`#/$defs/Item`, percent escapes decoded: `#/%24defs/Item`) or
/// an anchor name (`#item`: `$anchor`, or draft-07's `$id: "#item"`). `None` for other
/// references and for targets that do not exist.
pub fn ref_pointer(root: &Value, reference: &str) -> Option<String> {
    if reference.is_empty() {
        return Some(String::new());
    }
    let fragment = percent_decode(reference.strip_prefix('#')?);
    if fragment.is_empty() || fragment.starts_with('/') {
        return root.pointer(&fragment).map(|_| fragment);
    }
    find_anchor(root, &fragment)
}

/// The schema a same-document `$ref` designates (see [`ref_pointer`]).
pub fn resolve_local<'v>(root: &'v Value, reference: &str) -> Option<&'v Value> {
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
pub fn same_value_cycle(root: &Value) -> Option<String> {
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

/// The JSON Schema type of a value: `null`, `boolean`, `integer` (whole numbers, `1.0`
/// included), `number`, `string`, `array` or `object`.
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// What a JSON value is, for messages: `null`, `a boolean`, `a number`, `a string`,
/// `an array`, `an object`.
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `s` cut to at most `max` characters, `…` marking the cut.
pub fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((end, _)) => format!("{}…", &s[..end]),
    }
}

/// The longest prefix of `s` of at most `max` bytes that ends on a character boundary.
pub fn prefix_bytes(s: &str, max: usize) -> &str {
    let mut end = max.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
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

#[cfg(test)]
mod plumbing_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointers_escape_and_decode() {
        assert_eq!(escape("a/b~c"), "a~1b~0c");
        assert_eq!(unescape("a~1b~0c"), "a/b~c");
        assert_eq!(percent_decode("%24defs/%7e%zz%2"), "$defs/~%zz%2");
        assert_eq!(local_pointer("#/%24defs/A").as_deref(), Some("/$defs/A"));
        assert_eq!(local_pointer("#").as_deref(), Some(""));
        assert_eq!(local_pointer("#anchor"), None);
        assert_eq!(local_pointer("other.json#/a"), None);
    }

    #[test]
    fn kinds_of_values() {
        assert_eq!(json_type(&json!(1.0)), "integer");
        assert_eq!(json_type(&json!(1.5)), "number");
        assert_eq!(json_type(&json!(null)), "null");
        assert_eq!(json_kind(&json!([])), "an array");
        assert_eq!(json_kind(&json!({})), "an object");
    }

    #[test]
    fn cuts_fall_on_characters() {
        assert_eq!(truncate("héllo", 2), "hé…");
        assert_eq!(truncate("hé", 2), "hé");
        assert_eq!(prefix_bytes("hé", 2), "h");
        assert_eq!(prefix_bytes("hé", 9), "hé");
    }
}
