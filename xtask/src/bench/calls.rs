//! Section `calls`: the `mcp-bench` client against the demo server, and the Python SDK
//! contender's pinned venv.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use super::inputs::build_binaries;
use super::*;
use crate::process::run_command;

pub(super) fn calls(root: &Path, dir: &Path, smoke: bool) -> Result<Value, String> {
    let (server, bench) = build_binaries(smoke)?;
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
            ("--throughput-rounds", "31"),
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
    super::inputs::run_bench(&mut cmd, "mcp-bench")
}

/// Makes `target/bench/venv` with the pinned Python SDK (idempotent: a stamp holds the hash
/// of the requirements). Returns the venv's python.
pub(super) fn python_venv(root: &Path, dir: &Path) -> Result<PathBuf, String> {
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
