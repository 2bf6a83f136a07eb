//! `Session::call_stream`: a call as a stream of events against the demo server — its
//! progress in order, log messages that arrive while it runs, then exactly one result or
//! error (the one `call_with` gives); deadlines and dropping the stream cancel the call.
//!
//! Every test body runs under `tokio::time::timeout`, so a regression fails instead of
//! hanging.

use crate::common;

use common::{bounded, stderr_line};

use std::time::{Duration, Instant};

use futures::StreamExt;
use mcp_bindgen::{CallEvent, CallOptions, Error, ErrorKind, ServerConfig, Session, ToolOutput};
use serde_json::{Value, json};

async fn connect(config: &ServerConfig) -> Session {
    Session::connect(config)
        .await
        .expect("connect to the demo server")
}

/// The demo server over stdio, with the fault tools (`hang`, `log`, `sleep`) when `faults`.
fn stdio(faults: bool) -> ServerConfig {
    let args = if faults {
        vec!["--faults".to_string()]
    } else {
        Vec::new()
    };
    ServerConfig::stdio(
        "demo",
        common::demo_server().to_string_lossy().into_owned(),
        args,
    )
}

/// Every event of a call, checking the stream's shape on the way: increasing `seq` from 0,
/// exactly one terminal event, last, then the end.
async fn events(
    session: &Session,
    tool: &str,
    args: Value,
    options: CallOptions,
) -> Vec<CallEvent> {
    let started = std::time::SystemTime::now();
    let mut stream = session.call_stream(tool, &args, options);
    let mut seen: Vec<CallEvent> = Vec::new();
    while let Some(event) = stream.next().await {
        assert!(
            !seen.last().is_some_and(CallEvent::is_terminal),
            "an event after the terminal one: {event:?}"
        );
        seen.push(event);
    }
    assert!(
        seen.last().is_some_and(CallEvent::is_terminal),
        "no terminal event: {seen:?}"
    );
    let seqs: Vec<u64> = seen.iter().map(CallEvent::seq).collect();
    assert_eq!(seqs, (0..seen.len() as u64).collect::<Vec<_>>(), "{seen:?}");
    // Every event carries when it arrived: in order, within the call.
    let times: Vec<std::time::SystemTime> = seen.iter().map(CallEvent::at).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    assert!(
        times
            .iter()
            .all(|t| *t >= started && *t <= std::time::SystemTime::now())
    );
    assert!(stream.next().await.is_none(), "the stream ended");
    seen
}

/// The terminal event as `call_with`'s result.
fn outcome(events: Vec<CallEvent>) -> mcp_bindgen::Result<ToolOutput> {
    events
        .into_iter()
        .last()
        .and_then(CallEvent::into_result)
        .expect("a terminal event")
}

fn progress_values(events: &[CallEvent]) -> Vec<f64> {
    events
        .iter()
        .filter_map(|e| match e {
            CallEvent::Progress { progress, .. } => Some(*progress),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn progress_in_order_then_the_result_call_with_gives_over_stdio_and_http() {
    bounded(Duration::from_secs(30), async {
        let stdio = connect(&stdio(false)).await;
        let (_guard, url) = common::start_demo_http();
        let http = connect(&ServerConfig::http("demo-http", false, url)).await;
        for session in [&stdio, &http] {
            let what = session.transport();
            let args = json!({"steps": 12, "delay_ms": 2});
            let seen = events(session, "long_task", args.clone(), CallOptions::new()).await;
            assert_eq!(seen.len(), 13, "{what}: {seen:?}");
            assert_eq!(
                progress_values(&seen),
                (1..=12).map(f64::from).collect::<Vec<_>>(),
                "{what}"
            );
            for (i, event) in seen.iter().take(12).enumerate() {
                match event {
                    CallEvent::Progress { total, message, .. } => {
                        assert_eq!(*total, Some(12.0), "{what}");
                        assert_eq!(
                            message.as_deref(),
                            Some(format!("step {} of 12", i + 1).as_str()),
                            "{what}"
                        );
                    }
                    other => panic!("{what}: expected progress, got {other:?}"),
                }
            }
            let streamed = outcome(seen).expect("long_task succeeds");
            let called = session
                .call_with("long_task", &args, CallOptions::new())
                .await
                .expect("long_task succeeds");
            assert_eq!(streamed, called, "{what}");
            assert!(
                streamed.text().contains("12 progress notification(s) sent"),
                "{what}: {}",
                streamed.text()
            );
        }
    })
    .await;
}

#[tokio::test]
async fn two_streams_at_once_each_see_only_their_own_progress() {
    bounded(Duration::from_secs(30), async {
        let session = connect(&stdio(false)).await;
        let (a, b) = tokio::join!(
            events(
                &session,
                "long_task",
                json!({"steps": 5, "delay_ms": 20}),
                CallOptions::new()
            ),
            events(
                &session,
                "long_task",
                json!({"steps": 7, "delay_ms": 10}),
                CallOptions::new()
            ),
        );
        assert_eq!(progress_values(&a), [1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(progress_values(&b), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
    })
    .await;
}

#[tokio::test]
async fn a_progress_observer_of_the_options_is_still_called() {
    bounded(Duration::from_secs(30), async {
        let session = connect(&stdio(false)).await;
        let observed = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = observed.clone();
        let options = CallOptions::new().on_progress(move |p| {
            if let Ok(mut v) = sink.lock() {
                v.push(p.progress);
            }
        });
        let seen = events(
            &session,
            "long_task",
            json!({"steps": 4, "delay_ms": 2}),
            options,
        )
        .await;
        assert_eq!(progress_values(&seen), [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(*observed.lock().expect("observer"), [1.0, 2.0, 3.0, 4.0]);
    })
    .await;
}

#[tokio::test]
async fn tool_errors_and_unknown_tools_end_as_call_with_ends() {
    bounded(Duration::from_secs(30), async {
        let session = connect(&stdio(false)).await;
        // A tool-level error is a result with `is_error`, as `call_with` gives it.
        let args = json!({"message": "no luck"});
        let seen = events(&session, "fail", args.clone(), CallOptions::new()).await;
        assert_eq!(seen.len(), 1, "{seen:?}");
        let streamed = outcome(seen).expect("a tool error is a result");
        assert!(streamed.is_error, "{streamed:?}");
        assert_eq!(streamed.text(), "no luck");
        let called = session
            .call_with("fail", &args, CallOptions::new())
            .await
            .expect("a tool error is a result");
        assert_eq!(streamed, called);
        // An unknown tool ends the stream as the call ends.
        let seen = events(&session, "no_such_tool", json!({}), CallOptions::new()).await;
        assert_eq!(seen.len(), 1, "{seen:?}");
        let streamed = outcome(seen);
        let called = session
            .call_with("no_such_tool", &json!({}), CallOptions::new())
            .await;
        match (&streamed, &called) {
            (Err(s), Err(c)) => {
                assert_eq!(s.kind(), c.kind());
                assert_eq!(s.to_string(), c.to_string());
            }
            (Ok(s), Ok(c)) => {
                assert!(s.is_error, "{s:?}");
                assert_eq!(s, c);
            }
            _ => panic!("stream {streamed:?}, call_with {called:?}"),
        }
        // Arguments that are not an object fail before anything is sent, as in `call_with`.
        let seen = events(&session, "echo", json!([1, 2]), CallOptions::new()).await;
        match outcome(seen) {
            Err(e @ Error::Encode { .. }) => assert!(e.to_string().contains("array"), "{e}"),
            other => panic!("expected an encode error, got {other:?}"),
        }
    })
    .await;
}

#[tokio::test]
async fn a_deadline_shorter_than_the_tool_ends_with_the_timeout_error() {
    bounded(Duration::from_secs(30), async {
        let session = connect(&stdio(false)).await;
        let limit = Duration::from_millis(400);
        let args = json!({"steps": 1, "delay_ms": 5000});
        let started = Instant::now();
        let seen = events(
            &session,
            "long_task",
            args.clone(),
            CallOptions::new().with_timeout(limit),
        )
        .await;
        let elapsed = started.elapsed();
        assert!(
            elapsed >= limit && elapsed < limit + Duration::from_millis(1500),
            "{elapsed:?}"
        );
        assert_eq!(seen.len(), 1, "{seen:?}");
        let streamed = outcome(seen).expect_err("the deadline expires");
        assert_eq!(streamed.kind(), ErrorKind::Timeout);
        assert!(
            matches!(&streamed, Error::Timeout { kind: "idle timeout", limit: l, .. } if *l == limit),
            "{streamed:?}"
        );
        let called = session
            .call_with("long_task", &args, CallOptions::new().with_timeout(limit))
            .await
            .expect_err("the deadline expires");
        assert_eq!(streamed.to_string(), called.to_string());
        // The server was told: both calls were cancelled.
        stderr_line(&session, "long_task cancelled").await;
        // A total deadline while progress keeps coming: progress events, then the error.
        let seen = events(
            &session,
            "long_task",
            json!({"steps": 40, "delay_ms": 50}),
            CallOptions::new()
                .with_timeout(Duration::from_millis(500))
                .with_max_total(Duration::from_millis(600)),
        )
        .await;
        assert!(!progress_values(&seen).is_empty(), "{seen:?}");
        let last = outcome(seen).expect_err("the total deadline expires");
        assert!(
            matches!(&last, Error::Timeout { kind: "total timeout", .. }),
            "{last:?}"
        );
        let out = session
            .call("echo", &json!({"message": "after"}))
            .await
            .expect("echo");
        assert_eq!(out.text(), "after");
    })
    .await;
}

#[tokio::test]
async fn dropping_the_stream_cancels_the_call_and_the_session_stays_usable() {
    bounded(Duration::from_secs(30), async {
        let session = connect(&stdio(true)).await;
        // Dropped mid-progress.
        let mut stream = session.call_stream(
            "long_task",
            &json!({"steps": 100, "delay_ms": 50}),
            CallOptions::new(),
        );
        for expected in [1.0, 2.0] {
            match stream.next().await {
                Some(CallEvent::Progress { progress, .. }) => assert_eq!(progress, expected),
                other => panic!("expected progress, got {other:?}"),
            }
        }
        drop(stream);
        stderr_line(&session, "long_task cancelled").await;
        // Dropped while waiting for an answer that never comes.
        let mut stream = session.call_stream("hang", &json!({}), CallOptions::new());
        assert!(
            tokio::time::timeout(Duration::from_millis(300), stream.next())
                .await
                .is_err()
        );
        drop(stream);
        let line = stderr_line(&session, "hang: request").await;
        assert!(line.contains("cancelled"), "{line}");
        // The next calls work, streamed or not.
        let out = session
            .call("echo", &json!({"message": "still here"}))
            .await
            .expect("echo");
        assert_eq!(out.text(), "still here");
        let seen = events(
            &session,
            "long_task",
            json!({"steps": 2, "delay_ms": 1}),
            CallOptions::new(),
        )
        .await;
        assert_eq!(progress_values(&seen), [1.0, 2.0]);
        assert!(outcome(seen).is_ok());
    })
    .await;
}

#[tokio::test]
async fn log_messages_that_arrive_during_the_call_are_events() {
    bounded(Duration::from_secs(30), async {
        let session = connect(&stdio(true)).await;
        // MCP log messages are not tied to a request: one sent by another call while this
        // one runs is in this call's stream.
        let (seen, logged) = tokio::join!(
            events(&session, "sleep", json!({"ms": 1500}), CallOptions::new()),
            async {
                tokio::time::sleep(Duration::from_millis(200)).await;
                session
                    .call("log", &json!({"text": "disk almost full"}))
                    .await
            }
        );
        assert_eq!(logged.expect("log").text(), "logged");
        assert_eq!(seen.len(), 2, "{seen:?}");
        match &seen[0] {
            CallEvent::Log {
                seq,
                level,
                logger,
                data,
                ..
            } => {
                assert_eq!(*seq, 0);
                assert_eq!(level, "warning");
                assert_eq!(logger.as_deref(), Some("demo"));
                assert_eq!(data, &json!({"text": "disk almost full"}));
            }
            other => panic!("expected a log message, got {other:?}"),
        }
        let out = outcome(seen).expect("sleep answers");
        assert_eq!(out.text(), "slept 1500 ms");
    })
    .await;
}
