// A rename onto another tool's function.
mcp_bindgen::mcp_tools!("shop", rename = { "place_order" = "list_orders" });

fn main() {}
