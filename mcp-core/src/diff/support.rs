//! Shared by both layers: details, keyed lists, and how values are shown in messages.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::*;
use crate::fixture::sort_keys;
pub(super) use crate::schema::{allowed_values, branches_disjoint, type_names};
use crate::schema::{json_type, local_pointer, truncate, unescape};

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

pub(super) fn detail(
    severity: Severity,
    path: impl Into<String>,
    message: impl Into<String>,
) -> Detail {
    Detail {
        severity,
        path: path.into(),
        message: message.into(),
    }
}

/// Sorts worst first, then by path and message, and drops duplicates.
pub(super) fn finish(mut details: Vec<Detail>) -> Vec<Detail> {
    details.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| a.path.cmp(&b.path))
            .then_with(|| a.message.cmp(&b.message))
    });
    details.dedup();
    details
}

/// The keys of two maps (JSON objects or `BTreeMap`s), merged and sorted.
pub(super) fn union_keys<'m, K: Keys + ?Sized>(a: &'m K, b: &'m K) -> BTreeSet<&'m String> {
    a.key_iter().chain(b.key_iter()).collect()
}

/// Maps keyed by `String`.
pub(super) trait Keys {
    fn key_iter(&self) -> Box<dyn Iterator<Item = &String> + '_>;
}

impl Keys for Map<String, Value> {
    fn key_iter(&self) -> Box<dyn Iterator<Item = &String> + '_> {
        Box::new(self.keys())
    }
}

impl<V> Keys for BTreeMap<String, V> {
    fn key_iter(&self) -> Box<dyn Iterator<Item = &String> + '_> {
        Box::new(self.keys())
    }
}

/// How one entry of two keyed lists differs.
pub(super) enum Change<'v> {
    /// Only in the old list.
    Removed,
    /// Only in the new list.
    Added(&'v Value),
    /// In both, not equal.
    Changed(&'v Value, &'v Value),
}

/// The one differ of keyed lists (tools, prompts, prompt arguments, resource templates):
/// calls `f` with the key and the [`Change`] of every entry that differs between the JSON
/// arrays `x` and `y` (keyed as [`keyed`] keys them), in key order.
pub(super) fn each_change<'v>(
    x: Option<&'v Value>,
    y: Option<&'v Value>,
    fields: &[&str],
    mut f: impl FnMut(&str, Change<'v>),
) {
    let (a, b) = (keyed(x, fields), keyed(y, fields));
    for name in union_keys(&a, &b) {
        let change = match (a.get(name), b.get(name)) {
            (Some(_), None) => Change::Removed,
            (None, Some(q)) => Change::Added(q),
            (Some(p), Some(q)) if p != q => Change::Changed(p, q),
            _ => continue,
        };
        f(name, change);
    }
}

/// Calls `f` with every key whose value differs between the objects `a` and `b`, and the
/// two values, in key order.
pub(super) fn each_field<'v>(
    a: &'v Map<String, Value>,
    b: &'v Map<String, Value>,
    mut f: impl FnMut(&'v str, Option<&'v Value>, Option<&'v Value>),
) {
    for key in union_keys(a, b) {
        let (x, y) = (a.get(key), b.get(key));
        if x != y {
            f(key, x, y);
        }
    }
}

/// Entries of a JSON array of objects keyed by the first string field of `fields` (the
/// first entry wins on duplicates; entries without such a field are keyed by position).
pub(super) fn keyed<'v>(v: Option<&'v Value>, fields: &[&str]) -> BTreeMap<String, &'v Value> {
    let mut out = BTreeMap::new();
    if let Some(items) = v.and_then(Value::as_array) {
        for (i, item) in items.iter().enumerate() {
            let name = fields
                .iter()
                .find_map(|f| item.get(f).and_then(Value::as_str))
                .map_or_else(|| format!("#{i}"), str::to_string);
            out.entry(name).or_insert(item);
        }
    }
    out
}

pub(super) fn non_null(v: Option<&Value>) -> Option<&Value> {
    v.filter(|v| !v.is_null())
}

pub(super) fn child_path(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

/// The `$defs`/`definitions` entry a chain of followed pointers starts at: codegen names
/// the generated Rust type after it.
pub(super) fn def_name(refs: &[String]) -> Option<String> {
    refs.iter().find_map(|r| {
        let rest = r
            .strip_prefix("/$defs/")
            .or_else(|| r.strip_prefix("/definitions/"))?;
        (!rest.contains('/')).then(|| unescape(rest))
    })
}

pub(super) fn contains_ref(v: &Value) -> bool {
    match v {
        Value::Object(m) => m
            .iter()
            .any(|(k, v)| (k == "$ref" && v.is_string()) || contains_ref(v)),
        Value::Array(items) => items.iter().any(contains_ref),
        _ => false,
    }
}

pub(super) fn collect_refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                if k == "$ref" {
                    if let Some(p) = v.as_str().and_then(local_pointer) {
                        out.push(p);
                    }
                } else {
                    collect_refs(v, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

/// The target of a `$ref` with the referring object's sibling keywords applied. Sibling
/// documentation wins; a sibling constraint on a keyword the target also has makes the two
/// an `allOf`.
pub(super) fn merge_ref(target: &Value, referrer: &Map<String, Value>) -> Value {
    let mut siblings = referrer.clone();
    siblings.remove("$ref");
    if siblings.is_empty() {
        return target.clone();
    }
    match target {
        Value::Bool(true) => Value::Object(siblings),
        Value::Bool(false) => Value::Bool(false),
        Value::Object(t) => {
            let clash = siblings
                .keys()
                .any(|k| t.contains_key(k) && !DOC_KEYS.contains(&k.as_str()));
            if clash {
                let mut m = Map::new();
                m.insert(
                    "allOf".into(),
                    Value::Array(vec![target.clone(), Value::Object(siblings)]),
                );
                Value::Object(m)
            } else {
                let mut m = t.clone();
                m.extend(siblings);
                Value::Object(m)
            }
        }
        other => other.clone(),
    }
}

/// `allOf` with one branch, merged into its parent when no keyword clashes.
pub(super) fn fold_all_of(obj: &Map<String, Value>) -> Option<Value> {
    let branches = obj.get("allOf")?.as_array()?;
    let [only] = branches.as_slice() else {
        return None;
    };
    let branch = match only {
        Value::Bool(true) => Map::new(),
        Value::Object(m) => m.clone(),
        _ => return None,
    };
    let mut out = obj.clone();
    out.remove("allOf");
    for (k, v) in branch {
        if out.contains_key(&k) {
            if DOC_KEYS.contains(&k.as_str()) {
                continue;
            }
            return None;
        }
        out.insert(k, v);
    }
    Some(Value::Object(out))
}

pub(super) fn type_value(types: &BTreeSet<String>) -> Value {
    match types.iter().collect::<Vec<_>>().as_slice() {
        [only] => Value::String((*only).clone()),
        all => Value::Array(all.iter().map(|t| Value::String((*t).clone())).collect()),
    }
}

/// True when two of the types accept a common value (`integer` lies inside `number`).
pub(super) fn overlapping(types: &[String]) -> bool {
    let mut seen = BTreeSet::new();
    for t in types {
        if !seen.insert(t.as_str()) {
            return true;
        }
    }
    seen.contains("integer") && seen.contains("number")
}

pub(super) const ALL_TYPES: &[&str] = &["array", "boolean", "null", "number", "object", "string"];

/// `a ⊆ b` for type sets, `None` meaning every type.
pub(super) fn type_subset(a: Option<&BTreeSet<String>>, b: Option<&BTreeSet<String>>) -> bool {
    let covers = |t: &str| match b {
        None => true,
        Some(b) => b.contains(t) || (t == "integer" && b.contains("number")),
    };
    match a {
        None => ALL_TYPES.iter().all(|t| covers(t)),
        Some(a) => a.iter().all(|t| covers(t)),
    }
}

pub(super) fn show_types(t: Option<&BTreeSet<String>>) -> String {
    match t {
        None => "any".to_string(),
        Some(t) if t.is_empty() => "nothing".to_string(),
        Some(t) => {
            let mut names: Vec<&str> = t
                .iter()
                .map(String::as_str)
                .filter(|t| *t != "null")
                .collect();
            if t.contains("null") {
                names.push("null");
            }
            names.join("|")
        }
    }
}

pub(super) fn show_values(values: &BTreeMap<String, Value>) -> String {
    const SHOWN: usize = 10;
    let mut out: Vec<String> = values.keys().take(SHOWN).map(|k| truncate(k, 60)).collect();
    if values.len() > SHOWN {
        out.push(format!("… and {} more", values.len() - SHOWN));
    }
    out.join(", ")
}

/// Identity of a union branch: its `$ref` or its `title`.
pub(super) fn branch_ident(v: &Value) -> Option<&str> {
    v.get("$ref")
        .or_else(|| v.get("title"))
        .and_then(Value::as_str)
}

/// Shape of a union branch: its type, its `const` and the `const`s of its properties
/// (tagged-union discriminators).
pub(super) fn branch_shape(v: &Value) -> String {
    // `enum: [x]` is `const: x`.
    let constant = |v: &Value| {
        v.get("const").cloned().or_else(|| match v.get("enum") {
            Some(Value::Array(values)) if values.len() == 1 => Some(values[0].clone()),
            _ => None,
        })
    };
    let mut shape = Map::new();
    if let Some(t) = v.get("type").and_then(type_names) {
        let set: BTreeSet<String> = t.into_iter().collect();
        shape.insert("type".into(), type_value(&set));
    }
    if let Some(c) = constant(v) {
        shape.insert("const".into(), c);
    }
    if let Some(props) = v.get("properties").and_then(Value::as_object) {
        for (name, p) in props {
            if let Some(c) = constant(p) {
                shape.insert(format!("properties.{name}"), c);
            }
        }
    }
    compact(&Value::Object(shape))
}

/// Canonical compact JSON (keys sorted).
pub(super) fn compact(v: &Value) -> String {
    serde_json::to_string(&sort_keys(v)).unwrap_or_default()
}

pub(super) fn short(v: &Value) -> String {
    truncate(&compact(v), 80)
}

pub(super) fn from_to(x: Option<&Value>, y: Option<&Value>) -> String {
    let show = |v: Option<&Value>| v.map_or_else(|| "(absent)".to_string(), short);
    format!("from {} to {}", show(x), show(y))
}

/// `key changed from a to b` / `key a added` / `key removed (was a)`; long values (texts,
/// nested objects) are not quoted.
pub(super) fn changed_words(key: &str, x: Option<&Value>, y: Option<&Value>) -> String {
    let quotable = |v: &Value| match v {
        Value::String(s) => s.chars().count() <= 60 && !s.contains('\n'),
        Value::Array(_) | Value::Object(_) => compact(v).chars().count() <= 60,
        _ => true,
    };
    match (x, y) {
        (None, Some(y)) if quotable(y) => format!("{key} {} added", compact(y)),
        (None, _) => format!("{key} added"),
        (Some(x), None) if quotable(x) => format!("{key} removed (was {})", compact(x)),
        (Some(_), None) => format!("{key} removed"),
        (Some(x), Some(y)) if quotable(x) && quotable(y) => {
            format!("{key} changed from {} to {}", compact(x), compact(y))
        }
        _ => format!("{key} changed"),
    }
}

/// `b` when `a` is a union (`anyOf` or `oneOf` with documentation beside it at most) and
/// `b` is not: `b`'s validation keywords become the union's only branch.
pub(super) fn wrap_as_union<'m>(
    b: &'m Map<String, Value>,
    a: &Map<String, Value>,
) -> Cow<'m, Map<String, Value>> {
    let is_union = |m: &Map<String, Value>| m.contains_key("anyOf") != m.contains_key("oneOf");
    let documents =
        |k: &String| DOC_KEYS.contains(&k.as_str()) || NEUTRAL_KEYS.contains(&k.as_str());
    let pure = is_union(a)
        && a.keys()
            .all(|k| k == "anyOf" || k == "oneOf" || documents(k));
    let unions = ["anyOf", "oneOf", "allOf"];
    if !pure || b.keys().any(|k| unions.contains(&k.as_str())) {
        return Cow::Borrowed(b);
    }
    let (outer, inner): (Map<String, Value>, Map<String, Value>) =
        b.clone().into_iter().partition(|(k, _)| documents(k));
    if inner.is_empty() {
        return Cow::Borrowed(b);
    }
    let key = if a.contains_key("anyOf") {
        "anyOf"
    } else {
        "oneOf"
    };
    let mut out = outer;
    out.insert(key.into(), Value::Array(vec![Value::Object(inner)]));
    Cow::Owned(out)
}

/// The JSON type a type-specific keyword constrains (`number` for integers too).
pub(super) fn type_scope(key: &str) -> Option<&'static str> {
    Some(match key {
        "properties"
        | "required"
        | "additionalProperties"
        | "patternProperties"
        | "propertyNames"
        | "minProperties"
        | "maxProperties"
        | "dependentRequired"
        | "dependentSchemas"
        | "unevaluatedProperties" => "object",
        "items" | "prefixItems" | "additionalItems" | "contains" | "minContains"
        | "maxContains" | "minItems" | "maxItems" | "uniqueItems" | "unevaluatedItems" => "array",
        "minLength" | "maxLength" | "pattern" | "format" | "contentEncoding"
        | "contentMediaType" => "string",
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => "number",
        _ => return None,
    })
}

/// The scopes of the JSON types a schema accepts (`integer` counts as `number`), from
/// `type` or else from `enum`/`const`; `None`: any type.
pub(super) fn type_scopes(m: &Map<String, Value>) -> Option<BTreeSet<String>> {
    let names: Vec<String> = match m.get("type") {
        Some(t) => type_names(t)?,
        None => allowed_values(m)?
            .values()
            .map(|v| json_type(v).to_string())
            .collect(),
    };
    Some(
        names
            .into_iter()
            .map(|t| if t == "integer" { "number".into() } else { t })
            .collect(),
    )
}

/// The type scopes both schemas accept (`None`: any type on both sides).
pub(super) fn shared_types(
    a: &Map<String, Value>,
    b: &Map<String, Value>,
) -> Option<BTreeSet<String>> {
    match (type_scopes(a), type_scopes(b)) {
        (None, None) => None,
        (Some(x), None) | (None, Some(x)) => Some(x),
        (Some(x), Some(y)) => Some(x.intersection(&y).cloned().collect()),
    }
}

/// `v` with the arrays that are sets (`required`, `enum`, `type`) sorted: two tools equal
/// after this differ only in order.
pub(super) fn sets_sorted(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| {
                    let v = match (k.as_str(), v) {
                        ("required" | "enum" | "type", Value::Array(items)) => {
                            let mut items = items.clone();
                            items.sort_by_key(compact);
                            Value::Array(items)
                        }
                        _ => sets_sorted(v),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(sets_sorted).collect()),
        other => other.clone(),
    }
}
