//! Schema helpers: values of every type, whether a value has a schema's type, the type a
//! schema implies, and two schemas merged into one.

use serde_json::{Map, Value, json};

use super::TEXT;

/// Values of every type, for `{}` and `true`.
pub(super) fn any_values() -> Vec<Value> {
    vec![
        json!(TEXT),
        json!(1),
        json!(true),
        Value::Null,
        json!({"k": "v"}),
        json!([1, "a"]),
        json!(2.5),
    ]
}

/// Whether `value` has one of the schema's `type`s (any value when it has none).
pub(super) fn type_allows(obj: &Map<String, Value>, value: &Value) -> bool {
    let allows = |t: &str| match (t, value) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("number", Value::Number(_))
        | ("string", Value::String(_))
        | ("array", Value::Array(_))
        | ("object", Value::Object(_)) => true,
        ("integer", Value::Number(n)) => n.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => false,
    };
    match obj.get("type") {
        Some(Value::String(t)) => allows(t),
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).any(allows),
        _ => true,
    }
}

/// The type a schema without `type` implies by its keywords.
pub(super) fn infer_type(obj: &Map<String, Value>) -> Option<&'static str> {
    let has = |keys: &[&str]| keys.iter().any(|k| obj.contains_key(*k));
    if has(&[
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
    ]) {
        Some("object")
    } else if has(&["items", "prefixItems", "minItems", "maxItems"]) {
        Some("array")
    } else if has(&["minLength", "maxLength", "pattern", "format"]) {
        Some("string")
    } else if has(&[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ]) {
        Some("number")
    } else {
        None
    }
}

/// `a` and `b` as one schema: properties and `required` united, `type` intersected, other
/// keywords of `b` over `a`'s.
pub(super) fn merge(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Bool(false), _) | (_, Value::Bool(false)) => return Value::Bool(false),
        (Value::Bool(true), _) => return b.clone(),
        (_, Value::Bool(true)) => return a.clone(),
        _ => {}
    }
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return if b.is_object() { b.clone() } else { a.clone() };
    };
    let mut out = a.clone();
    for (k, v) in b {
        match (k.as_str(), out.get_mut(k)) {
            ("properties", Some(Value::Object(mine))) => {
                if let Value::Object(theirs) = v {
                    for (name, s) in theirs {
                        let merged = match mine.get(name) {
                            Some(existing) => merge(existing, s),
                            None => s.clone(),
                        };
                        mine.insert(name.clone(), merged);
                    }
                }
            }
            ("required", Some(Value::Array(mine))) => {
                if let Value::Array(theirs) = v {
                    for r in theirs {
                        if !mine.contains(r) {
                            mine.push(r.clone());
                        }
                    }
                }
            }
            ("type", Some(mine)) => {
                let set = |t: &Value| -> Vec<String> {
                    match t {
                        Value::String(s) => vec![s.clone()],
                        Value::Array(a) => a
                            .iter()
                            .filter_map(|x| x.as_str().map(String::from))
                            .collect(),
                        _ => Vec::new(),
                    }
                };
                let (x, y) = (set(mine), set(v));
                let mut both: Vec<String> = x
                    .iter()
                    .filter(|t| {
                        y.contains(t)
                            || (t.as_str() == "number" && y.iter().any(|u| u == "integer"))
                    })
                    .map(|t| {
                        if t == "number" && y.iter().any(|u| u == "integer") {
                            "integer".to_string()
                        } else {
                            t.clone()
                        }
                    })
                    .collect();
                both.extend(
                    y.iter()
                        .filter(|t| t.as_str() == "integer" && x.iter().any(|u| u == "number"))
                        .cloned(),
                );
                both.dedup();
                *mine = match both.len() {
                    1 => Value::String(both.remove(0)),
                    _ => Value::Array(both.into_iter().map(Value::String).collect()),
                };
            }
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    Value::Object(out)
}
