//! Valid instances of a JSON Schema, for the round-trip oracle ([`crate::oracle`]).
//!
//! [`generate`] walks a tool's `inputSchema` or `outputSchema` and returns a small,
//! deterministic set of values meant to exercise every shape a generated type must carry:
//! the object with its required properties only and the one with every property, each
//! `anyOf`/`oneOf` branch, every `enum` value and `const`, nested arrays and objects, `null`
//! where it is allowed, boundary numbers, string formats and `pattern`s (a small regex
//! example generator). Objects combine their properties' variants by covering, not by
//! Cartesian product: instance *i* takes variant *i* of each property, so every variant
//! appears at least once within the limit.
//!
//! The instances are meant to be valid; keywords that are not modelled (`not`, `if`,
//! `dependentSchemas`, …) can make one invalid, so callers validate them and drop the
//! others ([`crate::oracle::Oracle::validate`]).

use serde_json::{Map, Number, Value, json};

use crate::schema::is_annotation;

/// How many instances, and how deep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Rotates how the variants of different properties are combined (instances stay
    /// deterministic for one seed).
    pub seed: u64,
    /// At most this many instances per schema.
    pub max_instances: usize,
    /// `$ref`s and nested schemas are followed this deep; below it only the smallest value
    /// of each schema is made.
    pub max_depth: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            seed: 0,
            max_instances: 40,
            max_depth: 6,
        }
    }
}

/// What came out for one schema.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Generated {
    /// The instances, distinct, smallest first.
    pub instances: Vec<Value>,
    /// Why there are none (when `instances` is empty).
    pub skipped: Option<String>,
}

/// The instances of `schema` (see the module documentation).
pub fn generate(schema: &Value, options: &Options) -> Generated {
    let mut g = Gen {
        root: schema,
        options,
        max: options.max_instances.max(1),
    };
    let mut instances = g.variants(schema, 0);
    dedupe(&mut instances);
    instances.truncate(g.max);
    let skipped = instances.is_empty().then(|| {
        if schema == &Value::Bool(false) {
            "the schema is `false`: no value is valid".to_string()
        } else {
            format!(
                "no value satisfies the schema within depth {} (a required property may recurse \
                 forever, or the type, enum and bounds exclude each other)",
                options.max_depth
            )
        }
    });
    Generated { instances, skipped }
}

/// The schema to generate a tool's *arguments* from: MCP arguments are a JSON object, so a
/// schema that declares nothing about them (`{}`, annotations only) or allows any property
/// without naming one is "any object" (the generated `Args` is a JSON map), and any other
/// schema is itself.
pub fn arguments_schema(input_schema: &Value) -> Value {
    if crate::schema::free_form_arguments(input_schema) {
        json!({"type": "object", "additionalProperties": {}})
    } else {
        input_schema.clone()
    }
}

/// The smallest valid-looking string when nothing else is known.
const TEXT: &str = "text";
/// Sizes are capped: strings and arrays never grow past these.
const MAX_STRING: usize = 256;
const MAX_ITEMS: usize = 5;

struct Gen<'a> {
    root: &'a Value,
    options: &'a Options,
    max: usize,
}

impl<'a> Gen<'a> {
    /// The variants of `schema`, simplest first (empty: no value found).
    fn variants(&mut self, schema: &Value, depth: usize) -> Vec<Value> {
        let Some(obj) = schema.as_object() else {
            return match schema {
                Value::Bool(false) => Vec::new(),
                _ => any_values(),
            };
        };
        if depth > self.options.max_depth + 8 {
            return Vec::new();
        }
        if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
            let Some(target) = self.resolve(r) else {
                return any_values();
            };
            // Siblings of `$ref` (2020-12) are merged over the target.
            let mut rest = obj.clone();
            rest.remove("$ref");
            let merged = if rest.keys().all(|k| is_annotation(k)) {
                target.clone()
            } else {
                merge(target, &Value::Object(rest))
            };
            return self.variants(&merged, depth + 1);
        }
        if let Some(Value::Array(parts)) = obj.get("allOf") {
            let mut rest = obj.clone();
            rest.remove("allOf");
            let mut merged = Value::Object(rest);
            for p in parts {
                let p = self.deref_all(p, depth);
                merged = merge(&merged, &p);
            }
            return self.variants(&merged, depth + 1);
        }
        if let Some(c) = obj.get("const") {
            return vec![c.clone()]
                .into_iter()
                .filter(|v| type_allows(obj, v))
                .collect();
        }
        if let Some(Value::Array(values)) = obj.get("enum") {
            return values
                .iter()
                .filter(|v| type_allows(obj, v))
                .cloned()
                .collect();
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = obj.get(key) {
                let mut rest = obj.clone();
                rest.remove(key);
                let lists: Vec<Vec<Value>> = branches
                    .iter()
                    .map(|b| {
                        let b = self.deref_all(b, depth);
                        let merged = if rest.keys().all(|k| is_annotation(k)) {
                            b
                        } else {
                            merge(&Value::Object(rest.clone()), &b)
                        };
                        self.variants(&merged, depth + 1)
                    })
                    .collect();
                // `anyOf` accepts a value that matches several branches at once: one object
                // holding the properties of every object branch (dropped by the caller when
                // the branches are closed or disagree).
                let combined = (key == "anyOf").then(|| combine_objects(&lists)).flatten();
                let mut out = interleave(lists, self.max);
                if let Some(combined) = combined {
                    out.truncate(self.max.saturating_sub(1));
                    if !out.contains(&combined) {
                        out.push(combined);
                    }
                }
                return out;
            }
        }
        match obj.get("type") {
            Some(Value::String(t)) => self.typed(t, obj, depth),
            Some(Value::Array(types)) => {
                let lists = types
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|t| self.typed(t, obj, depth))
                    .collect();
                interleave(lists, self.max)
            }
            _ => match infer_type(obj) {
                Some(t) => self.typed(t, obj, depth),
                None => any_values(),
            },
        }
    }

    /// `schema` with a top-level `$ref` replaced by its target (for merging).
    fn deref_all(&self, schema: &Value, depth: usize) -> Value {
        let mut s = schema.clone();
        for _ in 0..=self.options.max_depth.min(16) {
            let Some(r) = s.get("$ref").and_then(Value::as_str) else {
                break;
            };
            let Some(t) = self.resolve(r) else { break };
            let mut rest = s.as_object().cloned().unwrap_or_default();
            rest.remove("$ref");
            s = merge(t, &Value::Object(rest));
        }
        let _ = depth;
        s
    }

    fn resolve(&self, r: &str) -> Option<&'a Value> {
        crate::schema::resolve_local(self.root, r)
    }

    fn typed(&mut self, t: &str, obj: &Map<String, Value>, depth: usize) -> Vec<Value> {
        match t {
            "null" => vec![Value::Null],
            "boolean" => vec![json!(true), json!(false)],
            "string" => strings(obj),
            "integer" => numbers(obj, true),
            "number" => numbers(obj, false),
            "array" => self.arrays(obj, depth),
            "object" => self.objects(obj, depth),
            _ => Vec::new(),
        }
    }

    fn arrays(&mut self, obj: &Map<String, Value>, depth: usize) -> Vec<Value> {
        let min = obj.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = obj
            .get("maxItems")
            .and_then(Value::as_u64)
            .map_or(MAX_ITEMS.max(min), |m| m as usize);
        let unique = obj.get("uniqueItems").and_then(Value::as_bool) == Some(true);
        let deeper = depth >= self.options.max_depth;
        // Tuples: prefixItems (2020-12) or array-form items (draft-07).
        let tuple = match (obj.get("prefixItems"), obj.get("items")) {
            (Some(Value::Array(p)), _) => Some(p),
            (_, Some(Value::Array(p))) => Some(p),
            _ => None,
        };
        if let Some(tuple) = tuple {
            let lists: Vec<Vec<Value>> =
                tuple.iter().map(|s| self.variants(s, depth + 1)).collect();
            if lists.iter().any(Vec::is_empty) {
                return Vec::new();
            }
            let n = lists.iter().map(Vec::len).max().unwrap_or(1).min(self.max);
            let mut out: Vec<Value> = (0..n)
                .map(|i| Value::Array(lists.iter().map(|l| l[i % l.len()].clone()).collect()))
                .collect();
            if min < tuple.len() {
                // A shorter tuple is valid too when nothing asks for every position.
                out.push(Value::Array(
                    lists.iter().take(min).map(|l| l[0].clone()).collect(),
                ));
            }
            return out;
        }
        let item_schema = match obj.get("items") {
            Some(s) => s.clone(),
            None => Value::Bool(true),
        };
        let items = if deeper && min == 0 {
            Vec::new()
        } else {
            self.variants(&item_schema, depth + 1)
        };
        let mut out = Vec::new();
        if min == 0 {
            out.push(Value::Array(Vec::new()));
        }
        if items.is_empty() {
            return out;
        }
        let len = min.clamp(1, MAX_ITEMS).min(max.max(1));
        if len > max {
            return out;
        }
        // One array per variant, padded to the minimum length with the others.
        let cap = items.len().min(self.max);
        for i in 0..cap {
            let mut arr: Vec<Value> = Vec::new();
            let mut k = i;
            while arr.len() < len && k < i + items.len() * 2 {
                let v = items[k % items.len()].clone();
                if !unique || !arr.contains(&v) {
                    arr.push(v);
                }
                k += 1;
            }
            if arr.len() >= min {
                out.push(Value::Array(arr));
            }
        }
        // Several items at once, as many as allowed.
        let many = items.len().min(max).min(MAX_ITEMS);
        if many > 1 {
            let mut arr: Vec<Value> = items.iter().take(many).cloned().collect();
            if unique {
                dedupe(&mut arr);
            }
            if arr.len() >= min {
                out.push(Value::Array(arr));
            }
        }
        out
    }

    fn objects(&mut self, obj: &Map<String, Value>, depth: usize) -> Vec<Value> {
        let empty = Map::new();
        let props = obj
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let required: Vec<&str> = obj
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let deeper = depth >= self.options.max_depth;
        // Each property's variants (optional ones only above the depth limit).
        let mut fields: Vec<(String, bool, Vec<Value>)> = Vec::new();
        for (name, sub) in props {
            let is_required = required.contains(&name.as_str());
            if deeper && !is_required {
                continue;
            }
            let mut vs = self.variants(sub, depth + 1);
            if deeper {
                vs.truncate(1);
            }
            if vs.is_empty() {
                if is_required {
                    return Vec::new();
                }
                continue;
            }
            fields.push((name.clone(), is_required, vs));
        }
        // Required names without a property schema: any value.
        for r in &required {
            if !props.contains_key(*r) {
                fields.push((r.to_string(), true, vec![json!(TEXT)]));
            }
        }
        // Extra keys: additionalProperties / patternProperties.
        let mut extras: Vec<(String, Vec<Value>)> = Vec::new();
        if !deeper {
            if let Some(extra) = obj.get("additionalProperties").filter(|a| a.is_object()) {
                let vs = self.variants(extra, depth + 1);
                if !vs.is_empty() {
                    extras.push(("extra_key".to_string(), vs));
                }
            }
            if let Some(pp) = obj.get("patternProperties").and_then(Value::as_object) {
                for (pattern, sub) in pp {
                    let Some(key) = regex_example(pattern) else {
                        continue;
                    };
                    let vs = self.variants(sub, depth + 1);
                    if !vs.is_empty() && !props.contains_key(&key) {
                        extras.push((key, vs));
                    }
                }
            }
        }
        let min_props = obj
            .get("minProperties")
            .and_then(Value::as_u64)
            .unwrap_or(0) as usize;
        let max_props = obj
            .get("maxProperties")
            .and_then(Value::as_u64)
            .map(|m| m as usize);
        let build = |pick: &dyn Fn(usize, &Vec<Value>) -> Option<Value>, with_optional: bool| {
            let mut m = Map::new();
            for (i, (name, is_required, vs)) in fields.iter().enumerate() {
                if (*is_required || with_optional)
                    && let Some(v) = pick(i, vs)
                {
                    m.insert(name.clone(), v);
                }
            }
            if with_optional {
                for (i, (name, vs)) in extras.iter().enumerate() {
                    if let Some(v) = pick(fields.len() + i, vs) {
                        m.entry(name.clone()).or_insert(v);
                    }
                }
            }
            m
        };
        let mut out = Vec::new();
        // 1. Required only, simplest variants.
        out.push(build(&|_, vs| vs.first().cloned(), false));
        // 2. Every property, simplest variants.
        out.push(build(&|_, vs| vs.first().cloned(), true));
        // 3. Covering: instance i takes variant (i + rotation) of each property.
        let widest = fields
            .iter()
            .map(|f| f.2.len())
            .chain(extras.iter().map(|e| e.1.len()))
            .max()
            .unwrap_or(0);
        let seed = self.options.seed as usize;
        for i in 1..widest.min(self.max) {
            out.push(build(
                &|j, vs| vs.get((i + j * seed) % vs.len()).cloned(),
                true,
            ));
            out.push(build(
                &|j, vs| vs.get((i + j * seed) % vs.len()).cloned(),
                false,
            ));
        }
        // 4. Without any object variant, an empty object is still one.
        let mut values: Vec<Value> = out
            .into_iter()
            .filter(|m| m.len() >= min_props && max_props.is_none_or(|max| m.len() <= max))
            .map(Value::Object)
            .collect();
        if values.is_empty() && max_props.is_some() {
            // Too many properties: keep the required ones.
            values.push(Value::Object(build(&|_, vs| vs.first().cloned(), false)));
        }
        dedupe(&mut values);
        values
    }
}

/// Values of every type, for `{}` and `true`.
fn any_values() -> Vec<Value> {
    vec![
        json!(TEXT),
        json!(1),
        json!(true),
        Value::Null,
        json!({"k": "v"}),
        json!([1, "a"]),
        json!(2.5),
    ]
}

/// Whether `value` has one of the schema's `type`s (any value when it has none).
fn type_allows(obj: &Map<String, Value>, value: &Value) -> bool {
    let allows = |t: &str| match (t, value) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("number", Value::Number(_))
        | ("string", Value::String(_))
        | ("array", Value::Array(_))
        | ("object", Value::Object(_)) => true,
        ("integer", Value::Number(n)) => n.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => false,
    };
    match obj.get("type") {
        Some(Value::String(t)) => allows(t),
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).any(allows),
        _ => true,
    }
}

/// The type a schema without `type` implies by its keywords.
fn infer_type(obj: &Map<String, Value>) -> Option<&'static str> {
    let has = |keys: &[&str]| keys.iter().any(|k| obj.contains_key(*k));
    if has(&[
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
    ]) {
        Some("object")
    } else if has(&["items", "prefixItems", "minItems", "maxItems"]) {
        Some("array")
    } else if has(&["minLength", "maxLength", "pattern", "format"]) {
        Some("string")
    } else if has(&[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ]) {
        Some("number")
    } else {
        None
    }
}

/// `a` and `b` as one schema: properties and `required` united, `type` intersected, other
/// keywords of `b` over `a`'s.
fn merge(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Bool(false), _) | (_, Value::Bool(false)) => return Value::Bool(false),
        (Value::Bool(true), _) => return b.clone(),
        (_, Value::Bool(true)) => return a.clone(),
        _ => {}
    }
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return if b.is_object() { b.clone() } else { a.clone() };
    };
    let mut out = a.clone();
    for (k, v) in b {
        match (k.as_str(), out.get_mut(k)) {
            ("properties", Some(Value::Object(mine))) => {
                if let Value::Object(theirs) = v {
                    for (name, s) in theirs {
                        let merged = match mine.get(name) {
                            Some(existing) => merge(existing, s),
                            None => s.clone(),
                        };
                        mine.insert(name.clone(), merged);
                    }
                }
            }
            ("required", Some(Value::Array(mine))) => {
                if let Value::Array(theirs) = v {
                    for r in theirs {
                        if !mine.contains(r) {
                            mine.push(r.clone());
                        }
                    }
                }
            }
            ("type", Some(mine)) => {
                let set = |t: &Value| -> Vec<String> {
                    match t {
                        Value::String(s) => vec![s.clone()],
                        Value::Array(a) => a
                            .iter()
                            .filter_map(|x| x.as_str().map(String::from))
                            .collect(),
                        _ => Vec::new(),
                    }
                };
                let (x, y) = (set(mine), set(v));
                let mut both: Vec<String> = x
                    .iter()
                    .filter(|t| {
                        y.contains(t)
                            || (t.as_str() == "number" && y.iter().any(|u| u == "integer"))
                    })
                    .map(|t| {
                        if t == "number" && y.iter().any(|u| u == "integer") {
                            "integer".to_string()
                        } else {
                            t.clone()
                        }
                    })
                    .collect();
                both.extend(
                    y.iter()
                        .filter(|t| t.as_str() == "integer" && x.iter().any(|u| u == "number"))
                        .cloned(),
                );
                both.dedup();
                *mine = match both.len() {
                    1 => Value::String(both.remove(0)),
                    _ => Value::Array(both.into_iter().map(Value::String).collect()),
                };
            }
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    Value::Object(out)
}

/// Each list's first values first, then their seconds, … (at most `max`).
/// One object with the properties of the first object instance of each list, when at least
/// two lists have one and no property is given two different values.
fn combine_objects(lists: &[Vec<Value>]) -> Option<Value> {
    let mut combined = serde_json::Map::new();
    let mut parts = 0;
    for list in lists {
        let Some(Value::Object(obj)) = list.iter().find(|v| v.is_object()) else {
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

fn interleave(lists: Vec<Vec<Value>>, max: usize) -> Vec<Value> {
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

fn dedupe(values: &mut Vec<Value>) {
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

/// String variants: the format's or pattern's example, fitted to the length bounds.
fn strings(obj: &Map<String, Value>) -> Vec<Value> {
    let min = obj.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = obj
        .get("maxLength")
        .and_then(Value::as_u64)
        .map_or(MAX_STRING.max(min), |m| m as usize);
    let base: Vec<String> = if let Some(p) = obj.get("pattern").and_then(Value::as_str) {
        match regex_example(p) {
            Some(e) => vec![e],
            None => vec![TEXT.to_string()],
        }
    } else if let Some(f) = obj.get("format").and_then(Value::as_str) {
        vec![format_example(f).to_string()]
    } else {
        vec![
            TEXT.to_string(),
            "Zoë \"quoted\" \\ text".to_string(),
            String::new(),
        ]
    };
    let mut out = Vec::new();
    for s in base {
        let n = s.chars().count();
        let fitted = if n < min {
            let mut s = s;
            let pad = min.min(MAX_STRING.max(min)) - n;
            s.extend(std::iter::repeat_n('x', pad));
            s
        } else if n > max {
            s.chars().take(max).collect()
        } else {
            s
        };
        out.push(Value::String(fitted));
    }
    dedupe(&mut out);
    out
}

fn format_example(format: &str) -> &'static str {
    match format {
        "date-time" => "2024-01-02T03:04:05Z",
        "date" => "2024-01-02",
        "time" => "03:04:05Z",
        "duration" => "P1D",
        "email" | "idn-email" => "user@example.com",
        "uri" | "url" | "iri" | "uri-reference" | "iri-reference" => "https://example.com/a",
        "uri-template" => "https://example.com/{id}",
        "uuid" => "123e4567-e89b-12d3-a456-426614174000",
        "ipv4" => "192.0.2.1",
        "ipv6" => "2001:db8::1",
        "hostname" | "idn-hostname" => "example.com",
        "regex" => "^a+$",
        "json-pointer" => "/a/0",
        "relative-json-pointer" => "0/a",
        "byte" => "aGVsbG8=",
        _ => TEXT,
    }
}

/// Number variants: the bounds, a middle value, small values; non-integral ones for
/// `number`; all filtered by bounds and `multipleOf`.
fn numbers(obj: &Map<String, Value>, integer: bool) -> Vec<Value> {
    let f = |k: &str| obj.get(k).and_then(Value::as_f64);
    let mut lo = f("minimum");
    let mut hi = f("maximum");
    let mut lo_excl = false;
    let mut hi_excl = false;
    // draft-06+: numeric exclusive bounds; draft-04: booleans.
    match obj.get("exclusiveMinimum") {
        Some(Value::Bool(true)) => lo_excl = true,
        Some(v) if v.is_number() => {
            let e = v.as_f64().unwrap_or(0.0);
            if lo.is_none_or(|l| e >= l) {
                lo = Some(e);
                lo_excl = true;
            }
        }
        _ => {}
    }
    match obj.get("exclusiveMaximum") {
        Some(Value::Bool(true)) => hi_excl = true,
        Some(v) if v.is_number() => {
            let e = v.as_f64().unwrap_or(0.0);
            if hi.is_none_or(|h| e <= h) {
                hi = Some(e);
                hi_excl = true;
            }
        }
        _ => {}
    }
    let step = f("multipleOf").filter(|m| *m > 0.0);
    let unit = if integer { 1.0 } else { step.unwrap_or(0.5) };
    let mut candidates: Vec<f64> = Vec::new();
    if let Some(l) = lo {
        candidates.push(if lo_excl { l + unit } else { l });
    }
    if let Some(h) = hi {
        candidates.push(if hi_excl { h - unit } else { h });
    }
    if let (Some(l), Some(h)) = (lo, hi) {
        candidates.push(((l + h) / 2.0).floor());
    }
    candidates.extend([1.0, 0.0, 42.0, -1.0, 1_000_000.0]);
    if !integer {
        candidates.extend([1.5, -2.25]);
    }
    let fits = |x: f64| {
        lo.is_none_or(|l| if lo_excl { x > l } else { x >= l })
            && hi.is_none_or(|h| if hi_excl { x < h } else { x <= h })
            && step.is_none_or(|m| ((x / m) - (x / m).round()).abs() < 1e-9)
            && (!integer || x.fract() == 0.0)
            && x.is_finite()
    };
    let mut out = Vec::new();
    for x in candidates {
        let x = if integer { x.ceil() } else { x };
        if !fits(x) {
            continue;
        }
        let v = if x.fract() == 0.0 && x.abs() < 9.2e18 {
            Value::Number(Number::from(x as i64))
        } else {
            match Number::from_f64(x) {
                Some(n) => Value::Number(n),
                None => continue,
            }
        };
        out.push(v);
    }
    dedupe(&mut out);
    out
}

/// One string matching `pattern` (a small subset of regex syntax), or `None` when the
/// pattern uses what this does not model (lookaround, backreferences).
pub fn regex_example(pattern: &str) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut p = Regex { chars, at: 0 };
    let out = p.alternation()?;
    (p.at == p.chars.len()).then_some(out)
}

/// A recursive-descent walk of a regex, writing the shortest example of each piece.
struct Regex {
    chars: Vec<char>,
    at: usize,
}

impl Regex {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    /// The first alternative of `a|b|…` (each is parsed, to stay in step).
    fn alternation(&mut self) -> Option<String> {
        let first = self.sequence()?;
        while self.peek() == Some('|') {
            self.at += 1;
            self.sequence()?;
        }
        Some(first)
    }

    fn sequence(&mut self) -> Option<String> {
        let mut out = String::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            let (min, _max) = self.quantifier()?;
            for _ in 0..min.min(64) {
                out.push_str(&atom);
            }
        }
        Some(out)
    }

    /// One atom's example (anchors give "").
    fn atom(&mut self) -> Option<String> {
        let c = self.peek()?;
        self.at += 1;
        match c {
            '^' | '$' => Some(String::new()),
            '.' => Some("a".into()),
            '(' => {
                if self.peek() == Some('?') {
                    self.at += 1;
                    match self.peek() {
                        Some(':') => self.at += 1,
                        // (?<name>…) named groups.
                        Some('<') if !matches!(self.chars.get(self.at + 1), Some('=' | '!')) => {
                            while self.peek().is_some_and(|c| c != '>') {
                                self.at += 1;
                            }
                            self.at += 1;
                        }
                        _ => return None,
                    }
                }
                let inner = self.alternation()?;
                (self.peek() == Some(')')).then_some(())?;
                self.at += 1;
                Some(inner)
            }
            '[' => self.class().map(String::from),
            '\\' => {
                let e = self.peek()?;
                self.at += 1;
                match e {
                    'd' => Some("0".into()),
                    'w' => Some("a".into()),
                    's' => Some(" ".into()),
                    'D' | 'W' | 'S' => Some("-".into()),
                    'b' | 'B' | 'A' | 'z' | 'Z' => Some(String::new()),
                    'n' => Some("\n".into()),
                    't' => Some("\t".into()),
                    'u' => {
                        let hex: String = self.chars.get(self.at..self.at + 4)?.iter().collect();
                        self.at += 4;
                        char::from_u32(u32::from_str_radix(&hex, 16).ok()?).map(String::from)
                    }
                    c if c.is_ascii_digit() => None,
                    c => Some(c.to_string()),
                }
            }
            c => Some(c.to_string()),
        }
    }

    /// `[…]`: a character of the class (the first one that fits).
    fn class(&mut self) -> Option<char> {
        let negated = self.peek() == Some('^');
        if negated {
            self.at += 1;
        }
        let mut members: Vec<(char, char)> = Vec::new();
        let mut first = true;
        loop {
            let c = self.peek()?;
            if c == ']' && !first {
                self.at += 1;
                break;
            }
            first = false;
            self.at += 1;
            let lo = if c == '\\' {
                let e = self.peek()?;
                self.at += 1;
                match e {
                    'd' => {
                        members.push(('0', '9'));
                        continue;
                    }
                    'w' => {
                        members.extend([('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')]);
                        continue;
                    }
                    's' => {
                        members.push((' ', ' '));
                        continue;
                    }
                    'n' => '\n',
                    't' => '\t',
                    e => e,
                }
            } else {
                c
            };
            if self.peek() == Some('-') && self.chars.get(self.at + 1).is_some_and(|c| *c != ']') {
                self.at += 1;
                let mut hi = self.peek()?;
                self.at += 1;
                if hi == '\\' {
                    hi = self.peek()?;
                    self.at += 1;
                }
                members.push((lo, hi));
            } else {
                members.push((lo, lo));
            }
        }
        if negated {
            return ['a', 'x', '0', '_', 'Q']
                .into_iter()
                .find(|c| !members.iter().any(|(lo, hi)| lo <= c && c <= hi));
        }
        // Prefer a letter or digit inside the class.
        members
            .iter()
            .find_map(|(lo, hi)| ['a', 'A', '0'].into_iter().find(|c| lo <= c && c <= hi))
            .or_else(|| members.first().map(|(lo, _)| *lo))
    }

    /// `?`, `*`, `+`, `{n}`, `{n,}`, `{n,m}` (and a lazy `?` after them): (min, max).
    fn quantifier(&mut self) -> Option<(usize, Option<usize>)> {
        let q = match self.peek() {
            Some('?') => (0, Some(1)),
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('{') => {
                let close = self.chars[self.at..].iter().position(|c| *c == '}')?;
                let body: String = self.chars[self.at + 1..self.at + close].iter().collect();
                let (min, max) = match body.split_once(',') {
                    None => {
                        let n = body.trim().parse().ok()?;
                        (n, Some(n))
                    }
                    Some((a, b)) => (
                        a.trim().parse().ok()?,
                        if b.trim().is_empty() {
                            None
                        } else {
                            Some(b.trim().parse().ok()?)
                        },
                    ),
                };
                self.at += close;
                (min, max)
            }
            _ => return Some((1, Some(1))),
        };
        self.at += 1;
        if matches!(self.peek(), Some('?' | '+')) {
            self.at += 1;
        }
        Some(q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(schema: &Value) -> Vec<Value> {
        let g = generate(schema, &Options::default());
        let v = jsonschema::validator_for(schema).expect("schema builds");
        for i in &g.instances {
            assert!(v.is_valid(i), "{i} is not valid for {schema}");
        }
        g.instances
    }

    #[test]
    fn objects_cover_required_optional_and_every_variant() {
        let s = json!({"type": "object", "properties": {
            "q": {"type": "string"},
            "state": {"enum": ["open", "closed", "all"]},
            "n": {"type": ["integer", "null"], "minimum": 1, "maximum": 100}
        }, "required": ["q"]});
        let out = valid(&s);
        assert_eq!(out[0], json!({"q": "text"}));
        for state in ["open", "closed", "all"] {
            assert!(out.iter().any(|i| i["state"] == state), "{state}: {out:?}");
        }
        for n in [json!(1), json!(100), Value::Null] {
            assert!(out.iter().any(|i| i.get("n") == Some(&n)), "{n}: {out:?}");
        }
    }

    #[test]
    fn unions_give_each_branch_and_scalars() {
        let s = json!({"type": "object", "properties": {"sort": {"anyOf": [
            {"const": 1}, {"const": -1}, {"enum": ["asc", "desc"]},
            {"type": "object", "properties": {"$meta": {"type": "string"}}, "required": ["$meta"]}
        ]}}, "required": ["sort"]});
        let out = valid(&s);
        for v in [json!(1), json!(-1), json!("asc"), json!("desc")] {
            assert!(out.iter().any(|i| i["sort"] == v), "{v}: {out:?}");
        }
        assert!(out.iter().any(|i| i["sort"].is_object()), "{out:?}");
    }

    #[test]
    fn any_of_open_objects_gives_a_value_matching_both() {
        let s = json!({"type": "object", "properties": {"target": {"anyOf": [
            {"type": "string"},
            {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
            {"type": "object", "properties": {"line": {"type": "integer"}}, "required": ["line"]}
        ]}}, "required": ["target"]});
        let out = valid(&s);
        assert!(
            out.iter()
                .any(|i| i["target"].get("path").is_some() && i["target"].get("line").is_some()),
            "{out:?}"
        );
        // `oneOf` forbids matching both.
        let one_of = json!({"oneOf": [
            {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
            {"type": "object", "properties": {"line": {"type": "integer"}}, "required": ["line"]}
        ]});
        let g = generate(&one_of, &Options::default());
        assert!(
            g.instances
                .iter()
                .all(|i| i.as_object().is_some_and(|o| o.len() == 1))
        );
    }

    #[test]
    fn refs_recursion_and_all_of() {
        let s = json!({"$defs": {"Node": {"type": "object", "properties": {
            "name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
        }, "required": ["name"]}},
        "allOf": [{"$ref": "#/$defs/Node"}, {"properties": {"root": {"type": "boolean"}}, "required": ["root"]}]});
        let out = valid(&s);
        assert!(out.iter().all(|i| i["root"].is_boolean()), "{out:?}");
        assert!(
            out.iter()
                .any(|i| i["children"].as_array().is_some_and(|c| !c.is_empty()))
        );
    }

    #[test]
    fn numbers_strings_and_arrays_respect_bounds() {
        let out = valid(
            &json!({"type": "number", "exclusiveMinimum": 0, "maximum": 10, "multipleOf": 0.5}),
        );
        assert!(
            out.contains(&json!(10)) && out.contains(&json!(0.5)),
            "{out:?}"
        );
        let out = valid(&json!({"type": "string", "pattern": "^[A-Z]{2}-\\d{3}(?:-[a-z]+)?$"}));
        assert_eq!(out, vec![json!("AA-000")]);
        let out = valid(&json!({"type": "string", "minLength": 8, "format": "date"}));
        assert_eq!(out, vec![json!("2024-01-02")]);
        let out = valid(
            &json!({"type": "array", "items": {"type": "integer"}, "minItems": 2, "uniqueItems": true}),
        );
        assert!(
            !out.is_empty()
                && out
                    .iter()
                    .all(|a| a.as_array().is_some_and(|a| a.len() >= 2))
        );
        let out = valid(
            &json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]}),
        );
        assert!(out.contains(&json!(["text", 1])), "{out:?}");
    }

    #[test]
    fn impossible_schemas_are_skipped_with_a_reason() {
        let g = generate(&json!(false), &Options::default());
        assert!(g.instances.is_empty());
        assert!(g.skipped.is_some_and(|s| s.contains("false")));
        let forever = json!({"$defs": {"A": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "required": ["a"]}}, "$ref": "#/$defs/A"});
        let g = generate(&forever, &Options::default());
        assert!(g.instances.is_empty() && g.skipped.is_some());
        // Nothing panics on odd input.
        for s in [
            json!(null),
            json!(3),
            json!({"type": 7}),
            json!({"minItems": 1000000, "items": {}}),
            json!({"pattern": "(?=x)"}),
        ] {
            let _ = generate(&s, &Options::default());
        }
    }

    #[test]
    fn deterministic() {
        let s = json!({"type": "object", "properties": {"a": {"type": ["string", "integer", "null"]}, "b": {"type": "boolean"}}});
        assert_eq!(
            generate(&s, &Options::default()),
            generate(&s, &Options::default())
        );
    }
}
