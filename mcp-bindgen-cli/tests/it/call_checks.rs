//! `call` checks the arguments against the tool's input schema before anything is sent: the
//! fixture's (the server is not even started), else the live one; `--no-validate` sends them
//! anyway.

use crate::common::{demo_server, run_with_registry};

#[test]
fn a_wrong_argument_fails_against_the_fixture_before_the_server_is_started() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fixture = std::fs::read_to_string(crate::common::root().join("fixtures/demo.json"))
        .expect("fixtures/demo.json");
    std::fs::write(dir.path().join("demo.json"), fixture).expect("write fixture");
    // A command that cannot start: only the check can answer.
    let toml = "[servers.demo]\ncommand = \"/nonexistent/mcp-bindgen-never-started\"\n";
    let run = run_with_registry(
        dir.path(),
        toml,
        &["call", "demo", "add", r#"{"a": "two"}"#],
        &[],
    );
    assert_eq!(run.code, Some(1), "{}", run.text());
    assert!(
        run.stderr
            .contains("invalid arguments for tool \"add\" of server \"demo\" (checked against ")
            && run.stderr.contains("demo.json; nothing was sent)"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("/a"),
        "names the argument: {}",
        run.stderr
    );
    assert!(
        run.stderr.contains("/b") || run.stderr.contains("\"b\""),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--no-validate"), "{}", run.stderr);
    assert!(
        !run.stderr.contains("never-started"),
        "not started: {}",
        run.stderr
    );
    // With --no-validate the call goes out: the server is started (and here cannot be).
    let run = run_with_registry(
        dir.path(),
        toml,
        &["call", "demo", "add", r#"{"a": "two"}"#, "--no-validate"],
        &[],
    );
    assert_eq!(run.code, Some(1), "{}", run.text());
    assert!(!run.stderr.contains("invalid arguments"), "{}", run.stderr);
    assert!(run.stderr.contains("never-started"), "{}", run.stderr);
}

#[test]
fn without_a_fixture_the_live_schema_checks_and_a_good_call_goes_through() {
    let dir = tempfile::tempdir().expect("tempdir");
    let toml = format!(
        "[servers.demo]\ncommand = {:?}\n",
        demo_server().display().to_string()
    );
    let run = run_with_registry(
        dir.path(),
        &toml,
        &["call", "demo", "echo", r#"{"message": "hi", "repeat": -1}"#],
        &[],
    );
    assert_eq!(run.code, Some(1), "{}", run.text());
    assert!(
        run.stderr.contains("invalid arguments for tool \"echo\" of server \"demo\" (checked against its live tools/list; nothing was sent)")
            && run.stderr.contains("/repeat"),
        "{}",
        run.stderr
    );
    let run = run_with_registry(
        dir.path(),
        &toml,
        &["call", "demo", "echo", r#"{"message": "hi", "repeat": 2}"#],
        &[],
    );
    assert_eq!(run.code, Some(0), "{}", run.text());
    assert_eq!(run.stdout.trim(), "hi hi");
}
