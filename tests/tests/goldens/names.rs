#![deny(warnings)]
include!("../../../mcp-codegen/tests/goldens/names.rs");
#[path = "support/roundtrip.rs"]
mod roundtrip;

use names::{collide, create_issue, r#type};
use serde_json::json;

fn main() {
    let args = create_issue::Args {
        type_: "bug".into(),
        ref_: Some("main".into()),
        self_: None,
        static_: Some(true),
        box_: None,
        raw: None,
        meta: Some("m".into()),
        timestamp: Some("t".into()),
        repo_name: "r".into(),
        // `types = { "*.perPage" = "std::num::NonZeroU8" }`: a glob key and a full path.
        per_page: std::num::NonZeroU8::new(50),
        count: Some(3u32),
    };
    let v = roundtrip::check(
        create_issue::TOOL.name,
        create_issue::TOOL.input_schema,
        &args,
    );
    assert_eq!(
        v,
        json!({"type": "bug", "ref": "main", "static": true, "$meta": "m", "@timestamp": "t", "repo-name": "r", "perPage": 50, "count": 3})
    );
    let args = names::list_repos::Args {
        per_page: std::num::NonZeroU8::new(7),
        ..Default::default()
    };
    let v = roundtrip::check(
        names::list_repos::TOOL.name,
        names::list_repos::TOOL.input_schema,
        &args,
    );
    assert_eq!(v, json!({"perPage": 7}));
    // Two required arguments share a type: `Args::new` takes them by name.
    let args = create_issue::Args {
        ref_: Some("dev".into()),
        ..create_issue::Args::new(create_issue::Required {
            type_: "bug".into(),
            repo_name: "r".into(),
        })
    };
    let v = roundtrip::check(
        create_issue::TOOL.name,
        create_issue::TOOL.input_schema,
        &args,
    );
    assert_eq!(v, json!({"type": "bug", "repo-name": "r", "ref": "dev"}));

    let args = collide::Args {
        foo_bar_camel: "a".into(),
        foo_bar: Some("b".into()),
    };
    let v = roundtrip::check(collide::TOOL.name, collide::TOOL.input_schema, &args);
    assert_eq!(v, json!({"fooBar": "a", "foo_bar": "b"}));

    let v = roundtrip::check(
        r#type::TOOL.name,
        r#type::TOOL.input_schema,
        &r#type::Args { text: "x".into() },
    );
    assert_eq!(v, json!({"text": "x"}));

    assert_eq!(names::TYPED_TOOLS.len(), 8);
    assert_eq!(names::list_repos::TOOL.name, "repo.list");
    let long = names::a_very_long_tool_name_that_goes_on_and_on_and_on_beyond_the_openai_limit_of_sixty_four::TOOL.openai_name;
    assert_eq!(long.len(), 64);
}

#[allow(dead_code)]
async fn api(c: &names::Client) -> ::mcp_bindgen::Result<()> {
    c.list_repos(names::list_repos::Args::default()).await?;
    c.r#type(r#type::Args { text: "x".into() }).await?;
    c.new_tool().await?;
    c.caf_u00e9_lookup().await?;
    c.with_options(::mcp_bindgen::CallOptions::default())
        .get_http_status()
        .await?;
    Ok(())
}
