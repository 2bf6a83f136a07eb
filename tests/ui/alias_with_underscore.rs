// The fixture is `gift-shop.json`: `_` for `-` is suggested first.
mcp_runtime::mcp_tools!("gift_shop");

fn main() {}
