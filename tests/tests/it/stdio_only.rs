//! A stdio-only program: `mcp-bindgen` with `default-features = false` has no HTTP client in
//! its dependency tree, makes typed calls to the demo server over stdio, and a registry
//! entry with a `url` fails to connect with a message that names the `http` feature.

use crate::common;

use std::process::Command;

#[test]
fn stdio_only_runtime_calls_over_stdio_and_names_the_http_feature() {
    let root = common::root();
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("src")).expect("src");
    std::fs::create_dir_all(dir.join("fixtures")).expect("fixtures");
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"stdio-only\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\nmcp-bindgen = {{ path = {:?}, default-features = false, features = [\"macros\"] }}\ntokio = {{ version = \"1\", features = [\"macros\", \"rt\"] }}\n\n[workspace]\n",
            root.join("runtime").display().to_string()
        ),
    )
    .expect("manifest");
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).expect("lock");
    std::fs::copy(
        root.join("fixtures/demo.json"),
        dir.join("fixtures/demo.json"),
    )
    .expect("fixture");
    std::fs::write(
        dir.join("fixtures/servers.toml"),
        format!(
            "[servers.demo]\ncommand = {:?}\n\n[servers.remote]\nurl = \"http://127.0.0.1:9/mcp\"\n",
            common::demo_server().display().to_string()
        ),
    )
    .expect("registry");
    std::fs::write(
        dir.join("src/main.rs"),
        r#"use mcp_bindgen::{Registry, Session};

mcp_bindgen::mcp_tools!("demo");

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::discover()?;
    let demo = demo::Client::new(Session::connect(registry.get("demo")?).await?);
    let sum = demo.add(demo::add::Args { a: 2.0, b: 40.0 }).await?;
    println!("sum {}", sum.text());
    match Session::connect(registry.get("remote")?).await {
        Ok(_) => println!("remote connected"),
        Err(e) => println!("remote error: {e}"),
    }
    Ok(())
}
"#,
    )
    .expect("main");
    let cargo = |args: &[&str]| {
        let out = common::scratch_cargo(&mut Command::new(env!("CARGO")))
            .args(args)
            .current_dir(dir)
            .env_remove("MCP_FIXTURES_DIR")
            .output()
            .expect("run cargo");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "cargo {args:?} failed:\n{text}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };

    let tree = cargo(&["tree", "--offline", "-e", "normal", "--prefix", "none"]);
    for http in ["reqwest", "hyper", "rustls", "sse-stream"] {
        assert!(
            !tree.lines().any(|l| l.starts_with(&format!("{http} "))),
            "{http} in a stdio-only build:\n{tree}"
        );
    }
    let out = cargo(&["run", "--quiet", "--offline"]);
    assert!(out.contains("sum 42"), "{out}");
    assert!(
        out.contains("remote error:")
            && out.contains("no HTTP transports")
            && out.contains("`http` feature of mcp-bindgen"),
        "{out}"
    );
}
