//! Lists of variants: interleaved, deduplicated, and objects combined across lists.

use serde_json::Value;

/// Objects matching several lists' schemas at once: one with the properties of the first
/// object instance of each list, and one with those of the largest (every property each
/// branch declares: where a branch that accepts any object would swallow the others'), each
/// when at least two lists have an object and no property is given two different values.
pub(super) fn combine_objects(lists: &[Vec<Value>]) -> Vec<Value> {
    let first = combine(lists, |list| list.iter().find(|v| v.is_object()));
    let largest = combine(lists, |list| {
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

fn combine(lists: &[Vec<Value>], pick: impl Fn(&[Value]) -> Option<&Value>) -> Option<Value> {
    let mut combined = serde_json::Map::new();
    let mut parts = 0;
    for list in lists {
        let Some(Value::Object(obj)) = pick(list) else {
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
        parts += 1;
    }
    (parts >= 2).then_some(Value::Object(combined))
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
