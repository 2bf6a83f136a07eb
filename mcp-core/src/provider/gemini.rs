//! Gemini function declarations: `{"name", "description", "parameters"}`, where `parameters`
//! is Gemini's `Schema` — an OpenAPI 3.0 subset that both the Gemini Developer API and
//! Vertex AI accept.
//!
//! The conversion from the tool's JSON Schema:
//!
//! * local `$ref`s are inlined (Gemini's `ref`/`defs` are Vertex-only);
//! * `type` is one upper-case name (`STRING`, `NUMBER`, `INTEGER`, `BOOLEAN`, `ARRAY`,
//!   `OBJECT`); `null` among the types, or a `{"type": "null"}` branch, becomes
//!   `"nullable": true`; several types become an `anyOf` of one schema per type;
//! * `oneOf` becomes `anyOf`; a single remaining branch is merged into its parent; `allOf`
//!   branches that are objects are merged;
//! * `enum` and `const` are kept when they are strings; other values, `default`, `format`s
//!   Gemini does not know, exclusive bounds and `multipleOf` move into the description
//!   (`Default: 3.`), so the model still reads them — dispatch validates against the
//!   original schema either way;
//! * `title`, `examples`, `$schema`, `$id`, `additionalProperties` beside declared
//!   properties and other annotations are dropped;
//! * a tool without arguments has no `parameters` (Gemini refuses an object without
//!   properties).
//!
//! What the subset cannot express — recursive `$ref`s, free-form objects and maps (`{}` or
//! `additionalProperties` only), values of any JSON type, arrays without an item schema,
//! tuples, `not` and conditionals — makes the tool fall back to `parametersJsonSchema` (the
//! JSON Schema itself, which newer Gemini models accept, with draft-04 spellings translated
//! to draft 2020-12 as for Anthropic, kept to the subset google-genai's `JSONSchema` model
//! takes by [`json_schema_subset`]), with the reason.

use serde_json::{Map, Value, json};

use super::openai;
use super::{drop_unresolvable_refs, join_reasons, modernize, obj_without};

/// Gemini's `Schema` keys this converter writes.
const SCHEMA_KEYS: &[&str] = &[
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "properties",
    "required",
    "items",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "anyOf",
];

/// `format` values Gemini's `Schema` documents, per type.
fn known_format(kind: &str, format: &str) -> bool {
    match kind {
        "STRING" => matches!(format, "date-time" | "enum"),
        "INTEGER" => matches!(format, "int32" | "int64"),
        "NUMBER" => matches!(format, "float" | "double"),
        _ => false,
    }
}

/// The declaration of a tool exported as `name`, and the reason when it falls back to
/// `parametersJsonSchema`.
pub fn function_declaration(
    name: &str,
    description: Option<&str>,
    input_schema: &Value,
) -> (Value, Option<String>) {
    let mut out = Map::new();
    out.insert("name".into(), json!(name));
    if let Some(d) = description {
        out.insert("description".into(), json!(d));
    }
    let fallback = match parameters(input_schema) {
        Ok(Some(p)) => {
            out.insert("parameters".into(), p);
            None
        }
        Ok(None) => None,
        Err(reason) => {
            let mut schema = openai::parameters(input_schema);
            if let Value::Object(m) = &mut schema {
                m.remove("$id");
            }
            modernize(&mut schema);
            let dropped = drop_unresolvable_refs(&mut schema);
            let mut outside = Vec::new();
            anchors_as_pointers(&mut schema);
            json_schema_subset(&mut schema, &mut outside);
            outside.sort();
            outside.dedup();
            let outside = (!outside.is_empty()).then(|| {
                format!(
                    "parametersJsonSchema kept to the JSON Schema subset Gemini takes ({})",
                    outside.join(", ")
                )
            });
            out.insert("parametersJsonSchema".into(), schema);
            join_reasons(join_reasons(Some(reason), dropped), outside)
        }
    };
    (Value::Object(out), fallback)
}

/// The keys of Gemini's `parametersJsonSchema`: google-genai's `JSONSchema` model (a
/// pydantic model that forbids any other key) and Gemini's documented JSON Schema subset.
pub const JSON_SCHEMA_KEYS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "default",
    "items",
    "minItems",
    "maxItems",
    "enum",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "additionalProperties",
    "anyOf",
    "uniqueItems",
    "$ref",
    "$defs",
    "oneOf",
];

/// Keeps a JSON Schema within [`JSON_SCHEMA_KEYS`], widening only (every value the schema
/// accepts stays accepted): `const` → a one-value `enum`; exclusive bounds → the inclusive
/// ones, stated in the description; `nullable: true` → `null` among the types; an `allOf`
/// merged into its schema; `prefixItems` → `items` taking any of the positions;
/// `patternProperties` folded into `additionalProperties`; other keywords (`not`,
/// conditionals, `propertyNames`, `contains`, `multipleOf`, `examples`, extensions, …)
/// dropped. `changed` collects what was rewritten or dropped.
pub fn json_schema_subset(schema: &mut Value, changed: &mut Vec<String>) {
    let Value::Object(obj) = schema else { return };
    if let Some(c) = obj.remove("const") {
        obj.entry("enum").or_insert_with(|| json!([c]));
        changed.push("`const` as a one-value `enum`".into());
    }
    for (exclusive, inclusive, words) in [
        ("exclusiveMinimum", "minimum", "greater than"),
        ("exclusiveMaximum", "maximum", "less than"),
    ] {
        match obj.remove(exclusive) {
            Some(Value::Number(n)) => {
                let tighter = obj.get(inclusive).and_then(Value::as_f64).is_some_and(|m| {
                    let n = n.as_f64().unwrap_or(m);
                    if inclusive == "minimum" { m > n } else { m < n }
                });
                if !tighter {
                    obj.insert(inclusive.into(), Value::Number(n.clone()));
                    let note = format!("Must be {words} {n}.");
                    let d = match obj.get("description").and_then(Value::as_str) {
                        Some(d) => format!("{d} {note}"),
                        None => note,
                    };
                    obj.insert("description".into(), json!(d));
                }
                changed.push(format!("`{exclusive}` as `{inclusive}`"));
            }
            Some(_) => changed.push(format!("`{exclusive}`")),
            None => {}
        }
    }
    if obj.remove("nullable") == Some(json!(true)) {
        match obj.get_mut("type") {
            Some(Value::String(t)) if t != "null" => {
                let t = t.clone();
                obj.insert("type".into(), json!([t, "null"]));
            }
            Some(Value::Array(ts)) if !ts.iter().any(|t| t == "null") => ts.push(json!("null")),
            _ => {}
        }
        changed.push("`nullable` as a `null` type".into());
    }
    if obj.contains_key("allOf") {
        // Merged as the `Schema` conversion merges it; parts it cannot join are dropped.
        match merge_all_of(obj.clone(), "") {
            Ok(merged) => {
                *obj = merged;
                changed.push("`allOf` merged".into());
            }
            Err(_) => {
                obj.remove("allOf");
                changed.push("`allOf` dropped".into());
            }
        }
    }
    if let Some(Value::Array(positions)) = obj.remove("prefixItems") {
        let mut any: Vec<Value> = positions;
        let closed = match obj.remove("items") {
            Some(Value::Bool(false)) => true,
            None => false,
            Some(rest) => {
                any.push(rest);
                false
            }
        };
        if !any.is_empty() {
            obj.insert("items".into(), json!({ "anyOf": any }));
        } else if closed {
            // No positions and nothing after them: only the empty array.
            obj.insert("maxItems".into(), json!(0));
        }
        changed.push("`prefixItems` as `items`".into());
    }
    if let Some(Value::Object(patterns)) = obj.remove("patternProperties") {
        match obj.get("additionalProperties") {
            None | Some(Value::Bool(true)) => {}
            Some(other) => {
                let mut any: Vec<Value> = patterns.into_iter().map(|(_, s)| s).collect();
                if other.is_object() {
                    any.push(other.clone());
                }
                obj.insert("additionalProperties".into(), json!({ "anyOf": any }));
            }
        }
        changed.push("`patternProperties` folded into `additionalProperties`".into());
    }
    // google-genai reads a null as "not set" and leaves it out of the request: the
    // definition keeps only what reaches Gemini.
    if obj.get("default") == Some(&Value::Null) {
        obj.remove("default");
    }
    let outside: Vec<String> = obj
        .keys()
        .filter(|k| !JSON_SCHEMA_KEYS.contains(&k.as_str()))
        .cloned()
        .collect();
    for k in outside {
        obj.remove(&k);
        if !crate::schema::is_annotation(&k) {
            changed.push(format!("`{k}` dropped"));
        }
    }
    booleans_as_objects(obj, changed);
    for key in ["items", "additionalProperties"] {
        if let Some(sub) = obj.get_mut(key) {
            json_schema_subset(sub, changed);
        }
    }
    for key in ["properties", "$defs"] {
        if let Some(Value::Object(map)) = obj.get_mut(key) {
            for sub in map.values_mut() {
                json_schema_subset(sub, changed);
            }
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(list)) = obj.get_mut(key) {
            for sub in list {
                json_schema_subset(sub, changed);
            }
        }
    }
}

/// google-genai's `JSONSchema` takes an object, never `true` or `false`, for `items`, each
/// property, each definition and each `anyOf`/`oneOf` branch (only `additionalProperties`
/// may be a boolean). Widening only: `true` → `{}`; a `false` property is dropped (with
/// `additionalProperties: false` it stays refused; without, it is allowed); `items: false`
/// → `maxItems: 0`; a `false` branch dropped; a `false` definition → `{}`.
fn booleans_as_objects(obj: &mut Map<String, Value>, changed: &mut Vec<String>) {
    match obj.get("items") {
        Some(Value::Bool(true)) => {
            obj.remove("items");
        }
        Some(Value::Bool(false)) => {
            obj.remove("items");
            obj.insert("maxItems".into(), json!(0));
        }
        _ => {}
    }
    if let Some(Value::Object(props)) = obj.get_mut("properties") {
        let before = props.len();
        props.retain(|_, s| s != &Value::Bool(false));
        if props.len() < before {
            changed.push("a `false` property schema dropped".into());
        }
        props
            .values_mut()
            .filter(|s| s.is_boolean())
            .for_each(|s| *s = json!({}));
    }
    if let Some(Value::Object(defs)) = obj.get_mut("$defs") {
        for s in defs.values_mut().filter(|s| s.is_boolean()) {
            if s == &Value::Bool(false) {
                changed.push("a `false` definition as `{}`".into());
            }
            *s = json!({});
        }
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = obj.get_mut(key) else {
            continue;
        };
        let before = branches.len();
        branches.retain(|s| s != &Value::Bool(false));
        if branches.len() < before {
            changed.push(format!("a `false` `{key}` branch dropped"));
        }
        branches
            .iter_mut()
            .filter(|s| s.is_boolean())
            .for_each(|s| *s = json!({}));
        if branches.is_empty() {
            obj.remove(key);
        }
    }
}

/// Rewrites every `$ref` to an anchor (`#meta`: `$anchor`, draft-07's `$id: "#meta"`) as the
/// JSON pointer of its schema: the subset has no anchors.
fn anchors_as_pointers(schema: &mut Value) {
    let root = schema.clone();
    fn walk(node: &mut Value, root: &Value) {
        if let Some(Value::String(r)) = node.get("$ref")
            && crate::schema::local_pointer(r).is_none()
            && r.starts_with('#')
            && let Some(pointer) = crate::schema::ref_pointer(root, r)
        {
            let pointer = format!("#{pointer}");
            if let Value::Object(obj) = node {
                obj.insert("$ref".into(), Value::String(pointer));
            }
        }
        match node {
            Value::Object(obj) => obj.values_mut().for_each(|v| walk(v, root)),
            Value::Array(list) => list.iter_mut().for_each(|v| walk(v, root)),
            _ => {}
        }
    }
    walk(schema, &root);
}

/// The first key of a JSON Schema outside [`JSON_SCHEMA_KEYS`], with its place.
fn outside_subset(schema: &Value, at: &str) -> Option<String> {
    let obj = schema.as_object()?;
    if let Some(k) = obj.keys().find(|k| !JSON_SCHEMA_KEYS.contains(&k.as_str())) {
        return Some(format!("{}/{k}", at));
    }
    // A null keyword is one google-genai leaves out of the request.
    if let Some((k, _)) = obj.iter().find(|(_, v)| v.is_null()) {
        return Some(format!("{at}/{k} (null)"));
    }
    let mut found = None;
    crate::schema::for_each_child(schema, &mut |suffix, sub| {
        if found.is_none() {
            found = if sub.is_boolean() && suffix != "/additionalProperties" {
                Some(format!("{at}{suffix} ({sub}: only an object schema)"))
            } else {
                outside_subset(sub, &format!("{at}{suffix}"))
            };
        }
    });
    found
}

/// Gemini's `parameters` for a tool's input schema: `None` when the tool takes no arguments,
/// an error naming the place when the subset cannot express the schema.
pub fn parameters(input_schema: &Value) -> Result<Option<Value>, String> {
    if let Some(reason) = openai::non_object_root(input_schema) {
        return Err(reason);
    }
    let schema = openai::inline_refs(&openai::parameters(input_schema))?;
    let converted = convert(&schema, "")?;
    let empty = converted
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty);
    if converted.get("type") == Some(&json!("OBJECT")) && empty {
        return Ok(None);
    }
    if converted.get("type") != Some(&json!("OBJECT")) {
        return Err("the root schema is not an object schema".into());
    }
    Ok(Some(Value::Object(converted)))
}

fn at_or_root(at: &str) -> &str {
    if at.is_empty() { "/" } else { at }
}

fn is_null_schema(v: &Value) -> bool {
    v.get("type") == Some(&json!("null"))
        || v.get("const") == Some(&Value::Null)
        || v.get("enum") == Some(&json!([null]))
}

/// Converts one JSON Schema node to Gemini's `Schema`.
fn convert(node: &Value, at: &str) -> Result<Map<String, Value>, String> {
    let obj = match node {
        Value::Object(m) if !m.is_empty() => m.clone(),
        Value::Object(_) | Value::Bool(true) => {
            return Err(format!(
                "{}: a value of any JSON type cannot be expressed",
                at_or_root(at)
            ));
        }
        _ => {
            return Err(format!(
                "{}: not a schema Gemini can express",
                at_or_root(at)
            ));
        }
    };
    for k in [
        "not",
        "if",
        "then",
        "else",
        "prefixItems",
        "patternProperties",
    ] {
        if obj.contains_key(k) && !(k == "patternProperties" && has_properties(&obj)) {
            return Err(format!("{}: `{k}` cannot be expressed", at_or_root(at)));
        }
    }
    let obj = merge_all_of(obj, at)?;
    let mut notes: Vec<String> = Vec::new();
    let mut nullable = false;

    if obj.contains_key("anyOf") && obj.contains_key("oneOf") {
        return Err(format!("{}: both anyOf and oneOf", at_or_root(at)));
    }
    if let Some(branches) = obj.get("anyOf").or_else(|| obj.get("oneOf")) {
        let keyword = if obj.contains_key("anyOf") {
            "anyOf"
        } else {
            "oneOf"
        };
        let Value::Array(branches) = branches else {
            return Err(format!("{}: {keyword} is not an array", at_or_root(at)));
        };
        let (nulls, rest): (Vec<&Value>, Vec<&Value>) =
            branches.iter().partition(|b| is_null_schema(b));
        nullable = !nulls.is_empty();
        let siblings: Map<String, Value> = obj
            .iter()
            .filter(|(k, _)| *k != "anyOf" && *k != "oneOf")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        match rest.as_slice() {
            [] => return Err(format!("{}: only null is allowed", at_or_root(at))),
            [one] => {
                // One real branch: it is the schema; the siblings (description, …) stay.
                let mut merged = match one {
                    Value::Object(m) => m.clone(),
                    _ => Map::new(),
                };
                for (k, v) in siblings {
                    merged.entry(k).or_insert(v);
                }
                let mut out = convert(&Value::Object(merged), at)?;
                if nullable {
                    out.insert("nullable".into(), json!(true));
                }
                return Ok(out);
            }
            many => {
                let mut out = Map::new();
                let mut list = Vec::with_capacity(many.len());
                for (i, b) in many.iter().enumerate() {
                    let mut branch = match b {
                        Value::Object(m) => m.clone(),
                        _ => Map::new(),
                    };
                    // A branch inherits the parent's type and its object/array shape.
                    for k in ["type", "properties", "required", "items"] {
                        if let Some(v) = siblings.get(k) {
                            branch.entry(k.to_string()).or_insert_with(|| v.clone());
                        }
                    }
                    list.push(Value::Object(convert(
                        &Value::Object(branch),
                        &format!("{at}/{keyword}/{i}"),
                    )?));
                }
                out.insert("anyOf".into(), Value::Array(list));
                if let Some(d) = description_with(&siblings, &mut notes) {
                    out.insert("description".into(), json!(d));
                }
                if nullable {
                    out.insert("nullable".into(), json!(true));
                }
                return Ok(out);
            }
        }
    }

    let mut types: Vec<String> = match obj.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect(),
        Some(_) => return Err(format!("{}: `type` is not a string", at_or_root(at))),
        None => infer_type(&obj)
            .map(|t| vec![t.to_string()])
            .ok_or_else(|| {
                format!(
                    "{}: no type (a value of any JSON type) cannot be expressed",
                    at_or_root(at)
                )
            })?,
    };
    if types.iter().any(|t| t == "null") {
        nullable = true;
        types.retain(|t| t != "null");
    }
    match types.len() {
        0 => return Err(format!("{}: only null is allowed", at_or_root(at))),
        1 => {}
        _ => {
            // Several types: one schema per type, each with the keywords of its type.
            let mut list = Vec::new();
            for t in &types {
                let mut branch = obj.clone();
                branch.insert("type".into(), json!(t));
                branch.remove("description");
                list.push(Value::Object(convert(&Value::Object(branch), at)?));
            }
            let mut out = Map::new();
            out.insert("anyOf".into(), Value::Array(list));
            if let Some(d) = description_with(&obj, &mut notes) {
                out.insert("description".into(), json!(d));
            }
            if nullable {
                out.insert("nullable".into(), json!(true));
            }
            return Ok(out);
        }
    }
    let kind = match types[0].as_str() {
        "string" => "STRING",
        "number" => "NUMBER",
        "integer" => "INTEGER",
        "boolean" => "BOOLEAN",
        "array" => "ARRAY",
        "object" => "OBJECT",
        other => return Err(format!("{}: unknown type \"{other}\"", at_or_root(at))),
    };
    let mut out = Map::new();
    out.insert("type".into(), json!(kind));
    match kind {
        "OBJECT" => {
            let props = obj
                .get("properties")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            if props.is_empty() && !at.is_empty() {
                return Err(format!(
                    "{}: an object without declared properties (a free-form object or map) cannot be expressed",
                    at_or_root(at)
                ));
            }
            let mut converted = Map::new();
            for (name, prop) in &props {
                converted.insert(
                    name.clone(),
                    Value::Object(convert(prop, &format!("{at}/properties/{name}"))?),
                );
            }
            let required: Vec<Value> = obj
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|r| r.as_str().is_some_and(|r| props.contains_key(r)))
                .cloned()
                .collect();
            out.insert("properties".into(), Value::Object(converted));
            if !required.is_empty() {
                out.insert("required".into(), Value::Array(required));
            }
            if matches!(
                obj.get("additionalProperties"),
                Some(Value::Object(_) | Value::Bool(true))
            ) && !props.is_empty()
            {
                notes.push("Other keys are accepted too.".into());
            }
        }
        "ARRAY" => {
            let items = match obj.get("items") {
                Some(Value::Object(m)) if !m.is_empty() => {
                    convert(&Value::Object(m.clone()), &format!("{at}/items"))?
                }
                Some(Value::Array(_)) => {
                    return Err(format!("{}: a tuple cannot be expressed", at_or_root(at)));
                }
                _ => {
                    return Err(format!(
                        "{}: an array without an item schema cannot be expressed",
                        at_or_root(at)
                    ));
                }
            };
            out.insert("items".into(), Value::Object(items));
            copy_integers(&obj, &mut out, &["minItems", "maxItems"]);
            if obj.get("uniqueItems") == Some(&json!(true)) {
                notes.push("Items must be unique.".into());
            }
        }
        "STRING" => {
            copy_integers(&obj, &mut out, &["minLength", "maxLength"]);
            if let Some(Value::String(p)) = obj.get("pattern") {
                out.insert("pattern".into(), json!(p));
            }
        }
        "NUMBER" | "INTEGER" => {
            for k in ["minimum", "maximum"] {
                if let Some(v @ Value::Number(_)) = obj.get(k) {
                    out.insert(k.into(), v.clone());
                }
            }
            for (k, words) in [
                ("exclusiveMinimum", "Greater than"),
                ("exclusiveMaximum", "Less than"),
                ("multipleOf", "A multiple of"),
            ] {
                if let Some(v @ Value::Number(_)) = obj.get(k) {
                    notes.push(format!("{words} {v}."));
                }
            }
        }
        _ => {}
    }
    if let Some(Value::String(f)) = obj.get("format") {
        if known_format(kind, f) {
            out.insert("format".into(), json!(f));
        } else {
            notes.push(format!("Format: {f}."));
        }
    }
    let mut values: Vec<Value> = match (obj.get("enum"), obj.get("const")) {
        (Some(Value::Array(e)), _) => e.clone(),
        (None, Some(c)) => vec![c.clone()],
        _ => Vec::new(),
    };
    if values.iter().any(Value::is_null) {
        nullable = true;
        values.retain(|v| !v.is_null());
    }
    if !values.is_empty() {
        if kind == "STRING" && values.iter().all(Value::is_string) {
            out.insert("enum".into(), Value::Array(values));
        } else {
            let list: Vec<String> = values.iter().map(Value::to_string).collect();
            notes.push(if list.len() == 1 {
                format!("Must be {}.", list[0])
            } else {
                format!("One of: {}.", list.join(", "))
            });
        }
    }
    if let Some(d) = obj.get("default") {
        notes.push(format!("Default: {d}."));
    }
    if let Some(d) = description_with(&obj, &mut notes) {
        out.insert("description".into(), json!(d));
    }
    if nullable {
        out.insert("nullable".into(), json!(true));
    }
    Ok(out)
}

fn has_properties(obj: &Map<String, Value>) -> bool {
    obj.get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty())
}

/// The type a schema without `type` has by its keywords.
fn infer_type(obj: &Map<String, Value>) -> Option<&'static str> {
    if obj.contains_key("properties") {
        return Some("object");
    }
    if obj.contains_key("items") {
        return Some("array");
    }
    let values: Vec<&Value> = match (obj.get("enum"), obj.get("const")) {
        (Some(Value::Array(e)), _) => e.iter().filter(|v| !v.is_null()).collect(),
        (None, Some(c)) => vec![c],
        _ => return None,
    };
    let first = values.first()?;
    let kind = match first {
        Value::String(_) => "string",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        _ => return None,
    };
    values
        .iter()
        .all(|v| match kind {
            "string" => v.is_string(),
            "boolean" => v.is_boolean(),
            _ => v.is_number(),
        })
        .then_some(kind)
}

/// Merges `allOf` branches into the schema: objects' properties and `required` are joined;
/// other keywords of a branch are kept where the schema has none.
fn merge_all_of(mut obj: Map<String, Value>, at: &str) -> Result<Map<String, Value>, String> {
    let Some(branches) = obj.remove("allOf") else {
        return Ok(obj);
    };
    let Value::Array(branches) = branches else {
        return Err(format!("{}: allOf is not an array", at_or_root(at)));
    };
    for (i, branch) in branches.into_iter().enumerate() {
        let Value::Object(branch) = branch else {
            return Err(format!("{}/allOf/{i}: not a schema object", at));
        };
        let branch = merge_all_of(branch, &format!("{at}/allOf/{i}"))?;
        for (k, v) in branch {
            match (k.as_str(), obj.get_mut(&k)) {
                ("properties", Some(Value::Object(mine))) => {
                    if let Value::Object(theirs) = v {
                        for (name, s) in theirs {
                            mine.entry(name).or_insert(s);
                        }
                    }
                }
                ("required", Some(Value::Array(mine))) => {
                    for r in v.as_array().into_iter().flatten() {
                        if !mine.contains(r) {
                            mine.push(r.clone());
                        }
                    }
                }
                ("type", Some(mine)) if *mine != v => {
                    return Err(format!(
                        "{}: allOf branches of different types cannot be expressed",
                        at_or_root(at)
                    ));
                }
                ("anyOf" | "oneOf", Some(_)) => {
                    return Err(format!(
                        "{}: allOf of several alternatives cannot be expressed",
                        at_or_root(at)
                    ));
                }
                (_, Some(_)) => {}
                (_, None) => {
                    obj.insert(k, v);
                }
            }
        }
    }
    Ok(obj)
}

fn copy_integers(from: &Map<String, Value>, to: &mut Map<String, Value>, keys: &[&str]) {
    for k in keys {
        if let Some(v) = from.get(*k).filter(|v| v.is_u64()) {
            to.insert((*k).into(), v.clone());
        }
    }
}

/// The schema's description followed by the notes (which are consumed).
fn description_with(obj: &Map<String, Value>, notes: &mut Vec<String>) -> Option<String> {
    let base = obj
        .get("description")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|d| !d.is_empty());
    let notes = std::mem::take(notes);
    match (base, notes.is_empty()) {
        (None, true) => None,
        (Some(d), true) => Some(d.to_string()),
        (None, false) => Some(notes.join(" ")),
        (Some(d), false) => {
            let sep = if d.ends_with(['.', '!', '?', ')']) {
                " "
            } else {
                ". "
            };
            Some(format!("{d}{sep}{}", notes.join(" ")))
        }
    }
}

/// Checks a declaration against Gemini's rules: the name, exactly one of `parameters` /
/// `parametersJsonSchema` (or neither), and every `parameters` node within the `Schema`
/// subset (known keys and types, string-only `enum`, objects with properties, arrays with
/// items, `required` naming declared properties).
pub fn check(declaration: &Value) -> Result<(), String> {
    let name = declaration
        .get("name")
        .and_then(Value::as_str)
        .ok_or("no name")?;
    let name_ok = name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !name_ok {
        return Err(format!(
            "name \"{name}\" is not ^[A-Za-z_][A-Za-z0-9_-]{{0,63}}$"
        ));
    }
    let extra = obj_without(
        declaration,
        &["name", "description", "parameters", "parametersJsonSchema"],
    );
    if !extra.is_empty() {
        return Err(format!("{name}: unexpected keys {extra:?}"));
    }
    match (
        declaration.get("parameters"),
        declaration.get("parametersJsonSchema"),
    ) {
        (Some(_), Some(_)) => Err(format!("{name}: both parameters and parametersJsonSchema")),
        (Some(p), None) => {
            if p.get("type") != Some(&json!("OBJECT")) {
                return Err(format!("{name}: parameters is not an OBJECT schema"));
            }
            check_schema(p, "").map_err(|e| format!("{name}: {e}"))
        }
        (None, Some(s)) => {
            if s.get("type") != Some(&json!("object")) || s.get("$schema").is_some() {
                return Err(format!(
                    "{name}: parametersJsonSchema is not an object schema without $schema"
                ));
            }
            if let Some(problem) = crate::schema::malformed(s) {
                return Err(format!(
                    "{name}: parametersJsonSchema is not a valid JSON Schema at {problem}"
                ));
            }
            match outside_subset(s, "") {
                Some(at) => Err(format!(
                    "{name}: parametersJsonSchema has `{at}`, outside the JSON Schema subset Gemini takes (google-genai's JSONSchema model refuses it)"
                )),
                None => Ok(()),
            }
        }
        (None, None) => Ok(()),
    }
}

fn check_schema(node: &Value, at: &str) -> Result<(), String> {
    let here = at_or_root(at);
    let obj = node
        .as_object()
        .ok_or_else(|| format!("{here}: not an object"))?;
    let extra = obj_without(node, SCHEMA_KEYS);
    if !extra.is_empty() {
        return Err(format!("{here}: keys outside Gemini's Schema {extra:?}"));
    }
    if let Some(list) = obj.get("anyOf") {
        if obj.contains_key("type") {
            return Err(format!("{here}: anyOf beside type"));
        }
        let list = list
            .as_array()
            .filter(|l| !l.is_empty())
            .ok_or_else(|| format!("{here}: empty anyOf"))?;
        for (i, b) in list.iter().enumerate() {
            check_schema(b, &format!("{at}/anyOf/{i}"))?;
        }
        return Ok(());
    }
    let kind = obj
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{here}: no type"))?;
    if !["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"].contains(&kind) {
        return Err(format!("{here}: type \"{kind}\""));
    }
    if obj.get("nullable").is_some_and(|n| !n.is_boolean()) {
        return Err(format!("{here}: nullable is not a boolean"));
    }
    if let Some(e) = obj.get("enum") {
        let ok = kind == "STRING"
            && e.as_array()
                .is_some_and(|l| !l.is_empty() && l.iter().all(Value::is_string));
        if !ok {
            return Err(format!("{here}: enum is not a list of strings on a STRING"));
        }
    }
    if let Some(f) = obj.get("format").and_then(Value::as_str)
        && !known_format(kind, f)
    {
        return Err(format!("{here}: format \"{f}\" on {kind}"));
    }
    let only = |key: &str, on: &str| {
        if obj.contains_key(key) && kind != on {
            Err(format!("{here}: {key} on {kind}"))
        } else {
            Ok(())
        }
    };
    for k in ["properties", "required"] {
        only(k, "OBJECT")?;
    }
    for k in ["items", "minItems", "maxItems"] {
        only(k, "ARRAY")?;
    }
    for k in ["minLength", "maxLength", "pattern"] {
        only(k, "STRING")?;
    }
    if kind == "OBJECT" {
        let props = obj
            .get("properties")
            .and_then(Value::as_object)
            .filter(|p| !p.is_empty())
            .ok_or_else(|| format!("{here}: OBJECT without properties"))?;
        for r in obj
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !r.as_str().is_some_and(|r| props.contains_key(r)) {
                return Err(format!("{here}: required {r} is not a property"));
            }
        }
        for (name, p) in props {
            check_schema(p, &format!("{at}/properties/{name}"))?;
        }
    }
    if kind == "ARRAY" {
        let items = obj
            .get("items")
            .ok_or_else(|| format!("{here}: ARRAY without items"))?;
        check_schema(items, &format!("{at}/items"))?;
    }
    Ok(())
}
