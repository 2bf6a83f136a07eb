//! Golden files: the generated code (prettyplease) for every hand-made edge-case fixture in
//! `tests/fixtures/` (one per known schema pitfall) and for the GitHub
//! corpus, compared with `tests/goldens/<name>.rs`. `UPDATE_GOLDENS=1 cargo test -p
//! mcp-bindgen-codegen --test it goldens::` rewrites them. The goldens are compiled (and round-tripped)
//! by `tests/tests/it/ui.rs` in the `mcp-bindgen-tests` package.
//!
//! A fixture may have a sidecar `<name>.options.json` with `only`, `skip`, `rename`, `types`.

use std::path::{Path, PathBuf};

use crate::support;

use mcp_bindgen_codegen::{Options, expand_to_string, generate};
use mcp_bindgen_core::fixture::Fixture;

fn dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(sub)
}

fn options_for(fixture: &Path) -> Options {
    let sidecar = fixture.with_extension("options.json");
    let Ok(text) = std::fs::read_to_string(&sidecar) else {
        return Options::default();
    };
    let v: serde_json::Value = serde_json::from_str(&text).expect("options JSON");
    let mut o = Options::default();
    if let Some(only) = v.get("only").and_then(|x| x.as_array()) {
        o = o.with_only(only.iter().filter_map(|s| s.as_str()));
    }
    if let Some(skip) = v.get("skip").and_then(|x| x.as_array()) {
        o = o.with_skip(skip.iter().filter_map(|s| s.as_str()));
    }
    for (key, setter) in [("rename", 0), ("types", 1)] {
        if let Some(map) = v.get(key).and_then(|x| x.as_object()) {
            for (k, val) in map {
                let val = val.as_str().expect("string value");
                o = if setter == 0 {
                    o.with_rename(k, val)
                } else {
                    o.with_type(k, val)
                };
            }
        }
    }
    o
}

/// Compares `actual` with the golden file, or rewrites it under `UPDATE_GOLDENS=1`.
fn assert_golden(name: &str, actual: &str) {
    let path = dir("goldens").join(format!("{name}.rs"));
    if std::env::var_os("UPDATE_GOLDENS").is_some() {
        std::fs::write(&path, actual).expect("write golden");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if expected != actual {
        let diff = similar::TextDiff::from_lines(expected.as_str(), actual);
        panic!(
            "golden {} differs from the generated code; run `UPDATE_GOLDENS=1 cargo test -p mcp-bindgen-codegen --test it goldens::` and review the diff:\n{}",
            path.display(),
            diff.unified_diff()
                .context_radius(3)
                .header("golden", "generated")
        );
    }
}

/// Generated code may name only `::mcp_bindgen`, `::std` and `::core` crates.
fn assert_self_contained(name: &str, code: &str) {
    for needle in [
        "::serde::",
        "::serde_json::",
        "::chrono",
        "::uuid",
        "::regress",
    ] {
        for (i, _) in code.match_indices(needle) {
            let before = &code[..i];
            assert!(
                before.ends_with("__private"),
                "golden {name}: `{needle}` outside ::mcp_bindgen::__private at byte {i}"
            );
        }
    }
}

fn fixtures() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir("fixtures"))
        .expect("tests/fixtures")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && !p.to_string_lossy().ends_with(".options.json")
        })
        .collect();
    out.sort();
    out
}

#[test]
fn edge_case_goldens() {
    let files = fixtures();
    assert!(files.len() >= 7, "edge-case fixtures present");
    for path in files {
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("name")
            .to_string();
        let fixture = Fixture::load(&path).expect("fixture loads");
        let options = options_for(&path);
        let generated = generate(&fixture, &name, &options).expect("generates");
        println!(
            "{name}: {} tools, {} typed, {} fallback",
            generated.stats.tools, generated.stats.typed, generated.stats.fallback
        );
        for w in &generated.warnings {
            println!("  {w}");
        }
        let code = expand_to_string(&fixture, &name, &options).expect("formats");
        assert_self_contained(&name, &code);
        assert_golden(&name, &code);
    }
}

#[test]
fn github_golden() {
    let tools = support::github_corpus();
    let doc = serde_json::json!({ "server": { "alias": "github" }, "tools": tools });
    let fixture =
        Fixture::from_slice(doc.to_string().as_bytes(), Path::new("github.json")).expect("fixture");
    let code = expand_to_string(&fixture, "github", &Options::default()).expect("generates");
    assert_self_contained("github", &code);
    assert_golden("github", &code);
}

/// Goldens of the committed fixtures (`fixtures/*.json` of the workspace), under
/// `tests/goldens/fixtures/`; re-snapshotting a server shows up here as a reviewable diff.
#[test]
fn committed_fixture_goldens() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let Ok(entries) = std::fs::read_dir(&root) else {
        println!("skipped: no {}", root.display());
        return;
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    std::fs::create_dir_all(dir("goldens").join("fixtures")).expect("goldens/fixtures");
    for path in files {
        let Ok(fixture) = Fixture::load(&path) else {
            continue;
        };
        let alias = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("name")
            .to_string();
        let code = expand_to_string(&fixture, &alias, &Options::default()).expect("generates");
        assert_self_contained(&alias, &code);
        assert_golden(&format!("fixtures/{alias}"), &code);
    }
}

/// Every edge case's expected behaviour, checked on the generated code.
#[test]
fn edge_case_expectations() {
    let load = |n: &str| {
        let p = dir("fixtures").join(format!("{n}.json"));
        let f = Fixture::load(&p).expect("fixture");
        let g = generate(&f, n, &options_for(&p)).expect("generates");
        let code =
            mcp_bindgen_codegen::format_tokens(n, g.tokens().expect("lexes")).expect("formats");
        (g, code)
    };

    let (g, code) = load("fallbacks");
    assert_eq!(g.stats.fallback, 3, "{:?}", g.tools);
    assert!(code.contains("pub type Args = ::mcp_bindgen::__private::serde_json::Value;"));
    assert!(
        g.warnings
            .iter()
            .any(|w| w.tool == "remote_ref" && w.message.contains("never fetches"))
    );
    assert!(
        g.warnings
            .iter()
            .any(|w| w.tool == "dangling" && w.message.contains("does not resolve"))
    );

    let (g, code) = load("outputs");
    // `bare` (`inputSchema: {}`) declares nothing: free-form arguments, not none.
    assert_eq!(g.stats.no_args, 2);
    assert!(
        g.warnings
            .iter()
            .any(|w| w.tool == "bare" && w.message.contains("free-form JSON object"))
    );
    assert_eq!(g.stats.typed_outputs, 2);
    assert!(code.contains("pub fn ping(&self) -> CallFuture"));
    assert!(!code.contains("deny_unknown_fields"));
    assert!(
        g.warnings.iter().any(|w| w.tool == "remote_output"
            && w.kind == mcp_bindgen_codegen::WarningKind::OutputFallback)
    );

    let (g, code) = load("enums");
    assert_eq!(g.stats.fallback, 0);
    assert!(code.contains("ReactionsPlus1") && code.contains("\"reactions-+1\""));
    assert!(code.contains("ReactionsMinus1") && code.contains("\"reactions--1\""));

    let (_, code) = load("names");
    for needle in [
        "pub fn create_issue(",
        "pub fn list_repos(",
        "pub fn r#type(",
        "pub fn new_tool(",
        "pub type_: ",
        "pub foo_bar_camel: ",
        "foo_bar_camel = \"fooBar\"",
        "u32",
    ] {
        assert!(code.contains(needle), "names golden lacks {needle}");
    }

    let (_, code) = load("nullable");
    assert!(
        code.contains("pub milestone: Option<Option<u64>>"),
        "absent ≠ null"
    );
    assert!(code.contains("pub must_send: Option<String>"));
    assert!(code.contains("pub labels: Option<Vec<String>>"));

    let (_, code) = load("constraints");
    assert!(!code.contains("NonZero"));
    assert!(code.contains("pub page: Option<u64>"));
    assert!(code.contains("pub when: String"));
}
