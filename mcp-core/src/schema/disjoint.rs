//! Whether two schemas can match one value: the rule the drift classifier uses to tell an
//! `anyOf` from a `oneOf`, and the OpenAI export to know when writing a `oneOf` as `anyOf`
//! changes nothing.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

/// A value's key in a set of allowed values: its compact JSON, object keys sorted.
fn key(v: &Value) -> String {
    serde_json::to_string(&crate::fixture::sort_keys(v)).unwrap_or_default()
}

/// The names in a `type` keyword (a string or an array of strings).
pub fn type_names(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::String(s) => Some(vec![s.clone()]),
        Value::Array(items) => items
            .iter()
            .map(|t| t.as_str().map(str::to_string))
            .collect(),
        _ => None,
    }
}

/// The allowed values of `enum`/`const`, keyed by their canonical JSON.
pub fn allowed_values(m: &Map<String, Value>) -> Option<BTreeMap<String, Value>> {
    let set = |values: &[Value]| -> BTreeMap<String, Value> {
        values.iter().map(|v| (key(v), v.clone())).collect()
    };
    let from_enum = m.get("enum").map(|e| match e {
        Value::Array(values) => set(values),
        other => set(std::slice::from_ref(other)),
    });
    match (from_enum, m.get("const")) {
        (None, None) => None,
        (Some(e), None) => Some(e),
        (None, Some(c)) => Some(set(std::slice::from_ref(c))),
        (Some(e), Some(c)) => {
            let wanted = key(c);
            Some(e.into_iter().filter(|(k, _)| *k == wanted).collect())
        }
    }
}

/// True when no value can match both branches (both already prepared): different types,
/// different allowed values, or a property both require with different allowed values.
pub fn branches_disjoint(p: &Map<String, Value>, q: &Map<String, Value>) -> bool {
    let exact = |m: &Map<String, Value>| -> Option<BTreeSet<String>> {
        m.get("type")
            .and_then(type_names)
            .map(|t| t.into_iter().collect())
    };
    if let (Some(x), Some(y)) = (exact(p), exact(q))
        && !x.iter().any(|t| y.contains(t))
        && !(x.contains("integer") && y.contains("number"))
        && !(x.contains("number") && y.contains("integer"))
    {
        return true;
    }
    if let (Some(x), Some(y)) = (allowed_values(p), allowed_values(q))
        && x.keys().all(|k| !y.contains_key(k))
    {
        return true;
    }
    let required = |m: &'_ Map<String, Value>| -> BTreeSet<String> {
        super::required_names(m)
            .into_iter()
            .map(str::to_string)
            .collect()
    };
    let (Some(pp), Some(qp)) = (
        p.get("properties").and_then(Value::as_object),
        q.get("properties").and_then(Value::as_object),
    ) else {
        return false;
    };
    let both = required(p);
    let rq = required(q);
    both.intersection(&rq).any(|name| {
        let values = |props: &Map<String, Value>| {
            props
                .get(name)
                .and_then(Value::as_object)
                .and_then(allowed_values)
        };
        matches!((values(pp), values(qp)), (Some(x), Some(y)) if x.keys().all(|k| !y.contains_key(k)))
    })
}
