// A `types` value that does not resolve where `mcp_tools!` is written is reported on the entry.
mcp_bindgen::mcp_tools!("shop", types = { "place_order.quantity" = "Quantity" });

fn main() {}
