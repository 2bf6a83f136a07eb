//! Section `expand`: `mcp_bindgen_codegen::generate` (what the proc macro runs) over the GitHub
//! corpus and every committed fixture.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use mcp_bindgen_codegen::{Options, format_tokens, generate};
use mcp_bindgen_core::fixture::Fixture;
use serde_json::{Map, Value, json};

use super::inputs::{build_binaries, github_corpus};
use super::*;

/// What [`time_expansion`] measured for one fixture.
pub(super) struct Expansion {
    /// Median milliseconds of `generate` alone.
    pub(super) generate_ms: f64,
    /// Median milliseconds of `generate` + formatting (`cargo xtask expand`).
    pub(super) generate_and_format_ms: f64,
    pub(super) tools: usize,
    /// Lines of the formatted text (what `cargo xtask expand` prints), counted on the last
    /// timed run, after its clock stopped.
    pub(super) lines: usize,
}

/// Times `generate` alone and `generate` + formatting `n` times (medians), and counts the
/// lines of the formatted text.
pub(super) fn time_expansion(
    fixture: &Fixture,
    alias: &str,
    n: usize,
) -> Result<Expansion, String> {
    time_expansion_with(fixture, alias, n, &Options::default())
}

/// [`time_expansion`] with `options`.
pub(super) fn time_expansion_with(
    fixture: &Fixture,
    alias: &str,
    n: usize,
    options: &Options,
) -> Result<Expansion, String> {
    let mut gen_ms = Vec::with_capacity(n);
    let mut total_ms = Vec::with_capacity(n);
    let mut tools = 0;
    let mut lines = 0;
    for i in 0..n {
        let started = Instant::now();
        let generated = generate(fixture, alias, options).map_err(|e| format!("{alias}: {e}"))?;
        let generated_at = started.elapsed();
        tools = generated.stats.tools;
        let text = format_tokens(
            alias,
            generated.tokens().map_err(|e| format!("{alias}: {e}"))?,
        )
        .map_err(|e| format!("{alias}: {e}"))?;
        let total = started.elapsed();
        let text = std::hint::black_box(text);
        gen_ms.push(ms(generated_at));
        total_ms.push(ms(total));
        if i + 1 == n {
            lines = text.lines().count();
        }
    }
    Ok(Expansion {
        generate_ms: median(&gen_ms).unwrap_or(f64::NAN),
        generate_and_format_ms: median(&total_ms).unwrap_or(f64::NAN),
        tools,
        lines,
    })
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
    let (_, bench) = build_binaries(smoke)?;
    eprintln!("bench: expansion times (median of {n})");
    let (github, github_text) = github_corpus(root)?;
    let github_file = dir.join("github_official.json");
    std::fs::write(&github_file, &github_text)
        .map_err(|e| format!("cannot write {}: {e}", github_file.display()))?;
    let github_release = expand_release(&bench, &github_file, "github_official", n)?;
    // The encoding's first use in this process (what a first expansion with `tokens` pays
    // once, besides the counting itself).
    let started = Instant::now();
    mcp_bindgen_codegen::budget::count("load")?;
    let encoding_load_ms = ms(started.elapsed());
    // One untimed run first: page in the code, warm the allocator.
    time_expansion(&github, "github_official", 1)?;
    let github_run = time_expansion(&github, "github_official", n)?;
    let counted = time_expansion_with(
        &github,
        "github_official",
        n,
        &Options::default().with_tokens(),
    )?;
    let tokens = token_totals(&github, "github_official")?;
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
        let run = time_expansion(&fixture, &alias, n)?;
        let release = expand_release(&bench, &path, &alias, n)?;
        fixtures.insert(
            alias,
            json!({
                "tools": run.tools,
                "generate_ms": run.generate_ms,
                "generate_and_format_ms": run.generate_and_format_ms,
                "generated_lines": run.lines,
                "release": release,
            }),
        );
    }
    Ok(json!({
        "iterations": n,
        "profile": if cfg!(debug_assertions) { "dev (unoptimized, as the proc macro runs)" } else { "release" },
        "github_official": {
            "tools": github_run.tools,
            "generate_ms": github_run.generate_ms,
            "generate_and_format_ms": github_run.generate_and_format_ms,
            // Lines of the `cargo xtask expand` text (prettyplease), from the timed runs.
            "generated_lines": github_run.lines,
            "release": github_release,
            "generate_with_tokens_ms": counted.generate_ms,
            "encoding_load_ms": encoding_load_ms,
            "tokens": tokens,
        },
        "fixtures": fixtures,
    }))
}

/// The tokens of a fixture's tools per format, full and compact, and what progressive
/// discovery exports up front.
///
/// Beside them, per format, the `skeleton`: the tokens left when every schema keyword but
/// those that say what the arguments are ([`skeleton`]) is removed as well. That removal
/// loses constraints, so no export uses it; it bounds what any compaction that keeps the
/// descriptions could save.
fn token_totals(fixture: &Fixture, alias: &str) -> Result<Value, String> {
    use mcp_bindgen_codegen::budget::{count_definition, count_formats};
    use mcp_bindgen_core::naming::openai_name;
    use mcp_bindgen_core::provider::{Format, compact_definition};
    let mut formats = Map::new();
    for format in Format::ALL {
        let (mut full, mut compact, mut bare) = (0u64, 0u64, 0u64);
        for tool in &fixture.tools {
            let [(f, c)] = count_formats(alias, tool, &[format])?[..] else {
                return Err(format!("{alias}: one count expected per format"));
            };
            full += u64::from(f);
            compact += u64::from(c);
            let mut schema = tool.input_schema.clone();
            skeleton(&mut schema);
            let name = openai_name(alias, &tool.name);
            let definition =
                compact_definition(format, &name, tool.description.as_deref(), &schema).0;
            bare += u64::from(count_definition(&definition)?);
        }
        formats.insert(
            format.as_str().to_string(),
            json!({
                "full": full,
                "compact": compact,
                "ratio": compact as f64 / full.max(1) as f64,
                "skeleton": bare,
                "skeleton_ratio": bare as f64 / full.max(1) as f64,
            }),
        );
    }
    Ok(json!({
        "formats": formats,
        "progressive_upfront": mcp_bindgen_codegen::budget::progressive_upfront()?,
    }))
}

/// Keeps of a schema only what says what the arguments are: property names, types, enum
/// values, descriptions, what is required, items and unions, and the value schema of a map.
/// Every constraint (bounds, patterns, formats, lengths, `additionalProperties: false`),
/// default, title and example goes.
fn skeleton(node: &mut Value) {
    const KEEP: &[&str] = &[
        "type",
        "properties",
        "required",
        "items",
        "prefixItems",
        "enum",
        "const",
        "description",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
        "$defs",
        "definitions",
        "nullable",
    ];
    let Value::Object(obj) = node else {
        return;
    };
    obj.retain(|k, v| KEEP.contains(&k.as_str()) || k == "additionalProperties" && v.is_object());
    for (k, v) in obj.iter_mut() {
        match (k.as_str(), v) {
            ("properties" | "$defs" | "definitions", Value::Object(map)) => {
                map.values_mut().for_each(skeleton)
            }
            ("items" | "additionalProperties", v @ Value::Object(_)) => skeleton(v),
            ("anyOf" | "oneOf" | "allOf" | "prefixItems" | "items", Value::Array(list)) => {
                list.iter_mut().for_each(skeleton)
            }
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------------------
// 3. check: cargo check overhead of binding the 117 tools
// ---------------------------------------------------------------------------------------
