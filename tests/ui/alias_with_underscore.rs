// The fixture is `gift-shop.json`: `_` for `-` is suggested first.
mcp_bindgen::mcp_tools!("gift_shop");

fn main() {}
