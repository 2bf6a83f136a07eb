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
//! | `providers [--fixtures DIR]…` | every exported definition validated by the providers' own libraries |
//! | `test [--quick]` | install what the tests need, run every test, check the fixtures for drift; `--quick`: the offline part |

use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod bench;
mod conformance;
mod demo;
mod modules;
mod portability;
mod prepare;
mod process;
mod providers;
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

/// This repository's own tasks (the mcp-bindgen commands come from mcp-bindgen-cli).
const TASKS: &[(&str, &str)] = &[
    (
        "install-servers [ALIAS…] [--conformance]",
        "install the pinned npm/PyPI servers into target/mcp-servers",
    ),
    (
        "conformance [--scenario NAME]…",
        "run the official MCP conformance client scenarios\n\
         (installs Node 22 and the pinned suite into target/mcp-servers)",
    ),
    (
        "bench [--smoke] [--skip SECTION]…",
        "benchmarks: typed vs raw rmcp vs pipe floor vs Python SDK, throughput,\n\
         expansion time, cargo check cost, parallel snapshot (BENCHMARKS.md)",
    ),
    (
        "demo",
        "the quickstart: snapshot the embedded demo server, make typed calls to it\n\
         with mcp_tools!(\"demo\"), and show the compile error of a misspelled argument",
    ),
    (
        "modules [--inside FOLDER] [CRATE_DIR]…",
        "the module graph of a crate's src/ (the runtime by default): rooms,\n\
         imports between them, rooms importing each other, circles between files",
    ),
    (
        "portability [minimal-versions|windows|wasm|wasm-node]…",
        "the publishable crates with their lowest allowed dependencies,\n\
         mcp-bindgen for x86_64-pc-windows-gnu and wasm32, and the wasm32 client\n\
         under Node (all part of `test`)",
    ),
    (
        "providers [--fixtures DIR]…",
        "every definition of every format (full and compact) validated by the\n\
         providers' own libraries: google-genai, the OpenAI SDK and Agents SDK,\n\
         the Anthropic SDK (pinned PyPI packages, installed into target/mcp-servers)",
    ),
    (
        "test [--quick]",
        "install what the tests need and run the whole test suite, with a table\n\
         of each stage's time; --quick: no installs, no live npm/PyPI servers",
    ),
];

/// `cargo xtask --help`: the CLI's commands (from its one table) and this repository's tasks.
fn usage() -> String {
    let mut text = format!(
        "usage: cargo xtask <command> [args]\n\n\
         the mcp-bindgen commands (mcp-bindgen-cli; `cargo xtask <command> --help` for options):\n{}\n\
         this repository's tasks:\n",
        mcp_bindgen_cli::commands_help()
    );
    for (synopsis, about) in TASKS {
        let mut lines = about.lines().map(str::trim);
        if synopsis.len() < 18 {
            let first = lines.next().unwrap_or("");
            text.push_str(&format!("  {synopsis:<20}{first}\n"));
        } else {
            text.push_str(&format!("  {synopsis}\n"));
        }
        for line in lines {
            text.push_str(&format!("{:22}{line}\n", ""));
        }
    }
    text.trim_end().to_string()
}

/// The names of every command `cargo xtask` takes, for "did you mean".
fn command_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = mcp_bindgen_cli::COMMANDS.iter().map(|c| c.name).collect();
    names.extend(
        TASKS
            .iter()
            .filter_map(|(synopsis, _)| synopsis.split_whitespace().next()),
    );
    names
}

/// Whether a variable is one that `cargo run` sets for the program it runs (`CARGO_PKG_*`,
/// `CARGO_MANIFEST_DIR`, …) and that cargo reads again from its own environment when this
/// program runs cargo: build scripts declare `rerun-if-env-changed` on them (ring's does on
/// `CARGO_PKG_NAME` and `CARGO_MANIFEST_DIR`), so a cargo started with xtask's values would
/// run ring's build script again and rebuild it and every crate above it (rustls, reqwest,
/// rmcp, the runtime), once here and once more from the shell. `CARGO` itself stays.
pub fn set_by_cargo_run(name: &str) -> bool {
    name.starts_with("CARGO_PKG_")
        || matches!(
            name,
            "CARGO_MANIFEST_DIR"
                | "CARGO_MANIFEST_PATH"
                | "CARGO_MANIFEST_LINKS"
                | "CARGO_CRATE_NAME"
                | "CARGO_BIN_NAME"
                | "CARGO_PRIMARY_PACKAGE"
                | "OUT_DIR"
        )
}

fn main() -> ExitCode {
    // The cargo commands this program runs see the shell's environment, not `cargo run`'s
    // additions (see `set_by_cargo_run`).
    let inherited: Vec<std::ffi::OsString> = std::env::vars_os()
        .map(|(name, _)| name)
        .filter(|name| set_by_cargo_run(&name.to_string_lossy()))
        .collect();
    for name in inherited {
        // SAFETY: the first statement of `main`: no other thread exists yet, so nothing
        // reads the environment while it changes.
        unsafe { std::env::remove_var(name) };
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = args.split_first() else {
        eprintln!("{}", usage());
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
        "modules" => match modules::run(&workspace_root(), rest) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("modules: {e}");
                ExitCode::FAILURE
            }
        },
        "install-servers" | "demo" | "test" | "conformance" | "bench" | "portability"
        | "providers" => {
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
                "demo" => match demo::run() {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) => {
                        eprintln!("demo: {e}");
                        ExitCode::FAILURE
                    }
                },
                "test" => test::run(rest),
                "conformance" => conformance::run(rest),
                "portability" => portability::run(&root, rest),
                "providers" => providers::run(&root, rest),
                _ => bench::run(rest),
            }
        }
        "-h" | "--help" | "help" => {
            println!("{}", usage());
            ExitCode::SUCCESS
        }
        other => {
            eprintln!(
                "error: unknown command `{other}`{}\n\nusage: cargo xtask <command> [args] (cargo xtask --help lists the commands)",
                mcp_bindgen_core::naming::did_you_mean(other, command_names()),
            );
            ExitCode::from(2)
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
