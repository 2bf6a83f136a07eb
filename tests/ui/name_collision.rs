mcp_runtime::mcp_tools!("clash");

fn main() {}
