//! Reference steps: `$ref`s that leave the document (the tool falls back), and hoisting
//! every reference target (`$defs`, `definitions`, in-document pointers, anchors, `#`) into
//! one per-tool namespace of unique PascalCase names.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::for_each_child_mut;
use crate::naming::typify_sanitize;
use crate::schema::{self, escape, for_each_child};

/// Every `$ref` string in schema positions, with the pointer of the schema holding it.
pub(super) fn all_refs(schema: &Value) -> Vec<(String, String)> {
    fn go(v: &Value, at: String, out: &mut Vec<(String, String)>) {
        if let Some(r) = v.get("$ref").and_then(Value::as_str) {
            out.push((at.clone(), r.to_string()));
        }
        for_each_child(v, &mut |suffix, sub| go(sub, format!("{at}{suffix}"), out));
    }
    let mut out = Vec::new();
    go(schema, String::new(), &mut out);
    out
}

// ---------------------------------------------------------------------------------------
// Step: external references.

/// `$ref`s that leave the document (anything not starting with `#`), sorted.
pub(crate) fn external_refs(schema: &Value) -> Vec<String> {
    let mut out: Vec<String> = all_refs(schema)
        .into_iter()
        .map(|(_, r)| r)
        .filter(|r| !r.starts_with('#'))
        .collect();
    out.sort();
    out.dedup();
    out
}

// ---------------------------------------------------------------------------------------
// Step: hoisting every reference target into one namespace.

/// The JSON pointer a local `$ref` designates (`""` for the root).
fn ref_target(schema: &Value, reference: &str) -> Result<String, String> {
    if reference.get(1..).is_some_and(|f| f.is_empty() || f == "/") {
        return Ok(String::new());
    }
    let pointer = schema::ref_pointer(schema, reference).ok_or_else(|| {
        if reference.starts_with("#/") {
            format!("$ref \"{reference}\" does not resolve in the tool's schema")
        } else {
            format!("$ref \"{reference}\" names an anchor that does not exist")
        }
    })?;
    match schema.pointer(&pointer) {
        Some(Value::Object(_) | Value::Bool(_)) => Ok(pointer),
        Some(_) => Err(format!("$ref \"{reference}\" does not point at a schema")),
        None => Err(format!(
            "$ref \"{reference}\" does not resolve in the tool's schema"
        )),
    }
}

/// A type-name stem for a pointer: its last segment that is not a keyword.
fn stem(pointer: &str) -> String {
    let segments: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(crate::schema::unescape)
        .collect();
    let keywords = [
        "properties",
        "items",
        "$defs",
        "definitions",
        "anyOf",
        "oneOf",
        "allOf",
        "additionalProperties",
    ];
    for (i, s) in segments.iter().enumerate().rev() {
        let is_index = s.parse::<usize>().is_ok();
        let under_map = i > 0
            && ["properties", "$defs", "definitions", "patternProperties"]
                .contains(&segments[i - 1].as_str());
        if under_map || (!keywords.contains(&s.as_str()) && !is_index) {
            return s.clone();
        }
    }
    "Def".to_string()
}

/// Moves every reference target (`$defs`, `definitions`, `#/properties/…`, anchors, `#`)
/// into one namespace of unique PascalCase names; returns the root (without `$defs`) and
/// the reachable definitions. `#` points at `root_name` itself.
pub(crate) fn hoist_refs(
    schema: &Value,
    root_name: &str,
) -> Result<(Value, BTreeMap<String, Value>), String> {
    // Targets: reference → pointer. Every root-level definition is a target too (pruned
    // later when unreachable), so names stay stable whichever refs exist.
    let mut targets: BTreeMap<String, String> = BTreeMap::new();
    for key in ["$defs", "definitions"] {
        if let Some(map) = schema.get(key).and_then(Value::as_object) {
            for name in map.keys() {
                targets.insert(format!("/{key}/{}", escape(name)), String::new());
            }
        }
    }
    let mut ref_to_pointer: BTreeMap<String, String> = BTreeMap::new();
    for (_, reference) in all_refs(schema) {
        if !reference.starts_with('#') || ref_to_pointer.contains_key(&reference) {
            continue;
        }
        let pointer = ref_target(schema, &reference)?;
        if !pointer.is_empty() {
            targets.insert(pointer.clone(), String::new());
        }
        ref_to_pointer.insert(reference, pointer);
    }

    // Names: deterministic (pointer order), unique, never the reserved root names.
    let mut used: BTreeSet<String> = RESERVED_TYPE_NAMES
        .iter()
        .chain([root_name].iter())
        .map(|s| s.to_string())
        .collect();
    let pointers: Vec<String> = targets.keys().cloned().collect();
    for pointer in &pointers {
        let base = typify_sanitize(&stem(pointer), true);
        let mut name = base.clone();
        if used.contains(&name) {
            name = format!("{base}Def");
        }
        let mut n = 2;
        while used.contains(&name) {
            name = format!("{base}Def{n}");
            n += 1;
        }
        used.insert(name.clone());
        targets.insert(pointer.clone(), name);
    }
    let name_of = |pointer: &str| -> String {
        if pointer.is_empty() {
            root_name.to_string()
        } else {
            targets
                .get(pointer)
                .cloned()
                .unwrap_or_else(|| root_name.to_string())
        }
    };
    let rewrite = |value: &mut Value| {
        fn go(v: &mut Value, map: &dyn Fn(&str) -> Option<String>) {
            if let Some(obj) = v.as_object_mut()
                && let Some(Value::String(r)) = obj.get("$ref")
                && let Some(new) = map(r)
            {
                obj.insert("$ref".into(), Value::String(format!("#/$defs/{new}")));
            }
            for_each_child_mut(v, &mut |_, sub| go(sub, map));
        }
        let map = |r: &str| ref_to_pointer.get(r).map(|p| name_of(p));
        go(value, &map);
    };

    let mut defs = BTreeMap::new();
    for pointer in &pointers {
        let Some(target) = schema.pointer(pointer) else {
            continue;
        };
        let mut def = target.clone();
        strip_defs(&mut def);
        rewrite(&mut def);
        defs.insert(name_of(pointer), def);
    }
    let mut root = schema.clone();
    strip_defs(&mut root);
    rewrite(&mut root);

    // A target that lives inside the root (`#/properties/from`) is replaced there by a
    // reference too, so both places use one type.
    let inline: Vec<&String> = pointers
        .iter()
        .filter(|p| !p.starts_with("/$defs/") && !p.starts_with("/definitions/"))
        .collect();
    for pointer in inline.iter().rev() {
        replace_at(
            &mut root,
            pointer,
            json!({ "$ref": format!("#/$defs/{}", name_of(pointer)) }),
        );
    }
    for outer in &pointers {
        let outer_name = name_of(outer);
        for inner in pointers.iter().rev() {
            if let Some(rest) = inner.strip_prefix(outer.as_str())
                && rest.starts_with('/')
                && let Some(def) = defs.get_mut(&outer_name)
            {
                replace_at(
                    def,
                    rest,
                    json!({ "$ref": format!("#/$defs/{}", name_of(inner)) }),
                );
            }
        }
    }

    // Keep reachable definitions only.
    let mut reachable = BTreeSet::new();
    let mut queue = vec![root.clone()];
    while let Some(v) = queue.pop() {
        for (_, r) in all_refs(&v) {
            if let Some(name) = r.strip_prefix("#/$defs/")
                && reachable.insert(name.to_string())
                && let Some(def) = defs.get(name)
            {
                queue.push(def.clone());
            }
        }
    }
    defs.retain(|name, _| reachable.contains(name));
    Ok((root, defs))
}

/// Type names a definition must not take: the forced root names and prelude names that the
/// generated code (typify's impls) refers to unqualified.
const RESERVED_TYPE_NAMES: &[&str] = &[
    "Args",
    "Output",
    "Self",
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "String",
    "Vec",
    "Box",
    "From",
    "Into",
    "TryFrom",
    "TryInto",
    "Default",
    "Clone",
    "Copy",
    "Debug",
    "Send",
    "Sync",
    "Sized",
    "Drop",
    "Fn",
    "FnMut",
    "FnOnce",
    "Iterator",
    "IntoIterator",
    "ToString",
    "ToOwned",
    "PartialEq",
    "Eq",
    "PartialOrd",
    "Ord",
    "Hash",
    "AsRef",
    "AsMut",
    "Extend",
    "Unpin",
];

/// Replaces the value at `pointer` (keeping its `description`).
fn replace_at(root: &mut Value, pointer: &str, mut replacement: Value) {
    if let Some(slot) = root.pointer_mut(pointer) {
        if let (Some(d), Some(obj)) = (
            slot.get("description").cloned(),
            replacement.as_object_mut(),
        ) {
            obj.insert("description".into(), d);
        }
        *slot = replacement;
    }
}

fn strip_defs(v: &mut Value) {
    if let Some(obj) = v.as_object_mut() {
        obj.remove("$defs");
        obj.remove("definitions");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::{Problem, Request, Role, normalize};

    #[test]
    fn external_refs_are_found_and_rejected() {
        let s = json!({"type": "object", "properties": {"a": {"$ref": "https://x/y.json"}, "b": {"$ref": "#/$defs/B"}}});
        assert_eq!(external_refs(&s), vec!["https://x/y.json".to_string()]);
        let err = normalize(&s, Role::Input, &Request::default()).unwrap_err();
        assert!(
            matches!(err, Problem::Fallback(r) if r.contains("never fetches") && r.contains("https://x/y.json"))
        );
    }

    #[test]
    fn defs_definitions_and_pointers_are_hoisted() {
        let s = json!({
            "type": "object",
            "properties": {
                "a": {"type": "object", "properties": {"x": {"type": "string"}}},
                "b": {"$ref": "#/properties/a"},
                "c": {"$ref": "#/$defs/item"},
                "d": {"$ref": "#/definitions/Item"},
                "e": {"$ref": "#"},
                "f": {"$ref": "#thing"}
            },
            "$defs": {"item": {"type": "integer"}, "unused": {"type": "string"}},
            "definitions": {"Item": {"type": "boolean"}, "T": {"$anchor": "thing", "type": "string"}}
        });
        let (root, defs) = hoist_refs(&s, "Args").unwrap();
        assert!(root.get("$defs").is_none() && root.get("definitions").is_none());
        assert_eq!(root["properties"]["b"]["$ref"], "#/$defs/A");
        let (r2, _) = hoist_refs(
            &json!({"properties": {"f": {"type": "object"}, "t": {"$ref": "#/properties/f"}}}),
            "Args",
        )
        .unwrap();
        assert_eq!(r2["properties"]["t"]["$ref"], "#/$defs/F");
        let (r3, _) = hoist_refs(
            &json!({"properties": {"t": {"$ref": "#/$defs/Result"}}, "$defs": {"Result": {}}}),
            "Args",
        )
        .unwrap();
        assert_eq!(r3["properties"]["t"]["$ref"], "#/$defs/ResultDef");
        assert_eq!(root["properties"]["e"]["$ref"], "#/$defs/Args");
        assert_eq!(root["properties"]["f"]["$ref"], "#/$defs/T");
        let c = root["properties"]["c"]["$ref"]
            .as_str()
            .unwrap()
            .trim_start_matches("#/$defs/");
        let d = root["properties"]["d"]["$ref"]
            .as_str()
            .unwrap()
            .trim_start_matches("#/$defs/");
        assert_ne!(c, d, "item and Item get distinct names");
        assert_eq!(defs[c], json!({"type": "integer"}));
        assert_eq!(defs[d], json!({"type": "boolean"}));
        assert_eq!(defs["A"]["properties"]["x"]["type"], "string");
        assert_eq!(
            root["properties"]["a"]["$ref"], "#/$defs/A",
            "the pointer target itself uses the definition"
        );
        assert!(
            !defs
                .values()
                .any(|v| v == &json!({"type": "string"}) && v.get("$anchor").is_none()),
            "unused pruned"
        );
        assert!(!defs.contains_key("Args"));
    }

    #[test]
    fn dangling_refs_fall_back() {
        let s = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/Nope"}}});
        let err = normalize(&s, Role::Input, &Request::default()).unwrap_err();
        assert!(matches!(err, Problem::Fallback(r) if r.contains("does not resolve")));
    }

    #[test]
    fn reserved_def_names_are_renamed() {
        let s = json!({"properties": {"a": {"$ref": "#/$defs/Args"}, "b": {"$ref": "#/$defs/output"}}, "$defs": {"Args": {"type": "string"}, "output": {"type": "string"}}});
        let (root, defs) = hoist_refs(&s, "Args").unwrap();
        assert_eq!(root["properties"]["a"]["$ref"], "#/$defs/ArgsDef");
        assert_eq!(root["properties"]["b"]["$ref"], "#/$defs/OutputDef");
        assert_eq!(defs.len(), 2);
    }
}
