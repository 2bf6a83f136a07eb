//! `tools --format … --check` as a user runs it on a fixture holding the shapes providers
//! refuse (a nested `oneOf`, zod's `z.record(z.any())`, a root union) and a description past
//! the 2 048 characters some clients keep.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

fn tools(args: &[&str], dir: &Path) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-mcp-bindgen"))
        .arg("tools")
        .args(args)
        .arg("--fixtures")
        .arg(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run cargo-mcp-bindgen");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn refused_shapes_never_reach_an_export_and_long_descriptions_are_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let long = format!(
        "Searches the catalogue. {} Pass `region` to narrow the search; `sort` takes newest or oldest.",
        "Filler sentence about nothing in particular. ".repeat(50)
    );
    let fixture = json!({"tools": [
        {"name": "search", "description": long, "inputSchema": {"type": "object", "properties": {
            "query": {"type": "string"},
            "region": {"type": "string"},
            "sort": {"enum": ["newest", "oldest"]},
            "meta": {"type": "object", "additionalProperties": {}},
            "target": {"oneOf": [
                {"type": "object", "properties": {"path": {"type": "string"}}},
                {"type": "object", "properties": {"line": {"type": "integer"}}}
            ]}
        }}},
        {"name": "either", "inputSchema": {"type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
            "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}}
    ]});
    std::fs::write(dir.path().join("shop.json"), fixture.to_string()).expect("write fixture");
    for format in ["openai", "openai-strict", "openai-responses"] {
        let (code, stdout, stderr) = tools(&["--format", format], dir.path());
        assert_eq!(code, Some(0), "{format}: {stderr}");
        let export: Value = serde_json::from_str(&stdout).expect("JSON on stdout");
        let text = export["tools"].to_string();
        assert!(!text.contains("oneOf"), "{format}: {text}");
        assert!(
            !text.contains("\"additionalProperties\":{}"),
            "{format}: {text}"
        );
        for tool in export["tools"].as_array().expect("tools") {
            let parameters = tool
                .get("parameters")
                .or_else(|| tool.pointer("/function/parameters"))
                .expect("parameters");
            for k in ["anyOf", "oneOf", "allOf", "enum", "not"] {
                assert!(
                    parameters.get(k).is_none(),
                    "{format}: root {k}: {parameters}"
                );
            }
        }
        // The widened ones are listed, with the reason.
        let reasons = export["fallbacks"].to_string();
        assert!(
            reasons.contains("may match one value together"),
            "{format}: {reasons}"
        );
        assert!(reasons.contains("root anyOf"), "{format}: {reasons}");
        assert!(
            stderr.contains("shop/search: a description of")
                && stderr.contains(
                    "the names it first mentions past the cut: `newest`, `oldest`, `region`, `sort`"
                ),
            "{format}: {stderr}"
        );
    }
    let (code, _, stderr) = tools(&["--format", "openai-responses", "--check"], dir.path());
    assert_eq!(code, Some(0), "{stderr}");
}
