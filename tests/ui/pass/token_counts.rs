//! `tokens = true`: each tool's and the server's token counts are constants, and a budget the
//! tools meet compiles.
mcp_bindgen::mcp_tools!("shop", tokens = true, max_tokens = 100000);

fn main() {
    let each = [shop::place_order::TOKENS, shop::list_orders::TOKENS];
    assert_eq!(mcp_bindgen::toolbox::Tokens::sum(&each), shop::TOKENS);
    for t in each {
        assert!(t.full > 20 && t.compact <= t.full, "{t:?}");
    }
}
