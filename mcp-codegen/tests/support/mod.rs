//! Shared by the tests that read GitHub's official MCP server (117 tools), which lives in the
//! shared folder beside the repository, not in it.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Where the corpus is expected.
pub fn github_corpus_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/github-official/tools.json")
}

/// The corpus's tools array; `None` (with a line on the terminal that says so) when it is
/// missing. Under `CI=true` a missing corpus fails the test: CI must check it.
pub fn github_corpus() -> Option<serde_json::Value> {
    let path = github_corpus_path();
    match std::fs::read(&path) {
        Ok(bytes) => Some(serde_json::from_slice(&bytes).expect("the corpus is JSON")),
        Err(e) => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "{} is missing ({e}); CI=true: the GitHub corpus must be checked",
                path.display()
            );
            // Straight to the terminal: the test harness captures `println!` of passing
            // tests, and a skip must be seen.
            let _ = writeln!(
                std::io::stderr(),
                "skipped: {} not found ({e})",
                path.display()
            );
            None
        }
    }
}
