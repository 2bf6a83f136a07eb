//! `cargo xtask tools [--fixtures DIR] [--strict]`: the OpenAI function-call `tools` array of
//! every fixture in DIR (default `fixtures/`), as one toolbox over all of them would export
//! it (`mcp_runtime::toolbox::export_offline`), printed as JSON on stdout:
//!
//! ```json
//! {"tools": [ … ], "strict_fallbacks": [{"name", "server", "tool", "reason"}], "collisions": [ … ]}
//! ```
//!
//! A one-line summary goes to stderr. Exits 1 when a name is invalid (not `[A-Za-z0-9_-]`,
//! longer than 64) or not unique, or a fixture cannot be read.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;

use mcp_runtime::toolbox::names::is_valid_name;
use mcp_runtime::toolbox::{ToolboxOptions, export_offline};
use serde_json::{Value, json};

const USAGE: &str = "usage: cargo xtask tools [--fixtures DIR] [--strict] [--prefix]
  prints the OpenAI function-call `tools` array of every fixture in DIR (default fixtures/)
  --strict   strict definitions where the schema allows (others fall back, with the reason)
  --prefix   prefix descriptions with `[MCP: <alias>]`";

/// Entry point; `args` are the words after `tools`.
pub fn run(args: &[String]) -> ExitCode {
    let mut dir = PathBuf::from("fixtures");
    let mut strict = false;
    let mut options = ToolboxOptions::default();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--fixtures" => match args.get(i + 1) {
                Some(d) => {
                    dir = PathBuf::from(d);
                    i += 1;
                }
                None => {
                    eprintln!("tools: --fixtures needs a directory\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            "--strict" => strict = true,
            "--prefix" => options.description_prefix = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("tools: unexpected argument `{other}`\n{USAGE}");
                return ExitCode::from(2);
            }
        }
        i += 1;
    }
    let servers = match load(&dir) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("tools: {e}");
            return ExitCode::FAILURE;
        }
    };
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
    match serde_json::to_string_pretty(&out) {
        Ok(text) => println!("{text}"),
        Err(e) => {
            eprintln!("tools: cannot print JSON: {e}");
            return ExitCode::FAILURE;
        }
    }
    let strict_count = export
        .tools
        .iter()
        .filter(|t| t.pointer("/function/strict") == Some(&json!(true)))
        .count();
    eprintln!(
        "{} tools from {} fixtures: {} strict, {} non-strict{}, {} name collisions resolved",
        export.tools.len(),
        servers.len(),
        strict_count,
        export.tools.len() - strict_count,
        if strict {
            format!(" ({} strict fallbacks)", export.fallbacks.len())
        } else {
            String::new()
        },
        collisions.len()
    );
    for p in &problems {
        eprintln!("tools: {p}");
    }
    if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `(alias, tools)` of every `*.json` fixture in `dir`, sorted by file name, under the alias
/// `cargo xtask verify` uses (`server.alias`, else the file stem).
fn load(dir: &std::path::Path) -> Result<Vec<(String, Vec<Value>)>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(format!("no *.json fixture in {}", dir.display()));
    }
    let mut out = Vec::with_capacity(paths.len());
    for p in paths {
        let f = mcp_codegen::fixture::Fixture::load(&p).map_err(|e| e.to_string())?;
        let alias = mcp_codegen::verify::alias_of(&f);
        out.push((alias, f.tools.into_iter().map(|t| t.raw).collect()));
    }
    Ok(out)
}
