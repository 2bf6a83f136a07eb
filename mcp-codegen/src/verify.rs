//! `cargo xtask verify`: codegen over every fixture of a directory, no network.
//!
//! For each tool: typed, fallback (with reasons) or error. [`Summary::summary_line`] is the
//! line tooling parses: `N tools: T typed, F fallback, E errors`.

use std::path::{Path, PathBuf};

use crate::Result;
use crate::emit::{Options, plan};
use crate::fixture::Fixture;
use mcp_bindgen_core::provider::Tokens;

/// The outcome for one tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Arguments (and result, when it has an `outputSchema`) fully typed.
    Typed,
    /// Generated, but partly untyped; the reasons.
    Fallback(Vec<String>),
    /// Not generated: the error.
    Error(String),
}

/// One tool's line in the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolStatus {
    /// Fixture file (or `<memory>`).
    pub fixture: PathBuf,
    /// Tool name (empty when the whole fixture failed).
    pub tool: String,
    /// Outcome.
    pub status: Status,
    /// Names chosen on the tool's behalf: properties or functions whose names would
    /// collide, each given a distinct one (`renamed` lines of the report).
    pub renamed: Vec<String>,
}

/// The verification of one or more fixtures.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Per-tool outcomes, in fixture then tool order.
    pub tools: Vec<ToolStatus>,
    /// Fixtures read.
    pub fixtures: usize,
    /// Per readable fixture, its alias and the tokens of its tools' OpenAI function
    /// definitions, full and compact (`o200k_base`), or why they could not be counted;
    /// empty in a build without the `tokens` feature.
    pub tokens: Vec<(String, std::result::Result<Tokens, String>)>,
}

impl Summary {
    /// Number of tools looked at (errors of unreadable fixtures count as one tool each).
    pub fn total(&self) -> usize {
        self.tools.len()
    }

    /// Fully typed tools.
    pub fn typed(&self) -> usize {
        self.tools
            .iter()
            .filter(|t| t.status == Status::Typed)
            .count()
    }

    /// Tools generated with a fallback.
    pub fn fallback(&self) -> usize {
        self.tools
            .iter()
            .filter(|t| matches!(t.status, Status::Fallback(_)))
            .count()
    }

    /// Tools (or fixtures) that failed.
    pub fn errors(&self) -> usize {
        self.tools
            .iter()
            .filter(|t| matches!(t.status, Status::Error(_)))
            .count()
    }

    /// `N tools: T typed, F fallback, E errors` — parsed by tooling, keep verbatim.
    pub fn summary_line(&self) -> String {
        format!(
            "{} tools: {} typed, {} fallback, {} errors",
            self.total(),
            self.typed(),
            self.fallback(),
            self.errors()
        )
    }

    /// One line per fixture: `tokens   <alias>: N (OpenAI function definitions, o200k_base),
    /// M compact`.
    pub fn token_lines(&self) -> Vec<String> {
        self.tokens
            .iter()
            .map(|(alias, tokens)| match tokens {
                Ok(t) => format!(
                    "tokens   {alias}: {} (OpenAI function definitions, o200k_base), {} compact",
                    t.full, t.compact
                ),
                Err(e) => format!("tokens   {alias}: not counted: {e}"),
            })
            .collect()
    }

    /// One line per tool that is not fully typed, and one per name chosen on a tool's
    /// behalf (`renamed`).
    pub fn detail_lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        for t in &self.tools {
            let file = t.fixture.display();
            for r in &t.renamed {
                out.push(format!("renamed  {file}: {}: {r}", t.tool));
            }
            match &t.status {
                Status::Typed => {}
                Status::Fallback(reasons) => {
                    out.push(format!(
                        "fallback {file}: {}: {}",
                        t.tool,
                        reasons.join("; ")
                    ));
                }
                Status::Error(e) if t.tool.is_empty() => out.push(format!("error    {file}: {e}")),
                Status::Error(e) => out.push(format!("error    {file}: {}: {e}", t.tool)),
            }
        }
        out
    }
}

/// Verifies one loaded fixture under `alias`.
pub fn verify_fixture(fixture: &Fixture, alias: &str) -> Vec<ToolStatus> {
    let at = fixture.path.clone();
    let whole = |e: String| {
        vec![ToolStatus {
            fixture: at.clone(),
            tool: String::new(),
            status: Status::Error(e),
            renamed: Vec::new(),
        }]
    };
    let plan = match plan(fixture, alias, &Options::default()) {
        Ok(p) => p,
        Err(e) => return whole(e.to_string()),
    };
    if let Err(e) = syn::parse_str::<syn::File>(&plan.generated.code) {
        return whole(format!("generated code does not parse: {e}"));
    }
    let mut out = Vec::new();
    for tool in &fixture.tools {
        let status = if let Some((_, e)) = plan.errors.iter().find(|(name, _)| name == &tool.name) {
            Status::Error(e.to_string())
        } else if let Some(r) = plan.generated.tools.iter().find(|r| r.name == tool.name) {
            if r.fully_typed() {
                Status::Typed
            } else {
                Status::Fallback(r.reasons())
            }
        } else {
            Status::Error("tool was not generated".into())
        };
        let renamed = plan
            .generated
            .warnings
            .iter()
            .filter(|w| w.tool == tool.name && w.kind == crate::WarningKind::Renamed)
            .map(|w| w.message.clone())
            .collect();
        out.push(ToolStatus {
            fixture: at.clone(),
            tool: tool.name.clone(),
            status,
            renamed,
        });
    }
    out
}

/// The alias of a fixture file: `server.alias` when present, else the file stem.
pub fn alias_of(fixture: &Fixture) -> String {
    fixture
        .alias()
        .map(str::to_string)
        .or_else(|| {
            fixture
                .path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "server".to_string())
}

/// Verifies every fixture in `dir` ([`crate::fixture::load_dir`]: `*.json` files with a
/// `tools` key, sorted by name); a file that cannot be read or parsed counts as one error.
pub fn verify_dir(dir: &Path) -> Result<Summary> {
    let mut summary = Summary::default();
    for (path, loaded) in crate::fixture::load_dir(dir)? {
        summary.fixtures += 1;
        match loaded {
            Ok(fixture) => {
                let alias = alias_of(&fixture);
                summary.tools.extend(verify_fixture(&fixture, &alias));
                // Without the `tokens` feature there is nothing to count with: no line,
                // rather than one per fixture saying so.
                if cfg!(feature = "tokens") {
                    let tokens = fixture
                        .tools
                        .iter()
                        .map(|t| crate::budget::tool_tokens(&alias, t))
                        .collect::<std::result::Result<Vec<_>, _>>()
                        .map(|list| Tokens::sum(&list));
                    summary.tokens.push((alias, tokens));
                }
            }
            Err(e) => summary.tools.push(ToolStatus {
                fixture: path,
                tool: String::new(),
                status: Status::Error(e.to_string()),
                renamed: Vec::new(),
            }),
        }
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_counts_and_line() {
        let f = Fixture::from_slice(
            br#"{"tools":[
                {"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}},
                {"name":"b","inputSchema":{"type":"object","properties":{"x":{"$ref":"https://e/x"}}}},
                {"name":"c","inputSchema":{"type":"object","properties":{"aB":{},"a_b":{}}}}
            ]}"#,
            Path::new("f.json"),
        )
        .unwrap();
        let s = Summary {
            tools: verify_fixture(&f, "f"),
            fixtures: 1,
            tokens: vec![("f".into(), Ok(Tokens::new(120, 100)))],
        };
        assert_eq!(
            s.token_lines(),
            ["tokens   f: 120 (OpenAI function definitions, o200k_base), 100 compact"]
        );
        assert_eq!(s.summary_line(), "3 tools: 2 typed, 1 fallback, 0 errors");
        let lines = s.detail_lines();
        assert_eq!(lines.len(), 2);
        assert!(
            lines[0].starts_with("fallback f.json: b: arguments untyped: external $ref"),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].starts_with("renamed  f.json: c: properties \"aB\" and \"a_b\"")
                && lines[1].contains("\"aB\" is `a_b_camel`"),
            "{}",
            lines[1]
        );
    }

    #[test]
    fn directories_skip_non_fixtures() {
        let dir =
            std::env::temp_dir().join(format!("mcp-bindgen-codegen-verify-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("servers.toml"), "[x]").unwrap();
        std::fs::write(dir.join("claude.json"), r#"{"mcpServers":{}}"#).unwrap();
        std::fs::write(
            dir.join("demo.json"),
            r#"{"tools":[{"name":"t","inputSchema":{}}]}"#,
        )
        .unwrap();
        std::fs::write(dir.join("broken.json"), "{").unwrap();
        let s = verify_dir(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(s.fixtures, 2);
        assert_eq!(s.summary_line(), "2 tools: 1 typed, 0 fallback, 1 errors");
    }
}
