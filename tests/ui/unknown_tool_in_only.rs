mcp_bindgen::mcp_tools!("shop", only = ["place_order", "list_ordrs"]);

fn main() {}
