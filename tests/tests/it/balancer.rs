//! Scale-out: the demo server as 3 replicas behind nginx (Debian's package, installed into
//! the build tree by `cargo xtask install-servers nginx`), round-robin with no affinity.
//!
//! * 2026-07-28 (stateless): typed calls, progress and a multi-page `tools/list` work
//!   through the balancer from 4 client processes at once, and every replica answers some.
//! * 2025-11-25 (a session lives on the server that answered `initialize`): without
//!   affinity the connection fails at once with words that name affinity as the fix; with
//!   `ip_hash` it works.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_bindgen::{CallOptions, Progress, Protocol, ServerConfig, Session};

use mcp_bindgen_tests::balancer::Balancer;

use crate::common::{demo_server, servers_dir};

mcp_bindgen::mcp_tools!("demo");

/// Replicas behind the balancer.
const REPLICAS: usize = 3;
/// Client processes at once.
const PROCESSES: usize = 4;
/// The child process's test, and the variable that gives it the balancer's URL.
const CHILD_TEST: &str = "balancer::one_client_process";
const URL_VAR: &str = "MCP_BALANCER_URL";

/// nginx as installed by `cargo xtask install-servers nginx`; panics with the fix.
fn nginx() -> PathBuf {
    let path = servers_dir().join("nginx/root/usr/sbin/nginx");
    assert!(
        path.is_file(),
        "nginx is not installed at {}; run `cargo xtask install-servers nginx` (or `cargo xtask test`)",
        path.display()
    );
    path
}

/// 3 demo replicas (tools listed 3 per page) behind nginx; `affinity`: `ip_hash`. The
/// temporary directory holds nginx's files and goes with it.
fn start(affinity: bool) -> (Balancer, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let balancer = Balancer::start(
        &demo_server(),
        &nginx(),
        dir.path(),
        REPLICAS,
        affinity,
        &["--page-size", "3"],
    )
    .expect("3 demo replicas behind nginx");
    (balancer, dir)
}

fn config(url: &str, protocol: Protocol) -> ServerConfig {
    ServerConfig::http("demo", false, url)
        .with_protocol(protocol)
        .with_timeout(Duration::from_secs(20))
}

/// What one client does through the balancer: typed calls, a call with progress, the
/// tool list over its 3 pages.
async fn exercise(session: Session) {
    let client = demo::Client::new(session.clone());
    for i in 0..20 {
        let sum = client
            .add(demo::add::Args {
                a: f64::from(i),
                b: 0.5,
            })
            .await
            .expect("a typed call through the balancer");
        assert_eq!(sum.text(), format!("{}", f64::from(i) + 0.5));
    }
    let seen: Arc<Mutex<Vec<Progress>>> = Arc::default();
    let sink = seen.clone();
    let options = CallOptions::new()
        .with_timeout(Duration::from_secs(20))
        .on_progress(move |p| sink.lock().unwrap().push(p));
    let out = session
        .call_with(
            "long_task",
            &serde_json::json!({"steps": 5, "delay_ms": 10}),
            options,
        )
        .await
        .expect("a call with progress through the balancer");
    assert!(
        out.text().contains("5 progress notification(s) sent"),
        "{}",
        out.text()
    );
    let values: Vec<f64> = seen.lock().unwrap().iter().map(|p| p.progress).collect();
    assert_eq!(values, vec![1.0, 2.0, 3.0, 4.0, 5.0]);
    let tools = session
        .list_tools()
        .await
        .expect("tools/list through the balancer");
    let names: Vec<&str> = tools
        .iter()
        .filter_map(|t| t.get("name")?.as_str())
        .collect();
    assert_eq!(names.len(), demo::TYPED_TOOLS.len(), "{names:?}");
    assert!(names.contains(&"echo_structured"), "{names:?}");
}

/// The child of [`four_processes_through_a_round_robin_balancer`]: one client process.
#[tokio::test]
#[ignore = "a child process of balancer::four_processes_through_a_round_robin_balancer"]
async fn one_client_process() {
    let url = std::env::var(URL_VAR).expect("started by the balancer test with its URL");
    let session = Session::connect(&config(&url, Protocol::V2026_07_28))
        .await
        .expect("connect through the balancer");
    exercise(session).await;
}

#[test]
fn four_processes_through_a_round_robin_balancer() {
    let (balancer, _dir) = start(false);
    let exe = std::env::current_exe().expect("the test binary");
    let children: Vec<Child> = (0..PROCESSES)
        .map(|_| {
            Command::new(&exe)
                .args(["--exact", CHILD_TEST, "--ignored", "--test-threads=1"])
                .env(URL_VAR, &balancer.url)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("start a client process")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().expect("a client process ends");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("1 passed"),
            "a client process failed ({}):\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let used = balancer.replicas_used();
    assert_eq!(used.len(), REPLICAS, "round-robin reached {used:?}");
}

#[tokio::test]
async fn a_session_without_affinity_fails_naming_affinity() {
    let (balancer, _dir) = start(false);
    let started = std::time::Instant::now();
    let config = config(&balancer.url, Protocol::V2025_11_25);
    let outcome = match Session::connect(&config).await {
        Err(e) => Err(e),
        // Round-robin sends `initialized` elsewhere; were it not to, the first call would.
        Ok(session) => demo::Client::new(session)
            .add(demo::add::Args { a: 1.0, b: 2.0 })
            .await
            .map(drop),
    };
    let e = outcome.expect_err("a 2025-11-25 session over round-robin replicas");
    let text = e.to_string();
    assert!(text.contains("affinity"), "{text}");
    assert!(text.contains("ip_hash"), "{text}");
    assert!(text.contains("2026-07-28"), "{text}");
    assert_ne!(e.kind(), mcp_bindgen::ErrorKind::Timeout, "{text}");
    assert!(started.elapsed() < Duration::from_secs(15), "{text}");
}

#[tokio::test]
async fn a_session_with_affinity_works() {
    let (balancer, _dir) = start(true);
    let session = Session::connect(&config(&balancer.url, Protocol::V2025_11_25))
        .await
        .expect("connect through the balancer with ip_hash");
    exercise(session).await;
    assert_eq!(balancer.replicas_used().len(), 1);
}
