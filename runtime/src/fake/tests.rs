use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::*;
use crate::output::Content;
use crate::typed::{normalize_as, normalize_no_args};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Sum {
    sum: i64,
}

const TOOLS: &[TypedTool] = &[
    TypedTool {
        name: "add",
        description: None,
        title: None,
        annotations: None,
        input_schema: r#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}"#,
        output_schema: Some(
            r#"{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}"#,
        ),
        openai_name: "mcp_t_add",
        untyped_args_reason: None,
        normalize: Some(normalize_as::<AddArgs>),
        normalize_output: Some(normalize_as::<Sum>),
    },
    TypedTool {
        name: "raw",
        description: None,
        title: None,
        annotations: None,
        input_schema: r#"{"type":"object","properties":{"n":{"type":"integer"}}}"#,
        output_schema: None,
        openai_name: "mcp_t_raw",
        untyped_args_reason: Some("test"),
        normalize: None,
        normalize_output: None,
    },
    TypedTool {
        name: "now",
        description: None,
        title: None,
        annotations: None,
        input_schema: r#"{"type":"object"}"#,
        output_schema: None,
        openai_name: "mcp_t_now",
        untyped_args_reason: None,
        normalize: Some(normalize_no_args),
        normalize_output: None,
    },
];

fn cassette(dir: &tempfile::TempDir, lines: &[Value]) -> std::path::PathBuf {
    let path = dir.path().join("t.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).expect("write cassette");
    path
}

fn add_line(a: i64, b: i64, sum: i64) -> Value {
    json!({"server": "t", "tool": "add", "arguments": {"b": b, "a": a},
           "result": {"content": [{"type": "text", "text": sum.to_string()}],
                      "structuredContent": {"sum": sum}}})
}

#[test]
fn tool_output_reads_and_writes_mcp_call_tool_result() {
    let wire = json!({
        "content": [
            {"type": "text", "text": "hi"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "resource_link", "uri": "file:///a", "name": "a"}
        ],
        "structuredContent": {"x": 1},
        "isError": true
    });
    let output: ToolOutput = serde_json::from_value(wire.clone()).expect("reads");
    assert!(output.is_error);
    assert_eq!(output.structured, Some(json!({"x": 1})));
    assert_eq!(output.content.len(), 3);
    assert!(matches!(&output.content[2], Content::ResourceLink { uri, .. } if uri == "file:///a"));
    assert_eq!(serde_json::to_value(&output).expect("writes"), wire);
    // Unset fields are left out, as servers leave them out.
    assert_eq!(
        serde_json::to_value(ToolOutput::from_text("x")).expect("writes"),
        json!({"content": [{"type": "text", "text": "x"}]})
    );
    let bare: ToolOutput = serde_json::from_value(json!({})).expect("all fields default");
    assert_eq!(bare, ToolOutput::default());
}

#[test]
fn canonical_text_ignores_key_order_at_every_depth() {
    assert_eq!(
        cassette::canonical(&json!({"b": [{"y": 1, "x": 2}], "a": null})),
        r#"{"a":null,"b":[{"x":2,"y":1}]}"#
    );
}

#[test]
fn recorded_answers_replay_in_order_and_the_last_repeats() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = cassette(
        &dir,
        &[add_line(1, 2, 3), add_line(1, 2, 4), add_line(5, 5, 10)],
    );
    let fake = FakeServer::from_cassette("t", TOOLS, &path).expect("loads");
    let sum = |a, b| {
        fake.call_typed::<_, Sum>("add", AddArgs { a, b })
            .map(|s| s.sum)
    };
    assert_eq!(sum(1, 2).expect("first"), 3);
    assert_eq!(sum(5, 5).expect("other arguments"), 10);
    assert_eq!(sum(1, 2).expect("second"), 4);
    assert_eq!(sum(1, 2).expect("the last repeats"), 4);
    // The untyped path gives the recorded result itself.
    let raw = fake
        .call_untyped("add", AddArgs { a: 5, b: 5 })
        .expect("untyped");
    assert_eq!(raw.text(), "10");
    // And so does the JSON path, with arguments in any key order.
    let json = fake
        .call_json("add", json!({"b": 5, "a": 5}))
        .expect("json");
    assert_eq!(json.structured, Some(json!({"sum": 10})));
    assert_eq!(fake.calls().len(), 6);
    fake.clear_calls();
    assert!(fake.calls().is_empty());
    let debug = format!("{fake:?}");
    assert!(debug.contains("recorded: 2"), "{debug}");
}

#[test]
fn a_recorded_tool_error_replays_as_the_tool_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = cassette(
        &dir,
        &[json!({"tool": "add", "arguments": {"a": 0, "b": 0},
                 "result": {"content": [{"type": "text", "text": "zero"}], "isError": true}})],
    );
    let fake =
        FakeServer::from_cassette("t", TOOLS, &path).expect("an isError result is not decoded");
    let e = fake
        .call_typed::<_, Sum>("add", AddArgs { a: 0, b: 0 })
        .expect_err("tool error");
    assert_eq!(e.to_string(), "tool \"add\" of server \"t\" failed: zero");
    let output = fake
        .call_json("add", json!({"a": 0, "b": 0}))
        .expect("the JSON path returns the result");
    assert!(output.is_error);
}

#[test]
fn a_bad_line_is_named_and_nothing_is_loaded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fake = FakeServer::new("t", TOOLS);
    let cases: Vec<(Value, &str)> = vec![
        (json!("not an object"), "no \"tool\""),
        (json!({"tool": "add", "result": {}}), "no \"arguments\""),
        (
            json!({"tool": 3, "arguments": {}}),
            "\"tool\" is not a string",
        ),
        (
            json!({"tool": "add", "arguments": {"a": 1, "b": 2}}),
            "no \"result\"",
        ),
        (
            json!({"tool": "add", "arguments": {"a": 1, "b": 2}, "result": {"content": 3}}),
            "\"result\" is not a tool result",
        ),
        (
            json!({"tool": "add", "arguments": {"a": 1, "b": "2"}, "result": {}}),
            "(at /b: ",
        ),
        (
            json!({"tool": "add", "arguments": {"a": 1, "b": 2}, "result": {"structuredContent": {"sum": "3"}}}),
            "the recorded result does not fit its generated `Output`",
        ),
        (
            json!({"tool": "raw", "arguments": {"n": "x"}, "result": {}}),
            "tool \"raw\": the recorded arguments do not fit its input schema: /n: ",
        ),
    ];
    for (bad, expected) in cases {
        let path = cassette(&dir, &[add_line(1, 1, 2), bad.clone()]);
        let e = fake.load_cassette(&path).expect_err("bad line");
        let text = e.to_string();
        assert!(
            text.starts_with(&format!("cassette {} line 2: ", path.display()))
                && text.contains(expected),
            "{bad}: {text}"
        );
    }
    std::fs::write(dir.path().join("t.jsonl"), "{\n").expect("write");
    let e = fake
        .load_cassette(dir.path().join("t.jsonl"))
        .expect_err("not JSON");
    assert!(e.to_string().contains("line 1: not JSON"), "{e}");
    let e = fake
        .load_cassette(dir.path().join("missing.jsonl"))
        .expect_err("no file");
    assert!(e.to_string().contains("cannot read it"), "{e}");
    // Line 1 of each file was fine, but no file loaded: nothing is answered.
    let e = fake
        .call_typed::<_, Sum>("add", AddArgs { a: 1, b: 1 })
        .expect_err("nothing loaded");
    assert!(matches!(e, Error::Fake { .. }), "{e:?}");
}

#[test]
fn stubs_answer_every_path_and_errors_name_the_tool() {
    let fake = FakeServer::new("t", TOOLS);
    fake.stub_typed("add", |a: AddArgs| {
        if a.a < 0 {
            Err(tool_error("negative"))
        } else {
            Ok(Sum { sum: a.a + a.b })
        }
    });
    fake.stub_untyped("now", |_: crate::NoArgs| Ok(ToolOutput::from_text("noon")));
    assert_eq!(
        fake.call_typed::<_, Sum>("add", AddArgs { a: 2, b: 3 })
            .expect("typed"),
        Sum { sum: 5 }
    );
    // A caller asking for another result type reaches the stub through JSON.
    let as_json: Value = fake
        .call_typed("add", AddArgs { a: 2, b: 3 })
        .expect("through JSON");
    assert_eq!(as_json, json!({"sum": 5}));
    let e = fake
        .call_typed::<_, Sum>("add", AddArgs { a: -1, b: 0 })
        .expect_err("tool error");
    assert_eq!(
        e.to_string(),
        "tool \"add\" of server \"t\" failed: negative"
    );
    let out = fake
        .call_json("add", json!({"a": -1, "b": 0}))
        .expect("a tool error is a result on the JSON path");
    assert!(out.is_error && out.text() == "negative", "{out:?}");
    let out = fake
        .call_json("add", json!({"a": 1, "b": 1}))
        .expect("json");
    assert_eq!(out.structured, Some(json!({"sum": 2})));
    let e = fake
        .call_json("add", json!({"a": "x"}))
        .expect_err("arguments that do not fit");
    assert!(
        e.to_string()
            .contains("the arguments of \"add\" do not fit its generated type"),
        "{e}"
    );
    assert_eq!(
        fake.call_untyped("now", crate::NoArgs {})
            .expect("no args")
            .text(),
        "noon"
    );
    let e = fake
        .call_untyped("raw", json!({"n": 1}))
        .expect_err("no stub");
    assert_eq!(
        e.to_string(),
        "fake server \"t\": no stub for tool \"raw\" and no recorded call of it; give it one with the fake's `on_…` method for \"raw\", or record one"
    );
    let e = fake.call_json("gone", json!({})).expect_err("unknown");
    assert!(
        e.to_string().contains("the fixture has no tool \"gone\""),
        "{e}"
    );
    let tools: Vec<String> = fake.calls().into_iter().map(|c| c.tool).collect();
    assert_eq!(
        tools,
        [
            "add", "add", "add", "add", "add", "add", "now", "raw", "gone"
        ]
    );
}

#[test]
fn a_tape_creates_its_directory_and_appends() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("deep/er/t.jsonl");
    let tape = Tape::append(&path).expect("creates");
    assert_eq!(tape.path(), path);
    assert!(path.exists());
    std::fs::write(&path, "kept\n").expect("write");
    drop(tape);
    Tape::append(&path).expect("reopens");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "kept\n");
    let e = Tape::append(dir.path()).expect_err("a directory");
    assert!(
        e.to_string().contains("cannot open it for appending"),
        "{e}"
    );
}
