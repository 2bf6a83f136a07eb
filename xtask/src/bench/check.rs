//! Sections `check` and `features`: the extra `cargo check` of a crate binding the GitHub
//! corpus, and the cold build of a user crate against raw rmcp and stdio only.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::inputs::github_corpus;
use super::*;
use crate::process::run_command;

pub(super) const SCRATCH_BASE: &str = r#"//! Scratch crate of `cargo xtask bench` (no bindings).
fn main() {
    let config = mcp_bindgen::ServerConfig::stdio("github_official", "github-mcp-server", vec![]);
    println!("{}", config.alias());
}
"#;

pub(super) const SCRATCH_WITH: &str = r#"//! Scratch crate of `cargo xtask bench` (binds the 117 GitHub tools, counting their tokens).
mcp_bindgen::mcp_tools!("github_official", tokens = true);

fn main() {
    let config = mcp_bindgen::ServerConfig::stdio("github_official", "github-mcp-server", vec![]);
    println!(
        "{} {} {}",
        config.alias(),
        github_official::TYPED_TOOLS.len(),
        github_official::TOKENS.full
    );
}
"#;

/// The `mcp-bindgen` dependency line of a scratch crate: a path into this checkout, with
/// `options` (e.g. `, default-features = false`).
fn runtime_dependency(root: &Path, options: &str) -> String {
    let runtime =
        std::path::absolute(root.join("runtime")).unwrap_or_else(|_| root.join("runtime"));
    format!(
        "mcp-bindgen = {{ path = {:?}{options} }}\n",
        runtime.to_string_lossy()
    )
}

/// `cargo check --offline` of `krate` with `target`; returns the wall time and the
/// expansion `mcp_tools!` reported inside rustc (`MCP_BINDGEN_TIMINGS`), if it ran.
/// `cache: false` turns the macro's expansion cache off (`MCP_BINDGEN_CACHE=0`).
pub(super) fn cargo_check(
    krate: &Path,
    target: &Path,
    cache: bool,
) -> Result<(Duration, Option<Expansion>), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut cmd = Command::new(cargo);
    cmd.args(["check", "--offline", "--quiet"])
        .current_dir(krate)
        .env("CARGO_TARGET_DIR", target)
        .env("MCP_BINDGEN_TIMINGS", "1")
        .env("MCP_BINDGEN_CACHE", if cache { "1" } else { "0" })
        .env_remove("MCP_FIXTURES_DIR")
        .env_remove("RUSTC_WRAPPER")
        .env_remove("CARGO_BUILD_RUSTC_WRAPPER");
    let started = Instant::now();
    let out = run_command(&mut cmd, Duration::from_secs(1800))?;
    let elapsed = started.elapsed();
    let log = out.stderr.join("\n") + "\n" + &out.stdout.join("\n");
    Ok((elapsed, macro_expansion(&log)))
}

/// One `mcp_tools!` expansion as the macro reported it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Expansion {
    pub(super) ms: f64,
    /// The macro's expansion cache answered (`… ms (cached)`).
    pub(super) cached: bool,
}

/// The `mcp_tools!(…): expanded in N ms[ (cached)]` line of a build log.
pub(super) fn macro_expansion(log: &str) -> Option<Expansion> {
    log.lines().find_map(|line| {
        let rest = line.split("): expanded in ").nth(1)?;
        let (rest, cached) = match rest.strip_suffix(" (cached)") {
            Some(r) => (r, true),
            None => (rest, false),
        };
        let ms = rest.strip_suffix(" ms")?.trim().parse().ok()?;
        Some(Expansion { ms, cached })
    })
}

pub(super) fn touch(path: &Path) -> Result<(), String> {
    let file = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    file.set_modified(std::time::SystemTime::now())
        .map_err(|e| format!("cannot touch {}: {e}", path.display()))
}

pub(super) fn check_overhead(root: &Path, dir: &Path) -> Result<Value, String> {
    let (_, corpus) = github_corpus(root)?;
    let check_dir = dir.join("check");
    let target = check_dir.join("target");
    // With token counting on (`tokens = true` needs the feature): what binding costs at most.
    let dependency = runtime_dependency(root, ", features = [\"tokens\"]");
    let base = user_crate(
        &check_dir,
        "bench_base",
        &dependency,
        SCRATCH_BASE,
        root,
        &corpus,
    )?;
    let with = user_crate(
        &check_dir,
        "bench_github",
        &dependency,
        SCRATCH_WITH,
        root,
        &corpus,
    )?;
    eprintln!(
        "bench: warming the scratch crates' dependencies (cargo check in {}; slow the first time)",
        target.display()
    );
    cargo_check(&base, &target, true)?;
    cargo_check(&with, &target, true)?;
    // Rebuilds after an edit: the macro's cache answers (the fixture, the call and the macro
    // are unchanged). Then the same without the cache: a rebuild that generates.
    let mut out = Map::new();
    for (name, cache) in [("cached", true), ("uncached", false)] {
        let mut base_s = Vec::new();
        let mut with_s = Vec::new();
        let mut macro_ms = Vec::new();
        for round in 1..=3 {
            touch(&with.join("src/main.rs"))?;
            let (with_time, expansion) = cargo_check(&with, &target, cache)?;
            let expansion = expansion.ok_or("the macro reported no expansion time")?;
            if expansion.cached != cache {
                return Err(format!(
                    "round {round} ({name}): the expansion cache {} although it was {}",
                    if expansion.cached {
                        "answered"
                    } else {
                        "did not answer"
                    },
                    if cache { "on" } else { "off" }
                ));
            }
            with_s.push(with_time.as_secs_f64());
            macro_ms.push(expansion.ms);
            touch(&base.join("src/main.rs"))?;
            base_s.push(cargo_check(&base, &target, cache)?.0.as_secs_f64());
            eprintln!(
                "bench: cargo check round {round}/3 ({name}): with tools {:.2} s (mcp_tools! {:.0} ms), without {:.2} s",
                with_s[round - 1],
                expansion.ms,
                base_s[round - 1]
            );
        }
        let mut times = paired_times(&with_s, &base_s);
        times.insert("macro_expansion_median_ms".into(), json!(median(&macro_ms)));
        times.insert("macro_expansion_ms".into(), json!(macro_ms));
        out.insert(name.to_string(), Value::Object(times));
    }
    // A first build of the crate itself (a fresh clone, CI): its own artifacts and
    // incremental state removed, dependencies kept, the expansion cache off.
    let mut base_s = Vec::new();
    let mut with_s = Vec::new();
    for round in 1..=3 {
        clean_package(&with, &target, "bench_github")?;
        with_s.push(cargo_check(&with, &target, false)?.0.as_secs_f64());
        clean_package(&base, &target, "bench_base")?;
        base_s.push(cargo_check(&base, &target, false)?.0.as_secs_f64());
        eprintln!(
            "bench: cold cargo check round {round}/3 of the crate alone: with tools {:.2} s, without {:.2} s",
            with_s[round - 1],
            base_s[round - 1]
        );
    }
    out.insert(
        "cold".to_string(),
        Value::Object(paired_times(&with_s, &base_s)),
    );
    Ok(Value::Object(out))
}

/// The rounds' times of the crate with the tools and without, their medians and the median
/// of the per-round differences (`overhead_s`).
fn paired_times(with_s: &[f64], base_s: &[f64]) -> Map<String, Value> {
    let diffs: Vec<f64> = with_s.iter().zip(base_s).map(|(w, b)| w - b).collect();
    let mut out = Map::new();
    out.insert("with_tools_s".into(), json!(with_s));
    out.insert("without_s".into(), json!(base_s));
    out.insert("overhead_s".into(), json!(median(&diffs)));
    out.insert("with_tools_median_s".into(), json!(median(with_s)));
    out.insert("without_median_s".into(), json!(median(base_s)));
    out
}

/// `cargo clean --package` of `krate`'s own package in `target`: its artifacts and
/// incremental state go, its dependencies' stay.
fn clean_package(krate: &Path, target: &Path, package: &str) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut cmd = Command::new(cargo);
    cmd.args(["clean", "--offline", "--quiet", "--package", package])
        .current_dir(krate)
        .env("CARGO_TARGET_DIR", target);
    run_command(&mut cmd, Duration::from_secs(300)).map(|_| ())
}

// ---------------------------------------------------------------------------------------
// 5. features: a stdio-only user crate against the default
// ---------------------------------------------------------------------------------------

/// The packages in `krate`'s build (`cargo tree`, normal and build dependencies, each
/// package once), not counting the crate itself.
pub(super) fn dependency_count(krate: &Path) -> Result<usize, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "-e",
            "normal,build",
            "--prefix",
            "none",
        ])
        .current_dir(krate)
        .output()
        .map_err(|e| format!("cannot run cargo tree: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo tree in {} failed:\n{}",
            krate.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let packages: std::collections::BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            Some(format!("{} {}", words.next()?, words.next()?))
        })
        .collect();
    Ok(packages.len().saturating_sub(1))
}

/// The user crate of the features section: two servers bound with `mcp_tools!` (the 117
/// GitHub tools and the demo server's), one connected over stdio, one over Streamable HTTP.
const TWO_SERVERS: &str = r#"//! Scratch crate of `cargo xtask bench`: two servers, typed.
use mcp_bindgen::{Registry, Report, Session};

mcp_bindgen::mcp_tools!("github_official");
mcp_bindgen::mcp_tools!("demo");

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Report> {
    let registry = Registry::discover()?;
    let demo = demo::Client::new(Session::connect(registry.get("demo")?).await?);
    let sum = demo.add(demo::add::Args { a: 2.0, b: 40.0 }).await?;
    let github = github_official::Client::new(Session::connect(registry.get("github")?).await?);
    println!("{} {}", sum.text(), github_official::TYPED_TOOLS.len());
    let _ = github;
    Ok(())
}
"#;

/// The same two servers through rmcp's client directly: a child process and Streamable
/// HTTP, untyped calls.
const RAW_RMCP: &str = r#"//! Scratch crate of `cargo xtask bench`: two servers, rmcp's client.
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let demo = ()
        .serve(TokioChildProcess::new(tokio::process::Command::new("mcp-demo-server"))?)
        .await?;
    let mut args = serde_json::Map::new();
    args.insert("a".into(), 2.0.into());
    args.insert("b".into(), 40.0.into());
    let sum = demo
        .call_tool(CallToolRequestParams::new("add").with_arguments(args))
        .await?;
    let github = ()
        .serve(StreamableHttpClientTransport::from_uri("https://api.githubcopilot.com/mcp/"))
        .await?;
    let tools = github.list_all_tools().await?;
    println!("{:?} {}", sum.content, tools.len());
    Ok(())
}
"#;

/// A scratch user crate `dir/name` outside the workspace: `dependencies` (and tokio) in its
/// manifest, `main` as `src/main.rs`, the workspace's `Cargo.lock`, and as fixtures the
/// GitHub corpus (`github_official.json`), the demo fixture and a registry of both.
fn user_crate(
    dir: &Path,
    name: &str,
    dependencies: &str,
    main: &str,
    root: &Path,
    github: &[u8],
) -> Result<PathBuf, String> {
    let krate = dir.join(name);
    let fixtures = krate.join("fixtures");
    for d in [krate.join("src"), fixtures.clone()] {
        std::fs::create_dir_all(&d).map_err(|e| format!("cannot create {}: {e}", d.display()))?;
    }
    let demo = std::fs::read(root.join("fixtures/demo.json"))
        .map_err(|e| format!("cannot read fixtures/demo.json: {e}"))?;
    let lock = std::fs::read(root.join("Cargo.lock"))
        .map_err(|e| format!("cannot read the workspace Cargo.lock: {e}"))?;
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\n{dependencies}tokio = {{ version = \"1\", features = [\"macros\", \"rt\"] }}\n\n\
         # Not part of the mcp-bindgen workspace.\n[workspace]\n"
    );
    let registry = "[servers.demo]\ncommand = \"mcp-demo-server\"\n\n\
                    [servers.github]\nurl = \"https://api.githubcopilot.com/mcp/\"\n";
    for (path, text) in [
        (krate.join("Cargo.toml"), manifest.as_bytes()),
        (krate.join("src/main.rs"), main.as_bytes()),
        (krate.join("Cargo.lock"), &lock[..]),
        (fixtures.join("github_official.json"), github),
        (fixtures.join("demo.json"), &demo[..]),
        (fixtures.join("servers.toml"), registry.as_bytes()),
    ] {
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(krate)
}

/// Section 5: a two-server user crate with default features, stdio only, and the same
/// program on rmcp's client directly (`cold_check_vs_raw_rmcp`): packages and a cold
/// `cargo check` each.
pub(super) fn features(root: &Path, dir: &Path) -> Result<Value, String> {
    let (_, corpus) = github_corpus(root)?;
    let features_dir = dir.join("features");
    let mut out = Map::new();
    for (kind, dependencies, main) in [
        (
            "stdio_only",
            runtime_dependency(root, ", default-features = false, features = [\"macros\"]"),
            TWO_SERVERS,
        ),
        (
            "default",
            runtime_dependency(root, ""),
            TWO_SERVERS,
        ),
        (
            "raw_rmcp",
            // rmcp's client with the same transports and its own TLS feature.
            "rmcp = { version = \"3.11\", default-features = false, features = [\"client\", \
             \"transport-child-process\", \"transport-streamable-http-client-reqwest\", \"reqwest\"] }\n\
             serde_json = \"1\"\n"
                .to_string(),
            RAW_RMCP,
        ),
    ] {
        let krate = user_crate(
            &features_dir,
            &format!("bench_{kind}"),
            &dependencies,
            main,
            root,
            &corpus,
        )?;
        let dependencies = dependency_count(&krate)?;
        let target = features_dir.join(format!("target-{kind}"));
        if target.exists() {
            std::fs::remove_dir_all(&target)
                .map_err(|e| format!("cannot empty {}: {e}", target.display()))?;
        }
        eprintln!("bench: cold cargo check of a {kind} user crate ({dependencies} dependencies)");
        let (elapsed, _) = cargo_check(&krate, &target, true)?;
        eprintln!("bench: {kind}: {:.1} s", elapsed.as_secs_f64());
        out.insert(
            kind.to_string(),
            json!({ "dependencies": dependencies, "cold_check_s": elapsed.as_secs_f64() }),
        );
    }
    out.insert("cli_install".into(), cli_install(root, &features_dir)?);
    Ok(Value::Object(out))
}

/// `cargo install --path mcp-bindgen-cli --locked --offline` into a scratch root with an
/// empty target dir: what a user's first `cargo install mcp-bindgen-cli` builds.
fn cli_install(root: &Path, dir: &Path) -> Result<Value, String> {
    let install_root = dir.join("cli-root");
    let target = dir.join("target-cli-install");
    for d in [&install_root, &target] {
        if d.exists() {
            std::fs::remove_dir_all(d).map_err(|e| format!("cannot empty {}: {e}", d.display()))?;
        }
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut cmd = Command::new(cargo);
    cmd.args(["install", "--locked", "--offline", "--quiet", "--path"])
        .arg(root.join("mcp-bindgen-cli"))
        .arg("--root")
        .arg(&install_root)
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("RUSTC_WRAPPER")
        .env_remove("CARGO_BUILD_RUSTC_WRAPPER");
    eprintln!("bench: cold cargo install of mcp-bindgen-cli (release)");
    let started = Instant::now();
    run_command(&mut cmd, Duration::from_secs(3600))?;
    let elapsed = started.elapsed().as_secs_f64();
    eprintln!("bench: cargo install: {elapsed:.1} s");
    // The build tree is large and of no further use.
    let _ = std::fs::remove_dir_all(&target);
    Ok(json!({ "cold_install_s": elapsed }))
}

// ---------------------------------------------------------------------------------------
// 4. snapshot: all default servers in parallel vs the slowest alone
// ---------------------------------------------------------------------------------------
