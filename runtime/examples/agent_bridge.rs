//! Agent bridge: several real MCP servers and a local tool behind one toolbox, exported as
//! OpenAI, Anthropic and Gemini tool definitions for models without MCP support, dispatched
//! from model-style tool calls (results with images as each provider takes them), and handed
//! over natively (tool definitions + session) to a model with MCP support.
//!
//! Uses the default registry `fixtures/servers.toml` (servers `demo`, `everything`, `time`),
//! whose paths default to where these commands put the servers:
//!
//! ```sh
//! cargo xtask install-servers everything time
//! cargo build --bin mcp-demo-server
//! cargo run -p mcp-bindgen --example agent_bridge
//! ```
//!
//! (`MCP_SERVERS_DIR` and `MCP_DEMO_SERVER` override `target/mcp-servers` and
//! `target/debug/mcp-demo-server`.)

use std::path::Path;

use mcp_bindgen::Registry;
use mcp_bindgen::toolbox::provider::Format;
use mcp_bindgen::toolbox::{AgentConfig, AgentTools, ModelPolicy, ModelRef, Toolbox};

/// The local tool's arguments: models see this type's JSON Schema.
#[derive(serde::Deserialize, mcp_bindgen::schemars::JsonSchema)]
#[schemars(crate = "mcp_bindgen::schemars")]
struct Shout {
    /// What to shout.
    text: String,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), mcp_bindgen::Report> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let registry = Registry::load(workspace.join("fixtures/servers.toml"))?;
    let toolbox = Toolbox::builder(&registry)
        .only(["demo", "everything", "time"])
        // `demo` and `time` may be offered to models without MCP as function calls.
        .function_call_wrapper("demo", true)
        .function_call_wrapper("time", true)
        .max_output_bytes(400)
        // A function of this program, exported and dispatched like the servers' tools.
        .add_local("shout", "Upper-cases a text.", |a: Shout| async move {
            Ok::<_, String>(a.text.to_uppercase())
        })
        .connect()
        .await?;

    println!("== servers");
    for s in toolbox.statuses() {
        println!(
            "  {:<11} {:?} {:>2} tools over {}{}",
            s.alias,
            s.state,
            s.tools,
            s.transport,
            s.last_error.map(|e| format!(" — {e}")).unwrap_or_default()
        );
    }

    println!("\n== exported tools (OpenAI function calls)");
    let export = toolbox.openai_export(true);
    for t in toolbox.tools() {
        let strict = if t.strict_function.is_ok() {
            "strict"
        } else {
            "non-strict"
        };
        println!("  {:<44} ← {}.{} ({strict})", t.exported, t.server, t.tool);
    }
    println!(
        "  {} definitions, {} without a strict form",
        export.tools.len(),
        export.fallbacks.len()
    );
    if let Some(f) = export.fallbacks.first() {
        println!("  e.g. {}: {}", f.exported, f.reason);
    }

    println!("\n== the same tools in each provider's format");
    for format in Format::ALL {
        let export = toolbox.export(format);
        println!(
            "  {:<14} {} definitions, {} in a weaker form{}",
            format.as_str(),
            export.tools.len(),
            export.fallbacks.len(),
            export
                .fallbacks
                .first()
                .map(|f| format!(" (e.g. {}: {})", f.exported, f.reason))
                .unwrap_or_default()
        );
    }

    println!("\n== model-style tool calls (name, arguments JSON) → text for the model");
    let calls = [
        ("mcp_demo_add", r#"{"a": 2, "b": 40}"#),
        (
            "mcp_time_get_current_time",
            r#"{"timezone": "Europe/Lisbon"}"#,
        ),
        (
            "mcp_everything_echo",
            r#"{"message": "hello from the toolbox"}"#,
        ),
        ("mcp_everything_get-sum", r#"{"a": 1, "b": 2}"#),
        (
            "time.convert_time",
            r#"{"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}"#,
        ),
        ("mcp_demo_echo", r#"{"message": 42}"#),
        ("mcp_demo_fail", r#"{"message": "the model asked for it"}"#),
        ("mcp_demo_ecoh", r#"{}"#),
        ("echo", r#"{"message": "x"}"#),
        ("shout", r#"{"text": "local tools too"}"#),
    ];
    for (name, args) in calls {
        let d = toolbox.call(name, args).await;
        let text = d.text.replace('\n', "\n      ");
        println!("  {name}({args})\n    → {text}");
    }

    let image = toolbox.call("mcp_everything_get-tiny-image", "{}").await;
    let block = image.anthropic_tool_result("toolu_1");
    let kinds: Vec<&str> = block["content"]
        .as_array()
        .map(|c| c.iter().filter_map(|b| b["type"].as_str()).collect())
        .unwrap_or_default();
    println!("  an image result as Anthropic's tool_result holds blocks {kinds:?}");

    println!("\n== agents (model/server rules)");
    let policy = ModelPolicy::new()
        .provider("anthropic", true)
        .model("openai", "gpt-4o-mcp", true);
    let gpt = ModelRef::new("openai", "gpt-4o");
    match toolbox.agent(
        &AgentConfig::new("researcher", gpt.clone(), ["everything"]),
        &policy,
    ) {
        Ok(_) => println!("  researcher: accepted (unexpected)"),
        Err(e) => println!("  researcher (gpt-4o + everything) refused:\n    {e}"),
    }
    let assistant = toolbox.agent(
        &AgentConfig::new("assistant", gpt, ["demo", "time"]).with_tools([
            "demo.add",
            "demo.echo",
            "time.get_current_time",
        ]),
        &policy,
    )?;
    match assistant.model_tools(true) {
        AgentTools::FunctionCalls(export) => {
            println!(
                "  assistant (gpt-4o) gets {} function definitions:",
                export.tools.len()
            );
            for t in &export.tools {
                println!("    {}", t["function"]["name"]);
            }
        }
        AgentTools::Native(_) => println!("  assistant: native (unexpected)"),
    }
    let d = assistant
        .call("mcp_demo_fail", r#"{"message": "outside"}"#)
        .await;
    println!("  assistant calls mcp_demo_fail → {}", d.text);

    let native = toolbox.agent(
        &AgentConfig::new(
            "coder",
            ModelRef::new("anthropic", "claude"),
            ["everything", "demo"],
        ),
        &policy,
    )?;
    for w in native.warnings() {
        println!("  warning: {w}");
    }
    if let AgentTools::Native(servers) = native.model_tools(false) {
        println!("  coder (claude) gets native MCP servers:");
        for s in &servers {
            let names: Vec<&str> = s
                .tools
                .iter()
                .filter_map(|t| t["name"].as_str())
                .take(4)
                .collect();
            println!(
                "    {} — {} tools ({}, …), session over {}",
                s.alias,
                s.tools.len(),
                names.join(", "),
                s.session.transport()
            );
        }
        if let Some(s) = servers.iter().find(|s| s.alias == "everything") {
            let out = s
                .session
                .call("echo", &serde_json::json!({"message": "direct passage"}))
                .await?;
            println!("    everything.echo via the session → {}", out.text());
            let prompts = native.list_prompts("everything").await?;
            let templates = native.list_resource_templates("everything").await?;
            println!(
                "    everything offers {} prompts and {} resource templates",
                prompts.len(),
                templates.len()
            );
        }
    }
    Ok(())
}
