//! The labelled drift corpus (`tests/drift-corpus/`), through the reviewer's door: the
//! `cargo-mcp-bindgen` binary runs `diff OLD NEW --format json` on every case and must
//! agree with `expected.json` on both axes for every tool — the wire class and the Rust API
//! effect — and list no tool the labels leave out. Each case's `expected.json` says where
//! the change comes from and why each label is right.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The corpus has at least this many cases (the product promise).
const MIN_CASES: usize = 60;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/drift-corpus")
}

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `(class, rust)` per tool.
fn labels(tools: &Value) -> BTreeMap<String, (String, String)> {
    tools
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, t)| {
            let field = |k: &str| t[k].as_str().unwrap_or("(missing)").to_string();
            (name.clone(), (field("class"), field("rust")))
        })
        .collect()
}

#[test]
fn every_labelled_case_is_classified_right_on_both_axes() {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(corpus())
        .expect("the corpus directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected.json").is_file())
        .collect();
    cases.sort();
    assert!(
        cases.len() >= MIN_CASES,
        "{} labelled cases in {}, expected at least {MIN_CASES}",
        cases.len(),
        corpus().display()
    );
    let mut wrong = Vec::new();
    let mut tools = 0;
    for case in &cases {
        let name = case
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let expected = read(&case.join("expected.json"));
        assert!(
            expected["source"].as_str().is_some_and(|s| !s.is_empty()),
            "{name}: expected.json says where the change comes from (`source`)"
        );
        for (tool, t) in expected["tools"].as_object().into_iter().flatten() {
            assert!(
                t["reason"].as_str().is_some_and(|r| r.len() > 10),
                "{name}/{tool}: every label carries its reason"
            );
        }
        let out = Command::new(env!("CARGO_BIN_EXE_cargo-mcp-bindgen"))
            .args(["diff", "old.json", "new.json", "--format", "json"])
            .current_dir(case)
            .output()
            .expect("run cargo-mcp-bindgen");
        let stderr = String::from_utf8_lossy(&out.stderr);
        // Every case changes something: exit 1 under the default `--fail-on`.
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        let got: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{name}: the JSON report does not parse: {e}\n{stderr}"));
        for (tool, report) in got["tools"].as_object().into_iter().flatten() {
            let reasons = report["reasons"].as_array().map_or(0, Vec::len);
            let rust_patch = report["rust"] == "patch";
            assert!(
                reasons > 0 || rust_patch,
                "{name}/{tool}: a changed tool says why: {report}"
            );
        }
        let (want, have) = (labels(&expected["tools"]), labels(&got["tools"]));
        tools += want.len();
        if want != have {
            wrong.push(format!(
                "{name}:\n    expected {want:?}\n    got      {have:?}\n    {}",
                serde_json::to_string(&got["tools"]).unwrap_or_default()
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} cases classified wrong:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
    println!("{} cases, {tools} tools: all classified right", cases.len());
}
