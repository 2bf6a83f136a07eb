//! `verify --deep` (the `cargo-mcp-bindgen` binary, run from this repository): the two
//! summary lines, verbatim, a reason for every skipped tool, and tools that once came back
//! changed (a value matching two open object branches of an `anyOf`, an integer bound past
//! 64 bits) round-tripping now.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate has a parent")
        .to_path_buf()
}

/// `verify ARGS… --fixtures DIR` run from this repository: exit code, stdout, and stdout
/// followed by stderr.
fn verify(args: &[&str], dir: &Path) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-mcp-bindgen"))
        .arg("verify")
        .args(args)
        .arg("--fixtures")
        .arg(dir)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .output()
        .expect("run cargo-mcp-bindgen");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let text = format!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    (out.status.code(), stdout, text)
}

#[test]
fn deep_verify_reports_passes_skips_and_the_summary_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("probe.json"),
        r#"{"tools": [
  {"name": "huge", "inputSchema": {"type": "object", "required": ["n"],
    "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 1e300}}}},
  {"name": "impossible", "inputSchema": {"type": "object", "required": ["x"],
    "properties": {"x": false}}},
  {"name": "target", "inputSchema": {"type": "object", "required": ["target"],
    "properties": {"target": {"anyOf": [
      {"type": "string"},
      {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
      {"type": "object", "properties": {"line": {"type": "integer"}}, "required": ["line"]}]}}}}
]}"#,
    )
    .expect("write fixture");
    // 1 of 3 tools cannot be checked: more than the 2 % a pass allows by default.
    let (code, _, strict_text) = verify(&["--deep"], dir.path());
    assert_eq!(code, Some(1), "{strict_text}");
    assert!(
        strict_text.contains("the round trip skipped 1 of 3 tools (33.3 %, more than 2 %)"),
        "{strict_text}"
    );
    let (code, stdout, text) = verify(&["--deep", "--max-skipped", "34"], dir.path());
    assert_eq!(code, Some(0), "{text}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines.ends_with(&[
            "3 tools: 3 typed, 0 fallback, 0 errors",
            "round-trip: 3 tools, 2 passed, 0 failed, 1 skipped",
        ]),
        "{text}"
    );
    assert!(
        text.contains("probe/impossible: skipped: arguments: no value satisfies the schema"),
        "{text}"
    );
    assert!(!text.contains("FAILED"), "{text}");
}

/// `levels` nested arrays, each also allowing `null` (the shape whose Rust type,
/// `Option<Vec<Option<Vec<…>>>>`, costs the compiler most per level), under argument `v`.
fn nested_arrays(levels: usize) -> serde_json::Value {
    let mut s = serde_json::json!({"type": "string"});
    for _ in 0..levels {
        s = serde_json::json!({"type": ["array", "null"], "items": s});
    }
    serde_json::json!({"type": "object", "properties": {"v": s}})
}

#[test]
fn schemas_past_the_nesting_limit_fall_back_before_the_compiler_sees_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    // 23 levels (a nesting cost of 94, the limit is 96) are typed and compile; 100 once
    // failed rustc with E0275 ("overflow evaluating the requirement"), naming no tool.
    let deepest = nested_arrays(23);
    let too_deep = nested_arrays(100);
    let fixture = serde_json::json!({"tools": [
        {"name": "deepest", "inputSchema": deepest, "outputSchema": deepest},
        {"name": "too_deep", "inputSchema": too_deep, "outputSchema": too_deep},
    ]});
    std::fs::write(dir.path().join("nest.json"), fixture.to_string()).expect("write fixture");
    let (code, stdout, text) = verify(&["--deep", "--strict"], dir.path());
    assert_eq!(code, Some(0), "{text}");
    assert!(!text.contains("E0275"), "{text}");
    let lines: Vec<&str> = stdout.lines().collect();
    // The untyped tool carries every value unchanged: checked, not skipped.
    assert!(
        lines.ends_with(&[
            "2 tools: 1 typed, 1 fallback, 0 errors",
            "round-trip: 2 tools, 2 passed, 0 failed, 0 skipped",
        ]),
        "{text}"
    );
    // v: optional and nullable (3), then each nullable list 4: the 25th step passes 96.
    let path = format!("/properties/v{}", "/items".repeat(24));
    let limit = format!("the schema nests deeper than Rust types can (at {path}):");
    assert!(
        text.contains(&format!("too_deep: arguments untyped: {limit}")),
        "{text}"
    );
    assert!(text.contains(&format!("output untyped: {limit}")), "{text}");
}

/// Resource templates: each generated `Args` filled with values that need encoding (and
/// optional ones left out) makes the URI RFC 6570 expansion makes; a keyword variable and
/// a camel-case one go through their renamed fields; the template the generator cannot
/// expand (an explode modifier) is not counted.
#[test]
fn deep_verify_checks_the_uris_of_resource_templates() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fixture = serde_json::json!({
        "tools": [{"name": "noop", "inputSchema": {"type": "object"}}],
        "resourceTemplates": [
            {"name": "file", "uriTemplate": "repo://{owner}/{repo}/files{/dir}{+path}{#fragment}"},
            {"name": "search", "uriTemplate": "repo://search{?q,type,pageSize}{&sort}"},
            {"name": "matrix", "uriTemplate": "repo://m{;x,y}{.ext}"},
            {"name": "exploded", "uriTemplate": "repo://e{/list*}"}
        ]
    });
    std::fs::write(dir.path().join("repo.json"), fixture.to_string()).expect("write fixture");
    let (code, stdout, text) = verify(&["--deep", "--strict"], dir.path());
    assert_eq!(code, Some(0), "{text}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines.ends_with(&[
            "1 tools: 1 typed, 0 fallback, 0 errors",
            "round-trip: 1 tools, 1 passed, 0 failed, 0 skipped",
            "round-trip: 3 resource templates, 3 passed, 0 failed",
        ]),
        "{text}"
    );
}
