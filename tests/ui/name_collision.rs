mcp_bindgen::mcp_tools!("clash");

fn main() {}
