//! The application between the model and the tool, against real servers (the embedded demo
//! server and the npm filesystem server, both reviewed through their committed fixtures):
//! an approval hook that follows the reviewed annotations, a hook that rewrites arguments
//! and one that redacts results, tools and servers switched off at run time, and the usage
//! statistics of a scripted run.

use crate::common;

use std::sync::{Arc, Mutex};

use common::limited;

use mcp_bindgen::ErrorKind;
use mcp_bindgen::toolbox::provider::Format;
use mcp_bindgen::toolbox::{
    ApprovalPolicy, ApprovalRule, Dispatch, Hook, ModelCall, ToolStats, Toolbox, ToolboxBuilder,
    Verdict,
};
use serde_json::{Value, json};

/// The demo server and the filesystem server (its allowed directory: the installer's empty
/// `root/`), reviewed through `fixtures/`.
fn builder() -> ToolboxBuilder {
    Toolbox::from_servers(vec![
        common::demo_config("demo"),
        common::installed("filesystem"),
    ])
    .env(common::lookup)
    .fixtures_dir(common::root().join("fixtures"))
}

async fn connect(builder: ToolboxBuilder) -> Toolbox {
    builder.connect().await.expect("connect")
}

/// The dispatch failed with `kind`, and the model reads `needle`.
fn fails(d: &Dispatch, kind: ErrorKind, needle: &str) {
    assert_eq!(d.error_kind(), Some(kind), "{}", d.text);
    assert!(d.text.contains(needle), "{needle}: {}", d.text);
}

fn names(tb: &Toolbox, format: Format) -> Vec<String> {
    tb.export(format)
        .tools
        .iter()
        .filter_map(|d| format.name_of(d).map(str::to_string))
        .collect()
}

#[tokio::test]
async fn an_approval_hook_sees_the_reviewed_annotations_and_refuses_a_destructive_call() {
    limited(async {
        let asked: Arc<Mutex<Vec<ModelCall>>> = Arc::default();
        let seen = asked.clone();
        let policy = ApprovalPolicy::new(move |call| {
            seen.lock().expect("lock").push(call.clone());
            Box::pin(async { Err("a person said no: nothing is written during the test".into()) })
        })
        .tool("demo.fail", ApprovalRule::Refuse);
        let tb = connect(builder().hook(policy)).await;
        let target = common::servers_dir().join("filesystem/root/hooks-test.txt");
        let _ = std::fs::remove_file(&target);

        // write_file is destructive in its reviewed annotations: the approver is asked, says
        // no, and the model reads why; the server never saw the call.
        let d = tb
            .call(
                "mcp_filesystem_write_file",
                &json!({"path": target.display().to_string(), "content": "x"}).to_string(),
            )
            .await;
        assert_eq!(d.error_kind(), Some(ErrorKind::Refused), "{}", d.text);
        assert!(
            d.text.starts_with("Error: the application refused the call to mcp_filesystem_write_file: a person said no"),
            "{}",
            d.text
        );
        assert!(!target.exists(), "the refused call wrote {}", target.display());
        let asked_calls = asked.lock().expect("lock").clone();
        assert_eq!(asked_calls.len(), 1, "{asked_calls:?}");
        let call = &asked_calls[0];
        assert_eq!(call.qualified_name(), "filesystem.write_file");
        assert_eq!(call.hint("destructiveHint"), Some(true), "{call:?}");
        assert!(call.destructive() && !call.read_only());
        assert_eq!(call.arguments["content"], "x");

        // A read-only tool runs without asking; so does a tool marked not destructive.
        let d = tb.call("mcp_filesystem_list_allowed_directories", "{}").await;
        assert!(d.is_ok(), "{}", d.text);
        assert!(d.text.contains("root"), "{}", d.text);
        let d = tb
            .call(
                "demo.create_issue",
                &json!({"repository": {"owner": "o", "name": "n"}, "title": "t"}).to_string(),
            )
            .await;
        assert!(d.is_ok(), "create_issue is not destructive (destructiveHint: false): {}", d.text);
        assert_eq!(asked.lock().expect("lock").len(), 1, "nobody was asked again");

        // A rule by name wins over the annotations (fail is read-only).
        let d = tb.call("mcp_demo_fail", r#"{"message": "m"}"#).await;
        fails(&d, ErrorKind::Refused, "demo.fail is not allowed here");

        // The statistics count the refusals apart from the errors.
        let stats = tb.stats();
        let write = stats
            .iter()
            .find(|s| s.tool == "write_file")
            .expect("write_file in the statistics");
        assert_eq!((write.calls, write.refusals, write.errors), (1, 1, 0), "{write:?}");
    })
    .await;
}

/// Rewrites `add`'s `b` to 3, and redacts the echo's text after the call.
struct Rewrite;

impl Hook for Rewrite {
    fn before<'a>(&'a self, call: &'a ModelCall) -> futures::future::BoxFuture<'a, Verdict> {
        Box::pin(async move {
            match call.tool.tool.as_str() {
                "add" => {
                    let mut args = call.arguments.clone();
                    args["b"] = json!(3);
                    Verdict::Rewrite(args)
                }
                "get_weather" => Verdict::Rewrite(json!({"no such argument": true})),
                _ => Verdict::Allow,
            }
        })
    }

    fn after(&self, call: &ModelCall, dispatch: &mut Dispatch) {
        if call.tool.tool == "echo" {
            dispatch.text = dispatch.text.replace("secret", "[redacted]");
        }
    }
}

#[tokio::test]
async fn hooks_rewrite_arguments_and_redact_what_the_model_reads() {
    limited(async {
        let tb = connect(builder().hook(Rewrite)).await;
        let d = tb.call("mcp_demo_add", r#"{"a": 2, "b": 40}"#).await;
        assert!(d.is_ok(), "{}", d.text);
        assert!(d.text.contains('5'), "2 + 3, rewritten: {}", d.text);

        // A rewrite is checked against the schema again.
        let d = tb
            .call("mcp_demo_get_weather", r#"{"city": "Lisbon"}"#)
            .await;
        fails(&d, ErrorKind::InvalidArguments, "rewrote the arguments");

        let d = tb
            .call("mcp_demo_echo", r#"{"message": "a secret word"}"#)
            .await;
        assert!(d.is_ok(), "{}", d.text);
        assert!(d.text.contains("a [redacted] word"), "{}", d.text);
        // Code still has the whole result.
        let output = d.output().expect("output");
        assert!(output.text().contains("a secret word"), "{output:?}");
    })
    .await;
}

#[tokio::test]
async fn a_tool_or_server_switched_off_leaves_the_exports_and_is_refused_with_words() {
    limited(async {
        let tb = connect(builder()).await;
        let before = names(&tb, Format::Anthropic);
        assert!(before.contains(&"mcp_demo_add".to_string()), "{before:?}");
        assert!(
            before.iter().any(|n| n.starts_with("mcp_filesystem_")),
            "{before:?}"
        );

        tb.switch_off("demo.add").expect("switch off a tool");
        for format in [Format::Anthropic, Format::OpenAi, Format::OpenAiResponses] {
            let now = names(&tb, format);
            assert!(
                !now.contains(&"mcp_demo_add".to_string()),
                "{format}: {now:?}"
            );
            assert!(
                now.contains(&"mcp_demo_echo".to_string()),
                "{format}: {now:?}"
            );
        }
        let d = tb.call("mcp_demo_add", r#"{"a": 2, "b": 40}"#).await;
        assert_eq!(d.error_kind(), Some(ErrorKind::Refused), "{}", d.text);
        assert!(
            d.text
                .contains("switched it off: mcp_demo_add cannot be called now"),
            "{}",
            d.text
        );

        // A whole server: its tools, its native entry.
        tb.switch_off("filesystem").expect("switch off a server");
        let now = names(&tb, Format::OpenAi);
        assert!(
            !now.iter().any(|n| n.starts_with("mcp_filesystem_")),
            "{now:?}"
        );
        assert!(
            tb.native_servers().iter().all(|s| s.alias != "filesystem"),
            "the native servers still list filesystem"
        );
        let d = tb
            .call("mcp_filesystem_list_allowed_directories", "{}")
            .await;
        fails(&d, ErrorKind::Refused, "the server \"filesystem\" off");
        assert_eq!(tb.switched_off(), ["filesystem", "demo.add"]);

        // Back on, as before.
        tb.switch_on("filesystem").expect("on");
        tb.switch_on("mcp_demo_add").expect("on, by exported name");
        assert_eq!(names(&tb, Format::Anthropic), before);
        let d = tb.call("mcp_demo_add", r#"{"a": 2, "b": 40}"#).await;
        assert!(d.is_ok(), "{}", d.text);

        let e = tb.switch_off("demo.no_such_tool").expect_err("unknown");
        assert_eq!(e.kind(), ErrorKind::UnknownTool);
    })
    .await;
}

#[tokio::test]
async fn statistics_of_a_scripted_run() {
    limited(async {
        let tb = connect(builder()).await;
        // What a model asked for, in order.
        let script: [(&str, Value); 5] = [
            ("mcp_demo_add", json!({"a": 1, "b": 2})),
            ("mcp_demo_add", json!({"a": 3, "b": 4})),
            ("mcp_demo_add", json!({"a": "three"})),
            ("mcp_demo_fail", json!({"message": "asked to"})),
            ("mcp_filesystem_list_allowed_directories", json!({})),
        ];
        let mut texts = 0;
        for (name, args) in &script {
            texts += tb.call(name, &args.to_string()).await.text.len() as u64;
        }
        let stats = tb.stats();
        let get = |tool: &str| {
            stats
                .iter()
                .find(|s| s.tool == tool)
                .unwrap_or_else(|| panic!("{tool} in {stats:?}"))
                .clone()
        };
        let add = get("add");
        assert_eq!((add.calls, add.errors, add.refusals), (3, 1, 0), "{add:?}");
        assert!(add.max_time > std::time::Duration::ZERO, "{add:?}");
        assert!(add.mean_time() <= add.max_time, "{add:?}");
        let fail = get("fail");
        assert_eq!((fail.calls, fail.errors), (1, 1), "{fail:?}");
        let demo = ToolStats::sum("demo", stats.iter().filter(|s| s.server == "demo"));
        assert_eq!((demo.calls, demo.errors), (4, 2), "{demo:?}");
        let all = ToolStats::sum("", &stats);
        assert_eq!(all.calls, 5);
        assert_eq!(all.result_bytes, texts, "the bytes the model got back");
    })
    .await;
}

type Asked = (Option<String>, String);

/// An agent's `approval` in the registry wins over the policy's rules in code, for that
/// agent's calls only.
#[tokio::test]
async fn an_agents_approval_rules_in_the_registry_win_for_its_calls() {
    limited(async {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("servers.toml");
        std::fs::write(
            &path,
            format!(
                r#"[servers.demo]
command = {demo:?}
function_call_wrapper = true

[agents.careful]
model = "openai/gpt-x"
servers = ["demo"]
approval = {{ ask = ["demo.echo"], allow = ["demo.create_issue"], refuse = ["demo.add"] }}
"#,
                demo = common::demo_server().display().to_string()
            ),
        )
        .expect("write registry");
        let registry = mcp_bindgen::Registry::load(&path).expect("registry");
        // (agent, tool) of each call the approver was asked about.
        let asked: Arc<Mutex<Vec<Asked>>> = Arc::default();
        let seen = asked.clone();
        let policy = ApprovalPolicy::new(move |call| {
            seen.lock()
                .expect("lock")
                .push((call.agent.clone(), call.qualified_name()));
            Box::pin(async { Err("no".to_string()) })
        })
        .tool("demo.create_issue", ApprovalRule::Ask)
        .tool("demo.add", ApprovalRule::Allow);
        let tb = Toolbox::builder(&registry)
            .hook(policy)
            .connect()
            .await
            .expect("connect");
        let careful = tb
            .agent(
                &registry.agent("careful").expect("agent"),
                registry.model_policy(),
            )
            .expect("agent");
        let issue = json!({"repository": {"owner": "o", "name": "n"}, "title": "t"}).to_string();

        // The toolbox's own calls: the code's rules.
        assert!(tb.call("mcp_demo_add", r#"{"a": 1, "b": 2}"#).await.is_ok());
        assert!(
            tb.call("mcp_demo_echo", r#"{"message": "m"}"#)
                .await
                .is_ok()
        );
        let d = tb.call("mcp_demo_create_issue", &issue).await;
        assert_eq!(d.error_kind(), Some(ErrorKind::Refused), "{}", d.text);

        // The agent's: the registry's.
        let d = careful.call("mcp_demo_add", r#"{"a": 1, "b": 2}"#).await;
        fails(&d, ErrorKind::Refused, "demo.add is not allowed here");
        let d = careful.call("mcp_demo_echo", r#"{"message": "m"}"#).await;
        assert_eq!(d.error_kind(), Some(ErrorKind::Refused), "{}", d.text);
        assert!(careful.call("mcp_demo_create_issue", &issue).await.is_ok());

        assert_eq!(
            *asked.lock().expect("lock"),
            [
                (None, "demo.create_issue".to_string()),
                (Some("careful".to_string()), "demo.echo".to_string()),
            ]
        );
        tb.close().await;
    })
    .await;
}
