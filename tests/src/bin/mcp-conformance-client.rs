//! `mcp-conformance-client`: the client side of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance client --command …`), built on `mcp-bindgen`.
//!
//! ```text
//! mcp-conformance-client [--scenario NAME] URL
//! ```
//!
//! The runner appends the mock server's URL as the last argument and names the scenario in
//! `MCP_CONFORMANCE_SCENARIO`; `--scenario` overrides it. Exits 0 when the client did its
//! part (the suite judges the rest), 1 with a message on stderr otherwise.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use mcp_bindgen::auth::HeadlessAuthorizer;
use mcp_bindgen::{AuthConfig, ClientCredentialsSettings, OAuthSettings};
use mcp_bindgen::{CallOptions, ConnectOptions, Protocol, ServerConfig, Session};
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
    // The suite names the revision whose wire this run tests.
    let protocol = match std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION") {
        Ok(v) => v.parse::<Protocol>()?,
        Err(_) => Protocol::Auto,
    };
    let mut config = ServerConfig::http("conformance", false, url)
        .with_timeout(Duration::from_secs(20))
        .with_connect_timeout(Duration::from_secs(20))
        .with_protocol(protocol);
    let mut options = ConnectOptions::new();
    if scenario.starts_with("elicitation") {
        options = options.accept_elicitation_defaults();
    }
    // The auth scenarios: the registry setting a user would write, a token store of this
    // run's own, and an authorizer standing in for the user's browser.
    let tokens =
        std::env::temp_dir().join(format!("mcp-conformance-tokens-{}", std::process::id()));
    if scenario.starts_with("auth/") {
        config = config.with_auth(auth_config(scenario, &tokens)?);
        // The suite's authorization server redirects at once, as no user is there.
        options = options.with_authorizer(Arc::new(HeadlessAuthorizer::new(
            "http://localhost:3000/callback",
        )));
    }
    let result = async {
        let session = options.connect(&config).await.map_err(|e| e.to_string())?;
        let result = scenario_steps(&session, scenario).await;
        let _ = session.close().await;
        result
    }
    .await;
    let _ = std::fs::remove_dir_all(&tokens);
    result
}

/// The `auth` setting for this run, from the credentials the suite passes in
/// `MCP_CONFORMANCE_CONTEXT` (pre-registered client, client credentials), else a public
/// client with a Client ID Metadata Document URL (used where the server supports those,
/// dynamic registration otherwise).
fn auth_config(scenario: &str, tokens: &std::path::Path) -> Result<AuthConfig, String> {
    let context = context();
    let text = |key: &str| context[key].as_str().map(str::to_string);
    if let Some(pem) = text("private_key_pem") {
        let id = text("client_id").ok_or("the context has a private key but no client_id")?;
        let alg = text("signing_algorithm").unwrap_or_else(|| "RS256".into());
        return Ok(AuthConfig::ClientCredentials(
            ClientCredentialsSettings::private_key(id, pem, alg),
        ));
    }
    if scenario == "auth/client-credentials-basic" {
        let id = text("client_id").ok_or("the context names no client_id")?;
        let secret = text("client_secret").ok_or("the context names no client_secret")?;
        return Ok(AuthConfig::ClientCredentials(
            ClientCredentialsSettings::secret(id, secret),
        ));
    }
    let mut settings = OAuthSettings::default()
        .with_client_metadata_url("https://conformance-test.local/client-metadata.json")
        .with_token_store(tokens);
    if let (Some(id), secret) = (text("client_id"), text("client_secret")) {
        settings = settings.with_client(id, secret);
    }
    Ok(AuthConfig::OAuth(settings))
}

/// What the suite passes in `MCP_CONFORMANCE_CONTEXT` (credentials, tool calls), or null.
fn context() -> Value {
    std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null)
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
        // Call every tool without arguments; the server judges the requests (their `_meta`,
        // the `input_required` rounds), not the answers.
        "request-metadata" | "sep-2322-client-request-state" => {
            let tools = session.list_tools().await.map_err(|e| e.to_string())?;
            for tool in &tools {
                let name = tool["name"].as_str().unwrap_or_default();
                match session.call(name, &json!({})).await {
                    Ok(out) => println!("{name}: {}", out.text()),
                    Err(e) => println!("{name}: {e}"),
                }
            }
            Ok(())
        }
        // `tools_call`, `http-*`: the calls the suite names in MCP_CONFORMANCE_CONTEXT, else
        // every tool the session kept (a tool with invalid `x-mcp-header`s is not listed)
        // with arguments built from its schema.
        _ => {
            let tools = session.list_tools().await.map_err(|e| e.to_string())?;
            let context = context();
            let calls: Vec<(String, Value)> = match context["toolCalls"].as_array() {
                Some(calls) => calls
                    .iter()
                    .map(|c| {
                        (
                            c["name"].as_str().unwrap_or_default().to_string(),
                            c.get("arguments").cloned().unwrap_or(json!({})),
                        )
                    })
                    .collect(),
                None => tools
                    .iter()
                    .map(|t| {
                        (
                            t["name"].as_str().unwrap_or_default().to_string(),
                            arguments_for(&t["inputSchema"]),
                        )
                    })
                    .collect(),
            };
            for (name, args) in calls {
                let text = call(session, &name, args).await?;
                println!("{name}: {text}");
            }
            Ok(())
        }
    }
}

/// Placeholder values for the required properties of an argument schema.
fn arguments_for(schema: &Value) -> Value {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut args = serde_json::Map::new();
    for (name, prop) in schema["properties"].as_object().into_iter().flatten() {
        if !required.contains(&name.as_str()) {
            continue;
        }
        let value = match prop["type"].as_str() {
            Some("number") => json!(1.0),
            Some("integer") => json!(1),
            Some("string") => json!("test"),
            Some("boolean") => json!(true),
            _ => Value::Null,
        };
        args.insert(name.clone(), value);
    }
    Value::Object(args)
}
