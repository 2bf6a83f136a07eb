mcp_bindgen::mcp_tools!("headers");

fn main() {}
