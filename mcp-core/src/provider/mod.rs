//! The tool formats of model providers: one MCP tool as each provider's API takes it.
//!
//! [`Format`] names a format; [`definition`] turns one tool (exported name, description,
//! input schema) into it, with the reason when the tool had to take a weaker form than the
//! format's best; [`check`] verifies a definition against the format's rules:
//!
//! | format | one tool | where the schema does not fit |
//! |---|---|---|
//! | [`Format::OpenAi`] | `{"type": "function", "function": {"name", "description", "parameters"}}` | — |
//! | [`Format::OpenAiStrict`] | the same with `"strict": true` ([`openai`]) | the non-strict form |
//! | [`Format::OpenAiResponses`] | `{"type": "function", "name", "description", "parameters", "strict"}` ([`openai::responses_function`]) | `"strict": false` |
//! | [`Format::Anthropic`] | `{"name", "description", "input_schema"}` ([`anthropic`]) | a root `anyOf`/`oneOf` merged into one object |
//! | [`Format::Gemini`] | `{"name", "description", "parameters"}` in Gemini's `Schema` subset ([`gemini`]) | `parametersJsonSchema` |
//!
//! The runtime exports a toolbox's tools through these functions and the generator counts
//! their tokens with the same ones, so a count made at build time is the count of what a
//! model is sent.

pub mod anthropic;
pub mod compact;
pub mod discovery;
pub mod gemini;
pub mod openai;
mod refs;
mod root;
mod shorten;
mod tokens;

use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Value, json};

pub use shorten::{Shortened, shorten_description};
pub use tokens::Tokens;

/// A model provider's tool format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Format {
    /// OpenAI chat-completions function calling, non-strict.
    #[default]
    OpenAi,
    /// OpenAI function calling with `strict: true` where the schema allows it.
    OpenAiStrict,
    /// OpenAI's Responses API function tools (flat, `strict` where the schema allows it).
    OpenAiResponses,
    /// Anthropic's Messages API `tools`.
    Anthropic,
    /// Gemini's `functionDeclarations`.
    Gemini,
}

impl Format {
    /// Every format, in the order of [`Format::as_str`]'s list.
    pub const ALL: [Format; 5] = [
        Format::OpenAi,
        Format::OpenAiStrict,
        Format::OpenAiResponses,
        Format::Anthropic,
        Format::Gemini,
    ];

    /// `openai`, `openai-strict`, `openai-responses`, `anthropic` or `gemini`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::OpenAi => "openai",
            Format::OpenAiStrict => "openai-strict",
            Format::OpenAiResponses => "openai-responses",
            Format::Anthropic => "anthropic",
            Format::Gemini => "gemini",
        }
    }

    /// The name a definition of this format carries.
    pub fn name_of(self, definition: &Value) -> Option<&str> {
        match self {
            Format::OpenAi | Format::OpenAiStrict => definition.pointer("/function/name"),
            Format::OpenAiResponses | Format::Anthropic | Format::Gemini => definition.get("name"),
        }
        .and_then(Value::as_str)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown format \"{s}\"{}; use openai, openai-strict, openai-responses, anthropic or gemini",
                    crate::naming::did_you_mean(s, Format::ALL.map(Format::as_str))
                )
            })
    }
}

/// The definition of a tool exported as `name` in `format`, and the fallback reason if any.
pub fn definition(
    format: Format,
    name: &str,
    description: Option<&str>,
    input_schema: &Value,
) -> (Value, Option<String>) {
    match format {
        Format::OpenAi => openai::function_definition_and_reason(name, description, input_schema),
        Format::OpenAiStrict => {
            match openai::strict_function_definition(name, description, input_schema) {
                Ok(d) => (d, None),
                Err(reason) => {
                    let (plain, widened) =
                        openai::function_definition_and_reason(name, description, input_schema);
                    (plain, join_reasons(Some(reason), widened))
                }
            }
        }
        Format::OpenAiResponses => openai::responses_function(name, description, input_schema),
        Format::Anthropic => anthropic::tool_definition(name, description, input_schema),
        Format::Gemini => gemini::function_declaration(name, description, input_schema),
    }
}

/// [`definition`] of the tool's compact form ([`compact`](compact::compact)): the same tool for a
/// model, in fewer tokens. Arguments are still validated against the full schema.
pub fn compact_definition(
    format: Format,
    name: &str,
    description: Option<&str>,
    input_schema: &Value,
) -> (Value, Option<String>) {
    let description = description.map(compact::compact_description);
    definition(
        format,
        name,
        description.as_deref().filter(|d| !d.is_empty()),
        &compact::compact(format, input_schema),
    )
}

/// The description length some clients keep (Claude Code cuts a tool's description at 2 048
/// characters, silently; other clients copy the cap).
pub const DESCRIPTION_CUT: usize = 2048;

/// What a client that keeps only [`DESCRIPTION_CUT`] characters of a tool's description
/// loses: the description's length and the argument names and enum values the description
/// first mentions past the cut (a model that never read them invents others). `None` for a
/// description within the cut.
pub fn cut_description(description: &str, input_schema: &Value) -> Option<(usize, Vec<String>)> {
    let chars = description.chars().count();
    if chars <= DESCRIPTION_CUT {
        return None;
    }
    let cut = description
        .char_indices()
        .nth(DESCRIPTION_CUT)
        .map_or(description.len(), |(i, _)| i);
    let (kept, lost) = description.split_at(cut);
    let mut names: Vec<String> = Vec::new();
    fn collect(schema: &Value, names: &mut Vec<String>) {
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            names.extend(props.keys().cloned());
        }
        if let Some(Value::Array(values)) = schema.get("enum") {
            names.extend(values.iter().filter_map(Value::as_str).map(str::to_string));
        }
        crate::schema::for_each_child(schema, &mut |_, sub| collect(sub, names));
    }
    collect(input_schema, &mut names);
    let mut past: Vec<String> = names
        .into_iter()
        .filter(|n| {
            n.chars().count() > 1 && !kept.contains(n.as_str()) && lost.contains(n.as_str())
        })
        .collect();
    past.sort();
    past.dedup();
    Some((chars, past))
}

/// Checks one definition against `format`'s rules; the error names the tool and the place.
pub fn check(format: Format, definition: &Value) -> Result<(), String> {
    match format {
        Format::OpenAi | Format::OpenAiStrict => {
            let name = format.name_of(definition).ok_or("no function name")?;
            if !crate::naming::is_valid_exported_name(name) {
                return Err(format!("name \"{name}\" is not ^[A-Za-z0-9_-]{{1,64}}$"));
            }
            let parameters = definition
                .pointer("/function/parameters")
                .unwrap_or(&Value::Null);
            openai::check_parameters(parameters).map_err(|e| format!("{name}: {e}"))
        }
        Format::OpenAiResponses => {
            let name = format.name_of(definition).ok_or("no function name")?;
            if !crate::naming::is_valid_exported_name(name) {
                return Err(format!("name \"{name}\" is not ^[A-Za-z0-9_-]{{1,64}}$"));
            }
            if definition.get("type") != Some(&json!("function")) {
                return Err(format!("{name}: type is not \"function\""));
            }
            if !definition.get("strict").is_some_and(Value::is_boolean) {
                return Err(format!(
                    "{name}: no boolean `strict` (the Responses API takes an absent one as true)"
                ));
            }
            let parameters = definition.get("parameters").unwrap_or(&Value::Null);
            openai::check_parameters(parameters).map_err(|e| format!("{name}: {e}"))
        }
        Format::Anthropic => anthropic::check(definition),
        Format::Gemini => gemini::check(definition),
    }
}

/// Translates draft-04/07 spellings that draft 2020-12 rejects, everywhere in the schema.
pub(crate) fn modernize(schema: &mut Value) {
    let Value::Object(obj) = schema else {
        return;
    };
    // Boolean exclusive bounds (draft 4) → numeric ones.
    for (flag, bound) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        if let Some(Value::Bool(b)) = obj.get(flag) {
            let b = *b;
            obj.remove(flag);
            if b && let Some(v) = obj.remove(bound) {
                obj.insert(flag.into(), v);
            }
        }
    }
    // `items: [..]` (a tuple before 2020-12) → `prefixItems`.
    if let Some(Value::Array(_)) = obj.get("items")
        && let Some(items) = obj.remove("items")
    {
        obj.insert("prefixItems".into(), items);
        if let Some(extra) = obj.remove("additionalItems") {
            obj.insert("items".into(), extra);
        }
    }
    if obj.get("type") == Some(&json!("any")) {
        obj.remove("type");
    }
    // `"required": true` on a property (draft 3) → the parent's `required` list.
    let mut required_here = Vec::new();
    if let Some(Value::Object(props)) = obj.get_mut("properties") {
        for (name, prop) in props.iter_mut() {
            if let Value::Object(p) = prop
                && let Some(Value::Bool(r)) = p.get("required")
            {
                if *r {
                    required_here.push(name.clone());
                }
                p.remove("required");
            }
        }
    }
    if !required_here.is_empty() {
        if !matches!(obj.get("required"), Some(Value::Array(_))) {
            obj.insert("required".into(), json!([]));
        }
        root::add_required(obj, required_here);
    } else if matches!(obj.get("required"), Some(Value::Bool(_))) {
        obj.remove("required");
    }
    for child in schema_children_mut(obj) {
        modernize(child);
    }
}

/// Removes every `$ref` that does not lead anywhere in the document itself (a dangling
/// pointer or another document: a broken server schema, which providers refuse), keeping the
/// rest of its node. Returns the fallback reason when it removed any.
pub(crate) fn drop_unresolvable_refs(schema: &mut Value) -> Option<String> {
    fn walk(v: &mut Value, root: &Value, dropped: &mut Vec<String>) {
        let Value::Object(obj) = v else {
            return;
        };
        if let Some(Value::String(r)) = obj.get("$ref")
            && crate::schema::resolve_local(root, r).is_none()
        {
            dropped.push(format!("\"{r}\""));
            obj.remove("$ref");
        }
        for child in schema_children_mut(obj) {
            walk(child, root, dropped);
        }
    }
    let root = schema.clone();
    let mut dropped = Vec::new();
    walk(schema, &root, &mut dropped);
    (!dropped.is_empty()).then(|| {
        format!(
            "$ref {} leads nowhere in the schema and was removed (that value then accepts any JSON)",
            dropped.join(", ")
        )
    })
}

/// Joins fallback reasons.
pub(crate) fn join_reasons(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    }
}

/// The keys of an object outside `allowed`.
fn obj_without(value: &Value, allowed: &[&str]) -> Vec<String> {
    value
        .as_object()
        .into_iter()
        .flat_map(Map::keys)
        .filter(|k| !allowed.contains(&k.as_str()))
        .cloned()
        .collect()
}

/// The sub-schemas of a schema object (for walks that rewrite every node).
fn schema_children_mut(obj: &mut Map<String, Value>) -> Vec<&mut Value> {
    named_children_mut(obj)
        .into_iter()
        .map(|(_, child)| child)
        .collect()
}

/// [`schema_children_mut`] with the property name of each child of `properties`.
pub(crate) fn named_children_mut(obj: &mut Map<String, Value>) -> Vec<(Option<&str>, &mut Value)> {
    let mut out = Vec::new();
    for (k, v) in obj.iter_mut() {
        match (k.as_str(), v) {
            (
                "items"
                | "additionalProperties"
                | "not"
                | "if"
                | "then"
                | "else"
                | "contains"
                | "propertyNames"
                | "additionalItems"
                | "unevaluatedProperties"
                | "unevaluatedItems",
                v @ Value::Object(_),
            ) => out.push((None, v)),
            ("anyOf" | "oneOf" | "allOf" | "prefixItems" | "items", Value::Array(list)) => {
                out.extend(list.iter_mut().map(|v| (None, v)))
            }
            ("properties", Value::Object(map)) => {
                out.extend(map.iter_mut().map(|(name, v)| (Some(name.as_str()), v)))
            }
            (
                "patternProperties" | "dependentSchemas" | "$defs" | "definitions",
                Value::Object(map),
            ) => out.extend(map.values_mut().map(|v| (None, v))),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests;
