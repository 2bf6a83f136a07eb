//! Drift between a live server and the fixture the code was generated from.
//!
//! Generated code embeds `FIXTURE_HASH`, the SHA-256 of the fixture's canonical tool list
//! (`mcp_bindgen_core::fixture::tools_hash`). [`tools_hash`] computes the same hash from a live
//! `tools/list`; [`crate::Session::check_drift`] compares the two and applies a
//! [`DriftPolicy`]. Both sides call the same function of `mcp-bindgen-codegen` (its lean part,
//! without typify or syn), so the hashes cannot disagree; `tests/tests/it/drift.rs` checks them
//! on every committed fixture.

use std::fmt;
use std::str::FromStr;

use serde_json::Value;

/// What happens when the live tool list differs from the fixture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DriftPolicy {
    /// Log a warning (`tracing::warn!`) and carry on. The default.
    #[default]
    Warn,
    /// Fail with [`crate::Error::Drift`]: at connect, and for every call after a
    /// `tools/list_changed` notification revealed drift.
    Error,
    /// Do not compare.
    Ignore,
}

impl fmt::Display for DriftPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DriftPolicy::Warn => "warn",
            DriftPolicy::Error => "error",
            DriftPolicy::Ignore => "ignore",
        })
    }
}

impl FromStr for DriftPolicy {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "warn" => Ok(DriftPolicy::Warn),
            "error" => Ok(DriftPolicy::Error),
            "ignore" => Ok(DriftPolicy::Ignore),
            other => Err(format!(
                "unknown drift policy \"{other}\" (expected \"warn\", \"error\" or \"ignore\")"
            )),
        }
    }
}

impl<'de> serde::Deserialize<'de> for DriftPolicy {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// SHA-256 (lowercase hex) of the canonical, compact JSON of a tool list: object keys
/// sorted recursively, tools sorted by `name` — `mcp_bindgen_core::fixture::tools_hash`, the
/// value generated code embeds as `FIXTURE_HASH`.
pub fn tools_hash<'a>(tools: impl IntoIterator<Item = &'a Value>) -> String {
    mcp_bindgen_core::fixture::tools_hash(tools)
}

/// A short, secret-free description of a drift, for warnings and [`crate::Error::Drift`].
///
/// With the tools the program was generated with (`fixture`), the tools it uses are
/// classified as `snapshot --check` classifies them, one clause per changed tool; without
/// them (or when none of those changed: another tool or a field the bindings do not read
/// did), the hashes and the live tool names say what is known.
pub(crate) fn summary(
    expected: &str,
    live: &str,
    live_tools: &[Value],
    fixture: Option<&[crate::typed::TypedTool]>,
) -> String {
    if let Some(fixture) = fixture {
        let clauses = changed_tools(fixture, live_tools);
        if !clauses.is_empty() {
            return clauses.join("; ");
        }
    }
    let mut names: Vec<&str> = live_tools
        .iter()
        .map(|t| t.get("name").and_then(Value::as_str).unwrap_or(""))
        .collect();
    names.sort_unstable();
    let shown: Vec<&str> = names.iter().take(8).copied().collect();
    let more = if names.len() > shown.len() {
        format!(", … {} more", names.len() - shown.len())
    } else {
        String::new()
    };
    let which = if fixture.is_some() {
        "the tools this program uses are unchanged, but "
    } else {
        ""
    };
    format!(
        "{which}the live tool list (hash {}, {} tools: {}{more}) differs from the fixture (hash {})",
        short(live),
        names.len(),
        shown.join(", "),
        short(expected)
    )
}

/// One clause per tool of the program that changed on the server: `snapshot --check`'s
/// classification (`add: BREAKING — new required argument "b"`).
#[cfg(feature = "drift-details")]
fn changed_tools(fixture: &[crate::typed::TypedTool], live_tools: &[Value]) -> Vec<String> {
    let (old, new) = views(fixture, live_tools);
    let report = mcp_bindgen_core::diff::classify(
        &serde_json::json!({ "tools": old }),
        &serde_json::json!({ "tools": new }),
    );
    report
        .changes
        .iter()
        .map(|c| {
            let headline = c.details.first().map_or("", |d| d.message.as_str());
            format!("{}: {} — {headline}", c.tool, c.severity)
        })
        .collect()
}

/// One clause per tool of the program that changed on the server, without the classifier
/// (feature `drift-details` off), told by the tools' fingerprints: `add: the input or
/// output schema changed`, `sub: removed`, `get_weather: renamed to "forecast"`.
#[cfg(not(feature = "drift-details"))]
fn changed_tools(fixture: &[crate::typed::TypedTool], live_tools: &[Value]) -> Vec<String> {
    use mcp_bindgen_core::fingerprint::{Difference, fingerprints, renames};
    let reviewed = fingerprints(
        fixture
            .iter()
            .map(|t| t.definition())
            .collect::<Vec<_>>()
            .iter(),
    );
    let live = fingerprints(live_tools);
    let renamed = renames(&reviewed, &live);
    reviewed
        .iter()
        .filter_map(|(name, print)| match live.get(name) {
            None => Some(match renamed.iter().find(|(from, _)| from == name) {
                Some((_, to)) => format!("{name}: renamed to \"{to}\" (the same schemas)"),
                None => format!("{name}: removed"),
            }),
            Some(now) => match print.compare(now) {
                Difference::None => None,
                d => Some(format!("{name}: {} changed", d.words())),
            },
        })
        .collect()
}

/// The program's tools and their live counterparts, reduced to the fields the generated
/// bindings were made from (name, description, input and output schema).
#[cfg(feature = "drift-details")]
fn views(fixture: &[crate::typed::TypedTool], live_tools: &[Value]) -> (Vec<Value>, Vec<Value>) {
    let parse = |text: &str| serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
    let view = |name: &str, description: Option<&str>, input: Value, output: Option<Value>| {
        let mut tool = serde_json::Map::new();
        tool.insert("name".into(), Value::from(name));
        if let Some(d) = description {
            tool.insert("description".into(), Value::from(d));
        }
        tool.insert("inputSchema".into(), input);
        if let Some(o) = output {
            tool.insert("outputSchema".into(), o);
        }
        Value::Object(tool)
    };
    let old: Vec<Value> = fixture
        .iter()
        .map(|t| {
            view(
                t.name,
                t.description,
                parse(t.input_schema),
                t.output_schema.map(parse),
            )
        })
        .collect();
    let new: Vec<Value> = live_tools
        .iter()
        .filter_map(|t| {
            let name = t.get("name")?.as_str()?;
            fixture.iter().any(|f| f.name == name).then(|| {
                view(
                    name,
                    t.get("description").and_then(Value::as_str),
                    t.get("inputSchema").cloned().unwrap_or(Value::Null),
                    t.get("outputSchema").cloned(),
                )
            })
        })
        .collect();
    (old, new)
}

fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hash_ignores_key_and_tool_order() {
        let a = [
            json!({"name": "b", "x": {"q": 1, "p": 2}}),
            json!({"name": "a"}),
        ];
        let b = [
            json!({"name": "a"}),
            json!({"x": {"p": 2, "q": 1}, "name": "b"}),
        ];
        assert_eq!(tools_hash(&a), tools_hash(&b));
        assert_ne!(tools_hash(&a), tools_hash(&a[..1]));
        assert_eq!(tools_hash(&a).len(), 64);
    }

    #[test]
    fn policy_parses_and_names_the_choices() {
        assert_eq!("error".parse::<DriftPolicy>(), Ok(DriftPolicy::Error));
        assert_eq!(DriftPolicy::default(), DriftPolicy::Warn);
        let e = "loud".parse::<DriftPolicy>().unwrap_err();
        assert!(e.contains("\"warn\", \"error\" or \"ignore\""), "{e}");
    }

    #[test]
    fn changed_tools_are_named_one_clause_each() {
        let tool = |name: &'static str, input: &'static str| crate::typed::TypedTool {
            name,
            description: None,
            title: None,
            annotations: None,
            input_schema: input,
            output_schema: None,
            openai_name: name,
            untyped_args_reason: None,
            normalize: None,
            normalize_output: None,
        };
        let fixture = [
            tool("same", r#"{"type":"object"}"#),
            tool(
                "add",
                r#"{"type":"object","properties":{"a":{"type":"number"}}}"#,
            ),
            tool("gone", r#"{"type":"object"}"#),
        ];
        let live = [
            json!({"name": "same", "inputSchema": {"type": "object"}}),
            json!({"name": "add", "inputSchema": {"type": "object", "properties": {
                "a": {"type": "number"}, "b": {"type": "number"}}, "required": ["b"]}}),
            json!({"name": "new", "inputSchema": {"type": "object"}}),
        ];
        let clauses = changed_tools(&fixture, &live);
        assert_eq!(clauses.len(), 2, "{clauses:?}");
        #[cfg(feature = "drift-details")]
        {
            assert!(clauses[0].starts_with("add: BREAKING"), "{clauses:?}");
            assert!(clauses[1].starts_with("gone: BREAKING"), "{clauses:?}");
        }
        #[cfg(not(feature = "drift-details"))]
        assert_eq!(
            clauses,
            [
                "add: the input or output schema changed",
                "gone: renamed to \"new\" (the same schemas)"
            ]
        );
    }
}
