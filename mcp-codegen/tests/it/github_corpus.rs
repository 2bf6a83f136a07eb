//! The GitHub MCP server's 117 tools (`tests/corpus/github-official`): every
//! tool generates code that parses, 0 errors, ≥ 97 % fully typed. The generated module is
//! compiled by `tests/tests/it/ui.rs` (golden `goldens/github.rs`).

use std::path::Path;

use mcp_bindgen_codegen::verify::{Summary, verify_fixture};
use mcp_bindgen_codegen::{Options, generate};
use mcp_bindgen_core::fixture::Fixture;

use crate::support;

fn corpus() -> Fixture {
    let tools = support::github_corpus();
    let doc = serde_json::json!({ "server": { "alias": "github" }, "tools": tools });
    Fixture::from_slice(
        doc.to_string().as_bytes(),
        Path::new("github-official/tools.json"),
    )
    .expect("fixture")
}

#[test]
fn github_corpus_is_typed() {
    let fixture = corpus();
    let summary = Summary {
        tools: verify_fixture(&fixture, "github"),
        fixtures: 1,
        tokens: Vec::new(),
    };
    for line in summary.detail_lines() {
        println!("{line}");
    }
    println!("{}", summary.summary_line());
    assert_eq!(summary.errors(), 0);
    assert!(
        summary.typed() * 100 >= summary.total() * 97,
        "{}",
        summary.summary_line()
    );

    let generated = generate(&fixture, "github", &Options::default()).expect("generate");
    println!(
        "typed {} / fallback {} / no-args {} / typed outputs {}",
        generated.stats.typed,
        generated.stats.fallback,
        generated.stats.no_args,
        generated.stats.typed_outputs
    );
    for w in &generated.warnings {
        println!("warning: {w}");
    }
    syn::parse_str::<syn::File>(&generated.code).expect("parses");
}
