// `types` names an argument the tool does not have: the error points at that entry.
mcp_bindgen::mcp_tools!("shop", types = { "place_order.sku" = "String", "place_order.quantty" = "u32" });

fn main() {}
