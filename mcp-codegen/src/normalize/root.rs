//! Root-level steps: whether the arguments are an object, take none, or have optional
//! properties that accept `null`; the `types` and `rename` options.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::{Ctx, Problem};
use crate::naming::typify_sanitize;

/// Whether a root schema describes a JSON object (or leaves the type open).
pub(super) fn is_object_like(root: &Value) -> bool {
    match root.get("type") {
        None => true,
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        Some(_) => false,
    }
}

/// A root object without properties, typed extra properties or composition: the tool
/// takes no arguments.
pub(crate) fn is_empty_object(root: &Value) -> bool {
    let Some(obj) = root.as_object() else {
        return true;
    };
    let no_props = match obj.get("properties") {
        None => true,
        Some(Value::Object(p)) => p.is_empty(),
        Some(_) => true,
    };
    let typed_extra =
        matches!(obj.get("additionalProperties"), Some(Value::Object(m)) if !m.is_empty());
    let composed = ["anyOf", "oneOf", "allOf", "$ref", "not", "enum"]
        .iter()
        .any(|k| obj.contains_key(*k));
    no_props && !typed_extra && !composed
}

/// Optional top-level properties whose schema accepts `null`.
pub(crate) fn nullable_optional(root: &Value) -> BTreeSet<String> {
    let required: BTreeSet<&str> = match root.get("required") {
        Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
        _ => BTreeSet::new(),
    };
    let mut out = BTreeSet::new();
    if let Some(Value::Object(props)) = root.get("properties") {
        for (name, schema) in props {
            if !required.contains(name.as_str()) && crate::schema::accepts_null(schema) {
                out.insert(name.clone());
            }
        }
    }
    out
}

/// `types` option: each named top-level property becomes a definition that typify replaces
/// by the given Rust type.
pub(super) fn apply_types(
    root: &mut Value,
    defs: &mut BTreeMap<String, Value>,
    replacements: &mut BTreeMap<String, String>,
    types: &BTreeMap<String, String>,
) -> Result<(), Problem> {
    for (property, rust_type) in types {
        let Some(Value::Object(props)) = root.get_mut("properties") else {
            return Err(Problem::BadOption {
                option: "types",
                property: property.clone(),
                message: format!("no argument \"{property}\""),
            });
        };
        let Some(schema) = props.get_mut(property) else {
            return Err(Problem::BadOption {
                option: "types",
                property: property.clone(),
                message: format!("no argument \"{property}\""),
            });
        };
        let base = format!("{}Override", typify_sanitize(property, true));
        let mut name = base.clone();
        let mut n = 2;
        while defs.contains_key(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        let description = schema.get("description").cloned();
        let original = std::mem::replace(schema, json!({ "$ref": format!("#/$defs/{name}") }));
        if let (Some(d), Some(obj)) = (description, schema.as_object_mut()) {
            obj.insert("description".into(), d);
        }
        defs.insert(name.clone(), original);
        replacements.insert(name, rust_type.clone());
    }
    Ok(())
}

/// `rename` option: each named top-level property gets a placeholder key whose field name
/// is the requested one; the placeholder is restored to the JSON name after typify.
pub(super) fn apply_renames(
    root: &mut Value,
    ctx: &mut Ctx,
    renames: &BTreeMap<String, String>,
) -> Result<(), Problem> {
    for (property, field) in renames {
        if !crate::naming::is_plain_ident(field) || typify_sanitize(field, false) != *field {
            return Err(Problem::BadOption {
                option: "rename",
                property: property.clone(),
                message: format!(
                    "rename target \"{field}\" for argument \"{property}\" must be a snake_case Rust identifier (not a keyword)"
                ),
            });
        }
        let Some(Value::Object(props)) = root.get_mut("properties") else {
            return Err(Problem::BadOption {
                option: "rename",
                property: property.clone(),
                message: format!("no argument \"{property}\""),
            });
        };
        let Some(schema) = props.remove(property) else {
            return Err(Problem::BadOption {
                option: "rename",
                property: property.clone(),
                message: format!("no argument \"{property}\""),
            });
        };
        let key = ctx.placeholder(field, property);
        props.insert(key.clone(), schema);
        if let Some(Value::Array(required)) = root.get_mut("required") {
            for r in required.iter_mut() {
                if r == property.as_str() {
                    *r = Value::String(key.clone());
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::tests::norm;
    use crate::normalize::{Request, Role, normalize};

    #[test]
    fn snake_case_collisions_get_distinct_fields() {
        let s = json!({"type": "object", "properties": {"fooBar": {"type": "string"}, "foo_bar": {"type": "string"}}});
        let n = normalize(&s, Role::Input, &Request::default()).expect("resolved");
        let fields: BTreeSet<String> = n.root["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(|k| typify_sanitize(k, false))
            .collect();
        assert_eq!(
            fields,
            ["foo_bar", "foo_bar_camel"].map(String::from).into()
        );
        assert_eq!(n.renamed.len(), 1, "{:?}", n.renamed);
        // A rename onto the taken field is the caller's collision.
        let mut req = Request::default();
        req.renames.insert("fooBar".into(), "foo_bar".into());
        assert_eq!(
            normalize(&s, Role::Input, &req).unwrap_err(),
            Problem::Collision {
                pointer: String::new(),
                first: "fooBar".into(),
                second: "foo_bar".into(),
                field: "foo_bar".into()
            }
        );
        // A rename chooses the name.
        let mut req = Request::default();
        req.renames.insert("fooBar".into(), "foo_bar_camel".into());
        let n = normalize(&s, Role::Input, &req).unwrap();
        let key = n.root["properties"]
            .as_object()
            .unwrap()
            .keys()
            .find(|k| k.starts_with('\''))
            .unwrap()
            .clone();
        assert_eq!(typify_sanitize(&key, false), "foo_bar_camel");
        assert_eq!(n.literals[&key], "fooBar");
        // Nested ones too, whatever the order of the properties.
        for nested in [
            json!({"type": "object", "properties": {"o": {"type": "object", "properties": {"aB": {}, "a_b": {}, "A-B": {}}}}}),
            json!({"type": "object", "properties": {"o": {"type": "object", "properties": {"A-B": {}, "a_b": {}, "aB": {}}}}}),
        ] {
            let n = normalize(&nested, Role::Input, &Request::default()).expect("resolved");
            let fields: BTreeSet<String> = n.root["properties"]["o"]["properties"]
                .as_object()
                .unwrap()
                .keys()
                .map(|k| typify_sanitize(k, false))
                .collect();
            assert_eq!(
                fields,
                ["a_b", "a_b_camel", "a_b_kebab"].map(String::from).into()
            );
        }
    }

    #[test]
    fn no_argument_tools() {
        assert!(norm(json!({"type": "object"})).no_args);
        assert!(norm(json!({"type": "object", "properties": {}})).no_args);
        // A schema that declares nothing (a failed conversion, often) allows any arguments.
        for free in [
            json!({}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#"}),
        ] {
            let n = norm(free);
            assert!(n.free_form && !n.no_args);
        }
        assert!(
            norm(json!({"type": "object", "properties": {}, "additionalProperties": false}))
                .no_args
        );
        assert!(
            !norm(json!({"type": "object", "additionalProperties": {"type": "string"}})).no_args
        );
        assert!(!norm(json!({"type": "object", "properties": {"a": {}}})).no_args);
        let err =
            normalize(&json!({"type": "string"}), Role::Input, &Request::default()).unwrap_err();
        assert!(matches!(err, Problem::Fallback(_)));
    }

    #[test]
    fn type_overrides_become_replaced_definitions() {
        let s = json!({"type": "object", "properties": {"n": {"type": "number", "description": "count"}}});
        let mut req = Request::default();
        req.types.insert("n".into(), "u64".into());
        let n = normalize(&s, Role::Input, &req).unwrap();
        assert_eq!(n.root["properties"]["n"]["$ref"], "#/$defs/NOverride");
        assert_eq!(n.replacements["NOverride"], "u64");
        assert_eq!(n.defs["NOverride"]["type"], "number");
        req.types.insert("missing".into(), "u64".into());
        assert!(matches!(
            normalize(&s, Role::Input, &req),
            Err(Problem::BadOption { .. })
        ));
    }
}
