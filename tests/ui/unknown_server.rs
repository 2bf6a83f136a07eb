mcp_runtime::mcp_tools!("no-such-server");

fn main() {}
