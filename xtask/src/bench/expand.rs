//! Section `expand`: `mcp_codegen::generate` (what the proc macro runs) over the GitHub
//! corpus and every committed fixture.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use mcp_codegen::fixture::Fixture;
use mcp_codegen::{Options, format_tokens, generate};
use serde_json::{Map, Value, json};

use super::calls::build_release;
use super::*;

/// The GitHub corpus as a fixture, and as fixture JSON text (`{"tools": [...]}`).
pub(super) fn github_corpus(root: &Path) -> Result<(Fixture, Vec<u8>), String> {
    let path = root.join(crate::GITHUB_CORPUS);
    let text = std::fs::read(&path).map_err(|e| {
        format!(
            "cannot read the GitHub corpus at {} ({e}); it lives in the shared folder beside the repository",
            path.display()
        )
    })?;
    let tools: Value =
        serde_json::from_slice(&text).map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
    let wrapped = serde_json::to_vec(&json!({ "tools": tools }))
        .map_err(|e| format!("cannot re-encode the corpus: {e}"))?;
    let fixture = Fixture::from_slice(&wrapped, &path).map_err(|e| e.to_string())?;
    Ok((fixture, wrapped))
}

/// Median milliseconds of `generate` alone and of `generate` + formatting, and the tool count.
pub(super) fn time_expansion(
    fixture: &Fixture,
    alias: &str,
    n: usize,
) -> Result<(f64, f64, usize), String> {
    let mut gen_ms = Vec::with_capacity(n);
    let mut total_ms = Vec::with_capacity(n);
    let mut tools = 0;
    for _ in 0..n {
        let started = Instant::now();
        let generated =
            generate(fixture, alias, &Options::default()).map_err(|e| format!("{alias}: {e}"))?;
        let generated_at = started.elapsed();
        tools = generated.stats.tools;
        let text = format_tokens(alias, generated.tokens).map_err(|e| format!("{alias}: {e}"))?;
        let total = started.elapsed();
        std::hint::black_box(text);
        gen_ms.push(ms(generated_at));
        total_ms.push(ms(total));
    }
    Ok((
        median(&gen_ms).unwrap_or(f64::NAN),
        median(&total_ms).unwrap_or(f64::NAN),
        tools,
    ))
}

/// Runs `mcp-bench expand` (the optimized build) on a fixture file.
pub(super) fn expand_release(
    bench: &Path,
    fixture: &Path,
    alias: &str,
    n: usize,
) -> Result<Value, String> {
    let output = Command::new(bench)
        .arg("expand")
        .arg(fixture)
        .arg(alias)
        .arg(n.to_string())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bench.display()))?;
    if !output.status.success() {
        return Err(format!(
            "mcp-bench expand {alias} failed ({})",
            output.status
        ));
    }
    serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("mcp-bench expand printed no JSON: {e}"))
}

pub(super) fn expand(root: &Path, dir: &Path, smoke: bool) -> Result<Value, String> {
    let n = if smoke { 1 } else { 15 };
    let (_, bench) = build_release()?;
    eprintln!("bench: expansion times (median of {n})");
    let (github, github_text) = github_corpus(root)?;
    let github_file = dir.join("github_official.json");
    std::fs::write(&github_file, &github_text)
        .map_err(|e| format!("cannot write {}: {e}", github_file.display()))?;
    let github_release = expand_release(&bench, &github_file, "github_official", n)?;
    // One untimed run first: page in the code, warm the allocator.
    time_expansion(&github, "github_official", 1)?;
    let (gen_ms, total_ms, tools) = time_expansion(&github, "github_official", n)?;
    let mut fixtures = Map::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join("fixtures"))
        .map_err(|e| format!("cannot list fixtures/: {e}"))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    for path in paths {
        let alias = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let fixture = Fixture::load(&path).map_err(|e| e.to_string())?;
        let (g, t, count) = time_expansion(&fixture, &alias, n)?;
        let release = expand_release(&bench, &path, &alias, n)?;
        fixtures.insert(
            alias,
            json!({ "tools": count, "generate_ms": g, "generate_and_format_ms": t, "release": release }),
        );
    }
    Ok(json!({
        "iterations": n,
        "profile": if cfg!(debug_assertions) { "dev (unoptimized, as the proc macro runs)" } else { "release" },
        "github_official": {
            "tools": tools,
            "generate_ms": gen_ms,
            "generate_and_format_ms": total_ms,
            "release": github_release,
        },
        "fixtures": fixtures,
    }))
}

// ---------------------------------------------------------------------------------------
// 3. check: cargo check overhead of binding the 117 tools
// ---------------------------------------------------------------------------------------
