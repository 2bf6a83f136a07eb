//! rig's own agent loop (rig-agent's `AgentBuilder`, driven by rig's scripted completion
//! model) with a toolbox's tools: the embedded demo server and the npm memory server,
//! reviewed through their committed fixtures. The model's tool calls reach both servers
//! through the toolbox; an approval hook sees the reviewed annotations and approves or
//! refuses the destructive call; a server switched off leaves the model's next request.

use crate::common;

use std::sync::{Arc, Mutex};

use common::limited;

use mcp_bindgen::ErrorKind;
use mcp_bindgen::toolbox::provider::Format;
use mcp_bindgen::toolbox::{ApprovalPolicy, ModelCall, Toolbox};
use rig_agent::AgentBuilder;
use rig_agent::completion::CompletionRequest;
use rig_agent::test_utils::{MockCompletionModel, MockTurn};
use serde_json::json;

mcp_bindgen::mcp_tools!("demo");

/// The demo server (typed by its generated module) and the memory server with its graph in
/// `dir`; every call of a destructive tool goes to `approve`.
async fn toolbox(
    dir: &std::path::Path,
    asked: Arc<Mutex<Vec<ModelCall>>>,
    approve: bool,
) -> Toolbox {
    let memory = common::installed("memory").with_env(
        "MEMORY_FILE_PATH",
        dir.join("graph.jsonl").display().to_string(),
    );
    let policy = ApprovalPolicy::new(move |call| {
        asked.lock().expect("lock").push(call.clone());
        Box::pin(async move {
            if approve {
                Ok(())
            } else {
                Err("the operator keeps the graph".into())
            }
        })
    });
    Toolbox::from_servers(vec![common::demo_config("demo"), memory])
        .env(common::lookup)
        .fixtures_dir(common::root().join("fixtures"))
        .add_typed("demo", demo::TYPED_TOOLS)
        .hook(policy)
        .connect()
        .await
        .expect("connect")
}

/// Everything the model was sent in one request, as text.
fn history(request: &CompletionRequest) -> String {
    serde_json::to_string(&request.chat_history).expect("history serializes")
}

#[tokio::test]
async fn a_rig_agent_calls_two_servers_through_the_toolbox_and_the_hook_approves_the_destructive_call()
 {
    limited(async {
        let dir = tempfile::tempdir().expect("tempdir");
        let asked: Arc<Mutex<Vec<ModelCall>>> = Arc::default();
        let tb = toolbox(dir.path(), asked.clone(), true).await;
        let tools = tb.rig_tools().expect("rig tools");

        // rig is offered exactly what the toolbox exports: the reviewed definitions.
        let exported = tb.export(Format::OpenAi).tools;
        assert_eq!(tools.len(), exported.len());
        for (tool, definition) in tools.iter().zip(&exported) {
            let d = tool.definition();
            assert_eq!(d.name.to_string(), definition["function"]["name"]);
            assert_eq!(d.description, definition["function"]["description"]);
            assert_eq!(d.parameters, definition["function"]["parameters"]);
        }

        let model = MockCompletionModel::from_turns([
            MockTurn::tool_call("c1", "mcp_demo_add", json!({"a": 2, "b": 3})),
            MockTurn::tool_call(
                "c2",
                "mcp_memory_create_entities",
                json!({"entities": [{"name": "Grace", "entityType": "person",
                    "observations": ["wrote the first compiler"]}]}),
            ),
            MockTurn::tool_call(
                "c3",
                "mcp_memory_delete_entities",
                json!({"entityNames": ["Grace"]}),
            ),
            MockTurn::text("Added 2 and 3, remembered Grace, then forgot her."),
        ]);
        let recorded = model.clone();
        let agent = AgentBuilder::new(model).dynamic_tools(tools).build();
        let answer = agent
            .prompt("Add 2 and 3, remember Grace, then forget her.")
            .max_turns(6)
            .await
            .expect("the run ends with the model's answer");
        assert_eq!(
            answer.output(),
            "Added 2 and 3, remembered Grace, then forgot her."
        );

        // Every request offered the same reviewed tools; each tool result reached the model.
        let requests = recorded.requests();
        assert_eq!(requests.len(), 4, "one request per turn");
        let offered: Vec<String> = requests[0]
            .tools
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        assert!(offered.contains(&"mcp_demo_add".to_string()), "{offered:?}");
        assert!(
            offered.contains(&"mcp_memory_delete_entities".to_string()),
            "{offered:?}"
        );
        assert!(
            history(&requests[1]).contains('5'),
            "{}",
            history(&requests[1])
        );
        assert!(
            history(&requests[2]).contains("wrote the first compiler"),
            "the memory server's answer: {}",
            history(&requests[2])
        );
        assert!(
            history(&requests[3]).contains("deleted successfully"),
            "{}",
            history(&requests[3])
        );

        // The approver was asked once: for delete_entities, destructive in its review.
        let asked = asked.lock().expect("lock").clone();
        assert_eq!(asked.len(), 1, "{asked:?}");
        assert_eq!(asked[0].qualified_name(), "memory.delete_entities");
        assert!(asked[0].destructive(), "{:?}", asked[0]);
        assert_eq!(asked[0].arguments, json!({"entityNames": ["Grace"]}));

        // The servers saw the calls: the graph is empty again; the statistics count them.
        let graph = tb.call("mcp_memory_read_graph", "{}").await;
        assert!(graph.is_ok(), "{}", graph.text);
        assert!(!graph.text.contains("Grace"), "{}", graph.text);
        let stats = tb.stats();
        for (server, tool) in [
            ("demo", "add"),
            ("memory", "create_entities"),
            ("memory", "delete_entities"),
        ] {
            let s = stats
                .iter()
                .find(|s| s.server == server && s.tool == tool)
                .unwrap_or_else(|| panic!("{server}.{tool} in {stats:?}"));
            assert_eq!((s.calls, s.errors, s.refusals), (1, 0, 0), "{s:?}");
        }
    })
    .await;
}

#[tokio::test]
async fn a_refusal_reaches_the_rig_model_in_words_and_a_switched_off_server_leaves_its_list() {
    limited(async {
        let dir = tempfile::tempdir().expect("tempdir");
        let asked: Arc<Mutex<Vec<ModelCall>>> = Arc::default();
        let tb = toolbox(dir.path(), asked.clone(), false).await;

        // The approver says no: rig's model reads the refusal and why, and the run goes on.
        let model = MockCompletionModel::from_turns([
            MockTurn::tool_call(
                "c1",
                "mcp_memory_delete_entities",
                json!({"entityNames": ["Grace"]}),
            ),
            MockTurn::text("I may not delete."),
        ]);
        let recorded = model.clone();
        let agent = AgentBuilder::new(model)
            .dynamic_tools(tb.rig_tools().expect("rig tools"))
            .build();
        let answer = agent
            .prompt("Forget Grace.")
            .max_turns(3)
            .await
            .expect("run");
        assert_eq!(answer.output(), "I may not delete.");
        let requests = recorded.requests();
        assert_eq!(requests.len(), 2);
        let seen = history(&requests[1]);
        assert!(
            seen.contains("the application refused the call to mcp_memory_delete_entities")
                && seen.contains("the operator keeps the graph"),
            "{seen}"
        );
        assert_eq!(asked.lock().expect("lock").len(), 1);
        let delete = tb
            .stats()
            .into_iter()
            .find(|s| s.tool == "delete_entities")
            .expect("counted");
        assert_eq!((delete.calls, delete.refusals), (1, 1), "{delete:?}");

        // One server's tools only; then that server switched off at run time: its tools are
        // no longer live, so rig's next request leaves them out, and a call is refused.
        let memory_tools = tb.rig_server_tools("memory").expect("memory's tools");
        assert_eq!(memory_tools.len(), 9);
        assert!(memory_tools.iter().all(|t| t.is_live()));
        let err = tb.rig_server_tools("nope").expect_err("no such server");
        assert_eq!(err.kind(), ErrorKind::Config);
        assert!(err.to_string().contains("demo, memory"), "{err}");

        let model =
            MockCompletionModel::from_turns([MockTurn::text("first"), MockTurn::text("second")]);
        let recorded = model.clone();
        let agent = AgentBuilder::new(model)
            .dynamic_tools(tb.rig_tools().expect("rig tools"))
            .build();
        agent.prompt("one").await.expect("first run");
        tb.switch_off("memory").expect("switch off");
        assert!(memory_tools.iter().all(|t| !t.is_live()));
        agent.prompt("two").await.expect("second run");
        let names = |r: &CompletionRequest| -> Vec<String> {
            r.tools.iter().map(|t| t.name.to_string()).collect()
        };
        let requests = recorded.requests();
        let (before, after) = (names(&requests[0]), names(&requests[1]));
        assert!(
            before.iter().any(|n| n.starts_with("mcp_memory_")),
            "{before:?}"
        );
        assert!(
            !after.iter().any(|n| n.starts_with("mcp_memory_")),
            "{after:?}"
        );
        assert!(after.contains(&"mcp_demo_add".to_string()), "{after:?}");

        let output = memory_tools[0]
            .execute(json!({}))
            .await
            .expect_err("a switched-off tool is refused");
        assert!(
            output
                .message()
                .contains("switched the server \"memory\" off"),
            "{}",
            output.message()
        );
    })
    .await;
}
