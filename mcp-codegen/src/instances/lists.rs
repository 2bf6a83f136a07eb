//! Lists of variants: interleaved, deduplicated, and objects combined across lists.

use serde_json::Value;

/// Objects matching several `anyOf` branches at once: one with the properties of the first
/// object instance of each branch's list, and one with those of the largest (every property
/// each branch declares: where a branch that accepts any object would swallow the others'),
/// each when at least two lists have an object and no property is given two different
/// values.
///
/// `anyOf` needs one branch to accept the whole: a combination is kept only when some
/// branch is open (no `additionalProperties` but `true`, nothing else that limits keys) and
/// every property it declares comes from its own instance, so the keys the others add are
/// ones it does not constrain.
pub(super) fn combine_objects(branches: &[Value], lists: &[Vec<Value>]) -> Vec<Value> {
    let first = combine(branches, lists, |list| list.iter().find(|v| v.is_object()));
    let largest = combine(branches, lists, |list| {
        list.iter()
            .filter_map(|v| v.as_object().map(|o| (o.len(), v)))
            .fold(None, |best: Option<(usize, &Value)>, (n, v)| match best {
                Some((m, _)) if m >= n => best,
                _ => Some((n, v)),
            })
            .map(|(_, v)| v)
    });
    let mut out: Vec<Value> = first.into_iter().collect();
    if let Some(l) = largest
        && !out.contains(&l)
    {
        out.push(l);
    }
    out
}

fn combine(
    branches: &[Value],
    lists: &[Vec<Value>],
    pick: impl Fn(&[Value]) -> Option<&Value>,
) -> Option<Value> {
    let mut combined = serde_json::Map::new();
    let mut picked: Vec<Option<&serde_json::Map<String, Value>>> = Vec::with_capacity(lists.len());
    for list in lists {
        let Some(Value::Object(obj)) = pick(list) else {
            picked.push(None);
            continue;
        };
        for (k, v) in obj {
            match combined.get(k) {
                Some(existing) if existing != v => return None,
                _ => {
                    combined.insert(k.clone(), v.clone());
                }
            }
        }
        picked.push(Some(obj));
    }
    if picked.iter().flatten().count() < 2 {
        return None;
    }
    let accepted = branches.iter().zip(&picked).any(|(branch, own)| {
        let Some(own) = own else {
            return false;
        };
        open_object(branch)
            && combined.keys().all(|k| {
                own.contains_key(k)
                    || !branch
                        .get("properties")
                        .and_then(Value::as_object)
                        .is_some_and(|p| p.contains_key(k))
            })
    });
    accepted.then_some(Value::Object(combined))
}

/// An object schema that takes any key it does not declare, with any value.
fn open_object(schema: &Value) -> bool {
    let Some(obj) = schema.as_object() else {
        return false;
    };
    let limiting = [
        "patternProperties",
        "propertyNames",
        "unevaluatedProperties",
        "maxProperties",
        "dependentSchemas",
        "dependentRequired",
        "not",
        "if",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
    ];
    obj.get("type").is_none_or(|t| t == "object")
        && obj
            .get("additionalProperties")
            .is_none_or(|a| a == &Value::Bool(true) || a == &serde_json::json!({}))
        && !limiting.iter().any(|k| obj.contains_key(*k))
}

/// Each list's first values first, then their seconds, … (at most `max`).
pub(super) fn interleave(lists: Vec<Vec<Value>>, max: usize) -> Vec<Value> {
    let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = Vec::new();
    for i in 0..longest {
        for l in &lists {
            if let Some(v) = l.get(i) {
                out.push(v.clone());
            }
        }
    }
    dedupe(&mut out);
    out.truncate(max);
    out
}

pub(super) fn dedupe(values: &mut Vec<Value>) {
    let mut seen: Vec<Value> = Vec::with_capacity(values.len());
    values.retain(|v| {
        if seen.contains(v) {
            false
        } else {
            seen.push(v.clone());
            true
        }
    });
}
