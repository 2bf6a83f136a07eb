mcp_runtime::mcp_tools!("shp");

fn main() {}
