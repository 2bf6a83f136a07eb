//! The goldens of `mcp-codegen` (generated code, committed under
//! `mcp-codegen/tests/goldens/`) must compile in a crate that uses `mcp-runtime`, without
//! warnings (`#![deny(warnings)]`), and the argument values built with them must validate
//! against the tools' original schemas (draft 2020-12 and draft-07). Each file in
//! `tests/goldens/` `include!`s one golden and round-trips sample arguments in `main`;
//! trybuild compiles and runs it. Compile-only API checks sit in never-called functions.
//!
//! The GitHub golden is compiled as well (117 tools) when present.

#[test]
fn goldens_compile_and_round_trip() {
    let t = trybuild::TestCases::new();
    t.pass("tests/goldens/*.rs");
}
