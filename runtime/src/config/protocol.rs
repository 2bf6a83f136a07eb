//! `protocol = "auto" | "2025-11-25" | "2026-07-28" | …`: which MCP revision a session speaks.

use std::fmt;
use std::str::FromStr;

/// The MCP protocol revisions this runtime speaks, oldest first.
pub(crate) const REVISIONS: &[&str] = &[
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

/// The newest revision with the `initialize` handshake; later revisions are stateless
/// (`server/discover`, the revision and client identity in every request's `_meta`).
pub(crate) const LAST_WITH_INITIALIZE: &str = "2025-11-25";

/// Which MCP protocol revision a session negotiates with its server.
///
/// `Auto` (the default) asks the server with `server/discover` for the current stateless
/// revision (2026-07-28) and falls back to the `initialize` handshake of 2025-11-25 when the
/// server answers that request with an error (an older server does not know the method).
/// A fixed revision speaks only that one: the `initialize` lifecycle up to 2025-11-25, the
/// stateless lifecycle from 2026-07-28; a server that cannot speak it is an error at
/// connect time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// The current revision when the server has it, else the newest with `initialize`.
    #[default]
    Auto,
    /// Exactly this revision: `"2025-11-25"` ([`Protocol::V2025_11_25`]) or `"2026-07-28"`
    /// ([`Protocol::V2026_07_28`]).
    Revision(&'static str),
}

impl Protocol {
    /// The 2025-11-25 revision: `initialize` handshake, one session per connection.
    pub const V2025_11_25: Protocol = Protocol::Revision("2025-11-25");
    /// The 2026-07-28 revision: stateless, `server/discover`, `_meta` in every request.
    pub const V2026_07_28: Protocol = Protocol::Revision("2026-07-28");

    /// Whether this revision starts with `initialize` (`None` for `Auto`: it depends on
    /// the server).
    pub fn has_initialize(self) -> Option<bool> {
        match self {
            Protocol::Auto => None,
            Protocol::Revision(r) => Some(r <= LAST_WITH_INITIALIZE),
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Protocol::Auto => f.write_str("auto"),
            Protocol::Revision(r) => f.write_str(r),
        }
    }
}

impl FromStr for Protocol {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "auto" {
            return Ok(Protocol::Auto);
        }
        REVISIONS
            .iter()
            .find(|r| **r == s)
            .map(|r| Protocol::Revision(r))
            .ok_or_else(|| {
                format!(
                    "unknown protocol \"{s}\" (expected \"auto\" or one of {})",
                    REVISIONS
                        .iter()
                        .map(|r| format!("\"{r}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
    }
}

impl<'de> serde::Deserialize<'de> for Protocol {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_auto_and_every_revision_and_names_the_choices_otherwise() {
        assert_eq!("auto".parse(), Ok(Protocol::Auto));
        assert_eq!("2026-07-28".parse(), Ok(Protocol::V2026_07_28));
        assert_eq!(
            "2025-06-18".parse::<Protocol>().map(|p| p.has_initialize()),
            Ok(Some(true))
        );
        assert_eq!(Protocol::V2026_07_28.has_initialize(), Some(false));
        let e = "2027-01-01".parse::<Protocol>().unwrap_err();
        assert!(
            e.contains("\"auto\"") && e.contains("\"2026-07-28\""),
            "{e}"
        );
        assert_eq!(Protocol::Auto.to_string(), "auto");
    }
}
