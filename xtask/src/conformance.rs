//! `cargo xtask conformance [--scenario NAME]…` — the official MCP conformance suite against
//! our client.
//!
//! 1. installs Node 22 and the pinned suite (stable and 0.2 alpha) into `target/mcp-servers`;
//! 2. builds `mcp-conformance-client` (package `mcp-bindgen-tests`, feature `conformance`),
//!    a small client on `mcp-runtime`;
//! 3. runs each client scenario with the release that has it
//!    (`node <suite> client --command <client> --scenario NAME -o target/conformance`),
//!    echoing the suite's own output;
//! 4. ends with one line `N passed, M failed`.
//!
//! The runner starts a mock server, appends its URL to the command and names the scenario
//! in `MCP_CONFORMANCE_SCENARIO`. It exits 0 even when checks fail, so a scenario passes when
//! the suite prints `OVERALL: PASSED` (on stderr; both streams are read).
//!
//! `cargo xtask test` runs this same function: CI and a developer see one runner.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Scenarios run with the pinned stable release (`conformance`).
pub const STABLE: &[&str] = &[
    "initialize",
    "tools_call",
    "sse-retry",
    "elicitation-sep1034-client-defaults",
];
/// Scenarios run with the pinned prerelease (`conformance-alpha`).
pub const ALPHA: &[&str] = &[
    "json-schema-2020-12-preservation",
    "json-schema-ref-no-deref",
];

const USAGE: &str = "usage: cargo xtask conformance [--scenario NAME]…

Installs Node 22 and the MCP conformance suite, builds mcp-conformance-client and runs the
client scenarios (all of them, or the named ones); ends with `N passed, M failed`.";

/// Entry point.
pub fn run(args: &[String]) -> ExitCode {
    let mut selected: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-h" | "--help" => {
                println!(
                    "{USAGE}\n\nscenarios: {}",
                    all().collect::<Vec<_>>().join(", ")
                );
                return ExitCode::SUCCESS;
            }
            "--scenario" => match it.next() {
                Some(name) => selected.push(name.clone()),
                None => {
                    eprintln!("conformance: --scenario needs a name\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            other => match other.strip_prefix("--scenario=") {
                Some(name) => selected.push(name.to_string()),
                None => {
                    eprintln!("conformance: unknown argument {other}\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
        }
    }
    for name in &selected {
        if !all().any(|s| s == name) {
            eprintln!(
                "conformance: unknown scenario {name:?} (known: {})",
                all().collect::<Vec<_>>().join(", ")
            );
            return ExitCode::from(2);
        }
    }
    let root = crate::workspace_root();
    if let Err(e) = crate::servers::install(&root, &["node22", "conformance", "conformance-alpha"])
    {
        eprintln!("conformance: cannot install Node 22 and the conformance suite:\n{e}");
        println!("0 passed, 1 failed");
        return ExitCode::FAILURE;
    }
    let client = match build_client() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("conformance: {e}");
            println!("0 passed, 1 failed");
            return ExitCode::FAILURE;
        }
    };
    let env: Vec<(String, String)> = crate::servers::env_vars(&root);
    let var = |name: &str| {
        env.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| PathBuf::from(v))
    };
    let (Some(node), Some(stable), Some(alpha)) = (
        var("MCP_CONFORMANCE_NODE"),
        var("MCP_CONFORMANCE_JS"),
        var("MCP_CONFORMANCE_ALPHA_JS"),
    ) else {
        eprintln!(
            "conformance: the pinned Node 22 / conformance packages are unknown to xtask/src/servers.rs"
        );
        println!("0 passed, 1 failed");
        return ExitCode::FAILURE;
    };
    let out_dir = root.join("target").join("conformance");
    let (mut passed, mut failed) = (0u64, 0u64);
    let mut failures = Vec::new();
    let plan = STABLE
        .iter()
        .map(|s| (*s, &stable, "stable"))
        .chain(ALPHA.iter().map(|s| (*s, &alpha, "0.2 alpha")));
    for (scenario, suite, release) in plan {
        if !selected.is_empty() && !selected.iter().any(|s| s == scenario) {
            continue;
        }
        eprintln!("\n==> {scenario} ({release})");
        match run_scenario(&node, suite, &client, scenario, &out_dir) {
            Ok(true) => passed += 1,
            Ok(false) => {
                failed += 1;
                failures.push(scenario.to_string());
            }
            Err(e) => {
                eprintln!("conformance: {scenario}: {e}");
                failed += 1;
                failures.push(scenario.to_string());
            }
        }
    }
    crate::summary(passed, failed, &failures)
}

fn all() -> impl Iterator<Item = &'static str> {
    STABLE.iter().chain(ALPHA).copied()
}

/// Builds the client and returns its path.
fn build_client() -> Result<PathBuf, String> {
    crate::cargo(&[
        "build",
        "--quiet",
        "--package",
        "mcp-bindgen-tests",
        "--features",
        "conformance",
        "--bin",
        "mcp-conformance-client",
    ])?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::workspace_root().join("target"));
    let path = std::path::absolute(target.join("debug").join("mcp-conformance-client"))
        .map_err(|e| format!("cannot resolve the client's path: {e}"))?;
    if !path.exists() {
        return Err(format!(
            "built the client but {} is missing",
            path.display()
        ));
    }
    // The runner splits `--command` on spaces.
    if path.to_string_lossy().contains(' ') {
        return Err(format!(
            "the client path {} contains a space, which the conformance runner cannot pass; set CARGO_TARGET_DIR to a path without spaces",
            path.display()
        ));
    }
    Ok(path)
}

/// Runs one scenario, echoing the suite's output; `Ok(true)` when it printed
/// `OVERALL: PASSED`.
fn run_scenario(
    node: &Path,
    suite: &Path,
    client: &Path,
    scenario: &str,
    out_dir: &Path,
) -> Result<bool, String> {
    let output = Command::new(node)
        .arg(suite)
        .args(["client", "--command"])
        .arg(client)
        .args(["--scenario", scenario, "--timeout", "30000", "-o"])
        .arg(out_dir)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", node.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    print!("{stdout}");
    eprint!("{stderr}");
    Ok(output.status.success() && passed(&stdout, &stderr))
}

/// Whether the runner's verdict is `OVERALL: PASSED`. It prints the verdict on stderr (the
/// check list on stdout), so both streams are read: looking at stdout alone counted every
/// passing scenario as failed.
fn passed(stdout: &str, stderr: &str) -> bool {
    verdict(stderr).or_else(|| verdict(stdout)) == Some("PASSED")
}

/// The last `OVERALL: …` verdict of `text` (the runner prints `✅ OVERALL: PASSED`).
fn verdict(text: &str) -> Option<&str> {
    text.lines()
        .rev()
        .find_map(|l| l.split_once("OVERALL: ").map(|(_, v)| v.trim()))
}

#[cfg(test)]
mod tests {
    use super::passed;

    #[test]
    fn the_verdict_is_read_from_either_stream() {
        assert!(passed("checks…\n", "\u{2705} OVERALL: PASSED\n"));
        assert!(passed("OVERALL: PASSED\n", ""));
        assert!(!passed("checks…\n", "\u{274c} OVERALL: FAILED\n"));
        assert!(!passed("OVERALL: PASSED\n", "OVERALL: FAILED\n"));
        assert!(!passed("", ""));
    }
}
