mcp_bindgen::mcp_tools!("shop");

async fn read(client: shop::Client) {
    let _ = client
        .resources()
        .order(&shop::resources::order::Args { expand: Some("items".into()) })
        .await;
}

fn main() {}
