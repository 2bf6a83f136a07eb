// A tool renamed to a method every generated `Client` has.
mcp_bindgen::mcp_tools!("shop", rename = { "list_orders" = "connect" });

fn main() {}
