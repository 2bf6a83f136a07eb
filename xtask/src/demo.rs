//! `cargo xtask demo`: the quickstart, the README's first command. Builds the embedded demo
//! server, snapshots it into `fixtures/demo.json`, builds and runs
//! `runtime/examples/quickstart.rs` (typed calls through `mcp_tools!("demo")`), then compiles
//! the example once more with a misspelled argument and shows the compiler's error.
//!
//! [`run`] checks what it shows, so `cargo xtask test` runs it as a stage: the typed calls
//! returned what the demo server computes ([`EXPECTED`]), and the misspelled argument was
//! a compile error naming it.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::workspace_root;

/// Lines the quickstart prints when its typed calls worked: the start of the line, and what
/// it must end with (the demo server's answers are deterministic but for the time).
const EXPECTED: [(&str, &str); 5] = [
    ("connected to ", " over stdio"),
    ("add(2, 40)            → ", "→ 42"),
    ("server_time()         → ", "Z"),
    (
        "long_task(3)          → ",
        "→ long_task finished 3 step(s), 3 progress notification(s) sent",
    ),
    (
        "fail(..)              → ",
        "→ tool error from fail: the quickstart asked for it",
    ),
];

/// The demo, its output checked; `Err` says which step or line was wrong.
pub fn run() -> Result<(), String> {
    let root = workspace_root();
    let example = root.join("runtime/examples/quickstart.rs");
    println!(
        "==> cargo xtask demo: build the embedded demo MCP server, snapshot it into fixtures/demo.json,\n    build and run {} (typed calls through mcp_tools!(\"demo\")),\n    then compile it once more with a misspelled argument.\n    The first build compiles the whole dependency tree: a few minutes on a small machine.\n",
        example.display()
    );
    let env = crate::prepare::prepare(&["demo".to_string()])?;
    let code = mcp_bindgen_cli::run_with_env(
        crate::INVOKED_AS,
        &["snapshot".to_string(), "demo".to_string()],
        &env,
    );
    if code != std::process::ExitCode::SUCCESS {
        return Err("`snapshot demo` failed".to_string());
    }
    println!(
        "\n==> cargo run -p mcp-bindgen --example quickstart   ({})\n",
        example.display()
    );
    let printed = run_quickstart(&env)?;
    check_output(&printed)?;
    compile_error_of_a_typo(&example)?;
    println!(
        "\n==> done: the program above is {}; `cargo xtask expand demo` prints the code mcp_tools!(\"demo\") generated.",
        example.display()
    );
    Ok(())
}

/// `cargo run -p mcp-bindgen --example quickstart`, its output echoed and returned.
fn run_quickstart(env: &[(String, String)]) -> Result<String, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut child = Command::new(cargo)
        .args(["run", "--package", "mcp-bindgen", "--example", "quickstart"])
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(workspace_root())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run cargo run: {e}"))?;
    let mut printed = String::new();
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            println!("{line}");
            printed.push_str(&line);
            printed.push('\n');
        }
    }
    let status = child.wait().map_err(|e| format!("cargo run: {e}"))?;
    if status.success() {
        Ok(printed)
    } else {
        Err(format!(
            "`cargo run -p mcp-bindgen --example quickstart` failed ({status})"
        ))
    }
}

/// Every line of [`EXPECTED`] is in `printed`, with its answer.
fn check_output(printed: &str) -> Result<(), String> {
    for (start, end) in EXPECTED {
        let line = printed
            .lines()
            .find(|l| l.starts_with(start))
            .ok_or_else(|| format!("the quickstart printed no line starting {start:?}"))?;
        if !line.ends_with(end) {
            return Err(format!(
                "the quickstart printed {line:?}, which does not end with {end:?}"
            ));
        }
    }
    let progress = printed
        .lines()
        .filter(|l| l.trim_start().starts_with("progress "))
        .count();
    if progress != 3 {
        return Err(format!(
            "the quickstart printed {progress} progress lines, not 3 (one per step)"
        ));
    }
    Ok(())
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
    let out = Command::new(cargo)
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
    if out.status.success() || !names_the_typo(&stderr, line) {
        return Err(format!(
            "the misspelled argument did not give the expected compile error at quickstart.rs:{line} (cargo rustc {}):\n{stderr}",
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

/// The compiler's error names the misspelled field, points at the example's `line`, and
/// suggests the right name (rustc shows the call with `b` in its place).
fn names_the_typo(stderr: &str, line: usize) -> bool {
    stderr.contains("no field named `bb`")
        && stderr.contains(&format!("quickstart.rs:{line}:"))
        && stderr.contains("a: 2.0, b: 40.0")
}

#[cfg(test)]
mod tests {
    use super::{check_output, names_the_typo};

    #[test]
    fn the_typos_error_must_name_the_field_the_line_and_the_fix() {
        let stderr = "error[E0560]: struct `add::Args` has no field named `bb`
  --> runtime/examples/quickstart.rs:97:40
   |
97 |     demo.add(demo::add::Args { a: 2.0, bb: 40.0 }).await?;
   |                                        ^^ unknown field
   |
help: a field with a similar name exists
   |
97 -     demo.add(demo::add::Args { a: 2.0, bb: 40.0 }).await?;
97 +     demo.add(demo::add::Args { a: 2.0, b: 40.0 }).await?;
   |
";
        assert!(names_the_typo(stderr, 97));
        assert!(!names_the_typo(stderr, 98), "another line");
        let no_hint = stderr.replace(
            "97 +     demo.add(demo::add::Args { a: 2.0, b: 40.0 }).await?;\n",
            "",
        );
        assert!(!names_the_typo(&no_hint, 97), "no suggestion");
        assert!(!names_the_typo("error: could not find `Cargo.toml`", 97));
    }

    #[test]
    fn the_quickstarts_output_is_checked_line_by_line() {
        let good = "connected to mcp-demo-server 0.1.0 (protocol 2026-07-28) over stdio
add(2, 40)            → 42
server_time()         → 2026-11-28T19:00:00Z
get_weather(Lisbon)   → 21.5° Sunny, 2 forecast day(s), wind 12 km/h
  progress 1/3 step 1 of 3
  progress 2/3 step 2 of 3
  progress 3/3 step 3 of 3
long_task(3)          → long_task finished 3 step(s), 3 progress notification(s) sent
fail(..)              → tool error from fail: the quickstart asked for it
";
        assert_eq!(check_output(good), Ok(()));
        let wrong_sum = good.replace("→ 42", "→ 24");
        assert!(check_output(&wrong_sum).unwrap_err().contains("add(2, 40)"));
        let no_progress = good.replace("  progress 2/3 step 2 of 3\n", "");
        assert!(
            check_output(&no_progress)
                .unwrap_err()
                .contains("2 progress")
        );
        let unexpected = good.replace(
            "tool error from fail: the quickstart asked for it",
            "unexpected: Ok(..)",
        );
        assert!(check_output(&unexpected).is_err());
    }
}
