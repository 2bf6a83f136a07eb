//! Array and object variants: tuples, lengths and uniqueness; required and optional
//! properties combined by covering, extra properties, property counts.

use serde_json::{Map, Value, json};

use super::lists::dedupe;
use super::pattern::regex_example;
use super::{Gen, MAX_ITEMS, TEXT};

impl Gen<'_> {
    pub(super) fn arrays(&mut self, obj: &Map<String, Value>, depth: usize) -> Vec<Value> {
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
        let items = match (deeper, min) {
            (true, 0) => Vec::new(),
            (true, _) => self.smallest(&item_schema).into_iter().collect(),
            _ => self.variants(&item_schema, depth + 1),
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

    pub(super) fn objects(&mut self, obj: &Map<String, Value>, depth: usize) -> Vec<Value> {
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
            // Below the depth limit: the smallest value that ends (a required recursion).
            let vs = if deeper {
                self.smallest(sub).into_iter().collect()
            } else {
                self.variants(sub, depth + 1)
            };
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
        // 2b. Presence: an optional property sent as an empty value (`[]`, `{}`, `""`, `0`,
        // `false`) must come back sent, not left out as if absent: all of them at once, and
        // each alone beside the required ones (one invalid empty would hide the others).
        let empty_of = |vs: &Vec<Value>| vs.iter().find(|v| is_empty_value(v)).cloned();
        let optional_empties: Vec<usize> = (0..fields.len())
            .filter(|&i| !fields[i].1 && empty_of(&fields[i].2).is_some())
            .collect();
        if !optional_empties.is_empty() {
            let mut all = build(&|_, vs| vs.first().cloned(), false);
            for &i in &optional_empties {
                if let Some(v) = empty_of(&fields[i].2) {
                    all.insert(fields[i].0.clone(), v);
                }
            }
            out.push(all);
            if optional_empties.len() > 1 {
                for &i in &optional_empties {
                    let mut one = build(&|_, vs| vs.first().cloned(), false);
                    if let Some(v) = empty_of(&fields[i].2) {
                        one.insert(fields[i].0.clone(), v);
                    }
                    out.push(one);
                }
            }
        }
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

/// `[]`, `{}`, `""`, `0` or `false`: a value a type may mistake for "absent".
fn is_empty_value(v: &Value) -> bool {
    match v {
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::String(s) => s.is_empty(),
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::Bool(b) => !b,
        Value::Null => false,
    }
}
