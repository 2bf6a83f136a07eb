//! Editing a fixture rebuilds the crate that uses it: `mcp_tools!` emits `include_bytes!`
//! for the fixture, so cargo tracks the file. The macro's expansion cache answers a rebuild
//! that changed nothing it reads, and never one whose fixture changed.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("parent")
        .to_path_buf()
}

fn run(cmd: &mut Command) -> String {
    run_with_log(cmd).0
}

/// stdout, and stderr (where `MCP_BINDGEN_TIMINGS=1` has the macro report its expansion).
fn run_with_log(cmd: &mut Command) -> (String, String) {
    let out = cmd.output().expect("spawn");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{cmd:?} failed:\n{stdout}{stderr}");
    (stdout, stderr)
}

/// Whether the build log's `mcp_tools!` expansion came from the cache (`None`: no expansion).
fn cached(log: &str) -> Option<bool> {
    log.lines()
        .find(|l| l.contains("mcp_tools!(\"shop\"): expanded in "))
        .map(|l| l.ends_with(" (cached)"))
}

#[test]
fn editing_a_fixture_rebuilds_the_user_crate() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let dir = scratch.path();
    std::fs::create_dir_all(dir.join("src")).expect("src");
    std::fs::create_dir_all(dir.join("fixtures")).expect("fixtures");
    let runtime = root().join("runtime");
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"scratch-user\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\nmcp-bindgen = {{ path = {:?} }}\n\n[workspace]\n",
            runtime.display().to_string()
        ),
    )
    .expect("manifest");
    // Same dependency versions as the workspace, no registry access needed.
    std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).expect("lock");
    std::fs::write(
        dir.join("src/main.rs"),
        "mcp_bindgen::mcp_tools!(\"shop\");\nfn main() { let names: Vec<&str> = shop::TYPED_TOOLS.iter().map(|t| t.name).collect(); println!(\"{}\", names.join(\",\")); }\n",
    )
    .expect("main");
    let fixture = |tools: &[&str]| {
        let tools: Vec<String> = tools
            .iter()
            .map(|t| format!("{{\"name\":\"{t}\",\"inputSchema\":{{\"type\":\"object\"}}}}"))
            .collect();
        std::fs::write(
            dir.join("fixtures/shop.json"),
            format!("{{\"tools\":[{}]}}", tools.join(",")),
        )
        .expect("fixture");
    };
    // Shared with the other scratch crates of the tests (`stdio_only.rs`, `user_project.rs`),
    // without debug info (disk is what CI runs out of), its dependencies built by `cargo
    // test` where they have the same features.
    let cargo = || {
        let mut c = Command::new(env!("CARGO"));
        crate::common::scratch_cargo(&mut c)
            .args(["run", "--quiet", "--offline"])
            .current_dir(dir)
            .env_remove("MCP_FIXTURES_DIR");
        c
    };
    fixture(&["list_orders"]);
    assert_eq!(run(&mut cargo()).trim(), "list_orders");
    fixture(&["list_orders", "place_order"]);
    assert_eq!(
        run(&mut cargo()).trim(),
        "list_orders,place_order",
        "the edited fixture must be picked up without touching the source"
    );

    // A rebuild after an edit of the source: the cache answers, with the same module.
    let timed = || {
        let mut c = cargo();
        c.env("MCP_BINDGEN_TIMINGS", "1")
            .env_remove("MCP_BINDGEN_CACHE");
        c
    };
    let main = dir.join("src/main.rs");
    let source = std::fs::read_to_string(&main).expect("main");
    std::fs::write(&main, format!("{source}// edited\n")).expect("edit");
    let (out, log) = run_with_log(&mut timed());
    assert_eq!(out.trim(), "list_orders,place_order");
    assert_eq!(cached(&log), Some(true), "{log}");
    // Turned off, it generates.
    std::fs::write(&main, format!("{source}// edited twice\n")).expect("edit");
    let (out, log) = run_with_log(timed().env("MCP_BINDGEN_CACHE", "0"));
    assert_eq!(out.trim(), "list_orders,place_order");
    assert_eq!(cached(&log), Some(false), "{log}");
    // Back to the first fixture: generated again (the cache keeps the last one only), not
    // answered by a stale module.
    fixture(&["list_orders"]);
    let (out, log) = run_with_log(&mut timed());
    assert_eq!(out.trim(), "list_orders");
    assert_eq!(cached(&log), Some(false), "{log}");
}
