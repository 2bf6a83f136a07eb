// A rename onto another tool's function.
mcp_runtime::mcp_tools!("shop", rename = { "place_order" = "list_orders" });

fn main() {}
