mcp_runtime::mcp_tools!("headers");

fn main() {}
