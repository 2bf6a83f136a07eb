//! Helpers shared by the CLI's integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask has a parent")
        .to_path_buf()
}

/// The demo server `cargo test --workspace` builds (or `$MCP_DEMO_SERVER`).
pub fn demo_server() -> PathBuf {
    if let Some(p) = std::env::var_os("MCP_DEMO_SERVER") {
        return PathBuf::from(p);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    let path = target.join("debug").join("mcp-demo-server");
    assert!(
        path.exists(),
        "{} is missing: run `cargo build -p mcp-bindgen-tests` or `cargo xtask test`",
        path.display()
    );
    path
}
