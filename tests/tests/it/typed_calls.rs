//! End-to-end typed calls through `mcp_tools!` against real servers: the embedded demo
//! server (every tool), server-everything, filesystem, memory, time and git.

use crate::common;

use common::{connect, limited};

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcp_bindgen::{CallOptions, Error, Protocol, ServerConfig, Session};

mcp_bindgen::mcp_tools!("demo");
mcp_bindgen::mcp_tools!("everything");
mcp_bindgen::mcp_tools!("filesystem");
mcp_bindgen::mcp_tools!("memory");
mcp_bindgen::mcp_tools!("time");
mcp_bindgen::mcp_tools!("git");

/// The demo server over stdio with `server_args`, spoken to with `protocol`.
fn demo_stdio(server_args: &[&str], protocol: Protocol) -> ServerConfig {
    ServerConfig::stdio(
        "demo",
        common::demo_server().to_string_lossy(),
        server_args.iter().map(|a| a.to_string()).collect(),
    )
    .with_drift(mcp_bindgen::drift::DriftPolicy::Error)
    .with_protocol(protocol)
}

// Every typed call behaves the same on both protocol wires, over stdio (our fast path) and
// Streamable HTTP: a server flag limits the demo server to one revision.

#[tokio::test]
async fn demo_every_tool_typed() {
    // Auto against a server of both revisions: the current one.
    demo_every_tool(demo_stdio(&[], Protocol::Auto), "2026-07-28").await;
}

#[tokio::test]
async fn demo_every_tool_typed_on_the_initialize_wire() {
    // Auto against a 2025-11-25 server falls back to `initialize`.
    let config = demo_stdio(&["--protocol", "2025-11-25"], Protocol::Auto);
    demo_every_tool(config, "2025-11-25").await;
    let pinned = demo_stdio(&[], Protocol::V2025_11_25);
    demo_every_tool(pinned, "2025-11-25").await;
}

#[tokio::test]
async fn demo_every_tool_typed_on_the_stateless_wire() {
    let config = demo_stdio(&["--protocol", "2026-07-28"], Protocol::V2026_07_28);
    demo_every_tool(config, "2026-07-28").await;
}

#[tokio::test]
async fn demo_every_tool_typed_over_http_on_both_wires() {
    for (rev, protocol) in [
        ("2025-11-25", Protocol::V2025_11_25),
        ("2026-07-28", Protocol::V2026_07_28),
    ] {
        let (_guard, url) = common::start_demo_http_with(&["--protocol", rev]);
        let config = ServerConfig::http("demo", false, url)
            .with_drift(mcp_bindgen::drift::DriftPolicy::Error)
            .with_protocol(Protocol::Auto);
        demo_every_tool(config, rev).await;
        let (_guard, url) = common::start_demo_http();
        let config = ServerConfig::http("demo", false, url)
            .with_drift(mcp_bindgen::drift::DriftPolicy::Error)
            .with_protocol(protocol);
        demo_every_tool(config, rev).await;
    }
}

#[tokio::test]
async fn a_pinned_revision_the_server_lacks_is_a_clear_error() {
    limited(async {
        for (server, client) in [
            ("2025-11-25", Protocol::V2026_07_28),
            ("2026-07-28", Protocol::V2025_11_25),
        ] {
            let config = demo_stdio(&["--protocol", server], client);
            let err = match Session::connect(&config).await {
                Ok(_) => panic!("{client} against a {server} server connected"),
                Err(e) => e.to_string(),
            };
            // The error names what the server speaks.
            assert!(err.contains("speaks") && err.contains(server), "{err}");
        }
    })
    .await;
}

async fn demo_every_tool(config: ServerConfig, protocol: &str) {
    limited(async {
        // `Client::connect` also checks the live tools against the fixture's hash.
        let demo = demo::Client::connect(&config)
            .await
            .expect("connect without drift");
        assert_eq!(demo.session().server_info().protocol_version, protocol);
        // `ping` on the initialize wire, `server/discover` on the stateless one.
        let health = demo.session().health().await;
        assert!(matches!(health, mcp_bindgen::Health::Ok { .. }), "{health}");

        let sum = demo
            .add(demo::add::Args { a: 1.5, b: 2.0 })
            .await
            .expect("add");
        assert_eq!(sum.text(), "3.5");

        let echoed = demo
            .echo(demo::echo::Args {
                message: "ab".into(),
                repeat: Some(3),
            })
            .await
            .expect("echo");
        assert_eq!(echoed.text(), "ab ab ab");

        let issue = demo
            .create_issue(demo::create_issue::Args {
                repository: demo::create_issue::RepositoryRef {
                    owner: "octo".into(),
                    name: "repo".into(),
                },
                title: "Typed arguments".into(),
                body: Some(None),
                priority: Some(demo::create_issue::Priority::High),
                labels: Some(vec![demo::create_issue::Label {
                    name: "bug".into(),
                    color: None,
                }]),
                assignee: None,
                milestone: Some(Some(3)),
                due_date: None,
                parent: None,
                metadata: Some(
                    [("team".to_string(), "core".to_string())]
                        .into_iter()
                        .collect(),
                ),
                draft: Some(false),
            })
            .await
            .expect("create_issue");
        let text = issue.text();
        assert!(
            text.contains("octo/repo") && text.contains("Typed arguments"),
            "{text}"
        );
        assert!(text.contains("high"), "{text}");

        let records: Vec<demo::echo_structured::Record> = (0..3)
            .map(|i| demo::echo_structured::Record {
                id: i,
                name: format!("r{i}"),
                tags: Some(vec!["x".into()]),
                active: Some(i % 2 == 0),
                note: None,
            })
            .collect();
        let out = demo
            .echo_structured(demo::echo_structured::Args { payload: records })
            .await
            .expect("echo_structured");
        assert_eq!(out.count, 3);
        assert_eq!(out.payload[2].name, "r2");

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

        let now = demo.server_time().await.expect("server_time");
        assert!(now.text().ends_with('Z'), "{}", now.text());

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
        // The constants generated next to the client.
        assert_eq!(demo::ALIAS, "demo");
        assert_eq!(demo::FIXTURE_HASH.len(), 64);
        assert_eq!(demo::add::TOOL.name, "add");
        assert_eq!(
            demo::add::TOOL.openai_function()["function"]["name"],
            "mcp_demo_add"
        );
        assert_eq!(demo::add::TOOL.openai_name, "mcp_demo_add");
        assert_eq!(demo::add::TOOL.untyped_args_reason, None);
        // `TYPED_TOOLS` lists the tools' `TOOL` constants, in fixture order.
        let listed: Vec<&str> = demo::TYPED_TOOLS.iter().map(|t| t.name).collect();
        // The fixture lists the server's tools sorted, as the server names them.
        assert_eq!(listed, mcp_bindgen_tests::demo::DEMO_TOOLS);
    })
    .await;
}

#[tokio::test]
async fn everything_typed_calls() {
    limited(async {
        let session = connect(&common::installed("everything")).await;
        let server = everything::Client::new(session);
        let out = server
            .echo(everything::echo::Args {
                message: "typed".into(),
            })
            .await
            .expect("echo");
        assert!(out.text().contains("typed"), "{}", out.text());

        let sum = server
            .get_sum(everything::get_sum::Args { a: 19.0, b: 23.0 })
            .await
            .expect("get_sum");
        assert!(sum.text().contains("42"), "{}", sum.text());

        let weather = server
            .get_structured_content(everything::get_structured_content::Args {
                location: everything::get_structured_content::ArgsLocation::Chicago,
            })
            .await
            .expect("structured content");
        assert!(!weather.conditions.is_empty());

        let steps = Arc::new(Mutex::new(Vec::new()));
        let sink = steps.clone();
        let done = server
            .with_options(CallOptions::new().on_progress(move |p| {
                if let Ok(mut v) = sink.lock() {
                    v.push(p.progress);
                }
            }))
            .trigger_long_running_operation(everything::trigger_long_running_operation::Args {
                duration: Some(0.6),
                steps: Some(3.0),
            })
            .await
            .expect("long running operation");
        let steps = steps.lock().expect("progress").clone();
        assert_eq!(
            steps,
            vec![1.0, 2.0, 3.0],
            "progress in order before the result"
        );
        assert!(!done.text().is_empty());

        // Typed prompt arguments (issue 6): the generated `prompts` module.
        let prompts = server.prompts();
        let weather = prompts
            .args_prompt(everything::prompts::args_prompt::Args {
                city: "Oslo".into(),
                state: Some("Viken".into()),
            })
            .await
            .expect("args-prompt");
        assert_eq!(weather.messages.len(), 1);
        assert_eq!(weather.messages[0].role, mcp_bindgen::Role::User);
        assert_eq!(weather.text(), "user: What's weather in Oslo, Viken?");
        let weather = prompts
            .args_prompt(everything::prompts::args_prompt::Args {
                city: "Oslo".into(),
                state: None,
            })
            .await
            .expect("args-prompt without the optional argument");
        assert_eq!(weather.text(), "user: What's weather in Oslo?");
        let simple = prompts.simple_prompt().await.expect("simple-prompt");
        assert!(!simple.messages.is_empty());
        let embedded = prompts
            .resource_prompt(everything::prompts::resource_prompt::Args {
                resource_type: "Text".into(),
                resource_id: "2".into(),
            })
            .await
            .expect("resource-prompt");
        assert!(
            matches!(&embedded.messages[1].content, mcp_bindgen::Content::Resource { resource }
                if resource["uri"].as_str().is_some_and(|u| u.ends_with('2'))),
            "{embedded:?}"
        );
        // A value the server rejects comes back as an error, not a panic.
        let e = prompts
            .resource_prompt(everything::prompts::resource_prompt::Args {
                resource_type: "Text".into(),
                resource_id: "zero".into(),
            })
            .await
            .expect_err("invalid resourceId");
        assert!(e.to_string().contains("Invalid resourceId"), "{e}");
    })
    .await;
}

#[tokio::test]
async fn filesystem_write_then_read() {
    limited(async {
        let config = common::installed("filesystem");
        let root = common::servers_dir().join("filesystem/root");
        let dir = tempfile::tempdir_in(&root).expect("temp dir inside the allowed root");
        let path = dir.path().join("hello.txt").to_string_lossy().into_owned();
        let fs = filesystem::Client::new(connect(&config).await);
        let written = fs
            .write_file(filesystem::write_file::Args {
                path: path.clone(),
                content: "typed hello\nsecond line\n".into(),
            })
            .await
            .expect("write_file");
        assert!(written.content.contains("hello.txt"), "{}", written.content);
        let read = fs
            .read_text_file(filesystem::read_text_file::Args {
                path,
                head: Some(1.0),
                tail: None,
            })
            .await
            .expect("read_text_file");
        assert_eq!(read.content.trim_end(), "typed hello");
    })
    .await;
}

#[tokio::test]
async fn memory_create_then_read_graph() {
    limited(async {
        let scratch = tempfile::tempdir().expect("tempdir");
        let file = scratch.path().join("memory.jsonl");
        let config = common::installed("memory")
            .with_env("MEMORY_FILE_PATH", file.to_string_lossy().into_owned());
        let memory = memory::Client::new(connect(&config).await);
        let created = memory
            .create_entities(memory::create_entities::Args {
                entities: vec![memory::create_entities::ArgsEntitiesItem {
                    name: "mcp-bindgen".into(),
                    entity_type: "project".into(),
                    observations: vec!["generates typed bindings".into()],
                }],
            })
            .await
            .expect("create_entities");
        assert_eq!(created.entities.len(), 1);
        let graph = memory.read_graph().await.expect("read_graph");
        let names: Vec<&str> = graph.entities.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["mcp-bindgen"]);
        assert_eq!(graph.entities[0].observations, ["generates typed bindings"]);
    })
    .await;
}

#[tokio::test]
async fn time_typed_output() {
    limited(async {
        let time = time::Client::new(connect(&common::installed("time")).await);
        let now = time
            .get_current_time(time::get_current_time::Args {
                timezone: "Europe/Lisbon".into(),
            })
            .await
            .expect("get_current_time");
        assert_eq!(now.timezone, "Europe/Lisbon");
        assert!(now.datetime.starts_with("20"), "{}", now.datetime);
        assert!(!now.day_of_week.is_empty());
    })
    .await;
}

#[tokio::test]
async fn git_status_of_a_temp_repo() {
    limited(async {
        let _ = common::installed("git");
        let repo = tempfile::tempdir().expect("tempdir");
        let status = std::process::Command::new("git")
            .args(["init", "--quiet"])
            .current_dir(repo.path())
            .status()
            .expect("git init");
        assert!(status.success());
        std::fs::write(repo.path().join("new.txt"), "x").expect("write");
        let repo_path = repo.path().to_string_lossy().into_owned();
        let config = ServerConfig::stdio(
            "git",
            "${MCP_SERVERS_DIR}/git/venv/bin/mcp-server-git",
            vec!["--repository".into(), repo_path.clone()],
        );
        let git = git::Client::new(connect(&config).await);
        let out = git
            .git_status(git::git_status::Args { repo_path })
            .await
            .expect("git_status");
        assert!(out.text().contains("new.txt"), "{}", out.text());
    })
    .await;
}

/// Compile-only checks of the generated API shape (never run).
#[allow(dead_code, unreachable_code, clippy::diverging_sub_expression)]
async fn api_shape(session: Session) {
    let d = demo::Client::new(session);
    // No-argument tools take no argument; options go on the client.
    let _: mcp_bindgen::Result<mcp_bindgen::ToolOutput> = d.server_time().await;
    let _: mcp_bindgen::Result<mcp_bindgen::ToolOutput> =
        d.with_options(CallOptions::new()).server_time().await;
    // Typed outputs.
    let _: mcp_bindgen::Result<demo::get_weather::Output> = d
        .get_weather(demo::get_weather::Args {
            city: String::new(),
            days: None,
            units: None,
        })
        .await;
    let _: HashMap<&str, &str> = HashMap::new();
}
