//! Drift at connect: the runtime's hash of a live tool list equals codegen's hash of the
//! fixture (same algorithm, two crates), and the policy decides what a mismatch does.

use crate::common;

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_bindgen::drift::DriftPolicy;
use mcp_bindgen::{ConnectOptions, Error, ServerConfig};
use mcp_bindgen_core::fixture::Fixture;
use serde_json::Value;

async fn bounded<F: std::future::Future<Output = ()>>(limit: Duration, body: F) {
    if tokio::time::timeout(limit, body).await.is_err() {
        panic!("test did not finish within {limit:?}");
    }
}

fn fixture(alias: &str) -> Fixture {
    Fixture::load(
        &common::root()
            .join("fixtures")
            .join(format!("{alias}.json")),
    )
    .unwrap()
}

fn demo() -> ServerConfig {
    ServerConfig::stdio(
        "demo",
        common::demo_server().to_string_lossy().into_owned(),
        vec![],
    )
}

/// Collects `tracing` output of the current thread (tests run on a current-thread runtime).
#[derive(Clone, Default)]
struct Logs(Arc<Mutex<Vec<u8>>>);

impl Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Logs {
    fn capture(&self) -> tracing::subscriber::DefaultGuard {
        let logs = self.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || logs.clone())
            .with_ansi(false)
            .with_max_level(tracing::Level::WARN)
            .finish();
        tracing::subscriber::set_default(subscriber)
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

#[test]
fn runtime_and_codegen_hash_every_committed_fixture_alike() {
    let dir = common::root().join("fixtures");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let f = Fixture::load(&path).unwrap();
        let raw: Vec<&Value> = f.tools.iter().map(|t| &t.raw).collect();
        let codegen = f.tools_hash();
        assert_eq!(
            mcp_bindgen_core::fixture::tools_hash(raw.iter().copied()),
            codegen
        );
        assert_eq!(
            mcp_bindgen::drift::tools_hash(raw.iter().copied()),
            codegen,
            "{}",
            path.display()
        );
        // Order does not matter.
        assert_eq!(
            mcp_bindgen::drift::tools_hash(raw.iter().rev().copied()),
            codegen
        );
        checked += 1;
    }
    assert!(
        checked >= 5,
        "only {checked} fixtures in {}",
        Path::new(&dir).display()
    );
}

#[tokio::test]
async fn the_live_demo_server_matches_its_fixture() {
    bounded(Duration::from_secs(20), async {
        let hash = fixture("demo").tools_hash();
        let session = ConnectOptions::new()
            .with_fixture_hash(&hash)
            .with_drift_policy(DriftPolicy::Error)
            .connect(&demo())
            .await
            .expect("no drift");
        assert!(
            !session
                .check_drift(&hash, DriftPolicy::Error)
                .await
                .unwrap()
        );
        assert_eq!(
            mcp_bindgen::drift::tools_hash(&session.list_tools().await.unwrap()),
            hash
        );
    })
    .await;
}

#[tokio::test]
async fn an_edited_fixture_warns_errors_or_is_ignored_by_policy() {
    bounded(Duration::from_secs(20), async {
        // The fixture as if the server had changed a description since the snapshot.
        let mut f = fixture("demo");
        f.tools[0].raw["description"] = Value::from("an older description");
        let stale = f.tools_hash();
        assert_ne!(stale, fixture("demo").tools_hash());

        let logs = Logs::default();
        let _guard = logs.capture();
        let session = ConnectOptions::new()
            .with_fixture_hash(&stale)
            .connect(&demo())
            .await
            .expect("warn is the default: connect succeeds");
        let text = logs.text();
        assert!(text.contains("WARN"), "{text}");
        assert!(text.contains("server drifted from its fixture"), "{text}");
        assert!(text.contains("cargo xtask snapshot --check demo"), "{text}");
        session
            .call("echo", &serde_json::json!({"message": "hi"}))
            .await
            .unwrap();

        // Registry policy `drift = "error"`.
        let started = Instant::now();
        let err = ConnectOptions::new()
            .with_fixture_hash(&stale)
            .connect(&demo().with_drift(DriftPolicy::Error))
            .await
            .expect_err("error policy");
        assert!(started.elapsed() < Duration::from_secs(10));
        assert!(
            matches!(&err, Error::Drift { server, .. } if server == "demo"),
            "{err:?}"
        );
        let shown = err.to_string();
        assert!(
            shown.starts_with("server \"demo\" drifted from its fixture"),
            "{shown}"
        );
        assert!(
            shown.contains("cargo xtask snapshot --check demo"),
            "{shown}"
        );

        // `ignore`: not even compared.
        let logs_before = logs.text().len();
        ConnectOptions::new()
            .with_fixture_hash(&stale)
            .with_drift_policy(DriftPolicy::Ignore)
            .connect(&demo())
            .await
            .expect("ignored");
        assert_eq!(logs.text().len(), logs_before, "{}", logs.text());

        // An explicit check with policy error refuses calls until the tools match again.
        let err = session
            .check_drift(&stale, DriftPolicy::Error)
            .await
            .expect_err("drift");
        assert!(matches!(err, Error::Drift { .. }));
        let err = session
            .call("echo", &serde_json::json!({"message": "hi"}))
            .await
            .expect_err("drifted session refuses calls");
        assert!(matches!(err, Error::Drift { .. }), "{err:?}");
        let fresh = fixture("demo").tools_hash();
        assert!(
            !session
                .check_drift(&fresh, DriftPolicy::Error)
                .await
                .unwrap()
        );
        session
            .call("echo", &serde_json::json!({"message": "hi"}))
            .await
            .unwrap();
    })
    .await;
}

#[tokio::test]
async fn tools_list_changed_rechecks_drift() {
    bounded(Duration::from_secs(20), async {
        // server-everything registers its capability-dependent tools right after
        // `initialized` and announces them with `notifications/tools/list_changed`: with a
        // stale expected hash, the connect-time check warns, and so does every re-check.
        let config = common::installed("everything");
        let logs = Logs::default();
        let _guard = logs.capture();
        let session = ConnectOptions::new()
            .with_env_lookup(common::lookup)
            .with_fixture_hash("0000")
            .connect(&config)
            .await
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        while logs
            .text()
            .matches("server drifted from its fixture")
            .count()
            < 2
        {
            assert!(
                Instant::now() < deadline,
                "no re-check after tools/list_changed: {}",
                logs.text()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        // The committed fixture matches the live server.
        let hash = fixture("everything").tools_hash();
        assert!(!session.check_drift(&hash, DriftPolicy::Warn).await.unwrap());
    })
    .await;
}

mcp_bindgen::mcp_tools!("demo");

/// The program's tools as if generated before the server made `add`'s `b` required (and the
/// fixture hash that goes with them).
fn stale_program() -> (&'static [mcp_bindgen::toolbox::TypedTool], String) {
    let mut tools: Vec<mcp_bindgen::toolbox::TypedTool> = demo::TYPED_TOOLS.to_vec();
    let add = tools.iter_mut().find(|t| t.name == "add").expect("add");
    let mut schema: Value = serde_json::from_str(add.input_schema).expect("schema");
    schema["properties"]
        .as_object_mut()
        .expect("properties")
        .remove("b");
    schema["required"] = serde_json::json!(["a"]);
    add.input_schema = Box::leak(schema.to_string().into_boxed_str());
    let mut f = fixture("demo");
    let raw = &mut f
        .tools
        .iter_mut()
        .find(|t| t.name == "add")
        .expect("add")
        .raw;
    raw["inputSchema"] = schema;
    (Box::leak(tools.into_boxed_slice()), f.tools_hash())
}

/// The warning and the error name the changed tool and the change, classified as
/// `snapshot --check` classifies it, not two hashes.
#[tokio::test]
async fn drift_is_reported_tool_by_tool() {
    bounded(Duration::from_secs(20), async {
        let (tools, stale) = stale_program();
        let logs = Logs::default();
        let _guard = logs.capture();
        let options = || {
            ConnectOptions::new()
                .with_fixture_hash(&stale)
                .with_fixture_tools(tools)
        };
        let session = options().connect(&demo()).await.expect("warn");
        let text = logs.text();
        assert!(
            text.contains(
                "server drifted from its fixture: add: BREAKING — new required argument \"b\""
            ),
            "{text}"
        );
        assert!(!text.contains("hash"), "{text}");
        session.close().await.expect("close");

        let err = options()
            .connect(&demo().with_drift(DriftPolicy::Error))
            .await
            .expect_err("error policy");
        let shown = err.to_string();
        assert!(
            shown.contains("add: BREAKING — new required argument \"b\""),
            "{shown}"
        );
    })
    .await;
}

/// A program without a `tracing` subscriber still sees the warning, once per server, on
/// stderr. (Run in a child process: the test harness installs no global subscriber there.)
#[test]
fn a_program_without_a_subscriber_sees_the_warning_on_stderr() {
    if std::env::var_os("MCP_DRIFT_CHILD").is_some() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async {
            let (tools, stale) = stale_program();
            let session = ConnectOptions::new()
                .with_fixture_hash(&stale)
                .with_fixture_tools(tools)
                .connect(&demo())
                .await
                .expect("connect");
            // A second check of the same session does not repeat it.
            assert!(
                session
                    .check_drift(&stale, DriftPolicy::Warn)
                    .await
                    .expect("check")
            );
            session.close().await.expect("close");
        });
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "drift::a_program_without_a_subscriber_sees_the_warning_on_stderr",
            "--nocapture",
        ])
        .env("MCP_DRIFT_CHILD", "1")
        .output()
        .expect("run the child");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let warning = "warning: server \"demo\" drifted from its fixture: add: BREAKING — new required argument \"b\"";
    assert_eq!(stderr.matches(warning).count(), 1, "{stderr}");
    assert!(stderr.contains("snapshot --check demo"), "{stderr}");
}
