//! `tools --tokens [--max-tokens N] [--check]`: what each server's tool list costs a model,
//! per provider format, in full and compact form, largest tools first; and the token budget
//! gate (the registry's `max_tokens` per server, or `--max-tokens` for every server).

use std::process::ExitCode;

use mcp_bindgen::toolbox::provider::Format;
use mcp_bindgen_codegen::budget::{self, OverBudget};
use mcp_bindgen_core::fixture::Tool;
use mcp_bindgen_core::provider::Tokens;

use crate::paths::Locate;
use crate::{Cli, Error, Result};

/// One server's counts: per tool, `(full, compact)` in each of [`Format::ALL`].
struct Server {
    alias: String,
    tools: Vec<(String, Vec<(u32, u32)>)>,
    /// The registry's `max_tokens`, or `--max-tokens`.
    max: Option<u32>,
}

impl Server {
    /// The sum over the tools, per format.
    fn totals(&self) -> Vec<(u32, u32)> {
        let mut totals = vec![(0u32, 0u32); Format::ALL.len()];
        for (_, counts) in &self.tools {
            for (total, (full, compact)) in totals.iter_mut().zip(counts) {
                total.0 = total.0.saturating_add(*full);
                total.1 = total.1.saturating_add(*compact);
            }
        }
        totals
    }

    /// The OpenAI counts of each tool (the budget's format).
    fn openai(&self) -> Vec<(String, Tokens)> {
        self.tools
            .iter()
            .map(|(tool, counts)| {
                let (full, compact) = counts.first().copied().unwrap_or_default();
                (tool.clone(), Tokens::new(full, compact))
            })
            .collect()
    }
}

/// Why `tools --tokens` cannot run in a build without the `tokens` feature, and the fix.
#[cfg(not(feature = "tokens"))]
pub(crate) const UNAVAILABLE: &str = "tools --tokens needs the `tokens` feature of mcp-bindgen-cli (OpenAI's o200k_base encoding, bpe-openai): `cargo install mcp-bindgen-cli --features tokens`, or in an xtask `mcp-bindgen-cli = { version = \"0.1\", features = [\"tokens\"] }`";

/// Entry point of `tools --tokens`.
pub(crate) fn run(
    cli: &Cli,
    locate: &Locate,
    max_tokens: Option<u32>,
    check_only: bool,
) -> Result<ExitCode> {
    let dir = locate.existing_fixtures_dir(cli)?;
    // The registry is optional here: without one, every fixture's tools count.
    let registry = match locate.registry(cli) {
        Ok(path) if path.is_file() => Some(locate.load_registry(cli, "tools")?),
        _ => None,
    };
    let fixtures = crate::paths::load_fixtures(cli, &dir)?;
    let servers = count(&fixtures, registry.as_ref(), max_tokens)?;
    let raw: Vec<(String, Vec<serde_json::Value>)> = fixtures
        .iter()
        .map(|(alias, f)| {
            (
                alias.clone(),
                f.tools.iter().map(|t| t.raw.clone()).collect(),
            )
        })
        .collect();
    for warning in long_descriptions(&raw) {
        errln!("tools: warning: {warning}");
    }
    let mut problems = Vec::new();
    for server in &servers {
        if !check_only {
            print_table(server);
        }
        let total = server.totals().first().copied().unwrap_or_default();
        if let Some(max) = server.max
            && total.0 > max
        {
            let over = budget::over_budget(
                &server.alias,
                max,
                Tokens::new(total.0, total.1),
                server.openai(),
            );
            problems.push(over_text(cli, &over, max_tokens.is_some()));
        }
    }
    let tools: usize = servers.iter().map(|s| s.tools.len()).sum();
    errln!(
        "tokens of {tools} tools from {} fixtures in {} (o200k_base; OpenAI's exact count, an estimate for Anthropic and Gemini), {} over budget",
        servers.len(),
        cli.show(&dir),
        problems.len()
    );
    for p in &problems {
        errln!("tools: {p}");
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The over-budget message, with where the budget was set.
fn over_text(cli: &Cli, over: &OverBudget, from_flag: bool) -> String {
    let set_by = if from_flag {
        "--max-tokens".to_string()
    } else {
        format!("max_tokens of [servers.{}] in the registry", over.alias)
    };
    format!(
        "{over} (budget set by {set_by}; after a change, check with {})",
        cli.hint("tools --tokens --check")
    )
}

/// Counts every fixture's tools (after the registry's `tools`/`exclude_tools`), each on a
/// thread of its own.
fn count(
    fixtures: &[(String, mcp_bindgen_core::fixture::Fixture)],
    registry: Option<&mcp_bindgen::Registry>,
    max_tokens: Option<u32>,
) -> Result<Vec<Server>> {
    let mut out = Vec::new();
    for (alias, fixture) in fixtures {
        let config = registry.and_then(|r| r.servers().iter().find(|s| s.alias() == alias));
        let tools: Vec<&Tool> = fixture
            .tools
            .iter()
            .filter(|t| config.is_none_or(|c| c.allows_tool(&t.name)))
            .collect();
        let counted = std::thread::scope(|scope| {
            let handles: Vec<_> = tools
                .chunks(tools.len().div_ceil(2).max(1))
                .map(|chunk| {
                    let alias = &alias;
                    scope.spawn(move || {
                        chunk
                            .iter()
                            .map(|t| {
                                budget::count_formats(alias, t, &Format::ALL)
                                    .map(|c| (t.name.clone(), c))
                            })
                            .collect::<std::result::Result<Vec<_>, String>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err("a counting thread panicked".into()))
                })
                .collect::<std::result::Result<Vec<_>, String>>()
        })
        .map_err(|e| Error::Other(format!("{alias}: cannot count tokens: {e}")))?;
        out.push(Server {
            max: max_tokens.or_else(|| config.and_then(|c| c.max_tokens())),
            alias: alias.clone(),
            tools: counted.into_iter().flatten().collect(),
        });
    }
    Ok(out)
}

/// The table of one server: totals (full and compact), then its tools, largest first.
fn print_table(server: &Server) {
    let formats: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
    let width = server
        .tools
        .iter()
        .map(|(t, _)| t.len())
        .max()
        .unwrap_or(0)
        .clamp(16, 48);
    let budget = server
        .max
        .map(|m| format!(", max_tokens = {m}"))
        .unwrap_or_default();
    outln!("{} ({} tools{budget})", server.alias, server.tools.len());
    let mut header = format!("  {:<width$}", "tool");
    for f in &formats {
        header.push_str(&format!(" {f:>16}"));
    }
    outln!("{header}");
    let totals = server.totals();
    let row = |name: &str, cells: Vec<u32>| {
        let mut line = format!("  {name:<width$}");
        for c in cells {
            line.push_str(&format!(" {c:>16}"));
        }
        line
    };
    outln!(
        "{}",
        row("(all, full)", totals.iter().map(|t| t.0).collect())
    );
    outln!(
        "{}",
        row("(all, compact)", totals.iter().map(|t| t.1).collect())
    );
    let mut tools: Vec<&(String, Vec<(u32, u32)>)> = server.tools.iter().collect();
    tools.sort_by(|a, b| {
        let first = |t: &(String, Vec<(u32, u32)>)| t.1.first().map_or(0, |c| c.0);
        first(b).cmp(&first(a)).then_with(|| a.0.cmp(&b.0))
    });
    for (tool, counts) in tools {
        let shown: String = if tool.chars().count() > width {
            let cut: String = tool.chars().take(width - 1).collect();
            format!("{cut}…")
        } else {
            tool.clone()
        };
        outln!("{}", row(&shown, counts.iter().map(|c| c.0).collect()));
    }
    outln!();
}

/// One warning per tool whose description a client that keeps 2 048 characters cuts,
/// naming what falls past the cut.
pub(crate) fn long_descriptions(servers: &[(String, Vec<serde_json::Value>)]) -> Vec<String> {
    let mut out = Vec::new();
    for (alias, tools) in servers {
        for tool in tools {
            let (Some(name), Some(description)) = (
                tool.get("name").and_then(serde_json::Value::as_str),
                tool.get("description").and_then(serde_json::Value::as_str),
            ) else {
                continue;
            };
            let schema = tool.get("inputSchema").unwrap_or(&serde_json::Value::Null);
            let Some((chars, lost)) =
                mcp_bindgen_core::provider::cut_description(description, schema)
            else {
                continue;
            };
            let lost = if lost.is_empty() {
                String::new()
            } else {
                let shown: Vec<String> = lost.iter().take(12).map(|n| format!("`{n}`")).collect();
                let more = lost.len().saturating_sub(shown.len());
                format!(
                    "; the names it first mentions past the cut: {}{}",
                    shown.join(", "),
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    }
                )
            };
            out.push(format!(
                "{alias}/{name}: a description of {chars} characters; clients that keep {cut} (Claude Code) cut it silently{lost} (max_description_chars = {cut} in the server's registry entry shortens it at a sentence and moves the sentences naming an argument into its description)",
                cut = mcp_bindgen_core::provider::DESCRIPTION_CUT
            ));
        }
    }
    out
}

/// The per-tool OpenAI counts by tool name (for tests of the table's numbers).
#[cfg(test)]
fn by_tool(server: &Server) -> std::collections::BTreeMap<String, Tokens> {
    server.openai().into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_add_up_per_format_and_the_budget_uses_openai() {
        let server = Server {
            alias: "s".into(),
            tools: vec![
                ("a".into(), vec![(10, 8), (12, 9), (11, 9), (9, 7), (8, 6)]),
                (
                    "b".into(),
                    vec![(20, 15), (22, 16), (21, 16), (19, 14), (18, 13)],
                ),
            ],
            max: Some(25),
        };
        assert_eq!(
            server.totals(),
            vec![(30, 23), (34, 25), (32, 25), (28, 21), (26, 19)]
        );
        assert_eq!(by_tool(&server)["b"], Tokens::new(20, 15));
    }
}
