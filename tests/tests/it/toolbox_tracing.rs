//! Tracing of the agent layer: spans per call and events for called / failed / skipped /
//! reconnected. A test binary of its own: a thread-local subscriber races with other tests'
//! threads over tracing's global callsite-interest cache.

use crate::common;

use common::limited;

use std::time::Duration;

use mcp_bindgen::toolbox::{AgentConfig, ModelPolicy, ModelRef, Toolbox};

#[test]
fn tracing_spans_and_events() {
    let (logs, _guard) = common::capture_logs(tracing::Level::DEBUG);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(limited(async {
        let dir = tempfile::tempdir().expect("tempdir");
        let marker = dir.path().join("used");
        let dying = common::one_shot_server("dying", &marker).with_function_call_wrapper(true);
        let secret =
            common::demo_config("secret").with_env("K", "${MCP_TOOLBOX_TEST_UNSET_SECRET}");
        let tb = Toolbox::from_servers(vec![dying, secret])
            .connect()
            .await
            .expect("connect");
        assert!(
            tb.call("mcp_dying_echo", r#"{"message": "traced"}"#)
                .await
                .is_ok()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(
            !tb.call("mcp_dying_echo", r#"{"message": "x"}"#)
                .await
                .is_ok()
        );
        assert!(!tb.call("mcp_nope", "{}").await.is_ok());
        std::fs::remove_file(&marker).expect("remove marker");
        assert_eq!(tb.reconnect(true).await.reconnected, ["dying"]);
        let _ = tb
            .agent(
                &AgentConfig::new("w", ModelRef::new("anthropic", "c"), ["dying"]),
                &ModelPolicy::new().provider("anthropic", true),
            )
            .expect("agent");
    }));
    let text = logs.text();
    let lines: Vec<&str> = text.lines().collect();
    let find = |needles: &[&str]| {
        lines
            .iter()
            .find(|l| needles.iter().all(|n| l.contains(n)))
            .unwrap_or_else(|| panic!("no line with {needles:?} in:\n{text}"))
    };
    find(&[
        "WARN",
        "server skipped",
        "server=secret",
        "MCP_TOOLBOX_TEST_UNSET_SECRET",
    ]);
    find(&[
        "INFO",
        "mcp_tool_call{",
        "server=dying",
        "tool=echo",
        "exported=mcp_dying_echo",
        "tool called",
    ]);
    find(&[
        "DEBUG",
        "mcp_tool_call{",
        "outcome=\"ok\"",
        "duration_ms=",
        "tool returned",
    ]);
    find(&[
        "WARN",
        "tool failed",
        "server=\"dying\"",
        "kind=\"transport\"",
    ]);
    find(&[
        "WARN",
        "tool failed",
        "name=\"mcp_nope\"",
        "kind=\"unknown_tool\"",
    ]);
    find(&["INFO", "server reconnected", "server=dying"]);
    find(&["WARN", "unneeded overhead", "agent=w"]);
}
