//! `cargo xtask test` — the README's test command, and what CI runs.
//!
//! 1. builds every test binary once (`cargo test --workspace --no-run`: one integration-test
//!    binary per crate) while, on another thread, the pinned npm/PyPI servers, Node 22, the
//!    conformance suite and the tools are installed into `target/mcp-servers` (idempotent;
//!    tools built from crates.io are built once per machine and version, [`crate::servers::tool_cache`]);
//! 2. runs `cargo test --workspace` with the registry's environment set (and
//!    `PROPTEST_CASES=10000`: the generator's property test sees 10 000 random schemas);
//! 3. runs the demo (`cargo xtask demo`, the README's first command), checking that the typed
//!    calls returned the demo server's answers and that the misspelled argument is a compile
//!    error that names it; then the offline agent example;
//! 4. runs `verify --deep` (codegen, then the round-trip oracle; `mcp-bindgen-cli`) over
//!    the committed fixtures, the property test's sample, 60 real servers' tool schemas
//!    (`tests/corpus/real-servers`), the generator's edge-case fixtures and GitHub's official
//!    server (`tests/corpus/github-official`); and `tools --format
//!    anthropic|gemini|openai-strict|openai-responses [--compact] --check` over the same
//!    directories (one valid definition per tool, full and compact, names unique), and
//!    `tools --tokens --check` (every tool's tokens counted in every format);
//! 5. runs `snapshot --check --all-required` (`mcp-bindgen-cli`, as `cargo xtask snapshot`
//!    runs it): every default server must reproduce its committed fixture byte for byte;
//! 6. runs `conformance` (the same function as `cargo xtask conformance`): every client
//!    scenario of the pinned official suite;
//! 7. runs `cargo package` of `mcp-bindgen-core`, `mcp-bindgen-codegen`, `mcp-bindgen-macros`,
//!    `mcp-bindgen` and `mcp-bindgen-cli`: each is packaged and built from its `.crate` file, the others
//!    resolved from the packages (what crates.io would hold);
//! 8. checks the publishable crates with the lowest versions their requirements allow,
//!    `mcp-bindgen` for `x86_64-pc-windows-gnu`, `mcp-bindgen-core` and `mcp-bindgen`
//!    (`--features wasm`) for `wasm32-unknown-unknown`, and runs the wasm32 build of a typed
//!    client under Node against the demo server (`portability`);
//! 9. runs `bench --smoke`: every benchmark contender and instruction count works (tiny
//!    iteration counts, callgrind), and every section is set up (scratch crates fetched).
//!
//! It ends with the stage table (each stage's time and the disk then free, the number of
//! test binaries built) and one line `N passed, M failed` counting the tests of step 2 plus
//! one check per later step. `--quick` is steps 1 and 2 without the installs, and without
//! the integration-test modules that need them or build crates of their own.

use std::io::{BufRead, BufReader};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use crate::portability::PUBLISHED;

/// The corpus as a fixture directory (`target/corpus/github-official/github.json`), so
/// `verify --deep --fixtures` reads it as it reads a project's fixtures.
fn corpus_fixture(
    root: &std::path::Path,
    corpus: &std::path::Path,
) -> Result<std::path::PathBuf, String> {
    let bytes = std::fs::read(corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
    let tools: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", corpus.display()))?;
    let doc = serde_json::json!({ "server": { "alias": "github" }, "tools": tools });
    let dir = root.join("target/corpus/github-official");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let file = dir.join("github.json");
    let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
    std::fs::write(&file, text).map_err(|e| format!("{}: {e}", file.display()))?;
    Ok(dir)
}

/// The property test's sampled fixtures (`tests/ui/fixtures/sample_*.json`, beside the UI
/// tests' fixtures that are made to fail), copied to `target/corpus/property-sample` for
/// `verify --deep --fixtures`.
fn property_sample(root: &std::path::Path) -> Result<std::path::PathBuf, String> {
    copy_corpus(root, "tests/ui/fixtures", "property-sample", |name, _| {
        name.starts_with("sample_")
    })
}

/// The generator's hand-made edge-case fixtures (`mcp-codegen/tests/fixtures`) that generate
/// without macro options (those with an `<name>.options.json` sidecar need them), copied to
/// `target/corpus/edge-cases` for `verify --deep --fixtures`.
fn edge_case_fixtures(root: &std::path::Path) -> Result<std::path::PathBuf, String> {
    copy_corpus(
        root,
        "mcp-codegen/tests/fixtures",
        "edge-cases",
        |name, from| {
            let stem = name.trim_end_matches(".json");
            !stem.ends_with(".options") && !from.join(format!("{stem}.options.json")).exists()
        },
    )
}

/// Copies the `.json` files of `<root>/<from>` that `keep(name, from_dir)` takes into a
/// fresh `<root>/target/corpus/<to>`, and returns that folder; `Err` when none was kept.
fn copy_corpus(
    root: &std::path::Path,
    from: &str,
    to: &str,
    keep: impl Fn(&str, &std::path::Path) -> bool,
) -> Result<std::path::PathBuf, String> {
    let from = root.join(from);
    let dir = root.join("target/corpus").join(to);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let entries = std::fs::read_dir(&from).map_err(|e| format!("{}: {e}", from.display()))?;
    let mut copied = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".json") && keep(&name, &from) {
            let path = entry.path();
            std::fs::copy(&path, dir.join(&name))
                .map_err(|e| format!("{}: {e}", path.display()))?;
            copied += 1;
        }
    }
    if copied == 0 {
        return Err(format!("no fixture to copy in {}", from.display()));
    }
    Ok(dir)
}

const USAGE: &str = "usage: cargo xtask test [--quick] [CARGO_TEST_ARGS…] [-- TEST_BINARY_ARGS…]

Builds every test binary while the pinned servers and tools install, runs `cargo test
--workspace`, the demo (`cargo xtask demo`, checked), the offline example, `verify --deep` and
the exports over every corpus, `snapshot --check`, `conformance`, `cargo package` of the
five publishable crates, the minimal-versions, Windows and wasm32 checks, the wasm32 client
under Node and `bench --smoke`; ends with a table of each stage's time and free disk.

--quick   the contributor's inner loop: no installs, no live servers, no packaging or
          portability: the unit tests and the integration tests that need neither an
          installed server nor a crate built from scratch (`QUICK_SKIPS`).";

/// Integration-test modules `--quick` leaves out: those that need the installed npm/PyPI
/// servers or tools (`cargo xtask install-servers`), and those that build crates of their
/// own from scratch (trybuild's projects, the scratch user crates).
const QUICK_SKIPS: &[&str] = &[
    // The end-to-end tests (`tests/tests/it`): installed servers.
    "drift::",
    "fakes::",
    "progress::",
    "protocol::",
    "server_env::",
    "toolbox::",
    "toolbox_providers::",
    "transports::",
    "typed_calls::",
    // Their own builds.
    "ui::",
    "user_project::",
    "rebuild::",
    "stdio_only::",
    // The CLI's (`mcp-bindgen-cli/tests/it`): cargo-semver-checks, a scratch crate.
    "semver_cross_check::",
    "verify_deep::",
];

/// Entry point.
pub fn run(args: &[String]) -> ExitCode {
    let mut quick = false;
    let mut cargo_args: Vec<String> = Vec::new();
    let mut test_args: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            "--quick" => quick = true,
            "--" => test_args.extend(it.by_ref().cloned()),
            other => cargo_args.push(other.to_string()),
        }
    }
    let started = Instant::now();
    let mut stages = Stages::default();
    let root = crate::workspace_root();
    let mut passed = 0u64;
    let mut failed = 0u64;
    let mut failures: Vec<String> = Vec::new();

    // The installs (downloads, and tools built from source once per machine) run beside
    // the build of the test binaries instead of before it: first what `cargo test` needs
    // (its result comes back on `first`), then what only later stages need, which goes on
    // beside the tests.
    let (first_tx, first) = std::sync::mpsc::channel();
    let installs = (!quick).then(|| {
        let root = root.clone();
        std::thread::spawn(move || {
            let _ = first_tx.send(crate::servers::install(&root, &FOR_THE_TESTS));
            crate::servers::install(&root, &FOR_LATER_STAGES)
        })
    });
    stages.start(if quick {
        "build: cargo test --workspace --no-run"
    } else {
        "build: cargo test --workspace --no-run (the pinned servers and tools install meanwhile)"
    });
    let binaries = match build_tests(&cargo_args) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("test: {e}");
            println!("0 passed, 1 failed");
            return ExitCode::FAILURE;
        }
    };
    if installs.is_some() {
        let outcome = first
            .recv()
            .unwrap_or_else(|_| Err("the install thread ended early".to_string()));
        if let Err(e) = outcome {
            eprintln!("test: cannot install what the tests need:\n{e}");
            println!("0 passed, 1 failed");
            return ExitCode::FAILURE;
        }
    }
    // The tests get the registry's variables explicitly (the registry's defaults point at
    // the same places; a non-default CARGO_TARGET_DIR moves the demo server, which the
    // build above made).
    let mut env = crate::servers::env_vars(&root);
    env.push((
        "MCP_DEMO_SERVER".to_string(),
        crate::prepare::target_dir()
            .join("debug")
            .join("mcp-demo-server")
            .display()
            .to_string(),
    ));
    // The whole workspace; with `--quick`, the unit tests, the integration tests but those
    // of `QUICK_SKIPS` (their module paths), and the doctests, as three runs.
    let run = |targets: &str, skips: &[&str]| -> Vec<String> {
        let mut args = words("test --workspace --no-fail-fast");
        args.extend(words(targets));
        args.extend(cargo_args.iter().cloned());
        args.push("--".to_string());
        args.extend(test_args.iter().cloned());
        args.extend(
            skips
                .iter()
                .flat_map(|m| ["--skip".to_string(), m.to_string()]),
        );
        args
    };
    let runs = if quick {
        vec![
            run("--lib --bins", &[]),
            run("--test it", QUICK_SKIPS),
            run("--doc", &[]),
        ]
    } else {
        vec![run("", &[])]
    };

    stages.start("cargo test --workspace");
    match runs
        .iter()
        .map(|args| cargo_test(args, &env, !quick))
        .try_fold(CargoTest::default(), |sum, run| {
            run.map(|r| CargoTest {
                passed: sum.passed + r.passed,
                failed: sum.failed + r.failed,
                failing: [sum.failing, r.failing].concat(),
                block: None,
            })
        }) {
        Ok(CargoTest {
            passed: p,
            failed: f,
            failing,
            ..
        }) => {
            passed += p;
            failed += f;
            if f > 0 {
                failures.push(format!("cargo test: {f} failed"));
                // Named again at the end, where a CI log's tail shows them.
                failures.extend(failing.into_iter().map(|t| format!("  {t}")));
            }
        }
        Err(e) => {
            failed += 1;
            failures.push(e);
        }
    }
    if quick {
        stages.finish(binaries);
        eprintln!(
            "\nxtask test --quick finished in {:.0} s",
            started.elapsed().as_secs_f64()
        );
        return crate::summary(passed, failed, &failures);
    }

    // The tests' own builds (trybuild's projects, the scratch user crates) are not used
    // again; on CI, where disk is the scarce resource, they go before the later steps build.
    if std::env::var_os("CI").is_some() {
        let tests = crate::prepare::target_dir().join("tests");
        if let Err(e) = std::fs::remove_dir_all(&tests)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            eprintln!("test: cannot remove {}: {e}", tests.display());
        }
    }

    // What only the later stages need, installed beside the tests.
    if let Some(installs) = installs {
        stages.start("the installs for the later stages (begun beside the tests)");
        let outcome = installs
            .join()
            .unwrap_or_else(|_| Err("the install thread panicked".to_string()));
        if let Err(e) = outcome {
            eprintln!("test: cannot install what the later stages need:\n{e}");
            failed += 1;
            failures.push("the installs for the later stages".to_string());
        }
    }

    // The README's first command, as a user runs it, its output checked.
    stages.start("cargo xtask demo (typed calls to the demo server, then the compile error)");
    record(
        exit_code(crate::demo::run()),
        "cargo xtask demo",
        &mut passed,
        &mut failed,
        &mut failures,
    );

    // The README's offline example, as a user runs it: no server, no network.
    stages.start(
        "cargo run --example offline_agent (a cassette, stubs and a toolbox of fakes, offline)",
    );
    let offline = crate::cargo(&[
        "run",
        "--quiet",
        "--package",
        "mcp-bindgen",
        "--example",
        "offline_agent",
    ]);
    record(
        exit_code(offline),
        "the offline_agent example",
        &mut passed,
        &mut failed,
        &mut failures,
    );

    // The rig example, as a user runs it: rig's agent loop, its scripted model, the demo
    // server and the npm memory server through the toolbox, an approval policy.
    stages.start("cargo run --features rig --example rig_agent (rig's agent loop, two servers)");
    let rig = crate::cargo(&[
        "run",
        "--quiet",
        "--package",
        "mcp-bindgen",
        "--features",
        "rig",
        "--example",
        "rig_agent",
    ]);
    record(
        exit_code(rig),
        "the rig_agent example",
        &mut passed,
        &mut failed,
        &mut failures,
    );

    // The round-trip oracle over every corpus at hand: the committed fixtures, the property
    // test's sample, 60 real servers, the edge cases and GitHub's official server.
    let corpus = root.join(crate::GITHUB_CORPUS);
    let mut corpora: Vec<(&str, Option<std::path::PathBuf>)> = vec![
        ("the committed fixtures", None),
        (
            "60 real servers' tool schemas",
            Some(root.join("tests/corpus/real-servers")),
        ),
    ];
    match property_sample(&root) {
        Ok(dir) => corpora.push(("the property sample", Some(dir))),
        Err(e) => {
            eprintln!("test: {e}");
            failed += 1;
            failures.push("verify --deep: the property sample".into());
        }
    }
    match edge_case_fixtures(&root) {
        Ok(dir) => corpora.push(("the generator's edge cases", Some(dir))),
        Err(e) => {
            eprintln!("test: {e}");
            failed += 1;
            failures.push("verify --deep: the edge-case fixtures".into());
        }
    }
    match corpus_fixture(&root, &corpus) {
        Ok(dir) => corpora.push(("the GitHub corpus", Some(dir))),
        Err(e) => {
            eprintln!("test: {e}");
            failed += 1;
            failures.push("verify --deep: the GitHub corpus".into());
        }
    }
    let mut exports = Vec::new();
    for (what, dir) in corpora {
        stages.start(&format!(
            "verify --deep ({what}: codegen and round trip of every tool)"
        ));
        // `--strict`: every tool checked, none skipped (an untyped one carries its values
        // unchanged and counts as checked).
        let mut args = vec![
            "verify".to_string(),
            "--deep".to_string(),
            "--strict".to_string(),
        ];
        if let Some(dir) = &dir {
            args.extend(["--fixtures".to_string(), dir.display().to_string()]);
        }
        record(
            mcp_bindgen_cli::run(crate::INVOKED_AS, &args),
            &format!("verify --deep ({what})"),
            &mut passed,
            &mut failed,
            &mut failures,
        );
        // One valid, uniquely named definition per tool in every provider's format, full
        // and compact; each export is kept for the providers' own validators below.
        for format in crate::providers::formats() {
            for compact in [false, true] {
                let form = if compact { " --compact" } else { "" };
                stages.start(&format!("tools --format {format}{form} --check ({what})"));
                let out =
                    crate::providers::export_path(&crate::providers::slug(what), format, compact);
                let outcome = crate::providers::export(dir.as_deref(), format, compact, &out);
                if outcome.is_ok() {
                    exports.push(out);
                }
                record(
                    exit_code(outcome),
                    &format!("tools --format {format}{form} ({what})"),
                    &mut passed,
                    &mut failed,
                    &mut failures,
                );
            }
        }
        // Every tool's tokens count in every format.
        stages.start(&format!("tools --tokens --check ({what})"));
        let mut args = vec![
            "tools".to_string(),
            "--tokens".to_string(),
            "--check".to_string(),
        ];
        if let Some(dir) = &dir {
            args.extend(["--fixtures".to_string(), dir.display().to_string()]);
        }
        record(
            mcp_bindgen_cli::run(crate::INVOKED_AS, &args),
            &format!("tools --tokens ({what})"),
            &mut passed,
            &mut failed,
            &mut failures,
        );
    }

    stages.start(&format!(
        "the providers' own validators (google-genai, openai + openai-agents, anthropic) over {} exports",
        exports.len()
    ));
    record(
        exit_code(crate::providers::validate(&root, &exports)),
        "the providers' own validators",
        &mut passed,
        &mut failed,
        &mut failures,
    );

    stages.start("snapshot --check --all-required (drift against the live servers)");
    let check = ["snapshot", "--check", "--all-required"].map(String::from);
    let prepared = crate::prepare::prepare(&[]).unwrap_or_else(|e| {
        eprintln!("test: {e}");
        Vec::new()
    });
    record(
        mcp_bindgen_cli::run_with_env(crate::INVOKED_AS, &check, &prepared),
        "snapshot --check",
        &mut passed,
        &mut failed,
        &mut failures,
    );

    stages.start("conformance (cargo xtask conformance: the official suite's client scenarios)");
    record(
        crate::conformance::run(&[]),
        "conformance",
        &mut passed,
        &mut failed,
        &mut failures,
    );

    stages.start("cargo package of the publishable crates (each built from its .crate file)");
    forget_packaged_sources();
    let mut args = vec!["package", "--allow-dirty"];
    for name in PUBLISHED {
        args.extend(["--package", name]);
    }
    let package = crate::cargo(&args);
    record(
        exit_code(package),
        "cargo package",
        &mut passed,
        &mut failed,
        &mut failures,
    );

    stages.start("minimal versions: the publishable crates with their lowest allowed dependencies");
    record(
        exit_code(crate::portability::minimal_versions(&root)),
        "minimal versions",
        &mut passed,
        &mut failed,
        &mut failures,
    );

    stages.start("cargo check --target x86_64-pc-windows-gnu -p mcp-bindgen");
    record(
        exit_code(crate::portability::windows(&root)),
        "the Windows check",
        &mut passed,
        &mut failed,
        &mut failures,
    );

    stages.start("cargo check --target wasm32-unknown-unknown (core; runtime --features wasm)");
    record(
        exit_code(crate::portability::wasm()),
        "the wasm32 check",
        &mut passed,
        &mut failed,
        &mut failures,
    );

    stages.start("cargo test --target wasm32-unknown-unknown -p mcp-bindgen-wasm-tests (Node)");
    record(
        exit_code(crate::portability::wasm_node(&root)),
        "the wasm32 tests under Node",
        &mut passed,
        &mut failed,
        &mut failures,
    );

    stages.start(
        "bench --smoke (every contender and instruction count works, every section set up; no figures)",
    );
    record(
        crate::bench::run(&["--smoke".to_string()]),
        "bench --smoke",
        &mut passed,
        &mut failed,
        &mut failures,
    );

    stages.finish(binaries);
    eprintln!(
        "\nxtask test finished in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    crate::summary(passed, failed, &failures)
}

/// The steps' wall-clock times and the disk left free after each, printed as a table at
/// the end (CI's time and disk budgets are reviewed from it), with the number of test
/// binaries built.
#[derive(Default)]
struct Stages {
    current: Option<(String, Instant)>,
    done: Vec<(String, f64, Option<f64>)>,
}

impl Stages {
    /// Ends the running step and starts `name`.
    fn start(&mut self, name: &str) {
        self.end();
        step(name);
        self.current = Some((name.to_string(), Instant::now()));
    }

    fn end(&mut self) {
        if let Some((name, at)) = self.current.take() {
            self.done
                .push((name, at.elapsed().as_secs_f64(), free_disk_gib()));
        }
    }

    /// Ends the running step and prints every step's time and the disk then free, the
    /// total, and the number of test binaries built.
    fn finish(&mut self, binaries: usize) {
        self.end();
        eprintln!("\n==> stage times (and disk free after each)");
        let mut total = 0.0;
        for (name, secs, free) in &self.done {
            total += secs;
            let short: String = name.chars().take(72).collect();
            let free = free.map_or_else(|| "?".to_string(), |g| format!("{g:.1} GiB"));
            eprintln!("{secs:>8.1} s  {free:>9}  {short}");
        }
        eprintln!("{total:>8.1} s  {:>9}  total", "");
        if let Some(whole) = since_the_run_started() {
            eprintln!(
                "{whole:>8.0} s  {:>9}  since the run started (the dev runner's build included)",
                ""
            );
        }
        eprintln!("test binaries built: {binaries}");
    }
}

/// Seconds since `$MCP_BINDGEN_RUN_STARTED` (Unix seconds, set by `.ci/run` before `cargo
/// xtask` builds this program), when set.
fn since_the_run_started() -> Option<u64> {
    let started: u64 = std::env::var("MCP_BINDGEN_RUN_STARTED")
        .ok()?
        .trim()
        .parse()
        .ok()?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs();
    now.checked_sub(started)
}

/// Free space on the target directory's file system, in GiB (`df -Pk`; `None` where `df`
/// cannot tell).
fn free_disk_gib() -> Option<f64> {
    let target = crate::prepare::target_dir();
    let out = Command::new("df").arg("-Pk").arg(&target).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let kib: f64 = text
        .lines()
        .nth(1)?
        .split_whitespace()
        .nth(3)?
        .parse()
        .ok()?;
    Some(kib / (1024.0 * 1024.0))
}

fn step(name: &str) {
    eprintln!("\n==> {name}");
}

/// A step's outcome as an exit code; a failure's reason is printed.
fn exit_code(outcome: Result<(), String>) -> ExitCode {
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("test: {e}");
            ExitCode::FAILURE
        }
    }
}

fn record(
    code: ExitCode,
    name: &str,
    passed: &mut u64,
    failed: &mut u64,
    failures: &mut Vec<String>,
) {
    if code == ExitCode::SUCCESS {
        *passed += 1;
    } else {
        *failed += 1;
        failures.push(name.to_string());
    }
}

/// Random schemas the property test of `mcp-bindgen-codegen` generates per `cargo xtask test` run.
const PROPERTY_CASES: u32 = 10_000;

/// What `cargo test --workspace` reported, read line by line from its output.
#[derive(Debug, Default)]
struct CargoTest {
    passed: u64,
    failed: u64,
    /// Each failed test with the first lines of its panic message, when one was printed.
    failing: Vec<String>,
    /// Inside a `---- name stdout ----` block: lines kept so far.
    block: Option<usize>,
}

/// Lines of a failed test's output kept for the closing summary.
const FAILURE_LINES: usize = 3;

impl CargoTest {
    /// Takes in one line of `cargo test`'s output.
    fn line(&mut self, line: &str) {
        if let Some(rest) = line.strip_prefix("test result: ") {
            self.passed += count(rest, " passed");
            self.failed += count(rest, " failed");
        } else if let Some(name) = line
            .strip_prefix("---- ")
            .and_then(|l| l.strip_suffix(" stdout ----"))
        {
            self.failing.push(name.to_string());
            self.block = Some(0);
        } else if line == "failures:" || line.starts_with("test ") {
            self.block = None;
        } else if let (Some(kept), Some(last)) = (self.block, self.failing.last_mut()) {
            // From the panic (or the returned error) on, up to the next blank line.
            let starts = line.starts_with("thread '") || line.starts_with("Error: ");
            if kept > 0 && (line.is_empty() || kept >= FAILURE_LINES) {
                self.block = None;
            } else if kept > 0 || starts {
                last.push_str(if kept == 0 { ": " } else { " / " });
                last.push_str(line.trim());
                self.block = Some(kept + 1);
            }
        }
    }
}

/// What `cargo xtask test` installs before `cargo test` runs, beside the build: the servers
/// of the default registry, Node 22 and the conformance suite, nginx (Debian's, the load
/// balancer of the scale-out tests), and cargo-semver-checks (the drift corpus's
/// cross-check, built from source first: the longest install starts earliest).
const FOR_THE_TESTS: [&str; 12] = [
    "semver-checks",
    "everything",
    "filesystem",
    "memory",
    "sequential-thinking",
    "github",
    "time",
    "fetch",
    "git",
    "node22",
    "conformance",
    "nginx",
];

/// What only the stages after `cargo test` need, installed while the tests run:
/// wasm-bindgen's test runner and binaryen (wasm32), zig (the Windows check's C compiler),
/// the providers' own libraries (the validators of every export).
const FOR_LATER_STAGES: [&str; 6] = [
    "wasm-bindgen",
    "binaryen",
    "zig",
    "google-genai",
    "openai-agents",
    "anthropic",
];

/// `cargo test --workspace --no-run`: builds every test binary (and the binaries and
/// examples they use) once; returns how many test binaries cargo made.
fn build_tests(cargo_args: &[String]) -> Result<usize, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut child = Command::new(cargo)
        .args(["test", "--workspace", "--no-run"])
        .args(cargo_args)
        .current_dir(crate::workspace_root())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run cargo test --no-run: {e}"))?;
    let mut binaries = 0;
    if let Some(err) = child.stderr.take() {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            eprintln!("{line}");
            if line.trim_start().starts_with("Executable ") {
                binaries += 1;
            }
        }
    }
    let status = child
        .wait()
        .map_err(|e| format!("cargo test --no-run: {e}"))?;
    if status.success() {
        Ok(binaries)
    } else {
        Err(format!("cargo test --workspace --no-run failed ({status})"))
    }
}

/// `s` split at spaces.
fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

/// Runs `cargo <args>` (a `cargo test` whose binaries are built already), echoing its
/// output, summing its result lines and collecting the failed tests' names and first lines
/// of output. `proptest`: the property test's full count of random schemas.
fn cargo_test(
    args: &[String],
    env: &[(String, String)],
    proptest: bool,
) -> Result<CargoTest, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut cmd = Command::new(cargo);
    cmd.args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(crate::workspace_root())
        .stdout(Stdio::piped());
    if proptest {
        // At least 10 000 random schemas per run (about 80 s in a debug build), unless the
        // caller chose a count; the inner loop keeps proptest's default.
        cmd.env(
            "PROPTEST_CASES",
            std::env::var("PROPTEST_CASES").unwrap_or_else(|_| PROPERTY_CASES.to_string()),
        );
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot run cargo test: {e}"))?;
    let mut report = CargoTest::default();
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            println!("{line}");
            report.line(&line);
        }
    }
    let status = child.wait().map_err(|e| format!("cargo test: {e}"))?;
    if !status.success() && report.failed == 0 {
        return Err(format!(
            "cargo test failed ({status}) before running every test"
        ));
    }
    Ok(report)
}

/// In `ok. 3 passed; 1 failed; …`, the number before `what`.
fn count(summary: &str, what: &str) -> u64 {
    summary
        .split(';')
        .find_map(|part| {
            let part = part
                .trim()
                .trim_start_matches("ok.")
                .trim_start_matches("FAILED.")
                .trim();
            part.strip_suffix(what.trim_start())
                .or_else(|| part.strip_suffix(what))
                .and_then(|n| n.trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Removes what an earlier `cargo package` on this machine unpacked of our crates.
///
/// `cargo package` verifies each crate against the others through a temporary local
/// registry, and cargo unpacks that registry's crates under
/// `$CARGO_HOME/registry/src/-<hash>/<crate>-<version>`, keyed by the registry's path. It
/// never unpacks a version again once it is there, so a second run from the same checkout
/// path would verify against the first run's sources. Only our crates in such local
/// registries (names starting with `-`; crates.io's start with `index.`) are removed.
fn forget_packaged_sources() {
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cargo")));
    let Some(src) = home.map(|h| h.join("registry").join("src")) else {
        return;
    };
    let Ok(registries) = std::fs::read_dir(&src) else {
        return;
    };
    for registry in registries.flatten() {
        if !registry.file_name().to_string_lossy().starts_with('-') {
            continue;
        }
        let Ok(crates) = std::fs::read_dir(registry.path()) else {
            continue;
        };
        for unpacked in crates.flatten() {
            let name = unpacked.file_name().to_string_lossy().into_owned();
            let ours = PUBLISHED.iter().any(|c| {
                name.strip_prefix(c)
                    .is_some_and(|v| v.starts_with("-0") || v.starts_with("-1"))
            });
            if ours && let Err(e) = std::fs::remove_dir_all(unpacked.path()) {
                eprintln!("test: cannot remove {}: {e}", unpacked.path().display());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{CargoTest, count};

    #[test]
    fn counts_cargo_test_summaries() {
        let s = "ok. 12 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.01s";
        assert_eq!(count(s, " passed"), 12);
        assert_eq!(count(s, " failed"), 0);
        let s = "FAILED. 3 passed; 2 failed; 0 ignored";
        assert_eq!(count(s, " passed"), 3);
        assert_eq!(count(s, " failed"), 2);
    }

    #[test]
    fn failed_tests_are_named_with_their_panic() {
        let out = "running 2 tests
test ok_one ... ok
test drift ... FAILED

failures:

---- drift stdout ----
printed by the test

thread 'drift' (30727) panicked at cli/tests/it/drift_corpus.rs:97:5:
1 of 87 cases classified wrong:
gh-60:
    expected major
stack backtrace:

---- typed_calls::slow stdout ----
Error: the server timed out

failures:
    drift
    typed_calls::slow

test result: FAILED. 1 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out
";
        let mut report = CargoTest::default();
        out.lines().for_each(|l| report.line(l));
        assert_eq!((report.passed, report.failed), (1, 2));
        assert_eq!(
            report.failing,
            [
                "drift: thread 'drift' (30727) panicked at cli/tests/it/drift_corpus.rs:97:5: / 1 of 87 cases classified wrong: / gh-60:",
                "typed_calls::slow: Error: the server timed out",
            ]
        );
    }
}
