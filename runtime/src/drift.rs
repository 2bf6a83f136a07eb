//! Drift between a live server and the fixture the code was generated from.
//!
//! Generated code embeds `FIXTURE_HASH`, the SHA-256 of the fixture's canonical tool list
//! (`mcp_codegen::fixture::tools_hash`). [`tools_hash`] computes the same hash from a live
//! `tools/list`; [`crate::Session::check_drift`] compares the two and applies a
//! [`DriftPolicy`]. The runtime cannot depend on `mcp-codegen`, so the algorithm is
//! repeated here; a test (`tests/tests/drift.rs`) asserts both agree on every committed
//! fixture.

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
/// sorted recursively, tools sorted by `name` — `mcp_codegen::fixture::tools_hash`, the
/// value generated code embeds as `FIXTURE_HASH`.
pub fn tools_hash<'a>(tools: impl IntoIterator<Item = &'a Value>) -> String {
    mcp_codegen::fixture::tools_hash(tools)
}

/// A short, secret-free description of a drift, for warnings and [`crate::Error::Drift`].
pub(crate) fn summary(expected: &str, live: &str, live_tools: &[Value]) -> String {
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
    format!(
        "the live tool list (hash {}, {} tools: {}{more}) differs from the fixture (hash {})",
        short(live),
        names.len(),
        shown.join(", "),
        short(expected)
    )
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
}
