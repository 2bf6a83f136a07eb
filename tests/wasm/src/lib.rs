//! A typed client of the demo MCP server built for `wasm32-unknown-unknown`: the same
//! `mcp_tools!` output as on native targets, calling the server through the host's `fetch`.
//! `cargo xtask test` runs its tests under Node against the demo server over HTTP;
//! `cargo xtask bench` measures the size of its `.wasm`. On native targets it is empty.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::prelude::*;

mcp_bindgen::mcp_tools!("demo");

/// Adds `a` and `b` with the demo server at `url` (Streamable HTTP, either protocol
/// revision), sending `token` as a bearer token: what a page or an edge worker calls.
#[wasm_bindgen]
pub async fn add(url: String, token: String, a: f64, b: f64) -> Result<String, JsError> {
    let config = mcp_bindgen::ServerConfig::http("demo", false, url)
        .with_env("Authorization", "Bearer ${DEMO_TOKEN}");
    let session = mcp_bindgen::ConnectOptions::new()
        .with_env_lookup(move |name| (name == "DEMO_TOKEN").then(|| token.clone()))
        .connect(&config)
        .await
        .map_err(|e| JsError::new(&e.to_string()))?;
    let client = demo::Client::new(session);
    let sum = client
        .add(demo::add::Args { a, b })
        .await
        .map_err(|e| JsError::new(&e.to_string()))?;
    Ok(sum.text())
}
