//! Errors say what happened in words a user can act on: no library type names
//! (`WorkerTransport<StreamableHttpClientWorker<…>>`), no `Debug` dumps
//! (`CustomResult(Number(42))`), the server named once.

use crate::common;

use std::time::Duration;

use mcp_bindgen::{ServerConfig, Session};

/// What a message must not contain: Rust paths, generic types, `Debug` output.
fn assert_plain(text: &str) {
    for needle in ["::", "<", "Transport [", "CustomResult", "Os {", "kind:"] {
        assert!(!text.contains(needle), "{needle:?} in: {text}");
    }
}

#[tokio::test]
async fn an_http_server_that_is_not_there() {
    let port = common::free_port();
    for (sse, path) in [(false, "mcp"), (true, "sse")] {
        let url = format!("http://127.0.0.1:{port}/{path}");
        let config = ServerConfig::http("down", sse, url.clone())
            .with_connect_timeout(Duration::from_secs(10));
        let e = Session::connect(&config)
            .await
            .expect_err("nothing listens");
        let text = e.to_string();
        assert_eq!(
            text,
            format!("server \"down\": could not connect to {url}: connection refused"),
            "sse: {sse}"
        );
        assert_plain(&text);
    }
}

/// A stdio server (a short Python script: no real server does this) that answers
/// `tools/call` with the number 42.
#[tokio::test]
async fn a_result_that_is_not_a_tool_result() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("forty_two.py");
    std::fs::write(
        &script,
        r#"import sys, json
for line in sys.stdin:
    m = json.loads(line)
    method = m.get("method")
    if "id" not in m:
        continue
    if method == "initialize":
        r = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "forty-two", "version": "1"}}
    elif method == "tools/call":
        r = 42
    else:
        r = {}
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
"#,
    )
    .expect("write script");
    let python = std::env::var("MCP_PYTHON").unwrap_or_else(|_| "python3".into());
    let config = ServerConfig::stdio("forty-two", python, vec![script.display().to_string()]);
    let session = Session::connect(&config).await.expect("initialize works");
    let e = session
        .call("anything", &mcp_bindgen::NoArgs {})
        .await
        .expect_err("42 is no tool result");
    let text = e.to_string();
    assert_eq!(
        text,
        "server \"forty-two\": the server answered tools/call \"anything\" with a result that is not a CallToolResult: 42"
    );
    assert_plain(&text);
    session.close().await.expect("close");
}

/// A stdio server that logs to stdout and never answers `initialize` (as a misconfigured
/// server does): connecting ends at `connect_timeout` with the lines it wrote quoted.
#[tokio::test]
async fn a_server_logging_to_stdout_is_named_for_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("chatty.py");
    std::fs::write(
        &script,
        "import sys, time\nprint('Starting MCP server on stdio...', flush=True)\nprint('Listening for requests', flush=True)\nsys.stdin.readline()\ntime.sleep(30)\n",
    )
    .expect("write script");
    let python = std::env::var("MCP_PYTHON").unwrap_or_else(|_| "python3".into());
    let config = ServerConfig::stdio("chatty", python, vec![script.display().to_string()])
        .with_connect_timeout(Duration::from_millis(1500));
    let e = Session::connect(&config)
        .await
        .expect_err("no answer to initialize");
    let text = e.to_string();
    assert!(
        text.starts_with("server \"chatty\": no answer to initialize within 1.5 s"),
        "{text}"
    );
    assert!(
        text.contains("the server wrote 2 lines to stdout that are not JSON-RPC and were skipped: \"Starting MCP server on stdio...\""),
        "{text}"
    );
    assert!(text.contains("log to stderr"), "{text}");
    assert_plain(&text);
}
