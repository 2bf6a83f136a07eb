mcp_bindgen::mcp_tools!("shop");

async fn list(client: shop::Client) {
    let _ = client.list_orders(shop::list_orders::Args {}).await;
}

fn main() {}
