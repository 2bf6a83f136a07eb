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
        "portability [minimal-versions|windows|wasm|wasm-node]…",
        "the publishable crates with their lowest allowed dependencies,\n\
         mcp-bindgen for x86_64-pc-windows-gnu and wasm32, and the wasm32 client\n\
         under Node (all part of `test`)",
    ),
    (
        "test",
        "install what the tests need and run the whole test suite",
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

fn main() -> ExitCode {
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
                "portability" => portability::run(&root, rest),
                _ => bench::run(rest),
            }
        }
        "-h" | "--help" | "help" => {
            println!("{}", usage());
            ExitCode::SUCCESS
        }
        other => {
            eprintln!(
                "error: unknown command `{other}`{}\n\n{}",
                mcp_bindgen_core::naming::did_you_mean(other, command_names()),
                usage()
            );
            ExitCode::from(2)
        }
    }
}

/// The quickstart: snapshot the embedded demo server, then run the typed example on it.
fn demo() -> ExitCode {
    let root = workspace_root();
    let example = root.join("runtime/examples/quickstart.rs");
    println!(
        "==> cargo xtask demo: build the embedded demo MCP server, snapshot it into fixtures/demo.json,\n    build and run {} (typed calls through mcp_tools!(\"demo\")),\n    then compile it once more with a misspelled argument.\n    The first build compiles the whole dependency tree: a few minutes on a small machine.\n",
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
    let run = ["run", "--package", "mcp-bindgen", "--example", "quickstart"];
    if let Err(e) = cargo_with_env(&run, &env) {
        eprintln!("demo: {e}");
        return ExitCode::FAILURE;
    }
    match compile_error_of_a_typo(&example) {
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

/// The cfg under which the quickstart example misspells an argument.
const TYPO_CFG: &str = "mcp_bindgen_demo_typo";

/// Compiles the quickstart example with [`TYPO_CFG`] (its dependencies are built already:
/// `cargo rustc` passes the cfg to the example alone) and prints the compiler's error; `Err`
/// unless it failed with the error that names the misspelled field.
fn compile_error_of_a_typo(example: &Path) -> Result<(), String> {
    let source = std::fs::read_to_string(example)
        .map_err(|e| format!("cannot read {}: {e}", example.display()))?;
    // The line under the cfg attribute: the misspelled call, shown as the file has it.
    let lines: Vec<&str> = source.lines().collect();
    let (line, code) = lines
        .iter()
        .position(|l| l.contains(&format!("#[cfg({TYPO_CFG})]")))
        .and_then(|i| Some((i + 2, *lines.get(i + 1)?)))
        .ok_or_else(|| format!("{} has no `#[cfg({TYPO_CFG})]` line", example.display()))?;
    println!(
        "\n==> the compile-time catch: the same program with one argument misspelled ({}:{line}):\n\n    {}\n\n    cargo rustc -p mcp-bindgen --example quickstart -- --cfg {TYPO_CFG}\n",
        example.display(),
        code.trim()
    );
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = std::process::Command::new(cargo)
        .args([
            "rustc",
            "--quiet",
            "--package",
            "mcp-bindgen",
            "--example",
            "quickstart",
            "--",
            "--cfg",
            TYPO_CFG,
        ])
        .env("CARGO_TERM_COLOR", "never")
        .current_dir(workspace_root())
        .output()
        .map_err(|e| format!("cannot run cargo rustc: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The compiler's own words, without cargo's closing "could not compile" lines.
    let shown: Vec<&str> = stderr
        .lines()
        .take_while(|l| {
            !l.starts_with("For more information") && !l.starts_with("error: could not compile")
        })
        .collect();
    println!("{}", shown.join("\n").trim_end());
    if out.status.success() || !stderr.contains("no field named `bb`") {
        return Err(format!(
            "the misspelled argument did not give the expected compile error (cargo rustc {}):\n{stderr}",
            if out.status.success() {
                "succeeded"
            } else {
                "failed otherwise"
            }
        ));
    }
    println!(
        "\n    The fix is the name the compiler suggests, `b: 40.0`, as in the call that ran above. A dynamic\n    bridge would have sent {{\"a\": 2, \"bb\": 40}} and learnt of the mistake at run time, if at all."
    );
    Ok(())
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
