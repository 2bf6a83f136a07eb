//! `tools [--strict] [--prefix] [--fixtures DIR]`: the OpenAI function-call `tools` array of
//! every fixture of the project, as one toolbox over all of them would export it
//! (`mcp_runtime::toolbox::export_offline`), printed as JSON on stdout:
//!
//! ```json
//! {"tools": [ … ], "strict_fallbacks": [{"name", "server", "tool", "reason"}], "collisions": [ … ]}
//! ```
//!
//! A one-line summary goes to stderr. Exits 1 when a name is invalid (not `[A-Za-z0-9_-]`,
//! longer than 64) or not unique, or a fixture cannot be read.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::ExitCode;

use mcp_runtime::toolbox::names::is_valid_name;
use mcp_runtime::toolbox::{ToolboxOptions, export_offline};
use serde_json::{Value, json};

use crate::args::{Arg, Parser};
use crate::paths::{LOCATE_USAGE, Locate};
use crate::{Cli, Error, Result};

fn usage(cli: &Cli) -> String {
    format!(
        "usage: {} tools [--strict] [--prefix] [--fixtures DIR]

Prints the OpenAI function-call `tools` array of every fixture (names mcp_<alias>_<tool>).

  --strict               strict definitions where the schema allows (others fall back, with the reason)
  --prefix               prefix descriptions with `[MCP: <alias>]`
{LOCATE_USAGE}",
        cli.invoked_as
    )
}

/// Entry point; `words` are the words after `tools`.
pub(crate) fn run(cli: &Cli, words: &[String]) -> Result<ExitCode> {
    let mut p = Parser::new(words, usage(cli));
    let mut locate = Locate::default();
    let mut strict = false;
    let mut options = ToolboxOptions::default();
    while let Some(arg) = p.next()? {
        match arg {
            Arg::Flag(f) if f == "--strict" => strict = true,
            Arg::Flag(f) if f == "--prefix" => options.description_prefix = true,
            Arg::Flag(f) => {
                if !locate.take(&f, &mut p)? {
                    return Err(p.unknown(&f));
                }
            }
            Arg::Word(w) => return Err(p.error(&format!("unexpected argument `{w}`"))),
        }
    }
    let dir = locate.existing_fixtures_dir(cli)?;
    let servers = load(cli, &dir)?;
    let (export, collisions) = export_offline(&servers, &options, strict);
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for def in &export.tools {
        let name = def
            .pointer("/function/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !is_valid_name(name) {
            problems.push(format!("invalid function name \"{name}\""));
        }
        if !seen.insert(name.to_string()) {
            problems.push(format!("duplicate function name \"{name}\""));
        }
    }
    let out = json!({
        "tools": export.tools,
        "strict_fallbacks": export.fallbacks.iter().map(|f| json!({
            "name": f.exported, "server": f.server, "tool": f.tool, "reason": f.reason,
        })).collect::<Vec<_>>(),
        "collisions": collisions.iter().map(ToString::to_string).collect::<Vec<_>>(),
    });
    let text = serde_json::to_string_pretty(&out)
        .map_err(|e| Error::Other(format!("cannot print JSON: {e}")))?;
    println!("{text}");
    let strict_count = export
        .tools
        .iter()
        .filter(|t| t.pointer("/function/strict") == Some(&json!(true)))
        .count();
    eprintln!(
        "{} tools from {} fixtures in {}: {} strict, {} non-strict{}, {} name collisions resolved",
        export.tools.len(),
        servers.len(),
        cli.show(&dir),
        strict_count,
        export.tools.len() - strict_count,
        if strict {
            format!(" ({} strict fallbacks)", export.fallbacks.len())
        } else {
            String::new()
        },
        collisions.len()
    );
    for problem in &problems {
        eprintln!("tools: {problem}");
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `(alias, tools)` of every fixture in `dir`, sorted by file name, under the alias
/// `verify` uses (`server.alias`, else the file stem).
fn load(cli: &Cli, dir: &Path) -> Result<Vec<(String, Vec<Value>)>> {
    let fixtures = mcp_codegen::fixture::load_dir(dir)?;
    if fixtures.is_empty() {
        return Err(Error::Project(format!(
            "no fixture in {}; run {}",
            cli.show(dir),
            cli.hint("snapshot")
        )));
    }
    fixtures
        .into_iter()
        .map(|(_, loaded)| {
            let f = loaded?;
            let alias = mcp_codegen::verify::alias_of(&f);
            Ok((alias, f.tools.into_iter().map(|t| t.raw).collect()))
        })
        .collect()
}
