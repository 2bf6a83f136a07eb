//! The compact form of an input schema: what a model needs to call the tool, without what it
//! does not read.
//!
//! A model is sent the schema on every turn and pays for each token of it; the schema's
//! other readers (the validator that checks a model's arguments before a call, the
//! generated types) keep the full one. [`compact`] removes only keywords that accept no
//! fewer values for being gone or that only annotate, so every value valid under the full
//! schema is valid under the compact one:
//!
//! * identifiers and comments: `$schema`, `$id`, `$comment`;
//! * the root's `title` (the arguments' type name, such as pydantic's `create_issueArguments`)
//!   and a property's `title` that repeats its name (`"owner"` titled `"Owner"`);
//! * a `default` the description already states (`"Page size (default: 30)"` with
//!   `default: 30`), and likewise a `minimum` or `maximum` (`"Results per page (min 1,
//!   max 100)"` with `minimum: 1, maximum: 100`);
//! * keywords that allow everything: `additionalProperties: true` or `{}`, `required: []`,
//!   `minLength`/`minItems`/`minProperties` of 0, `pattern` `""` or `".*"`,
//!   `readOnly`/`writeOnly`/`deprecated` of `false`;
//! * `type` beside an `enum` whose values all have that type (the values say it), except in
//!   the formats that require a type on every schema (OpenAI strict, the Responses API,
//!   Gemini);
//! * whitespace in descriptions: trailing spaces and newlines, runs of blank lines, indents.
//!
//! The provider formats are then made from the compact schema as from the full one
//! ([`super::definition`]), with the same checks.

use serde_json::{Map, Value};

use super::Format;

/// The compact form of `input_schema` for `format` (see the module documentation).
pub fn compact(format: Format, input_schema: &Value) -> Value {
    let mut schema = input_schema.clone();
    let keep_types = matches!(
        format,
        Format::OpenAiStrict | Format::OpenAiResponses | Format::Gemini
    );
    if let Value::Object(root) = &mut schema {
        root.remove("title");
    }
    walk(&mut schema, None, keep_types);
    schema
}

/// The compact form of a tool description: the same text with its whitespace tidied.
pub fn compact_description(description: &str) -> String {
    let mut out = String::with_capacity(description.len());
    let mut blank_run = 0usize;
    for line in description.trim().lines() {
        let line = line.trim();
        if line.is_empty() {
            blank_run += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank_run > 0 { "\n\n" } else { "\n" });
        }
        blank_run = 0;
        out.push_str(line);
    }
    out
}

fn walk(node: &mut Value, name: Option<&str>, keep_types: bool) {
    let Value::Object(obj) = node else {
        return;
    };
    for key in ["$schema", "$id", "$comment"] {
        obj.remove(key);
    }
    if let (Some(Value::String(title)), Some(name)) = (obj.get("title"), name)
        && same_words(title, name)
    {
        obj.remove("title");
    }
    if let Some(Value::String(d)) = obj.get("description") {
        let tidy = compact_description(d);
        if tidy.is_empty() {
            obj.remove("description");
        } else if &tidy != d {
            obj.insert("description".into(), Value::String(tidy));
        }
    }
    if let (Some(default), Some(Value::String(d))) = (obj.get("default"), obj.get("description"))
        && states_default(d, default)
    {
        obj.remove("default");
    }
    for (key, words) in [("minimum", MINIMUM_WORDS), ("maximum", MAXIMUM_WORDS)] {
        if let (Some(bound), Some(Value::String(d))) = (obj.get(key), obj.get("description"))
            && states_bound(d, words, bound)
        {
            obj.remove(key);
        }
    }
    drop_vacuous(obj, keep_types);
    for (name, child) in super::named_children_mut(obj) {
        walk(child, name, keep_types);
    }
}

/// Removes keywords that allow every value they apply to.
fn drop_vacuous(obj: &mut Map<String, Value>, keep_types: bool) {
    let zero = |v: Option<&Value>| v.and_then(Value::as_f64) == Some(0.0);
    for key in ["minLength", "minItems", "minProperties"] {
        if zero(obj.get(key)) {
            obj.remove(key);
        }
    }
    if matches!(obj.get("pattern"), Some(Value::String(p)) if p.is_empty() || p == ".*") {
        obj.remove("pattern");
    }
    if matches!(obj.get("additionalProperties"), Some(Value::Bool(true)))
        || matches!(obj.get("additionalProperties"), Some(Value::Object(m)) if m.is_empty())
    {
        obj.remove("additionalProperties");
    }
    if matches!(obj.get("required"), Some(Value::Array(r)) if r.is_empty()) {
        obj.remove("required");
    }
    for key in ["readOnly", "writeOnly", "deprecated"] {
        if obj.get(key) == Some(&Value::Bool(false)) {
            obj.remove(key);
        }
    }
    if !keep_types
        && let (Some(Value::String(t)), Some(Value::Array(values))) =
            (obj.get("type"), obj.get("enum"))
        && !values.is_empty()
        && values.iter().all(|v| has_type(v, t))
    {
        obj.remove("type");
    }
}

fn has_type(value: &Value, ty: &str) -> bool {
    match ty {
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "null" => value.is_null(),
        _ => false,
    }
}

/// Whether two names are the same words (`"Issue number"` and `"issue_number"`).
fn same_words(a: &str, b: &str) -> bool {
    let words = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let (a, b) = (words(a), words(b));
    !a.is_empty() && a == b
}

/// Whether a description states `default`: the word "default" and the value's text, such as
/// `(default: 30)`, `Defaults to "open"`, `default is false`.
fn states_default(description: &str, default: &Value) -> bool {
    let text = match default {
        Value::String(s) if !s.is_empty() => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => return false,
    };
    let lower = description.to_lowercase();
    let Some(at) = lower.find("default") else {
        return false;
    };
    // The value within a few words after "default".
    let after: String = lower[at..].chars().take(24 + text.len()).collect();
    let text = text.to_lowercase();
    after
        .split(|c: char| !(c.is_alphanumeric() || "._-+".contains(c)))
        .any(|word| word == text || word.trim_end_matches('.') == text)
}

/// The words that state a lower bound (`min 1`, `minimum: 1`, `at least 1`).
const MINIMUM_WORDS: &[&str] = &["min", "minimum", "least"];
/// The words that state an upper bound (`max 100`, `maximum: 100`, `at most 100`).
const MAXIMUM_WORDS: &[&str] = &["max", "maximum", "most"];

/// Whether a description states the numeric `bound`: one of `words` (`least` and `most` only
/// after `at`) followed within two words by the bound's value, such as `(min 1, max 100)`.
fn states_bound(description: &str, words: &[&str], bound: &Value) -> bool {
    let Value::Number(n) = bound else {
        return false;
    };
    let value = n.to_string();
    let lower = description.to_lowercase();
    let tokens: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || ".-+".contains(c)))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| !w.is_empty())
        .collect();
    tokens.iter().enumerate().any(|(i, word)| {
        let keyword = words.contains(word)
            && (!matches!(*word, "least" | "most") || i > 0 && tokens[i - 1] == "at");
        keyword && tokens[i + 1..].iter().take(2).any(|w| *w == value)
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn drops_what_models_do_not_read_and_keeps_what_restricts() {
        let full = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "additionalProperties": true,
            "required": [],
            "properties": {
                "owner": {"type": "string", "title": "Owner", "minLength": 0, "description": "Repository owner\n"},
                "per_page": {"type": "number", "default": 30, "minimum": 1, "maximum": 100,
                             "description": "Results per page (default: 30, max: 100)"},
                "state": {"type": "string", "enum": ["open", "closed"], "default": "open",
                          "description": "Filter by state"},
                "labels": {"type": "array", "items": {"type": "string", "pattern": ".*"}, "minItems": 1},
                "kind": {"title": "Kind of thing", "type": "string"}
            }
        });
        assert_eq!(
            compact(Format::Anthropic, &full),
            json!({
                "type": "object",
                "properties": {
                    "owner": {"type": "string", "description": "Repository owner"},
                    "per_page": {"type": "number", "minimum": 1,
                                 "description": "Results per page (default: 30, max: 100)"},
                    "state": {"enum": ["open", "closed"], "default": "open",
                              "description": "Filter by state"},
                    "labels": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                    "kind": {"title": "Kind of thing", "type": "string"}
                }
            })
        );
    }

    #[test]
    fn a_default_is_dropped_only_when_the_description_states_that_value() {
        assert!(states_default("Defaults to 10.", &json!(10)));
        assert!(states_default(
            "Sort order (default \"desc\")",
            &json!("desc")
        ));
        assert!(states_default(
            "Include drafts. Default is false",
            &json!(false)
        ));
        assert!(!states_default("Page size (default: 30)", &json!(3)));
        assert!(!states_default("Page size, 30 at most", &json!(30)));
        assert!(!states_default("Default: none", &json!("")));
    }

    #[test]
    fn a_bound_is_dropped_only_when_the_description_states_that_value() {
        let (min, max) = (MINIMUM_WORDS, MAXIMUM_WORDS);
        let text = "Results per page for pagination (min 1, max 100)";
        assert!(states_bound(text, min, &json!(1)));
        assert!(states_bound(text, max, &json!(100)));
        assert!(states_bound(
            "Page number (default 1, min 1)",
            min,
            &json!(1)
        ));
        assert!(states_bound("Between 2 and 9; at least 2.", min, &json!(2)));
        assert!(states_bound("Maximum: 50 entries", max, &json!(50)));
        // Another value, the other bound, a bound word inside another word, no "at".
        assert!(!states_bound(text, max, &json!(10)));
        assert!(!states_bound(
            "Results per page (max 100)",
            min,
            &json!(100)
        ));
        assert!(!states_bound("Administrator 1", min, &json!(1)));
        assert!(!states_bound("The most 5 recent", max, &json!(5)));
        assert!(!states_bound("min 1", min, &json!("1")));
        assert!(!states_bound("Optional 1-based line", min, &json!(1)));
    }

    #[test]
    fn descriptions_keep_their_lines_and_lose_only_spare_whitespace() {
        assert_eq!(
            compact_description("  Get a file.\n\n\n  - one\n  - two  \n"),
            "Get a file.\n\n- one\n- two"
        );
        assert_eq!(compact_description(" \n "), "");
    }

    #[test]
    fn formats_that_require_types_keep_them() {
        let s = json!({"type": "object", "title": "t_Arguments",
                       "properties": {"a": {"type": "string", "enum": ["x"]}}});
        let kept =
            json!({"type": "object", "properties": {"a": {"type": "string", "enum": ["x"]}}});
        for format in [
            Format::OpenAiStrict,
            Format::OpenAiResponses,
            Format::Gemini,
        ] {
            assert_eq!(compact(format, &s), kept, "{format}");
        }
    }

    #[test]
    fn an_enum_keeps_its_type_when_a_value_has_another() {
        let s = json!({"type": "string", "enum": ["a", 1]});
        assert_eq!(compact(Format::OpenAi, &s), s);
        let n = json!({"type": "integer", "enum": [1, 2.5]});
        assert_eq!(compact(Format::OpenAi, &n), n);
    }
}
