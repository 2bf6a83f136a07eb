// A tool whose result is untyped: the stub returns a `ToolOutput`.
mcp_bindgen::mcp_tools!("shop");

async fn order(tools: &impl shop::Tools) -> mcp_bindgen::Result<String> {
    let placed = tools
        .place_order(shop::place_order::Args {
            sku: "A-1".into(),
            quantity: 2,
            gift_note: None,
        })
        .await?;
    Ok(placed.text())
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let fake = shop::Fake::new().on_place_order(|args| {
        Ok(mcp_bindgen::ToolOutput::from_text(format!("{} x {}", args.quantity, args.sku)))
    });
    assert_eq!(order(&fake).await.unwrap(), "2 x A-1");
}
