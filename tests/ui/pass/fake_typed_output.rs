// A tool with a typed result: the stub returns the generated `Output`, and code written
// against `impl kiosk::Tools` gets it back.
mcp_bindgen::mcp_tools!("kiosk");

async fn shipped(tools: &impl kiosk::Tools, id: u64) -> mcp_bindgen::Result<bool> {
    let status = tools.order_status(kiosk::order_status::Args { id }).await?;
    Ok(status.state == kiosk::order_status::output::OutputState::Shipped)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let fake = kiosk::Fake::new().on_order_status(|args| {
        Ok(kiosk::order_status::Output {
            id: args.id,
            state: kiosk::order_status::output::OutputState::Shipped,
        })
    });
    assert!(shipped(&fake, 7).await.unwrap());
    assert_eq!(fake.calls()[0].arguments, serde_json::json!({"id": 7}));
}
