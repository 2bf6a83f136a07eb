//! The runtime against the fault server (`mcp-demo-server --faults`): every fault yields the
//! right error within its deadline, and the session survives it.
//!
//! Every test body runs under `tokio::time::timeout`, so a regression fails instead of
//! hanging.

use crate::common;

use common::{bounded, stderr_line};

use std::time::{Duration, Instant};

use mcp_bindgen::{CallOptions, ConnectOptions, Error, Health, ServerConfig, Session};
use serde_json::{Value, json};

/// Margin on top of a deadline for the error to arrive (process scheduling, cancellation).
const MARGIN: Duration = Duration::from_millis(1500);

fn faults(extra: &[&str]) -> ServerConfig {
    let mut args = vec!["--faults".to_string()];
    args.extend(extra.iter().map(|s| s.to_string()));
    ServerConfig::stdio(
        "faults",
        common::demo_server().to_string_lossy().into_owned(),
        args,
    )
}

async fn connect(config: &ServerConfig) -> Session {
    Session::connect(config)
        .await
        .expect("connect to the fault server")
}

async fn echo(session: &Session, message: &str) -> mcp_bindgen::Result<String> {
    session
        .call("echo", &json!({"message": message}))
        .await
        .map(|o| o.text())
}

#[tokio::test]
async fn hang_times_out_with_the_idle_limit_and_the_server_is_cancelled() {
    bounded(Duration::from_secs(20), async {
        let session = connect(&faults(&[])).await;
        let limit = Duration::from_millis(800);
        let started = Instant::now();
        let err = session
            .call_with("hang", &json!({}), CallOptions::new().with_timeout(limit))
            .await
            .expect_err("hang never answers");
        let elapsed = started.elapsed();
        assert!(elapsed >= limit && elapsed < limit + MARGIN, "{elapsed:?}");
        match &err {
            Error::Timeout {
                server,
                what,
                limit: l,
                kind,
                diagnosis,
            } => {
                assert_eq!(
                    (server.as_str(), what.as_str()),
                    ("faults", "tools/call \"hang\"")
                );
                assert_eq!((*l, *kind), (limit, "idle timeout"));
                assert_eq!(diagnosis, &None, "the server wrote nothing odd");
            }
            other => panic!("expected Timeout, got {other:?}"),
        }
        assert_eq!(
            err.to_string(),
            "server \"faults\": tools/call \"hang\" timed out after 800 ms (idle timeout)"
        );
        stderr_line(&session, "hang: request").await;
        assert!(
            stderr_line(&session, "hang: request")
                .await
                .contains("cancelled")
        );
        // The session is still usable.
        assert_eq!(echo(&session, "after").await.unwrap(), "after");
    })
    .await;
}

#[tokio::test]
async fn dropping_a_call_future_cancels_it_on_the_server() {
    bounded(Duration::from_secs(20), async {
        let session = connect(&faults(&[])).await;
        let args = json!({});
        let call = session.call("hang", &args);
        assert!(
            tokio::time::timeout(Duration::from_millis(300), call)
                .await
                .is_err()
        );
        // The dropped future sent notifications/cancelled; the server logs it.
        let line = stderr_line(&session, "hang: request").await;
        assert!(line.contains("cancelled"), "{line}");
        assert_eq!(echo(&session, "still here").await.unwrap(), "still here");
    })
    .await;
}

#[tokio::test]
async fn crash_is_a_transport_error_with_the_stderr_tail_and_the_next_call_reconnects() {
    bounded(Duration::from_secs(20), async {
        let session = connect(&faults(&[])).await;
        assert!(session.health().await.is_ok());
        let started = Instant::now();
        let err = session
            .call("crash", &json!({"code": 3}))
            .await
            .expect_err("crash never answers");
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
        match &err {
            Error::Transport {
                server,
                message,
                stderr_tail,
            } => {
                assert_eq!(server, "faults");
                assert!(message.contains("tools/call \"crash\""), "{message}");
                assert!(
                    stderr_tail
                        .iter()
                        .any(|l| l.contains("crash tool called: exiting abruptly with status 3")),
                    "{stderr_tail:?}"
                );
            }
            other => panic!("expected Transport, got {other:?}"),
        }
        let shown = err.to_string();
        assert!(shown.contains("server stderr (last lines)"), "{shown}");
        assert!(shown.contains("exiting abruptly with status 3"), "{shown}");
        assert_eq!(session.health().await, Health::TransportClosed);
        // The next call starts a new server process.
        assert_eq!(echo(&session, "again").await.unwrap(), "again");
        assert!(session.health().await.is_ok());
    })
    .await;
}

#[tokio::test]
async fn garbage_on_stdout_is_skipped() {
    bounded(Duration::from_secs(20), async {
        let session = connect(&faults(&[])).await;
        let out = session.call("garbage", &json!({"lines": 7})).await.unwrap();
        assert!(!out.is_error);
        assert_eq!(out.text(), "wrote 7 garbage line(s) before this answer");
        assert_eq!(echo(&session, "clean").await.unwrap(), "clean");
        // A later time-out says what the server wrote to stdout instead of JSON-RPC.
        let err = session
            .call_with(
                "hang",
                &json!({}),
                CallOptions::new().with_timeout(Duration::from_millis(300)),
            )
            .await
            .expect_err("hang never answers");
        let text = err.to_string();
        assert!(
            text.contains("the server wrote 7 lines to stdout that are not JSON-RPC"),
            "{text}"
        );
        assert!(
            text.contains("\"this is not JSON\" (not JSON: expected ident at line 1 column 2)"),
            "{text}"
        );
        assert!(text.contains("and 4 more"), "{text}");
        assert!(text.contains("log to stderr"), "{text}");
    })
    .await;
}

#[tokio::test]
async fn a_16_mib_result_arrives_intact() {
    bounded(Duration::from_secs(30), async {
        let session = connect(&faults(&[])).await;
        let out = session
            .call_with(
                "huge",
                &json!({}),
                CallOptions::new().with_timeout(Duration::from_secs(20)),
            )
            .await
            .unwrap();
        let text = out.text();
        assert_eq!(text.len(), 16 * 1024 * 1024);
        let bad = text
            .bytes()
            .enumerate()
            .find(|(i, b)| *b != b'a' + (*i % 26) as u8);
        assert_eq!(bad, None, "first wrong byte");
        assert_eq!(echo(&session, "small").await.unwrap(), "small");
    })
    .await;
}

#[tokio::test]
async fn per_tool_and_per_call_deadlines() {
    bounded(Duration::from_secs(20), async {
        // Registry-level: `tool_timeouts = { sleep = 0.4 }` overrides `timeout = 30`.
        let config = faults(&[])
            .with_timeout(Duration::from_secs(30))
            .with_tool_timeout("sleep", Duration::from_millis(400));
        let session = connect(&config).await;
        let started = Instant::now();
        let err = session
            .call("sleep", &json!({"ms": 5000}))
            .await
            .expect_err("sleep outlives its deadline");
        assert!(started.elapsed() < Duration::from_millis(400) + MARGIN);
        assert!(
            matches!(&err, Error::Timeout { limit, kind: "idle timeout", .. } if *limit == Duration::from_millis(400)),
            "{err:?}"
        );
        stderr_line(&session, "sleep: request").await;
        // Short enough: fine.
        let ok = session.call("sleep", &json!({"ms": 50})).await.unwrap();
        assert_eq!(ok.text(), "slept 50 ms");
        // The call's own deadline wins over the registry's.
        let ok = session
            .call_with(
                "sleep",
                &json!({"ms": 700}),
                CallOptions::new().with_timeout(Duration::from_secs(5)),
            )
            .await
            .unwrap();
        assert_eq!(ok.text(), "slept 700 ms");
    })
    .await;
}

#[tokio::test]
async fn progress_resets_the_idle_deadline_but_not_the_total() {
    bounded(Duration::from_secs(20), async {
        let session = connect(&faults(&[])).await;
        // 8 steps of 150 ms (1.2 s in all) with a 500 ms idle deadline: progress keeps it alive.
        let out = session
            .call_with(
                "long_task",
                &json!({"steps": 8, "delay_ms": 150}),
                CallOptions::new().with_timeout(Duration::from_millis(500)),
            )
            .await
            .unwrap();
        assert!(!out.is_error, "{out:?}");
        // The same with a 600 ms total: the total deadline ends it.
        let started = Instant::now();
        let err = session
            .call_with(
                "long_task",
                &json!({"steps": 8, "delay_ms": 150}),
                CallOptions::new()
                    .with_timeout(Duration::from_millis(500))
                    .with_max_total(Duration::from_millis(600)),
            )
            .await
            .expect_err("total deadline");
        assert!(started.elapsed() < Duration::from_millis(600) + MARGIN);
        assert!(
            matches!(&err, Error::Timeout { kind: "total timeout", limit, .. } if *limit == Duration::from_millis(600)),
            "{err:?}"
        );
        stderr_line(&session, "long_task cancelled").await;
    })
    .await;
}

#[tokio::test]
async fn exit_after_n_calls_fails_the_call_in_flight_then_reconnects() {
    bounded(Duration::from_secs(20), async {
        let session = connect(&faults(&["--exit-after", "2"])).await;
        assert_eq!(echo(&session, "one").await.unwrap(), "one");
        // `hang` is in flight when the second answered call makes the server exit.
        let hanging = {
            let s = session.clone();
            tokio::spawn(async move {
                s.call_with(
                    "hang",
                    &json!({}),
                    CallOptions::new().with_timeout(Duration::from_secs(10)),
                )
                .await
            })
        };
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(echo(&session, "two").await.unwrap(), "two");
        let started = Instant::now();
        // The server either dies with `hang` in flight (transport error with its last
        // stderr lines) or cancels it on its way out (a tool error); never a hang.
        match hanging.await.unwrap() {
            Err(Error::Transport { stderr_tail, .. }) => assert!(
                stderr_tail
                    .iter()
                    .any(|l| l.contains("exiting (--exit-after)")),
                "{stderr_tail:?}"
            ),
            Ok(out) => assert!(out.is_error, "{out:?}"),
            Err(other) => panic!("expected Transport, got {other:?}"),
        }
        assert!(started.elapsed() < Duration::from_secs(3));
        stderr_line(&session, "exiting (--exit-after)").await;
        let deadline = Instant::now() + Duration::from_secs(5);
        while session.health().await != Health::TransportClosed {
            assert!(Instant::now() < deadline, "the transport never closed");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // Not replayed: `hang` is neither read-only nor idempotent, and nobody opted in.
        assert_eq!(echo(&session, "three").await.unwrap(), "three");
    })
    .await;
}

#[tokio::test]
async fn a_call_cut_off_mid_flight_is_replayed_only_when_opted_in_and_idempotent() {
    bounded(Duration::from_secs(30), async {
        let session = connect(&faults(&[])).await;
        let task = json!({"steps": 6, "delay_ms": 150});
        for opt_in in [false, true] {
            let call = {
                let s = session.clone();
                let task = task.clone();
                tokio::spawn(async move {
                    let options = if opt_in {
                        CallOptions::new().with_retry_if_idempotent()
                    } else {
                        CallOptions::new()
                    };
                    // `long_task` is annotated readOnlyHint.
                    s.call_with("long_task", &task, options).await
                })
            };
            tokio::time::sleep(Duration::from_millis(300)).await;
            // A second session? No: the same server process, crashed by another call.
            let _ = session.call("crash", &json!({})).await;
            let result = call.await.unwrap();
            if opt_in {
                let out = result.expect("replayed on a new connection");
                assert!(out.text().contains("6 step(s)"), "{}", out.text());
            } else {
                assert!(matches!(result, Err(Error::Transport { .. })), "{result:?}");
            }
        }
        // A tool without annotations is never replayed, even when opted in.
        let hanging = {
            let s = session.clone();
            tokio::spawn(async move {
                s.call_with(
                    "sleep",
                    &json!({"ms": 3000}),
                    CallOptions::new().with_retry_if_idempotent(),
                )
                .await
            })
        };
        tokio::time::sleep(Duration::from_millis(300)).await;
        let _ = session.call("crash", &json!({})).await;
        assert!(matches!(
            hanging.await.unwrap(),
            Err(Error::Transport { .. })
        ));
    })
    .await;
}

#[tokio::test]
async fn slow_start_beyond_the_connect_timeout_is_a_clear_error() {
    bounded(Duration::from_secs(20), async {
        let config = faults(&["--startup-delay-ms", "5000"]);
        let limit = Duration::from_millis(700);
        let started = Instant::now();
        let err = ConnectOptions::new()
            .with_connect_timeout(limit)
            .connect(&config)
            .await
            .expect_err("the server starts too slowly");
        assert!(
            started.elapsed() < limit + MARGIN,
            "{:?}",
            started.elapsed()
        );
        let shown = err.to_string();
        assert!(
            shown.starts_with("server \"faults\": no answer to initialize within 700 ms"),
            "{shown}"
        );
        assert!(shown.contains("connect_timeout"), "{shown}");
        assert!(shown.contains("startup delay: sleeping 5000 ms"), "{shown}");
        // The registry's `connect_timeout` does the same.
        let config = faults(&["--startup-delay-ms", "5000"]).with_connect_timeout(limit);
        let err = Session::connect(&config).await.expect_err("too slow");
        assert!(matches!(err, Error::Transport { .. }), "{err:?}");
    })
    .await;
}

/// Under `protocol = "auto"` rmcp waits 10 s for `server/discover`, then sends
/// `initialize`. A server that was only slow to start answers both, the probe first: that
/// late answer must not be taken for `initialize`'s (it was, as "uncorrelated error
/// response: expected id 1, error response carried 0", when slow Python servers started
/// in parallel).
#[tokio::test]
async fn a_late_answer_to_the_revision_probe_is_not_taken_for_initialize() {
    bounded(Duration::from_secs(40), async {
        let config = faults(&["--startup-delay-ms", "11000", "--protocol", "2025-11-25"]);
        let session = connect(&config).await;
        assert_eq!(session.server_info().protocol_version, "2025-11-25");
        assert_eq!(
            echo(&session, "after a slow start").await.unwrap(),
            "after a slow start"
        );
    })
    .await;
}

#[tokio::test]
async fn lazy_sessions_connect_on_first_use_and_closed_ones_stay_closed() {
    bounded(Duration::from_secs(20), async {
        let session = ConnectOptions::new()
            .lazy()
            .connect(&faults(&[]))
            .await
            .unwrap();
        assert_eq!(session.health().await, Health::NotConnected);
        assert_eq!(session.server_info().name, "");
        assert_eq!(echo(&session, "lazy").await.unwrap(), "lazy");
        assert_eq!(session.server_info().name, "mcp-demo-server");
        assert!(matches!(session.health().await, Health::Ok { .. }));
        let clone = session.clone();
        session.close().await.unwrap();
        assert_eq!(clone.health().await, Health::Closed);
        let err = echo(&clone, "x").await.expect_err("closed");
        assert!(err.to_string().contains("session was closed"), "{err}");
        // A server that cannot start: the lazy session reports it on first use.
        let broken = ServerConfig::stdio("broken", "/nonexistent/mcp-server", vec![]);
        let session = ConnectOptions::new().lazy().connect(&broken).await.unwrap();
        let err = session.list_tools().await.expect_err("cannot start");
        assert!(
            err.to_string()
                .starts_with("server \"broken\": cannot start `/nonexistent/mcp-server`"),
            "{err}"
        );
    })
    .await;
}

#[tokio::test]
async fn typed_results_from_structured_content_with_text_fallback() {
    #[derive(serde::Deserialize, Debug)]
    struct Report {
        city: String,
        current: Value,
    }
    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Sum {
        sum: f64,
    }
    bounded(Duration::from_secs(20), async {
        let session = connect(&faults(&[])).await;
        // structuredContent.
        let report: Report = session
            .call_structured("get_weather", &json!({"city": "Oslo"}), CallOptions::new())
            .await
            .unwrap();
        assert_eq!(report.city, "Oslo");
        assert!(report.current.get("temperature").is_some());
        // isError is Error::Tool with the content.
        let err = session
            .call_structured::<_, Value>("fail", &json!({"message": "nope"}), CallOptions::new())
            .await
            .expect_err("fail fails");
        assert!(
            matches!(&err, Error::Tool { tool, .. } if tool == "fail"),
            "{err:?}"
        );
        assert!(err.to_string().contains("nope"), "{err}");
        // A type that does not fit: Decode names the type and quotes the JSON.
        let err = session
            .call_structured::<_, Sum>("get_weather", &json!({"city": "Oslo"}), CallOptions::new())
            .await
            .expect_err("wrong type");
        match &err {
            Error::Decode {
                type_name, excerpt, ..
            } => {
                assert!(type_name.ends_with("Sum"), "{type_name}");
                assert!(excerpt.contains("Oslo"), "{excerpt}");
            }
            other => panic!("expected Decode, got {other:?}"),
        }
        // Fallback: JSON in the first text block (echo returns the text as is).
        let out = session
            .call("echo", &json!({"message": "{\"sum\": 3}"}))
            .await
            .unwrap();
        assert_eq!(out.structured, None);
        let sum: Sum = session.decode("echo", out).unwrap();
        assert_eq!(sum, Sum { sum: 3.0 });
    })
    .await;
}
