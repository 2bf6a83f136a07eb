mcp_bindgen::mcp_tools!("shop");

async fn read(client: shop::Client) {
    let _ = client
        .resources()
        .order(&shop::resources::order::Args {
            order_di: "o-1".into(),
            expand: None,
        })
        .await;
}

fn main() {}
