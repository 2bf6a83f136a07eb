// An argument renamed to something that is not a field name.
mcp_bindgen::mcp_tools!("shop", rename = { "place_order" = "order", "place_order.gift_note" = "Gift-Note" });

fn main() {}
