mcp_bindgen::mcp_tools!("broken");

fn main() {}
