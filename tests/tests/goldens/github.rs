#![deny(warnings)]
// The GitHub MCP server's 117 tools (golden generated from tests/corpus/github-official).
include!("../../../mcp-codegen/tests/goldens/github.rs");
#[path = "support/roundtrip.rs"]
mod roundtrip;

use github::{create_issue, search_issues};
use serde_json::json;

fn main() {
    assert_eq!(github::TYPED_TOOLS.len(), 117);
    let a = create_issue::Args {
        owner: "o".into(),
        repo: "r".into(),
        title: "t".into(),
        body: None,
    };
    assert_eq!(
        roundtrip::check(create_issue::TOOL.name, create_issue::TOOL.input_schema, &a),
        json!({"owner": "o", "repo": "r", "title": "t"})
    );
    let s = search_issues::Args {
        query: "is:open".into(),
        sort: Some(search_issues::ArgsSort::ReactionsPlus1),
        order: None,
        owner: None,
        repo: None,
        page: Some(1.0),
        per_page: Some(30.0),
        fields: None,
    };
    let v = roundtrip::check(
        search_issues::TOOL.name,
        search_issues::TOOL.input_schema,
        &s,
    );
    assert_eq!(v["sort"], "reactions-+1");
}

#[allow(dead_code)]
async fn api(c: &github::Client) -> ::mcp_bindgen::Result<()> {
    c.get_me().await?;
    c.create_issue(create_issue::Args {
        owner: "o".into(),
        repo: "r".into(),
        title: "t".into(),
        body: Some("b".into()),
    })
    .await?;
    Ok(())
}
