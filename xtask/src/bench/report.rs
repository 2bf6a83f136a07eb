//! The summary: rows with targets and verdicts, the table, `results.json` and
//! `BENCHMARKS.md`.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use serde_json::{Map, Value, json};

use super::row::Row;
use super::*;

pub(super) fn summary_rows(results: &Map<String, Value>) -> Vec<Row> {
    let mut rows = Vec::new();
    if let Some(section) = results.get("instructions") {
        rows.extend(super::instructions::rows(section));
    }
    let balancer = results.get("balancer").map(super::balancer::rows);
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
            let (t, r, p, bare) = (th("typed"), th("raw_rmcp"), th("pipe"), th("bare_pipe"));
            let rate = |v: &[f64]| median(v).map_or("-".to_string(), |x| format!("{x:.0}/s"));
            let mut detail = format!(
                "typed {}, raw rmcp {}, pipe {}",
                rate(&t),
                rate(&r),
                rate(&p)
            );
            if !bare.is_empty() {
                let _ = write!(detail, ", bare pipe {}", rate(&bare));
            }
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
                if !bare.is_empty() {
                    rows.push(Row {
                        key: "typed_vs_bare_pipe_throughput_64",
                        what: "typed / bare pipe calls/s, 64 in flight (the bare pipe sends no \
                               progress token and declares no capability)",
                        value: median_ratio(&t, &bare),
                        unit: "×",
                        target: None,
                        detail: String::new(),
                    });
                    rows.push(Row {
                        key: "pipe_vs_bare_pipe_throughput_64",
                        what: "pipe / bare pipe calls/s, 64 in flight: what the server's \
                               handling of the typed client's requests costs",
                        value: median_ratio(&p, &bare),
                        unit: "×",
                        target: None,
                        detail: String::new(),
                    });
                }
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
        let at = |p: &str| expand.pointer(p).and_then(Value::as_f64);
        let per_100 = match (
            at("/github_official/release/fingerprint_check_ms"),
            at("/github_official/release/tools"),
        ) {
            (Some(ms), Some(tools)) if tools > 0.0 => Some(ms / tools * 100.0),
            _ => None,
        };
        rows.push(Row {
            key: "fingerprint_check_per_100_tools_ms",
            what: "a toolbox's connect-time review: the live tools' fingerprints (RFC 8785 canonical JSON, SHA-256) compared with the fixture's, per 100 tools (117 GitHub tools, optimized build)",
            value: per_100,
            unit: "ms",
            target: Some(("≤", 1.0)),
            detail: format!(
                "all 117 tools: {:.3} ms (renames looked for too)",
                at("/github_official/release/fingerprint_check_ms").unwrap_or(f64::NAN)
            ),
        });
    }
    if let Some(tokens) = results
        .get("expand")
        .and_then(|e| e.pointer("/github_official/tokens"))
    {
        let formats = tokens.get("formats").and_then(Value::as_object);
        let per_format = formats
            .into_iter()
            .flatten()
            .map(|(f, v)| {
                format!(
                    "{f} {} → {}",
                    v["full"].as_u64().unwrap_or(0),
                    v["compact"].as_u64().unwrap_or(0)
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        let largest = |key: &str| {
            formats
                .into_iter()
                .flatten()
                .filter_map(|(_, v)| v[key].as_f64())
                .fold(None, |m: Option<f64>, r| Some(m.map_or(r, |m| m.max(r))))
        };
        rows.push(Row {
            key: "compact_vs_full_tokens_github_official",
            what: "tokens of the compact export / the full export, 117 GitHub tools (largest over the formats)",
            value: largest("ratio"),
            unit: "×",
            target: None,
            detail: format!(
                "lossless for the model (every value valid under the full schema stays valid, dispatch validates against the full one); o200k_base tokens, full → compact: {per_format}"
            ),
        });
        let per_format_skeleton = formats
            .into_iter()
            .flatten()
            .map(|(f, v)| format!("{f} {}", v["skeleton"].as_u64().unwrap_or(0)))
            .collect::<Vec<_>>()
            .join(", ");
        rows.push(Row {
            key: "skeleton_vs_full_tokens_github_official",
            what: "tokens with every schema constraint removed too / the full export, 117 GitHub tools (largest over the formats): the floor of any compaction that keeps descriptions",
            value: largest("skeleton_ratio"),
            unit: "×",
            target: None,
            detail: format!(
                "not an export (it loses bounds, patterns, formats, defaults): only names, types, enums, required, items, unions and descriptions kept; o200k_base tokens: {per_format_skeleton}"
            ),
        });
        rows.push(Row {
            key: "progressive_upfront_tokens_github_official",
            what: "tokens exported up front with progressive discovery, 117 GitHub tools",
            value: tokens.get("progressive_upfront").and_then(Value::as_f64),
            unit: "tokens",
            target: Some(("≤", 2000.0)),
            detail: "`search_tools` + `load_tools` as OpenAI functions, before any tool is loaded"
                .into(),
        });
    }
    if let Some(expand) = results.get("expand") {
        let at = |p: &str| expand.pointer(p).and_then(Value::as_f64);
        rows.push(Row {
            key: "expand_tokens_github_official_ms",
            what: "`mcp_tools!(…, tokens = true)` expansion, 117 GitHub tools (generate with token counts, unoptimized)",
            value: at("/github_official/generate_with_tokens_ms"),
            unit: "ms",
            target: Some(("≤", 100.0)),
            detail: format!(
                "loading the o200k_base encoding, once per process: {:.0} ms",
                at("/github_official/encoding_load_ms").unwrap_or(f64::NAN)
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
    if let Some(expand) = results.get("expand") {
        let fixture_lines = expand
            .get("fixtures")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(a, v)| Some(format!("{a} {}", v.get("generated_lines")?.as_u64()?)))
            .collect::<Vec<_>>()
            .join(", ");
        rows.push(Row {
            key: "generated_lines_github_official",
            what: "lines of `cargo xtask expand` output, 117 GitHub tools",
            value: expand
                .pointer("/github_official/generated_lines")
                .and_then(Value::as_f64),
            unit: "lines",
            target: Some(("≤", 10_000.0)),
            detail: format!("prettyplease text of `generate`; fixtures: {fixture_lines}"),
        });
    }
    if let Some(check) = results.get("check") {
        let at = |p: &str| check.pointer(p).and_then(Value::as_f64);
        rows.push(Row {
            key: "expand_github_official_cached_ms",
            what: "`mcp_tools!` expansion inside rustc on a rebuild, 117 GitHub tools (expansion cache)",
            value: at("/cached/macro_expansion_median_ms"),
            unit: "ms",
            target: Some(("≤", 100.0)),
            detail: "reported by the macro itself (`MCP_BINDGEN_TIMINGS=1`), median of 3 `cargo check`s after a touch"
                .to_string(),
        });
        rows.push(Row {
            key: "expand_github_official_rustc_ms",
            what: "`mcp_tools!` expansion inside rustc when it generates, 117 GitHub tools (`cargo check`)",
            value: at("/uncached/macro_expansion_median_ms"),
            unit: "ms",
            target: None,
            detail: "the same with the cache off (`MCP_BINDGEN_CACHE=0`): a first build, or one after the fixture or mcp-bindgen changed"
                .to_string(),
        });
        rows.push(Row {
            key: "check_overhead_github_official_s",
            what: "extra `cargo check` on a rebuild, crate binding 117 tools (`tokens = true`)",
            value: at("/cached/overhead_s"),
            unit: "s",
            target: Some(("≤", 1.0)),
            detail: format!(
                "with {:.2} s, without {:.2} s (medians of 3, expansion cache answering); without the cache: overhead {:.2} s (with {:.2} s)",
                at("/cached/with_tools_median_s").unwrap_or(f64::NAN),
                at("/cached/without_median_s").unwrap_or(f64::NAN),
                at("/uncached/overhead_s").unwrap_or(f64::NAN),
                at("/uncached/with_tools_median_s").unwrap_or(f64::NAN),
            ),
        });
    }
    if let Some(check) = results.get("check") {
        let at = |p: &str| check.pointer(p).and_then(Value::as_f64);
        rows.push(Row {
            key: "check_cold_github_official_s",
            what: "extra `cargo check` on a first build of the crate binding 117 tools",
            value: at("/cold/overhead_s"),
            unit: "s",
            target: None,
            detail: format!(
                "the crate's own artifacts and incremental state removed, dependencies built, expansion cache off: with {:.2} s, without {:.2} s (medians of 3)",
                at("/cold/with_tools_median_s").unwrap_or(f64::NAN),
                at("/cold/without_median_s").unwrap_or(f64::NAN),
            ),
        });
    }
    if let Some(snap) = results.get("snapshot") {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let med = |p: &str| median(&series(snap, p)).unwrap_or(f64::NAN);
        rows.push(Row {
            key: "snapshot_parallel_vs_floor",
            what: "snapshot, all servers in parallel / the machine's floor",
            value: snap.get("ratio_vs_floor").and_then(Value::as_f64),
            unit: "×",
            target: Some(("≤", 1.15)),
            detail: format!(
                "all {:.2} s, floor {:.2} s = max(slowest alone, CPU-s / {cpus} cores) (medians of 3)",
                med("/parallel_s"),
                med("/floor_s"),
            ),
        });
        rows.push(Row {
            key: "snapshot_parallel_vs_slowest",
            what: "snapshot, all servers in parallel / slowest alone",
            value: snap.get("ratio").and_then(Value::as_f64),
            unit: "×",
            target: None,
            detail: format!(
                "all {:.2} s, slowest ({}) {:.2} s (medians of 3); the parallel run needs {:.1} CPU-s, \
                 so {cpus} cores cannot do better than {:.2}×",
                med("/parallel_s"),
                snap.get("slowest_alias").and_then(Value::as_str).unwrap_or("?"),
                med("/slowest_single_s"),
                med("/parallel_cpu_s"),
                snap.get("cpu_floor_ratio").and_then(Value::as_f64).unwrap_or(f64::NAN)
            ),
        });
    }
    if let Some(wasm) = results.get("wasm") {
        let bytes = |k: &str| wasm.get(k).and_then(Value::as_f64);
        let kib = |k: &str| bytes(k).map_or("-".to_string(), |b| format!("{:.0} KiB", b / 1024.0));
        rows.push(Row {
            key: "wasm_client_bytes",
            what: "a typed client of the demo server for wasm32-unknown-unknown, after `wasm-opt -Oz`",
            value: bytes("opt_bytes").map(|b| b / 1_048_576.0),
            unit: "MiB",
            target: Some(("≤", 1.0)),
            detail: format!(
                "release for size: {} from rustc, {} after wasm-bindgen, {} after wasm-opt",
                kib("raw_bytes"),
                kib("bindgen_bytes"),
                kib("opt_bytes")
            ),
        });
    }
    if let Some(features) = results.get("features") {
        let get = |kind: &str, key: &str| features.pointer(&format!("/{kind}/{key}"))?.as_f64();
        let ratio = match (
            get("default", "cold_check_s"),
            get("raw_rmcp", "cold_check_s"),
        ) {
            (Some(ours), Some(raw)) if raw > 0.0 => Some(ours / raw),
            _ => None,
        };
        rows.push(Row {
            key: "cold_check_vs_raw_rmcp",
            what: "cold `cargo check` of a two-server user crate, default features / the same program on rmcp's client",
            value: ratio,
            unit: "×",
            target: Some(("≤", 1.3)),
            detail: format!(
                "mcp-bindgen {:.1} s ({} crates, 117 + 8 tools bound), raw rmcp {:.1} s ({} crates: `client`, child process, Streamable HTTP, rmcp's `reqwest` TLS); empty target dirs, `--offline`, one run each",
                get("default", "cold_check_s").unwrap_or(f64::NAN),
                get("default", "dependencies").unwrap_or(f64::NAN),
                get("raw_rmcp", "cold_check_s").unwrap_or(f64::NAN),
                get("raw_rmcp", "dependencies").unwrap_or(f64::NAN),
            ),
        });
        rows.push(Row {
            key: "deps_default",
            what: "dependencies of the two-server user crate, default features",
            value: get("default", "dependencies"),
            unit: "crates",
            target: None,
            detail: format!(
                "stdio only (`default-features = false, features = [\"macros\"]`): {} crates",
                get("stdio_only", "dependencies").unwrap_or(f64::NAN)
            ),
        });
        rows.push(Row {
            key: "cold_check_stdio_only_s",
            what: "cold `cargo check` of the two-server user crate, stdio only",
            value: get("stdio_only", "cold_check_s"),
            unit: "s",
            target: None,
            detail: "empty target dir, `--offline`, one run".to_string(),
        });
    }
    if let Some(install) = results.get("install") {
        let get = |key: &str| install.pointer(&format!("/cli_install/{key}"));
        let twice = |section: &str| {
            install
                .pointer(&format!("/{section}/built_twice"))
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "none".to_string())
        };
        rows.push(Row {
                key: "cli_install_crates",
                what: "crates a cold `cargo install mcp-bindgen-cli` compiles (default features)",
                value: get("crates").and_then(Value::as_f64),
                unit: "crates",
                target: Some(("≤", 160.0)),
                detail: format!(
                    "{:.0} CPU s, {:.0} s wall, aws-lc (C): {}; `--locked --offline`, release, empty target dir, one run",
                    get("cpu_s").and_then(Value::as_f64).unwrap_or(f64::NAN),
                    get("cold_install_s").and_then(Value::as_f64).unwrap_or(f64::NAN),
                    match get("aws_lc").and_then(Value::as_bool) {
                        Some(true) => "BUILT",
                        Some(false) => "none",
                        None => "-",
                    }
                ),
            });
        rows.push(Row {
            key: "cli_install_cpu_s",
            what: "CPU seconds of that cold `cargo install` (every compiler process)",
            value: get("cpu_s").and_then(Value::as_f64),
            unit: "s",
            target: None,
            detail: "user + system time of cargo's children".to_string(),
        });
        let demo = |key: &str| install.pointer(&format!("/demo/{key}"))?.as_f64();
        rows.push(Row {
                key: "demo_cold_units",
                what: "units a cold `cargo xtask demo` compiles (dev runner, demo server, quickstart)",
                value: demo("units"),
                unit: "units",
                target: None,
                detail: format!(
                    "{:.0} crates, {:.0} CPU s, {:.0} s wall; a copy of the checkout, empty target dir, one run",
                    demo("crates").unwrap_or(f64::NAN),
                    demo("cpu_s").unwrap_or(f64::NAN),
                    demo("cold_demo_s").unwrap_or(f64::NAN)
                ),
            });
        rows.push(Row {
                key: "demo_crates_built_twice",
                what: "crates the demo's own commands compile again after the dev runner's build",
                value: install
                    .pointer("/demo/built_twice")
                    .and_then(Value::as_array)
                    .map(|a| a.len() as f64),
                unit: "crates",
                target: Some(("≤", 0.0)),
                detail: format!(
                    "{}; within one build, once for proc macros and once for the program (resolver 2): {}",
                    twice("demo"),
                    install
                        .pointer("/demo/host_target_splits")
                        .and_then(Value::as_array)
                        .map_or(0, Vec::len)
                ),
            });
    }
    rows.extend(balancer.into_iter().flatten());
    rows
}

pub(super) fn fmt_value(v: Option<f64>, unit: &str) -> String {
    match v {
        None => "-".to_string(),
        Some(v) if unit == "×" => format!("{v:.2}×"),
        Some(v) if unit == "ms" => format!("{v:.1} ms"),
        Some(v) if unit == "crates" || unit == "lines" || unit == "units" => {
            format!("{v:.0} {unit}")
        }
        Some(v) => format!("{v:.2} {unit}"),
    }
}

pub(super) fn render_table(rows: &[Row]) -> String {
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

pub(super) fn summary_json(rows: &[Row]) -> Map<String, Value> {
    let mut m = Map::new();
    for r in rows {
        m.insert(r.key.to_string(), r.value.map_or(Value::Null, |v| json!(v)));
    }
    m
}

pub(super) struct Machine {
    pub(super) lines: String,
    pub(super) json: Value,
}

pub(super) fn load_average() -> Option<String> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
}

pub(super) fn capture(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

pub(super) fn machine_facts(load_before: Option<&str>, load_after: Option<&str>) -> Machine {
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

/// The rows of the results table in `old` (a previous `BENCHMARKS.md`) whose keys `table`
/// lacks, each naming the commit of the run that measured it: what a partial run keeps.
pub(super) fn carried_rows(old: &str, table: &str) -> String {
    let key = |line: &str| -> Option<String> {
        let cell = line.split('|').nth(2)?.trim();
        Some(cell.strip_prefix('`')?.strip_suffix('`')?.to_string())
    };
    let fresh: std::collections::BTreeSet<String> = table.lines().filter_map(key).collect();
    let commit = old
        .lines()
        .find_map(|l| l.strip_prefix("| commit | `")?.split('`').next())
        .unwrap_or("?");
    let Some((_, results)) = old.split_once("## Results\n") else {
        return String::new();
    };
    let mut out = String::new();
    for line in results.lines().skip_while(|l| !l.starts_with('|')) {
        if !line.starts_with('|') {
            break;
        }
        let Some(k) = key(line) else { continue };
        if fresh.contains(&k) {
            continue;
        }
        let line = line.trim_end().trim_end_matches('|').trim_end();
        if line.ends_with(')') && line.contains("(run of `") {
            let _ = writeln!(out, "{line} |");
        } else {
            let _ = writeln!(out, "{line} (run of `{commit}`) |");
        }
    }
    out
}

pub(super) fn write_markdown(
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
        "# Benchmarks\n\nGenerated by `cargo xtask bench` (xtask/src/bench/); reproduce with:\n\n\
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
    let old = std::fs::read_to_string(path).unwrap_or_default();
    let carried = if skipped.is_empty() {
        String::new()
    } else {
        carried_rows(&old, table)
    };
    // Machine-independent rows (instruction counts) first, whichever run measured them.
    let (first, rest): (Vec<&str>, Vec<&str>) =
        carried.lines().partition(|l| l.contains("| `instr_"));
    let mut lines = table.lines();
    let header: Vec<&str> = lines.by_ref().take(2).collect();
    let mut merged = String::new();
    for line in header.into_iter().chain(first).chain(lines).chain(rest) {
        let _ = writeln!(merged, "{line}");
    }
    let _ = writeln!(text, "## Results\n\n{merged}");
    if !skipped.is_empty() {
        let _ = writeln!(
            text,
            "Sections skipped in this run: {}. Their rows, when an earlier run wrote them, are \
             kept from that run and name its commit.\n",
            skipped.join(", ")
        );
    }
    let _ = writeln!(
        text,
        "## What is measured\n\n\
         * **Instructions** (`cargo xtask bench --instructions`; valgrind's callgrind, release `mcp-bench`): each case in its own process under `valgrind --tool=callgrind --collect-atstart=no --toggle-collect=mcp_bench_measured --trace-children=no`, so set-up and warm-up (20 calls) are not counted and the server, a child process, is not followed; the client runs on one current-thread tokio runtime, so all of its work is on the counted thread (the generator's cases run under `taskset --cpu-list 0`, since it spreads tools over one thread per core). Figures are callgrind's total / calls (500 small calls, 10 large ones, 3 expansions, 20 reviews), median of 3 processes; their spread is in `results.json` (≤ 0.5 % so far). The same contenders as **Calls** (raw rmcp and the pipe in the same binary); a toolbox dispatch (`Toolbox::call` with the model's argument text `{{\"a\": 40, \"b\": 2}}`, reviewed against `fixtures/demo.json`) against the same untyped bridge on raw rmcp (the text parsed into a map, `call_tool`, the text blocks joined); `mcp_bindgen_codegen::generate` + its token stream for the 117 GitHub tools against typify 0.8 alone on each tool's raw input schema (one type space per tool, the tools it accepts as they are: 115 of 117); the connect-time review (fingerprints, renames) against `serde_json` parsing the `tools/list` result. The callgrind files stay in `target/bench/callgrind` (`callgrind_annotate` shows where the instructions go). Instruction counts do not move with the machine's load; they do with the compiler, the libc and the CPU's feature set (memcpy's variant).\n\
         * **Calls** (`mcp-bench`, release): one `mcp-demo-server --pipes` child per contender \
         (rmcp's `stdio_pipes()` on the server side), started once, warmed up, then rounds of \
         `add` (small) or `echo_structured` with ≈100 KiB of records (large), sequential calls. \
         Contenders: **typed** — the generated `demo::Client` of `mcp_tools!(\"demo\")` over \
         mcp-bindgen; **raw rmcp** — rmcp's `TokioChildProcess` client, `call_tool` with \
         `serde_json` maps; **pipe** — a minimal hand-written JSON-RPC client on the child's \
         stdin/stdout (the transport's floor; it still parses every answer into a \
         `serde_json::Value`). It writes the requests the typed client writes (protocol \
         revision, capabilities, ids from 2^40, `_meta.progressToken` on every `tools/call`), \
         so the server does the same work for both and a ratio measures the clients; \
         **bare pipe** (throughput only) — the same client with the barest requests (no token, \
         no capability), which shows what the server's handling of those costs; **python** — the official SDK ({PYTHON_SDK}, `stdio_client` + \
         `ClientSession.call_tool`, timed by its own clock). Arguments start from the same \
         pre-built data in each contender's own form; APIs that take them by value (typed, raw \
         rmcp) are handed a clone. All Rust contenders share one current-thread tokio runtime.\n\
         * **Balancer** (`mcp-bench balancer`, release): 3 `mcp-demo-server --transport http` replicas behind nginx (Debian's 1.22.1 package, pinned and unpacked into the build tree; one process, round-robin, no affinity, upstream keepalive, no buffering), and the typed client of the demo server on the stateless 2026-07-28 revision over Streamable HTTP, 64 small calls in flight: calls/s through nginx against one replica directly, rounds interleaved, median of 9 per-round ratios; every replica must have answered (nginx's log of `$upstream_addr`). On a 2-core machine the client, nginx and the replicas share the cores: the ratio is what the balancer's hop costs there, not what 3 machines would gain.\n\
         * **Throughput**: small calls with 1, 16 and 64 in flight on one session (typed and raw \
         rmcp: that many concurrent call futures; pipe: a window of that many outstanding \
         requests), 4 096 calls per round, median of 31 per-round ratios.\n\
         * **Expansion**: `mcp_bindgen_codegen::generate` (what `mcp_tools!` runs; the key figure) and \
         generate + prettyplease (`cargo xtask expand`) for the 117 tools of \
         `tests/corpus/github-official` and each committed fixture, in the unoptimized xtask \
         process (Cargo builds proc macros unoptimized by default), median of 15; the same in \
         the optimized `mcp-bench expand`. Generated lines: the line count of that \
         prettyplease text (what `cargo xtask expand` prints), taken from the last timed run. \
         With `tokens`: the same `generate` counting each tool's tokens (the encoding loaded \
         before the timed runs; its load is reported beside). The connect-time review: in \
         `mcp-bench expand`, every tool's fingerprint (`mcp_bindgen_core::fingerprint`, what a \
         toolbox computes for a server's live list) compared with the fixture's and renames \
         looked for, median of at least 20 after one warm-up, per 100 tools.\n\
         * **Tokens**: o200k_base tokens (`bpe-openai`) of the compact JSON text of each \
         definition the toolbox exports for GitHub's 117 tools, per format, full and compact; \
         the skeleton: the same definitions (compact form) of schemas that keep only property \
         names, types, enum values, descriptions, `required`, items, unions and a map's value \
         schema, every other keyword removed — not an export (it loses constraints), but a \
         floor under any compaction that keeps the descriptions; progressive discovery's up-front tokens are those of `search_tools` and `load_tools` \
         as OpenAI functions.\n\
         * **Check overhead**: `cargo check --offline` of a scratch crate with \
         `mcp_tools!(\"github_official\", tokens = true)` (feature `tokens`) minus the same crate without it, after touching \
         `src/main.rs`, dependencies warm, own target dir under `target/bench/check`, median of 3 \
         rounds with the macro's expansion cache answering (a rebuild after an edit) and 3 with \
         it off (`MCP_BINDGEN_CACHE=0`: a rebuild that generates, as after a fixture change); \
         and a first build of the crate (`check_cold_github_official_s`: `cargo clean --package` \
         of each scratch crate before its check, the cache off), median of 3.\n\
         * **Snapshot**: wall time of `cargo xtask snapshot` (the xtask binary, fixtures written \
         under `target/bench`) for every default server at once, against the slowest server \
         alone, 3 rounds. The target is on the ratio to the machine's floor, per round \
         max(slowest server alone, CPU seconds of the parallel run / nproc): a parallel run can \
         beat neither its slowest server nor the cores' total CPU time.\n\
         * **Features**: a scratch user crate binding two servers (`mcp_tools!` of the 117 \
         GitHub tools and of the demo fixture; one connected over stdio, one over Streamable \
         HTTP) on `mcp-bindgen` with default features and with `default-features = false, \
         features = [\"macros\"]` (stdio only), and the same program on rmcp's client directly \
         (`client`, `transport-child-process`, `transport-streamable-http-client-reqwest` and \
         rmcp's `reqwest` TLS feature; untyped calls): packages in `cargo tree -e normal,build`, \
         and `cargo check --offline` into an empty target dir, once each.\n\
         * **wasm32**: the library of `tests/wasm` (`mcp_tools!(\"demo\")` and one exported \
         function that connects with a bearer token and calls a tool) built with `cargo build \
         --release --target wasm32-unknown-unknown` for size (`opt-level = \"z\"`, LTO, one \
         codegen unit, `panic = \"abort\"`), then `wasm-bindgen --target web` (pinned \
         wasm-bindgen-cli) and binaryen's `wasm-opt -Oz` (pinned npm `binaryen`): the bytes \
         after each step.\n"
    );
    text.push_str(NOTES_MARKER);
    text.push_str(&notes);
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
