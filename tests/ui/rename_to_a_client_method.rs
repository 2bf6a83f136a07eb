// A tool renamed to a method every generated `Client` has.
mcp_runtime::mcp_tools!("shop", rename = { "list_orders" = "connect" });

fn main() {}
