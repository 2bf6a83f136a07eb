//! The goldens of `mcp-bindgen-codegen` (generated code, committed under
//! `mcp-codegen/tests/goldens/`) must compile in a crate that uses `mcp-bindgen`, without
//! warnings (`#![deny(warnings)]`), and the argument values built with them must validate
//! against the tools' original schemas (draft 2020-12 and draft-07). Each file in
//! `tests/goldens/` `include!`s one golden and round-trips sample arguments in `main`;
//! trybuild compiles and runs it. Compile-only API checks sit in never-called functions.
//!
//! The GitHub golden is compiled as well (117 tools).
//!
//! The same build compiles `ui/property/sampled.rs`: `mcp_tools!` over the random fixtures
//! sampled by `mcp-codegen/tests/property.rs` (fixed seed, committed in
//! `ui/property/fixtures/`), round-tripping sample instances through every generated
//! argument and result type.

#[test]
fn goldens_compile_and_round_trip() {
    let sampled = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/property/fixtures");
    // Read by the macro at expansion time in trybuild's build (the goldens use `include!`
    // and do not look fixtures up).
    // SAFETY: set before trybuild starts any thread of its own; this test is the only one
    // in its binary.
    unsafe { std::env::set_var("MCP_FIXTURES_DIR", &sampled) };
    let t = trybuild::TestCases::new();
    t.pass("tests/goldens/*.rs");
    t.pass("ui/property/sampled.rs");
}
