//! Shared by the tests that read GitHub's official MCP server (117 tools,
//! `tests/corpus/github-official`, MIT: its `LICENSE` is beside it).

use std::path::{Path, PathBuf};

/// Where the corpus is.
pub fn github_corpus_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/github-official/tools.json")
}

/// The corpus's tools array.
pub fn github_corpus() -> serde_json::Value {
    let path = github_corpus_path();
    let bytes = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{} is part of the repository: {e}", path.display()));
    serde_json::from_slice(&bytes).expect("the corpus is JSON")
}
