//! Shared helpers of the end-to-end tests: where things are, free ports, child processes.
//!
//! Real servers are found where `cargo xtask install-servers` (run by `cargo xtask test`)
//! puts them: `$MCP_SERVERS_DIR`, default `<workspace>/target/mcp-servers`. A missing server
//! fails the test with the command that installs it — it is never silently skipped.
#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mcp_bindgen::{ConnectOptions, Registry, ServerConfig, Session};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// This workspace's target directory: `$CARGO_TARGET_DIR` or `<root>/target`.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
}

/// The environment of a cargo build of a scratch crate (a user's project the tests make):
/// its own target directory for what it produces (`target/tests/scratch`: binaries named
/// like this workspace's, `app` or `xtask`, do not replace them), and this workspace's
/// target directory as cargo's build directory, so that the dependencies it builds with
/// the same features and profile (no debug info, `CARGO_PROFILE_DEV_DEBUG=false`, as this
/// workspace builds its dependencies) are the ones `cargo test` built, not built again.
///
/// Without the variables `cargo test` sets for this test binary (`CARGO_PKG_NAME`,
/// `CARGO_MANIFEST_DIR`, …): cargo compares them with what build scripts declared with
/// `rerun-if-env-changed` (ring's does), and would otherwise build those crates again in the
/// shared build directory, and `cargo test` after it once more.
pub fn scratch_cargo(cmd: &mut Command) -> &mut Command {
    without_cargo_test_env(cmd)
        .env(
            "CARGO_TARGET_DIR",
            target_dir().join("tests").join("scratch"),
        )
        .env("CARGO_BUILD_BUILD_DIR", target_dir())
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
}

/// `cmd` without the variables `cargo test` set for this test binary (see
/// [`scratch_cargo`]), for a cargo that builds in this workspace's target directory.
pub fn without_cargo_test_env(cmd: &mut Command) -> &mut Command {
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("CARGO_PKG_")
            || matches!(
                name.as_ref(),
                "CARGO_MANIFEST_DIR"
                    | "CARGO_MANIFEST_PATH"
                    | "CARGO_MANIFEST_LINKS"
                    | "CARGO_CRATE_NAME"
                    | "CARGO_BIN_NAME"
                    | "CARGO_PRIMARY_PACKAGE"
                    | "OUT_DIR"
            )
        {
            cmd.env_remove(name.as_ref());
        }
    }
    cmd
}

/// `$MCP_SERVERS_DIR` or `<root>/target/mcp-servers`.
pub fn servers_dir() -> PathBuf {
    std::env::var_os("MCP_SERVERS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target").join("mcp-servers"))
}

/// The embedded demo server binary.
pub fn demo_server() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mcp-demo-server"))
}

/// Looks up the registry's variables: `MCP_SERVERS_DIR` and `MCP_DEMO_SERVER` default to
/// this checkout's, the rest come from the environment.
pub fn lookup(name: &str) -> Option<String> {
    match name {
        "MCP_SERVERS_DIR" => Some(servers_dir().to_string_lossy().into_owned()),
        "MCP_DEMO_SERVER" => Some(demo_server().to_string_lossy().into_owned()),
        other => std::env::var(other).ok(),
    }
}

/// A session with `config`, its `${NAME}`s looked up by [`lookup`]; panics with the error.
pub async fn connect(config: &ServerConfig) -> Session {
    ConnectOptions::new()
        .with_env_lookup(lookup)
        .connect(config)
        .await
        .unwrap_or_else(|e| panic!("connect {}: {e}", config.alias()))
}

/// The demo server (with its fault tools) under `alias`, appending its process id to `pids`
/// when it starts: whether, and how often, a server process was started.
pub fn demo_with_pidfile(alias: &str, pids: &Path) -> ServerConfig {
    // `$$$$`: the registry reads `$$` as a literal `$`.
    let script = format!(
        "echo $$$$ >> '{p}'; exec '{demo}' --faults",
        p = pids.display(),
        demo = demo_server().display()
    );
    ServerConfig::stdio(alias, "sh", vec!["-c".into(), script])
        .with_timeout(Duration::from_secs(20))
}

/// The default registry, `fixtures/servers.toml`.
pub fn registry() -> Registry {
    Registry::load(root().join("fixtures/servers.toml")).expect("fixtures/servers.toml loads")
}

/// A server of the default registry whose files must be installed; panics with the fix.
pub fn installed(alias: &str) -> ServerConfig {
    let dir = servers_dir().join(alias);
    assert!(
        dir.exists(),
        "server \"{alias}\" is not installed at {}; run `cargo xtask install-servers {alias}` (or `cargo xtask test`)",
        dir.display()
    );
    registry().get(alias).expect("alias in registry").clone()
}

/// The entry script of server-everything.
pub fn everything_js() -> PathBuf {
    let _ = installed("everything");
    servers_dir()
        .join("everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

/// A port that was free a moment ago on 127.0.0.1.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("bind an ephemeral port")
}

/// A child process killed on drop.
pub struct ChildGuard(pub Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits until something accepts TCP connections on 127.0.0.1:`port`.
pub fn wait_for_port(port: u16, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("server exited before listening on {port}: {status}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("nothing listens on 127.0.0.1:{port} after 30 s");
}

/// A session's configuration for server-everything in Streamable HTTP mode on `port`.
#[allow(dead_code)]
pub fn everything_http(port: u16) -> ServerConfig {
    ServerConfig::http(
        "everything-http",
        false,
        format!("http://127.0.0.1:{port}/mcp"),
    )
}

/// Starts server-everything in `mode` (`sse` or `streamableHttp`) on a free port (it binds
/// all interfaces; tests connect to 127.0.0.1 only) and returns it with its port.
pub fn start_everything_http(mode: &str) -> (ChildGuard, u16) {
    let port = free_port();
    let mut child = Command::new("node")
        .arg(everything_js())
        .arg(mode)
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start node");
    wait_for_port(port, &mut child);
    (ChildGuard(child), port)
}

/// Starts the demo server over Streamable HTTP on an ephemeral port; returns its URL.
pub fn start_demo_http() -> (ChildGuard, String) {
    start_demo_http_with(&[])
}

/// [`start_demo_http`] with more arguments for the server (e.g. `--protocol 2026-07-28`).
#[allow(dead_code)]
pub fn start_demo_http_with(args: &[&str]) -> (ChildGuard, String) {
    let (child, url) = mcp_bindgen_tests::balancer::start_demo_http(&demo_server(), args)
        .unwrap_or_else(|e| panic!("{e}"));
    (ChildGuard(child), url)
}

/// A stdio config of the demo server under `alias`.
pub fn demo_config(alias: &str) -> ServerConfig {
    ServerConfig::stdio(
        alias,
        demo_server().to_string_lossy().into_owned(),
        Vec::new(),
    )
    .with_timeout(Duration::from_secs(20))
}

/// A demo server that answers one call, exits, and cannot start again while `marker`
/// exists (the session's own reconnection then fails too): a server that went away.
pub fn one_shot_server(alias: &str, marker: &Path) -> ServerConfig {
    let script = format!(
        "if [ -e '{m}' ]; then echo 'one-shot server: already used' >&2; exit 1; fi; touch '{m}'; exec '{demo}' --exit-after 1",
        m = marker.display(),
        demo = demo_server().display()
    );
    ServerConfig::stdio(alias, "sh", vec!["-c".into(), script])
        .with_timeout(Duration::from_secs(10))
}

/// Collects everything `tracing` writes (for tests that assert on log lines). Use it in a
/// test binary of its own: thread-local subscribers race with other tests' threads over
/// tracing's global callsite cache.
#[derive(Clone, Default)]
pub struct Captured(pub std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl Captured {
    /// Everything written so far.
    pub fn text(&self) -> String {
        self.0
            .lock()
            .map(|v| String::from_utf8_lossy(&v).into_owned())
            .unwrap_or_default()
    }
}

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut v) = self.0.lock() {
            v.extend_from_slice(buf);
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = Captured;
    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

/// Runs `body`, failing the test when it takes longer than `limit`.
pub async fn bounded<F: std::future::Future<Output = ()>>(limit: Duration, body: F) {
    if tokio::time::timeout(limit, body).await.is_err() {
        panic!("test did not finish within {limit:?}");
    }
}

/// Waits until a stderr line of the server contains `needle` (it logs asynchronously).
pub async fn stderr_line(session: &mcp_bindgen::Session, needle: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if let Some(l) = session
            .stderr_tail()
            .into_iter()
            .find(|l| l.contains(needle))
        {
            return l;
        }
        assert!(
            Instant::now() < deadline,
            "no stderr line with {needle:?}; tail: {:?}",
            session.stderr_tail()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Runs a test body with a hard limit, so nothing can hang CI.
pub async fn limited<F: std::future::Future<Output = T>, T>(f: F) -> T {
    tokio::time::timeout(Duration::from_secs(90), f)
        .await
        .expect("test body took more than 90 s")
}

/// Captures every `tracing` line up to `level` on this thread until the guard drops.
pub fn capture_logs(level: tracing::Level) -> (Captured, tracing::subscriber::DefaultGuard) {
    let logs = Captured::default();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(logs.clone())
        .with_max_level(level)
        .with_ansi(false)
        .finish();
    let guard = tracing::subscriber::set_default(subscriber);
    (logs, guard)
}
