mcp_runtime::mcp_tools!("shop", only = ["place_order", "list_ordrs"]);

fn main() {}
