//! `x-mcp-header` (protocol 2026-07-28): a tool's argument mirrored into an HTTP header
//! `Mcp-Param-<Name>` of every `tools/call` over Streamable HTTP.
//!
//! A client must leave out a tool whose annotations break the rules, so the same check runs
//! at snapshot time (the tool is reported and not written), in `mcp_tools!` (a fixture that
//! still holds such a tool is a compile error naming the tool and the rule) and in the
//! runtime (which mirrors the valid ones). The rules: the annotation sits on a property
//! reached from the root through `properties` only; it is a non-empty HTTP token, unique
//! without regard to case; the property's `type` is `string`, `integer` or `boolean`.

use serde_json::Value;

/// One mirrored argument: the property path from the arguments' root and the header's
/// name (without the `Mcp-Param-` prefix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamHeader {
    /// Property names from the root of the arguments.
    pub path: Vec<String>,
    /// The header name after `Mcp-Param-`.
    pub header: String,
}

/// The `x-mcp-header` annotations of an input schema, or the rule the first bad one breaks
/// (`property "a.b": …`).
pub fn param_headers(input_schema: &Value) -> Result<Vec<ParamHeader>, String> {
    let Some(root) = input_schema.as_object() else {
        return Ok(Vec::new());
    };
    if root.contains_key("x-mcp-header") {
        return Err("x-mcp-header annotates the schema root, not a property".into());
    }
    if off_chain(input_schema, true) {
        return Err(
            "x-mcp-header sits below a keyword other than `properties` (only properties reached through `properties` can be mirrored)"
                .into(),
        );
    }
    let mut found = Vec::new();
    collect(root.get("properties"), &mut Vec::new(), &mut found);
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(found.len());
    for (path, schema, header) in found {
        let prop = path.join(".");
        let Value::String(header) = header else {
            return Err(format!("property \"{prop}\": x-mcp-header is not a string"));
        };
        if header.is_empty() {
            return Err(format!("property \"{prop}\": x-mcp-header is empty"));
        }
        if !header.chars().all(is_tchar) {
            return Err(format!(
                "property \"{prop}\": x-mcp-header \"{header}\" is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~ only)"
            ));
        }
        if !seen.insert(header.to_ascii_lowercase()) {
            return Err(format!(
                "property \"{prop}\": x-mcp-header \"{header}\" is used twice (header names ignore case)"
            ));
        }
        match schema.get("type").and_then(Value::as_str) {
            Some("string" | "integer" | "boolean") => {}
            other => {
                return Err(format!(
                    "property \"{prop}\": x-mcp-header needs type string, integer or boolean, not {}",
                    other.map_or("an untyped property".to_string(), |t| format!("\"{t}\""))
                ));
            }
        }
        out.push(ParamHeader {
            path,
            header: header.clone(),
        });
    }
    Ok(out)
}

/// The header value for an argument: strings as they are unless they need Base64
/// (`=?base64?…?=`: non-ASCII or control characters, whitespace at either end, or text that
/// looks like that form), integers and booleans as JSON writes them; `None` for `null` and
/// anything else (the header is left out).
pub fn header_value(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if needs_base64(s) => Some(format!(
            "=?base64?{}?=",
            crate::text::base64(s.as_bytes(), false)
        )),
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The value at `path` in `arguments`.
pub fn value_at<'a>(arguments: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(arguments, |v, key| v.get(key))
}

fn needs_base64(s: &str) -> bool {
    if s.is_empty() {
        return false;
    }
    let b = s.as_bytes();
    matches!(b[0], b' ' | b'\t')
        || matches!(b[b.len() - 1], b' ' | b'\t')
        || s.chars().any(|c| (c as u32) < 0x20 || (c as u32) > 0x7e)
        || (s.starts_with("=?base64?") && s.ends_with("?="))
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

type Found<'a> = Vec<(Vec<String>, &'a Value, &'a Value)>;

fn collect<'a>(properties: Option<&'a Value>, path: &mut Vec<String>, out: &mut Found<'a>) {
    let Some(Value::Object(properties)) = properties else {
        return;
    };
    for (name, schema) in crate::fixture::entries_sorted(properties) {
        path.push(name.clone());
        if let Some(header) = schema.get("x-mcp-header") {
            out.push((path.clone(), schema, header));
        }
        collect(schema.get("properties"), path, out);
        path.pop();
    }
}

/// Whether an `x-mcp-header` sits anywhere but on a `properties`-only path from the root.
fn off_chain(schema: &Value, on_chain: bool) -> bool {
    match schema {
        Value::Object(map) => map.iter().any(|(key, value)| match key.as_str() {
            "x-mcp-header" => !on_chain,
            "properties" => value
                .as_object()
                .is_some_and(|m| m.values().any(|s| off_chain(s, on_chain))),
            "default" | "const" | "enum" | "examples" => false,
            _ => off_chain(value, false),
        }),
        Value::Array(items) => items.iter().any(|s| off_chain(s, false)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(props: Value) -> Value {
        json!({"type": "object", "properties": props})
    }

    #[test]
    fn valid_annotations_are_listed_with_their_paths() {
        let s = schema(json!({
            "region": {"type": "string", "x-mcp-header": "Region"},
            "nested": {"type": "object", "properties": {"n": {"type": "integer", "x-mcp-header": "N"}}},
            "plain": {"type": "string"}
        }));
        let found = param_headers(&s).expect("valid");
        assert_eq!(
            found,
            [
                ParamHeader {
                    path: vec!["nested".into(), "n".into()],
                    header: "N".into()
                },
                ParamHeader {
                    path: vec!["region".into()],
                    header: "Region".into()
                },
            ]
        );
    }

    #[test]
    fn every_rule_of_the_conformance_suite_is_enforced() {
        for (props, rule) in [
            (
                json!({"v": {"type": "string", "x-mcp-header": ""}}),
                "is empty",
            ),
            (
                json!({"v": {"type": "object", "x-mcp-header": "Data"}}),
                "not \"object\"",
            ),
            (
                json!({"v": {"type": "array", "items": {"type": "string"}, "x-mcp-header": "Items"}}),
                "not \"array\"",
            ),
            (
                json!({"v": {"type": "null", "x-mcp-header": "Nil"}}),
                "not \"null\"",
            ),
            (
                json!({"v": {"type": "number", "x-mcp-header": "Score"}}),
                "not \"number\"",
            ),
            (
                json!({"a": {"type": "string", "x-mcp-header": "Region"}, "b": {"type": "string", "x-mcp-header": "region"}}),
                "used twice",
            ),
            (
                json!({"v": {"type": "string", "x-mcp-header": "My Region"}}),
                "not an HTTP token",
            ),
            (
                json!({"v": {"type": "string", "x-mcp-header": "Region:Primary"}}),
                "not an HTTP token",
            ),
            (
                json!({"v": {"type": "string", "x-mcp-header": "Région"}}),
                "not an HTTP token",
            ),
            (
                json!({"v": {"type": "string", "x-mcp-header": "Region\t1"}}),
                "not an HTTP token",
            ),
            (
                json!({"v": {"type": "string", "x-mcp-header": 7}}),
                "not a string",
            ),
            (
                json!({"v": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}}}),
                "below a keyword",
            ),
        ] {
            let e = param_headers(&schema(props.clone())).expect_err(&props.to_string());
            assert!(e.contains(rule), "{props}: {e}");
        }
        let root = json!({"type": "object", "x-mcp-header": "Root"});
        assert!(param_headers(&root).unwrap_err().contains("root"));
    }

    #[test]
    fn values_are_encoded_as_the_conformance_suite_expects() {
        assert_eq!(
            header_value(&json!("us-west1")).as_deref(),
            Some("us-west1")
        );
        assert_eq!(
            header_value(&json!("us west 1")).as_deref(),
            Some("us west 1")
        );
        assert_eq!(header_value(&json!("")).as_deref(), Some(""));
        assert_eq!(header_value(&json!(42)).as_deref(), Some("42"));
        assert_eq!(header_value(&json!(false)).as_deref(), Some("false"));
        assert_eq!(header_value(&Value::Null), None);
        assert_eq!(
            header_value(&json!("Hello, 世界")).as_deref(),
            Some("=?base64?SGVsbG8sIOS4lueVjA==?=")
        );
        assert_eq!(
            header_value(&json!(" padded ")).as_deref(),
            Some("=?base64?IHBhZGRlZCA=?=")
        );
        assert_eq!(
            header_value(&json!("\tindented")).as_deref(),
            Some("=?base64?CWluZGVudGVk?=")
        );
    }
}
