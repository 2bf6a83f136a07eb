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

#[test]
fn out_writes_the_definitions_that_check_checked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fixture = json!({"tools": [{"name": "add", "inputSchema": {"type": "object",
        "properties": {"a": {"type": "integer"}}, "required": ["a"]}}]});
    std::fs::write(dir.path().join("calc.json"), fixture.to_string()).expect("write fixture");
    // Outside the fixtures folder: a JSON file in it is read as a fixture.
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let out = elsewhere.path().join("export.json");
    let out_arg = out.display().to_string();
    let (code, stdout, stderr) = tools(
        &["--format", "gemini", "--check", "--out", &out_arg],
        dir.path(),
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.is_empty(), "--out keeps stdout empty: {stdout}");
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("--out wrote the file"))
            .expect("JSON in the file");
    let (_, printed, _) = tools(&["--format", "gemini"], dir.path());
    let printed: Value = serde_json::from_str(&printed).expect("JSON on stdout");
    assert_eq!(written, printed);
    assert_eq!(written["tools"][0]["name"], "mcp_calc_add");
    let (code, _, stderr) = tools(&["--tokens", "--out", &out_arg], dir.path());
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--out is for tool definitions"), "{stderr}");
}

#[test]
fn a_tool_no_form_makes_acceptable_is_left_out_of_that_format_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    // What a server with a broken schema generator sends: a misspelt type name, and a
    // property whose schema is a number. Either fails a whole provider request.
    let fixture = json!({"tools": [
        {"name": "misspelt", "inputSchema": {"type": "object", "properties": {"a": {"type": "strin"}}}},
        {"name": "numeric", "inputSchema": {"type": "object", "properties": {"a": 5}}},
        {"name": "fine", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}
    ]});
    std::fs::write(dir.path().join("odd.json"), fixture.to_string()).expect("write fixture");
    for format in [
        "openai",
        "openai-strict",
        "openai-responses",
        "anthropic",
        "gemini",
    ] {
        let (code, stdout, stderr) = tools(&["--format", format], dir.path());
        assert_eq!(code, Some(0), "{format}: {stderr}");
        let export: Value = serde_json::from_str(&stdout).expect("JSON on stdout");
        let names: Vec<&str> = export["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t.get("name").or_else(|| t.pointer("/function/name")))
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(names, ["mcp_odd_fine"], "{format}");
        let left: Vec<(&str, &str)> = export["left_out"]
            .as_array()
            .expect("left_out")
            .iter()
            .map(|f| {
                (
                    f["tool"].as_str().unwrap_or(""),
                    f["reason"].as_str().unwrap_or(""),
                )
            })
            .collect();
        assert_eq!(left.len(), 2, "{format}: {left:?}");
        assert_eq!(left[0].0, "misspelt");
        assert!(
            left[0].1.contains("/properties/a/type: \"strin\""),
            "{format}: {left:?}"
        );
        assert_eq!(left[1].0, "numeric");
        assert!(
            left[1].1.contains("/properties/a: a schema is an object"),
            "{format}: {left:?}"
        );
        assert!(
            stderr.contains(&format!(
                "left out of the {format} export (odd's `misspelt`)"
            )),
            "{format}: {stderr}"
        );
        assert!(stderr.contains(", 2 left out,"), "{format}: {stderr}");
    }
}

#[test]
fn a_description_cap_from_the_registry_or_the_flag_moves_the_cut_into_the_arguments() {
    let dir = tempfile::tempdir().expect("tempdir");
    let long = format!(
        "Searches the catalogue. {}Pass `region` to narrow the search.",
        "Filler sentence about nothing in particular. ".repeat(50)
    );
    let fixture = json!({"tools": [{"name": "search", "description": long, "inputSchema": {
        "type": "object", "properties": {"query": {"type": "string"}, "region": {"type": "string"}}}}]});
    std::fs::write(dir.path().join("shop.json"), fixture.to_string()).expect("write fixture");
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let registry = elsewhere.path().join("servers.toml");
    std::fs::write(
        &registry,
        "[servers.shop]\ncommand = \"shop-server\"\nmax_description_chars = 2048\n",
    )
    .expect("write registry");
    let registry = registry.display().to_string();
    let plain = elsewhere.path().join("plain.toml");
    std::fs::write(&plain, "[servers.shop]\ncommand = \"shop-server\"\n").expect("write registry");
    let plain = plain.display().to_string();
    for args in [
        vec!["--format", "anthropic", "--config", registry.as_str()],
        vec![
            "--format",
            "anthropic",
            "--config",
            plain.as_str(),
            "--max-description-chars",
            "2048",
        ],
    ] {
        let (code, stdout, stderr) = tools(&args, dir.path());
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        let export: Value = serde_json::from_str(&stdout).expect("JSON on stdout");
        let tool = &export["tools"][0];
        let description = tool["description"].as_str().unwrap_or("");
        assert!(description.chars().count() <= 2048, "{args:?}");
        assert!(
            description.ends_with("in particular."),
            "{args:?}: {description}"
        );
        assert_eq!(
            tool["input_schema"]["properties"]["region"]["description"],
            "Pass `region` to narrow the search."
        );
        // Nothing is lost to a client's cut any more: no warning.
        assert!(!stderr.contains("cut it silently"), "{args:?}: {stderr}");
    }
    // Without a cap: the description as written, and the warning naming what falls past.
    let (code, stdout, stderr) = tools(&["--format", "anthropic", "--config", &plain], dir.path());
    assert_eq!(code, Some(0), "{stderr}");
    let export: Value = serde_json::from_str(&stdout).expect("JSON on stdout");
    assert_eq!(export["tools"][0]["description"], long.as_str());
    assert!(stderr.contains("cut it silently"), "{stderr}");
    assert!(stderr.contains("`region`"), "{stderr}");
}
