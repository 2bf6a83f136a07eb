//! The smallest finite value of a schema, for the places below the depth limit: a required
//! recursion (`next: L | null`, a chain of definitions that ends ten levels down) gets the
//! value that ends it soonest instead of no value at all.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::scalars::{numbers, strings};
use super::schemas::{infer_type, merge, type_allows};
use super::{Gen, TEXT};
use crate::schema::is_annotation;

/// Schemas visited at most per search (a union of references can branch at every level).
const MAX_STEPS: usize = 20_000;
/// Schemas nested at most on one path of the search (an `allOf` that merges its own
/// reference back in never ends otherwise; the stack stays small).
const MAX_NESTED: usize = 128;

/// One search: the references on the current path (a reference back into it cannot end the
/// value), the values found for references (valid wherever they are used), steps left.
struct Search {
    path: Vec<String>,
    found: HashMap<String, Value>,
    steps: usize,
    nested: usize,
}

impl Gen<'_> {
    /// The smallest value `schema` allows that a finite search finds (`None`: none within
    /// [`MAX_STEPS`], or the schema allows nothing).
    pub(super) fn smallest(&self, schema: &Value) -> Option<Value> {
        let mut search = Search {
            path: Vec::new(),
            found: HashMap::new(),
            steps: MAX_STEPS,
            nested: 0,
        };
        self.smallest_in(schema, &mut search)
    }

    fn smallest_in(&self, schema: &Value, s: &mut Search) -> Option<Value> {
        if s.nested >= MAX_NESTED {
            return None;
        }
        s.nested += 1;
        let v = self.smallest_here(schema, s);
        s.nested -= 1;
        v
    }

    fn smallest_here(&self, schema: &Value, s: &mut Search) -> Option<Value> {
        s.steps = s.steps.checked_sub(1)?;
        let Some(obj) = schema.as_object() else {
            return match schema {
                Value::Bool(false) => None,
                _ => Some(json!(TEXT)),
            };
        };
        if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
            let pointer = crate::schema::ref_pointer(self.root, r)?;
            let target = self.root.pointer(&pointer)?;
            let mut rest = obj.clone();
            rest.remove("$ref");
            let plain = rest.keys().all(|k| is_annotation(k));
            if plain && let Some(v) = s.found.get(&pointer) {
                return Some(v.clone());
            }
            if s.path.contains(&pointer) {
                return None;
            }
            s.path.push(pointer.clone());
            let merged = if plain {
                target.clone()
            } else {
                merge(target, &Value::Object(rest))
            };
            let v = self.smallest_in(&merged, s);
            s.path.pop();
            if plain && let Some(v) = &v {
                s.found.insert(pointer, v.clone());
            }
            return v;
        }
        if let Some(Value::Array(parts)) = obj.get("allOf") {
            let mut rest = obj.clone();
            rest.remove("allOf");
            let mut merged = Value::Object(rest);
            for p in parts {
                merged = merge(&merged, &self.deref_all(p, 0));
            }
            return self.smallest_in(&merged, s);
        }
        if let Some(c) = obj.get("const") {
            return type_allows(obj, c).then(|| c.clone());
        }
        if let Some(Value::Array(values)) = obj.get("enum") {
            return values.iter().find(|v| type_allows(obj, v)).cloned();
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = obj.get(key) {
                let mut rest = obj.clone();
                rest.remove(key);
                let plain = rest.keys().all(|k| is_annotation(k));
                return branches
                    .iter()
                    .filter_map(|b| {
                        let b = if plain {
                            b.clone()
                        } else {
                            merge(&Value::Object(rest.clone()), &self.deref_all(b, 0))
                        };
                        self.smallest_in(&b, s)
                    })
                    .min_by_key(|v| v.to_string().len());
            }
        }
        let types: Vec<&str> = match obj.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => infer_type(obj).into_iter().collect(),
        };
        if types.is_empty() {
            return Some(json!(TEXT));
        }
        types
            .into_iter()
            .filter_map(|t| self.smallest_typed(t, obj, s))
            .min_by_key(|v| v.to_string().len())
    }

    fn smallest_typed(&self, t: &str, obj: &Map<String, Value>, s: &mut Search) -> Option<Value> {
        match t {
            "null" => Some(Value::Null),
            "boolean" => Some(json!(false)),
            "string" => strings(obj).into_iter().next(),
            "integer" => numbers(obj, true).into_iter().next(),
            "number" => numbers(obj, false).into_iter().next(),
            "array" => {
                let min = obj.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
                if min == 0 {
                    return Some(json!([]));
                }
                let item = match (obj.get("prefixItems"), obj.get("items")) {
                    (Some(Value::Array(p)), _) | (_, Some(Value::Array(p))) => {
                        return p
                            .iter()
                            .take(min)
                            .map(|sub| self.smallest_in(sub, s))
                            .collect::<Option<Vec<Value>>>()
                            .map(Value::Array);
                    }
                    (_, Some(items)) => self.smallest_in(items, s)?,
                    _ => json!(TEXT),
                };
                Some(Value::Array(vec![item; min]))
            }
            "object" => {
                let props = obj.get("properties").and_then(Value::as_object);
                let mut out = Map::new();
                for name in obj
                    .get("required")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    let v = match props.and_then(|p| p.get(name)) {
                        Some(sub) => self.smallest_in(sub, s)?,
                        None => json!(TEXT),
                    };
                    out.insert(name.to_string(), v);
                }
                Some(Value::Object(out))
            }
            _ => None,
        }
    }
}
