//! A server that changes itself after its snapshot (the demo server's `--rug-pull`):
//! `snapshot --check` and `diff` say what changed, tool by tool, and tell a rename from a
//! removal by the tools' fingerprints.

use std::path::Path;

use crate::common::{Run, demo_server, run_with_registry};

/// The registry of one demo server `demo` started with `args`.
fn registry(args: &[&str]) -> String {
    let args: Vec<String> = args.iter().map(|a| format!("{a:?}")).collect();
    format!(
        "[servers.demo]\ncommand = {:?}\nargs = [{}]\n",
        demo_server().display().to_string(),
        args.join(", ")
    )
}

fn run(dir: &Path, args: &[&str], server_args: &[&str]) -> Run {
    run_with_registry(dir, &registry(server_args), args, &[])
}

#[test]
fn a_renamed_tool_is_reported_as_a_rename_by_snapshot_check_and_diff() {
    let dir = tempfile::tempdir().unwrap();
    let honest = run(dir.path(), &["snapshot", "demo"], &[]);
    assert_eq!(honest.code, Some(0), "{}", honest.text());
    let fixture = std::fs::read_to_string(dir.path().join("demo.json")).unwrap();
    assert!(fixture.contains("\"fingerprints\""), "{fixture}");

    // From its first answer on, the server lists get_weather as forecast.
    let pulled = ["--rug-pull", "rename", "--rug-pull-after", "0"];
    let check = run(dir.path(), &["snapshot", "--check", "demo"], &pulled);
    assert_eq!(check.code, Some(1), "{}", check.text());
    let text = check.text();
    assert!(
        text.contains(
            "get_weather: BREAKING, Rust major — tool renamed to \"forecast\" (removed; \"forecast\" is new with the same input and output schemas)"
        ),
        "{text}"
    );
    assert!(
        text.contains("forecast: ADDITIVE, Rust minor — new tool: \"get_weather\" renamed"),
        "{text}"
    );

    // `diff` of the committed fixture and the renamed snapshot says the same.
    let old = dir.path().join("old.json");
    std::fs::copy(dir.path().join("demo.json"), &old).unwrap();
    let again = run(dir.path(), &["snapshot", "demo"], &pulled);
    assert_eq!(again.code, Some(0), "{}", again.text());
    let new = dir.path().join("demo.json");
    let diff = run(
        dir.path(),
        &[
            "diff",
            &old.display().to_string(),
            &new.display().to_string(),
        ],
        &[],
    );
    assert_eq!(diff.code, Some(1), "{}", diff.text());
    assert!(
        diff.text().contains("get_weather: BREAKING")
            && diff.text().contains("tool renamed to \"forecast\""),
        "{}",
        diff.text()
    );
}

#[test]
fn a_poisoned_description_and_a_new_tool_are_named_by_snapshot_check() {
    let dir = tempfile::tempdir().unwrap();
    let honest = run(dir.path(), &["snapshot", "demo"], &[]);
    assert_eq!(honest.code, Some(0), "{}", honest.text());
    let check = run(
        dir.path(),
        &["snapshot", "--check", "demo"],
        &["--rug-pull", "poison", "--rug-pull-after", "0"],
    );
    assert_eq!(check.code, Some(1), "{}", check.text());
    let text = check.text();
    for needle in [
        "add: BREAKING, Rust major — new required argument \"carry\"",
        "echo: DOCS, Rust patch — description changed",
        "exfil: ADDITIVE, Rust minor — new tool",
        "ignore previous instructions",
    ] {
        assert!(text.contains(needle), "{needle:?} missing in:\n{text}");
    }
}
