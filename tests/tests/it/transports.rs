//! The three transports against real servers: the embedded demo server (stdio, Streamable
//! HTTP) and server-everything (stdio, legacy SSE, Streamable HTTP).

use crate::common;

use std::time::Duration;

use mcp_bindgen::{CallOptions, Error, NoArgs, ServerConfig, Session};
use serde_json::{Value, json};

use common::connect;

fn names(tools: &[Value]) -> Vec<String> {
    let mut n: Vec<String> = tools
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_string())
        .collect();
    n.sort();
    n
}

fn sorted(mut tools: Vec<Value>) -> Vec<Value> {
    tools.sort_by_key(|t| t["name"].as_str().unwrap_or_default().to_string());
    tools
}

#[tokio::test]
async fn demo_over_stdio_lists_and_calls() {
    let config = common::registry()
        .get("demo")
        .expect("demo in registry")
        .clone();
    let session = connect(&config).await;
    assert_eq!(session.transport(), "stdio");
    assert_eq!(session.server_info().name, "mcp-demo-server");
    let tools = session.list_tools().await.expect("tools/list");
    let names = names(&tools);
    for expected in ["add", "echo", "fail", "long_task"] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} in {names:?}"
        );
    }
    let out = session
        .call("echo", &json!({"message": "hi"}))
        .await
        .expect("echo");
    assert!(!out.is_error);
    assert!(out.text().contains("hi"), "{}", out.text());

    let out = session
        .call("fail", &json!({"message": "nope"}))
        .await
        .expect("a tool error is a result");
    assert!(out.is_error, "fail must set isError");
    let err = session
        .call_structured::<_, Value>("fail", &json!({"message": "nope"}), CallOptions::default())
        .await
        .expect_err("call_structured turns isError into Error::Tool");
    assert!(matches!(err, Error::Tool { .. }), "{err}");
    assert!(err.to_string().contains("nope"), "{err}");

    let err = session
        .call("no_such_tool", &NoArgs {})
        .await
        .expect_err("unknown tool");
    assert!(matches!(err, Error::Protocol { .. }), "{err:?}");
    session.close().await.expect("close");
}

#[tokio::test]
async fn demo_over_streamable_http_matches_stdio() {
    let (_guard, url) = common::start_demo_http();
    let http = connect(&ServerConfig::http("demo-http", false, url)).await;
    assert_eq!(http.transport(), "streamable-http");
    let stdio = connect(common::registry().get("demo").expect("demo")).await;
    let over_http = sorted(http.list_tools().await.expect("tools/list over http"));
    let over_stdio = sorted(stdio.list_tools().await.expect("tools/list over stdio"));
    assert!(!over_stdio.is_empty());
    assert_eq!(over_http, over_stdio);
    let out = http
        .call("add", &json!({"a": 2, "b": 40}))
        .await
        .expect("add over http");
    assert!(out.text().contains("42"), "{}", out.text());
}

#[tokio::test]
async fn everything_is_the_same_over_stdio_sse_and_streamable_http() {
    let stdio_config = common::installed("everything");
    let stdio = connect(&stdio_config).await;
    let reference = sorted(stdio.list_tools().await.expect("stdio tools/list"));
    assert!(
        reference.len() >= 10,
        "server-everything lists {} tools",
        reference.len()
    );

    let (_sse_guard, sse_port) = common::start_everything_http("sse");
    let sse = connect(&ServerConfig::http(
        "everything-sse",
        true,
        format!("http://127.0.0.1:{sse_port}/sse"),
    ))
    .await;
    assert_eq!(sse.transport(), "sse");
    assert_eq!(
        sorted(sse.list_tools().await.expect("sse tools/list")),
        reference
    );
    let out = sse
        .call("echo", &json!({"message": "over sse"}))
        .await
        .expect("echo over sse");
    assert!(out.text().contains("over sse"), "{}", out.text());

    let (_http_guard, http_port) = common::start_everything_http("streamableHttp");
    let http = connect(&ServerConfig::http(
        "everything-http",
        false,
        format!("http://127.0.0.1:{http_port}/mcp"),
    ))
    .await;
    assert_eq!(
        sorted(http.list_tools().await.expect("http tools/list")),
        reference
    );
    let out = http
        .call("echo", &json!({"message": "over http"}))
        .await
        .expect("echo over streamable http");
    assert!(out.text().contains("over http"), "{}", out.text());
}

#[tokio::test]
async fn a_server_that_dies_at_start_reports_its_stderr() {
    let config = ServerConfig::stdio(
        "dying",
        "sh",
        vec![
            "-c".into(),
            "echo 'fatal: cannot open database' >&2; exit 3".into(),
        ],
    )
    .with_timeout(Duration::from_secs(5));
    let err = Session::connect(&config).await.expect_err("must fail");
    let text = err.to_string();
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
    assert!(text.contains("server \"dying\""), "{text}");
    // The stderr reader may lose the race with the exit on a loaded machine only if the
    // line was never written; the tail is read before the error is built.
    assert!(text.contains("fatal: cannot open database"), "{text}");
}

#[tokio::test]
async fn a_missing_command_is_a_clear_error() {
    let config = ServerConfig::stdio("ghost", "/nonexistent/mcp-server", vec![]);
    let err = Session::connect(&config).await.expect_err("must fail");
    assert!(
        err.to_string()
            .contains("cannot start `/nonexistent/mcp-server`"),
        "{err}"
    );
}

#[tokio::test]
async fn sse_endpoint_that_is_not_sse_fails_fast() {
    let (_guard, url) = common::start_demo_http();
    // A Streamable HTTP endpoint does not answer a bare GET with an `endpoint` event.
    let config = ServerConfig::http("not-sse", true, url).with_timeout(Duration::from_secs(3));
    let started = std::time::Instant::now();
    let err = Session::connect(&config).await.expect_err("must fail");
    assert!(
        started.elapsed() < Duration::from_secs(35),
        "took {:?}",
        started.elapsed()
    );
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
}
