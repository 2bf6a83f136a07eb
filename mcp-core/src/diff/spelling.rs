//! Spellings that accept the same values: keywords that restrict nothing (a constraint that
//! excludes no value of the type it applies to, given the schema's other keywords), and a
//! union nested in a branch of a union, which can be written flat.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::*;

/// A keyword that restricts nothing, as written on one side.
pub(super) struct Vacuous {
    pub(super) key: String,
    pub(super) value: Value,
    /// Why it excludes no value.
    pub(super) why: String,
}

/// `m` without the keywords that restrict nothing, and those keywords.
///
/// Each keyword is judged against the schema's other keywords, none of which is itself
/// removed by a judgement that needs the first: `minimum` and `exclusiveMinimum` make at
/// most one of the two vacuous, and `format`, `enum`, `type` and tuples are never removed.
pub(super) fn strip_vacuous(m: &Map<String, Value>) -> (Cow<'_, Map<String, Value>>, Vec<Vacuous>) {
    let gone: Vec<Vacuous> = crate::fixture::entries_sorted(m)
        .into_iter()
        .filter_map(|(key, value)| {
            vacuous(key, value, m).map(|why| Vacuous {
                key: key.clone(),
                value: value.clone(),
                why,
            })
        })
        .collect();
    if gone.is_empty() {
        return (Cow::Borrowed(m), gone);
    }
    let mut out = m.clone();
    for g in &gone {
        out.remove(&g.key);
    }
    (Cow::Owned(out), gone)
}

/// Why `key: v` excludes no value of the type it constrains in the schema `m`, if it does.
fn vacuous(key: &str, v: &Value, m: &Map<String, Value>) -> Option<String> {
    let own = match key {
        "propertyNames" if accepts_every_string(v) => {
            Some("every object key is a string".to_string())
        }
        "minLength" | "minItems" | "minProperties" if v.as_f64().is_some_and(|n| n <= 0.0) => {
            Some("no length is below 0".to_string())
        }
        "pattern" if matches!(v.as_str(), Some("" | ".*")) => {
            Some("the pattern matches every string".to_string())
        }
        "multipleOf" if v.as_f64() == Some(1.0) && integers_only(m) => {
            Some("every integer is a multiple of 1".to_string())
        }
        "minimum" | "exclusiveMinimum" | "maximum" | "exclusiveMaximum" => {
            numeric_bound(key, v.as_f64()?, m)
        }
        "maxItems" => {
            let n = v.as_f64()?;
            closed_tuple(m)
                .filter(|&len| len as f64 <= n)
                .map(|len| format!("the tuple holds at most {len} items"))
        }
        "maxProperties" => {
            let n = v.as_f64()?;
            closed_object(m)
                .filter(|&len| len as f64 <= n)
                .map(|len| format!("the closed object has at most {len} properties"))
        }
        _ => None,
    };
    own.or_else(|| met_by_every_allowed_value(key, v, m))
}

/// A `propertyNames` schema that every string satisfies: `true`, `{}`, or only
/// `"type": "string"` beside annotations.
fn accepts_every_string(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Object(m) => m.iter().all(|(k, v)| {
            DOC_KEYS.contains(&k.as_str())
                || (k == "type" && type_names(v).is_some_and(|t| t.iter().any(|t| t == "string")))
        }),
        _ => false,
    }
}

/// The `propertyNames` schema with what every key already is left out: `"type": "string"`
/// restricts nothing there, so `{"type": "string", "minLength": 1}` compares as
/// `{"minLength": 1}` against an absent `propertyNames`.
pub(super) fn key_schema(v: Option<&Value>) -> Value {
    match v {
        None => TRUE.clone(),
        Some(Value::Object(m))
            if m.get("type")
                .and_then(type_names)
                .is_some_and(|t| t.iter().any(|t| t == "string")) =>
        {
            let mut m = m.clone();
            m.remove("type");
            Value::Object(m)
        }
        Some(other) => other.clone(),
    }
}

/// True when the schema's `type` allows integers and no other number.
fn integers_only(m: &Map<String, Value>) -> bool {
    m.get("type")
        .and_then(type_names)
        .is_some_and(|t| t.iter().any(|t| t == "integer") && !t.iter().any(|t| t == "number"))
}

/// The range of the sized integer `format`s that schemars and OpenAPI generators write
/// (`uint32`, `int64`, …). A server that declares one is built on that integer type and
/// refuses values outside it already, so a bound at or beyond the range excludes nothing.
fn format_range(m: &Map<String, Value>) -> Option<(Option<f64>, Option<f64>)> {
    let numeric = match m.get("type").and_then(type_names) {
        Some(t) => t.iter().any(|t| t == "integer" || t == "number"),
        None => true,
    };
    if !numeric {
        return None;
    }
    let signed = |bits: i32| {
        let half = 2f64.powi(bits - 1);
        (Some(-half), Some(half - 1.0))
    };
    let unsigned = |bits: i32| (Some(0.0), Some(2f64.powi(bits) - 1.0));
    Some(match m.get("format")?.as_str()? {
        "int8" => signed(8),
        "int16" => signed(16),
        "int32" => signed(32),
        "int64" => signed(64),
        "int128" => signed(128),
        "uint8" => unsigned(8),
        "uint16" => unsigned(16),
        "uint32" => unsigned(32),
        "uint64" => unsigned(64),
        "uint128" => unsigned(128),
        "uint" => (Some(0.0), None),
        _ => return None,
    })
}

/// A numeric bound implied by the `format`'s range or by the other bound on the same side
/// (`minimum: 0` beside `exclusiveMinimum: 0`).
fn numeric_bound(key: &str, n: f64, m: &Map<String, Value>) -> Option<String> {
    let lower = key.ends_with("inimum");
    let exclusive = key.starts_with("exclusive");
    let (lo, hi) = format_range(m).unwrap_or((None, None));
    let format = || m.get("format").and_then(Value::as_str).unwrap_or_default();
    let other = |k: &str| m.get(k).and_then(Value::as_f64);
    if lower {
        // Every value is ≥ lo, or > the other bound.
        if let Some(lo) = lo
            && (n < lo || (!exclusive && n <= lo))
        {
            return Some(format!("every {} is at least {lo}", format()));
        }
        match (exclusive, other("minimum"), other("exclusiveMinimum")) {
            (false, _, Some(e)) if n <= e => {
                return Some(format!("exclusiveMinimum {e} already excludes it"));
            }
            (true, Some(min), _) if n < min => {
                return Some(format!("minimum {min} already excludes it"));
            }
            _ => {}
        }
    } else {
        if let Some(hi) = hi
            && (n > hi || (!exclusive && n >= hi))
        {
            return Some(format!("every {} is at most {hi}", format()));
        }
        match (exclusive, other("maximum"), other("exclusiveMaximum")) {
            (false, _, Some(e)) if n >= e => {
                return Some(format!("exclusiveMaximum {e} already excludes it"));
            }
            (true, Some(max), _) if n > max => {
                return Some(format!("maximum {max} already excludes it"));
            }
            _ => {}
        }
    }
    None
}

/// The length of a tuple that allows no further items (`prefixItems` with `items: false`,
/// or draft-07 `items: [...]` with `additionalItems: false`).
fn closed_tuple(m: &Map<String, Value>) -> Option<usize> {
    let closed = |k: &str| matches!(m.get(k), Some(Value::Bool(false)));
    match (m.get("prefixItems"), m.get("items")) {
        (Some(Value::Array(prefix)), _) if closed("items") => Some(prefix.len()),
        (None, Some(Value::Array(items))) if closed("additionalItems") => Some(items.len()),
        _ => None,
    }
}

/// The number of properties of an object that allows no others.
fn closed_object(m: &Map<String, Value>) -> Option<usize> {
    let closed = matches!(m.get("additionalProperties"), Some(Value::Bool(false)))
        && !m.contains_key("patternProperties");
    if !closed {
        return None;
    }
    Some(
        m.get("properties")
            .and_then(Value::as_object)
            .map_or(0, Map::len),
    )
}

/// A bound that every value the schema's `enum`/`const` allows already meets (values of
/// other types are not constrained by it).
fn met_by_every_allowed_value(key: &str, v: &Value, m: &Map<String, Value>) -> Option<String> {
    let n = v.as_f64()?;
    let values = allowed_values(m)?;
    let scope = type_scope(key)?;
    let measure = |value: &Value| -> Option<f64> {
        match (scope, value) {
            ("number", Value::Number(x)) => x.as_f64(),
            ("string", Value::String(s)) => Some(s.chars().count() as f64),
            ("array", Value::Array(items)) => Some(items.len() as f64),
            ("object", Value::Object(props)) => Some(props.len() as f64),
            _ => None,
        }
    };
    let meets: fn(f64, f64) -> bool = match key {
        "minimum" | "minLength" | "minItems" | "minProperties" => |x, n| x >= n,
        "maximum" | "maxLength" | "maxItems" | "maxProperties" => |x, n| x <= n,
        "exclusiveMinimum" => |x, n| x > n,
        "exclusiveMaximum" => |x, n| x < n,
        _ => return None,
    };
    values
        .values()
        .filter_map(measure)
        .all(|x| meets(x, n))
        .then(|| "every value the schema allows (`enum`/`const`) meets it".to_string())
}

impl SchemaDiff<'_> {
    /// Reports the keywords that restrict nothing on one side and are absent (or also
    /// vacuous) on the other: the same values, spelled differently. A vacuous keyword
    /// facing a real one on the other side is compared as absent, by the caller.
    pub(super) fn vacuous_keywords(
        &mut self,
        path: &str,
        gone_old: &[Vacuous],
        gone_new: &[Vacuous],
        a: &Map<String, Value>,
        b: &Map<String, Value>,
    ) {
        // `0` and `0.0` are one bound.
        let same = |x: &Value, y: &Value| x == y || (x.is_number() && x.as_f64() == y.as_f64());
        for g in gone_old {
            if b.contains_key(&g.key) {
                continue;
            }
            match gone_new.iter().find(|n| n.key == g.key) {
                Some(n) if same(&n.value, &g.value) => {}
                Some(n) => self.emit(
                    path,
                    Effect::Equivalent,
                    format!(
                        "`{}` changed from {} to {}: neither restricts anything ({})",
                        g.key,
                        compact(&g.value),
                        compact(&n.value),
                        n.why
                    ),
                ),
                None => self.emit(
                    path,
                    Effect::Equivalent,
                    format!(
                        "`{}: {}` removed: it restricted nothing ({})",
                        g.key,
                        compact(&g.value),
                        g.why
                    ),
                ),
            }
        }
        for n in gone_new {
            if a.contains_key(&n.key) || gone_old.iter().any(|g| g.key == n.key) {
                continue;
            }
            self.emit(
                path,
                Effect::Equivalent,
                format!(
                    "`{}: {}` added: it restricts nothing ({})",
                    n.key,
                    compact(&n.value),
                    n.why
                ),
            );
        }
    }

    /// A union whose branches are unions themselves, written flat: `anyOf: [{anyOf: [A,
    /// B]}, C]` accepts what `anyOf: [A, B, C]` accepts. A branch is spliced when it is only
    /// a union (beside annotations) and the flat form means the same: always for `anyOf`
    /// in `anyOf`; where `oneOf` is involved, only when the spliced branches cannot overlap
    /// (then "exactly one" and "at least one" agree). Repeated `anyOf` branches are kept
    /// once.
    pub(super) fn flatten_union(&mut self, obj: &Map<String, Value>, side: Side) -> Option<Value> {
        let key = match (obj.contains_key("anyOf"), obj.contains_key("oneOf")) {
            (true, false) => "anyOf",
            (false, true) => "oneOf",
            _ => return None,
        };
        let branches = obj.get(key)?.as_array()?;
        let mut flat: Vec<Value> = Vec::with_capacity(branches.len());
        let mut spliced = false;
        let mut needs_disjoint = false;
        for branch in branches {
            match self.inner_union(branch, side) {
                Some((inner_key, items)) if !items.is_empty() => {
                    spliced = true;
                    needs_disjoint |= key == "oneOf" || inner_key == "oneOf";
                    flat.extend(items);
                }
                _ => flat.push(branch.clone()),
            }
        }
        if !spliced {
            return None;
        }
        if key == "anyOf" {
            let mut seen = Vec::with_capacity(flat.len());
            flat.retain(|b| {
                let fresh = !seen.contains(b);
                if fresh {
                    seen.push(b.clone());
                }
                fresh
            });
        }
        // A recursive definition spliced into itself makes no progress: stop there.
        if flat.as_slice() == branches.as_slice() || (needs_disjoint && !self.disjoint(&flat, side))
        {
            return None;
        }
        let mut out = obj.clone();
        out.insert(key.to_string(), Value::Array(flat));
        Some(Value::Object(out))
    }

    /// The branches of `branch` when it is only a union (beside annotations), through its
    /// same-document references: `(keyword, branches)`.
    fn inner_union(&mut self, branch: &Value, side: Side) -> Option<(&'static str, Vec<Value>)> {
        let first = branch.as_object()?;
        if !["$ref", "anyOf", "oneOf"]
            .iter()
            .any(|k| first.contains_key(*k))
        {
            return None;
        }
        let mut cur = branch.clone();
        let mut seen: Vec<String> = Vec::new();
        for _ in 0..MAX_HOPS {
            let Some(obj) = cur.as_object() else { break };
            let Some(pointer) = obj
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(crate::schema::local_pointer)
            else {
                break;
            };
            if seen.contains(&pointer) {
                return None;
            }
            let target = self.root(side).pointer(&pointer)?;
            self.visited.insert(pointer.clone());
            cur = merge_ref(target, obj);
            seen.push(pointer);
        }
        let m = cur.as_object()?;
        let pure = m
            .keys()
            .all(|k| k == "anyOf" || k == "oneOf" || DOC_KEYS.contains(&k.as_str()));
        if !pure {
            return None;
        }
        match (m.get("anyOf"), m.get("oneOf")) {
            (Some(Value::Array(x)), None) => Some(("anyOf", x.clone())),
            (None, Some(Value::Array(x))) => Some(("oneOf", x.clone())),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn gone(schema: Value) -> Vec<String> {
        let m = schema.as_object().cloned().unwrap_or_default();
        strip_vacuous(&m).1.into_iter().map(|g| g.key).collect()
    }

    #[test]
    fn vacuous_keywords_are_found() {
        assert_eq!(
            gone(json!({"propertyNames": {"type": "string"}})),
            ["propertyNames"]
        );
        assert_eq!(gone(json!({"propertyNames": {}})), ["propertyNames"]);
        assert_eq!(
            gone(json!({"type": "string", "minLength": 0})),
            ["minLength"]
        );
        assert_eq!(gone(json!({"type": "array", "minItems": 0})), ["minItems"]);
        assert_eq!(gone(json!({"pattern": ".*"})), ["pattern"]);
        assert_eq!(
            gone(json!({"type": "integer", "multipleOf": 1})),
            ["multipleOf"]
        );
        assert_eq!(
            gone(json!({"type": "integer", "format": "uint32", "minimum": 0})),
            ["minimum"]
        );
        assert_eq!(
            gone(json!({"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255})),
            ["maximum", "minimum"]
        );
        assert_eq!(
            gone(json!({"type": "integer", "exclusiveMinimum": 0, "minimum": 0})),
            ["minimum"]
        );
        assert_eq!(
            gone(json!({"type": "array", "prefixItems": [{}, {}], "items": false, "maxItems": 5})),
            ["maxItems"]
        );
        assert_eq!(
            gone(
                json!({"type": "object", "properties": {"a": {}}, "additionalProperties": false, "maxProperties": 1})
            ),
            ["maxProperties"]
        );
        assert_eq!(
            gone(json!({"enum": ["ab", "abc"], "maxLength": 3})),
            ["maxLength"]
        );
        assert_eq!(gone(json!({"enum": [1, 2], "minimum": 1})), ["minimum"]);
    }

    #[test]
    fn constraints_that_exclude_a_value_are_kept() {
        assert!(gone(json!({"propertyNames": {"type": "string", "minLength": 1}})).is_empty());
        assert!(gone(json!({"propertyNames": {"pattern": "^a"}})).is_empty());
        assert!(gone(json!({"type": "string", "minLength": 1})).is_empty());
        assert!(gone(json!({"pattern": "^.*$"})).is_empty());
        assert!(gone(json!({"type": "number", "multipleOf": 1})).is_empty());
        assert!(gone(json!({"type": "integer", "minimum": 0})).is_empty());
        assert!(gone(json!({"type": "integer", "format": "int32", "minimum": 0})).is_empty());
        assert!(gone(json!({"type": "integer", "format": "uint8", "maximum": 254})).is_empty());
        assert!(
            gone(json!({"type": "integer", "format": "uint32", "exclusiveMinimum": 0})).is_empty()
        );
        assert!(gone(json!({"type": "string", "format": "uint32", "minimum": 0})).is_empty());
        assert!(gone(json!({"type": "array", "prefixItems": [{}, {}], "maxItems": 5})).is_empty());
        assert!(
            gone(json!({"type": "array", "prefixItems": [{}, {}], "items": false, "maxItems": 1}))
                .is_empty()
        );
        assert!(gone(json!({"enum": ["ab", "abcd"], "maxLength": 3})).is_empty());
        // Exactly one of two bounds that imply each other's absence is vacuous.
        assert_eq!(
            gone(json!({"type": "number", "exclusiveMinimum": -1, "minimum": 0})),
            ["exclusiveMinimum"]
        );
    }

    /// The wire class and the details of one tool `t` whose input schema goes from `old`
    /// to `new` (argument `x`).
    fn change(old: Value, new: Value) -> (Option<Severity>, Vec<String>) {
        let doc = |x: Value| {
            json!({"format": 1, "server": {"alias": "s"}, "tools": [
                {"name": "t", "inputSchema": {"type": "object", "properties": {"x": x}}}
            ]})
        };
        let report = crate::diff::classify(&doc(old), &doc(new));
        let details = report
            .changes
            .iter()
            .flat_map(|c| c.details.iter())
            .map(|d| format!("{} {}", d.severity, d.message))
            .collect();
        (report.worst(), details)
    }

    /// Both directions of a change are the same values: `None` (no change in meaning).
    #[track_caller]
    fn same_values(a: Value, b: Value) {
        for (old, new) in [(a.clone(), b.clone()), (b, a)] {
            let (worst, details) = change(old.clone(), new.clone());
            assert!(
                worst.is_none_or(|w| w == Severity::None),
                "{old} → {new}: {details:#?}"
            );
        }
    }

    #[test]
    fn a_zod_4_record_is_the_same_values_as_a_zod_3_record() {
        let zod3 = json!({"type": "object", "additionalProperties": {"type": "string"}});
        let zod4 = json!({"type": "object", "propertyNames": {"type": "string"}, "additionalProperties": {"type": "string"}});
        same_values(zod3.clone(), zod4.clone());
        let (_, details) = change(zod3, zod4);
        assert_eq!(
            details,
            [
                "NONE argument \"x\": `propertyNames: {\"type\":\"string\"}` added: it restricts nothing (every object key is a string)"
            ]
        );
        // A key constraint beside the implied type is compared without it.
        let (worst, details) = change(
            json!({"type": "object"}),
            json!({"type": "object", "propertyNames": {"type": "string", "minLength": 1}}),
        );
        assert_eq!(worst, Some(Severity::Breaking), "{details:#?}");
        assert_eq!(details.len(), 1, "{details:#?}");
        assert!(
            details[0].contains("x.propertyNames") && details[0].contains("minLength 1 added"),
            "{details:#?}"
        );
    }

    #[test]
    fn constraints_that_restrict_nothing_are_no_change() {
        let s = |extra: Value| {
            let mut m = json!({"type": "string"});
            m.as_object_mut()
                .unwrap()
                .extend(extra.as_object().cloned().unwrap_or_default());
            m
        };
        same_values(s(json!({})), s(json!({"minLength": 0})));
        same_values(s(json!({})), s(json!({"pattern": ".*"})));
        same_values(
            json!({"type": "integer", "format": "uint32"}),
            json!({"type": "integer", "format": "uint32", "minimum": 0}),
        );
        same_values(
            json!({"type": "integer", "format": "uint8", "minimum": 0.0}),
            json!({"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255}),
        );
        same_values(
            json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false}),
            json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false, "maxItems": 2}),
        );
        same_values(
            json!({"type": "array"}),
            json!({"type": "array", "items": {}, "minItems": 0}),
        );
        same_values(
            json!({"enum": ["a", "bc"]}),
            json!({"enum": ["a", "bc"], "maxLength": 2}),
        );
        // A bound that does exclude a value is still reported, also beside a vacuous one.
        let (worst, details) = change(
            json!({"type": "integer", "format": "uint8"}),
            json!({"type": "integer", "format": "uint8", "minimum": 0, "maximum": 100}),
        );
        assert_eq!(worst, Some(Severity::Breaking), "{details:#?}");
        assert_eq!(details.len(), 2, "{details:#?}");
        assert!(
            details
                .iter()
                .any(|d| d.starts_with("BREAKING") && d.contains("maximum 100 added"))
        );
        // A real lower bound replacing a vacuous one is a real lower bound.
        let (worst, _) = change(s(json!({"minLength": 0})), s(json!({"minLength": 1})));
        assert_eq!(worst, Some(Severity::Breaking));
    }

    #[test]
    fn a_nested_any_of_is_the_same_union_written_flat() {
        // The example: the non-null branches behind one more `anyOf`.
        let nested = json!({"anyOf": [{"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}, {"type": "null"}]});
        let flat = json!({"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}, {"type": "null"}]});
        same_values(nested, flat);
        // Branches that the optional-value folding cannot merge into one `type` array.
        let nested = json!({"anyOf": [{"anyOf": [{"type": "string", "minLength": 1}, {"type": "object", "properties": {"a": {"type": "string"}}}]}, {"type": "null"}]});
        let flat = json!({"anyOf": [{"type": "string", "minLength": 1}, {"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "null"}]});
        same_values(nested.clone(), flat.clone());
        let (_, details) = change(nested, flat);
        assert_eq!(
            details,
            [
                "NONE argument \"x\": a union nested in a union branch is now written flat (the same values)"
            ]
        );
        // Behind a reference, and a branch repeated by the flattening.
        let doc = |x: Value, defs: Value| {
            json!({"format": 1, "server": {"alias": "s"}, "tools": [{"name": "t", "inputSchema": {
                "type": "object", "properties": {"x": x}, "$defs": defs}}]})
        };
        let old = doc(
            json!({"anyOf": [{"$ref": "#/$defs/Key"}, {"type": "null"}]}),
            json!({"Key": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "array"}, {"type": "null"}]}}),
        );
        let new = doc(
            json!({"anyOf": [{"type": "string", "minLength": 1}, {"type": "array"}, {"type": "null"}]}),
            json!({}),
        );
        let r = crate::diff::classify(&old, &new);
        assert!(r.worst().is_none_or(|w| w <= Severity::Docs), "{r}");
        // A branch gained beside the flattening is still a branch gained.
        let (worst, _) = change(
            json!({"anyOf": [{"anyOf": [{"type": "string", "minLength": 1}, {"type": "array"}]}, {"type": "null"}]}),
            json!({"anyOf": [{"type": "string", "minLength": 1}, {"type": "array"}, {"type": "object"}, {"type": "null"}]}),
        );
        assert_eq!(worst, Some(Severity::Additive));
    }

    #[test]
    fn one_of_nesting_is_flattened_only_where_branches_cannot_overlap() {
        // Disjoint by type: "exactly one" and "at least one" agree.
        same_values(
            json!({"oneOf": [{"oneOf": [{"type": "string", "minLength": 1}, {"type": "integer"}]}, {"type": "object"}]}),
            json!({"oneOf": [{"type": "string", "minLength": 1}, {"type": "integer"}, {"type": "object"}]}),
        );
        // Overlapping branches: `{"a": 1, "b": 2}` matches both inner branches, so the
        // nested form refuses it where the flat `anyOf` accepts it.
        let (worst, details) = change(
            json!({"anyOf": [{"oneOf": [{"type": "object", "required": ["a"]}, {"type": "object", "required": ["b"]}]}, {"type": "null"}]}),
            json!({"anyOf": [{"type": "object", "required": ["a"]}, {"type": "object", "required": ["b"]}, {"type": "null"}]}),
        );
        assert!(worst.is_some_and(|w| w > Severity::None), "{details:#?}");
    }

    #[test]
    fn key_schema_drops_the_implied_string_type() {
        assert_eq!(key_schema(None), json!(true));
        assert_eq!(
            key_schema(Some(&json!({"type": "string", "minLength": 1}))),
            json!({"minLength": 1})
        );
        assert_eq!(
            key_schema(Some(&json!({"pattern": "^a"}))),
            json!({"pattern": "^a"})
        );
    }
}
