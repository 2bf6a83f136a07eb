//! A small JSON Schema validator for tool arguments of untyped servers.
//!
//! The `jsonschema` crate pulls regex engines, big-number and URI libraries into every user's
//! build; tool input schemas use a small subset, checked here.
//!
//! **Checked:** `type` (string or list; `integer` is a number without fraction), `enum`,
//! `const`, `required`, `properties`, `additionalProperties` (boolean or schema),
//! `minProperties`/`maxProperties`, `items` (schema, or a list for tuples), `prefixItems`,
//! `minItems`/`maxItems`, `uniqueItems`, `minLength`/`maxLength` (in characters),
//! `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum` (numeric and draft-4 boolean
//! forms), `multipleOf`, `anyOf`, `oneOf` (exactly one), `allOf`, `not`, OpenAPI's
//! `nullable: true`, and local `$ref`s (`#`, `#/$defs/…`, any JSON pointer).
//!
//! **Not checked** (accepted as valid): `pattern`, `patternProperties` (when present,
//! `additionalProperties` is not enforced either), `format`, `dependencies` /
//! `dependentRequired` / `dependentSchemas`, `if`/`then`/`else`, `propertyNames`,
//! `contains`, `unevaluated*`, remote `$ref`s and `$anchor`s. The server validates again; this
//! check exists to give the model a precise, early message.

use mcp_bindgen_core::schema::{escape, json_type, resolve_local};
use serde_json::{Map, Value};

/// At most this many problems are reported per call.
pub const MAX_ERRORS: usize = 8;
/// Deepest `$ref` chain followed (guards against `{"$ref": "#"}` loops).
const MAX_REF_DEPTH: usize = 64;

/// Validates `instance` against `schema`. `Err` holds one line per problem, each starting
/// with the JSON pointer of the offending value (`/` for the root), at most [`MAX_ERRORS`].
pub fn validate(schema: &Value, instance: &Value) -> Result<(), Vec<String>> {
    let mut v = Validator {
        root: schema,
        errors: Vec::new(),
        ref_depth: 0,
    };
    v.check(schema, instance, "");
    if v.errors.is_empty() {
        Ok(())
    } else {
        v.errors.truncate(MAX_ERRORS);
        Err(v.errors)
    }
}

/// Where `instance` breaks `schema`, as `" (at /path: …; …)"`, or nothing when it does not:
/// added to serde's messages, which name a missing field but not where a wrong type sits.
pub(crate) fn locate(schema: &Value, instance: &Value) -> String {
    match validate(schema, instance) {
        Err(problems) => format!(" (at {})", problems.join("; ")),
        Ok(()) => String::new(),
    }
}

/// `arguments` without the `null`s the schema does not allow where a property is optional,
/// at any depth: what a strict-mode model sends for every optional argument it leaves out
/// (strict mode makes all properties required and the optional ones nullable). A `null` the
/// schema accepts, or one of a required property, is kept (a required `null` the schema
/// rejects is the model's mistake, reported by [`validate`]).
pub fn strip_disallowed_nulls(schema: &Value, arguments: Value) -> Value {
    let mut v = Validator {
        root: schema,
        errors: Vec::new(),
        ref_depth: 0,
    };
    v.strip(schema, arguments, 0)
}

struct Validator<'a> {
    root: &'a Value,
    errors: Vec<String>,
    ref_depth: usize,
}

fn at(path: &str) -> &str {
    if path.is_empty() { "/" } else { path }
}

fn short(v: &Value) -> String {
    mcp_bindgen_core::schema::truncate(&v.to_string(), 57)
}

fn type_matches(t: &str, v: &Value) -> bool {
    match t {
        "integer" => json_type(v) == "integer",
        "number" => v.is_number(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => true,
    }
}

impl<'a> Validator<'a> {
    fn fail(&mut self, path: &str, message: String) {
        if self.errors.len() <= MAX_ERRORS {
            self.errors.push(format!("{}: {message}", at(path)));
        }
    }

    /// Whether `instance` is valid, without recording errors.
    fn is_valid(&mut self, schema: &Value, instance: &Value, path: &str) -> bool {
        let saved = std::mem::take(&mut self.errors);
        self.check(schema, instance, path);
        let ok = self.errors.is_empty();
        self.errors = saved;
        ok
    }

    fn first_error(&mut self, schema: &Value, instance: &Value, path: &str) -> Option<String> {
        let saved = std::mem::take(&mut self.errors);
        self.check(schema, instance, path);
        let first = self.errors.first().cloned();
        self.errors = saved;
        first
    }

    fn check(&mut self, schema: &Value, instance: &Value, path: &str) {
        let obj = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => {
                self.fail(path, "no value is allowed here".into());
                return;
            }
            Value::Object(o) => o,
            _ => return,
        };
        if instance.is_null() && obj.get("nullable") == Some(&Value::Bool(true)) {
            return;
        }
        if let Some(Value::String(r)) = obj.get("$ref") {
            self.check_ref(r, instance, path);
        }
        if let Some(t) = obj.get("type") {
            let ok = match t {
                Value::String(t) => type_matches(t, instance),
                Value::Array(ts) => ts
                    .iter()
                    .any(|t| t.as_str().is_none_or(|t| type_matches(t, instance))),
                _ => true,
            };
            if !ok {
                let expected = match t {
                    Value::String(t) => t.clone(),
                    Value::Array(ts) => ts
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(" or "),
                    _ => String::new(),
                };
                self.fail(
                    path,
                    format!(
                        "expected {expected}, found {} {}",
                        json_type(instance),
                        short(instance)
                    ),
                );
                return;
            }
        }
        if let Some(Value::Array(options)) = obj.get("enum")
            && !options.contains(instance)
            && !options.iter().any(|o| numbers_equal(o, instance))
        {
            let list: Vec<String> = options.iter().map(short).collect();
            self.fail(
                path,
                format!("{} is not one of [{}]", short(instance), list.join(", ")),
            );
        }
        if let Some(c) = obj.get("const")
            && c != instance
            && !numbers_equal(c, instance)
        {
            self.fail(
                path,
                format!("expected {}, found {}", short(c), short(instance)),
            );
        }
        match instance {
            Value::Object(map) => self.check_object(obj, map, path),
            Value::Array(list) => self.check_array(obj, list, path),
            Value::String(s) => self.check_string(obj, s, path),
            Value::Number(_) => self.check_number(obj, instance, path),
            _ => {}
        }
        self.check_combinators(obj, instance, path);
    }

    /// `schema` with its `$ref` chain followed (at most [`MAX_REF_DEPTH`] steps); a ref that
    /// points to nothing or elsewhere leaves the schema as it is.
    fn deref<'s>(&self, mut schema: &'s Value) -> &'s Value
    where
        'a: 's,
    {
        for _ in 0..MAX_REF_DEPTH {
            let Some(r) = schema.get("$ref").and_then(Value::as_str) else {
                break;
            };
            match resolve_local(self.root, r) {
                Some(t) => schema = t,
                None => break,
            }
        }
        schema
    }

    /// See [`strip_disallowed_nulls`]. `depth` bounds recursion through `$ref` cycles.
    fn strip(&mut self, schema: &Value, value: Value, depth: usize) -> Value {
        if depth > MAX_REF_DEPTH {
            return value;
        }
        let schema = self.deref(schema);
        let Some(obj) = schema.as_object() else {
            return value;
        };
        // Unions: the first branch whose stripped value the whole schema accepts.
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = obj.get(key) {
                for branch in branches {
                    let stripped = self.strip(branch, value.clone(), depth + 1);
                    if stripped != value && self.is_valid(schema, &stripped, "") {
                        return stripped;
                    }
                }
            }
        }
        let mut value = value;
        if let Some(Value::Array(all)) = obj.get("allOf") {
            for part in all {
                value = self.strip(part, value, depth + 1);
            }
        }
        match value {
            Value::Object(mut map) => {
                let properties = obj.get("properties").and_then(Value::as_object);
                let required: Vec<&str> = obj
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let keys: Vec<String> = map.keys().cloned().collect();
                for key in keys {
                    let Some(sub) = properties.and_then(|p| p.get(&key)) else {
                        continue;
                    };
                    if map.get(&key).is_some_and(Value::is_null) {
                        if !required.contains(&key.as_str())
                            && !self.is_valid(sub, &Value::Null, "")
                        {
                            map.remove(&key);
                        }
                    } else if let Some(v) = map.remove(&key) {
                        let v = self.strip(sub, v, depth + 1);
                        map.insert(key, v);
                    }
                }
                Value::Object(map)
            }
            Value::Array(items) => match obj.get("items") {
                Some(item) if item.is_object() => Value::Array(
                    items
                        .into_iter()
                        .map(|v| self.strip(item, v, depth + 1))
                        .collect(),
                ),
                _ => Value::Array(items),
            },
            other => other,
        }
    }

    fn check_ref(&mut self, r: &str, instance: &Value, path: &str) {
        if !r.starts_with('#') {
            return; // another document: not resolved here
        }
        let Some(target) = resolve_local(self.root, r) else {
            self.fail(path, format!("the schema's $ref \"{r}\" points to nothing"));
            return;
        };
        if self.ref_depth >= MAX_REF_DEPTH {
            return;
        }
        self.ref_depth += 1;
        self.check(target, instance, path);
        self.ref_depth -= 1;
    }

    fn check_object(&mut self, obj: &Map<String, Value>, map: &Map<String, Value>, path: &str) {
        if let Some(Value::Array(required)) = obj.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !map.contains_key(name) {
                    self.fail(path, format!("missing required property \"{name}\""));
                }
            }
        }
        let props = obj.get("properties").and_then(Value::as_object);
        if let Some(props) = props {
            for (name, sub) in props {
                if let Some(value) = map.get(name) {
                    self.check(sub, value, &format!("{path}/{}", escape(name)));
                }
            }
        }
        if !obj.contains_key("patternProperties") {
            let known = |k: &str| props.is_some_and(|p| p.contains_key(k));
            match obj.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    for k in map.keys().filter(|k| !known(k)) {
                        let allowed: Vec<&str> = props
                            .map(|p| p.keys().map(String::as_str).collect())
                            .unwrap_or_default();
                        self.fail(
                            path,
                            format!(
                                "unexpected property \"{k}\" (allowed: {})",
                                if allowed.is_empty() {
                                    "none".to_string()
                                } else {
                                    allowed.join(", ")
                                }
                            ),
                        );
                    }
                }
                Some(extra @ Value::Object(_)) => {
                    for (k, v) in map.iter().filter(|(k, _)| !known(k)) {
                        self.check(extra, v, &format!("{path}/{}", escape(k)));
                    }
                }
                _ => {}
            }
        }
        if let Some(min) = obj.get("minProperties").and_then(Value::as_u64)
            && (map.len() as u64) < min
        {
            self.fail(path, format!("needs at least {min} properties"));
        }
        if let Some(max) = obj.get("maxProperties").and_then(Value::as_u64)
            && (map.len() as u64) > max
        {
            self.fail(path, format!("allows at most {max} properties"));
        }
    }

    fn check_array(&mut self, obj: &Map<String, Value>, list: &[Value], path: &str) {
        let prefix: &[Value] = match (obj.get("prefixItems"), obj.get("items")) {
            (Some(Value::Array(p)), _) => p,
            (None, Some(Value::Array(p))) => p,
            _ => &[],
        };
        for (i, (sub, item)) in prefix.iter().zip(list).enumerate() {
            self.check(sub, item, &format!("{path}/{i}"));
        }
        let rest = match (obj.get("prefixItems"), obj.get("items")) {
            (Some(_), Some(items)) if !items.is_array() => Some(items),
            (None, Some(items)) if !items.is_array() => Some(items),
            _ => None,
        };
        if let Some(items) = rest {
            for (i, item) in list.iter().enumerate().skip(prefix.len()) {
                self.check(items, item, &format!("{path}/{i}"));
            }
        }
        if let Some(min) = obj.get("minItems").and_then(Value::as_u64)
            && (list.len() as u64) < min
        {
            self.fail(
                path,
                format!("needs at least {min} items, found {}", list.len()),
            );
        }
        if let Some(max) = obj.get("maxItems").and_then(Value::as_u64)
            && (list.len() as u64) > max
        {
            self.fail(
                path,
                format!("allows at most {max} items, found {}", list.len()),
            );
        }
        if obj.get("uniqueItems") == Some(&Value::Bool(true)) {
            for (i, a) in list.iter().enumerate() {
                if list[..i].contains(a) {
                    self.fail(&format!("{path}/{i}"), "duplicate item".into());
                    break;
                }
            }
        }
    }

    fn check_string(&mut self, obj: &Map<String, Value>, s: &str, path: &str) {
        let len = s.chars().count() as u64;
        if let Some(min) = obj.get("minLength").and_then(Value::as_u64)
            && len < min
        {
            self.fail(
                path,
                format!("needs at least {min} characters, found {len}"),
            );
        }
        if let Some(max) = obj.get("maxLength").and_then(Value::as_u64)
            && len > max
        {
            self.fail(
                path,
                format!("allows at most {max} characters, found {len}"),
            );
        }
    }

    fn check_number(&mut self, obj: &Map<String, Value>, n: &Value, path: &str) {
        let Some(x) = n.as_f64() else { return };
        let num = |k: &str| obj.get(k).and_then(Value::as_f64);
        let flag = |k: &str| obj.get(k) == Some(&Value::Bool(true));
        if let Some(min) = num("minimum") {
            if flag("exclusiveMinimum") && x <= min {
                self.fail(path, format!("must be greater than {min}, found {n}"));
            } else if x < min {
                self.fail(path, format!("must be at least {min}, found {n}"));
            }
        }
        if let Some(max) = num("maximum") {
            if flag("exclusiveMaximum") && x >= max {
                self.fail(path, format!("must be less than {max}, found {n}"));
            } else if x > max {
                self.fail(path, format!("must be at most {max}, found {n}"));
            }
        }
        if let Some(min) = num("exclusiveMinimum")
            && x <= min
        {
            self.fail(path, format!("must be greater than {min}, found {n}"));
        }
        if let Some(max) = num("exclusiveMaximum")
            && x >= max
        {
            self.fail(path, format!("must be less than {max}, found {n}"));
        }
        if let Some(m) = num("multipleOf")
            && m > 0.0
        {
            let q = x / m;
            if (q - q.round()).abs() > 1e-9 {
                self.fail(path, format!("must be a multiple of {m}, found {n}"));
            }
        }
    }

    fn check_combinators(&mut self, obj: &Map<String, Value>, instance: &Value, path: &str) {
        if let Some(Value::Array(all)) = obj.get("allOf") {
            for s in all {
                self.check(s, instance, path);
            }
        }
        if let Some(Value::Array(any)) = obj.get("anyOf")
            && !any.iter().any(|s| self.is_valid(s, instance, path))
        {
            let hint = any
                .first()
                .and_then(|s| self.first_error(s, instance, path))
                .map(|e| format!(" (first option: {e})"))
                .unwrap_or_default();
            self.fail(
                path,
                format!(
                    "{} matches none of the {} allowed shapes{hint}",
                    short(instance),
                    any.len()
                ),
            );
        }
        if let Some(Value::Array(one)) = obj.get("oneOf") {
            let matching = one
                .iter()
                .filter(|s| self.is_valid(s, instance, path))
                .count();
            if matching == 0 {
                self.fail(
                    path,
                    format!(
                        "{} matches none of the {} allowed shapes",
                        short(instance),
                        one.len()
                    ),
                );
            } else if matching > 1 {
                self.fail(
                    path,
                    format!(
                        "{} matches {matching} of the `oneOf` shapes; exactly one is allowed",
                        short(instance)
                    ),
                );
            }
        }
        if let Some(not) = obj.get("not")
            && self.is_valid(not, instance, path)
        {
            self.fail(
                path,
                format!("{} matches a shape that is not allowed", short(instance)),
            );
        }
    }
}

/// `1` and `1.0` are the same number for `enum` and `const`.
fn numbers_equal(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => a.is_number() && b.is_number() && x == y,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errs(schema: Value, v: Value) -> Vec<String> {
        validate(&schema, &v).err().unwrap_or_default()
    }

    #[test]
    fn types_required_and_additional_properties() {
        let s = json!({"type": "object", "required": ["message"], "additionalProperties": false,
            "properties": {"message": {"type": "string"}, "repeat": {"type": "integer", "minimum": 0, "maximum": 3}}});
        assert!(validate(&s, &json!({"message": "hi", "repeat": 2})).is_ok());
        assert!(validate(&s, &json!({"message": "hi", "repeat": 2.0})).is_ok());
        assert_eq!(
            errs(s.clone(), json!({"repeat": "3"})),
            [
                "/: missing required property \"message\"",
                "/repeat: expected integer, found string \"3\""
            ]
        );
        assert_eq!(
            errs(s.clone(), json!({"message": "x", "extra": 1, "repeat": 4})),
            [
                "/repeat: must be at most 3, found 4",
                "/: unexpected property \"extra\" (allowed: message, repeat)"
            ]
        );
        assert_eq!(
            errs(s, json!({"message": "x", "repeat": 1.5}))[0],
            "/repeat: expected integer, found number 1.5"
        );
    }

    #[test]
    fn enum_const_strings_arrays() {
        let s = json!({"type": "object", "properties": {
            "u": {"enum": ["c", "f"]},
            "k": {"const": 1},
            "s": {"type": "string", "minLength": 2, "maxLength": 3},
            "a": {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 2, "uniqueItems": true},
            "t": {"type": ["string", "null"]}
        }});
        assert!(
            validate(
                &s,
                &json!({"u": "c", "k": 1.0, "s": "éé", "a": [1], "t": null})
            )
            .is_ok()
        );
        let e = errs(
            s,
            json!({"u": "x", "k": 2, "s": "a", "a": [1, 1, "z"], "t": 3}),
        );
        assert!(
            e.iter()
                .any(|e| e == "/u: \"x\" is not one of [\"c\", \"f\"]"),
            "{e:?}"
        );
        assert!(e.iter().any(|e| e == "/k: expected 1, found 2"), "{e:?}");
        assert!(
            e.iter().any(|e| e.starts_with("/s: needs at least 2")),
            "{e:?}"
        );
        assert!(
            e.iter().any(|e| e.starts_with("/a/2: expected integer")),
            "{e:?}"
        );
        assert!(
            e.iter()
                .any(|e| e.starts_with("/a: allows at most 2 items")),
            "{e:?}"
        );
        assert!(e.iter().any(|e| e == "/a/1: duplicate item"), "{e:?}");
        assert!(
            e.iter()
                .any(|e| e.starts_with("/t: expected string or null")),
            "{e:?}"
        );
    }

    #[test]
    fn strict_nulls_of_optional_properties_are_dropped_at_any_depth() {
        let schema = json!({
            "type": "object",
            "$defs": {"Page": {"type": "object", "properties": {
                "size": {"type": "integer"}, "cursor": {"type": ["string", "null"]}}}},
            "properties": {
                "q": {"type": "string"},
                "limit": {"type": "integer"},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "page": {"$ref": "#/$defs/Page"},
                "tags": {"type": "array", "items": {"type": "object", "properties": {
                    "name": {"type": "string"}, "color": {"type": "string"}}}},
                "filter": {"anyOf": [
                    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                    {"type": "string"}
                ]},
                "must": {"type": "string"}
            },
            "required": ["q", "must"]
        });
        let strict = json!({
            "q": "x", "limit": null, "note": null, "must": null,
            "page": {"size": null, "cursor": null},
            "tags": [{"name": "n", "color": null}],
            "filter": {"a": "1"}
        });
        let out = strip_disallowed_nulls(&schema, strict);
        assert_eq!(
            out,
            json!({
                "q": "x", "note": null, "must": null,
                "page": {"cursor": null},
                "tags": [{"name": "n"}],
                "filter": {"a": "1"}
            })
        );
        // The required null stays, and validation names it.
        let e = validate(&schema, &out).unwrap_err();
        assert!(e[0].starts_with("/must"), "{e:?}");
    }

    #[test]
    fn refs_and_combinators() {
        let s = json!({
            "$defs": {"U": {"oneOf": [{"const": "celsius"}, {"const": "fahrenheit"}]},
                      "Node": {"type": "object", "properties": {"next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}, "v": {"type": "integer"}}}},
            "type": "object",
            "properties": {"units": {"$ref": "#/$defs/U"}, "list": {"$ref": "#/$defs/Node"}}
        });
        assert!(
            validate(
                &s,
                &json!({"units": "celsius", "list": {"v": 1, "next": {"v": 2, "next": null}}})
            )
            .is_ok()
        );
        let e = errs(s.clone(), json!({"units": "kelvin"}));
        assert!(
            e[0].starts_with("/units: \"kelvin\" matches none of the 2 allowed shapes"),
            "{e:?}"
        );
        let e = errs(s, json!({"list": {"next": {"v": "x"}}}));
        assert!(
            e[0].starts_with("/list/next: {\"v\":\"x\"} matches none"),
            "{e:?}"
        );
        // A self-referencing root does not loop.
        assert!(validate(&json!({"$ref": "#"}), &json!(1)).is_ok());
        assert!(!errs(json!({"not": {"type": "string"}}), json!("s")).is_empty());
        assert!(!errs(json!({"allOf": [{"minimum": 2}]}), json!(1)).is_empty());
        assert!(validate(&json!({"nullable": true, "type": "string"}), &json!(null)).is_ok());
    }

    #[test]
    fn unchecked_keywords_accept() {
        let s = json!({"type": "object", "patternProperties": {"^x": {"type": "string"}}, "additionalProperties": false,
            "properties": {"p": {"type": "string", "pattern": "^a$", "format": "email"}}});
        assert!(validate(&s, &json!({"p": "zzz", "x1": 3})).is_ok());
    }

    #[test]
    fn error_count_is_capped() {
        let mut props = Map::new();
        for i in 0..20 {
            props.insert(format!("p{i}"), json!({"type": "string"}));
        }
        let required: Vec<String> = props.keys().cloned().collect();
        let s = json!({"type": "object", "properties": props, "required": required});
        assert_eq!(errs(s, json!({})).len(), MAX_ERRORS);
    }
}
