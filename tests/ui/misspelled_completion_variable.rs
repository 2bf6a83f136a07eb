mcp_bindgen::mcp_tools!("shop");

async fn suggest(client: shop::Client) {
    use shop::resources::order::Variable;
    let _ = client.resources().complete(Variable::OrderDi, "o-", &[]).await;
}

fn main() {}
