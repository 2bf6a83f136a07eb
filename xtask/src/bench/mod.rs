//! `cargo xtask bench [--smoke] [--skip SECTION…]`: the benchmark suite.
//!
//! One run, contenders side by side, results as medians of per-round ratios:
//!
//! 0. **instructions** — instruction counts of the client side under valgrind's callgrind
//!    (`mcp-bench instructions`, one process per case, set-up not counted, the server a
//!    child process callgrind does not follow): the typed small call and the 100 KiB echo
//!    against raw rmcp and the pipe floor (targets ≤ 1.00× raw rmcp), a toolbox dispatch of
//!    a model's argument text against the same bridge on raw rmcp, the expansion of the 117
//!    GitHub tools against typify alone, and the connect-time review (fingerprints, renames)
//!    against parsing the tool list; machine-independent, so these rows come first;
//! 1. **calls** — the `mcp-bench` binary (package `mcp-bindgen-tests`, built in
//!    release with the demo server) times the typed generated client, raw rmcp, a minimal
//!    hand-written JSON-RPC pipe client and the official Python SDK (installed here into
//!    `target/bench/venv` from `xtask/bench/requirements.txt`) against the same
//!    `mcp-demo-server --pipes`, interleaved per round, small and ≈100 KiB payloads, and
//!    throughput at 1, 16 and 64 calls in flight;
//! 2. **balancer** — the typed client's calls/s through nginx (Debian's, pinned into the
//!    build tree) in front of 3 demo replicas, round-robin, the stateless 2026-07-28
//!    revision over Streamable HTTP, against one replica directly, 64 in flight
//!    (`mcp-bench balancer`);
//! 3. **expand** — `mcp_bindgen_codegen::generate` (the proc macro's work; the key figure, target
//!    ≤ 100 ms) and generate + formatting (`cargo xtask expand`) for the 117 tools of
//!    `tests/corpus/github-official` and for every committed fixture, in this process
//!    (unoptimized, like the proc macro in a normal build); also the line count of that
//!    formatted text (`generated_lines_github_official`, target ≤ 10 000), taken from a timed
//!    run;
//! 4. **check** — the extra `cargo check` seconds of a scratch crate binding those 117 tools
//!    against the same crate without them (own target dir under `target/bench`, the
//!    workspace's `Cargo.lock`, `--offline`, dependencies warmed first, medians of 3): on a
//!    rebuild after an edit with the macro's expansion cache answering
//!    (`check_overhead_github_official_s`, target ≤ 1.0 s) and with it off, and on a first
//!    build of the crate (`check_cold_github_official_s`: the crate's own artifacts cleaned);
//! 5. **snapshot** — `cargo xtask snapshot` of every default server in parallel against the
//!    machine's floor, max(slowest server alone, CPU-seconds of the parallel run / cores)
//!    (`snapshot_parallel_vs_floor`, target ≤ 1.15×), and against the slowest server alone
//!    (informational); wall-clock time of this binary's `snapshot` command, fixtures written
//!    under `target/bench`, never into `fixtures/`;
//! 6. **features** — a user crate binding two servers with default features against the
//!    same program on rmcp's client directly (`cold_check_vs_raw_rmcp`, target ≤ 1.3), and
//!    stdio only: dependency counts (`cargo tree`) and a cold `cargo check` (empty target
//!    dir) each.
//! 7. **install** — a newcomer's first two builds, cold: `cargo install` of the CLI with its
//!    default features (crates compiled, target ≤ 160; CPU seconds; aws-lc must not be
//!    among them) and `cargo xtask demo` in a copy of the checkout (units compiled; crates
//!    the demo's own commands build again after the dev runner's build, target 0).
//!
//! 8. **wasm** — the size of a typed client of the demo server built for
//!    `wasm32-unknown-unknown` (`tests/wasm`), built for size, after `wasm-bindgen` and after
//!    binaryen's `wasm-opt -Oz` (`wasm_client_bytes`, target ≤ 1 MiB).
//!
//! Outputs: a table on stdout, `target/bench/results.json`, and `BENCHMARKS.md` at the
//! workspace root (hand-written notes below its `<!-- notes -->` marker are kept).
//! `--smoke` runs tiny iteration counts, with dev-profile binaries, only to check that every
//! contender works, and the set-up of the sections it does not measure: `check` and
//! `features` write their scratch crates, download what they need (`cargo fetch`, online)
//! and count their dependencies offline; `wasm` installs its pinned tools; `snapshot` and
//! `install` are left to the test command's `snapshot --check` and `demo` stages. It writes
//! `target/bench/results-smoke.json` only.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

mod balancer;
mod calls;
mod check;
mod expand;
mod inputs;
mod instructions;
mod report;
mod row;
mod snapshot;
mod wasm;

use check::{check_overhead, features};
use report::{
    load_average, machine_facts, render_table, summary_json, summary_rows, write_markdown,
};

const USAGE: &str = "usage: cargo xtask bench [--smoke] [--instructions] \
[--skip instructions|calls|balancer|expand|check|snapshot|features|install|wasm]…

  --smoke          tiny iteration counts: only checks that every contender works
  --instructions   the instruction counts alone (callgrind; needs valgrind)
  --skip SECTION   leave a section out (repeatable)";

/// Exact Python SDK pin of the Python contender (the full transitive set is in
/// `xtask/bench/requirements.txt`).
const PYTHON_SDK: &str = "mcp==2.3.0";
/// The Python contender's script, written into `target/bench` at run time.
const PYTHON_CLIENT: &str = include_str!("../../bench/python_client.py");
/// Attempts and per-attempt time-out of the Python SDK download.
const PIP_ATTEMPTS: u32 = 3;
const PIP_TIMEOUT: Duration = Duration::from_secs(300);
/// Marker in `BENCHMARKS.md` after which hand-written notes survive a re-run.
const NOTES_MARKER: &str =
    "<!-- notes: everything below this line is kept by `cargo xtask bench` -->";

const SECTIONS: [&str; 9] = [
    "instructions",
    "calls",
    "balancer",
    "expand",
    "check",
    "snapshot",
    "features",
    "install",
    "wasm",
];

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
            "--instructions" => out.skip.extend(
                SECTIONS
                    .iter()
                    .filter(|s| **s != "instructions")
                    .map(|s| s.to_string()),
            ),
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
        // `snapshot --check` and `cargo xtask demo` are stages of the test command already.
        out.skip.extend(["snapshot", "install"].map(String::from));
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

    if runs("instructions") {
        results.insert(
            "instructions".into(),
            instructions::instructions(&root, &dir, args.smoke)?,
        );
    }
    if runs("calls") {
        results.insert("calls".into(), calls::calls(&root, &dir, args.smoke)?);
    }
    if runs("balancer") {
        results.insert(
            "balancer".into(),
            balancer::balancer(&root, &dir, args.smoke)?,
        );
    }
    if runs("expand") {
        results.insert("expand".into(), expand::expand(&root, &dir, args.smoke)?);
    }
    if runs("check") {
        results.insert("check".into(), check_overhead(&root, &dir, args.smoke)?);
    }
    if runs("snapshot") {
        results.insert("snapshot".into(), snapshot::snapshot(&dir)?);
    }
    if runs("features") {
        results.insert("features".into(), features(&root, &dir, args.smoke)?);
    }
    if runs("install") {
        let install_dir = dir.join("install");
        results.insert(
            "install".into(),
            json!({
                "cli_install": check::cli_install(&root, &install_dir)?,
                "demo": check::demo_cold(&root, &install_dir)?,
            }),
        );
    }
    if runs("wasm") {
        results.insert("wasm".into(), wasm::wasm(&root, &dir, args.smoke)?);
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

#[cfg(test)]
mod tests {
    use super::check::{Expansion, macro_expansion};
    use super::row::Row;
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
        let fresh = Expansion {
            ms: 61.5,
            cached: false,
        };
        assert_eq!(macro_expansion(log), Some(fresh));
        let log = "mcp_tools!(\"github_official\"): expanded in 7.25 ms (cached)\n";
        let cached = Expansion {
            ms: 7.25,
            cached: true,
        };
        assert_eq!(macro_expansion(log), Some(cached));
        assert_eq!(macro_expansion("nothing"), None);
    }

    #[test]
    fn snapshot_floor_is_the_larger_bound() {
        // Round 1: CPU-bound (4.2 CPU-s on 2 cores > 0.9 s); round 2: the slowest server.
        let floor = snapshot::machine_floor(&[0.9, 1.5], &[4.2, 2.0], 2.0);
        assert_eq!(floor, vec![2.1, 1.5]);
    }

    #[test]
    fn new_summary_keys() {
        let results: Map<String, Value> = serde_json::from_value(json!({
            "expand": {
                "github_official": { "generate_ms": 80.0, "generated_lines": 12345 },
                "fixtures": { "demo": { "generated_lines": 700 } },
            },
            "snapshot": {
                "parallel_s": [2.2], "floor_s": [2.1], "slowest_single_s": [0.9],
                "parallel_cpu_s": [4.2], "ratio": 2.44, "ratio_vs_floor": 1.05,
                "cpu_floor_ratio": 2.33, "slowest_alias": "fetch",
            },
        }))
        .unwrap();
        let rows = summary_rows(&results);
        let row = |k: &str| rows.iter().find(|r| r.key == k).expect(k);
        let lines = row("generated_lines_github_official");
        assert_eq!(lines.value, Some(12345.0));
        assert_eq!(lines.verdict(), "MISSED");
        assert!(lines.detail.contains("demo 700"), "{}", lines.detail);
        assert_eq!(report::fmt_value(lines.value, lines.unit), "12345 lines");
        assert_eq!(row("expand_github_official_ms").verdict(), "met");
        assert_eq!(row("snapshot_parallel_vs_floor").verdict(), "met");
        assert_eq!(row("snapshot_parallel_vs_slowest").verdict(), "");
        let json = summary_json(&rows);
        assert_eq!(json["generated_lines_github_official"], json!(12345.0));
        assert_eq!(json["snapshot_parallel_vs_floor"], json!(1.05));
    }

    #[test]
    fn a_partial_run_keeps_the_other_rows_of_the_last_table() {
        let old = "# Benchmarks\n\n| commit | `abc1234` |\n\n## Results\n\n\
                   | metric | key | value | target | verdict | details |\n|---|---|---|---|---|---|\n\
                   | a | `kept` | 1.00× |  |  | detail |\n\
                   | b | `fresh` | 2.00× |  |  |  |\n\
                   | c | `older` | 3.00× |  |  | x (run of `0ld0ld0`) |\n\nSections skipped\n";
        let table = "| metric | key | value | target | verdict | details |\n|---|---|---|---|---|---|\n\
                     | b | `fresh` | 2.50× |  |  |  |\n";
        let carried = report::carried_rows(old, table);
        assert_eq!(
            carried,
            "| a | `kept` | 1.00× |  |  | detail (run of `abc1234`) |\n\
             | c | `older` | 3.00× |  |  | x (run of `0ld0ld0`) |\n"
        );
        assert_eq!(report::carried_rows("no table", table), "");
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
