mcp_bindgen::mcp_tools!("shp");

fn main() {}
