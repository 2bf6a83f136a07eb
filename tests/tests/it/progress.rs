//! Per-call progress: `notifications/progress` reach the call's observer in order, before
//! the call returns — from the demo server (stdio and Streamable HTTP) and from
//! server-everything's long-running tool.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_bindgen::{CallOptions, ConnectOptions, Progress, ServerConfig, Session};
use serde_json::json;

async fn bounded<F: std::future::Future<Output = ()>>(limit: Duration, body: F) {
    if tokio::time::timeout(limit, body).await.is_err() {
        panic!("test did not finish within {limit:?}");
    }
}

/// Calls `tool` with a recording observer; returns the updates seen when the call returned.
async fn with_progress(
    session: &Session,
    tool: &str,
    args: serde_json::Value,
) -> (mcp_bindgen::ToolOutput, Vec<Progress>) {
    let seen: Arc<Mutex<Vec<Progress>>> = Arc::default();
    let sink = seen.clone();
    let options = CallOptions::new()
        .with_timeout(Duration::from_secs(10))
        .on_progress(move |p| sink.lock().unwrap().push(p));
    let out = session.call_with(tool, &args, options).await.unwrap();
    let seen = seen.lock().unwrap().clone();
    (out, seen)
}

fn assert_in_order(seen: &[Progress], n: usize, total: Option<f64>) {
    let values: Vec<f64> = seen.iter().map(|p| p.progress).collect();
    let expected: Vec<f64> = (1..=n).map(|i| i as f64).collect();
    assert_eq!(values, expected, "{seen:?}");
    assert!(seen.iter().all(|p| p.total == total), "{seen:?}");
}

#[tokio::test]
async fn demo_long_task_progress_over_stdio_and_http() {
    bounded(Duration::from_secs(30), async {
        let stdio = Session::connect(&ServerConfig::stdio(
            "demo",
            common::demo_server().to_string_lossy().into_owned(),
            vec![],
        ))
        .await
        .unwrap();
        let (_guard, url) = common::start_demo_http();
        let http = Session::connect(&ServerConfig::http("demo-http", false, url))
            .await
            .unwrap();
        for session in [&stdio, &http] {
            // Many fast steps: ordering problems would show.
            let (out, seen) =
                with_progress(session, "long_task", json!({"steps": 40, "delay_ms": 0})).await;
            assert!(!out.is_error, "{out:?}");
            assert_in_order(&seen, 40, Some(40.0));
            assert!(
                out.text().contains("40 progress notification(s) sent"),
                "{}",
                out.text()
            );
            // Two calls at once: each observer sees only its own updates.
            let (a, b) = tokio::join!(
                with_progress(session, "long_task", json!({"steps": 5, "delay_ms": 20})),
                with_progress(session, "long_task", json!({"steps": 7, "delay_ms": 10})),
            );
            assert_in_order(&a.1, 5, Some(5.0));
            assert_in_order(&b.1, 7, Some(7.0));
        }
    })
    .await;
}

#[tokio::test]
async fn everything_long_running_operation_reports_progress_in_order() {
    bounded(Duration::from_secs(30), async {
        let config = common::installed("everything");
        let session = ConnectOptions::new()
            .with_env_lookup(common::lookup)
            .connect(&config)
            .await
            .unwrap();
        let (out, seen) = with_progress(
            &session,
            "trigger-long-running-operation",
            json!({"duration": 1, "steps": 4}),
        )
        .await;
        assert!(!out.is_error, "{out:?}");
        assert_in_order(&seen, 4, Some(4.0));
        assert!(out.text().contains("completed"), "{}", out.text());
    })
    .await;
}
