mcp_bindgen::mcp_tools!("shop", max_tokens = 50);

fn main() {}
