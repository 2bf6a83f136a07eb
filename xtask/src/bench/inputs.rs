//! What the benchmark sections share: the benchmark's binaries and the GitHub corpus.

use std::path::{Path, PathBuf};

use mcp_bindgen_core::fixture::Fixture;
use serde_json::{Value, json};

use super::cargo_target_dir;

/// Builds `mcp-demo-server` and `mcp-bench` and returns their paths: in release for the
/// figures, in the dev profile for `--smoke` (which only checks that every contender works,
/// and so reuses the test build's dependencies instead of building them all again).
pub(super) fn build_binaries(smoke: bool) -> Result<(PathBuf, PathBuf), String> {
    let profile = if smoke { "dev" } else { "release" };
    eprintln!("bench: building mcp-demo-server and mcp-bench ({profile})");
    // No `--package`: the workspace's one feature set, so `--smoke` finds both binaries
    // built by `cargo test --workspace`.
    crate::cargo(&[
        "build",
        "--quiet",
        "--profile",
        profile,
        "--bin",
        "mcp-demo-server",
        "--bin",
        "mcp-bench",
    ])?;
    let out = cargo_target_dir().join(if smoke { "debug" } else { "release" });
    let server = out.join("mcp-demo-server");
    let bench = out.join("mcp-bench");
    for p in [&server, &bench] {
        if !p.is_file() {
            return Err(format!("built, but {} is missing", p.display()));
        }
    }
    Ok((server, bench))
}

/// The GitHub corpus as a fixture, and as fixture JSON text (`{"tools": [...]}`).
pub(super) fn github_corpus(root: &Path) -> Result<(Fixture, Vec<u8>), String> {
    let path = root.join(crate::GITHUB_CORPUS);
    let text = std::fs::read(&path)
        .map_err(|e| format!("cannot read the GitHub corpus at {} ({e})", path.display()))?;
    let tools: Value =
        serde_json::from_slice(&text).map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
    let wrapped = serde_json::to_vec(&json!({ "tools": tools }))
        .map_err(|e| format!("cannot re-encode the corpus: {e}"))?;
    let fixture = Fixture::from_slice(&wrapped, &path).map_err(|e| e.to_string())?;
    Ok((fixture, wrapped))
}

/// Runs `cmd` (an `mcp-bench` mode; its progress on stderr) and parses the JSON report it
/// prints; `what` names it in errors.
pub(super) fn run_bench(cmd: &mut std::process::Command, what: &str) -> Result<Value, String> {
    eprintln!("bench: running {}", crate::process::describe(cmd));
    let output = cmd
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if !output.status.success() {
        return Err(format!("{what} failed ({})", output.status));
    }
    serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("{what} printed no JSON report: {e}"))
}
