#![deny(warnings)]
include!("../../../mcp-codegen/tests/goldens/outputs.rs");
#[path = "support/roundtrip.rs"]
mod roundtrip;

use outputs::{get_weather, status};
use serde_json::json;

fn main() {
    roundtrip::check(
        get_weather::TOOL.name,
        get_weather::TOOL.input_schema,
        &get_weather::Args {
            city: "Oslo".into(),
        },
    );
    // Lenient decoding: unknown fields (also where the schema says additionalProperties: false).
    let out: get_weather::Output = serde_json::from_value(json!({
        "temperature": 3.5, "conditions": "cloudy", "observed": "2024-01-01T00:00:00Z",
        "station": {"id": "x", "unknown": 1}, "also_unknown": true
    }))
    .expect("lenient output");
    assert_eq!(out.temperature, 3.5);
    assert_eq!(
        out.conditions,
        Some(get_weather::output::OutputConditions::Cloudy)
    );
    let s: status::Output = serde_json::from_value(json!({"ok": true})).expect("status");
    assert!(s.ok);
    assert!(outputs::remote_output::TOOL.output_schema.is_some());
}

#[allow(dead_code)]
async fn api(c: &outputs::Client) -> ::mcp_bindgen::Result<()> {
    let _weather: get_weather::Output = c
        .get_weather(get_weather::Args { city: "x".into() })
        .await?;
    let _status: status::Output = c.status().await?;
    // A task-capable tool (`execution.taskSupport`): the same typed output, through a handle.
    let task: ::mcp_bindgen::TaskHandle<get_weather::Output> = c
        .get_weather_task(get_weather::Args { city: "x".into() })
        .await?;
    let _state: ::mcp_bindgen::TaskState = task.status().await?;
    let _weather: get_weather::Output = task.wait().await?;
    let _raw: ::mcp_bindgen::ToolOutput = c.ping().await?;
    // `inputSchema: {}` names no arguments but allows any: a JSON map.
    let mut free = outputs::bare::Args::new();
    free.insert("anything".into(), serde_json::json!(1));
    let _raw: ::mcp_bindgen::ToolOutput = c.bare(free).await?;
    let _raw: ::mcp_bindgen::ToolOutput = c
        .remote_output(outputs::remote_output::Args { q: None })
        .await?;
    Ok(())
}
