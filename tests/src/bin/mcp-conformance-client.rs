//! `mcp-conformance-client`: the client side of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance client --command …`), built on `mcp-runtime`.
//!
//! ```text
//! mcp-conformance-client [--scenario NAME] URL
//! ```
//!
//! The runner appends the mock server's URL as the last argument and names the scenario in
//! `MCP_CONFORMANCE_SCENARIO`; `--scenario` overrides it. Exits 0 when the client did its
//! part (the suite judges the rest), 1 with a message on stderr otherwise.

use std::process::ExitCode;
use std::time::Duration;

use mcp_runtime::{CallOptions, ConnectOptions, ServerConfig, Session};
use serde_json::{Value, json};

fn main() -> ExitCode {
    client_main(std::env::args().skip(1).collect())
}

/// Runs one scenario: `args` are the command-line arguments (the URL last).
pub fn client_main(mut args: Vec<String>) -> ExitCode {
    let mut scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    if let Some(i) = args.iter().position(|a| a == "--scenario") {
        if i + 1 < args.len() {
            scenario = args.remove(i + 1);
        }
        args.remove(i);
    }
    let Some(url) = args.last().cloned() else {
        eprintln!("usage: mcp-conformance-client [--scenario NAME] URL");
        return ExitCode::from(2);
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mcp-conformance-client: cannot start tokio: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(&scenario, &url)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-conformance-client: scenario {scenario:?}: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(scenario: &str, url: &str) -> Result<(), String> {
    let config = ServerConfig::http("conformance", false, url)
        .with_timeout(Duration::from_secs(20))
        .with_connect_timeout(Duration::from_secs(20));
    let mut options = ConnectOptions::new();
    if scenario.starts_with("elicitation") {
        options = options.accept_elicitation_defaults();
    }
    let session = options.connect(&config).await.map_err(|e| e.to_string())?;
    let result = scenario_steps(&session, scenario).await;
    let _ = session.close().await;
    result
}

async fn call(session: &Session, tool: &str, args: Value) -> Result<String, String> {
    let out = session
        .call_with(tool, &args, CallOptions::new())
        .await
        .map_err(|e| e.to_string())?;
    if out.is_error {
        return Err(format!("tool {tool} reported an error: {}", out.text()));
    }
    Ok(out.text())
}

async fn scenario_steps(session: &Session, scenario: &str) -> Result<(), String> {
    match scenario {
        "initialize" => Ok(()),
        "tools_call" => {
            session.list_tools().await.map_err(|e| e.to_string())?;
            let text = call(session, "add_numbers", json!({"a": 5, "b": 3})).await?;
            println!("{text}");
            Ok(())
        }
        "sse-retry" => {
            session.list_tools().await.map_err(|e| e.to_string())?;
            let text = call(session, "test_reconnection", json!({})).await?;
            println!("{text}");
            Ok(())
        }
        "elicitation-sep1034-client-defaults" => {
            session.list_tools().await.map_err(|e| e.to_string())?;
            let text = call(session, "test_client_elicitation_defaults", json!({})).await?;
            println!("{text}");
            Ok(())
        }
        "json-schema-2020-12-preservation" => {
            let tools = session.list_tools().await.map_err(|e| e.to_string())?;
            let schema = tools
                .iter()
                .find(|t| t["name"] == "json_schema_2020_12_tool")
                .map(|t| t["inputSchema"].clone())
                .ok_or("the server lists no json_schema_2020_12_tool")?;
            call(session, "json_schema_echo", json!({"schema": schema})).await?;
            Ok(())
        }
        // List the tools (whose schemas hold a network `$ref`) and fetch nothing.
        "json-schema-ref-no-deref" => {
            session.list_tools().await.map_err(|e| e.to_string())?;
            Ok(())
        }
        _ => {
            session.list_tools().await.map_err(|e| e.to_string())?;
            Ok(())
        }
    }
}
