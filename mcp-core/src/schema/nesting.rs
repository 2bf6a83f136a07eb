//! How deep a schema nests: the limit every part of mcp-bindgen applies before a schema
//! reaches the compiler or a model.
//!
//! A level is one step from a schema into one of its subschemas (`properties/x`, `items`,
//! `additionalProperties`, one branch of `anyOf`, an entry of `$defs`, …, every keyword of
//! [`super::for_each_child`]). A same-document `$ref` is followed and costs no level of its
//! own (`{"$ref": "#/$defs/Item"}` is as deep as `Item`); a reference back into a schema
//! being walked (a recursive type) ends the path.
//!
//! Why there is a limit: each level becomes a Rust type inside another (`Vec<…>`,
//! `Option<Vec<…>>`, a struct's field), and rustc's trait solver stops at 128 steps
//! (`E0275: overflow evaluating the requirement`), an error naming neither the tool nor the
//! schema. Nullable arrays fail first: 31 levels of `{"type": ["array", "null"]}` do not
//! compile, 29 do; plain arrays fail at 43, objects and `$ref` chains much later. The
//! limit, [`MAX_NESTING`], keeps a margin under the first. Real servers stay far below it:
//! the deepest of 2 100 recorded tool schemas nests 11 levels.

use std::collections::HashMap;

use serde_json::Value;

/// The deepest nesting mcp-bindgen accepts in a tool's schema, in levels (see the module
/// documentation).
pub const MAX_NESTING: usize = 24;

/// A schema nesting deeper than [`MAX_NESTING`], and where.
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
            "the schema nests more than {MAX_NESTING} levels deep (at {}); mcp-bindgen accepts at most {MAX_NESTING}, as deeper Rust types overflow the compiler's trait solver",
            super::truncate(&self.path, 400)
        )
    }
}

/// Whether `schema` nests deeper than [`MAX_NESTING`] levels, and where. The walk visits each
/// subschema a bounded number of times (at most `MAX_NESTING + 1`), so its time is linear in
/// the schema's size, and its stack is bounded by the limit, whatever the schema.
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
    // Down again along a deepest path, naming it.
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
        let next = children
            .into_iter()
            .find(|(_, sub)| 1 + walk.depth(sub, needed - 1) >= needed);
        if let Some((suffix, sub)) = next {
            path.truncate(path.len() - usize::from(path.ends_with('/')));
            path.push_str(&suffix);
            node = sub;
            needed -= 1;
            continue;
        }
        match walk.reference(node) {
            Some((pointer, target)) if walk.target_depth(&pointer, target, needed) >= needed => {
                path.push_str(" → #");
                path.push_str(&pointer);
                node = target;
            }
            // Unreachable (the walk found the depth); stop rather than loop.
            _ => break,
        }
    }
    Some(TooDeep { path })
}

/// The walk of one schema document.
struct Walk<'v> {
    root: &'v Value,
    /// `$ref` targets already walked: the depth found, and whether it is exact (below the
    /// budget it was walked with) or only a lower bound.
    known: HashMap<String, (usize, bool)>,
    /// The `$ref` targets being walked (a reference to one of them is a cycle).
    open: Vec<String>,
}

impl<'v> Walk<'v> {
    /// The levels below `node`, counted up to `budget`.
    fn depth(&mut self, node: &'v Value, budget: usize) -> usize {
        if budget == 0 {
            return 0;
        }
        let mut best = 0;
        let mut children = Vec::new();
        super::for_each_child(node, &mut |_, sub| children.push(sub));
        for sub in children {
            best = best.max(1 + self.depth(sub, budget - 1));
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

    fn arrays(levels: usize) -> Value {
        let mut s = json!({"type": "string"});
        for _ in 0..levels {
            s = json!({"type": "array", "items": s});
        }
        s
    }

    #[test]
    fn the_limit_is_inclusive_and_the_path_names_the_first_level_past_it() {
        assert_eq!(too_deep(&arrays(MAX_NESTING)), None);
        let deep = too_deep(&arrays(MAX_NESTING + 1)).expect("too deep");
        assert_eq!(
            deep.path,
            format!("/{}", vec!["items"; MAX_NESTING + 1].join("/"))
        );
        let wrapped = json!({"type": "object", "properties": {"a b/c": arrays(100)}});
        let deep = too_deep(&wrapped).expect("too deep");
        assert!(
            deep.path.starts_with("/properties/a b~1c/items/items"),
            "{}",
            deep.path
        );
        assert!(deep.to_string().contains("more than 24 levels"), "{deep}");
    }

    #[test]
    fn references_are_followed_and_cycles_end_a_path() {
        let chain = |n: usize| {
            let mut defs = serde_json::Map::new();
            for i in 0..n {
                let next = if i + 1 < n {
                    json!({"$ref": format!("#/$defs/D{}", i + 1)})
                } else {
                    json!({"type": "string"})
                };
                defs.insert(
                    format!("D{i}"),
                    json!({"type": "object", "properties": {"x": next}}),
                );
            }
            json!({"type": "object", "properties": {"v": {"$ref": "#/$defs/D0"}}, "$defs": defs})
        };
        // properties/v (1) → D0's properties/x (2) → … → D(n-1)'s properties/x (n + 1).
        assert_eq!(too_deep(&chain(MAX_NESTING - 1)).map(|d| d.path), None);
        let deep = too_deep(&chain(MAX_NESTING)).expect("too deep");
        assert!(
            deep.path
                .starts_with("/properties/v → #/$defs/D0/properties/x → #/$defs/D1"),
            "{}",
            deep.path
        );
        // A tree type refers to itself: it is as deep as one turn of the cycle.
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
