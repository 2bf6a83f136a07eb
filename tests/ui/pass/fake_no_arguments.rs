// A tool without arguments: its stub takes none either.
mcp_bindgen::mcp_tools!("shop");

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let fake = shop::Fake::new()
        .on_list_orders(|| Ok(mcp_bindgen::ToolOutput::from_json(serde_json::json!([1, 2]))));
    let orders = shop::Tools::list_orders(&fake).await.unwrap();
    assert_eq!(orders.json(), Some(serde_json::json!([1, 2])));
    assert_eq!(fake.calls()[0].arguments, serde_json::json!({}));
}
