#![deny(warnings)]
include!("../../../mcp-codegen/tests/goldens/nullable.rs");
#[path = "support/roundtrip.rs"]
mod roundtrip;

use nullable::update;
use serde_json::json;

fn main() {
    let args = update::Args {
        id: 7,
        must_send: None,
        fastmcp: None,
        labels: Some(vec![]),
        milestone: Some(None),
        object_or_null: None,
        pydantic: Some(Some("p".into())),
        tags: None,
        type_array: Some(Some(1.5)),
    };
    let v = roundtrip::check(update::TOOL.name, update::TOOL.input_schema, &args);
    assert_eq!(
        v,
        json!({"id": 7, "must_send": null, "labels": [], "milestone": null, "pydantic": "p", "type_array": 1.5})
    );

    let mut tags = std::collections::BTreeMap::new();
    tags.insert("a".to_string(), "b".to_string());
    let args = update::Args {
        id: 1,
        must_send: Some("x".into()),
        fastmcp: Some("f".into()),
        labels: None,
        milestone: Some(Some(3)),
        object_or_null: Some(Some(update::ArgsObjectOrNull {
            a: Some("z".into()),
        })),
        pydantic: None,
        tags: Some(tags),
        type_array: None,
    };
    let v = roundtrip::check(update::TOOL.name, update::TOOL.input_schema, &args);
    assert_eq!(v["milestone"], 3);
    assert!(v.get("labels").is_none(), "None leaves the argument out");
}

#[allow(dead_code)]
async fn api(client: &nullable::Client) -> ::mcp_bindgen::Result<::mcp_bindgen::ToolOutput> {
    client
        .with_options(::mcp_bindgen::CallOptions::default())
        .update(update::Args {
            id: 1,
            must_send: None,
            fastmcp: None,
            labels: None,
            milestone: None,
            object_or_null: None,
            pydantic: None,
            tags: None,
            type_array: None,
        })
        .await
}
