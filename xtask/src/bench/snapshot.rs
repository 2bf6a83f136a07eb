//! Section `snapshot`: every default server in parallel against the slowest one alone.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::{Map, Value, json};

use super::*;

pub(super) fn snapshot(dir: &Path) -> Result<Value, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the xtask binary: {e}"))?;
    let out = dir.join("snapshot-fixtures");
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let registry =
        mcp_bindgen::Registry::load("fixtures/servers.toml").map_err(|e| e.to_string())?;
    let aliases: Vec<String> = registry
        .servers()
        .iter()
        .map(|s| s.alias().to_string())
        .collect();
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
    let cpu_bound: Vec<f64> = parallel_cpu.iter().map(|c| c / cpus).collect();
    let cpu_floor = median_ratio(&cpu_bound, &slowest);
    let floor = machine_floor(&slowest, &parallel_cpu, cpus);
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
        // The machine's floor per round, max(slowest alone, CPU-s / nproc), and the parallel
        // run against it (median of the per-round ratios).
        "floor_s": floor,
        "ratio_vs_floor": median_ratio(&parallel, &floor),
        "parallel_table": table,
    }))
}

/// Per round, the best a parallel snapshot can do on this machine: it cannot finish before
/// its slowest server does alone, nor before `cpus` cores have burnt its CPU seconds.
pub(super) fn machine_floor(slowest: &[f64], parallel_cpu: &[f64], cpus: f64) -> Vec<f64> {
    slowest
        .iter()
        .zip(parallel_cpu)
        .map(|(s, c)| s.max(c / cpus))
        .collect()
}

// ---------------------------------------------------------------------------------------
// Summary, machine facts, outputs
// ---------------------------------------------------------------------------------------
