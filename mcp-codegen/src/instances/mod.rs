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

// One concern per file: the walk over a schema (here), arrays and objects (`containers`),
// strings and numbers (`scalars`), examples of regex patterns (`pattern`), schema helpers
// (`schemas`: merging, types) and lists of variants (`lists`).
mod containers;
mod lists;
mod pattern;
mod scalars;
mod schemas;
mod smallest;

use serde_json::{Map, Value, json};

use crate::schema::is_annotation;

use lists::{combine_objects, dedupe, interleave};
pub use pattern::regex_example;
use scalars::{numbers, strings};
use schemas::{any_values, infer_type, merge, type_allows};

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
        hops: 0,
        steps: MAX_VARIANT_STEPS,
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
    /// `$ref`s and combinators followed on the current path without a value level in
    /// between (only value levels count towards the depth; this bounds the rest).
    hops: usize,
    /// Schemas the walk may still visit before it makes only the smallest value of each:
    /// depth and hops bound one path, this bounds the whole walk (a union whose branches
    /// refer back to it doubles the paths at every hop).
    steps: usize,
}

/// Most schemas one [`generate`] visits for variants (a GitHub tool takes a few hundred).
const MAX_VARIANT_STEPS: usize = 20_000;

/// Most `$ref`s and combinators followed on one path between two value levels.
const MAX_HOPS: usize = 64;

impl<'a> Gen<'a> {
    /// The variants of `schema`, simplest first (empty: no value found).
    fn variants(&mut self, schema: &Value, depth: usize) -> Vec<Value> {
        let Some(obj) = schema.as_object() else {
            return match schema {
                Value::Bool(false) => Vec::new(),
                _ => any_values(),
            };
        };
        self.steps = self.steps.saturating_sub(1);
        if depth > self.options.max_depth || self.hops > MAX_HOPS || self.steps == 0 {
            return self.smallest(schema).into_iter().collect();
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
            return self.hop(&merged, depth);
        }
        if let Some(Value::Array(parts)) = obj.get("allOf") {
            let mut rest = obj.clone();
            rest.remove("allOf");
            let mut merged = Value::Object(rest);
            for p in parts {
                let p = self.deref_all(p, depth);
                merged = merge(&merged, &p);
            }
            return self.hop(&merged, depth);
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
                let merged: Vec<Value> = branches
                    .iter()
                    .map(|b| {
                        let b = self.deref_all(b, depth);
                        if rest.keys().all(|k| is_annotation(k)) {
                            b
                        } else {
                            merge(&Value::Object(rest.clone()), &b)
                        }
                    })
                    .collect();
                let lists: Vec<Vec<Value>> = merged.iter().map(|b| self.hop(b, depth)).collect();
                // `anyOf` accepts a value that matches several branches at once: one object
                // holding the properties of every object branch, when an open branch
                // accepts it.
                let combined = if key == "anyOf" {
                    combine_objects(&merged, &lists)
                } else {
                    Vec::new()
                };
                let mut out = interleave(lists, self.max);
                out.truncate(self.max.saturating_sub(combined.len()));
                for c in combined {
                    if !out.contains(&c) {
                        out.push(c);
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

    /// The variants of a schema that applies to the same value (a `$ref`'s target, the
    /// merged `allOf`, a union's branch): no value level deeper.
    fn hop(&mut self, schema: &Value, depth: usize) -> Vec<Value> {
        self.hops += 1;
        let out = self.variants(schema, depth);
        self.hops -= 1;
        out
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

    /// A union whose branches refer back to it doubles the work at every hop: without a
    /// bound on the whole walk, 64 hops are 2^64 calls (a random schema of the property
    /// tests once ran for half an hour at 4 GB). Each of these ends at once, with values.
    #[test]
    fn self_referring_unions_end_with_values() {
        for schema in [
            json!({"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}, {"type": "string"}]}},
                   "$ref": "#/$defs/a"}),
            json!({"$defs": {"a": {"oneOf": [{"$ref": "#/$defs/b"}, {"$ref": "#/$defs/b"}, {"$ref": "#/$defs/b"}]},
                             "b": {"anyOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}, {"type": "integer"}]}},
                   "type": "object", "properties": {"x": {"$ref": "#/$defs/a"}, "y": {"$ref": "#/$defs/b"}}}),
        ] {
            let out = generate(&schema, &Options::default());
            assert!(!out.instances.is_empty(), "{schema}: {:?}", out.skipped);
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
        // No open branch takes the whole: a closed branch, and a map of strings that the
        // closed branch's integer `a` breaks (found by the property test).
        let s = json!({"type": "object", "properties": {"a": {"anyOf": [
            {"type": "object", "additionalProperties": false, "properties": {"a": {"type": "integer"}}},
            {"type": "object", "additionalProperties": {"type": "string"}}
        ]}}});
        let out = valid(&s);
        assert!(
            out.iter()
                .all(|i| i["a"].as_object().is_none_or(|o| o.len() <= 1)),
            "{out:?}"
        );
        // An open branch that declares a key another branch's instance fills: not combined
        // (the value was made for the other branch's schema).
        let s = json!({"anyOf": [
            {"type": "object", "properties": {"a": {"type": "integer"}}},
            {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "required": ["a", "b"], "additionalProperties": false}
        ]});
        valid(&s);
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
    fn values_that_expose_lossy_unions_and_nullability() {
        // A union of open objects: a value with only the last branch's property (which the
        // first branch, all optional, also accepts) and one with every branch's properties.
        let s = json!({"$defs": {
            "A": {"type": "object", "properties": {"threshold": {"type": "number"}}},
            "B": {"type": "object", "properties": {"count": {"type": "integer"}}},
            "C": {"type": "object", "properties": {"time_window": {"type": "integer"}}}
        }, "type": "object", "properties": {"c": {"anyOf": [
            {"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}, {"$ref": "#/$defs/C"}
        ]}}, "required": ["c"]});
        let out = valid(&s);
        let only = |i: &Value, key: &str| {
            i["c"]
                .as_object()
                .is_some_and(|o| o.len() == 1 && o.contains_key(key))
        };
        assert!(out.iter().any(|i| only(i, "time_window")), "{out:?}");
        assert!(
            out.iter()
                .any(|i| i["c"].as_object().is_some_and(|o| o.len() == 3)),
            "{out:?}"
        );
        // A constant tag: each tag with its own nested payload, every property of it set.
        let s = json!({"type": "object", "properties": {"r": {"anyOf": [
            {"type": "object", "properties": {"op": {"const": "get"}, "params": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}}, "required": ["op", "params"]},
            {"type": "object", "properties": {"op": {"const": "list"}, "params": {"type": "object", "properties": {"limit": {"type": "integer"}, "page": {"type": "integer"}}}}, "required": ["op"]}
        ]}}, "required": ["r"]});
        let out = valid(&s);
        assert!(
            out.iter()
                .any(|i| i["r"]["op"] == "get" && i["r"]["params"]["id"].is_string())
        );
        assert!(out.iter().any(|i| i["r"]["op"] == "list"
            && i["r"]["params"]["limit"].is_number()
            && i["r"]["params"]["page"].is_number()));
        // A recursion: `null` at depth 2, where a link is required but nullable.
        let s = json!({"$defs": {"Link": {"type": "object", "properties": {
            "v": {"type": "integer"}, "next": {"anyOf": [{"$ref": "#/$defs/Link"}, {"type": "null"}]}
        }, "required": ["v", "next"]}}, "$ref": "#/$defs/Link"});
        let out = valid(&s);
        assert!(
            out.iter()
                .any(|i| i["next"]["next"].is_null() && i["next"].is_object()),
            "{out:?}"
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
