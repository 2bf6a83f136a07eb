//! The providers' own libraries as validators of every exported tool definition.
//!
//! `tools --format F --out FILE` writes what mcp-bindgen hands a provider; this module runs
//! `xtask/validators/providers.py` over those files with the pinned PyPI packages the
//! providers publish (installed like the MCP servers, into `target/mcp-servers/<alias>`):
//!
//! | validator | what it checks |
//! |---|---|
//! | `google-genai` | every Gemini definition as `types.FunctionDeclaration`, its `parameters` as `types.Schema`, its `parametersJsonSchema` as `types.JSONSchema` (pydantic models that forbid unknown keys), each keeping every key |
//! | `openai-agents` | every OpenAI definition as the OpenAI SDK's request type (`ChatCompletionFunctionToolParam`, `responses.FunctionToolParam`) keeping every key; every strict one through the Agents SDK's `ensure_strict_json_schema`, unchanged |
//! | `anthropic` | every Anthropic definition as the Anthropic SDK's `ToolParam`, keeping every key |
//!
//! What no provider publishes a checker for (OpenAI's non-strict rules: `oneOf` anywhere in
//! the Responses API, a key-less `additionalProperties: {}`, root combinators) is the rule
//! table of `mcp_bindgen_core::provider::openai::check_parameters`, which `tools --check`
//! applies.
//!
//! `cargo xtask providers [--fixtures DIR]…` exports each folder (the committed fixtures by
//! default) in every format, full and compact, and validates the lot; `cargo xtask test`
//! validates the exports of its own `tools --check` stages with [`validate`].

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

/// The pinned validators (aliases in `servers::TOOLS`), each with its own virtual environment.
pub const VALIDATORS: [&str; 3] = ["google-genai", "openai-agents", "anthropic"];

/// Every format `tools --format` exports tool definitions in.
pub fn formats() -> [&'static str; 5] {
    mcp_bindgen_core::provider::Format::ALL.map(mcp_bindgen_core::provider::Format::as_str)
}

/// Time one validator may take over every export (about 3 s for the 60 real servers).
const TIMEOUT: Duration = Duration::from_secs(600);

const USAGE: &str = "\
usage: cargo xtask providers [--fixtures DIR]…

Exports every fixture folder given (the committed fixtures by default) in every format, full
and compact (`tools --format F [--compact] --check --out FILE`), and validates every
definition with the providers' own libraries: google-genai's pydantic models, the OpenAI
SDK's request types and the Agents SDK's strict-schema checker, and the Anthropic SDK's
request type (pinned PyPI packages, installed into target/mcp-servers).";

/// Where the export of the corpus `slug` in `format` goes:
/// `<target>/mcp-bindgen/exports/<slug>/<format>[-compact].json`.
pub fn export_path(slug: &str, format: &str, compact: bool) -> PathBuf {
    let file = if compact {
        format!("{format}-compact.json")
    } else {
        format!("{format}.json")
    };
    crate::prepare::target_dir()
        .join("mcp-bindgen")
        .join("exports")
        .join(slug)
        .join(file)
}

/// A folder name for a corpus described by `what`: its letters and digits, dashes between.
pub fn slug(what: &str) -> String {
    let mut out = String::new();
    for word in what.split(|c: char| !c.is_ascii_alphanumeric()) {
        if !word.is_empty() {
            if !out.is_empty() {
                out.push('-');
            }
            out.push_str(&word.to_ascii_lowercase());
        }
    }
    out
}

/// Runs every validator over `exports` (each validator on its own thread), printing each
/// one's lines: each refusal, then per check how many definitions it took and how many it
/// refused. `Err` names the validators that refused a definition, checked none or could not
/// run, and `left_out` when an export left a tool out (see the `left_out` of `tools`' JSON).
pub fn validate(root: &Path, exports: &[PathBuf]) -> Result<(), String> {
    let script = root.join("xtask").join("validators").join("providers.py");
    let outcomes: Vec<(&str, Result<Vec<String>, String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = VALIDATORS
            .iter()
            .map(|&alias| {
                let script = &script;
                scope.spawn(move || (alias, run_one(root, alias, script, exports)))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or(("?", Err("a validator thread panicked".to_string())))
            })
            .collect()
    });
    let mut failed = Vec::new();
    // Every corpus tool has an acceptable form in every format: one left out is a transform
    // that regressed (a user's export would carry on without it).
    let left_out = left_out(exports)?;
    eprintln!(
        "left out of an export: {} definitions{}",
        left_out.len(),
        if left_out.is_empty() { "" } else { ":" }
    );
    for line in left_out.iter().take(30) {
        eprintln!("  {line}");
    }
    if !left_out.is_empty() {
        failed.push("the exports (a tool left out)");
    }
    for (alias, outcome) in outcomes {
        match outcome {
            Ok(lines) => lines.iter().for_each(|l| eprintln!("{l}")),
            Err(e) => {
                eprintln!("{e}");
                failed.push(alias);
            }
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("failed: {}", failed.join(", ")))
    }
}

/// `<file>: <tool>: <reason>` for each tool an export left out.
fn left_out(exports: &[PathBuf]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for path in exports {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let export: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| format!("bad JSON in {}: {e}", path.display()))?;
        for tool in export["left_out"].as_array().into_iter().flatten() {
            out.push(format!(
                "{}: {}: {}",
                path.display(),
                tool["name"].as_str().unwrap_or("?"),
                tool["reason"].as_str().unwrap_or("?")
            ));
        }
    }
    Ok(out)
}

fn run_one(
    root: &Path,
    alias: &str,
    script: &Path,
    exports: &[PathBuf],
) -> Result<Vec<String>, String> {
    let pinned = crate::servers::find(alias).ok_or_else(|| format!("{alias}: not pinned"))?;
    let python = pinned.entry_path(root);
    if !python.is_file() {
        return Err(format!(
            "{alias}: {} is missing; run `cargo xtask install-servers {alias}`",
            python.display()
        ));
    }
    let mut cmd = Command::new(python);
    cmd.arg(script).arg(alias).args(exports);
    // The validators' output is its result: a refusal exits 1 with the same lines.
    match crate::process::run(&mut cmd, TIMEOUT) {
        Ok(captured) => Ok(captured.stdout),
        Err(e) => Err(format!("{alias}: {e}")),
    }
}

/// `cargo xtask providers [--fixtures DIR]…`.
pub fn run(root: &Path, args: &[String]) -> ExitCode {
    let mut dirs: Vec<Option<PathBuf>> = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            "--fixtures" => match it.next() {
                Some(dir) => dirs.push(Some(PathBuf::from(dir))),
                None => {
                    eprintln!("providers: --fixtures takes a folder\n\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            other => {
                eprintln!("providers: unexpected argument `{other}`\n\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    if dirs.is_empty() {
        dirs.push(None);
    }
    if let Err(e) = crate::servers::install(root, &VALIDATORS) {
        eprintln!("providers: cannot install the validators:\n{e}");
        return ExitCode::FAILURE;
    }
    let mut exports = Vec::new();
    let mut failed = false;
    for dir in &dirs {
        let slug = dir.as_deref().map_or_else(
            || "fixtures".to_string(),
            |d| slug(&d.display().to_string()),
        );
        for format in formats() {
            for compact in [false, true] {
                let out = export_path(&slug, format, compact);
                match export(dir.as_deref(), format, compact, &out) {
                    Ok(()) => exports.push(out),
                    Err(e) => {
                        eprintln!("providers: {e}");
                        failed = true;
                    }
                }
            }
        }
    }
    if let Err(e) = validate(root, &exports) {
        eprintln!("providers: {e}");
        failed = true;
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// `tools --format FORMAT [--compact] --check --out OUT [--fixtures DIR]`, as a user runs it.
pub fn export(dir: Option<&Path>, format: &str, compact: bool, out: &Path) -> Result<(), String> {
    let words = tools_args(dir, format, compact, Some(out));
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    if mcp_bindgen_cli::run(crate::INVOKED_AS, &words) == ExitCode::SUCCESS {
        Ok(())
    } else {
        Err(format!(
            "`{} {}` failed",
            crate::INVOKED_AS,
            words.join(" ")
        ))
    }
}

/// The words of `tools --format FORMAT [--compact] --check [--out OUT] [--fixtures DIR]`.
pub fn tools_args(
    dir: Option<&Path>,
    format: &str,
    compact: bool,
    out: Option<&Path>,
) -> Vec<String> {
    let mut words = vec![
        "tools".to_string(),
        "--format".to_string(),
        format.to_string(),
        "--check".to_string(),
    ];
    if compact {
        words.push("--compact".to_string());
    }
    if let Some(out) = out {
        words.extend(["--out".to_string(), out.display().to_string()]);
    }
    if let Some(dir) = dir {
        words.extend(["--fixtures".to_string(), dir.display().to_string()]);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::slug;

    #[test]
    fn slugs_keep_letters_and_digits() {
        assert_eq!(
            slug("60 real servers' tool schemas"),
            "60-real-servers-tool-schemas"
        );
        assert_eq!(slug("/tmp/x/fixtures"), "tmp-x-fixtures");
    }
}
