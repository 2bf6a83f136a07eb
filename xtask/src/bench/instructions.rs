//! Section `instructions`: instruction counts (valgrind's callgrind) of the client side,
//! which do not move with the machine's load.
//!
//! Each case of `mcp-bench instructions` runs in its own process under
//! `valgrind --tool=callgrind --collect-atstart=no --toggle-collect=mcp_bench_measured
//! --trace-children=no`: set-up and warm-up are not counted, the server is a child process
//! callgrind does not follow, and everything the client does runs on the one counted thread
//! (a current-thread tokio runtime; the generator's cases run on one core, see below). A
//! case's figure is callgrind's total divided by its
//! calls (or runs). Contenders of one comparison run in the same harness, the same binary.
//! The callgrind files stay in `target/bench/callgrind` for `callgrind_annotate`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::inputs::build_binaries;
use super::row::Row;
use crate::process::run_command;

/// The cases and their calls (or runs) per measurement: (name, full run, smoke run).
const CASES: [(&str, usize, usize); 15] = [
    ("typed_small", 500, 3),
    ("raw_rmcp_small", 500, 3),
    ("pipe_small", 500, 3),
    ("typed_large", 10, 1),
    ("raw_rmcp_large", 10, 1),
    ("pipe_large", 10, 1),
    ("typed_inflight64", 2048, 64),
    ("raw_rmcp_inflight64", 2048, 64),
    ("pipe_inflight64", 2048, 64),
    ("dispatch_small", 500, 3),
    ("raw_rmcp_json_small", 500, 3),
    ("expand_github", 3, 1),
    ("typify_github", 3, 1),
    ("review_github", 20, 1),
    ("parse_github", 20, 1),
];

/// Measurements of each case in a full run (the median is reported; a smoke run takes one).
const RUNS: usize = 3;

/// valgrind, or why not: the instruction counts need it.
fn valgrind() -> Result<PathBuf, String> {
    let program = std::env::var_os("VALGRIND")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("valgrind"));
    let mut cmd = Command::new(&program);
    cmd.arg("--version");
    match run_command(&mut cmd, Duration::from_secs(30)) {
        Ok(out) if out.stdout.iter().any(|l| l.starts_with("valgrind-")) => Ok(program),
        _ => Err(format!(
            "the instruction counts run under valgrind, and `{} --version` does not answer: \
             install it (Debian/Ubuntu: `apt-get install valgrind`) or point VALGRIND at it; \
             `--skip instructions` leaves the section out",
            program.display()
        )),
    }
}

/// The instruction total of a callgrind output file (its `summary:` or `totals:` line).
pub(super) fn callgrind_total(text: &str) -> Option<u64> {
    text.lines()
        .filter_map(|l| {
            l.strip_prefix("summary:")
                .or_else(|| l.strip_prefix("totals:"))
        })
        .find_map(|rest| rest.split_whitespace().next()?.parse().ok())
}

pub(super) fn instructions(root: &Path, dir: &Path, smoke: bool) -> Result<Value, String> {
    let valgrind = valgrind()?;
    let (server, bench) = build_binaries(smoke)?;
    let out_dir = dir.join(if smoke {
        "callgrind-smoke"
    } else {
        "callgrind"
    });
    std::fs::create_dir_all(&out_dir)
        .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    // The smoke run (dev build) expands the demo fixture: the GitHub corpus takes a minute
    // unoptimized under callgrind, and a smoke run reports no figures.
    let corpus = if smoke {
        root.join("fixtures").join("demo.json")
    } else {
        root.join(crate::GITHUB_CORPUS)
    };
    let demo = root.join("fixtures").join("demo.json");
    let runs = if smoke { 1 } else { RUNS };
    let mut out = Map::new();
    for (case, full, small) in CASES {
        let calls = if smoke { small } else { full };
        let mut totals = Vec::new();
        let mut unit = String::new();
        for run in 0..runs {
            let file = out_dir.join(format!("{case}.{run}.out"));
            let _ = std::fs::remove_file(&file);
            // The generator works on one thread per core, and callgrind counts only the
            // thread that entered the measured function: on one core (`taskset`, which
            // `available_parallelism` follows) all of an expansion's work is on that thread.
            let mut cmd = if case.ends_with("_github") {
                let mut cmd = Command::new("taskset");
                cmd.args(["--cpu-list", "0"]).arg(&valgrind);
                cmd
            } else {
                Command::new(&valgrind)
            };
            cmd.args([
                "--tool=callgrind",
                "--trace-children=no",
                "--collect-atstart=no",
                "--toggle-collect=mcp_bench_measured",
            ])
            .arg(format!("--callgrind-out-file={}", file.display()))
            .arg(&bench)
            .args(["instructions", case, &calls.to_string(), "--server"])
            .arg(&server)
            .arg("--fixture")
            .arg(&corpus)
            .arg("--demo-fixture")
            .arg(&demo)
            .args(["--warmup", if smoke { "1" } else { "20" }]);
            let output = run_command(&mut cmd, Duration::from_secs(600))?;
            let report: Value = output
                .stdout
                .iter()
                .rev()
                .find_map(|l| serde_json::from_str(l).ok())
                .ok_or_else(|| format!("mcp-bench instructions {case} printed no JSON report"))?;
            unit = report["unit"].as_str().unwrap_or("call").to_string();
            let text = std::fs::read_to_string(&file)
                .map_err(|e| format!("callgrind wrote no {}: {e}", file.display()))?;
            let total = callgrind_total(&text)
                .ok_or_else(|| format!("{}: no instruction total", file.display()))?;
            if total == 0 {
                return Err(format!(
                    "callgrind counted nothing for {case}: the measured function \
                     `mcp_bench_measured` was not found in {}",
                    bench.display()
                ));
            }
            totals.push(total as f64);
        }
        let per_unit: Vec<f64> = totals.iter().map(|t| t / calls as f64).collect();
        let spread = match (
            per_unit.iter().copied().reduce(f64::min),
            per_unit.iter().copied().reduce(f64::max),
        ) {
            (Some(lo), Some(hi)) if lo > 0.0 => hi / lo - 1.0,
            _ => 0.0,
        };
        eprintln!(
            "bench: instructions {case}: {:.0} per {unit} ({calls} per run, {runs} runs, spread {:.2} %)",
            super::median(&per_unit).unwrap_or(0.0),
            spread * 100.0
        );
        out.insert(
            case.to_string(),
            json!({
                "calls": calls,
                "unit": unit,
                "per_unit": per_unit,
                "spread": spread,
            }),
        );
    }
    out.insert(
        "profile".into(),
        json!(if smoke { "dev" } else { "release" }),
    );
    Ok(Value::Object(out))
}

/// The summary rows of the section, machine-independent, so first in the table.
pub(super) fn rows(section: &Value) -> Vec<Row> {
    let per = |case: &str| super::median(&super::series(section, &format!("/{case}/per_unit")));
    let ratio = |a: &str, b: &str| Some(per(a)? / per(b)?);
    let count = |case: &str| {
        per(case).map_or("-".to_string(), |v| {
            if v >= 1e6 {
                format!("{:.2} M", v / 1e6)
            } else {
                format!("{:.1} k", v / 1e3)
            }
        })
    };
    let profile = section["profile"].as_str().unwrap_or("release");
    let calls = |kind: &str| {
        format!(
            "instructions per call ({profile}): typed {}, raw rmcp {}, pipe {}",
            count(&format!("typed_{kind}")),
            count(&format!("raw_rmcp_{kind}")),
            count(&format!("pipe_{kind}"))
        )
    };
    let row = |key, what, value, target, detail| Row {
        key,
        what,
        value,
        unit: "×",
        target,
        detail,
    };
    vec![
        row(
            "instr_typed_vs_raw_rmcp",
            "instructions, typed / raw rmcp, small call",
            ratio("typed_small", "raw_rmcp_small"),
            Some(("≤", 1.0)),
            calls("small"),
        ),
        row(
            "instr_typed_vs_pipe",
            "instructions, typed / pipe floor, small call",
            ratio("typed_small", "pipe_small"),
            None,
            String::new(),
        ),
        row(
            "instr_typed_vs_raw_rmcp_large",
            "instructions, typed / raw rmcp, 100 KiB echo",
            ratio("typed_large", "raw_rmcp_large"),
            Some(("≤", 1.0)),
            calls("large"),
        ),
        row(
            "instr_typed_vs_pipe_large",
            "instructions, typed / pipe floor, 100 KiB echo",
            ratio("typed_large", "pipe_large"),
            None,
            String::new(),
        ),
        row(
            "instr_typed_vs_raw_rmcp_inflight64",
            "instructions, typed / raw rmcp, small calls with 64 in flight",
            ratio("typed_inflight64", "raw_rmcp_inflight64"),
            None,
            calls("inflight64"),
        ),
        row(
            "instr_typed_vs_pipe_inflight64",
            "instructions, typed / pipe floor, small calls with 64 in flight",
            ratio("typed_inflight64", "pipe_inflight64"),
            None,
            String::new(),
        ),
        row(
            "instr_dispatch_vs_raw_rmcp",
            "instructions, toolbox dispatch / the same untyped bridge on raw rmcp, small call",
            ratio("dispatch_small", "raw_rmcp_json_small"),
            None,
            format!(
                "the model's argument text to the text it reads; per call: toolbox {}, raw rmcp {}",
                count("dispatch_small"),
                count("raw_rmcp_json_small")
            ),
        ),
        row(
            "instr_expand_vs_typify",
            "instructions, `mcp_tools!`'s generate / typify alone, 117 GitHub tools",
            ratio("expand_github", "typify_github"),
            None,
            format!(
                "per expansion: generate + tokens {}, typify alone on the raw input schemas \
                 {} (one type space per tool; the tools typify accepts as they are)",
                count("expand_github"),
                count("typify_github")
            ),
        ),
        row(
            "instr_review_vs_parse",
            "instructions, connect-time review / parsing the tool list, 117 GitHub tools",
            ratio("review_github", "parse_github"),
            None,
            format!(
                "fingerprints of every live tool compared with the fixture's, renames looked \
                 for: {}; `serde_json` parse of the `tools/list` result: {}",
                count("review_github"),
                count("parse_github")
            ),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_total_comes_from_summary_or_totals() {
        let file = "version: 1\ncreator: callgrind-3.19.0\nevents: Ir\nfl=(1) x\n0 5\nsummary: 1234\n\ntotals: 1234\n";
        assert_eq!(callgrind_total(file), Some(1234));
        assert_eq!(callgrind_total("totals: 77\n"), Some(77));
        assert_eq!(callgrind_total("events: Ir\n"), None);
    }
}
