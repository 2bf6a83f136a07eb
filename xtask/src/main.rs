//! This repository's dev runner, `cargo xtask <command>`.
//!
//! The user-facing commands (`snapshot`, `diff`, `verify`, `expand`, `tools`, `call`) are
//! `mcp-bindgen-cli`'s, run exactly as a user's own 3-line xtask runs them: paths resolve
//! from the current directory like cargo's. Before `snapshot` and `call` this runner installs
//! the pinned servers and builds the demo server they select (`prepare`). The rest are this
//! repository's own tasks:
//!
//! | command | what it does |
//! |---|---|
//! | `install-servers [ALIAS…] [--conformance]` | install the pinned npm/PyPI servers into `target/mcp-servers` |
//! | `conformance [--scenario NAME]…` | the official MCP conformance client scenarios |
//! | `bench [--smoke]` | the benchmark suite; writes `BENCHMARKS.md` and `target/bench/results.json` |
//! | `demo` | the quickstart: snapshot the embedded demo server, run the typed example |
//! | `test` | install what the tests need, run every test, check the fixtures for drift |

use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod bench;
mod conformance;
mod portability;
mod prepare;
mod process;
mod servers;
mod test;

/// How the user runs this program, for usage texts and hints.
const INVOKED_AS: &str = "cargo xtask";

/// GitHub's official MCP server (117 tools, a bare `tools/list` array, MIT): read by `test`
/// and `bench`.
const GITHUB_CORPUS: &str = "tests/corpus/github-official/tools.json";

/// Prints the failures and the closing line `N passed, M failed` (on stdout: what CI
/// reads), and the exit code that goes with it.
fn summary(passed: u64, failed: u64, failures: &[String]) -> ExitCode {
    for f in failures {
        eprintln!("  failed: {f}");
    }
    println!("{passed} passed, {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

const USAGE: &str = "usage: cargo xtask <command> [args]

the mcp-bindgen commands (mcp-bindgen-cli; `cargo xtask <command> --help` for options):
  snapshot [ALIAS…] [--check]   connect to the registry's servers and write fixtures/<alias>.json;
                                with --check write nothing, classify every change, exit 1 on drift
  diff OLD NEW | --base REV     review a fixture change without a server: wire class and Rust API
                                effect per tool (--format text|markdown|json, --fail-on LEVEL)
  verify [--deep] [--fixtures DIR]
                                generate code for every fixture (no network); --deep: round-trip
                                valid values through the generated types; exit 1 on errors
  expand ALIAS|PATH             print the code mcp_tools!(\"ALIAS\") generates
  tools [--strict]              print the OpenAI function-call `tools` array of every fixture
  call ALIAS TOOL [JSON]        call one tool of a configured server, print the result
  login ALIAS [--no-browser]    OAuth login to a server with `auth = \"oauth\"` (tokens in the
                                user's token store); logout ALIAS deletes them

this repository's tasks:
  install-servers [ALIAS…] [--conformance]
                      install the pinned npm/PyPI servers into target/mcp-servers
  conformance [--scenario NAME]…
                      run the official MCP conformance client scenarios
                      (installs Node 22 and the pinned suite into target/mcp-servers)
  bench [--smoke] [--skip SECTION]…
                      benchmarks: typed vs raw rmcp vs pipe floor vs Python SDK, throughput,
                      expansion time, cargo check cost, parallel snapshot (BENCHMARKS.md)
  demo                the quickstart: snapshot the embedded demo server and make typed
                      calls to it with mcp_tools!(\"demo\") (cargo alone)
  portability         the publishable crates with their lowest allowed dependencies, and
                      mcp-bindgen for x86_64-pc-windows-gnu (both part of `test`)
  test                install what the tests need and run the whole test suite";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = args.split_first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    match command.as_str() {
        "snapshot" | "call" => {
            let help = rest.iter().any(|a| a == "-h" || a == "--help");
            let mut env = Vec::new();
            if let Some(aliases) = prepare::selected(command, rest)
                && !help
            {
                match prepare::prepare(&aliases) {
                    Ok(prepared) => env = prepared,
                    Err(e) => {
                        eprintln!("{command}: error: {e}");
                        return ExitCode::FAILURE;
                    }
                }
            }
            mcp_bindgen_cli::run_with_env(INVOKED_AS, &args, &env)
        }
        "verify" | "expand" | "tools" | "diff" | "login" | "logout" | "-V" | "--version" => {
            mcp_bindgen_cli::run(INVOKED_AS, &args)
        }
        "install-servers" | "demo" | "test" | "conformance" | "bench" | "portability" => {
            // This repository's tasks run from the workspace root.
            let root = workspace_root();
            if let Err(e) = std::env::set_current_dir(&root) {
                eprintln!(
                    "error: cannot enter the workspace root {}: {e}",
                    root.display()
                );
                return ExitCode::FAILURE;
            }
            match command.as_str() {
                "install-servers" => servers::run(rest),
                "demo" => demo(),
                "test" => test::run(rest),
                "conformance" => conformance::run(rest),
                "portability" => portability::run(&root),
                _ => bench::run(rest),
            }
        }
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
    let root = workspace_root();
    let example = root.join("runtime/examples/quickstart.rs");
    println!(
        "==> cargo xtask demo: build the embedded demo MCP server, snapshot it into fixtures/demo.json,\n    then build and run {} (typed calls through mcp_tools!(\"demo\")).\n    The first build compiles the whole dependency tree: a few minutes on a small machine.\n",
        example.display()
    );
    let env = match prepare::prepare(&["demo".to_string()]) {
        Ok(env) => env,
        Err(e) => {
            eprintln!("demo: {e}");
            return ExitCode::FAILURE;
        }
    };
    let code = mcp_bindgen_cli::run_with_env(
        INVOKED_AS,
        &["snapshot".to_string(), "demo".to_string()],
        &env,
    );
    if code != ExitCode::SUCCESS {
        return code;
    }
    println!(
        "\n==> cargo run -p mcp-bindgen --example quickstart   ({})\n",
        example.display()
    );
    match cargo_with_env(
        &[
            "run",
            "--quiet",
            "--package",
            "mcp-bindgen",
            "--example",
            "quickstart",
        ],
        &env,
    ) {
        Ok(()) => {
            println!(
                "\n==> done: the program above is {}; `cargo xtask expand demo` prints the code mcp_tools!(\"demo\") generated.",
                example.display()
            );
            ExitCode::SUCCESS
        }
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
    cargo_with_env(args, &[])
}

/// [`cargo`] with extra environment variables for it (and what it runs).
pub fn cargo_with_env(args: &[&str], env: &[(String, String)]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = std::process::Command::new(&cargo)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(workspace_root())
        .status()
        .map_err(|e| format!("cannot run `cargo {}`: {e}", args.join(" ")))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo {}` failed ({status})", args.join(" ")))
    }
}
