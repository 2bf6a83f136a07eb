// A rename onto another tool's `_with` variant.
mcp_runtime::mcp_tools!("shop", rename = { "place_order" = "list_orders_with" });

fn main() {}
