//! The toolbox's life against the demo server as a real child process: close (graceful, in-
//! flight calls end with a clear error), drop, refresh (the export follows the server's tool
//! list), lazy servers (no process until the first call, one process for concurrent calls).

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{demo_with_pidfile, limited};
use mcp_bindgen::ErrorKind;
use mcp_bindgen::toolbox::Toolbox;
use mcp_bindgen::toolbox::provider::Format;

mcp_bindgen::mcp_tools!("demo");

fn pids(file: &Path) -> Vec<u32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// Whether a process runs (a zombie does not).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

async fn wait_until_gone(pid: u32, within: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < within {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    !alive(pid)
}

/// A toolbox over the demo server, and the server's process id.
async fn demo_toolbox() -> (tempfile::TempDir, Toolbox, u32) {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("pids");
    let tb = Toolbox::from_servers(vec![demo_with_pidfile("demo", &file)])
        .connect()
        .await
        .expect("connect");
    assert!(tb.skipped().is_empty(), "{:?}", tb.skipped());
    let pid = pids(&file)[0];
    (dir, tb, pid)
}

fn names(tb: &Toolbox) -> Vec<String> {
    tb.export(Format::OpenAi)
        .tools
        .iter()
        .filter_map(|d| Format::OpenAi.name_of(d).map(str::to_string))
        .collect()
}

#[tokio::test]
async fn close_ends_running_calls_and_stops_the_servers() {
    limited(async {
        let (_dir, tb, pid) = demo_toolbox().await;
        assert!(alive(pid));
        let running = {
            let tb = tb.clone();
            tokio::spawn(async move { tb.call("mcp_demo_sleep", r#"{"ms": 20000}"#).await })
        };
        tokio::time::sleep(Duration::from_millis(300)).await;
        let started = Instant::now();
        tb.close().await;
        assert!(tb.is_closed());
        let d = running.await.expect("task");
        assert_eq!(d.error_kind(), Some(ErrorKind::Unavailable), "{}", d.text);
        assert_eq!(
            d.text,
            "Error: the toolbox was closed while mcp_demo_sleep ran; its result is lost"
        );
        assert!(started.elapsed() < Duration::from_secs(10));
        assert!(
            wait_until_gone(pid, Duration::from_secs(10)).await,
            "pid {pid} still runs"
        );
        let d = tb.call("mcp_demo_echo", r#"{"message": "x"}"#).await;
        assert_eq!(
            d.text,
            "Error: the toolbox is closed; mcp_demo_echo cannot be called"
        );
        tb.close().await; // idempotent
    })
    .await;
}

/// Closing a session ends its stdio server through the end of its stdin, never a signal: on
/// 2026-07-28 the session's open `subscriptions/listen` request is cancelled first (an rmcp
/// server waits 5 s for open requests once its input ends; the session would send SIGTERM
/// after 1.5 s).
#[tokio::test]
async fn closing_a_session_lets_its_server_end_by_itself_on_both_revisions() {
    use mcp_bindgen::{Protocol, ServerConfig};
    limited(async {
        for protocol in [Protocol::V2025_11_25, Protocol::V2026_07_28] {
            let dir = tempfile::tempdir().expect("tempdir");
            let ended = dir.path().join("ended");
            // The shell writes the server's exit status only if it is still there when the
            // server ends: a SIGTERM (for the shell, the session's child) leaves no file.
            // `$$`: the registry reads it as a literal `$`.
            let script = format!(
                "'{demo}'; echo \"exit $$?\" > '{file}'",
                demo = common::demo_server().display(),
                file = ended.display()
            );
            let config = ServerConfig::stdio("demo", "sh", vec!["-c".into(), script])
                .with_protocol(protocol);
            let session = common::connect(&config).await;
            assert_eq!(session.list_tools().await.expect("tools/list").len(), 8);
            session.close().await.expect("close");
            let status = std::fs::read_to_string(&ended).unwrap_or_default();
            assert_eq!(
                status.trim(),
                "exit 0",
                "{protocol:?}: the server was killed"
            );
        }
    })
    .await;
}

#[tokio::test]
async fn dropping_the_last_clone_closes_the_servers() {
    limited(async {
        let (_dir, tb, pid) = demo_toolbox().await;
        let clone = tb.clone();
        drop(tb);
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(alive(pid), "a clone still holds the toolbox");
        assert!(
            clone
                .call("mcp_demo_echo", r#"{"message": "x"}"#)
                .await
                .is_ok()
        );
        drop(clone);
        assert!(
            wait_until_gone(pid, Duration::from_secs(10)).await,
            "pid {pid} still runs"
        );
    })
    .await;
}

#[tokio::test]
async fn refresh_follows_the_servers_tool_list() {
    limited(async {
        let dir = tempfile::tempdir().expect("tempdir");
        let tb = Toolbox::from_servers(vec![demo_with_pidfile("demo", &dir.path().join("p"))])
            .refresh_on_list_changed(false)
            .connect()
            .await
            .expect("connect");
        assert!(!names(&tb).contains(&"mcp_demo_grown".to_string()));
        let before = names(&tb).len();
        let d = tb.call("mcp_demo_grow", "{}").await;
        assert!(d.is_ok(), "{}", d.text);
        let report = tb.refresh().await;
        assert_eq!(report.failed, Vec::<(String, String)>::new());
        assert_eq!(
            report.changed,
            vec![("demo".to_string(), before, before + 1)]
        );
        assert!(names(&tb).contains(&"mcp_demo_grown".to_string()));
        // The name map follows: the new name resolves (the demo server lists `grown`
        // without implementing it, so the server answers "tool not found").
        let d = tb.call("mcp_demo_grown", "{}").await;
        let t = d.tool.as_ref().expect("the new name resolves");
        assert_eq!((t.server.as_str(), t.tool.as_str()), ("demo", "grown"));
        assert!(d.text.contains("tool not found"), "{}", d.text);
        // Nothing changed: nothing reported.
        assert_eq!(tb.refresh().await.changed, Vec::new());
    })
    .await;
}

#[tokio::test]
async fn tools_list_changed_refreshes_the_export_by_itself() {
    limited(async {
        let dir = tempfile::tempdir().expect("tempdir");
        let tb = Toolbox::from_servers(vec![demo_with_pidfile("demo", &dir.path().join("p"))])
            .connect()
            .await
            .expect("connect");
        assert!(!names(&tb).contains(&"mcp_demo_grown".to_string()));
        // `grow` adds a tool and sends notifications/tools/list_changed.
        let d = tb.call("mcp_demo_grow", "{}").await;
        assert!(d.is_ok(), "{}", d.text);
        let start = Instant::now();
        while !names(&tb).contains(&"mcp_demo_grown".to_string()) {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "the export did not follow tools/list_changed"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let d = tb.call("mcp_demo_grown", "{}").await;
        assert_eq!(d.tool.map(|t| t.tool), Some("grown".to_string()));
    })
    .await;
}

#[tokio::test]
async fn lazy_servers_start_on_the_first_call_once() {
    limited(async {
        let dir = tempfile::tempdir().expect("tempdir");
        let typed_pids = dir.path().join("typed");
        let fixture_pids = dir.path().join("fixture");
        let fixture: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(common::root().join("fixtures/demo.json")).expect("fixture"),
        )
        .expect("json");
        let tools = fixture["tools"].as_array().cloned().expect("tools");
        let tb = Toolbox::from_servers(vec![
            demo_with_pidfile("demo", &typed_pids),
            demo_with_pidfile("other", &fixture_pids),
        ])
        .add_typed("demo", demo::TYPED_TOOLS)
        .lazy("demo")
        .lazy_with_tools("other", tools.clone())
        .connect()
        .await
        .expect("connect");
        // No process yet; the tools are exported already.
        assert!(pids(&typed_pids).is_empty() && pids(&fixture_pids).is_empty());
        let exported = names(&tb);
        assert!(
            exported.contains(&"mcp_demo_echo".to_string()),
            "{exported:?}"
        );
        assert!(
            exported.contains(&"mcp_other_echo".to_string()),
            "{exported:?}"
        );
        // Three calls at once: one process.
        let calls = futures_join(&tb, "mcp_demo_add").await;
        for d in &calls {
            assert!(d.is_ok(), "{}", d.text);
            assert_eq!(d.text, "3");
        }
        assert_eq!(pids(&typed_pids).len(), 1);
        assert!(pids(&fixture_pids).is_empty());
        let d = tb.call("mcp_other_echo", r#"{"message": "hi"}"#).await;
        assert_eq!(d.text, "hi");
        assert_eq!(pids(&fixture_pids).len(), 1);
        // A lazy server without tool definitions is refused at start-up.
        let e = Toolbox::from_servers(vec![common::demo_config("demo")])
            .lazy("demo")
            .connect()
            .await
            .expect_err("no definitions");
        assert_eq!(e.kind(), ErrorKind::Config);
        assert!(e.to_string().contains("no tool definitions"), "{e}");
        tb.close().await;
    })
    .await;
}

async fn futures_join(tb: &Toolbox, name: &str) -> Vec<mcp_bindgen::toolbox::Dispatch> {
    let (a, b, c) = tokio::join!(
        tb.call(name, r#"{"a": 1, "b": 2}"#),
        tb.call(name, r#"{"a": 2, "b": 1}"#),
        tb.call(name, r#"{"a": 0, "b": 3}"#)
    );
    vec![a, b, c]
}
