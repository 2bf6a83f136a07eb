//! `cargo xtask bench [--smoke] [--skip SECTION…]`: the benchmark suite.
//!
//! One run, contenders side by side, results as medians of per-round ratios:
//!
//! 1. **calls** — the `mcp-bench` binary (package `mcp-bindgen-tests`, feature `bench`, built in
//!    release with the demo server) times the typed generated client, raw rmcp, a minimal
//!    hand-written JSON-RPC pipe client and the official Python SDK (installed here into
//!    `target/bench/venv` from `xtask/bench/requirements.txt`) against the same
//!    `mcp-demo-server --pipes`, interleaved per round, small and ≈100 KiB payloads, and
//!    throughput at 1, 16 and 64 calls in flight;
//! 2. **expand** — `mcp_codegen::generate` (the proc macro's work; the key figure) and
//!    generate + formatting (`cargo xtask expand`) for the 117 tools of
//!    `../shared/corpus/github-official` and for every committed fixture, in this process
//!    (unoptimized, like the proc macro in a normal build);
//! 3. **check** — the extra `cargo check` seconds of a scratch crate binding those 117 tools
//!    against the same crate without them (own target dir under `target/bench`, the
//!    workspace's `Cargo.lock`, `--offline`, dependencies warmed first, medians of 3);
//! 4. **snapshot** — `cargo xtask snapshot` of every default server in parallel against the
//!    slowest server alone (wall-clock time of this binary's `snapshot` command, fixtures
//!    written under `target/bench`, never into `fixtures/`);
//! 5. **features** — what a stdio-only user crate (`mcp-runtime` with
//!    `default-features = false`) saves against the default: its dependency count
//!    (`cargo tree`) and a cold `cargo check` (empty target dir).
//!
//! Outputs: a table on stdout, `target/bench/results.json`, and `BENCHMARKS.md` at the
//! workspace root (hand-written notes below its `<!-- notes -->` marker are kept).
//! `--smoke` runs tiny iteration counts only to check that every contender works (sections
//! `check`, `snapshot` and `features` are skipped; `snapshot --check` is part of the test command) and
//! writes `target/bench/results-smoke.json` only.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use mcp_codegen::fixture::Fixture;
use mcp_codegen::{Options, format_tokens, generate};
use serde_json::{Map, Value, json};

const USAGE: &str =
    "usage: cargo xtask bench [--smoke] [--skip calls|expand|check|snapshot|features]…

  --smoke          tiny iteration counts: only checks that every contender works
  --skip SECTION   leave a section out (repeatable)";

/// Exact Python SDK pin of the Python contender (the full transitive set is in
/// `xtask/bench/requirements.txt`).
const PYTHON_SDK: &str = "mcp==2.3.0";
/// The Python contender's script, written into `target/bench` at run time.
const PYTHON_CLIENT: &str = include_str!("../bench/python_client.py");
/// Attempts and per-attempt time-out of the Python SDK download.
const PIP_ATTEMPTS: u32 = 3;
const PIP_TIMEOUT: Duration = Duration::from_secs(300);
/// Marker in `BENCHMARKS.md` after which hand-written notes survive a re-run.
const NOTES_MARKER: &str =
    "<!-- notes: everything below this line is kept by `cargo xtask bench` -->";

const SECTIONS: [&str; 5] = ["calls", "expand", "check", "snapshot", "features"];

struct Args {
    smoke: bool,
    skip: Vec<String>,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut out = Args {
        smoke: false,
        skip: Vec::new(),
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--smoke" => out.smoke = true,
            "--skip" => {
                let section = it.next().ok_or("--skip needs a section")?;
                if !SECTIONS.contains(&section.as_str()) {
                    return Err(format!("unknown section {section}"));
                }
                out.skip.push(section.clone());
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if out.smoke {
        out.skip
            .extend(["check", "snapshot", "features"].map(String::from));
    }
    Ok(out)
}

/// Entry point; `args` are the words after `bench`.
pub fn run(args: &[String]) -> ExitCode {
    let args = match parse(args) {
        Ok(a) => a,
        Err(e) if e.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("bench: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run_inner(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Where the bench keeps its files: `<workspace>/target/bench`.
fn bench_dir() -> PathBuf {
    crate::workspace_root().join("target").join("bench")
}

/// Cargo's target directory for the binaries it builds (honours `CARGO_TARGET_DIR`).
fn cargo_target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::workspace_root().join("target"))
}

fn run_inner(args: &Args) -> Result<(), String> {
    let root = crate::workspace_root();
    let dir = bench_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let runs = |s: &str| !args.skip.iter().any(|k| k == s);
    let load_before = load_average();
    let started = Instant::now();
    let mut results = Map::new();

    if runs("calls") {
        results.insert("calls".into(), calls(&root, &dir, args.smoke)?);
    }
    if runs("expand") {
        results.insert("expand".into(), expand(&root, &dir, args.smoke)?);
    }
    if runs("check") {
        results.insert("check".into(), check_overhead(&root, &dir)?);
    }
    if runs("snapshot") {
        results.insert("snapshot".into(), snapshot(&dir)?);
    }
    if runs("features") {
        results.insert("features".into(), features(&root, &dir)?);
    }
    let load_after = load_average();
    let machine = machine_facts(load_before.as_deref(), load_after.as_deref());
    let rows = summary_rows(&results);
    let table = render_table(&rows);
    println!("\n{table}");
    println!("{}", machine.lines);

    let mut json = summary_json(&rows);
    json.insert("machine".into(), machine.json.clone());
    json.insert("smoke".into(), json!(args.smoke));
    json.insert("elapsed_s".into(), json!(started.elapsed().as_secs_f64()));
    json.insert("raw".into(), Value::Object(results));
    let name = if args.smoke {
        "results-smoke.json"
    } else {
        "results.json"
    };
    let path = dir.join(name);
    let text = serde_json::to_string_pretty(&Value::Object(json))
        .map_err(|e| format!("cannot encode the results: {e}"))?;
    std::fs::write(&path, text + "\n")
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!("wrote {}", path.display());
    if !args.smoke {
        let md = root.join("BENCHMARKS.md");
        write_markdown(&md, &table, &machine, &args.skip)?;
        println!("wrote {}", md.display());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Statistics
// ---------------------------------------------------------------------------------------

/// The median (mean of the middle two for an even count); `None` when empty.
fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Median of the per-round ratios `a[i] / b[i]`.
fn median_ratio(a: &[f64], b: &[f64]) -> Option<f64> {
    let ratios: Vec<f64> = a.iter().zip(b).map(|(x, y)| x / y).collect();
    median(&ratios)
}

fn series(v: &Value, path: &str) -> Vec<f64> {
    v.pointer(path)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

// ---------------------------------------------------------------------------------------
// 1. calls: mcp-bench against the release demo server
// ---------------------------------------------------------------------------------------

/// Builds `mcp-demo-server` and `mcp-bench` in release; returns their paths.
fn build_release() -> Result<(PathBuf, PathBuf), String> {
    eprintln!("bench: building mcp-demo-server and mcp-bench (release)");
    crate::cargo(&[
        "build",
        "--quiet",
        "--release",
        "--package",
        "mcp-bindgen-tests",
        "--features",
        "bench",
        "--bin",
        "mcp-demo-server",
        "--bin",
        "mcp-bench",
    ])?;
    let release = cargo_target_dir().join("release");
    let server = release.join("mcp-demo-server");
    let bench = release.join("mcp-bench");
    for p in [&server, &bench] {
        if !p.is_file() {
            return Err(format!("built, but {} is missing", p.display()));
        }
    }
    Ok((server, bench))
}

fn calls(root: &Path, dir: &Path, smoke: bool) -> Result<Value, String> {
    let (server, bench) = build_release()?;
    let python = python_venv(root, dir)?;
    let script = dir.join("python_client.py");
    std::fs::write(&script, PYTHON_CLIENT)
        .map_err(|e| format!("cannot write {}: {e}", script.display()))?;
    let payload = dir.join("large-payload.json");
    let counts: &[(&str, &str)] = if smoke {
        &[
            ("--rounds", "2"),
            ("--small-calls", "5"),
            ("--large-calls", "2"),
            ("--warmup", "5"),
            ("--throughput-calls", "64"),
            ("--throughput-rounds", "1"),
        ]
    } else {
        &[
            ("--rounds", "40"),
            ("--small-calls", "200"),
            ("--large-calls", "20"),
            ("--warmup", "300"),
            ("--throughput-calls", "4096"),
            ("--throughput-rounds", "9"),
        ]
    };
    let mut cmd = Command::new(&bench);
    cmd.arg("--server")
        .arg(&server)
        .arg("--payload-out")
        .arg(&payload)
        .arg("--python")
        .arg(&python)
        .arg("--python-client")
        .arg(&script)
        .args(["--inflight", "1,16,64"]);
    for (flag, value) in counts {
        cmd.args([flag, value]);
    }
    eprintln!("bench: running {}", crate::process::describe(&cmd));
    let output = cmd
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bench.display()))?;
    if !output.status.success() {
        return Err(format!("mcp-bench failed ({})", output.status));
    }
    serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("mcp-bench printed no JSON report: {e}"))
}

/// Makes `target/bench/venv` with the pinned Python SDK (idempotent: a stamp holds the hash
/// of the requirements). Returns the venv's python.
fn python_venv(root: &Path, dir: &Path) -> Result<PathBuf, String> {
    let venv = dir.join("venv");
    let python = venv.join("bin").join("python");
    let requirements = root.join("xtask").join("bench").join("requirements.txt");
    let pins = std::fs::read_to_string(&requirements)
        .map_err(|e| format!("cannot read {}: {e}", requirements.display()))?;
    if !pins.lines().any(|l| l.trim() == PYTHON_SDK) {
        return Err(format!(
            "{} does not pin {PYTHON_SDK}",
            requirements.display()
        ));
    }
    let stamp_path = venv.join(".mcp-bench-installed");
    let stamp = format!(
        "{PYTHON_SDK} {:016x}\n",
        crate::process::fnv1a(pins.as_bytes())
    );
    if python.is_file() && std::fs::read_to_string(&stamp_path).ok().as_deref() == Some(&stamp) {
        return Ok(python);
    }
    eprintln!(
        "bench: installing the Python SDK ({PYTHON_SDK}) into {}",
        venv.display()
    );
    let _ = std::fs::remove_dir_all(&venv);
    let base = std::env::var("MCP_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let mut cmd = Command::new(&base);
    cmd.args(["-m", "venv"]).arg(&venv);
    run_command(&mut cmd, Duration::from_secs(120))?;
    let mut last = String::new();
    for attempt in 1..=PIP_ATTEMPTS {
        if attempt > 1 {
            std::thread::sleep(Duration::from_secs(2u64.pow(attempt - 1)));
        }
        let mut cmd = Command::new(venv.join("bin").join("pip"));
        cmd.args([
            "install",
            "--disable-pip-version-check",
            "--no-input",
            "--no-deps",
            "-r",
        ])
        .arg(&requirements);
        match run_command(&mut cmd, PIP_TIMEOUT) {
            Ok(_) => {
                last.clear();
                break;
            }
            Err(e) => last = e,
        }
    }
    if !last.is_empty() {
        return Err(format!(
            "cannot install the Python SDK ({PYTHON_SDK}) after {PIP_ATTEMPTS} attempts \
             (PyPI unreachable?):\n{last}"
        ));
    }
    let mut cmd = Command::new(&python);
    cmd.args(["-c", "import mcp, anyio"]);
    run_command(&mut cmd, Duration::from_secs(60))
        .map_err(|e| format!("the Python SDK was installed but does not import:\n{e}"))?;
    std::fs::write(&stamp_path, stamp)
        .map_err(|e| format!("cannot write {}: {e}", stamp_path.display()))?;
    Ok(python)
}

// ---------------------------------------------------------------------------------------
// 2. expand: generate + format in process
// ---------------------------------------------------------------------------------------

/// The GitHub corpus as a fixture, and as fixture JSON text (`{"tools": [...]}`).
fn github_corpus(root: &Path) -> Result<(Fixture, Vec<u8>), String> {
    let path = root.join(crate::GITHUB_CORPUS);
    let text = std::fs::read(&path).map_err(|e| {
        format!(
            "cannot read the GitHub corpus at {} ({e}); it lives in the shared folder beside the repository",
            path.display()
        )
    })?;
    let tools: Value =
        serde_json::from_slice(&text).map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
    let wrapped = serde_json::to_vec(&json!({ "tools": tools }))
        .map_err(|e| format!("cannot re-encode the corpus: {e}"))?;
    let fixture = Fixture::from_slice(&wrapped, &path).map_err(|e| e.to_string())?;
    Ok((fixture, wrapped))
}

/// Median milliseconds of `generate` alone and of `generate` + formatting, and the tool count.
fn time_expansion(fixture: &Fixture, alias: &str, n: usize) -> Result<(f64, f64, usize), String> {
    let mut gen_ms = Vec::with_capacity(n);
    let mut total_ms = Vec::with_capacity(n);
    let mut tools = 0;
    for _ in 0..n {
        let started = Instant::now();
        let generated =
            generate(fixture, alias, &Options::default()).map_err(|e| format!("{alias}: {e}"))?;
        let generated_at = started.elapsed();
        tools = generated.stats.tools;
        let text = format_tokens(alias, generated.tokens).map_err(|e| format!("{alias}: {e}"))?;
        let total = started.elapsed();
        std::hint::black_box(text);
        gen_ms.push(ms(generated_at));
        total_ms.push(ms(total));
    }
    Ok((
        median(&gen_ms).unwrap_or(f64::NAN),
        median(&total_ms).unwrap_or(f64::NAN),
        tools,
    ))
}

/// Runs `mcp-bench expand` (the optimized build) on a fixture file.
fn expand_release(bench: &Path, fixture: &Path, alias: &str, n: usize) -> Result<Value, String> {
    let output = Command::new(bench)
        .arg("expand")
        .arg(fixture)
        .arg(alias)
        .arg(n.to_string())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bench.display()))?;
    if !output.status.success() {
        return Err(format!(
            "mcp-bench expand {alias} failed ({})",
            output.status
        ));
    }
    serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("mcp-bench expand printed no JSON: {e}"))
}

fn expand(root: &Path, dir: &Path, smoke: bool) -> Result<Value, String> {
    let n = if smoke { 1 } else { 15 };
    let (_, bench) = build_release()?;
    eprintln!("bench: expansion times (median of {n})");
    let (github, github_text) = github_corpus(root)?;
    let github_file = dir.join("github_official.json");
    std::fs::write(&github_file, &github_text)
        .map_err(|e| format!("cannot write {}: {e}", github_file.display()))?;
    let github_release = expand_release(&bench, &github_file, "github_official", n)?;
    // One untimed run first: page in the code, warm the allocator.
    time_expansion(&github, "github_official", 1)?;
    let (gen_ms, total_ms, tools) = time_expansion(&github, "github_official", n)?;
    let mut fixtures = Map::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join("fixtures"))
        .map_err(|e| format!("cannot list fixtures/: {e}"))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    for path in paths {
        let alias = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let fixture = Fixture::load(&path).map_err(|e| e.to_string())?;
        let (g, t, count) = time_expansion(&fixture, &alias, n)?;
        let release = expand_release(&bench, &path, &alias, n)?;
        fixtures.insert(
            alias,
            json!({ "tools": count, "generate_ms": g, "generate_and_format_ms": t, "release": release }),
        );
    }
    Ok(json!({
        "iterations": n,
        "profile": if cfg!(debug_assertions) { "dev (unoptimized, as the proc macro runs)" } else { "release" },
        "github_official": {
            "tools": tools,
            "generate_ms": gen_ms,
            "generate_and_format_ms": total_ms,
            "release": github_release,
        },
        "fixtures": fixtures,
    }))
}

// ---------------------------------------------------------------------------------------
// 3. check: cargo check overhead of binding the 117 tools
// ---------------------------------------------------------------------------------------

const SCRATCH_BASE: &str = r#"//! Scratch crate of `cargo xtask bench` (no bindings).
fn main() {
    let config = mcp_runtime::ServerConfig::stdio("github_official", "github-mcp-server", vec![]);
    println!("{}", config.alias);
}
"#;

const SCRATCH_WITH: &str = r#"//! Scratch crate of `cargo xtask bench` (binds the 117 GitHub tools).
mcp_runtime::mcp_tools!("github_official");

fn main() {
    let config = mcp_runtime::ServerConfig::stdio("github_official", "github-mcp-server", vec![]);
    println!("{} {}", config.alias, github_official::TOOL_NAMES.len());
}
"#;

/// A scratch crate `dir/name` outside the workspace: `mcp-runtime` as a path dependency
/// (with `runtime_options`, e.g. `, default-features = false`), the workspace's
/// `Cargo.lock`, `main` as `src/main.rs` and `fixture` as `fixtures/github_official.json`.
fn scratch_crate(
    dir: &Path,
    name: &str,
    main: &str,
    root: &Path,
    fixture: &[u8],
    runtime_options: &str,
) -> Result<PathBuf, String> {
    let krate = dir.join(name);
    let src = krate.join("src");
    let fixtures = krate.join("fixtures");
    std::fs::create_dir_all(&src).map_err(|e| format!("cannot create {}: {e}", src.display()))?;
    std::fs::create_dir_all(&fixtures)
        .map_err(|e| format!("cannot create {}: {e}", fixtures.display()))?;
    let runtime =
        std::path::absolute(root.join("runtime")).unwrap_or_else(|_| root.join("runtime"));
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\nmcp-runtime = {{ path = {:?}{runtime_options} }}\n\n# Not part of the mcp-bindgen workspace.\n[workspace]\n",
        runtime.to_string_lossy()
    );
    let write = |path: PathBuf, text: &[u8]| {
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    write(krate.join("Cargo.toml"), manifest.as_bytes())?;
    write(src.join("main.rs"), main.as_bytes())?;
    let lock = std::fs::read(root.join("Cargo.lock"))
        .map_err(|e| format!("cannot read the workspace Cargo.lock: {e}"))?;
    write(krate.join("Cargo.lock"), &lock)?;
    write(fixtures.join("github_official.json"), fixture)?;
    Ok(krate)
}

/// `cargo check --offline` of `krate` with `target`; returns the wall time and the
/// expansion time `mcp_tools!` reported inside rustc (`MCP_BINDGEN_TIMINGS`), if it ran.
fn cargo_check(krate: &Path, target: &Path) -> Result<(Duration, Option<f64>), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut cmd = Command::new(cargo);
    cmd.args(["check", "--offline", "--quiet"])
        .current_dir(krate)
        .env("CARGO_TARGET_DIR", target)
        .env("MCP_BINDGEN_TIMINGS", "1")
        .env_remove("MCP_FIXTURES_DIR")
        .env_remove("RUSTC_WRAPPER")
        .env_remove("CARGO_BUILD_RUSTC_WRAPPER");
    let started = Instant::now();
    let out = run_command(&mut cmd, Duration::from_secs(1800))?;
    let elapsed = started.elapsed();
    let log = out.stderr.join("\n") + "\n" + &out.stdout.join("\n");
    Ok((elapsed, macro_expansion_ms(&log)))
}

/// [`crate::process::run`], the error naming the command.
fn run_command(cmd: &mut Command, timeout: Duration) -> Result<crate::process::Captured, String> {
    crate::process::run(cmd, timeout)
        .map_err(|e| format!("`{}` {}", crate::process::describe(cmd), e.trim_start()))
}

/// The time of the `mcp_tools!(…): expanded in N ms` line in a build log.
fn macro_expansion_ms(log: &str) -> Option<f64> {
    log.lines().find_map(|line| {
        let rest = line.split("): expanded in ").nth(1)?;
        rest.strip_suffix(" ms")?.trim().parse().ok()
    })
}

fn touch(path: &Path) -> Result<(), String> {
    let file = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    file.set_modified(std::time::SystemTime::now())
        .map_err(|e| format!("cannot touch {}: {e}", path.display()))
}

fn check_overhead(root: &Path, dir: &Path) -> Result<Value, String> {
    let (_, corpus) = github_corpus(root)?;
    let check_dir = dir.join("check");
    let target = check_dir.join("target");
    let base = scratch_crate(&check_dir, "bench_base", SCRATCH_BASE, root, &corpus, "")?;
    let with = scratch_crate(&check_dir, "bench_github", SCRATCH_WITH, root, &corpus, "")?;
    eprintln!(
        "bench: warming the scratch crates' dependencies (cargo check in {}; slow the first time)",
        target.display()
    );
    cargo_check(&base, &target)?;
    cargo_check(&with, &target)?;
    let mut base_s = Vec::new();
    let mut with_s = Vec::new();
    let mut macro_ms = Vec::new();
    for round in 1..=3 {
        touch(&with.join("src/main.rs"))?;
        let (with_time, expansion) = cargo_check(&with, &target)?;
        with_s.push(with_time.as_secs_f64());
        macro_ms.extend(expansion);
        touch(&base.join("src/main.rs"))?;
        base_s.push(cargo_check(&base, &target)?.0.as_secs_f64());
        eprintln!(
            "bench: cargo check round {round}/3: with tools {:.2} s (mcp_tools! {:.0} ms), without {:.2} s",
            with_s[round - 1],
            expansion.unwrap_or(f64::NAN),
            base_s[round - 1]
        );
    }
    let diffs: Vec<f64> = with_s.iter().zip(&base_s).map(|(w, b)| w - b).collect();
    Ok(json!({
        "with_tools_s": with_s,
        "without_s": base_s,
        "overhead_s": median(&diffs),
        "with_tools_median_s": median(&with_s),
        "without_median_s": median(&base_s),
        "macro_expansion_ms": macro_ms,
        "macro_expansion_median_ms": median(&macro_ms),
    }))
}

// ---------------------------------------------------------------------------------------
// 5. features: a stdio-only user crate against the default
// ---------------------------------------------------------------------------------------

/// The packages in `krate`'s build (`cargo tree`, normal and build dependencies, each
/// package once), not counting the crate itself.
fn dependency_count(krate: &Path) -> Result<usize, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "-e",
            "normal,build",
            "--prefix",
            "none",
        ])
        .current_dir(krate)
        .output()
        .map_err(|e| format!("cannot run cargo tree: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo tree in {} failed:\n{}",
            krate.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let packages: std::collections::BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            Some(format!("{} {}", words.next()?, words.next()?))
        })
        .collect();
    Ok(packages.len().saturating_sub(1))
}

fn features(root: &Path, dir: &Path) -> Result<Value, String> {
    let (_, corpus) = github_corpus(root)?;
    let features_dir = dir.join("features");
    let mut out = Map::new();
    for (kind, options) in [
        ("stdio_only", ", default-features = false"),
        ("default", ""),
    ] {
        let krate = scratch_crate(
            &features_dir,
            &format!("bench_{kind}"),
            SCRATCH_BASE,
            root,
            &corpus,
            options,
        )?;
        let dependencies = dependency_count(&krate)?;
        let target = features_dir.join(format!("target-{kind}"));
        if target.exists() {
            std::fs::remove_dir_all(&target)
                .map_err(|e| format!("cannot empty {}: {e}", target.display()))?;
        }
        eprintln!("bench: cold cargo check of a {kind} user crate ({dependencies} dependencies)");
        let (elapsed, _) = cargo_check(&krate, &target)?;
        eprintln!("bench: {kind}: {:.1} s", elapsed.as_secs_f64());
        out.insert(
            kind.to_string(),
            json!({ "dependencies": dependencies, "cold_check_s": elapsed.as_secs_f64() }),
        );
    }
    Ok(Value::Object(out))
}

// ---------------------------------------------------------------------------------------
// 4. snapshot: all default servers in parallel vs the slowest alone
// ---------------------------------------------------------------------------------------

fn snapshot(dir: &Path) -> Result<Value, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the xtask binary: {e}"))?;
    let out = dir.join("snapshot-fixtures");
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let registry =
        mcp_runtime::Registry::load("fixtures/servers.toml").map_err(|e| e.to_string())?;
    let aliases: Vec<String> = registry.servers().iter().map(|s| s.alias.clone()).collect();
    // The release demo server of the `calls` section when built, else snapshot builds its own.
    let demo = cargo_target_dir().join("release").join("mcp-demo-server");
    // CPU seconds (user + system) of every child this process waited for, and of their
    // waited-for children: the snapshot command and the servers it started.
    let children_cpu = || -> f64 {
        let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
        // Fields after the command name `(…)`: cutime and cstime are the 14th and 15th.
        let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let ticks = |i: usize| {
            fields
                .get(i)
                .and_then(|v| v.parse::<f64>().ok())
                .unwrap_or(0.0)
        };
        // Linux reports them in USER_HZ, which is 100.
        (ticks(13) + ticks(14)) / 100.0
    };
    let run = |which: &[String]| -> Result<(f64, String), String> {
        let mut cmd = Command::new(&exe);
        cmd.arg("snapshot").args(which).arg("--fixtures").arg(&out);
        if demo.is_file() && std::env::var_os("MCP_DEMO_SERVER").is_none() {
            cmd.env("MCP_DEMO_SERVER", &demo);
        }
        let started = Instant::now();
        let output = cmd
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run {}: {e}", crate::process::describe(&cmd)))?;
        let wall = started.elapsed().as_secs_f64();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        if !output.status.success() || stdout.contains("skipped") || stdout.contains("FAILED") {
            return Err(format!(
                "`{}` did not list every server:\n{stdout}{}",
                crate::process::describe(&cmd),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        Ok((wall, stdout))
    };
    eprintln!("bench: snapshot warm-up (installs the pinned servers when needed)");
    let (_, table) = run(&[])?;
    let rounds = 3;
    let mut parallel = Vec::new();
    let mut parallel_cpu = Vec::new();
    let mut slowest = Vec::new();
    let mut singles: Map<String, Value> = Map::new();
    for round in 1..=rounds {
        let cpu_before = children_cpu();
        let (wall, _) = run(&[])?;
        parallel.push(wall);
        parallel_cpu.push(children_cpu() - cpu_before);
        let mut worst = 0.0f64;
        let mut worst_alias = String::new();
        for alias in &aliases {
            let (t, _) = run(std::slice::from_ref(alias))?;
            if let Some(Value::Array(v)) = singles.get_mut(alias) {
                v.push(json!(t));
            } else {
                singles.insert(alias.clone(), json!([t]));
            }
            if t > worst {
                worst = t;
                worst_alias = alias.clone();
            }
        }
        slowest.push(worst);
        eprintln!(
            "bench: snapshot round {round}/{rounds}: all in parallel {wall:.2} s, slowest alone {worst:.2} s ({worst_alias})"
        );
    }
    let slowest_alias = singles
        .iter()
        .filter_map(|(a, v)| {
            v.as_array()
                .map(|v| v.iter().filter_map(Value::as_f64).collect::<Vec<_>>())
                .and_then(|v| median(&v))
                .map(|m| (a.clone(), m))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(a, _)| a)
        .unwrap_or_default();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let floor: Vec<f64> = parallel_cpu.iter().map(|c| c / cpus).collect();
    let cpu_floor = median_ratio(&floor, &slowest);
    Ok(json!({
        "servers": aliases,
        "parallel_s": parallel,
        "slowest_single_s": slowest,
        "slowest_alias": slowest_alias,
        "single_s": singles,
        "ratio": median_ratio(&parallel, &slowest),
        // CPU seconds of a whole parallel snapshot (all servers started, listed, stopped) and
        // the floor it sets on 2 cores: cpu / nproc / slowest alone.
        "parallel_cpu_s": parallel_cpu,
        "cpu_floor_ratio": cpu_floor,
        "parallel_table": table,
    }))
}

// ---------------------------------------------------------------------------------------
// Summary, machine facts, outputs
// ---------------------------------------------------------------------------------------

/// One line of the summary table.
struct Row {
    key: &'static str,
    what: &'static str,
    value: Option<f64>,
    unit: &'static str,
    /// Target: (≤ or ≥, bound).
    target: Option<(&'static str, f64)>,
    detail: String,
}

impl Row {
    fn verdict(&self) -> &'static str {
        match (self.value, self.target) {
            (None, _) => "n/a",
            (_, None) => "",
            (Some(v), Some(("≤", t))) if v <= t => "met",
            (Some(v), Some(("≥", t))) if v >= t => "met",
            _ => "MISSED",
        }
    }
}

fn summary_rows(results: &Map<String, Value>) -> Vec<Row> {
    let mut rows = Vec::new();
    if let Some(calls) = results.get("calls") {
        let med = |p: &str| median(&series(calls, p));
        for (kind, sfx) in [("small", ""), ("large", "_large")] {
            let lat = |who: &str| series(calls, &format!("/latency/{kind}/{who}"));
            let (t, r, p, py) = (lat("typed"), lat("raw_rmcp"), lat("pipe"), lat("python"));
            let us = |who: &str| {
                med(&format!("/latency/{kind}/{who}"))
                    .map_or("-".to_string(), |v| format!("{v:.0} µs"))
            };
            let detail = format!(
                "typed {}, raw rmcp {}, pipe {}, python {}",
                us("typed"),
                us("raw_rmcp"),
                us("pipe"),
                us("python")
            );
            let label = |small: &'static str, large: &'static str| {
                if sfx.is_empty() { small } else { large }
            };
            rows.push(Row {
                key: label("typed_vs_raw_rmcp", "typed_vs_raw_rmcp_large"),
                what: label(
                    "typed / raw rmcp, small call",
                    "typed / raw rmcp, 100 KiB echo",
                ),
                value: median_ratio(&t, &r),
                unit: "×",
                target: Some(("≤", 1.0)),
                detail: detail.clone(),
            });
            rows.push(Row {
                key: label("typed_vs_pipe", "typed_vs_pipe_large"),
                what: label(
                    "typed / pipe floor, small call",
                    "typed / pipe floor, 100 KiB echo",
                ),
                value: median_ratio(&t, &p),
                unit: "×",
                target: Some(("≤", 1.15)),
                detail: String::new(),
            });
            rows.push(Row {
                key: label("raw_rmcp_vs_pipe", "raw_rmcp_vs_pipe_large"),
                what: label(
                    "raw rmcp / pipe floor, small call",
                    "raw rmcp / pipe floor, 100 KiB echo",
                ),
                value: median_ratio(&r, &p),
                unit: "×",
                target: None,
                detail: String::new(),
            });
            rows.push(Row {
                key: label("python_vs_typed", "python_vs_typed_large"),
                what: label(
                    "Python SDK / typed, small call",
                    "Python SDK / typed, 100 KiB echo",
                ),
                value: median_ratio(&py, &t),
                unit: "×",
                target: Some(("≥", if sfx.is_empty() { 3.5 } else { 1.6 })),
                detail: String::new(),
            });
        }
        for k in ["1", "16", "64"] {
            let th = |who: &str| series(calls, &format!("/throughput/{k}/{who}"));
            let (t, r, p) = (th("typed"), th("raw_rmcp"), th("pipe"));
            let rate = |v: &[f64]| median(v).map_or("-".to_string(), |x| format!("{x:.0}/s"));
            let detail = format!(
                "typed {}, raw rmcp {}, pipe {}",
                rate(&t),
                rate(&r),
                rate(&p)
            );
            let (key, what, target) = match k {
                "1" => (
                    "typed_vs_pipe_throughput_1",
                    "typed / pipe calls/s, 1 in flight",
                    None,
                ),
                "16" => (
                    "typed_vs_pipe_throughput_16",
                    "typed / pipe calls/s, 16 in flight",
                    None,
                ),
                _ => (
                    "typed_vs_pipe_throughput_64",
                    "typed / pipe calls/s, 64 in flight",
                    Some(("≥", 0.9)),
                ),
            };
            rows.push(Row {
                key,
                what,
                value: median_ratio(&t, &p),
                unit: "×",
                target,
                detail,
            });
            if k == "64" {
                rows.push(Row {
                    key: "raw_rmcp_vs_pipe_throughput_64",
                    what: "raw rmcp / pipe calls/s, 64 in flight",
                    value: median_ratio(&r, &p),
                    unit: "×",
                    target: None,
                    detail: String::new(),
                });
            }
        }
    }
    if let Some(expand) = results.get("expand") {
        let slowest_fixture = expand
            .get("fixtures")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(a, v)| {
                Some((
                    a.clone(),
                    v.get("generate_and_format_ms")?.as_f64()?,
                    v.get("tools")?.as_u64()?,
                ))
            })
            .map(|(a, t, n)| format!("{a} {t:.0} ms ({n} tools)"))
            .collect::<Vec<_>>()
            .join(", ");
        rows.push(Row {
            key: "expand_github_official_ms",
            what: "`mcp_tools!` expansion, 117 GitHub tools (generate, unoptimized like the proc macro)",
            value: expand
                .pointer("/github_official/generate_ms")
                .and_then(Value::as_f64),
            unit: "ms",
            target: Some(("≤", 100.0)),
            detail: format!(
                "with prettyplease formatting (`cargo xtask expand`) {:.0} ms; fixtures (generate + format): {slowest_fixture}",
                expand
                    .pointer("/github_official/generate_and_format_ms")
                    .and_then(Value::as_f64)
                    .unwrap_or(f64::NAN)
            ),
        });
    }
    if let Some(expand) = results.get("expand") {
        let release = |p: &str| expand.pointer(p).and_then(Value::as_f64);
        rows.push(Row {
            key: "expand_github_official_release_ms",
            what: "expansion, 117 GitHub tools, optimized build",
            value: release("/github_official/release/generate_ms"),
            unit: "ms",
            target: None,
            detail: format!(
                "what the proc macro costs with `[profile.dev.build-override] opt-level = 3`; with formatting {:.1} ms",
                release("/github_official/release/generate_and_format_ms").unwrap_or(f64::NAN)
            ),
        });
    }
    if let Some(ms) = results
        .get("check")
        .and_then(|c| c.get("macro_expansion_median_ms"))
        .and_then(Value::as_f64)
    {
        rows.push(Row {
            key: "expand_github_official_rustc_ms",
            what: "`mcp_tools!` expansion inside rustc, 117 GitHub tools (`cargo check`)",
            value: Some(ms),
            unit: "ms",
            target: None,
            detail: "reported by the macro itself (`MCP_BINDGEN_TIMINGS=1`), median of 3 builds"
                .to_string(),
        });
    }
    if let Some(check) = results.get("check") {
        rows.push(Row {
            key: "check_overhead_github_official_s",
            what: "extra `cargo check`, crate binding 117 tools",
            value: check.get("overhead_s").and_then(Value::as_f64),
            unit: "s",
            target: Some(("≤", 5.0)),
            detail: format!(
                "with {:.2} s, without {:.2} s (medians of 3)",
                check
                    .get("with_tools_median_s")
                    .and_then(Value::as_f64)
                    .unwrap_or(f64::NAN),
                check
                    .get("without_median_s")
                    .and_then(Value::as_f64)
                    .unwrap_or(f64::NAN)
            ),
        });
    }
    if let Some(snap) = results.get("snapshot") {
        rows.push(Row {
            key: "snapshot_parallel_vs_slowest",
            what: "snapshot, all servers in parallel / slowest alone",
            value: snap.get("ratio").and_then(Value::as_f64),
            unit: "×",
            target: Some(("≤", 1.3)),
            detail: format!(
                "all {:.2} s, slowest ({}) {:.2} s (medians of 3); the parallel run needs {:.1} CPU-s, \
                 so {} cores cannot do better than {:.2}×",
                median(&series(snap, "/parallel_s")).unwrap_or(f64::NAN),
                snap.get("slowest_alias").and_then(Value::as_str).unwrap_or("?"),
                median(&series(snap, "/slowest_single_s")).unwrap_or(f64::NAN),
                median(&series(snap, "/parallel_cpu_s")).unwrap_or(f64::NAN),
                std::thread::available_parallelism().map_or(1, |n| n.get()),
                snap.get("cpu_floor_ratio").and_then(Value::as_f64).unwrap_or(f64::NAN)
            ),
        });
    }
    if let Some(features) = results.get("features") {
        let get = |kind: &str, key: &str| features.pointer(&format!("/{kind}/{key}"))?.as_f64();
        rows.push(Row {
            key: "deps_stdio_only",
            what: "dependencies of a user crate, stdio only (`default-features = false`)",
            value: get("stdio_only", "dependencies"),
            unit: "crates",
            target: None,
            detail: format!(
                "default features (HTTP transports, rustls): {} crates",
                get("default", "dependencies").unwrap_or(f64::NAN)
            ),
        });
        rows.push(Row {
            key: "cold_check_stdio_only_s",
            what: "cold `cargo check` of a user crate, stdio only",
            value: get("stdio_only", "cold_check_s"),
            unit: "s",
            target: None,
            detail: format!(
                "default features: {:.1} s (empty target dir, `--offline`, one run each)",
                get("default", "cold_check_s").unwrap_or(f64::NAN)
            ),
        });
    }
    rows
}

fn fmt_value(v: Option<f64>, unit: &str) -> String {
    match v {
        None => "-".to_string(),
        Some(v) if unit == "×" => format!("{v:.2}×"),
        Some(v) if unit == "ms" => format!("{v:.1} ms"),
        Some(v) if unit == "crates" => format!("{v:.0} crates"),
        Some(v) => format!("{v:.2} {unit}"),
    }
}

fn render_table(rows: &[Row]) -> String {
    let mut out = String::from(
        "| metric | key | value | target | verdict | details |\n|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let target = r
            .target
            .map(|(op, t)| format!("{op} {}", fmt_value(Some(t), r.unit)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "| {} | `{}` | {} | {} | {} | {} |",
            r.what,
            r.key,
            fmt_value(r.value, r.unit),
            target,
            r.verdict(),
            r.detail
        );
    }
    out
}

fn summary_json(rows: &[Row]) -> Map<String, Value> {
    let mut m = Map::new();
    for r in rows {
        m.insert(r.key.to_string(), r.value.map_or(Value::Null, |v| json!(v)));
    }
    m
}

struct Machine {
    lines: String,
    json: Value,
}

fn load_average() -> Option<String> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
}

fn capture(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn machine_facts(load_before: Option<&str>, load_after: Option<&str>) -> Machine {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".to_string());
    let rustc = capture(
        &std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string()),
        &["-V"],
    )
    .unwrap_or_else(|| "unknown".to_string());
    let commit = capture("git", &["describe", "--always", "--dirty"]).unwrap_or_default();
    let before = load_before.unwrap_or("?");
    let after = load_after.unwrap_or("?");
    let lines = format!(
        "machine: {cpus} CPUs ({cpu}); {rustc}; load average (1/5/15 min) {before} before, {after} after; commit {commit}"
    );
    Machine {
        lines,
        json: json!({
            "nproc": cpus,
            "cpu": cpu,
            "rustc": rustc,
            "load_before": before,
            "load_after": after,
            "commit": commit,
        }),
    }
}

fn write_markdown(
    path: &Path,
    table: &str,
    machine: &Machine,
    skipped: &[String],
) -> Result<(), String> {
    let notes = std::fs::read_to_string(path)
        .ok()
        .and_then(|old| old.split_once(NOTES_MARKER).map(|(_, n)| n.to_string()))
        .unwrap_or_else(|| "\n".to_string());
    let m = &machine.json;
    let get = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("?").to_string();
    let mut text = String::new();
    let _ = writeln!(
        text,
        "# Benchmarks\n\nGenerated by `cargo xtask bench` (xtask/src/bench.rs); reproduce with:\n\n\
         ```sh\ncargo xtask bench\n```\n\n\
         Ratios are \"first / second\" and medians of per-round ratios; each round runs every \
         contender once, interleaved. The raw per-round figures are in `target/bench/results.json`.\n"
    );
    let _ = writeln!(
        text,
        "## Machine\n\n| | |\n|---|---|\n| CPUs (nproc) | {} |\n| CPU model | {} |\n| rustc | {} |\n\
         | load average (1/5/15 min) before / after the run | {} / {} |\n| commit | `{}` |\n",
        m.get("nproc").and_then(Value::as_u64).unwrap_or(0),
        get("cpu"),
        get("rustc"),
        get("load_before"),
        get("load_after"),
        get("commit"),
    );
    let _ = writeln!(text, "## Results\n\n{table}");
    if !skipped.is_empty() {
        let _ = writeln!(
            text,
            "Sections skipped in this run: {}.\n",
            skipped.join(", ")
        );
    }
    let _ = writeln!(
        text,
        "## What is measured\n\n\
         * **Calls** (`mcp-bench`, release): one `mcp-demo-server --pipes` child per contender \
         (rmcp's `stdio_pipes()` on the server side), started once, warmed up, then rounds of \
         `add` (small) or `echo_structured` with ≈100 KiB of records (large), sequential calls. \
         Contenders: **typed** — the generated `demo::Client` of `mcp_tools!(\"demo\")` over \
         mcp-runtime; **raw rmcp** — rmcp's `TokioChildProcess` client, `call_tool` with \
         `serde_json` maps; **pipe** — a minimal hand-written JSON-RPC client on the child's \
         stdin/stdout (the transport's floor; it still parses every answer into a \
         `serde_json::Value`); **python** — the official SDK ({PYTHON_SDK}, `stdio_client` + \
         `ClientSession.call_tool`, timed by its own clock). Arguments start from the same \
         pre-built data in each contender's own form; APIs that take them by value (typed, raw \
         rmcp) are handed a clone. All Rust contenders share one current-thread tokio runtime.\n\
         * **Throughput**: small calls with 1, 16 and 64 in flight on one session (typed and raw \
         rmcp: that many concurrent call futures; pipe: a window of that many outstanding requests).\n\
         * **Expansion**: `mcp_codegen::generate` (what `mcp_tools!` runs; the key figure) and \
         generate + prettyplease (`cargo xtask expand`) for the 117 tools of \
         `../shared/corpus/github-official` and each committed fixture, in the unoptimized xtask \
         process (Cargo builds proc macros unoptimized by default), median of 15; the same in \
         the optimized `mcp-bench expand`.\n\
         * **Check overhead**: `cargo check --offline` of a scratch crate with \
         `mcp_tools!(\"github_official\")` minus the same crate without it, after touching \
         `src/main.rs`, dependencies warm, own target dir under `target/bench/check`, median of 3.\n\
         * **Snapshot**: wall time of `cargo xtask snapshot` (the xtask binary, fixtures written \
         under `target/bench`) for every default server at once, against the slowest server \
         alone, 3 rounds.\n\
         * **Features**: a scratch user crate on `mcp-runtime` with default features and with \
         `default-features = false` (stdio only): packages in `cargo tree -e normal,build`, and \
         `cargo check --offline` into an empty target dir, once each.\n"
    );
    text.push_str(NOTES_MARKER);
    text.push_str(&notes);
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_ratios() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median_ratio(&[2.0, 4.0, 9.0], &[1.0, 2.0, 3.0]), Some(2.0));
    }

    #[test]
    fn macro_timing_line_is_found() {
        let log = "warning: x\nmcp_tools!(\"github_official\"): expanded in 61.5 ms\n";
        assert_eq!(macro_expansion_ms(log), Some(61.5));
        assert_eq!(macro_expansion_ms("nothing"), None);
    }

    #[test]
    fn verdicts() {
        let row = |value, target| Row {
            key: "k",
            what: "w",
            value,
            unit: "×",
            target,
            detail: String::new(),
        };
        assert_eq!(row(Some(1.1), Some(("≤", 1.15))).verdict(), "met");
        assert_eq!(row(Some(1.2), Some(("≤", 1.15))).verdict(), "MISSED");
        assert_eq!(row(Some(3.6), Some(("≥", 3.5))).verdict(), "met");
        assert_eq!(row(None, Some(("≥", 3.5))).verdict(), "n/a");
    }
}
