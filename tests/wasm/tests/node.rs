//! The typed client of the demo server, built for wasm32 and run under Node by
//! wasm-bindgen-test's runner: `cargo xtask test` starts the demo server over HTTP
//! (`--require-header "Authorization: Bearer …"`) and passes its URL and token in
//! `MCP_WASM_DEMO_URL` and `MCP_WASM_DEMO_TOKEN`, and server-everything (npm) in its
//! Streamable HTTP mode in `MCP_WASM_EVERYTHING_URL`.
#![cfg(target_arch = "wasm32")]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_bindgen::drift::DriftPolicy;
use mcp_bindgen::toolbox::TypedTool;
use mcp_bindgen::{CallOptions, ConnectOptions, Error, Protocol, ServerConfig, Session};
use mcp_bindgen_wasm_tests::demo;
use wasm_bindgen_test::wasm_bindgen_test;

mcp_bindgen::mcp_tools!("everything");

/// A variable of the Node process that runs the tests.
fn env(name: &str) -> Option<String> {
    let global = js_sys::global();
    let process = js_sys::Reflect::get(&global, &"process".into()).ok()?;
    let vars = js_sys::Reflect::get(&process, &"env".into()).ok()?;
    js_sys::Reflect::get(&vars, &name.into()).ok()?.as_string()
}

/// The demo server's URL and token; the tests fail without them (`cargo xtask test` sets
/// them).
fn server() -> (String, String) {
    let url = env("MCP_WASM_DEMO_URL")
        .expect("MCP_WASM_DEMO_URL: the demo server's URL (cargo xtask test sets it)");
    let token = env("MCP_WASM_DEMO_TOKEN")
        .expect("MCP_WASM_DEMO_TOKEN: the token the demo server requires");
    (url, token)
}

/// The demo server at `url`, speaking `protocol`, with the token as a `${DEMO_TOKEN}`
/// placeholder in its `Authorization` header.
fn config(url: &str, protocol: Protocol) -> ServerConfig {
    ServerConfig::http("demo", false, url)
        .with_protocol(protocol)
        .with_env("Authorization", "Bearer ${DEMO_TOKEN}")
}

/// Options that give `${DEMO_TOKEN}` the value `token` (a wasm32 host has no process
/// environment).
fn with_token(token: &str) -> ConnectOptions {
    let token = token.to_string();
    ConnectOptions::new().with_env_lookup(move |name| (name == "DEMO_TOKEN").then(|| token.clone()))
}

async fn connect(protocol: Protocol) -> demo::Client {
    let (url, token) = server();
    let session = with_token(&token)
        .connect(&config(&url, protocol))
        .await
        .expect("connect");
    demo::Client::new(session)
}

#[wasm_bindgen_test]
async fn typed_calls_on_both_revisions() {
    // `MCP_WASM_DEMO_ONLY`: the one revision the demo server speaks (`--protocol`), if any.
    let only = env("MCP_WASM_DEMO_ONLY").filter(|v| !v.is_empty());
    let protocols = match only.as_deref() {
        Some("2025-11-25") => vec![Protocol::V2025_11_25, Protocol::Auto],
        Some(other) => panic!("MCP_WASM_DEMO_ONLY={other}: not a revision this test knows"),
        None => vec![Protocol::V2026_07_28, Protocol::V2025_11_25, Protocol::Auto],
    };
    for protocol in protocols {
        let demo = connect(protocol).await;
        let spoken = demo.session().server_info().protocol_version.clone();
        match protocol {
            Protocol::Revision(r) => assert_eq!(spoken, r),
            // Auto asks `server/discover` first and falls back to `initialize`.
            Protocol::Auto => assert_eq!(spoken, only.as_deref().unwrap_or("2026-07-28")),
        }
        assert_eq!(demo.session().server_info().name, "mcp-demo-server");

        let sum = demo
            .add(demo::add::Args { a: 1.5, b: 2.0 })
            .await
            .expect("add");
        assert_eq!(sum.text(), "3.5", "{spoken}");

        // A typed structured result.
        let weather = demo
            .get_weather(demo::get_weather::Args {
                city: "Oslo".into(),
                days: Some(3),
                units: None,
            })
            .await
            .expect("get_weather");
        assert_eq!(weather.city, "Oslo");
        assert_eq!(weather.forecast.len(), 3);

        // A tool error is `Error::Tool` with the tool's own output.
        let err = demo
            .fail(demo::fail::Args {
                message: "boom".into(),
            })
            .await
            .expect_err("fail is a tool error");
        match err {
            Error::Tool { tool, output, .. } => {
                assert_eq!(tool, "fail");
                assert_eq!(output.text(), "boom");
            }
            other => panic!("expected Error::Tool, got {other:?}"),
        }
        demo.session().close().await.expect("close");
    }
}

#[wasm_bindgen_test]
async fn progress_arrives_and_a_deadline_aborts_the_call() {
    let demo = connect(Protocol::Auto).await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let done = demo
        .with_options(CallOptions::new().on_progress(move |p| {
            if let Ok(mut v) = sink.lock() {
                v.push(p.progress);
            }
        }))
        .long_task(demo::long_task::Args {
            steps: 4,
            delay_ms: Some(5),
        })
        .await
        .expect("long_task");
    assert_eq!(
        done.text(),
        "long_task finished 4 step(s), 4 progress notification(s) sent"
    );
    assert_eq!(*seen.lock().expect("progress"), vec![1.0, 2.0, 3.0, 4.0]);

    // 3 steps of 2 s against a deadline of 300 ms.
    let err = demo
        .with_options(CallOptions::new().with_timeout(Duration::from_millis(300)))
        .long_task(demo::long_task::Args {
            steps: 3,
            delay_ms: Some(2000),
        })
        .await
        .expect_err("the deadline expires first");
    match &err {
        Error::Timeout { what, limit, .. } => {
            assert_eq!(what, "tools/call \"long_task\"");
            assert_eq!(*limit, Duration::from_millis(300));
        }
        other => panic!("expected Error::Timeout, got {other:?}"),
    }
    // The session still works after an aborted call.
    let sum = demo
        .add(demo::add::Args { a: 2.0, b: 40.0 })
        .await
        .expect("add after the timeout");
    assert_eq!(sum.text(), "42");
}

#[wasm_bindgen_test]
async fn a_wrong_token_is_refused_and_never_shown() {
    let (url, token) = server();
    let wrong = format!("{token}-wrong");
    let err = with_token(&wrong)
        .connect(&config(&url, Protocol::V2025_11_25))
        .await
        .expect_err("the server requires the right token");
    let text = format!("{err} {err:?}");
    assert!(text.contains("HTTP 400"), "{text}");
    assert!(!text.contains(&wrong), "the token leaked: {text}");

    // A `${NAME}` nobody defines is an error that names it (a wasm32 host has no
    // process environment to fall back on).
    let err = Session::connect(&config(&url, Protocol::Auto))
        .await
        .expect_err("DEMO_TOKEN is not defined");
    assert!(err.to_string().contains("DEMO_TOKEN"), "{err}");

    // A stdio server cannot run in a wasm32 host: the error says what to use instead.
    let err = Session::connect(&ServerConfig::stdio("local", "mcp-demo-server", vec![]))
        .await
        .expect_err("no stdio on wasm32");
    assert!(err.to_string().contains("Streamable HTTP"), "{err}");
}

/// The fault server's `region` tool as generated code describes it (its `TOOL` constant).
static REGION: [TypedTool; 1] = [TypedTool {
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

#[wasm_bindgen_test]
async fn x_mcp_headers_are_mirrored_and_invalid_ones_left_out() {
    let (_, token) = server();
    let url = env("MCP_WASM_FAULTS_URL")
        .expect("MCP_WASM_FAULTS_URL: the demo server with --faults (cargo xtask test sets it)");
    let options = || with_token(&token);
    let config = config(&url, Protocol::V2026_07_28);
    let args = serde_json::json!({"region": "eu west"});

    // Without the fixture nothing knows the annotation before `tools/list`: refused.
    let bare = options().connect(&config).await.expect("connect");
    let e = bare
        .call("region", &args)
        .await
        .expect_err("no Mcp-Param-Region header");
    assert!(e.to_string().contains("Mcp-Param-Region"), "{e}");

    // With the fixture's tool the first call carries the header.
    let typed = options()
        .with_fixture_tools(&REGION)
        .connect(&config)
        .await
        .expect("connect");
    let out = typed.call("region", &args).await.expect("region");
    assert_eq!(out.text(), "region eu west");

    // `tools/list` leaves out the tool whose annotation is invalid, and says why.
    let tools = bare.list_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&"region"), "{names:?}");
    assert!(!names.contains(&"bad_header"), "{names:?}");
    let rejected = bare.rejected_tools();
    assert_eq!(rejected.len(), 1, "{rejected:?}");
    assert_eq!(rejected[0].0, "bad_header");
    // The listing taught the session the annotation: the bare session's call works now.
    let out = bare
        .call("region", &args)
        .await
        .expect("region after tools/list");
    assert_eq!(out.text(), "region eu west");
}

#[wasm_bindgen_test]
async fn a_pagination_cycle_ends_with_an_error() {
    let (_, token) = server();
    let url = env("MCP_WASM_CYCLE_URL")
        .expect("MCP_WASM_CYCLE_URL: a demo server paging in a cycle (cargo xtask test sets it)");
    let session = with_token(&token)
        .connect(&config(&url, Protocol::Auto))
        .await
        .expect("connect");
    let err = session.list_tools().await.expect_err("the cursors cycle");
    match &err {
        Error::Misbehaved {
            method, message, ..
        } => {
            assert_eq!(method, "tools/list");
            assert!(message.contains("pagination cycle"), "{err}");
        }
        other => panic!("expected Error::Misbehaved, got {other:?}"),
    }
}

#[wasm_bindgen_test]
async fn drift_is_checked_at_connect() {
    let (url, token) = server();
    let options = || {
        with_token(&token)
            .with_fixture_tools(demo::TYPED_TOOLS)
            .with_drift_policy(DriftPolicy::Error)
    };
    // What a generated `Client::connect` passes: the live tools match the fixture.
    options()
        .with_fixture_hash(demo::FIXTURE_HASH)
        .connect(&config(&url, Protocol::Auto))
        .await
        .expect("the demo server matches its fixture");
    // A fixture of other tools: the connection fails with the drift.
    let err = options()
        .with_fixture_hash("0".repeat(64))
        .connect(&config(&url, Protocol::Auto))
        .await
        .expect_err("the hashes differ");
    match &err {
        Error::Drift { server, summary } => {
            assert_eq!(server, "demo");
            assert!(!summary.is_empty(), "{err}");
        }
        other => panic!("expected Error::Drift, got {other:?}"),
    }
}

#[wasm_bindgen_test]
async fn server_everything_over_streamable_http() {
    let url = env("MCP_WASM_EVERYTHING_URL")
        .expect("MCP_WASM_EVERYTHING_URL: server-everything's URL (cargo xtask test sets it)");
    // The generated `connect`: the live tools are checked against the fixture's hash.
    let config = ServerConfig::http("everything", false, url)
        .with_drift(mcp_bindgen::drift::DriftPolicy::Error);
    let everything = everything::Client::connect(&config)
        .await
        .expect("connect without drift");
    let echo = everything
        .echo(everything::echo::Args {
            message: "from wasm".into(),
        })
        .await
        .expect("echo");
    assert!(echo.text().contains("from wasm"), "{}", echo.text());
    let sum = everything
        .get_sum(everything::get_sum::Args { a: 2.0, b: 40.0 })
        .await
        .expect("get_sum");
    assert!(sum.text().contains("42"), "{}", sum.text());
    let weather = everything
        .get_structured_content(everything::get_structured_content::Args {
            location: everything::get_structured_content::ArgsLocation::Chicago,
        })
        .await
        .expect("get_structured_content");
    assert!(!weather.conditions.is_empty());

    let session = everything.session();
    session.ping(Duration::from_secs(5)).await.expect("ping");
    let prompts = session.list_prompts().await.expect("prompts");
    assert!(!prompts.is_empty());
    let resources = session.list_resources().await.expect("resources");
    let uri = resources[0]["uri"]
        .as_str()
        .expect("a resource uri")
        .to_string();
    let read = session.read_resource(&uri).await.expect("read");
    assert_eq!(read["contents"][0]["uri"].as_str(), Some(uri.as_str()));
    session.close().await.expect("close");
}

#[wasm_bindgen_test]
async fn the_exported_function_calls_the_server() {
    let (url, token) = server();
    let sum = mcp_bindgen_wasm_tests::add(url, token, 19.0, 23.0)
        .await
        .map_err(wasm_bindgen::JsValue::from)
        .expect("add");
    assert_eq!(sum, "42");
}

/// The one `Session` API over the `fetch` wire: the same call variants, listings, task
/// handles, ping and close as natively.
#[wasm_bindgen_test]
async fn the_session_api_is_the_native_one() {
    let demo = connect(Protocol::Auto).await;
    let session = demo.session();
    assert_eq!(session.transport(), "streamable-http");
    assert!(session.stderr_tail().is_empty());

    // `call_structured` takes call options, as natively.
    let options = CallOptions::new().with_timeout(Duration::from_secs(10));
    let weather: serde_json::Value = session
        .call_structured(
            "get_weather",
            &serde_json::json!({"city": "Lima", "days": 1}),
            options.clone(),
        )
        .await
        .expect("call_structured");
    assert_eq!(weather["city"], "Lima");

    // A task call runs as a plain call: its handle holds the result.
    let handle = session
        .call_task("add", &serde_json::json!({"a": 2, "b": 3}), options.clone())
        .await
        .expect("call_task");
    assert_eq!(handle.id(), None);
    assert_eq!(
        handle.status().await.expect("status"),
        mcp_bindgen::TaskState::Completed
    );
    assert_eq!(handle.wait().await.expect("wait").text(), "5");
    let failed = session
        .call_task("fail", &serde_json::json!({"message": "no"}), options)
        .await
        .expect("call_task");
    assert_eq!(
        failed.status().await.expect("status"),
        mcp_bindgen::TaskState::Failed
    );
    assert!(matches!(failed.wait().await, Err(Error::Tool { .. })));

    // Listings: the demo server declares neither prompts nor resources.
    assert!(session.list_tools().await.expect("tools").len() > 3);
    assert!(session.rejected_tools().is_empty());
    assert!(session.list_prompts().await.expect("prompts").is_empty());
    assert!(
        session
            .list_resources()
            .await
            .expect("resources")
            .is_empty()
    );
    session.ping(Duration::from_secs(5)).await.expect("ping");

    // A closed session refuses requests, from every clone.
    let clone = session.clone();
    session.close().await.expect("close");
    match clone.list_tools().await {
        Err(Error::Transport { message, .. }) => assert!(message.contains("closed"), "{message}"),
        other => panic!("expected a transport error, got {other:?}"),
    }
}
