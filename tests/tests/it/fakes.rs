//! Offline tests of agent code: the generated `Tools` trait, `Fake` stubs, and
//! record/replay with `Recorder` and `Fake::from_cassette` against the demo server and real
//! servers (server-everything, server-memory); a toolbox whose servers are all fakes runs a
//! whole agent loop without starting a process.

use crate::common;

use std::path::Path;

use common::{connect, demo_with_pidfile, limited};
use mcp_bindgen::toolbox::Toolbox;
use mcp_bindgen::toolbox::provider::Format;
use mcp_bindgen::{ConnectOptions, Error, ErrorKind, ToolOutput};
use serde_json::{Value, json};

mcp_bindgen::mcp_tools!("demo");
mcp_bindgen::mcp_tools!("everything");
mcp_bindgen::mcp_tools!("memory");

/// What an agent does with the demo server, written once against the trait: a typed result,
/// an untyped one, a tool without arguments, a tool error, and the same call twice.
async fn demo_agent(tools: &impl demo::Tools) -> Vec<Value> {
    let weather = tools
        .get_weather(demo::get_weather::Args {
            city: "Lisbon".into(),
            days: Some(2),
            units: None,
        })
        .await
        .expect("get_weather");
    let sum = tools
        .add(demo::add::Args { a: 19.0, b: 23.0 })
        .await
        .expect("add");
    let again = tools
        .add(demo::add::Args { a: 19.0, b: 23.0 })
        .await
        .expect("add again");
    let failed = tools
        .fail(demo::fail::Args {
            message: "out of coffee".into(),
        })
        .await
        .expect_err("fail fails");
    vec![
        serde_json::to_value(&weather).expect("weather as JSON"),
        json!(sum.text()),
        json!(again.text()),
        json!(failed.to_string()),
        json!(failed.kind().as_str()),
    ]
}

#[tokio::test]
async fn stubs_answer_typed_untyped_and_argument_free_tools() {
    let fake = demo::Fake::new()
        .on_add(|args| Ok(ToolOutput::from_text((args.a + args.b).to_string())))
        .on_server_time(|| Ok(ToolOutput::from_text("2026-11-26T00:00:00Z")))
        .on_fail(|args| Err(mcp_bindgen::fake::tool_error(args.message)));
    // The futures are `Send`: the agent runs on another task.
    let agent = fake.clone();
    let (sum, time, failed) = tokio::spawn(async move {
        use demo::Tools;
        let sum = agent.add(demo::add::Args { a: 1.5, b: 2.0 }).await;
        let time = agent.server_time().await;
        let failed = agent
            .fail(demo::fail::Args {
                message: "boom".into(),
            })
            .await;
        (sum, time, failed)
    })
    .await
    .expect("agent task");
    assert_eq!(sum.expect("add").text(), "3.5");
    assert_eq!(time.expect("server_time").text(), "2026-11-26T00:00:00Z");
    let failed = failed.expect_err("fail");
    assert_eq!(failed.kind(), ErrorKind::ToolFailed);
    assert_eq!(
        failed.to_string(),
        "tool \"fail\" of server \"demo\" failed: boom"
    );

    // A tool without a stub: an error naming it, not a panic, not a default.
    let missing = demo::Tools::echo(
        &fake,
        demo::echo::Args {
            message: "hi".into(),
            repeat: None,
        },
    )
    .await
    .expect_err("no stub for echo");
    assert_eq!(missing.kind(), ErrorKind::Unavailable);
    assert!(
        matches!(&missing, Error::Fake { tool, .. } if tool == "echo"),
        "{missing:?}"
    );
    assert!(
        missing.to_string().contains("no stub for tool \"echo\""),
        "{missing}"
    );

    let calls: Vec<(String, Value)> = fake
        .calls()
        .into_iter()
        .map(|c| (c.tool, c.arguments))
        .collect();
    assert_eq!(
        calls,
        [
            ("add".to_string(), json!({"a": 1.5, "b": 2.0})),
            ("server_time".to_string(), json!({})),
            ("fail".to_string(), json!({"message": "boom"})),
            ("echo".to_string(), json!({"message": "hi"})),
        ]
    );

    // A typed structured result: the stub returns the generated `Output`.
    let typed = demo::Fake::new().on_get_weather(|args| {
        Ok(serde_json::from_value(json!({
            "city": args.city.to_string(),
            "units": "celsius",
            "current": {"temperature": 21.5, "conditions": "sunny", "humidity_percent": 40,
                        "wind": {"speed_kmh": 10.0, "direction_deg": 270}},
            "forecast": [],
            "alert": null
        }))
        .expect("an Output"))
    });
    let weather = demo::Tools::get_weather(
        &typed,
        demo::get_weather::Args {
            city: "Porto".into(),
            days: None,
            units: None,
        },
    )
    .await
    .expect("typed stub");
    assert_eq!(weather.city, "Porto");
}

#[tokio::test]
async fn demo_recorded_then_replayed_offline() {
    limited(async {
        let dir = tempfile::tempdir().expect("tempdir");
        let cassette = dir.path().join("cassettes/demo.jsonl");
        let client = demo::Client::new(connect(&common::demo_config("demo")).await);
        let recorder = demo::Recorder::new(client, &cassette).expect("recorder");
        let live = demo_agent(&recorder).await;
        recorder
            .client()
            .session()
            .close()
            .await
            .expect("close the live session");
        assert_eq!(live[1], json!("42"));
        assert_eq!(
            live[3],
            json!("tool \"fail\" of server \"demo\" failed: out of coffee")
        );
        let lines = std::fs::read_to_string(&cassette).expect("cassette");
        assert_eq!(lines.lines().count(), 4, "{lines}");

        let fake = demo::Fake::from_cassette(&cassette).expect("the cassette loads");
        let replayed = demo_agent(&fake).await;
        assert_eq!(replayed, live);
        assert_eq!(fake.calls().len(), 4);

        // A call that was not recorded says so, with what was.
        let other = demo::Tools::add(&fake, demo::add::Args { a: 1.0, b: 1.0 })
            .await
            .expect_err("not recorded");
        let text = other.to_string();
        assert!(
            text.contains("no recorded call of it with the arguments {\"a\":1.0,\"b\":1.0}")
                && text.contains("recorded: {\"a\":19.0,\"b\":23.0}"),
            "{text}"
        );
    })
    .await;
}

/// Rewrites line `n` (1-based) of `path` with `edit`.
fn edit_line(path: &Path, n: usize, edit: impl FnOnce(&mut Value)) {
    let text = std::fs::read_to_string(path).expect("cassette");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut value: Value = serde_json::from_str(&lines[n - 1]).expect("a JSON line");
    edit(&mut value);
    lines[n - 1] = value.to_string();
    std::fs::write(path, lines.join("\n") + "\n").expect("write cassette");
}

#[tokio::test]
async fn a_cassette_that_no_longer_fits_fails_at_load_naming_the_field() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = [
        json!({"server": "demo", "tool": "add", "arguments": {"a": 1, "b": 2},
               "result": {"content": [{"type": "text", "text": "3"}]}}),
        json!({"server": "demo", "tool": "get_weather", "arguments": {"city": "Oslo"},
               "result": {"content": [], "structuredContent": {
                   "city": "Oslo", "units": "celsius",
                   "current": {"temperature": -3.0, "conditions": "snow", "humidity_percent": 80,
                               "wind": {"speed_kmh": 30.0, "direction_deg": 0}},
                   "forecast": [], "alert": "blizzard"}}}),
    ];
    let path = dir.path().join("demo.jsonl");
    let write = |lines: &[Value]| {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&path, text).expect("write");
    };
    write(&good);
    let fake = demo::Fake::from_cassette(&path).expect("a fitting cassette loads");
    // Arguments compare as the generated type writes them: 1 and 1.0 are one number.
    let out = demo::Tools::add(&fake, demo::add::Args { a: 1.0, b: 2.0 })
        .await
        .expect("replayed");
    assert_eq!(out.text(), "3");

    let load_error = |edit: &dyn Fn(&mut Value), line: usize| {
        write(&good);
        edit_line(&path, line, |v| edit(v));
        let e = demo::Fake::from_cassette(&path).expect_err("does not fit");
        assert_eq!(e.kind(), ErrorKind::Config);
        let text = e.to_string();
        assert!(
            text.starts_with(&format!("cassette {} line {line}: ", path.display())),
            "{text}"
        );
        text
    };
    // An argument of the wrong type: the tool and the field.
    let text = load_error(&|v| v["arguments"]["a"] = json!("one"), 1);
    assert!(
        text.ends_with(
            "line 1: tool \"add\": the recorded arguments do not fit its generated `Args`: invalid type: string \"one\", expected f64 (at /a: expected number, found string \"one\")"
        ),
        "{text}"
    );
    // A required argument missing.
    let text = load_error(
        &|v| {
            v["arguments"].as_object_mut().expect("object").remove("b");
        },
        1,
    );
    assert!(text.contains("missing field `b`"), "{text}");
    // An argument the fixture no longer has (the schema says additionalProperties: false).
    let text = load_error(&|v| v["arguments"]["precision"] = json!(2), 1);
    assert!(text.contains("precision"), "{text}");
    // A result that does not fit the generated `Output`.
    let text = load_error(
        &|v| v["result"]["structuredContent"]["current"]["conditions"] = json!("hail"),
        2,
    );
    assert!(
        text.contains(
            "tool \"get_weather\": the recorded result does not fit its generated `Output`"
        ) && text.contains("hail"),
        "{text}"
    );
    // A tool the fixture no longer has.
    let text = load_error(&|v| v["tool"] = json!("add_numbers"), 1);
    assert!(
        text.contains("tool \"add_numbers\" is not in the fixture of server \"demo\""),
        "{text}"
    );
    // Another server's cassette.
    let text = load_error(&|v| v["server"] = json!("everything"), 2);
    assert!(
        text.contains("recorded from server \"everything\""),
        "{text}"
    );
}

#[tokio::test]
async fn everything_recorded_then_replayed_offline() {
    limited(async {
        let dir = tempfile::tempdir().expect("tempdir");
        let cassette = dir.path().join("everything.jsonl");
        async fn agent(tools: &impl everything::Tools) -> Vec<Value> {
            let echo = tools
                .echo(everything::echo::Args {
                    message: "recorded".into(),
                })
                .await
                .expect("echo");
            let sum = tools
                .get_sum(everything::get_sum::Args { a: 2.0, b: 40.0 })
                .await
                .expect("get_sum");
            let weather = tools
                .get_structured_content(everything::get_structured_content::Args {
                    location: everything::get_structured_content::ArgsLocation::Chicago,
                })
                .await
                .expect("structured");
            let image = tools.get_tiny_image().await.expect("image");
            vec![
                serde_json::to_value(&echo).expect("json"),
                serde_json::to_value(&sum).expect("json"),
                serde_json::to_value(&weather).expect("json"),
                serde_json::to_value(&image).expect("json"),
            ]
        }
        let client = everything::Client::new(connect(&common::installed("everything")).await);
        let recorder = everything::Recorder::new(client, &cassette).expect("recorder");
        let live = agent(&recorder).await;
        let _ = recorder.client().session().close().await;
        assert!(live[1].to_string().contains("42"), "{}", live[1]);
        assert!(live[3].to_string().contains("image/png"), "{}", live[3]);

        let fake = everything::Fake::from_cassette(&cassette).expect("loads");
        assert_eq!(agent(&fake).await, live);
    })
    .await;
}

#[tokio::test]
async fn memory_recorded_then_replayed_offline() {
    limited(async {
        let dir = tempfile::tempdir().expect("tempdir");
        let cassette = dir.path().join("memory.jsonl");
        async fn agent(tools: &impl memory::Tools) -> Vec<Value> {
            let created = tools
                .create_entities(memory::create_entities::Args {
                    entities: vec![memory::create_entities::ArgsEntitiesItem {
                        name: "mcp-bindgen".into(),
                        entity_type: "project".into(),
                        observations: vec!["records cassettes".into()],
                    }],
                })
                .await
                .expect("create_entities");
            let graph = tools.read_graph().await.expect("read_graph");
            let found = tools
                .search_nodes(memory::search_nodes::Args {
                    query: "cassettes".into(),
                })
                .await
                .expect("search_nodes");
            vec![
                serde_json::to_value(&created).expect("json"),
                serde_json::to_value(&graph).expect("json"),
                serde_json::to_value(&found).expect("json"),
            ]
        }
        let config = common::installed("memory").with_env(
            "MEMORY_FILE_PATH",
            dir.path()
                .join("memory-data.jsonl")
                .to_string_lossy()
                .into_owned(),
        );
        let client = memory::Client::new(connect(&config).await);
        let recorder = memory::Recorder::new(client, &cassette).expect("recorder");
        let live = agent(&recorder).await;
        let _ = recorder.client().session().close().await;
        assert_eq!(live[1]["entities"][0]["name"], "mcp-bindgen", "{}", live[1]);

        let fake = memory::Fake::from_cassette(&cassette).expect("loads");
        assert_eq!(agent(&fake).await, live);
    })
    .await;
}

#[tokio::test]
async fn an_agent_loop_over_fakes_starts_no_process() {
    limited(async {
        let dir = tempfile::tempdir().expect("tempdir");
        let pids = dir.path().join("pids");
        let fake = demo::Fake::new()
            .on_add(|args| Ok(ToolOutput::from_text((args.a + args.b).to_string())))
            .on_fail(|args| Err(mcp_bindgen::fake::tool_error(args.message)));
        // The registry has the demo server (as a process that writes its pid); the fake takes
        // its place.
        let toolbox = Toolbox::from_servers(vec![demo_with_pidfile("demo", &pids)])
            .add_fake(fake.clone())
            .connect()
            .await
            .expect("toolbox");
        assert!(toolbox.skipped().is_empty(), "{:?}", toolbox.skipped());
        let status = toolbox.status("demo").expect("status");
        assert_eq!(status.transport, "fake");
        assert_eq!(status.tools, demo::TYPED_TOOLS.len());

        // The model sees the fixture's tools, in every format.
        let export = toolbox.export(Format::OpenAi);
        let names: Vec<&str> = export
            .tools
            .iter()
            .filter_map(|t| t.pointer("/function/name").and_then(Value::as_str))
            .collect();
        assert!(names.contains(&"mcp_demo_add"), "{names:?}");
        assert_eq!(
            toolbox.export(Format::Anthropic).tools.len(),
            demo::TYPED_TOOLS.len()
        );

        // The model's tool calls, dispatched to the fake.
        let d = toolbox.call("mcp_demo_add", r#"{"a": 2, "b": 3}"#).await;
        assert!(d.is_ok(), "{}", d.text);
        assert_eq!(d.text, "5");
        let d = toolbox.call("mcp_demo_add", r#"{"a": "two"}"#).await;
        assert_eq!(
            d.error_kind(),
            Some(ErrorKind::InvalidArguments),
            "{}",
            d.text
        );
        // The model is told where: serde's message, then the schema's pointer.
        assert!(
            d.text.contains(
                "invalid type: string \"two\", expected f64 (at /: missing required property \"b\"; /a: expected number, found string \"two\")"
            ),
            "{}",
            d.text
        );
        let d = toolbox.call("mcp_demo_fail", r#"{"message": "no"}"#).await;
        assert_eq!(d.error_kind(), Some(ErrorKind::ToolFailed), "{}", d.text);
        assert!(d.text.contains("no"), "{}", d.text);
        let d = toolbox.call("mcp_demo_echo", r#"{"message": "x"}"#).await;
        assert!(d.text.contains("no stub for tool \"echo\""), "{}", d.text);
        // Refused arguments never reach the fake.
        let tools: Vec<String> = fake.calls().into_iter().map(|c| c.tool).collect();
        assert_eq!(tools, ["add", "fail", "echo"]);
        toolbox.close().await;

        assert!(
            !pids.exists(),
            "the demo server was started: {:?}",
            std::fs::read_to_string(&pids)
        );
    })
    .await;
}

/// Progressive discovery over a generated `Fake`: the model gets two tools, searches, loads
/// the adder and calls it through the typed path; nothing else reaches the model's list.
#[tokio::test]
async fn an_agent_discovers_loads_and_calls_a_tool() {
    limited(async {
        let fake = demo::Fake::new()
            .on_add(|args| Ok(ToolOutput::from_text((args.a + args.b).to_string())));
        let toolbox = Toolbox::from_servers(vec![])
            .add_fake(fake.clone())
            .progressive(Vec::<String>::new())
            .connect()
            .await
            .expect("toolbox");
        let names = |toolbox: &Toolbox| -> Vec<String> {
            toolbox
                .export(Format::OpenAi)
                .tools
                .iter()
                .filter_map(|t| t.pointer("/function/name").and_then(Value::as_str))
                .map(str::to_string)
                .collect()
        };
        assert_eq!(names(&toolbox), ["search_tools", "load_tools"]);
        let before = serde_json::to_string(&toolbox.export(Format::Anthropic).tools).unwrap();

        // Turn 1: the model searches.
        let found = toolbox
            .call("search_tools", r#"{"query": "add two numbers"}"#)
            .await;
        assert!(found.is_ok(), "{}", found.text);
        let found: Value = serde_json::from_str(&found.text).expect("JSON");
        assert_eq!(found["tools"][0]["name"], "mcp_demo_add", "{found}");
        assert_eq!(
            serde_json::to_string(&toolbox.export(Format::Anthropic).tools).unwrap(),
            before,
            "a search changes no byte of the tool list"
        );
        // Turn 2: it loads the adder; its definition comes back and joins the list.
        let loaded = toolbox
            .call("load_tools", r#"{"names": ["mcp_demo_add"]}"#)
            .await;
        assert!(loaded.is_ok(), "{}", loaded.text);
        let loaded: Value = serde_json::from_str(&loaded.text).expect("JSON");
        assert_eq!(
            loaded["loaded"][0]["parameters"]["required"],
            serde_json::json!(["a", "b"])
        );
        assert_eq!(
            names(&toolbox),
            ["search_tools", "load_tools", "mcp_demo_add"]
        );
        // Turn 3: it calls it, checked by the generated `Args`.
        let d = toolbox.call("mcp_demo_add", r#"{"a": 2, "b": 3}"#).await;
        assert!(d.is_ok(), "{}", d.text);
        assert_eq!(d.text, "5");
        let d = toolbox.call("mcp_demo_add", r#"{"a": "two"}"#).await;
        assert_eq!(
            d.error_kind(),
            Some(ErrorKind::InvalidArguments),
            "{}",
            d.text
        );
        let tools: Vec<String> = fake.calls().into_iter().map(|c| c.tool).collect();
        assert_eq!(tools, ["add"]);
        toolbox.close().await;
    })
    .await;
}

#[tokio::test]
async fn a_recorded_cassette_holds_no_resolved_secret() {
    limited(async {
        const SECRET: &str = "cassette-secret-5b1e9d";
        let dir = tempfile::tempdir().expect("tempdir");
        let cassette = dir.path().join("everything.jsonl");
        // The server gets the secret through a `${NAME}` placeholder, and its `get-env` tool
        // answers with its whole environment.
        let config =
            common::installed("everything").with_env("CASSETTE_TOKEN", "${TEST_CASSETTE_SECRET}");
        let session = ConnectOptions::new()
            .with_env_lookup(|name: &str| match name {
                "TEST_CASSETTE_SECRET" => Some(SECRET.to_string()),
                other => common::lookup(other),
            })
            .connect(&config)
            .await
            .expect("connect everything");
        let recorder = everything::Recorder::new(everything::Client::new(session), &cassette)
            .expect("recorder");
        let live = everything::Tools::get_env(&recorder)
            .await
            .expect("get-env");
        let _ = recorder.client().session().close().await;
        // The live answer carries it (so the check below can fail) …
        assert!(live.text().contains(SECRET), "{}", live.text());
        // … the cassette does not.
        let text = std::fs::read_to_string(&cassette).expect("cassette");
        assert!(!text.contains(SECRET), "secret in the cassette: {text}");
        assert!(text.contains("CASSETTE_TOKEN"), "{text}");
        assert!(text.contains("<redacted>"), "{text}");
        let replayed =
            everything::Tools::get_env(&everything::Fake::from_cassette(&cassette).expect("loads"))
                .await
                .expect("replayed");
        assert!(replayed.text().contains("<redacted>"));
    })
    .await;
}

/// `*_task` methods go through the backend like every other generated method: a `Fake`
/// answers them with the tool's stub, a `Recorder` records them, and on the live server
/// (server-everything's `simulate-research-query`, `taskSupport: required`) the handle
/// gives the same typed result.
#[tokio::test]
async fn task_methods_are_answered_by_fakes_recorded_and_run_live() {
    limited(async {
        use everything::Tools as _;
        let args = || everything::simulate_research_query::Args {
            topic: "tides".into(),
            ambiguous: None,
        };
        let fake = everything::Fake::new().on_simulate_research_query(|args| {
            Ok(ToolOutput::from_text(format!("research on {}", args.topic)))
        });
        let handle = fake
            .simulate_research_query_task(args())
            .await
            .expect("a handle");
        assert_eq!(handle.id(), None);
        assert_eq!(
            handle.status().await.expect("status"),
            mcp_bindgen::TaskState::Completed
        );
        assert_eq!(
            handle.wait().await.expect("wait").text(),
            "research on tides"
        );
        // The tool runs only as a task (`taskSupport: required`): the plain method runs it
        // as one and waits, here as on a live server.
        let plain = fake.simulate_research_query(args()).await.expect("plain");
        assert_eq!(plain.text(), "research on tides");
        assert_eq!(fake.calls().len(), 2);
        // An unstubbed tool: the handle's result is the fake's error.
        let bare = everything::Fake::new();
        let err = bare
            .simulate_research_query_task(args())
            .await
            .expect("a handle")
            .wait()
            .await
            .expect_err("no stub");
        assert!(matches!(err, Error::Fake { .. }), "{err}");

        // Live, through the generated client, and recorded on the way.
        let dir = tempfile::tempdir().expect("tempdir");
        let cassette = dir.path().join("research.jsonl");
        let client = everything::Client::new(connect(&common::installed("everything")).await);
        let live = client
            .simulate_research_query_task(args())
            .await
            .expect("task")
            .wait()
            .await
            .expect("result");
        assert!(live.text().contains("tides"), "{}", live.text());
        let plain = client
            .simulate_research_query(args())
            .await
            .expect("the plain method runs the task");
        assert!(
            plain.text().contains("# Research Report: tides"),
            "{}",
            plain.text()
        );
        let recorder = everything::Recorder::new(client, &cassette).expect("recorder");
        let recorded = recorder
            .simulate_research_query_task(args())
            .await
            .expect("task")
            .wait()
            .await
            .expect("recorded result");
        let _ = recorder.client().session().close().await;
        let replay = everything::Fake::from_cassette(&cassette).expect("loads");
        let replayed = replay
            .simulate_research_query_task(args())
            .await
            .expect("task")
            .wait()
            .await
            .expect("replayed");
        assert_eq!(replayed.text(), recorded.text());
    })
    .await;
}

/// What an agent reads through a generated module's `resources()` and `prompts()`, written
/// once against those types: a template read, a prompt, a completion.
async fn everything_reader(
    resources: everything::resources::Resources<'_>,
    prompts: everything::prompts::Prompts<'_>,
) -> mcp_bindgen::Result<(String, String, Vec<String>)> {
    let text = resources
        .dynamic_text_resource(&everything::resources::dynamic_text_resource::Args {
            resource_id: "7".into(),
        })
        .await?
        .text()
        .unwrap_or_default();
    let prompt = prompts.simple_prompt().await?.text();
    use everything::prompts::completable_prompt::Argument;
    let names = prompts
        .complete(
            Argument::Name,
            "A",
            &[(Argument::Department, "Engineering")],
        )
        .await?
        .values;
    Ok((text, prompt, names))
}

/// A `Fake` answers resource templates, prompts and completions from typed stubs: the same
/// reader code runs on it and on server-everything; what it was asked is recorded; a read
/// without a stub is an error naming the template and the fix.
#[tokio::test]
async fn a_fake_answers_resources_prompts_and_completions_from_typed_stubs() {
    limited(async {
        let fake = everything::Fake::new()
            .on_resource_dynamic_text_resource(|args| {
                Ok(mcp_bindgen::ResourceContents::from_text(
                    args.uri(),
                    format!("fake resource {}", args.resource_id),
                ))
            })
            .on_prompt_simple_prompt(|| Ok(mcp_bindgen::PromptResult::from_user_text("hi")))
            .on_complete(|request| {
                assert_eq!(request.argument, "name");
                assert_eq!(
                    request.context,
                    [("department".to_string(), "Engineering".to_string())]
                );
                Ok(mcp_bindgen::Completion {
                    values: vec![format!("{}lice (fake)", request.value)],
                    ..Default::default()
                })
            });
        let (text, prompt, names) = everything_reader(fake.resources(), fake.prompts())
            .await
            .expect("the fake answers");
        assert_eq!(text, "fake resource 7");
        assert_eq!(prompt, "user: hi");
        assert_eq!(names, ["Alice (fake)"]);
        assert_eq!(fake.server().reads(), ["demo://resource/dynamic/text/7"]);
        let asked = fake.server().completions();
        assert_eq!(asked.len(), 1);
        assert_eq!(
            asked[0].reference,
            mcp_bindgen::CompletionRef::prompt("completable-prompt")
        );

        // The same code on the live server.
        let live = everything::Client::new(connect(&common::installed("everything")).await);
        let (text, prompt, names) = everything_reader(live.resources(), live.prompts())
            .await
            .expect("server-everything answers");
        assert!(text.starts_with("Resource 7:"), "{text}");
        assert!(prompt.starts_with("user: "), "{prompt}");
        assert_eq!(names, ["Alice"]);

        // No stub: an error that names the template and the way to give it one.
        let e = fake
            .resources()
            .dynamic_blob_resource(&everything::resources::dynamic_blob_resource::Args {
                resource_id: "1".into(),
            })
            .await
            .expect_err("no stub");
        assert!(matches!(e, Error::Fake { .. }), "{e:?}");
        let text = e.to_string();
        assert!(
            text.contains("no stub for resource template \"Dynamic Blob Resource\"")
                && text.contains("on_resource_"),
            "{text}"
        );
    })
    .await;
}
