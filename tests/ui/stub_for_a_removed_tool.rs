// `kiosk.json` is `shop.json` snapshotted again after the server removed `place_order`: the
// agent's test that stubs it stops compiling.
mcp_bindgen::mcp_tools!("kiosk");

fn main() {
    let _fake = kiosk::Fake::new()
        .on_place_order(|_args| Ok(mcp_bindgen::ToolOutput::from_text("ordered")));
}
