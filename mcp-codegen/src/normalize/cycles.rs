//! Reference cycles typify cannot break: the tool falls back instead of typify recursing
//! forever.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::refs::all_refs;
use crate::schema::{LIST_KEYWORDS, MAP_KEYWORDS, ONE_KEYWORDS, for_each_child};

/// Finds a reference cycle typify cannot break: one that goes only through `$ref`,
/// `anyOf`/`oneOf`/`not`, or anywhere inside `allOf` (typify merges `allOf` members, which
/// resolves references eagerly). Cycles through object properties or array items are fine
/// (typify boxes them). Returns the cycle as `A → B → A`.
pub(crate) fn unboxed_cycle(
    root: &Value,
    defs: &BTreeMap<String, Value>,
    root_name: &str,
) -> Option<String> {
    fn edges(v: &Value, in_all_of: bool, out: &mut BTreeSet<String>) {
        if let Some(name) = v
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/$defs/"))
        {
            out.insert(name.to_string());
        }
        let Some(obj) = v.as_object() else { return };
        for (key, child) in obj {
            let k = key.as_str();
            let transparent = ["anyOf", "oneOf", "allOf", "not"].contains(&k);
            if !(transparent || in_all_of) {
                continue;
            }
            let deeper = in_all_of || k == "allOf";
            let mut visit = |sub: &Value| edges(sub, deeper, out);
            match child {
                Value::Array(list) if transparent || LIST_KEYWORDS.contains(&k) || k == "items" => {
                    list.iter().for_each(&mut visit)
                }
                Value::Object(map) if MAP_KEYWORDS.contains(&k) => {
                    map.values().for_each(&mut visit)
                }
                Value::Object(_) if transparent || ONE_KEYWORDS.contains(&k) || k == "items" => {
                    visit(child)
                }
                _ => {}
            }
        }
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut add = |name: &str, schema: &Value| {
        let mut out = BTreeSet::new();
        edges(schema, false, &mut out);
        graph.insert(name.to_string(), out);
    };
    add(root_name, root);
    for (name, def) in defs {
        add(name, def);
    }
    // Depth-first search with an explicit path.
    fn dfs(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<String> {
        if let Some(pos) = path.iter().position(|p| p == node) {
            let mut cycle: Vec<String> = path[pos..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle.join(" → "));
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = dfs(next, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        if let Some(c) = dfs(node, &graph, &mut Vec::new(), &mut done) {
            return Some(c);
        }
    }

    // An `allOf` anywhere in a definition that refers (deeply) back to that definition.
    fn all_refs_deep(v: &Value, out: &mut BTreeSet<String>) {
        for (_, r) in all_refs(v) {
            if let Some(name) = r.strip_prefix("#/$defs/") {
                out.insert(name.to_string());
            }
        }
    }
    fn merge_targets(v: &Value, out: &mut BTreeSet<String>) {
        if let Some(Value::Array(list)) = v.get("allOf") {
            list.iter().for_each(|m| all_refs_deep(m, out));
        }
        for_each_child(v, &mut |_, sub| merge_targets(sub, out));
    }
    let mut every: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut merges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, schema) in std::iter::once((root_name.to_string(), root))
        .chain(defs.iter().map(|(n, d)| (n.clone(), d)))
    {
        let mut e = BTreeSet::new();
        all_refs_deep(schema, &mut e);
        every.insert(name.clone(), e);
        let mut m = BTreeSet::new();
        merge_targets(schema, &mut m);
        merges.insert(name, m);
    }
    for (name, targets) in &merges {
        for target in targets {
            // Does `target` reach `name` (or is it `name`)?
            let mut seen = BTreeSet::new();
            let mut stack = vec![target.clone()];
            while let Some(n) = stack.pop() {
                if &n == name {
                    return Some(format!(
                        "{name} → allOf → {target}{}",
                        if target == name {
                            String::new()
                        } else {
                            format!(" → … → {name}")
                        }
                    ));
                }
                if seen.insert(n.clone()) {
                    stack.extend(every.get(&n).into_iter().flatten().cloned());
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::normalize::{Problem, Request, Role, normalize};
    use serde_json::json;

    #[test]
    fn unboxed_reference_cycles_fall_back() {
        for s in [
            json!({"type": "object", "properties": {"a": {"allOf": [{"$ref": "#/properties/a"}, true]}}}),
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/I"}}, "$defs": {"I": {"anyOf": [{"$ref": "#/$defs/I"}, {"type": "null"}]}}}),
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"oneOf": [{"$ref": "#/$defs/A"}]}}}),
            json!({"allOf": [{"type": "object", "properties": {"x": {"$ref": "#"}}}]}),
            json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "number"}, {"allOf": [{"$ref": "#"}, {"const": 1}]}]}}}),
        ] {
            let err = normalize(&s, Role::Input, &Request::default()).unwrap_err();
            assert!(
                matches!(&err, Problem::Fallback(r) if r.contains("reference cycle")),
                "{err:?} for {s}"
            );
        }
        // Recursion through properties and items is fine.
        let tree = json!({"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}}, "next": {"$ref": "#"}}});
        assert!(normalize(&tree, Role::Input, &Request::default()).is_ok());
    }
}
