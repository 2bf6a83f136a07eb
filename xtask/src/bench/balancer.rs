//! Section `balancer`: the typed client's throughput through nginx in front of 3 demo
//! replicas (round-robin, no affinity, the stateless 2026-07-28 revision over Streamable
//! HTTP) against one replica directly, 64 calls in flight, rounds interleaved
//! (`mcp-bench balancer`). nginx is Debian's package, pinned and unpacked into the build
//! tree like the MCP servers.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::inputs::build_binaries;
use super::row::Row;

pub(super) fn balancer(root: &Path, dir: &Path, smoke: bool) -> Result<Value, String> {
    crate::servers::install(root, &["nginx"])?;
    let nginx = crate::servers::find("nginx")
        .map(|p| p.entry_path(root))
        .ok_or("the nginx pin is missing from xtask's table")?;
    let (server, bench) = build_binaries(smoke)?;
    let work = dir.join("balancer");
    let _ = std::fs::remove_dir_all(&work);
    let (calls, rounds) = if smoke { ("64", "1") } else { ("4096", "9") };
    let mut cmd = Command::new(&bench);
    cmd.arg("balancer")
        .arg("--server")
        .arg(&server)
        .arg("--nginx")
        .arg(&nginx)
        .arg("--dir")
        .arg(&work)
        .args(["--inflight", "64", "--calls", calls, "--rounds", rounds]);
    super::inputs::run_bench(&mut cmd, "mcp-bench balancer")
}

/// The section's row.
pub(super) fn rows(section: &Value) -> Vec<Row> {
    let through = super::series(section, "/through_balancer");
    let one = super::series(section, "/one_replica");
    let rate = |v: &[f64]| super::median(v).map_or("-".to_string(), |x| format!("{x:.0}/s"));
    vec![Row {
        key: "balancer_vs_one_replica_throughput",
        what: "typed calls/s through nginx and 3 replicas / one replica directly, 64 in flight",
        value: super::median_ratio(&through, &one),
        unit: "×",
        target: None,
        detail: format!(
            "Streamable HTTP, 2026-07-28 (stateless), round-robin: through nginx {}, one \
             replica {}; {} of {} replicas answered; client, nginx and replicas share the \
             machine's cores",
            rate(&through),
            rate(&one),
            section["replicas_used"].as_u64().unwrap_or(0),
            section["replicas"].as_u64().unwrap_or(0),
        ),
    }]
}
