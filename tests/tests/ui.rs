//! UI tests: each user mistake is a compile error that points at the user's code; the
//! generated `Tools`/`Fake` items compile and run for each tool shape (`ui/pass`).
//! Regenerate the `.stderr` files with `TRYBUILD=overwrite cargo test -p mcp-bindgen-tests --test ui`.

#[test]
fn ui() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/fixtures");
    // Read by the macro at expansion time in trybuild's build.
    // SAFETY: set before trybuild starts any thread of its own; this test is the only one
    // in its binary.
    unsafe { std::env::set_var("MCP_FIXTURES_DIR", &fixtures) };
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
    // What must compile (and run): the generated fakes, one file per tool shape.
    t.pass("ui/pass/*.rs");
}
