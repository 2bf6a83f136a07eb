//! A "did you mean" for every name a user types, through the built binary: commands,
//! options, formats and aliases (of the registry and of the fixtures).

use crate::common::{NEVER_STARTED, memory_fixture_dir, run_with_registry};

#[test]
fn a_misspelled_command_prints_the_suggestion_and_one_usage_line() {
    let dir = memory_fixture_dir();
    let run = run_with_registry(dir.path(), NEVER_STARTED, &["snapshto"], &[]);
    assert_eq!(run.code, Some(2), "{}", run.text());
    let lines: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(lines.len(), 2, "{}", run.stderr);
    assert!(lines[0].contains("unknown command `snapshto` (did you mean \"snapshot\"?)"));
    assert!(
        lines[1].starts_with("usage: cargo mcp-bindgen <command>"),
        "{}",
        lines[1]
    );
}

#[test]
fn misspelled_aliases_formats_and_options_get_a_suggestion() {
    let dir = memory_fixture_dir();
    for (args, want) in [
        (
            &["expand", "memroy"][..],
            "no fixture for server \"memroy\" at ",
        ),
        (
            &["expand", "memroy"][..],
            "did you mean `cargo mcp-bindgen expand memory`?",
        ),
        (
            &["call", "memroy", "read_graph"][..],
            "(did you mean \"memory\"?)",
        ),
        (&["snapshot", "memroy"][..], "(did you mean \"memory\"?)"),
        (
            &["tools", "--format", "anthropik"][..],
            "(did you mean \"anthropic\"?)",
        ),
        (&["tools", "--format", "openai-mpc"][..], "\"openai-mcp\""),
        (
            &["tools", "--fromat", "openai"][..],
            "(did you mean \"--format\"?)",
        ),
        (
            &["call", "memory", "read_graph", "--no-valdate"][..],
            "(did you mean \"--no-validate\"?)",
        ),
    ] {
        let run = run_with_registry(dir.path(), NEVER_STARTED, args, &[]);
        assert_ne!(run.code, Some(0), "{args:?}: {}", run.text());
        assert!(run.stderr.contains(want), "{args:?}: {}", run.stderr);
    }
    // No command that cannot work: `snapshot memroy` is not offered for a misspelling.
    let run = run_with_registry(dir.path(), NEVER_STARTED, &["expand", "memroy"], &[]);
    assert!(!run.stderr.contains("snapshot memroy"), "{}", run.stderr);
}
