//! A rig agent with MCP tools from two servers: the embedded demo server (typed by its
//! generated module) and the npm memory server, both offered to the model as their committed
//! fixtures reviewed them. The model is rig's scripted completion model, so the loop runs
//! offline and the same every time; a real one (`rig_agent::AgentBuilder::new(openai_model)`)
//! takes its place unchanged. An approval policy asks before a destructive tool runs.
//!
//! ```sh
//! cargo xtask install-servers memory && cargo build --bin mcp-demo-server
//! cargo run -p mcp-bindgen --features rig --example rig_agent
//! ```

use std::path::Path;

use mcp_bindgen::Registry;
use mcp_bindgen::toolbox::{ApprovalPolicy, Toolbox};
use rig_agent::AgentBuilder;
use rig_agent::test_utils::{MockCompletionModel, MockTurn};
use serde_json::json;

mcp_bindgen::mcp_tools!("demo");

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), mcp_bindgen::Report> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let registry = Registry::load(root.join("fixtures/servers.toml"))?;
    // The memory server keeps its graph in a scratch file of this run.
    let graph = tempfile::tempdir()?;
    let memory = registry.get("memory")?.clone().with_env(
        "MEMORY_FILE_PATH",
        graph.path().join("graph.jsonl").display().to_string(),
    );

    // Destructive tools (by their reviewed annotations) ask first; this one says yes.
    let approval = ApprovalPolicy::new(|call| {
        println!("approve {} {}? yes", call.qualified_name(), call.arguments);
        Box::pin(async { Ok(()) })
    });
    let toolbox = Toolbox::from_servers(vec![registry.get("demo")?.clone(), memory])
        .fixtures_dir(root.join("fixtures"))
        .add_typed("demo", demo::TYPED_TOOLS)
        .hook(approval)
        .connect()
        .await?;

    // What the model would do: add, remember, forget, then answer.
    let model = MockCompletionModel::from_turns([
        MockTurn::tool_call("call_1", "mcp_demo_add", json!({"a": 19, "b": 23})),
        MockTurn::tool_call(
            "call_2",
            "mcp_memory_create_entities",
            json!({"entities": [{"name": "Ada", "entityType": "person",
                "observations": ["wrote the first program"]}]}),
        ),
        MockTurn::tool_call(
            "call_3",
            "mcp_memory_delete_entities",
            json!({"entityNames": ["Ada"]}),
        ),
        MockTurn::text("19 + 23 = 42; I remembered Ada and then forgot her."),
    ]);
    let transcript = model.clone();
    let agent = AgentBuilder::new(model)
        .preamble("You have a calculator and a memory.")
        .dynamic_tools(toolbox.rig_tools()?)
        .build();
    let answer = agent
        .prompt("What is 19 + 23? Remember Ada, then forget her.")
        .max_turns(6)
        .await?;

    // What the model read after each of its calls (the last message of each request).
    for request in transcript.requests().iter().skip(1) {
        if let Some(last) = request.chat_history.last() {
            println!("model read: {}", serde_json::to_string(last)?);
        }
    }
    println!("answer: {}", answer.output());
    let stats = toolbox.stats();
    for s in &stats {
        println!(
            "{}.{}: {} call(s), {} error(s), {} refusal(s)",
            s.server, s.tool, s.calls, s.errors, s.refusals
        );
    }
    // Every call the model made reached its server and succeeded.
    let (calls, failed) = stats
        .iter()
        .fold((0, 0), |(c, f), s| (c + s.calls, f + s.errors + s.refusals));
    if (calls, failed) != (3, 0) {
        return Err(std::io::Error::other(format!(
            "expected 3 successful calls, got {calls} with {failed} failed"
        ))
        .into());
    }
    Ok(())
}
