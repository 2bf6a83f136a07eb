#![deny(warnings)]
include!("../../../mcp-codegen/tests/goldens/fallbacks.rs");
#[path = "support/roundtrip.rs"]
mod roundtrip;

use fallbacks::{fine, remote_ref};
use serde_json::json;

fn main() {
    // The untyped tool takes JSON; the rest of the server is typed.
    let args: remote_ref::Args = json!({"cfg": {"a": 1}});
    assert!(args.is_object());
    assert!(
        remote_ref::TOOL
            .untyped_args_reason
            .is_some_and(|r| r.contains("never fetches"))
    );
    roundtrip::check(
        fine::TOOL.name,
        fine::TOOL.input_schema,
        &fine::Args {
            a: Some("x".into()),
        },
    );
}

#[allow(dead_code)]
async fn api(c: &fallbacks::Client) -> ::mcp_bindgen::Result<()> {
    c.remote_ref(json!({"cfg": {}})).await?;
    c.dangling(json!({})).await?;
    c.not_object(json!({})).await?;
    c.fine(fine::Args::default()).await?;
    Ok(())
}
