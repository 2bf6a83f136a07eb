//! Testing an agent offline: code written against the generated `demo::Tools` trait runs on
//! the live server, on a cassette recorded from it, and on typed stubs; a toolbox whose
//! server is a fake runs a model's tool calls with no process and no network.
//!
//! ```sh
//! cargo run -p mcp-bindgen --example offline_agent            # offline: cassette + stubs
//! cargo build --bin mcp-demo-server
//! cargo run -p mcp-bindgen --example offline_agent -- --record  # record the cassette again
//! ```
//!
//! The cassette is `runtime/examples/cassettes/demo.jsonl`. Loading it decodes every line
//! through the types generated from `fixtures/demo.json`: after a snapshot that changes a
//! tool it uses, it fails with the line, the tool and the field, and `--record` writes it
//! again.

use std::path::{Path, PathBuf};

use mcp_bindgen::toolbox::Toolbox;
use mcp_bindgen::toolbox::provider::Format;
use mcp_bindgen::{Registry, Session, ToolOutput};

mcp_bindgen::mcp_tools!("demo");

/// The agent's own logic, written once against the trait.
async fn weather_report(tools: &impl demo::Tools, city: &str) -> mcp_bindgen::Result<String> {
    let weather = tools
        .get_weather(demo::get_weather::Args {
            days: Some(2),
            ..demo::get_weather::Args::new(city)
        })
        .await?;
    let highs: Vec<f64> = weather.forecast.iter().map(|d| d.high).collect();
    let sum = tools
        .add(demo::add::Args {
            a: highs.first().copied().unwrap_or_default(),
            b: highs.get(1).copied().unwrap_or_default(),
        })
        .await?;
    Ok(format!(
        "{city}: {:.1}° now, {:?}; the next two highs add up to {}",
        weather.current.temperature,
        weather.current.conditions,
        sum.text()
    ))
}

fn cassette() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/cassettes/demo.jsonl")
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), mcp_bindgen::Report> {
    if std::env::args().any(|a| a == "--record") {
        // Against the live demo server (the default registry's `demo`), every call appended
        // to a fresh cassette.
        let registry =
            Registry::load(Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/servers.toml"))?;
        let client = demo::Client::new(Session::connect(registry.get("demo")?).await?);
        let _ = std::fs::remove_file(cassette());
        let recorder = demo::Recorder::new(client, cassette())?;
        println!("live:     {}", weather_report(&recorder, "Lisbon").await?);
        recorder.client().session().close().await?;
        println!("recorded {}", cassette().display());
        return Ok(());
    }

    // 1. Replay: the same function, answered from the cassette.
    let replay = demo::Fake::from_cassette(cassette())?;
    let report = weather_report(&replay, "Lisbon").await?;
    println!("replayed: {report}");

    // 2. Stubs: typed answers written in the test; a tool without one is an error.
    let stubs = demo::Fake::new()
        .on_get_weather(|args| {
            serde_json::from_value(serde_json::json!({
                "city": args.city.to_string(), "units": "celsius", "alert": null,
                "current": {"temperature": 30.0, "conditions": "sunny", "humidity_percent": 20,
                            "wind": {"speed_kmh": 5.0, "direction_deg": 90}},
                "forecast": [
                    {"day": 1, "high": 31.0, "low": 20.0, "conditions": "sunny", "precipitation_mm": null},
                    {"day": 2, "high": 33.0, "low": 21.0, "conditions": "sunny", "precipitation_mm": null}
                ]
            }))
            .map_err(|e| mcp_bindgen::fake::tool_error(e.to_string()))
        })
        .on_add(|args| Ok(ToolOutput::from_text((args.a + args.b).to_string())));
    let report = weather_report(&stubs, "Seville").await?;
    println!("stubbed:  {report}");
    assert_eq!(
        report,
        "Seville: 30.0° now, Sunny; the next two highs add up to 64"
    );
    let calls: Vec<String> = stubs.calls().into_iter().map(|c| c.tool).collect();
    assert_eq!(calls, ["get_weather", "add"]);

    // 3. The agent loop: a toolbox with the fake in place of the server. The "model" here
    // is a script of the tool calls a model would make after seeing the export.
    let toolbox = Toolbox::from_servers(Vec::new())
        .add_fake(stubs.clone())
        .connect()
        .await?;
    assert!(toolbox.session("demo").is_none(), "no server was started");
    let offered = toolbox.export(Format::OpenAi).tools.len();
    println!("offered {offered} tools to the model");
    for (name, arguments) in [
        ("mcp_demo_add", r#"{"a": 2, "b": 40}"#),
        ("mcp_demo_add", r#"{"a": "two"}"#),
        ("mcp_demo_echo", r#"{"message": "hi"}"#),
    ] {
        let reply = toolbox.call(name, arguments).await;
        println!("{name}({arguments}) -> {}", reply.text);
    }
    toolbox.close().await;
    Ok(())
}
