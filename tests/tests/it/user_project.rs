//! A user's day, outside this repository: a new workspace in a temporary directory with an
//! app crate and a 3-line xtask on `mcp-bindgen-cli` (path dependencies on this checkout's
//! crates standing in for crates.io), and a registry for the real memory server (npm).
//!
//! Through the 3-line xtask, then again through the installed `cargo mcp-bindgen`:
//! `snapshot` writes the user's `fixtures/memory.json`; the app builds with
//! `mcp_tools!("memory")` and makes typed calls; `verify` counts the user's 9 tools;
//! `snapshot --check` exits 0, and 1 once a tool is removed from the fixture; `call memory
//! read_graph` prints the graph; `cargo doc` documents the bindings without a warning.
//! Every command runs from the user's directory (or below it), never from this repository.
//!
//! The user workspace puts its binaries and docs in `target/tests/scratch` and its
//! intermediate artifacts in this workspace's `target/` (cargo's build directory, without
//! debug info, [`common::scratch_cargo`]): the dependencies `cargo test` built with the
//! same features are not built again. The installed binary is built in this workspace's
//! `target/` with `--debug`, which reuses what `cargo xtask` already compiled.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The memory server's entry script (installed by `cargo xtask install-servers`).
fn memory_js() -> PathBuf {
    let _ = common::installed("memory");
    common::servers_dir()
        .join("memory/node_modules/@modelcontextprotocol/server-memory/dist/index.js")
}

/// A user's workspace: `Cargo.toml` (members `app`, and `xtask` when `with_xtask`),
/// `fixtures/servers.toml` with the memory server, the app's typed program.
fn user_workspace(dir: &Path, with_xtask: bool) {
    let root = common::root();
    let write = |path: &str, text: String| {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
    };
    let members = if with_xtask {
        r#"["app", "xtask"]"#
    } else {
        r#"["app"]"#
    };
    write(
        "Cargo.toml",
        format!("[workspace]\nresolver = \"3\"\nmembers = {members}\n"),
    );
    // Same dependency versions as this checkout: no resolution drift between runs.
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).expect("lock");
    if with_xtask {
        write(
            ".cargo/config.toml",
            "[alias]\nxtask = \"run --package xtask --\"\n".into(),
        );
        write(
            "xtask/Cargo.toml",
            format!(
                "[package]\nname = \"xtask\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\nmcp-bindgen-cli = {{ path = {:?}, features = [\"verify-deep\", \"tokens\"] }}\n",
                root.join("mcp-bindgen-cli").display().to_string()
            ),
        );
        // The 3 lines.
        write(
            "xtask/src/main.rs",
            "fn main() -> std::process::ExitCode {\n    mcp_bindgen_cli::main()\n}\n".into(),
        );
    }
    write(
        "app/Cargo.toml",
        format!(
            "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\nmcp-bindgen = {{ path = {:?} }}\ntokio = {{ version = \"1\", features = [\"macros\", \"rt-multi-thread\"] }}\n",
            root.join("runtime").display().to_string()
        ),
    );
    write(
        "app/src/main.rs",
        r#"use mcp_bindgen::{Registry, Session};

mcp_bindgen::mcp_tools!("memory");

#[tokio::main]
async fn main() -> Result<(), mcp_bindgen::Report> {
    let registry = Registry::discover()?;
    let memory = memory::Client::new(Session::connect(registry.get("memory")?).await?);
    memory
        .create_entities(memory::create_entities::Args {
            entities: vec![memory::create_entities::ArgsEntitiesItem {
                name: "Ada".into(),
                entity_type: "person".into(),
                observations: vec!["wrote the first program".into()],
            }],
        })
        .await?;
    let graph = memory.read_graph().await?;
    for e in &graph.entities {
        println!("entity {} ({}): {}", e.name, e.entity_type, e.observations.join("; "));
    }
    Ok(())
}
"#
        .into(),
    );
    write(
        "fixtures/servers.toml",
        format!(
            "[servers.memory]\ncommand = \"node\"\nargs = [{:?}]\nenv = {{ MEMORY_FILE_PATH = {:?} }}\n",
            memory_js().display().to_string(),
            dir.join("memory.jsonl").display().to_string()
        ),
    );
}

/// `cargo <args>` in `dir` with the user workspace's target directory and none of this
/// repository's variables.
fn cargo(dir: &Path, args: &[&str], path_prefix: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO"));
    common::scratch_cargo(&mut cmd)
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("MCP_FIXTURES_DIR")
        .env_remove("MCP_SERVERS_DIR")
        .env_remove("MCP_DEMO_SERVER");
    if let Some(bin) = path_prefix {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let joined = std::env::join_paths(
            std::iter::once(bin.to_path_buf()).chain(std::env::split_paths(&path)),
        )
        .expect("PATH");
        cmd.env("PATH", joined);
    }
    cmd.output().expect("run cargo")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn ok(what: &str, out: Output) -> String {
    let all = text(&out);
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{all}",
        out.status
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The day: the same steps whichever way the commands are run (`runner` is `["xtask"]` or
/// `["mcp-bindgen"]`, i.e. `cargo xtask …` or `cargo mcp-bindgen …`).
fn users_day(dir: &Path, runner: &str, path_prefix: Option<&Path>) {
    let run = |args: &[&str], from: &Path| {
        let mut all = vec![runner];
        all.extend_from_slice(args);
        cargo(from, &all, path_prefix)
    };
    let shown = format!("cargo {runner}");

    // 1. snapshot writes the user's fixture, and says where.
    let out = ok(&format!("{shown} snapshot"), run(&["snapshot"], dir));
    let fixture = dir.join("fixtures/memory.json");
    assert!(fixture.is_file(), "no {}:\n{out}", fixture.display());
    assert!(out.contains("written"), "{out}");
    assert!(out.contains("fixtures/memory.json"), "{out}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&fixture).expect("fixture")).expect("json");
    assert_eq!(doc["tools"].as_array().map(Vec::len), Some(9), "{doc}");

    // 2. The app builds with mcp_tools!("memory") and makes typed calls, run from app/.
    let out = ok(
        "cargo run -p app",
        cargo(&dir.join("app"), &["run", "--quiet", "-p", "app"], None),
    );
    assert!(
        out.contains("entity Ada (person): wrote the first program"),
        "{out}"
    );

    // 3. verify counts the user's tools, not this repository's, from a subdirectory.
    let out = ok(
        &format!("{shown} verify"),
        run(&["verify"], &dir.join("app")),
    );
    assert!(
        out.contains("9 tools: 9 typed, 0 fallback, 0 errors"),
        "{out}"
    );

    // 4. The drift gate: clean, then a tool removed from the committed fixture.
    let out = run(&["snapshot", "--check"], dir);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("unchanged"), "{}", text(&out));
    let committed = std::fs::read_to_string(&fixture).expect("fixture");
    let mut edited = doc.clone();
    edited["tools"]
        .as_array_mut()
        .expect("tools")
        .retain(|t| t["name"] != "delete_relations");
    std::fs::write(
        &fixture,
        serde_json::to_string_pretty(&edited).expect("encode"),
    )
    .expect("write");
    let out = run(&["snapshot", "--check"], dir);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("delete_relations: ADDITIVE, Rust minor — new tool"),
        "{}",
        text(&out)
    );
    assert_eq!(
        std::fs::read_to_string(&fixture).expect("fixture"),
        serde_json::to_string_pretty(&edited).expect("encode"),
        "--check must not write"
    );
    std::fs::write(&fixture, committed).expect("restore");

    // 5. call prints the graph the app wrote.
    let out = ok(
        &format!("{shown} call memory read_graph"),
        run(&["call", "memory", "read_graph"], dir),
    );
    let graph: serde_json::Value = serde_json::from_str(&out).expect("the graph is JSON text");
    assert_eq!(graph["entities"][0]["name"], "Ada", "{out}");
}

#[test]
fn users_workspace_with_a_three_line_xtask() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    assert!(
        !dir.starts_with(common::root()),
        "must be outside the repository"
    );
    user_workspace(dir, true);
    users_day(dir, "xtask", None);

    // "Browse your bindings with cargo doc": the generated module documents cleanly.
    let out = cargo(dir, &["doc", "--no-deps", "-p", "app"], None);
    let all = text(&out);
    assert!(out.status.success(), "cargo doc failed:\n{all}");
    assert!(!all.contains("warning"), "cargo doc warned:\n{all}");
    let page = common::target_dir().join("tests/scratch/doc/app/memory/index.html");
    let html = std::fs::read_to_string(&page).expect("the module `memory` is documented");
    assert!(html.contains("create_entities"), "{}", page.display());

    // Inside a macro's expansion rustdoc reports nothing, so the generated code itself goes
    // into the crate, as `expand` prints it, and is documented with `-D warnings` (broken
    // intra-doc links, unescaped brackets and HTML, bare URLs): the user's fixture and every
    // fixture of this repository, their servers' descriptions as written.
    let mut generated = ok(
        "cargo xtask expand memory",
        cargo(dir, &["xtask", "expand", "memory"], None),
    );
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(common::root().join("fixtures"))
        .expect("fixtures/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    fixtures.sort();
    assert!(fixtures.len() >= 9, "{fixtures:?}");
    let mut modules = 1;
    for fixture in &fixtures {
        let path = fixture.display().to_string();
        let code = ok(
            &format!("cargo xtask expand {path}"),
            cargo(dir, &["xtask", "expand", &path], None),
        );
        // Both `memory` fixtures: the repository's in a module of its own.
        generated += &if fixture.ends_with("memory.json") {
            format!("pub mod repository {{\n{code}\n}}\n")
        } else {
            code
        };
        modules += 1;
    }
    std::fs::write(dir.join("app/src/generated.rs"), generated).expect("write generated.rs");
    let main = dir.join("app/src/main.rs");
    let program = std::fs::read_to_string(&main).expect("main.rs");
    std::fs::write(&main, format!("pub mod generated;\n{program}")).expect("write main.rs");
    let doc = || {
        let mut doc = Command::new(env!("CARGO"));
        common::scratch_cargo(&mut doc)
            .args(["doc", "--no-deps", "-p", "app"])
            .current_dir(dir)
            .env("RUSTDOCFLAGS", "-D warnings")
            .env("NO_COLOR", "1")
            .output()
            .expect("run cargo doc")
    };
    let out = doc();
    let all = text(&out);
    assert!(
        out.status.success() && !all.contains("warning"),
        "cargo doc -D warnings of {modules} generated modules:\n{all}"
    );
    let page = common::target_dir().join("tests/scratch/doc/app/generated/github/index.html");
    assert!(page.is_file(), "{} is missing", page.display());
    // The check can fail: one broken link among them is an error.
    let mut broken = std::fs::read_to_string(dir.join("app/src/generated.rs")).expect("read");
    broken += "/// Calls [`no_such_tool`].\npub struct Canary;\n";
    std::fs::write(dir.join("app/src/generated.rs"), broken).expect("write generated.rs");
    let out = doc();
    assert!(
        !out.status.success() && text(&out).contains("no_such_tool"),
        "{}",
        text(&out)
    );
}

#[test]
fn users_workspace_with_the_installed_cargo_subcommand() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("project");
    user_workspace(&dir, false);
    // `cargo install`, into a root of the test's own; built in this workspace's target/
    // (`--debug`: what `cargo xtask` already compiled is reused).
    let install_root = tmp.path().join("installed");
    let out = common::without_cargo_test_env(&mut Command::new(env!("CARGO")))
        .args(["install", "--locked", "--debug", "--path"])
        .arg(common::root().join("mcp-bindgen-cli"))
        .arg("--root")
        .arg(&install_root)
        .env("CARGO_TARGET_DIR", common::root().join("target"))
        .output()
        .expect("cargo install");
    ok("cargo install --path mcp-bindgen-cli", out);
    let bin = install_root.join("bin");
    assert!(bin.join("cargo-mcp-bindgen").is_file());
    users_day(&dir, "mcp-bindgen", Some(&bin));
}
