//! Quickstart: typed calls to the embedded demo MCP server.
//!
//! `mcp_tools!("demo")` reads `fixtures/demo.json` at compile time and generates the module
//! `demo` with a typed `Client`. Run with `cargo xtask demo` (it builds the demo server,
//! refreshes the fixture and runs this example), or by hand:
//!
//! ```sh
//! cargo build --bin mcp-demo-server
//! cargo run -p mcp-bindgen --example quickstart
//! ```
//!
//! The registry `fixtures/servers.toml` starts `target/debug/mcp-demo-server` (set
//! `MCP_DEMO_SERVER` to use another build).

use std::path::Path;

use mcp_bindgen::{CallOptions, Error, Registry, Session};

mcp_bindgen::mcp_tools!("demo");

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), mcp_bindgen::Report> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let registry = Registry::load(workspace.join("fixtures/servers.toml"))?;
    let session = Session::connect(registry.get("demo")?).await?;
    let info = session.server_info().clone();
    println!(
        "connected to {} {} (protocol {}) over {}",
        info.name,
        info.version,
        info.protocol_version,
        session.transport()
    );
    let demo = demo::Client::new(session);

    // Plain arguments: a struct literal, every name visible, every type checked.
    let sum = demo.add(demo::add::Args { a: 2.0, b: 40.0 }).await?;
    println!("add(2, 40)            → {}", sum.text());

    // A tool without arguments takes none.
    let now = demo.server_time().await?;
    println!("server_time()         → {}", now.text());

    // Structured output: typed from the tool's outputSchema. `Args::new` takes the required
    // arguments; optional ones by struct update.
    let weather = demo
        .get_weather(demo::get_weather::Args {
            days: Some(2),
            ..demo::get_weather::Args::new("Lisbon")
        })
        .await?;
    println!(
        "get_weather(Lisbon)   → {:.1}° {:?}, {} forecast day(s), wind {:.0} km/h",
        weather.current.temperature,
        weather.current.conditions,
        weather.forecast.len(),
        weather.current.wind.speed_kmh
    );

    // Progress: a callback fed by notifications/progress, before the result. Options
    // (deadlines, progress) go on a client made for them, which shares the session.
    let done = demo
        .with_options(CallOptions::new().on_progress(|p| {
            println!(
                "  progress {}/{} {}",
                p.progress,
                p.total.unwrap_or(0.0),
                p.message.unwrap_or_default()
            )
        }))
        .long_task(demo::long_task::Args {
            steps: 3,
            delay_ms: Some(20),
        })
        .await?;
    println!("long_task(3)          → {}", done.text());

    // A tool-level error (isError: true) is a distinct error variant.
    match demo
        .fail(demo::fail::Args {
            message: "the quickstart asked for it".into(),
        })
        .await
    {
        Err(Error::Tool { tool, output, .. }) => {
            println!(
                "fail(..)              → tool error from {tool}: {}",
                output.text()
            )
        }
        other => println!("fail(..)              → unexpected: {other:?}"),
    }

    // `cargo xtask demo` compiles this example once more with `--cfg mcp_bindgen_demo_typo`,
    // to show what a misspelled argument gets: a compile error that names the right one.
    #[cfg(mcp_bindgen_demo_typo)]
    demo.add(demo::add::Args { a: 2.0, bb: 40.0 }).await?;

    demo.session().close().await?;
    Ok(())
}
