//! Local `$ref`s inlined ([`inline_refs`]): what the strict OpenAI form, Gemini's `Schema`
//! and the merge of a root union need, as none of them can point into `$defs`.

use serde_json::{Map, Value};

/// Most schema nodes [`inline_refs`] produces before giving up (guards against the
/// exponential growth of shared definitions).
pub const INLINE_MAX_NODES: usize = 20_000;

/// Keywords whose value is a schema.
const SCHEMA_KEYS: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "additionalItems",
    "unevaluatedProperties",
    "unevaluatedItems",
];
/// Keywords whose value is an array of schemas.
const SCHEMA_ARRAY_KEYS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];
/// Keywords whose value is a map of schemas.
const SCHEMA_MAP_KEYS: &[&str] = &["properties", "patternProperties", "dependentSchemas"];

/// Replaces every local `$ref` (`#`, `#/$defs/…`, any JSON pointer into the document) by the
/// schema it points to, merged with the `$ref`'s sibling keywords (siblings win), and drops
/// `$defs` / `definitions`. Values of data keywords (`enum`, `const`, `default`, `examples`)
/// are copied verbatim.
///
/// Errors: a recursive reference (the cycle guard: a `$ref` met again while it is being
/// expanded), a reference to another document, a pointer to nothing, or growth beyond
/// [`INLINE_MAX_NODES`] nodes.
pub fn inline_refs(schema: &Value) -> Result<Value, String> {
    let mut state = Inline {
        root: schema,
        stack: Vec::new(),
        nodes: 0,
    };
    state.walk(schema, "")
}

struct Inline<'a> {
    root: &'a Value,
    stack: Vec<String>,
    nodes: usize,
}

impl<'a> Inline<'a> {
    fn walk(&mut self, schema: &Value, at: &str) -> Result<Value, String> {
        self.nodes += 1;
        if self.nodes > INLINE_MAX_NODES {
            return Err(format!(
                "inlining $refs grows the schema beyond {INLINE_MAX_NODES} nodes (at {})",
                where_(at)
            ));
        }
        let Value::Object(obj) = schema else {
            return Ok(schema.clone());
        };
        if let Some(r) = obj.get("$ref") {
            let Some(r) = r.as_str() else {
                return Err(format!("$ref at {} is not a string", where_(at)));
            };
            let target = self.resolve(r, at)?;
            if self.stack.iter().any(|s| s == r) {
                return Err(format!(
                    "recursive $ref \"{r}\" at {} cannot be inlined",
                    where_(at)
                ));
            }
            self.stack.push(r.to_string());
            let expanded = self.walk(target, at);
            self.stack.pop();
            let mut merged = match expanded? {
                Value::Object(m) => m,
                Value::Bool(true) => Map::new(),
                other => {
                    // `false` or a malformed target: keep it when there are no siblings.
                    if obj.len() == 1 {
                        return Ok(other);
                    }
                    return Err(format!(
                        "$ref \"{r}\" at {} points to a non-object schema",
                        where_(at)
                    ));
                }
            };
            for (k, v) in obj {
                if k == "$ref" || k == "$defs" || k == "definitions" {
                    continue;
                }
                merged.insert(k.clone(), self.walk_keyword(k, v, at)?);
            }
            return Ok(Value::Object(merged));
        }
        let mut out = Map::new();
        for (k, v) in obj {
            if k == "$defs" || k == "definitions" {
                continue;
            }
            out.insert(k.clone(), self.walk_keyword(k, v, at)?);
        }
        Ok(Value::Object(out))
    }

    fn walk_keyword(&mut self, key: &str, value: &Value, at: &str) -> Result<Value, String> {
        if SCHEMA_KEYS.contains(&key) {
            return self.walk(value, &format!("{at}/{key}"));
        }
        if SCHEMA_ARRAY_KEYS.contains(&key)
            && let Value::Array(list) = value
        {
            let mut out = Vec::with_capacity(list.len());
            for (i, s) in list.iter().enumerate() {
                out.push(self.walk(s, &format!("{at}/{key}/{i}"))?);
            }
            return Ok(Value::Array(out));
        }
        if SCHEMA_MAP_KEYS.contains(&key)
            && let Value::Object(map) = value
        {
            let mut out = Map::new();
            for (name, s) in map {
                out.insert(name.clone(), self.walk(s, &format!("{at}/{key}/{name}"))?);
            }
            return Ok(Value::Object(out));
        }
        if key == "items"
            && let Value::Array(list) = value
        {
            let mut out = Vec::with_capacity(list.len());
            for (i, s) in list.iter().enumerate() {
                out.push(self.walk(s, &format!("{at}/items/{i}"))?);
            }
            return Ok(Value::Array(out));
        }
        Ok(value.clone())
    }

    fn resolve(&self, r: &str, at: &str) -> Result<&'a Value, String> {
        let Some(pointer) = r.strip_prefix('#') else {
            return Err(format!(
                "$ref \"{r}\" at {} is not a local reference and cannot be inlined",
                where_(at)
            ));
        };
        let pointer = crate::schema::percent_decode(pointer);
        if pointer.is_empty() {
            return Ok(self.root);
        }
        if !pointer.starts_with('/') {
            return Err(format!(
                "$ref \"{r}\" at {} uses an anchor, which cannot be inlined",
                where_(at)
            ));
        }
        let root: &'a Value = self.root;
        root.pointer(&pointer)
            .ok_or_else(|| format!("$ref \"{r}\" at {} points to nothing", where_(at)))
    }
}

fn where_(at: &str) -> String {
    if at.is_empty() {
        "/".to_string()
    } else {
        at.to_string()
    }
}
