//! How deep a schema nests, as the Rust types it becomes: the limit every part of
//! mcp-bindgen applies before a schema reaches the compiler or a model.
//!
//! Each step from a schema into one of its subschemas (`properties/x`, `items`, one branch
//! of `anyOf`, an entry of `$defs`, …, every keyword of [`super::for_each_child`]) costs
//! what the generated type pays for it: 1 for a named type (a struct, an enum, a
//! definition), 3 for a list or a map (`Vec<…>`, `BTreeMap<String, …>`: `items`,
//! `prefixItems`, `additionalProperties`, …), 1 more when the subschema allows `null` and 1
//! more for a property its object does not require (each an `Option<…>`). A same-document `$ref` is followed and costs nothing of its own; a
//! reference back into a schema being walked (a recursive type, boxed) ends the path.
//!
//! Why there is a limit: rustc's trait solver stops after 128 nested steps (`E0275:
//! overflow evaluating the requirement`), an error naming neither the tool nor the schema.
//! Measured on `mcp_tools!`: 31 levels of nullable arrays (`{"type": ["array", "null"]}`)
//! do not compile, 28 do; plain arrays fail at 43 levels, chains of definitions through
//! optional properties at 60 (47 compile), through required ones at about 120.
//! [`MAX_NESTING`] keeps a margin under each: 24 levels of nullable arrays, 32 of arrays, 48
//! of optional definitions, 96 of required ones. Real servers stay far below it (the deepest of 2 100
//! recorded tool schemas, 25 levels through its definitions, costs 43; the next 23).

use std::collections::HashMap;

use serde_json::Value;

/// The most a schema's nesting may cost (see the module documentation).
pub const MAX_NESTING: usize = 96;

/// A schema nesting deeper than [`MAX_NESTING`] allows, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooDeep {
    /// The path to the first subschema past the limit: JSON pointers into the schema,
    /// joined by ` → ` where a `$ref` was followed.
    pub path: String,
}

impl std::fmt::Display for TooDeep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the schema nests deeper than Rust types can (at {}): mcp-bindgen accepts a nesting cost of {MAX_NESTING} (a named type costs 1, a list or map 3, a nullable or optional value 1 more; 24 nullable arrays in arrays reach it), as deeper types overflow the compiler's trait solver",
            super::truncate(&self.path, 400)
        )
    }
}

/// What a step from `parent` into its subschema `sub` at `suffix` (`/items`,
/// `/properties/name`) costs (see the module documentation).
fn step_cost(parent: &Value, suffix: &str, sub: &Value) -> usize {
    let mut segments = suffix.split('/').skip(1);
    let keyword = segments.next().unwrap_or("");
    let optional = keyword == "properties"
        && segments.next().is_some_and(|name| {
            let name = super::unescape(name);
            !parent
                .get("required")
                .and_then(Value::as_array)
                .is_some_and(|r| r.iter().any(|n| n.as_str() == Some(name.as_str())))
        });
    let container = matches!(
        keyword,
        "items"
            | "prefixItems"
            | "additionalItems"
            | "contains"
            | "unevaluatedItems"
            | "additionalProperties"
            | "patternProperties"
            | "unevaluatedProperties"
    );
    1 + if container { 2 } else { 0 }
        + usize::from(super::accepts_null(sub))
        + usize::from(optional)
}

/// Whether `schema` nests deeper than [`MAX_NESTING`] allows, and where. The walk visits
/// each subschema a bounded number of times (at most `MAX_NESTING + 1`), so its time is
/// linear in the schema's size, and its stack is bounded by the limit, whatever the schema.
pub fn too_deep(schema: &Value) -> Option<TooDeep> {
    let limit = MAX_NESTING + 1;
    let mut walk = Walk {
        root: schema,
        known: HashMap::new(),
        open: Vec::new(),
    };
    if walk.depth(schema, limit) < limit {
        return None;
    }
    // Down again along a costliest path, naming it.
    let mut path = String::from("/");
    let mut node = schema;
    let mut needed = limit;
    while needed > 0 {
        // The arguments' own path first: through a definition only when no other leads.
        let mut children = Vec::new();
        super::for_each_child(node, &mut |suffix, sub| children.push((suffix, sub)));
        children.sort_by_key(|(suffix, _)| {
            suffix.starts_with("/$defs/") || suffix.starts_with("/definitions/")
        });
        let next = children.into_iter().find(|(suffix, sub)| {
            let cost = step_cost(node, suffix, sub);
            cost >= needed || cost + walk.depth(sub, needed - cost) >= needed
        });
        if let Some((suffix, sub)) = next {
            path.truncate(path.len() - usize::from(path.ends_with('/')));
            path.push_str(&suffix);
            needed = needed.saturating_sub(step_cost(node, &suffix, sub));
            node = sub;
            continue;
        }
        match walk.reference(node) {
            Some((pointer, target)) if walk.target_depth(&pointer, target, needed) >= needed => {
                path.push_str(" → #");
                path.push_str(&pointer);
                node = target;
            }
            // Unreachable (the walk found the cost); stop rather than loop.
            _ => break,
        }
    }
    Some(TooDeep { path })
}

/// The walk of one schema document.
struct Walk<'v> {
    root: &'v Value,
    /// `$ref` targets already walked: the cost found, and whether it is exact (below the
    /// budget it was walked with) or only a lower bound.
    known: HashMap<String, (usize, bool)>,
    /// The `$ref` targets being walked (a reference to one of them is a cycle).
    open: Vec<String>,
}

impl<'v> Walk<'v> {
    /// The cost of the nesting below `node`, counted up to `budget`.
    fn depth(&mut self, node: &'v Value, budget: usize) -> usize {
        if budget == 0 {
            return 0;
        }
        let mut best = 0;
        let mut children = Vec::new();
        super::for_each_child(node, &mut |suffix, sub| children.push((suffix, sub)));
        for (suffix, sub) in children {
            let cost = step_cost(node, &suffix, sub);
            let below = if cost >= budget {
                0
            } else {
                self.depth(sub, budget - cost)
            };
            best = best.max(cost + below);
            if best >= budget {
                return budget;
            }
        }
        if let Some((pointer, target)) = self.reference(node) {
            best = best.max(self.target_depth(&pointer, target, budget));
        }
        best.min(budget)
    }

    /// The same-document schema `node` refers to, unless it is being walked (a cycle).
    fn reference(&self, node: &'v Value) -> Option<(String, &'v Value)> {
        let reference = node.get("$ref")?.as_str()?;
        let pointer = super::ref_pointer(self.root, reference)?;
        if self.open.contains(&pointer) {
            return None;
        }
        Some((pointer.clone(), self.root.pointer(&pointer)?))
    }

    /// [`Walk::depth`] of a `$ref` target, remembered across references.
    fn target_depth(&mut self, pointer: &str, target: &'v Value, budget: usize) -> usize {
        match self.known.get(pointer) {
            Some(&(d, true)) => return d.min(budget),
            Some(&(d, false)) if d >= budget => return budget,
            _ => {}
        }
        self.open.push(pointer.to_string());
        let d = self.depth(target, budget);
        self.open.pop();
        self.known.insert(pointer.to_string(), (d, d < budget));
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn arrays(levels: usize, nullable: bool) -> Value {
        let kind = if nullable {
            json!(["array", "null"])
        } else {
            json!("array")
        };
        let mut s = json!({"type": "string"});
        for _ in 0..levels {
            s = json!({"type": kind, "items": s});
        }
        s
    }

    #[test]
    fn the_limit_is_inclusive_and_the_path_names_the_first_step_past_it() {
        // Lists cost 3 a level, nullable ones 4: 32 and 24 levels reach the limit.
        assert_eq!(too_deep(&arrays(32, false)), None);
        assert_eq!(too_deep(&arrays(24, true)), None);
        let deep = too_deep(&arrays(33, false)).expect("too deep");
        assert_eq!(deep.path, format!("/{}", ["items"; 33].join("/")));
        assert!(too_deep(&arrays(25, true)).is_some());
        let wrapped = json!({"type": "object", "properties": {"a b/c": arrays(100, false)},
            "required": ["a b/c"]});
        let deep = too_deep(&wrapped).expect("too deep");
        assert_eq!(
            deep.path,
            format!("/properties/a b~1c/{}", ["items"; 32].join("/"))
        );
        assert!(deep.to_string().contains("a nesting cost of 96"), "{deep}");
    }

    #[test]
    fn references_are_followed_and_cycles_end_a_path() {
        let chain = |n: usize, required: bool| {
            let req = if required { json!(["x"]) } else { json!([]) };
            let mut defs = serde_json::Map::new();
            for i in 0..n {
                let next = if i + 1 < n {
                    json!({"$ref": format!("#/$defs/D{}", i + 1)})
                } else {
                    json!({"type": "string"})
                };
                defs.insert(
                    format!("D{i}"),
                    json!({"type": "object", "properties": {"x": next}, "required": req}),
                );
            }
            json!({"type": "object", "properties": {"v": {"$ref": "#/$defs/D0"}},
                "required": ["v"], "$defs": defs})
        };
        // properties/v (1), then each definition's properties/x (1, 2 when optional).
        assert_eq!(
            too_deep(&chain(MAX_NESTING - 1, true)).map(|d| d.path),
            None
        );
        assert_eq!(too_deep(&chain(47, false)).map(|d| d.path), None);
        assert!(too_deep(&chain(48, false)).is_some());
        let deep = too_deep(&chain(MAX_NESTING, true)).expect("too deep");
        assert!(
            deep.path
                .starts_with("/properties/v → #/$defs/D0/properties/x → #/$defs/D1"),
            "{}",
            deep.path
        );
        // A tree type refers to itself: it costs one turn of the cycle.
        let tree = json!({"$defs": {"Node": {"type": "object", "properties": {
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}},
            "$ref": "#/$defs/Node"});
        assert_eq!(too_deep(&tree), None);
        let root_loop = json!({"anyOf": [{"$ref": "#"}, {"type": "null"}]});
        assert_eq!(too_deep(&root_loop), None);
    }

    #[test]
    fn shared_references_are_walked_once_per_budget() {
        // Each definition refers to the next twice: 2^200 paths, one walk each.
        let mut defs = serde_json::Map::new();
        for i in 0..200 {
            let next = json!({"$ref": format!("#/$defs/D{}", i + 1)});
            defs.insert(format!("D{i}"), json!({"anyOf": [next.clone(), next]}));
        }
        defs.insert("D200".into(), json!({"type": "string"}));
        let schema = json!({"$ref": "#/$defs/D0", "$defs": defs});
        assert!(too_deep(&schema).is_some());
    }
}
