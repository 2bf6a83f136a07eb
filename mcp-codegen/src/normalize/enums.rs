//! Enum steps: `const` as a one-value enum, and distinct variant names for string enum
//! values whose names would collide.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use super::Ctx;
use crate::naming::{SYMBOL_WORDS, typify_sanitize};

/// `const` → a one-value `enum` (typify ignores `const`).
pub(super) fn const_to_enum(obj: &mut Map<String, Value>, at: &str, ctx: &mut Ctx) {
    let Some(value) = obj.remove("const") else {
        return;
    };
    match &value {
        Value::String(_) => {
            obj.insert("type".into(), json!("string"));
            obj.insert("enum".into(), json!([value]));
        }
        Value::Null => {
            obj.insert("type".into(), json!("null"));
        }
        Value::Bool(_) | Value::Number(_) => {
            obj.insert("enum".into(), json!([value]));
        }
        Value::Array(_) | Value::Object(_) => {
            ctx.warn(
                at,
                format!("const {value} dropped; the value is typed as any JSON"),
            );
        }
    }
}

/// Pre-computes variant names of string enums; values whose names would collide (typify
/// panics) get placeholders that produce distinct names and are restored after typify.
pub(super) fn enum_variants(obj: &mut Map<String, Value>, at: &str, ctx: &mut Ctx) {
    let Some(Value::Array(values)) = obj.get("enum") else {
        return;
    };
    // Duplicates are legal JSON Schema but make duplicate variants.
    let mut seen = Vec::new();
    for v in values {
        if !seen.contains(v) {
            seen.push(v.clone());
        }
    }
    if !seen.iter().all(|v| v.is_string() || v.is_null()) {
        obj.insert("enum".into(), Value::Array(seen));
        return;
    }
    let strings: Vec<&str> = seen.iter().filter_map(Value::as_str).collect();
    let names: Vec<String> = strings.iter().map(|s| typify_sanitize(s, true)).collect();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for n in &names {
        *counts.entry(n.as_str()).or_default() += 1;
    }
    if counts.values().all(|&c| c == 1) {
        obj.insert("enum".into(), Value::Array(seen));
        return;
    }
    // Keep the names that are unique, spell out the others, then number what still clashes.
    let mut used: BTreeSet<String> = names
        .iter()
        .filter(|n| counts.get(n.as_str()) == Some(&1))
        .cloned()
        .collect();
    let mut renamed = Vec::new();
    let mut out = Vec::with_capacity(seen.len());
    let mut idx = 0;
    for v in &seen {
        let Some(s) = v.as_str() else {
            out.push(v.clone());
            continue;
        };
        let name = &names[idx];
        idx += 1;
        if counts.get(name.as_str()) == Some(&1) {
            out.push(v.clone());
            continue;
        }
        let base = typify_sanitize(&spell_out(s), true);
        let base = if typify_sanitize(&base, true) == base {
            base
        } else {
            "Value".to_string()
        };
        let mut chosen = base.clone();
        let mut n = 2;
        while used.contains(&chosen) {
            chosen = format!("{base}{n}");
            n += 1;
        }
        used.insert(chosen.clone());
        renamed.push(format!("\"{s}\" → {chosen}"));
        out.push(Value::String(ctx.placeholder(&chosen, s)));
    }
    obj.insert("enum".into(), Value::Array(out));
    ctx.warn(
        at,
        format!(
            "enum values renamed to distinct variants: {}",
            renamed.join(", ")
        ),
    );
}

/// Spells out symbols so values that differ only in punctuation get different names:
/// `reactions-+1` → `reactions-_plus_1`, `reactions--1` → `reactions-_minus_1`.
fn spell_out(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let prev_alnum = i > 0 && chars[i - 1].is_alphanumeric();
        let next_digit = chars.get(i + 1).is_some_and(char::is_ascii_digit);
        let word = match c {
            '-' if next_digit && !prev_alnum => Some("minus"),
            c => SYMBOL_WORDS.iter().find(|(s, _)| *s == c).map(|(_, w)| *w),
        };
        match word {
            Some(w) => {
                out.push('_');
                out.push_str(w);
                out.push('_');
            }
            None => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::tests::norm;

    #[test]
    fn const_becomes_a_one_value_enum() {
        let n = norm(json!({"type": "object", "properties": {
            "kind": {"const": "issue"}, "n": {"const": 3}, "z": {"const": null}
        }}));
        let p = &n.root["properties"];
        assert_eq!(p["kind"], json!({"type": "string", "enum": ["issue"]}));
        assert_eq!(p["n"], json!({"enum": [3]}));
        assert_eq!(p["z"], json!({"type": "null"}));
    }

    #[test]
    fn colliding_enum_values_get_placeholders() {
        let n = norm(json!({"type": "object", "properties": {
            "sort": {"type": "string", "enum": ["created", "reactions-+1", "reactions--1", "reactions"]}
        }}));
        let values = n.root["properties"]["sort"]["enum"]
            .as_array()
            .unwrap()
            .clone();
        assert_eq!(values[0], "created");
        assert_eq!(values[3], "reactions");
        let p1 = values[1].as_str().unwrap();
        let m1 = values[2].as_str().unwrap();
        assert_eq!(typify_sanitize(p1, true), "ReactionsPlus1");
        assert_eq!(typify_sanitize(m1, true), "ReactionsMinus1");
        assert_eq!(n.literals[p1], "reactions-+1");
        assert_eq!(n.literals[m1], "reactions--1");
        assert!(n.warnings[0].contains("ReactionsPlus1"));
    }

    #[test]
    fn enum_placeholders_never_clash_with_real_strings() {
        let n = norm(json!({"type": "object", "properties": {
            "a": {"type": "string", "enum": ["x''y", "a b", "a_b", "A-B"]}
        }}));
        let values = n.root["properties"]["a"]["enum"].as_array().unwrap();
        let names: BTreeSet<String> = values
            .iter()
            .map(|v| typify_sanitize(v.as_str().unwrap(), true))
            .collect();
        assert_eq!(names.len(), 4);
        for p in n.literals.keys() {
            assert!(p.starts_with("'''"), "{p}");
        }
    }
}
