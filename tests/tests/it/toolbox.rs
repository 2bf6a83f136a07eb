//! The agent layer (`mcp_bindgen::toolbox`) against real servers: the embedded demo server,
//! server-everything and mcp-server-time.

use crate::common;

use common::limited;

use std::time::Duration;

use mcp_bindgen::toolbox::{
    AgentConfig, AgentTools, ModelPolicy, ModelRef, Route, ServerState, Toolbox, TypedTool,
};
use mcp_bindgen::{ErrorKind, Registry};
use serde_json::json;

mcp_bindgen::mcp_tools!("demo");

/// A registry file in a temp dir (the toolbox reads registries like users do).
fn registry(text: &str) -> (tempfile::TempDir, Registry) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("servers.toml");
    std::fs::write(&path, text).expect("write registry");
    let r = Registry::load(&path).expect("registry loads");
    (dir, r)
}

#[tokio::test]
async fn dispatch_valid_unknown_invalid_tool_error_and_truncation() {
    limited(async {
        let tb = Toolbox::builder(&common::registry())
            .only(["demo"])
            .env(common::lookup)
            .max_output_bytes(200)
            .connect()
            .await
            .expect("connect");
        assert!(tb.skipped().is_empty());
        let names: Vec<String> = tb.tools().into_iter().map(|t| t.exported).collect();
        assert!(names.contains(&"mcp_demo_echo".to_string()), "{names:?}");

        // valid call
        let d = tb
            .call("mcp_demo_echo", r#"{"message": "hi", "repeat": 2}"#)
            .await;
        assert!(d.is_ok(), "{}", d.text);
        assert_eq!(d.text, "hi hi");
        assert_eq!(d.output().map(|o| o.text()), Some("hi hi".to_string()));
        let t = d.tool.expect("resolved");
        assert_eq!((t.server.as_str(), t.tool.as_str()), ("demo", "echo"));
        let d = tb.call("mcp_demo_add", r#"{"a": 1.5, "b": 2}"#).await;
        assert_eq!(d.text, "3.5");

        // unknown tool: model-readable, with a hint
        let d = tb.call("mcp_demo_ech", "{}").await;
        assert_eq!(d.error_kind(), Some(ErrorKind::UnknownTool));
        assert!(
            d.text.starts_with("Error: unknown tool \"mcp_demo_ech\""),
            "{}",
            d.text
        );
        assert!(d.text.contains("mcp_demo_echo"), "{}", d.text);

        // invalid arguments: caught before the server sees them
        for (args, needle) in [
            (r#"{"repeat": 2}"#, "missing required property \"message\""),
            (
                r#"{"message": 5}"#,
                "/message: expected string, found integer 5",
            ),
            (
                r#"{"message": "x", "extra": true}"#,
                "unexpected property \"extra\"",
            ),
            (
                r#"{"message": "x", "repeat": 10001}"#,
                "must be at most 10000",
            ),
            (r#"{"message": "#, "not valid JSON"),
            (r#"["x"]"#, "expected a JSON object, found an array"),
        ] {
            let d = tb.call("mcp_demo_echo", args).await;
            assert_eq!(
                d.error_kind(),
                Some(ErrorKind::InvalidArguments),
                "{args}: {}",
                d.text
            );
            assert!(
                d.text
                    .starts_with("Error: invalid arguments for mcp_demo_echo"),
                "{}",
                d.text
            );
            assert!(d.text.contains(needle), "{needle}: {}", d.text);
        }
        // empty arguments mean {}
        let d = tb.call("mcp_demo_server_time", "").await;
        assert!(d.is_ok(), "{}", d.text);

        // tool error (isError): the message reaches the model, the output reaches code
        let d = tb
            .call("mcp_demo_fail", r#"{"message": "disk on fire"}"#)
            .await;
        assert_eq!(d.error_kind(), Some(ErrorKind::ToolFailed));
        assert_eq!(d.text, "Error: tool mcp_demo_fail failed: disk on fire");
        assert!(d.output().is_some_and(|o| o.is_error));

        // truncation boundary: exactly the limit passes, one byte more is cut
        let d = tb
            .call(
                "mcp_demo_echo",
                &json!({"message": "x".repeat(200)}).to_string(),
            )
            .await;
        assert_eq!(d.text.len(), 200);
        assert!(d.truncation.is_none());
        let long = format!("{}END", "y".repeat(198));
        let d = tb
            .call("mcp_demo_echo", &json!({"message": long}).to_string())
            .await;
        let cut = d.truncation.expect("truncated");
        assert!(d.text.len() <= 200, "{}", d.text.len());
        assert!(d.text.ends_with("END"), "{}", d.text);
        assert!(
            d.text
                .contains(&format!("[… {} of 201 bytes cut …]", cut.cut_bytes)),
            "{}",
            d.text
        );
        assert_eq!(
            d.output().map(|o| o.text().len()),
            Some(201),
            "full result kept for code"
        );
    })
    .await;
}

#[tokio::test]
async fn transport_error_status_and_reconnect() {
    limited(async {
        // The demo server exits after answering one call.
        // The demo server exits after answering one call and cannot be restarted.
        let dir = tempfile::tempdir().expect("tempdir");
        let marker = dir.path().join("used");
        let dying = common::one_shot_server("dying", &marker);
        let tb = Toolbox::from_servers(vec![dying])
            .connect()
            .await
            .expect("connect");
        assert!(
            tb.call("mcp_dying_add", r#"{"a": 1, "b": 1}"#)
                .await
                .is_ok()
        );
        // Let the process exit.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let d = tb.call("mcp_dying_add", r#"{"a": 1, "b": 1}"#).await;
        assert_eq!(d.error_kind(), Some(ErrorKind::Transport), "{}", d.text);
        assert!(d.text.starts_with("Error: server \"dying\""), "{}", d.text);
        let st = tb.status("dying").expect("status");
        assert_eq!(st.state, ServerState::Failed);
        assert!(st.last_error.is_some());

        let health = tb.check_health().await;
        assert_eq!(health[0].state, ServerState::Failed, "{health:?}");
        // Still gone: reconnect reports it.
        let report = tb.reconnect(true).await;
        assert!(report.reconnected.is_empty());
        assert_eq!(report.failed.len(), 1);
        // The server can start again.
        std::fs::remove_file(&marker).expect("remove marker");
        let report = tb.reconnect(true).await;
        assert_eq!(report.reconnected, ["dying"]);
        assert_eq!(
            tb.status("dying").expect("status").state,
            ServerState::Active
        );
        assert_eq!(tb.check_health().await[0].state, ServerState::Active);
        let d = tb.call("mcp_dying_add", r#"{"a": 2, "b": 3}"#).await;
        assert_eq!(d.text, "5", "{}", d.text);
        assert_eq!(
            tb.status("dying").expect("status").state,
            ServerState::Active
        );
        // Nothing known to have failed: reconnect(true) has nothing to do.
        assert!(tb.reconnect(true).await.reconnected.is_empty());
    })
    .await;
}

#[tokio::test]
async fn skip_or_fail_with_an_unreachable_server_and_a_missing_secret() {
    limited(async {
        let demo = common::demo_server();
        let port = common::free_port();
        let text = |required_down: bool, required_secret: bool| {
            format!(
                r#"
[servers.demo]
command = "{demo}"

[servers.down]
transport = "streamable-http"
url = "http://127.0.0.1:{port}/mcp"
timeout = 5
required = {required_down}

[servers.secret]
command = "{demo}"
env = {{ API_TOKEN = "${{MCP_TOOLBOX_TEST_UNSET_SECRET}}" }}
required = {required_secret}
"#,
                demo = demo.display()
            )
        };

        let (_d, r) = registry(&text(false, false));
        let tb = Toolbox::builder(&r)
            .connect()
            .await
            .expect("optional servers are skipped");
        let skipped: Vec<&str> = tb.skipped().iter().map(|s| s.alias.as_str()).collect();
        assert_eq!(skipped, ["down", "secret"]);
        let secret = &tb.skipped()[1].reason;
        assert!(
            secret.contains("MCP_TOOLBOX_TEST_UNSET_SECRET is not set"),
            "{secret}"
        );
        let down = &tb.skipped()[0].reason;
        assert!(down.contains("server \"down\""), "{down}");
        let states: Vec<(String, ServerState)> = tb
            .statuses()
            .into_iter()
            .map(|s| (s.alias, s.state))
            .collect();
        assert_eq!(
            states,
            [
                ("demo".to_string(), ServerState::Active),
                ("down".to_string(), ServerState::Failed),
                ("secret".to_string(), ServerState::Failed)
            ]
        );
        assert!(tb.tools().iter().all(|t| t.server == "demo"));
        // Still failing: reconnect reports both with the reason.
        let report = tb.reconnect(true).await;
        assert!(report.reconnected.is_empty());
        assert_eq!(report.failed.len(), 2);

        let (_d, r) = registry(&text(true, false));
        let e = Toolbox::builder(&r)
            .connect()
            .await
            .expect_err("required down");
        assert_eq!(e.kind(), ErrorKind::RequiredServer);
        let message = e.to_string();
        assert!(message.starts_with("server \"down\": "), "{message}");
        assert!(message.contains("the server is required"), "{message}");
        // Named once, not `server "down" …: server "down": …`.
        assert_eq!(message.matches("\"down\"").count(), 1, "{message}");

        let (_d, r) = registry(&text(false, true));
        let e = Toolbox::builder(&r)
            .connect()
            .await
            .expect_err("required secret");
        assert_eq!(e.kind(), ErrorKind::RequiredServer);
        assert!(
            e.to_string().contains("MCP_TOOLBOX_TEST_UNSET_SECRET"),
            "{e}"
        );
    })
    .await;
}

#[tokio::test]
async fn names_resolution_collisions_allowlists_and_long_aliases() {
    limited(async {
        let long_alias = "a-very-long-server-alias-that-pushes-exported-names-past-the-cap";
        let only_echo = common::demo_config("allow")
            .with_tools(["echo", "add"])
            .with_exclude_tools(["add"]);
        let tb = Toolbox::from_servers(vec![
            common::demo_config("demo"),
            common::demo_config("demo2"),
            common::demo_config(long_alias),
            only_echo,
        ])
        .description_prefix(true)
        .connect()
        .await
        .expect("connect");

        // allow/deny lists
        let allow: Vec<String> = tb
            .tools()
            .into_iter()
            .filter(|t| t.server == "allow")
            .map(|t| t.tool)
            .collect();
        assert_eq!(allow, ["echo"]);
        assert_eq!(
            tb.call("allow.add", r#"{"a": 1, "b": 2}"#)
                .await
                .error_kind(),
            Some(ErrorKind::UnknownTool)
        );

        // every name valid and unique, ≤ 64 chars
        let tools = tb.tools();
        let mut names: Vec<&str> = tools.iter().map(|t| t.exported.as_str()).collect();
        assert!(
            names
                .iter()
                .all(|n| mcp_bindgen::toolbox::names::is_valid_name(n)),
            "{names:?}"
        );
        names.sort();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len());

        // long alias: capped with a hash, still callable through the map back
        let long = tools
            .iter()
            .find(|t| t.server == long_alias && t.tool == "echo_structured")
            .expect("long tool");
        assert_eq!(long.exported.len(), 64);
        assert_eq!(
            long.exported,
            mcp_bindgen::toolbox::names::exported_name(long_alias, "echo_structured")
        );
        let d = tb
            .call(&long.exported, r#"{"payload": [{"id": 1, "name": "n"}]}"#)
            .await;
        assert!(d.is_ok(), "{}", d.text);
        assert_eq!(d.tool.expect("tool").server, long_alias);

        // description prefix
        let echo = tools
            .iter()
            .find(|t| t.exported == "mcp_demo_echo")
            .expect("echo");
        assert!(
            echo.function["function"]["description"]
                .as_str()
                .is_some_and(|d| d.starts_with("[MCP: demo] Echo")),
            "{}",
            echo.function
        );

        // resolution: exported, alias.tool, short names
        assert_eq!(
            tb.resolve("mcp_demo2_add").expect("exported").server,
            "demo2"
        );
        assert_eq!(
            tb.resolve("demo2.add").expect("alias.tool").exported,
            "mcp_demo2_add"
        );
        assert_eq!(
            tb.resolve("server_time").map(|_| ()).unwrap_err().kind(),
            ErrorKind::AmbiguousTool
        );
        let e = tb.resolve("echo").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::AmbiguousTool);
        for c in [
            "demo.echo",
            "demo2.echo",
            "allow.echo",
            &format!("{long_alias}.echo"),
        ] {
            assert!(e.to_string().contains(c), "{c}: {e}");
        }
        let d = tb.call("echo", r#"{"message": "x"}"#).await;
        assert_eq!(d.error_kind(), Some(ErrorKind::AmbiguousTool));
        assert!(d.text.contains("is ambiguous"), "{}", d.text);
        let d = tb
            .call("demo2.echo", r#"{"message": "via alias.tool"}"#)
            .await;
        assert_eq!(d.text, "via alias.tool");
        assert!(tb.collisions().is_empty());
    })
    .await;
}

/// The typed definitions `mcp_tools!("demo")` generates.
const DEMO_TYPED: &[TypedTool] = demo::TYPED_TOOLS;

/// Just `echo` of them.
fn echo_only() -> &'static [TypedTool] {
    let at = DEMO_TYPED
        .iter()
        .position(|t| t.name == "echo")
        .expect("demo has echo");
    &DEMO_TYPED[at..at + 1]
}

#[tokio::test]
async fn typed_and_untyped_servers_side_by_side() {
    limited(async {
        let tb = Toolbox::from_servers(vec![common::demo_config("demo"), common::demo_config("untyped")])
            .add_typed("demo", DEMO_TYPED)
            .connect()
            .await
            .expect("connect");
        let typed: Vec<(String, bool)> = tb
            .tools()
            .into_iter()
            .filter(|t| t.server == "demo")
            .map(|t| (t.tool, t.typed))
            .collect();
        assert_eq!(
            typed,
            DEMO_TYPED
                .iter()
                .map(|t| (t.name.to_string(), true))
                .collect::<Vec<_>>()
        );
        assert_eq!(tb.tools().iter().filter(|t| t.server == "untyped").count(), 8);
        // The typed definitions are the compile-time constants.
        let echo = tb.tools().into_iter().find(|t| t.exported == "mcp_demo_echo").expect("echo");
        assert_eq!(echo.function, demo::echo::TOOL.openai_function());
        let issue = tb.tools().into_iter().find(|t| t.exported == "mcp_demo_create_issue").expect("issue");
        assert_eq!(
            issue.strict_function.as_ref().err(),
            demo::create_issue::TOOL.openai_function_strict().err().as_ref()
        );
        assert!(issue.strict_function.is_err());

        // Typed validation: the generated argument type's own message.
        let d = tb.call("mcp_demo_echo", r#"{"message": 1}"#).await;
        assert_eq!(d.error_kind(), Some(ErrorKind::InvalidArguments));
        assert!(d.text.contains("invalid type: integer `1`, expected a string"), "{}", d.text);
        let d = tb
            .call(
                "mcp_demo_create_issue",
                r#"{"repository": {"owner": "octo", "name": "r"}, "title": "T", "priority": "urgent"}"#,
            )
            .await;
        assert_eq!(d.error_kind(), Some(ErrorKind::InvalidArguments), "{}", d.text);
        assert!(d.text.contains("urgent"), "{}", d.text);
        let d = tb
            .call(
                "mcp_demo_create_issue",
                r#"{"repository": {"owner": "octo", "name": "r"}, "title": "Typed", "priority": "high"}"#,
            )
            .await;
        assert!(d.is_ok(), "{}", d.text);
        assert!(d.text.contains("octo/r"), "{}", d.text);
        assert!(tb.call("mcp_demo_server_time", "{}").await.is_ok());
        // Untyped validation on the same tool.
        let d = tb.call("mcp_untyped_echo", r#"{"message": 1}"#).await;
        assert!(d.text.contains("/message: expected string"), "{}", d.text);
        // add_typed after start-up re-exports.
        tb.add_typed("untyped", echo_only()).expect("add_typed");
        let untyped: Vec<String> = tb
            .tools()
            .into_iter()
            .filter(|t| t.server == "untyped")
            .map(|t| t.exported)
            .collect();
        assert_eq!(untyped, ["mcp_untyped_echo"]);
        assert!(tb.add_typed("nope", DEMO_TYPED).is_err());
    })
    .await;
}

/// A strict-mode model sends every property, the optional ones as `null`. Dispatch drops the
/// nulls a schema does not allow (untyped servers) or decodes them as "left out" (typed
/// servers, through the generated `Args`), so the server sees what it accepts; nulls a
/// schema allows (`assignee: null`) reach it.
#[tokio::test]
async fn strict_mode_arguments_dispatch_to_typed_and_untyped_servers() {
    limited(async {
        let tb = Toolbox::from_servers(vec![
            common::demo_config("demo"),
            common::demo_config("untyped"),
        ])
        .add_typed("demo", DEMO_TYPED)
        .connect()
        .await
        .expect("connect");
        for server in ["demo", "untyped"] {
            for (tool, args, want) in [
                ("echo", r#"{"message": "hi", "repeat": null}"#, "hi"),
                (
                    "get_weather",
                    r#"{"city": "Lisbon", "days": null, "units": null}"#,
                    "Lisbon",
                ),
                (
                    "create_issue",
                    r#"{"repository": {"owner": "octo", "name": "r"}, "title": "Strict",
                        "assignee": null, "body": null, "draft": null, "due_date": null,
                        "labels": [{"name": "bug", "color": null}], "metadata": null,
                        "milestone": null, "parent": null, "priority": null}"#,
                    "octo/r",
                ),
                ("long_task", r#"{"steps": 1, "delay_ms": null}"#, ""),
            ] {
                let d = tb.call(&format!("mcp_{server}_{tool}"), args).await;
                assert!(d.is_ok(), "{server}/{tool}: {}", d.text);
                assert!(d.text.contains(want), "{server}/{tool}: {}", d.text);
            }
        }
        // What is still wrong after the nulls are dropped is still rejected.
        for server in ["demo", "untyped"] {
            let d = tb
                .call(
                    &format!("mcp_{server}_echo"),
                    r#"{"message": null, "repeat": null}"#,
                )
                .await;
            assert_eq!(
                d.error_kind(),
                Some(ErrorKind::InvalidArguments),
                "{server}: {}",
                d.text
            );
        }
    })
    .await;
}

#[tokio::test]
async fn agents_model_server_rules_routing_and_scope() {
    limited(async {
        let tb = Toolbox::from_servers(vec![
            common::demo_config("plain"),
            common::demo_config("wrapped").with_function_call_wrapper(true),
            common::demo_config("other").with_function_call_wrapper(true),
        ])
        .connect()
        .await
        .expect("connect");
        let policy = ModelPolicy::new()
            .provider("anthropic", true)
            .model("openai", "gpt-mcp", true);
        let gpt = ModelRef::new("openai", "gpt-4o");
        let claude = ModelRef::new("anthropic", "claude-x");

        // 1. no MCP + no wrapper: error naming model, server and both fixes.
        let e = tb
            .agent(&AgentConfig::new("a1", gpt.clone(), ["plain", "wrapped"]), &policy)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ModelServerMismatch);
        let m = e.to_string();
        assert!(m.contains("model \"openai/gpt-4o\" does not support MCP"), "{m}");
        assert!(m.contains("server \"plain\" has no function-call wrapper"), "{m}");
        assert!(m.contains("function_call_wrapper = true"), "{m}");
        assert!(m.contains("supports_mcp = true"), "{m}");
        assert!(!m.contains("\"wrapped\""), "{m}");

        // 2. no MCP + wrapper: function calls + dispatch, only its servers.
        let view = tb
            .agent(&AgentConfig::new("a2", gpt.clone(), ["wrapped"]), &policy)
            .expect("ok");
        assert_eq!(view.route(), Some(Route::FunctionCalls));
        assert!(view.warnings().is_empty());
        let AgentTools::FunctionCalls(export) = view.model_tools(false) else {
            panic!("function calls expected")
        };
        assert_eq!(export.tools.len(), 8);
        assert!(export.tools.iter().all(|t| t["function"]["name"]
            .as_str()
            .is_some_and(|n| n.starts_with("mcp_wrapped_"))));
        let d = view.call("mcp_wrapped_echo", r#"{"message": "ok"}"#).await;
        assert_eq!(d.text, "ok");
        // The short name is unambiguous inside the agent's view.
        assert_eq!(view.call("echo", r#"{"message": "short"}"#).await.text, "short");
        let d = view.call("mcp_plain_echo", r#"{"message": "no"}"#).await;
        assert_eq!(d.error_kind(), Some(ErrorKind::NotAllowed));
        assert!(
            d.text.contains("not available to agent \"a2\": server \"plain\" is not one of its servers (wrapped)"),
            "{}",
            d.text
        );
        assert_eq!(view.call("other.echo", "{}").await.error_kind(), Some(ErrorKind::NotAllowed));
        // Parsed arguments take the same way: the agent's scope holds.
        let d = view
            .call_value("mcp_plain_echo", &serde_json::json!({"message": "no"}))
            .await;
        assert_eq!(d.error_kind(), Some(ErrorKind::NotAllowed), "{}", d.text);
        let d = view
            .call_value("mcp_wrapped_echo", &serde_json::json!({"message": "ok"}))
            .await;
        assert_eq!(d.text, "ok");
        assert!(view.session("plain").is_none());
        assert!(view.native_servers().iter().all(|s| s.alias == "wrapped"));

        // 3. MCP + no wrapper: native tools + session.
        let view = tb
            .agent(&AgentConfig::new("a3", claude.clone(), ["plain"]), &policy)
            .expect("ok");
        assert_eq!(view.route(), Some(Route::Native));
        assert!(view.warnings().is_empty());
        let AgentTools::Native(servers) = view.model_tools(false) else {
            panic!("native expected")
        };
        assert_eq!(servers.len(), 1);
        assert_eq!(servers[0].alias, "plain");
        assert_eq!(servers[0].tools.len(), 8);
        assert!(servers[0].tools.iter().any(|t| t["name"] == "echo" && t.get("inputSchema").is_some()));
        let out = servers[0]
            .session
            .call("echo", &json!({"message": "direct"}))
            .await
            .expect("native call");
        assert_eq!(out.text(), "direct");

        // 4. MCP + wrapper: warning, still native.
        let view = tb
            .agent(&AgentConfig::new("a4", ModelRef::new("openai", "gpt-mcp"), ["wrapped"]), &policy)
            .expect("ok");
        assert_eq!(view.route(), Some(Route::Native));
        assert_eq!(view.warnings().len(), 1);
        assert!(view.warnings()[0].contains("unneeded overhead"), "{}", view.warnings()[0]);
        assert!(view.warnings()[0].contains("openai/gpt-mcp"), "{}", view.warnings()[0]);

        // Tool allowlist of an agent.
        let view = tb
            .agent(
                &AgentConfig::new("a5", gpt.clone(), ["wrapped", "other"]).with_tools(["wrapped.echo", "mcp_other_add"]),
                &policy,
            )
            .expect("ok");
        let names: Vec<String> = view.tools().into_iter().map(|t| t.exported).collect();
        assert_eq!(names, ["mcp_other_add", "mcp_wrapped_echo"]);
        assert_eq!(view.openai_tools(true).len(), 2);
        let d = view.call("mcp_wrapped_add", r#"{"a": 1, "b": 2}"#).await;
        assert_eq!(d.error_kind(), Some(ErrorKind::NotAllowed));
        assert!(d.text.contains("tool \"add\" of server \"wrapped\" is not in its tool list"), "{}", d.text);
        assert_eq!(view.call("add", r#"{"a": 1, "b": 2}"#).await.text, "3");
        let e = tb
            .agent(&AgentConfig::new("a6", gpt, ["wrapped"]).with_tools(["nope"]), &policy)
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Config);
        let e = tb.agent(&AgentConfig::new("a7", claude, ["ghost"]), &policy).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Config);
    })
    .await;
}

#[tokio::test]
async fn prompts_and_resource_templates_of_server_everything() {
    let everything = common::installed("everything");
    limited(async {
        let tb = Toolbox::from_servers(vec![everything, common::demo_config("demo")])
            .env(common::lookup)
            .connect()
            .await
            .expect("connect");
        assert!(tb.skipped().is_empty(), "{:?}", tb.skipped());
        let prompts = tb.list_prompts("everything").await.expect("prompts");
        assert!(!prompts.is_empty());
        assert!(prompts.iter().all(|p| p.get("name").is_some()));
        let templates = tb
            .list_resource_templates("everything")
            .await
            .expect("templates");
        assert!(!templates.is_empty());
        assert!(
            templates.iter().all(|t| t.get("uriTemplate").is_some()),
            "{templates:?}"
        );
        // The demo server has neither capability: empty lists, no error.
        assert!(
            tb.list_prompts("demo")
                .await
                .expect("demo prompts")
                .is_empty()
        );
        let e = tb.list_prompts("ghost").await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Config);
        // An agent only reaches its servers' prompts.
        let view = tb
            .agent(
                &AgentConfig::new("p", ModelRef::new("anthropic", "c"), ["demo"]),
                &ModelPolicy::new().provider("anthropic", true),
            )
            .expect("agent");
        assert_eq!(
            view.list_prompts("everything").await.unwrap_err().kind(),
            ErrorKind::NotAllowed
        );
        // everything's tools dispatch too (hyphenated names).
        let d = tb
            .call("mcp_everything_get-sum", r#"{"a": 2, "b": 40}"#)
            .await;
        assert!(d.is_ok() && d.text.contains("42"), "{}", d.text);
    })
    .await;
}

#[tokio::test]
async fn resources_and_prompts_read_and_get_against_server_everything() {
    let everything = common::installed("everything");
    limited(async {
        let tb = Toolbox::from_servers(vec![everything])
            .env(common::lookup)
            .connect()
            .await
            .expect("connect");
        let resources = tb.list_resources("everything").await.expect("resources");
        assert!(!resources.is_empty(), "server-everything lists resources");
        let uri = resources[0]["uri"].as_str().expect("uri").to_string();
        let read = tb.read_resource("everything", &uri).await.expect("read");
        let contents = read["contents"].as_array().expect("contents");
        assert_eq!(contents[0]["uri"], uri.as_str());
        // A resource from a template of the fixture.
        let read = tb
            .read_resource("everything", "demo://resource/dynamic/text/7")
            .await
            .expect("read templated resource");
        assert!(read["contents"][0]["text"].as_str().is_some(), "{read}");

        let mut args = serde_json::Map::new();
        args.insert("city".into(), "Lisbon".into());
        let prompt = tb
            .get_prompt("everything", "args-prompt", args)
            .await
            .expect("prompts/get");
        let text = prompt["messages"].to_string();
        assert!(text.contains("Lisbon"), "{text}");
        // A missing required prompt argument is the server's protocol error, not a panic.
        let err = tb
            .get_prompt("everything", "args-prompt", serde_json::Map::new())
            .await
            .unwrap_err();
        assert!(!err.to_string().is_empty());
    })
    .await;
}

/// Per-server name prefixes and predicate filters beside the registry's allow/deny lists:
/// the demo server's tools under their own names, only those annotated read-only, called by
/// those names; a bad prefix or an unknown alias is a configuration error.
#[tokio::test]
async fn a_server_prefix_and_a_tool_filter_shape_the_export() {
    limited(async {
        let tb = Toolbox::builder(&common::registry())
            .only(["demo"])
            .env(common::lookup)
            .prefix("demo", "")
            .filter("demo", |t| t["annotations"]["readOnlyHint"] == true)
            .connect()
            .await
            .expect("connect");
        let names: Vec<String> = tb.tools().into_iter().map(|t| t.exported).collect();
        assert!(names.contains(&"echo".to_string()), "{names:?}");
        assert!(names.contains(&"get_weather".to_string()), "{names:?}");
        // create_issue is not annotated read-only: filtered out.
        assert!(
            !names.iter().any(|n| n.contains("create_issue")),
            "{names:?}"
        );
        assert!(!names.iter().any(|n| n.starts_with("mcp_")), "{names:?}");
        let d = tb.call("echo", r#"{"message": "hi"}"#).await;
        assert!(d.is_ok(), "{}", d.text);
        assert_eq!(d.text, "hi");
        let d = tb.call("create_issue", "{}").await;
        assert!(!d.is_ok(), "a filtered tool is not callable: {}", d.text);

        let short = Toolbox::builder(&common::registry())
            .only(["demo"])
            .env(common::lookup)
            .prefix("demo", "d-")
            .connect()
            .await
            .expect("connect");
        let names: Vec<String> = short.tools().into_iter().map(|t| t.exported).collect();
        assert!(names.contains(&"d-create_issue".to_string()), "{names:?}");

        for (builder, needle) in [
            (
                Toolbox::builder(&common::registry())
                    .only(["demo"])
                    .prefix("demo", "my tools."),
                "holds ' '",
            ),
            (
                Toolbox::builder(&common::registry())
                    .only(["demo"])
                    .filter("nope", |_| true),
                "a tool filter names server \"nope\"",
            ),
        ] {
            let e = builder.connect().await.expect_err("a configuration error");
            assert!(e.to_string().contains(needle), "{e}");
        }
    })
    .await;
}

/// The opt-in result cache: only for tools annotated read-only and idempotent, per
/// arguments, errors never cached, expired after its TTL, forgotten on `tools/list_changed`.
#[tokio::test]
async fn a_read_only_idempotent_tool_can_reuse_its_results() {
    limited(async {
        let faults = mcp_bindgen::ServerConfig::stdio(
            "faults",
            common::demo_server().to_string_lossy().into_owned(),
            vec!["--faults".into()],
        );
        let tb = Toolbox::from_servers(vec![faults.clone()])
            .cache("faults", "echo", std::time::Duration::from_secs(600))
            .cache("faults", "fail", std::time::Duration::from_secs(600))
            .cache("faults", "add", std::time::Duration::from_millis(50))
            .connect()
            .await
            .expect("connect");
        let hi = r#"{"message": "hi"}"#;
        let first = tb.call("mcp_faults_echo", hi).await;
        assert!(first.is_ok() && !first.cached, "{}", first.text);
        let second = tb.call("mcp_faults_echo", hi).await;
        assert!(second.is_ok() && second.cached, "{}", second.text);
        assert_eq!(second.text, first.text);
        let other = tb.call("mcp_faults_echo", r#"{"message": "ho"}"#).await;
        assert!(!other.cached, "other arguments are another call");
        // A tool error is never kept.
        for _ in 0..2 {
            let d = tb.call("mcp_faults_fail", r#"{"message": "no"}"#).await;
            assert!(!d.is_ok() && !d.cached, "{}", d.text);
        }
        // The TTL.
        let sum = r#"{"a": 1, "b": 2}"#;
        assert!(!tb.call("mcp_faults_add", sum).await.cached);
        tokio::time::sleep(std::time::Duration::from_millis(120)).await;
        assert!(!tb.call("mcp_faults_add", sum).await.cached, "expired");
        // `tools/list_changed` forgets the server's results.
        assert!(tb.call("mcp_faults_echo", hi).await.cached);
        assert!(tb.call("mcp_faults_grow", "{}").await.is_ok());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !tb.tools().iter().any(|t| t.exported == "mcp_faults_grown") {
            assert!(
                std::time::Instant::now() < deadline,
                "no refresh after grow"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        assert!(
            !tb.call("mcp_faults_echo", hi).await.cached,
            "forgotten on list_changed"
        );

        // Only read-only and idempotent tools, and only tools the toolbox exports.
        for (tool, needle) in [
            (
                "server_time",
                "does not annotate it read-only and idempotent",
            ),
            (
                "create_issue",
                "does not annotate it read-only and idempotent",
            ),
            ("nope", "which the toolbox does not export"),
        ] {
            let e = Toolbox::from_servers(vec![faults.clone()])
                .cache("faults", tool, std::time::Duration::from_secs(1))
                .connect()
                .await
                .expect_err("refused");
            assert!(e.to_string().contains(needle), "{tool}: {e}");
        }
    })
    .await;
}
