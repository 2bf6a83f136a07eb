mcp_bindgen::mcp_tools!("no-such-server");

fn main() {}
