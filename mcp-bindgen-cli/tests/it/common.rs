//! Helpers shared by the CLI's integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask has a parent")
        .to_path_buf()
}

/// The demo server `cargo test --workspace` builds (or `$MCP_DEMO_SERVER`).
pub fn demo_server() -> PathBuf {
    if let Some(p) = std::env::var_os("MCP_DEMO_SERVER") {
        return PathBuf::from(p);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    let path = target.join("debug").join("mcp-demo-server");
    assert!(
        path.exists(),
        "{} is missing: run `cargo build --bin mcp-demo-server` or `cargo xtask test`",
        path.display()
    );
    path
}

/// What one run of `cargo-mcp-bindgen` gave.
pub struct Run {
    /// The exit code; `None` when a signal ended the process.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// stdout and stderr together.
    pub fn text(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

/// Runs `cargo-mcp-bindgen ARGS` with the registry `toml` written to `dir`, which also holds
/// the fixtures and the token store, with `env` set.
pub fn run_with_registry(dir: &Path, toml: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
    let registry = dir.join("servers.toml");
    std::fs::write(&registry, toml).expect("write registry");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-mcp-bindgen"))
        .args(args)
        .args(["--config", &registry.display().to_string()])
        .args(["--fixtures", &dir.display().to_string()])
        .current_dir(dir)
        .env("MCP_BINDGEN_TOKEN_DIR", dir.join("tokens"))
        .env("NO_COLOR", "1")
        .envs(env.iter().copied())
        .output()
        .expect("run cargo-mcp-bindgen");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The demo server over HTTP(S) with extra `args`, killed on drop; its log (stderr) kept in
/// a file.
pub struct HttpDemo {
    child: std::process::Child,
    /// The endpoint it printed (`http://127.0.0.1:PORT/mcp`, or `https://…`).
    pub url: String,
    log: tempfile::NamedTempFile,
}

impl Drop for HttpDemo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl HttpDemo {
    /// Starts it and reads the `listening on …` line.
    pub fn start(args: &[&str]) -> HttpDemo {
        use std::io::BufRead as _;
        let log = tempfile::NamedTempFile::new().expect("log file");
        let mut child = std::process::Command::new(demo_server())
            .args(["--transport", "http", "--port", "0"])
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(log.reopen().expect("log"))
            .spawn()
            .expect("start the demo server");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("listening line");
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_string();
        HttpDemo { child, url, log }
    }

    /// What the server logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.log.path()).unwrap_or_default()
    }
}

/// A folder holding the committed `memory.json` fixture, for commands that read fixtures
/// without reaching the server (with [`NEVER_STARTED`] as the registry).
pub fn memory_fixture_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let fixture =
        std::fs::read_to_string(root().join("fixtures/memory.json")).expect("fixtures/memory.json");
    std::fs::write(dir.path().join("memory.json"), fixture).expect("write fixture");
    dir
}

/// A registry whose one server (`memory`) cannot start.
pub const NEVER_STARTED: &str =
    "[servers.memory]\ncommand = \"/nonexistent/mcp-bindgen-never-started\"\n";
