//! Behaviour that differs between the protocol wires, against the demo server's fault
//! tools (`--faults`): elicitation answered by the application on both wires (a server
//! request on 2025-11-25, `input_required` rounds on 2026-07-28), and the `x-mcp-header`
//! rules (tools with invalid annotations left out; valid ones mirrored into `Mcp-Param-*`
//! headers even before any `tools/list`); sampling and roots answered by the application on
//! both wires, and against server-everything, whose sampling and roots tools exist only for
//! a client that declares those capabilities.

use crate::common;

use common::limited;
use mcp_bindgen::toolbox::TypedTool;
use mcp_bindgen::{
    CallOptions, ConnectOptions, ElicitationAnswer, Protocol, Root, SamplingReply, ServerConfig,
    Session, TaskState,
};
use serde_json::json;

/// The demo server with its fault tools, speaking only `revision`, over stdio.
fn stdio(revision: &str) -> ServerConfig {
    ServerConfig::stdio(
        "faults",
        common::demo_server().to_string_lossy(),
        vec!["--faults".into(), "--protocol".into(), revision.into()],
    )
}

/// The same over Streamable HTTP (the guard stops the server).
fn http(revision: &str) -> (common::ChildGuard, ServerConfig) {
    let (guard, url) = common::start_demo_http_with(&["--faults", "--protocol", revision]);
    (guard, ServerConfig::http("faults", false, url))
}

const WIRES: [(&str, Protocol); 2] = [
    ("2025-11-25", Protocol::V2025_11_25),
    ("2026-07-28", Protocol::V2026_07_28),
];

/// The fault server on every wire — stdio and Streamable HTTP at each revision, the session
/// pinned to it — with a name for messages; the guards keep the HTTP servers running.
fn every_wire() -> (Vec<common::ChildGuard>, Vec<(ServerConfig, String)>) {
    let mut guards = Vec::new();
    let mut wires = Vec::new();
    for (revision, protocol) in WIRES {
        let (guard, over_http) = http(revision);
        guards.push(guard);
        for config in [stdio(revision), over_http] {
            let what = format!("{} at {revision}", config.transport().kind());
            wires.push((config.with_protocol(protocol), what));
        }
    }
    (guards, wires)
}

async fn ask(config: &ServerConfig, options: ConnectOptions) -> String {
    let session = options.connect(config).await.expect("connect");
    let out = session.call("ask", &json!({})).await.expect("ask");
    let _ = session.close().await;
    out.text()
}

#[tokio::test]
async fn elicitation_is_answered_by_the_application_on_both_wires() {
    limited(async {
        let (_servers, wires) = every_wire();
        for (config, what) in wires {
            let callback = ConnectOptions::new().on_elicitation(|request| async move {
                assert_eq!(request.message, "What is your name?");
                assert_eq!(request.server, "faults");
                let mut answer = request.defaults();
                assert_eq!(answer.get("name"), Some(&json!("Ada")));
                answer.insert("name".into(), json!("Grace"));
                ElicitationAnswer::Accept(answer)
            });
            assert_eq!(ask(&config, callback).await, "hello Grace", "{what}");
            let defaults = ConnectOptions::new().accept_elicitation_defaults();
            assert_eq!(ask(&config, defaults).await, "hello Ada", "{what}");
            let declining =
                ConnectOptions::new().on_elicitation(|_| async { ElicitationAnswer::Decline });
            assert_eq!(
                ask(&config, declining).await,
                "the user chose decline",
                "{what}"
            );
        }
    })
    .await;
}

#[tokio::test]
async fn without_a_callback_an_input_request_is_declined_at_once() {
    limited(async {
        // The stateless wire: the session answers the `input_required` round itself.
        let config = stdio("2026-07-28").with_protocol(Protocol::V2026_07_28);
        assert_eq!(
            ask(&config, ConnectOptions::new()).await,
            "the user chose decline"
        );
    })
    .await;
}

#[tokio::test]
async fn tools_with_invalid_x_mcp_headers_are_left_out_on_every_wire() {
    limited(async {
        let (_servers, wires) = every_wire();
        for (config, what) in wires {
            let session = Session::connect(&config).await.expect("connect");
            let tools = session.list_tools().await.expect("tools/list");
            let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
            assert!(names.contains(&"region"), "{what}: {names:?}");
            assert!(!names.contains(&"bad_header"), "{what}: {names:?}");
            let rejected = session.rejected_tools();
            assert_eq!(rejected.len(), 1, "{what}: {rejected:?}");
            assert_eq!(rejected[0].0, "bad_header");
            assert!(
                rejected[0].1.contains("property \"score\"")
                    && rejected[0].1.contains("\"number\""),
                "{what}: {}",
                rejected[0].1
            );
            let _ = session.close().await;
        }
    })
    .await;
}

/// The `region` tool as generated code describes it (its `TOOL` constant).
static FIXTURE: [TypedTool; 1] = [TypedTool {
    name: "region",
    description: None,
    title: None,
    annotations: None,
    input_schema: r#"{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}"#,
    output_schema: None,
    openai_name: "mcp_faults_region",
    untyped_args_reason: None,
    normalize: None,
    normalize_output: None,
}];

#[tokio::test]
async fn a_first_call_over_http_mirrors_its_header_from_the_fixture() {
    limited(async {
        let (_guard, config) = http("2026-07-28");
        // No drift check, so no `tools/list` before the call.
        let config = config
            .with_protocol(Protocol::V2026_07_28)
            .with_drift(mcp_bindgen::drift::DriftPolicy::Ignore);
        let args = json!({"region": "eu west"});

        // Without the fixture nothing knows the annotation: the server refuses the call.
        let bare = Session::connect(&config).await.expect("connect");
        let e = bare
            .call("region", &args)
            .await
            .expect_err("no Mcp-Param-Region header");
        assert!(e.to_string().contains("Mcp-Param-Region"), "{e}");
        let _ = bare.close().await;

        let typed = ConnectOptions::new()
            .with_fixture_tools(&FIXTURE)
            .connect(&config)
            .await
            .expect("connect");
        let out = typed.call("region", &args).await.expect("region");
        assert_eq!(out.text(), "region eu west");
        let _ = typed.close().await;
    })
    .await;
}

#[tokio::test]
async fn server_logs_reach_the_callback_on_both_wires() {
    limited(async {
        let (_servers, wires) = every_wire();
        for (config, what) in wires {
            let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
            let sink = seen.clone();
            let session = ConnectOptions::new()
                .on_server_log(move |log| {
                    if let Ok(mut v) = sink.lock() {
                        v.push(log);
                    }
                })
                .connect(&config)
                .await
                .expect("connect");
            let out = session
                .call("log", &json!({"text": "disk almost full"}))
                .await
                .expect("log");
            assert_eq!(out.text(), "logged");
            // The notification travels before the answer, and is handled on its own task.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
            while seen.lock().map(|v| v.is_empty()).unwrap_or(true) {
                assert!(
                    std::time::Instant::now() < deadline,
                    "{what}: no log message"
                );
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            let logs = seen.lock().expect("logs").clone();
            assert_eq!(logs[0].server, "faults", "{what}");
            assert_eq!(logs[0].level, "warning", "{what}");
            assert_eq!(logs[0].logger.as_deref(), Some("demo"), "{what}");
            assert_eq!(logs[0].data, json!({"text": "disk almost full"}), "{what}");
            let _ = session.close().await;
        }
    })
    .await;
}

#[tokio::test]
async fn a_tool_list_change_triggers_the_drift_recheck_on_both_wires() {
    limited(async {
        let (_servers, wires) = every_wire();
        for (config, what) in wires {
            let (logs, _logging) = common::capture_logs(tracing::Level::INFO);
            // A wrong expected hash: every drift check warns, so each one is counted.
            let session = ConnectOptions::new()
                .with_fixture_hash("0000")
                .connect(&config)
                .await
                .expect("connect");
            let checks = || {
                logs.text()
                    .matches("server drifted from its fixture")
                    .count()
            };
            assert_eq!(checks(), 1, "{what}: the connect-time check");
            session.call("grow", &json!({})).await.expect("grow");
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
            while checks() < 2 {
                assert!(
                    std::time::Instant::now() < deadline,
                    "{what}: no re-check after tools/list_changed: {}",
                    logs.text()
                );
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            let tools = session.list_tools().await.expect("tools/list");
            assert!(tools.iter().any(|t| t["name"] == "grown"), "{what}");
            let _ = session.close().await;
        }
    })
    .await;
}

#[tokio::test]
async fn a_call_the_server_runs_as_a_task_is_followed_to_its_result_on_both_wires() {
    limited(async {
        let (_servers, wires) = every_wire();
        for (config, what) in wires {
            let session = Session::connect(&config).await.expect("connect");
            let args = json!({"a": 40, "b": 2, "ms": 50});
            // The direct call follows the task the server made of it.
            let out = session.call("slow_sum", &args).await.expect("slow_sum");
            assert_eq!(out.text(), "42", "{what}");

            // As a handle: a task id, polled to the same result.
            let handle = session
                .call_task("slow_sum", &args, CallOptions::new())
                .await
                .expect("call_task");
            let id = handle.id().expect("the server made a task").to_string();
            assert!(
                matches!(
                    handle.status().await.expect("status"),
                    TaskState::Working(_)
                ),
                "{what}"
            );
            assert_eq!(handle.wait().await.expect("wait").text(), "42", "{what}");
            assert_eq!(
                session.task_status(&id).await.expect("status"),
                TaskState::Completed
            );

            // Cancelled explicitly, and by dropping the handle.
            let slow = json!({"a": 1, "b": 1, "ms": 60000});
            let mut handle = session
                .call_task("slow_sum", &slow, CallOptions::new())
                .await
                .expect("call_task");
            handle.cancel().await.expect("cancel");
            assert_eq!(handle.status().await.expect("status"), TaskState::Cancelled);
            let e = handle
                .wait()
                .await
                .expect_err("a cancelled task has no result");
            assert!(e.to_string().contains("cancelled"), "{what}: {e}");
            let dropped = session
                .call_task("slow_sum", &slow, CallOptions::new())
                .await
                .expect("call_task");
            let id = dropped.id().expect("a task").to_string();
            drop(dropped);
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
            while session.task_status(&id).await.expect("status") != TaskState::Cancelled {
                assert!(
                    std::time::Instant::now() < deadline,
                    "{what}: not cancelled on drop"
                );
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            let _ = session.close().await;
        }
    })
    .await;
}

/// A session that answers sampling with `model` and the prompt's text, `" back"` appended.
fn sampling(model: &'static str) -> ConnectOptions {
    ConnectOptions::new().on_sampling(move |request| async move {
        let prompt = request
            .messages
            .last()
            .map(|m| m.text())
            .unwrap_or_default();
        Ok(SamplingReply::new(model, format!("{prompt} back")))
    })
}

#[tokio::test]
async fn sampling_is_answered_by_the_application_on_both_wires() {
    limited(async {
        let (_servers, wires) = every_wire();
        for (config, what) in wires {
            let options = ConnectOptions::new().on_sampling(|request| async move {
                assert_eq!(request.server, "faults");
                assert_eq!(request.system_prompt.as_deref(), Some("You are terse."));
                assert_eq!(request.model_hints, ["demo-model"]);
                assert_eq!(request.max_tokens, 20);
                assert_eq!(request.messages.len(), 1);
                assert_eq!(request.messages[0].role, "user");
                Ok(SamplingReply::new(
                    "test-model",
                    format!("{} back", request.messages[0].text()),
                ))
            });
            let session = options.connect(&config).await.expect("connect");
            let out = session.call("sample", &json!({})).await.expect("sample");
            assert_eq!(out.text(), "test-model: Say hello back", "{what}");
            let _ = session.close().await;

            // The application refuses: the server is told why, and the call fails with it.
            let refusing =
                ConnectOptions::new().on_sampling(|_| async { Err("over budget".to_string()) });
            let session = refusing.connect(&config).await.expect("connect");
            let err = session
                .call("sample", &json!({}))
                .await
                .expect_err("refused");
            assert!(
                err.to_string()
                    .contains("the application refused the sampling request: over budget"),
                "{what}: {err}"
            );
            let _ = session.close().await;

            // No callback: not declared, and a request for it is refused saying so.
            let session = Session::connect(&config).await.expect("connect");
            let err = session
                .call("sample", &json!({}))
                .await
                .expect_err("not offered");
            assert!(
                err.to_string().contains("does not offer sampling"),
                "{what}: {err}"
            );
            let _ = session.close().await;
        }
    })
    .await;
}

#[tokio::test]
async fn roots_are_offered_and_changed_on_both_wires() {
    limited(async {
        let (_servers, wires) = every_wire();
        for (config, what) in wires {
            let options = ConnectOptions::new().with_roots([
                Root::new("file:///srv/data").with_name("data"),
                Root::directory("/tmp/project"),
            ]);
            let session = options.connect(&config).await.expect("connect");
            let out = session.call("roots", &json!({})).await.expect("roots");
            assert_eq!(
                out.text(),
                "roots: file:///srv/data, file:///tmp/project",
                "{what}"
            );
            session
                .set_roots([Root::new("file:///elsewhere")])
                .await
                .expect("set roots");
            assert_eq!(session.roots(), [Root::new("file:///elsewhere")]);
            let out = session.call("roots", &json!({})).await.expect("roots");
            assert_eq!(out.text(), "roots: file:///elsewhere", "{what}");
            let _ = session.close().await;

            // Roots from the registry entry.
            let session = Session::connect(&config.clone().with_root(Root::new("file:///reg")))
                .await
                .expect("connect");
            let out = session.call("roots", &json!({})).await.expect("roots");
            assert_eq!(out.text(), "roots: file:///reg", "{what}");
            let _ = session.close().await;

            // No roots: not declared, a request for them is an error, and none can be set.
            let session = Session::connect(&config).await.expect("connect");
            let err = session
                .call("roots", &json!({}))
                .await
                .expect_err("no roots");
            assert!(err.to_string().contains("roots"), "{what}: {err}");
            let err = session.set_roots([]).await.expect_err("not declared");
            assert!(
                err.to_string()
                    .contains("did not declare the roots capability"),
                "{what}: {err}"
            );
            let _ = session.close().await;
        }
    })
    .await;
}

/// server-everything lists `trigger-sampling-request` and `get-roots-list` only to a client
/// that declares sampling and roots; both then reach the application.
#[tokio::test]
async fn server_everything_samples_and_reads_the_roots_of_a_client_that_offers_them() {
    limited(async {
        let config = common::installed("everything");
        let plain = common::connect(&config).await;
        let names = |tools: Vec<serde_json::Value>| -> Vec<String> {
            tools
                .iter()
                .filter_map(|t| t["name"].as_str().map(str::to_string))
                .collect()
        };
        let listed = names(plain.list_tools().await.expect("tools/list"));
        assert!(
            !listed
                .iter()
                .any(|n| n == "trigger-sampling-request" || n == "get-roots-list"),
            "{listed:?}"
        );
        let _ = plain.close().await;

        let options = sampling("app-model")
            .with_env_lookup(common::lookup)
            .with_roots([Root::new("file:///work/one").with_name("one")]);
        let session = options.connect(&config).await.expect("connect");
        let listed = names(session.list_tools().await.expect("tools/list"));
        for tool in ["trigger-sampling-request", "get-roots-list"] {
            assert!(listed.iter().any(|n| n == tool), "{tool} not in {listed:?}");
        }
        let out = session
            .call(
                "trigger-sampling-request",
                &json!({"prompt": "hi", "maxTokens": 10}),
            )
            .await
            .expect("trigger-sampling-request");
        let text = out.text();
        assert!(text.contains("\"model\": \"app-model\""), "{text}");
        assert!(
            text.contains("Resource trigger-sampling-request context: hi back"),
            "{text}"
        );

        let out = session
            .call("get-roots-list", &json!({}))
            .await
            .expect("roots");
        assert!(
            out.text().contains("URI: file:///work/one"),
            "{}",
            out.text()
        );
        // A change is announced; the server asks again and lists the new roots.
        session
            .set_roots([Root::new("file:///work/two")])
            .await
            .expect("set roots");
        let mut seen = String::new();
        for _ in 0..50 {
            seen = session
                .call("get-roots-list", &json!({}))
                .await
                .expect("roots")
                .text();
            if seen.contains("file:///work/two") {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        assert!(seen.contains("URI: file:///work/two"), "{seen}");
        assert!(!seen.contains("file:///work/one"), "{seen}");
        let _ = session.close().await;
    })
    .await;
}

/// A toolbox's sessions offer what its `connect_options` offer: a server's sampling request
/// reaches the agent's model through a dispatched call.
#[tokio::test]
async fn a_toolbox_lends_its_servers_the_agents_model() {
    limited(async {
        let tb = mcp_bindgen::toolbox::Toolbox::from_servers(vec![stdio("2025-11-25")])
            .connect_options(sampling("agent-model"))
            .connect()
            .await
            .expect("connect");
        let d = tb.call("mcp_faults_sample", "{}").await;
        assert!(d.is_ok(), "{}", d.text);
        assert_eq!(d.text, "agent-model: Say hello back");
    })
    .await;
}

/// The fault server's tools whose results are not objects, typed from its snapshot at
/// 2026-07-28 (`tests/fixtures/faults.json`).
mod faults_2026 {
    mcp_bindgen::mcp_tools!(
        "faults",
        only = ["count", "greeting", "numbers", "ts_numbers"]
    );
}

/// The same two array tools as the TypeScript SDK lists them on 2025-11-25: a result object
/// `{"result": [...]}` (`tests/fixtures/ts_wrapped.json`, written by hand from that shape).
mod wrapped_2025 {
    mcp_bindgen::mcp_tools!("ts_wrapped");
}

/// Results that are not objects, typed through `mcp_tools!`, whichever way the wire carries
/// them: as `structuredContent` (2026-07-28), as JSON in the first text block (rmcp on
/// 2025-11-25), wrapped as `{"result": …}` (the TypeScript SDK on 2025-11-25) — decoded into
/// the bare types the 2026-07-28 fixture generates, and into the wrapper the TypeScript
/// SDK's 2025-11-25 listing generates.
#[tokio::test]
async fn non_object_results_decode_the_same_on_both_wires() {
    use faults_2026::faults;
    use wrapped_2025::ts_wrapped;
    limited(async {
        let (_servers, wires) = every_wire();
        for (config, what) in wires {
            // The generated client's own door: drift checked, the fixture's revision known
            // to the session.
            let typed = faults::Client::connect(&config)
                .await
                .unwrap_or_else(|e| panic!("{what}: connect: {e}"));
            // Each result is the generated output type, a newtype of the bare value.
            let numbers: Vec<i64> = typed
                .numbers()
                .await
                .unwrap_or_else(|e| panic!("{what}: {e}"))
                .0;
            assert_eq!(numbers, [3, 1, 2], "{what}");
            let count: i64 = typed.count().await.expect("count").0;
            assert_eq!(count, 42, "{what}");
            let greeting: String = typed.greeting().await.expect("greeting").0;
            assert_eq!(greeting, "hello", "{what}");
            let bare: Vec<i64> = typed
                .ts_numbers()
                .await
                .unwrap_or_else(|e| panic!("{what}: ts_numbers: {e}"))
                .0;
            assert_eq!(bare, [3, 1, 2], "{what}: ts_numbers");
            // The wrapper type, over the same session.
            let wrapper = ts_wrapped::Client::new(typed.session().clone());
            let wrapped = wrapper
                .numbers()
                .await
                .unwrap_or_else(|e| panic!("{what}: numbers as a wrapper: {e}"));
            assert_eq!(wrapped.result, [3, 1, 2], "{what}: numbers");
            let wrapped = wrapper
                .ts_numbers()
                .await
                .unwrap_or_else(|e| panic!("{what}: ts_numbers as a wrapper: {e}"));
            assert_eq!(wrapped.result, [3, 1, 2], "{what}: ts_numbers");
            let session = typed.session().clone();
            let no = json!({});
            // A shape that matches none of the spellings is still a decode error.
            let wrong = session
                .call_structured::<_, Vec<String>>("numbers", &no, CallOptions::new())
                .await
                .expect_err("integers are not strings");
            assert_eq!(
                wrong.kind(),
                mcp_bindgen::ErrorKind::Decode,
                "{what}: {wrong}"
            );
            let revision = session.server_info().protocol_version.clone();
            assert!(
                wrong
                    .to_string()
                    .contains(&format!("the fixture was snapshotted at protocol 2026-07-28, the session speaks protocol {revision}")),
                "{what}: {wrong}"
            );
            let _ = session.close().await;
        }
    })
    .await;
}

/// A task that never ends obeys the call's deadline: `Error::Timeout` after the idle
/// deadline (not the 600 s total), `tasks/cancel` sent once, `tasks/get` no faster than the
/// 100 ms floor though the server asks for 0 ms; `wait()` is bounded the same way, and a
/// wait that is dropped cancels its task.
#[tokio::test]
async fn a_task_that_never_ends_obeys_the_deadline_and_is_cancelled() {
    use std::time::{Duration, Instant};
    limited(async {
        let config = ServerConfig::stdio(
            "faults",
            common::demo_server().to_string_lossy(),
            vec![
                "--faults".into(),
                "--protocol".into(),
                "2026-07-28".into(),
                "--task-poll-ms".into(),
                "0".into(),
            ],
        )
        .with_protocol(Protocol::V2026_07_28);
        let session = Session::connect(&config).await.expect("connect");
        let never = json!({"a": 1, "b": 2, "ms": 600000});
        let within = || CallOptions::new().with_timeout(Duration::from_millis(800));
        // The server's log line for each tasks/cancel: "… cancelled after N tasks/get".
        let cancels = |session: &Session| -> Vec<u64> {
            session
                .stderr_tail()
                .iter()
                .filter_map(|l| l.split("cancelled after ").nth(1))
                .filter_map(|rest| rest.split(' ').next()?.parse().ok())
                .collect()
        };
        let settle = |session: &Session, n: usize| {
            let session = session.clone();
            async move {
                let deadline = Instant::now() + Duration::from_secs(5);
                while cancels(&session).len() < n && Instant::now() < deadline {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                cancels(&session)
            }
        };

        let started = Instant::now();
        let e = session
            .call_with("slow_sum", &never, within())
            .await
            .expect_err("a task that never ends times out");
        let took = started.elapsed();
        assert!(
            matches!(
                e,
                mcp_bindgen::Error::Timeout {
                    kind: "idle timeout",
                    ..
                }
            ),
            "{e}"
        );
        assert!(took < Duration::from_secs(5), "{took:?}");
        let polls = settle(&session, 1).await;
        assert_eq!(polls.len(), 1, "one tasks/cancel: {polls:?}");
        // 800 ms at the 100 ms floor: about 8 polls (the server's 0 ms would be ~80).
        assert!(polls[0] <= 12, "{} tasks/get in {took:?}", polls[0]);

        // `wait()` is bounded by the call's deadline too, and cancels once.
        let handle = session
            .call_task("slow_sum", &never, within())
            .await
            .expect("call_task");
        let e = handle.wait().await.expect_err("the wait times out");
        assert!(matches!(e, mcp_bindgen::Error::Timeout { .. }), "{e}");
        assert_eq!(settle(&session, 2).await.len(), 2);

        // A wait that is given up (its future dropped) cancels the task.
        let handle = session
            .call_task("slow_sum", &never, CallOptions::new())
            .await
            .expect("call_task");
        let id = handle.id().expect("a task").to_string();
        let gave_up = tokio::time::timeout(Duration::from_millis(300), handle.wait()).await;
        assert!(gave_up.is_err(), "the task cannot have ended");
        let deadline = Instant::now() + Duration::from_secs(5);
        while session.task_status(&id).await.expect("status") != TaskState::Cancelled {
            assert!(
                Instant::now() < deadline,
                "the abandoned task was not cancelled"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(settle(&session, 3).await.len(), 3);
        let _ = session.close().await;
    })
    .await;
}

/// A server that sends many sampling requests at once gets at most `max_server_requests`
/// (4 by default) application callbacks running; the rest are refused with a JSON-RPC error
/// that names the limit. `ConnectOptions::with_max_server_requests` raises it.
#[tokio::test]
async fn a_sampling_flood_runs_a_bounded_number_of_callbacks() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    limited(async {
        let config = stdio("2025-11-25").with_protocol(Protocol::V2025_11_25);
        let flood = json!({"flood": 40});
        let counting = |running: Arc<AtomicUsize>, most: Arc<AtomicUsize>| {
            ConnectOptions::new().on_sampling(move |_| {
                let (running, most) = (running.clone(), most.clone());
                async move {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                    running.fetch_sub(1, Ordering::SeqCst);
                    Ok(SamplingReply::new("test-model", "ok"))
                }
            })
        };

        let (running, most) = (Arc::default(), Arc::new(AtomicUsize::new(0)));
        let session = counting(running, most.clone())
            .connect(&config)
            .await
            .expect("connect");
        let out = session.call("sample", &flood).await.expect("sample");
        let text = out.text();
        assert!(most.load(Ordering::SeqCst) <= 4, "{text}");
        assert!(text.contains(" refused: "), "{text}");
        assert!(text.contains("max_server_requests"), "{text}");
        let answered: usize = text
            .trim_start_matches("flood: ")
            .split(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .expect("a count");
        assert!((1..=4).contains(&answered), "{text}");
        let _ = session.close().await;

        // Raised for an application that can afford it: every request is answered.
        let (running, most) = (Arc::default(), Arc::new(AtomicUsize::new(0)));
        let session = counting(running, most.clone())
            .with_max_server_requests(40)
            .connect(&config)
            .await
            .expect("connect");
        let out = session.call("sample", &flood).await.expect("sample");
        assert_eq!(out.text(), "flood: 40 answered, 0 refused");
        assert!(most.load(Ordering::SeqCst) > 4);
        let _ = session.close().await;
    })
    .await;
}

/// On a session of protocol 2025-11-25 (where a task call asks for the task itself),
/// `wait()` is bounded by the call's deadline as well and cancels the task once, and a wait
/// that is given up cancels it too.
#[tokio::test]
async fn a_task_of_a_2025_11_25_session_obeys_the_deadline() {
    use std::time::{Duration, Instant};
    limited(async {
        let config = stdio("2025-11-25").with_protocol(Protocol::V2025_11_25);
        let session = Session::connect(&config).await.expect("connect");
        let never = json!({"a": 1, "b": 2, "ms": 600000});
        let handle = session
            .call_task(
                "slow_sum",
                &never,
                CallOptions::new().with_timeout(Duration::from_millis(600)),
            )
            .await
            .expect("call_task");
        let id = handle.id().expect("a task").to_string();
        let started = Instant::now();
        let e = handle.wait().await.expect_err("the wait times out");
        assert!(
            matches!(
                e,
                mcp_bindgen::Error::Timeout {
                    kind: "idle timeout",
                    ..
                }
            ),
            "{e}"
        );
        assert!(started.elapsed() < Duration::from_secs(5), "{e}");
        assert_eq!(
            session.task_status(&id).await.expect("status"),
            TaskState::Cancelled
        );
        let handle = session
            .call_task("slow_sum", &never, CallOptions::new())
            .await
            .expect("call_task");
        let gave_up = tokio::time::timeout(Duration::from_millis(300), handle.wait()).await;
        assert!(gave_up.is_err());
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let cancels = session
                .stderr_tail()
                .iter()
                .filter(|l| l.contains("tasks/cancel: task"))
                .count();
            if cancels == 2 {
                break;
            }
            assert!(Instant::now() < deadline, "cancels seen: {cancels}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let _ = session.close().await;
    })
    .await;
}

/// A server that names its task by a 1 MiB id: the call is refused as misbehaviour in a
/// message of bounded length, the task is cancelled on the server (the id sent back whole),
/// and no handle with such an id is ever made, on both wires.
#[tokio::test]
async fn a_task_id_past_the_limit_is_refused_in_a_short_message_and_cancelled() {
    use std::time::{Duration, Instant};
    limited(async {
        for (revision, protocol) in WIRES {
            let config = ServerConfig::stdio(
                "faults",
                common::demo_server().to_string_lossy(),
                [
                    "--faults",
                    "--protocol",
                    revision,
                    "--misbehave",
                    "long-task-id",
                ]
                .map(String::from)
                .to_vec(),
            )
            .with_protocol(protocol);
            let session = Session::connect(&config).await.expect("connect");
            let slow = json!({"a": 1, "b": 2, "ms": 600000});
            for started in [
                session.call("slow_sum", &slow).await.map(drop),
                session
                    .call_task("slow_sum", &slow, CallOptions::new())
                    .await
                    .map(drop),
            ] {
                let e = started.expect_err(&format!("{revision}: a 1 MiB task id is refused"));
                let text = e.to_string();
                assert!(
                    matches!(e, mcp_bindgen::Error::Misbehaved { .. }),
                    "{revision}: {}",
                    mcp_bindgen_core::schema::truncate(&text, 300)
                );
                assert!(text.len() < 1000, "{revision}: {} bytes", text.len());
                assert!(
                    text.contains("an id of 1048576 bytes") && text.contains("at most 1024"),
                    "{revision}: {text}"
                );
            }
            let deadline = Instant::now() + Duration::from_secs(5);
            while session
                .stderr_tail()
                .iter()
                .filter(|l| l.contains("tasks/cancel: task"))
                .count()
                < 2
            {
                assert!(
                    Instant::now() < deadline,
                    "{revision}: {:?}",
                    session.stderr_tail()
                );
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            let _ = session.close().await;
        }
    })
    .await;
}

/// A stdio server on early rmcp cannot parse `server/discover` and ends the connection
/// instead of answering an error (the demo's `--misbehave exit-on-discover` does the same):
/// under `protocol = "auto"` a fresh process is started with `initialize`.
#[tokio::test]
async fn a_server_that_exits_on_server_discover_is_started_again_with_initialize() {
    limited(async {
        let config = ServerConfig::stdio(
            "old",
            common::demo_server().to_string_lossy(),
            vec!["--misbehave".into(), "exit-on-discover".into()],
        );
        let session = Session::connect(&config)
            .await
            .expect("connects with initialize");
        assert_eq!(session.server_info().protocol_version, "2025-11-25");
        let out = session
            .call("echo", &json!({"message": "hi"}))
            .await
            .expect("echo");
        assert_eq!(out.text(), "hi");
        let _ = session.close().await;
    })
    .await;
}
