mcp_bindgen::mcp_tools!("shop");

async fn order(client: shop::Client) {
    let _ = client
        .place_order(shop::place_order::Args {
            sku: "A-1".into(),
            gift_note: None,
        })
        .await;
}

fn main() {}
