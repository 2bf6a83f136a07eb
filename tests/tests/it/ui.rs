//! Every trybuild case, in one `TestCases` run (one build of its dependencies, one project):
//!
//! - **UI** (`ui/*.rs`): each user mistake is a compile error that points at the user's
//!   code; the generated `Tools`/`Fake` items compile and run for each tool shape
//!   (`ui/pass/*.rs`).
//! - **Goldens** (`tests/goldens/*.rs`): the generated code committed under
//!   `mcp-codegen/tests/goldens/` compiles in a crate that uses `mcp-bindgen`, without warnings
//!   (`#![deny(warnings)]`), and the argument values built with it validate against the
//!   tools' original schemas (draft 2020-12 and draft-07). Each file `include!`s one golden
//!   and round-trips sample arguments in `main`; compile-only API checks sit in never-called
//!   functions. The GitHub golden (117 tools) is among them.
//! - **The property sample** (`ui/property/sampled.rs`): `mcp_tools!` over the random
//!   fixtures drawn by `mcp-codegen/tests/it/property.rs` (fixed seed, committed as
//!   `ui/fixtures/sample_*.json`), round-tripping sample instances through every generated
//!   argument and result type.
//!
//! The macro reads its fixtures from `ui/fixtures` (`MCP_FIXTURES_DIR`). The variable reaches
//! trybuild's builds through a cargo configuration file in trybuild's project directory
//! (`[env]`), not through this process's environment, which the other tests of this binary
//! share. Regenerate the `.stderr` files with
//! `TRYBUILD=overwrite cargo test -p mcp-bindgen-tests --test it ui::`.

use std::path::{Path, PathBuf};

/// trybuild's project directory for this package: `<target>/tests/trybuild/<package>`.
fn trybuild_project() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::common::root().join("target"));
    target
        .join("tests")
        .join("trybuild")
        .join(env!("CARGO_PKG_NAME"))
}

/// Writes `<project>/.cargo/config.toml` setting `MCP_FIXTURES_DIR` for every build cargo
/// runs there (cargo reads it beside the workspace's own `.cargo/config.toml`).
fn fixtures_dir_for_trybuild(fixtures: &Path) {
    let config = trybuild_project().join(".cargo");
    std::fs::create_dir_all(&config).expect("create trybuild's .cargo directory");
    // A TOML basic string: the path's backslashes and quotes escaped.
    let value = fixtures
        .display()
        .to_string()
        .replace('\\', "\\\\")
        .replace('"', "\\\"");
    std::fs::write(
        config.join("config.toml"),
        format!(
            "# Written by tests/tests/it/ui.rs: where mcp_tools! finds the UI fixtures.\n\
             [env]\nMCP_FIXTURES_DIR = {{ value = \"{value}\", force = true }}\n"
        ),
    )
    .expect("write trybuild's cargo configuration");
}

#[test]
fn ui_goldens_and_the_property_sample() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    fixtures_dir_for_trybuild(&manifest.join("ui/fixtures"));
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
    // What must compile (and run): the generated fakes, one file per tool shape.
    t.pass("ui/pass/*.rs");
    t.pass("tests/goldens/*.rs");
    t.pass("ui/property/sampled.rs");
}
