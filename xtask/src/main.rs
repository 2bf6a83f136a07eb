//! Project commands, run as `cargo xtask <command>` from anywhere in the workspace.
//!
//! | command | what it does |
//! |---|---|
//! | `snapshot [ALIAS…] [--config PATH] [--fixtures DIR] [--check] [--all-required]` | connect to servers, write or check fixtures |
//! | `verify [--fixtures DIR]` | codegen over every fixture, no network |
//! | `expand ALIAS\|PATH` | print the generated Rust |
//! | `install-servers [ALIAS…] [--conformance]` | install the pinned npm/PyPI servers into `target/mcp-servers` |
//! | `tools [--fixtures DIR] [--strict] [--prefix]` | OpenAI function-call export of every fixture |
//! | `conformance [--scenario NAME]…` | the official MCP conformance client scenarios |
//! | `bench [--smoke]` | the benchmark suite; writes `BENCHMARKS.md` and `target/bench/results.json` |
//! | `demo` | the quickstart: snapshot the embedded demo server, run the typed example |
//! | `test` | install what the tests need, run every test, check the fixtures for drift |

use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod bench;
mod conformance;
mod expand;
mod servers;
mod snapshot;
mod test;
mod tools;
mod verify;

const USAGE: &str = "usage: cargo xtask <command> [args]

commands:
  snapshot [ALIAS…] [--config PATH] [--fixtures DIR] [--check] [--all-required]
                      connect to the registry's servers and write fixtures/<alias>.json;
                      with --check write nothing, classify every change, exit 1 on drift
  verify [--fixtures DIR]
                      generate code for every fixture (no network); exit 1 on errors
  expand ALIAS|PATH   print the code mcp_tools! generates for a fixture
  install-servers [ALIAS…] [--conformance]
                      install the pinned npm/PyPI servers into target/mcp-servers
  tools [--fixtures DIR] [--strict] [--prefix]
                      print the OpenAI function-call `tools` array of every fixture
  conformance [--scenario NAME]…
                      run the official MCP conformance client scenarios
                      (installs Node 22 and the pinned suite into target/mcp-servers)
  bench [--smoke] [--skip SECTION]…
                      benchmarks: typed vs raw rmcp vs pipe floor vs Python SDK, throughput,
                      expansion time, cargo check cost, parallel snapshot (BENCHMARKS.md)
  demo                the quickstart: snapshot the embedded demo server and make typed
                      calls to it with mcp_tools!(\"demo\") (cargo alone)
  test                install what the tests need and run the whole test suite";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = workspace_root();
    if let Err(e) = std::env::set_current_dir(&root) {
        eprintln!(
            "error: cannot enter the workspace root {}: {e}",
            root.display()
        );
        return ExitCode::FAILURE;
    }
    let Some((command, rest)) = args.split_first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    match command.as_str() {
        "snapshot" => snapshot::run(rest),
        "verify" => verify::run(rest),
        "expand" => expand::run(rest),
        "install-servers" => servers::run(rest),
        "demo" => demo(),
        "test" => test::run(rest),
        "tools" => tools::run(rest),
        "conformance" => conformance::run(rest),
        "bench" => bench::run(rest),
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        other => {
            eprintln!("error: unknown command `{other}`\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// The quickstart: snapshot the embedded demo server, then run the typed example on it.
fn demo() -> ExitCode {
    let code = snapshot::run(&["demo".to_string()]);
    if code != ExitCode::SUCCESS {
        return code;
    }
    println!("\n==> cargo run -p mcp-runtime --example quickstart   (mcp_tools!(\"demo\"))\n");
    // `snapshot` set MCP_DEMO_SERVER for this process; the example inherits it.
    match cargo(&[
        "run",
        "--quiet",
        "--package",
        "mcp-runtime",
        "--example",
        "quickstart",
    ]) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("demo: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root (the parent of this crate's directory).
pub fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// Runs `cargo <args>` in the workspace root, inheriting stdio; `Err` names the command.
pub fn cargo(args: &[&str]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = std::process::Command::new(&cargo)
        .args(args)
        .current_dir(workspace_root())
        .status()
        .map_err(|e| format!("cannot run `cargo {}`: {e}", args.join(" ")))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo {}` failed ({status})", args.join(" ")))
    }
}
