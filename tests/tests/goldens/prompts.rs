#![deny(warnings)]
include!("../../../mcp-codegen/tests/goldens/prompts.rs");

use prompts::prompts as p;
use serde_json::json;

fn main() {
    // Wire names, optional arguments left out when `None`.
    let args = p::args_prompt::Args {
        city: "Oslo".into(),
        state: None,
    };
    assert_eq!(
        serde_json::to_value(&args).unwrap(),
        json!({"city": "Oslo"})
    );
    let args = p::resource_prompt::Args {
        resource_type: "text".into(),
        resource_id: "1".into(),
    };
    assert_eq!(
        serde_json::to_value(&args).unwrap(),
        json!({"resourceType": "text", "resourceId": "1"})
    );
    // All-optional: `Default`; keyword and digit-leading names map back to the wire names.
    let args = p::r#type::Args {
        r#type: Some("t".into()),
        arg_2nd: Some("2".into()),
        ..Default::default()
    };
    assert_eq!(
        serde_json::to_value(&args).unwrap(),
        json!({"type": "t", "2nd": "2"})
    );
    // Unknown arguments are rejected when decoding (deny_unknown_fields).
    assert!(
        serde_json::from_value::<p::args_prompt::Args>(json!({"city": "x", "zip": "1"})).is_err()
    );
    assert_eq!(
        p::NAMES,
        ["args-prompt", "resource-prompt", "simple-prompt", "type"]
    );
    assert_eq!(p::args_prompt::TITLE, Some("Arguments Prompt"));
    // Tools whose names are taken by `Client` methods were renamed.
    assert_eq!(prompts::connect_tool::TOOL.name, "connect");
    assert_eq!(prompts::prompts_tool::TOOL.name, "prompts");
}

#[allow(dead_code)]
async fn api(c: &prompts::Client) -> ::mcp_bindgen::Result<()> {
    let r: ::mcp_bindgen::PromptResult = c
        .prompts()
        .args_prompt(p::args_prompt::Args {
            city: "x".into(),
            state: Some("y".into()),
        })
        .await?;
    let _: &[::mcp_bindgen::PromptMessage] = &r.messages;
    let _ = c.prompts().simple_prompt().await?;
    let _ = c.prompts().r#type(Default::default()).await?;
    let _ = c.connect_tool().await?;
    Ok(())
}
