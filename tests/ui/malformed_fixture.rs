mcp_runtime::mcp_tools!("broken");

fn main() {}
