// Tools whose names map to one Rust function get distinct functions on their own: the tool
// spelled exactly as the function keeps it, the other gets a word for its spelling. Each
// still calls its own tool.
mcp_bindgen::mcp_tools!("clash");

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let fake = clash::Fake::new()
        .on_get_item(|| Ok(mcp_bindgen::ToolOutput::from_json(serde_json::json!("snake"))))
        .on_get_item_kebab(|| Ok(mcp_bindgen::ToolOutput::from_json(serde_json::json!("kebab"))));
    let a = clash::Tools::get_item(&fake).await.unwrap();
    let b = clash::Tools::get_item_kebab(&fake).await.unwrap();
    assert_eq!(a.json(), Some(serde_json::json!("snake")));
    assert_eq!(b.json(), Some(serde_json::json!("kebab")));
    let tools: Vec<String> = fake.calls().iter().map(|c| c.tool.clone()).collect();
    assert_eq!(tools, ["get_item", "get-item"]);
}
