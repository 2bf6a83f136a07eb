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

pub(super) fn check_overhead(root: &Path, dir: &Path, setup_only: bool) -> Result<Value, String> {
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
    for krate in [&base, &with] {
        fetch(krate)?;
    }
    if setup_only {
        return Ok(json!({ "setup_only": true }));
    }
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

/// `cargo fetch` in `krate` (online): the packages its build needs that the workspace never
/// downloads (the raw rmcp crate's TLS and HTTP stack resolves packages of its own), so that
/// the offline steps after it find them on a fresh machine.
pub(super) fn fetch(krate: &Path) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut cmd = Command::new(cargo);
    cmd.args(["fetch", "--quiet"])
        .current_dir(krate)
        .env_remove("CARGO_NET_OFFLINE");
    run_command(&mut cmd, Duration::from_secs(600))
        .map(drop)
        .map_err(|e| format!("cannot download the packages of {}: {e}", krate.display()))
}

/// The features section's set-up: the three user crates written, their packages fetched,
/// their dependencies counted (offline). `bench --smoke` runs this much.
pub(super) fn features_setup(
    root: &Path,
    dir: &Path,
) -> Result<Vec<(String, PathBuf, usize)>, String> {
    let (_, corpus) = github_corpus(root)?;
    let features_dir = dir.join("features");
    let mut out = Vec::new();
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
        fetch(&krate)?;
        let dependencies = dependency_count(&krate)?;
        out.push((kind.to_string(), krate, dependencies));
    }
    Ok(out)
}

/// Section 5: a two-server user crate with default features, stdio only, and the same
/// program on rmcp's client directly (`cold_check_vs_raw_rmcp`): packages and a cold
/// `cargo check` each. `setup_only`: the set-up and the counts, no build.
pub(super) fn features(root: &Path, dir: &Path, setup_only: bool) -> Result<Value, String> {
    let features_dir = dir.join("features");
    let mut out = Map::new();
    for (kind, krate, dependencies) in features_setup(root, dir)? {
        if setup_only {
            out.insert(kind, json!({ "dependencies": dependencies }));
            continue;
        }
        let target = features_dir.join(format!("target-{kind}"));
        if target.exists() {
            std::fs::remove_dir_all(&target)
                .map_err(|e| format!("cannot empty {}: {e}", target.display()))?;
        }
        eprintln!("bench: cold cargo check of a {kind} user crate ({dependencies} dependencies)");
        let (elapsed, _) = cargo_check(&krate, &target, true)?;
        eprintln!("bench: {kind}: {:.1} s", elapsed.as_secs_f64());
        out.insert(
            kind,
            json!({ "dependencies": dependencies, "cold_check_s": elapsed.as_secs_f64() }),
        );
    }
    Ok(Value::Object(out))
}

/// `cargo install --path mcp-bindgen-cli --locked --offline` (default features) into a
/// scratch root with an empty target dir: what a user's first `cargo install
/// mcp-bindgen-cli` builds — the crates compiled, the CPU seconds of the compilers, and
/// whether aws-lc (C) is among them.
pub(super) fn cli_install(root: &Path, dir: &Path) -> Result<Value, String> {
    let install_root = dir.join("cli-root");
    let target = dir.join("target-cli-install");
    remove_dirs(&[&install_root, &target])?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut cmd = Command::new(cargo);
    cmd.args(["install", "--locked", "--offline", "--quiet", "--path"])
        .arg(root.join("mcp-bindgen-cli"))
        .arg("--root")
        .arg(&install_root)
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("RUSTC_WRAPPER")
        .env_remove("CARGO_BUILD_RUSTC_WRAPPER");
    eprintln!("bench: cold cargo install of mcp-bindgen-cli (release, default features)");
    let cpu = children_cpu_s()?;
    let started = Instant::now();
    run_command(&mut cmd, Duration::from_secs(3600))?;
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = children_cpu_s()? - cpu;
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).unwrap_or_default();
    let built = Built::from_target(&target.join("release"), &lock)?;
    eprintln!(
        "bench: cargo install: {elapsed:.1} s, {cpu:.0} CPU s, {} crates",
        built.crates
    );
    // The build tree is large and of no further use.
    let _ = std::fs::remove_dir_all(&target);
    Ok(json!({
        "cold_install_s": elapsed,
        "cpu_s": cpu,
        "crates": built.crates,
        "units": built.units,
        "aws_lc": built.names.iter().any(|n| n.starts_with("aws-lc")),
        "built_twice": built.twice,
    }))
}

/// A cold `cargo xtask demo` (the README's first command) in a copy of this checkout's
/// tracked files with an empty target dir, in its two steps: the dev runner's build (what
/// `cargo xtask` runs first, `cargo build --bin xtask`), then the demo itself (the demo
/// server, the quickstart and its compile error). A library the second step compiles again
/// (its name and source already built by the first, or twice in the second) was built twice.
pub(super) fn demo_cold(root: &Path, dir: &Path) -> Result<Value, String> {
    let ws = dir.join("demo-ws");
    let target = dir.join("target-demo");
    remove_dirs(&[&ws, &target])?;
    crate::portability::copy_tracked(root, &ws)?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let command = |args: &[&str]| {
        let mut cmd = Command::new(&cargo);
        cmd.args(args)
            .current_dir(&ws)
            .env("CARGO_TARGET_DIR", &target)
            .env("CARGO_NET_OFFLINE", "true")
            .env_remove("MCP_DEMO_SERVER")
            .env_remove("RUSTC_WRAPPER")
            .env_remove("CARGO_BUILD_RUSTC_WRAPPER");
        cmd
    };
    eprintln!("bench: cold cargo xtask demo (a copy of the checkout, empty target dir)");
    let lock = std::fs::read_to_string(ws.join("Cargo.lock")).unwrap_or_default();
    let cpu = children_cpu_s()?;
    let started = Instant::now();
    run_command(
        &mut command(&["build", "--quiet", "--bin", "xtask"]),
        Duration::from_secs(3600),
    )?;
    let first = Built::units_in(&target.join("debug"))?;
    run_command(&mut command(&["xtask", "demo"]), Duration::from_secs(3600))?;
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = children_cpu_s()? - cpu;
    let all = Built::units_in(&target.join("debug"))?;
    let built = Built::summarize(&all, &lock);
    let again = Built::built_again(&first, &all, &lock);
    let splits = Built::summarize(&first, &lock).twice;
    eprintln!(
        "bench: cargo xtask demo: {elapsed:.1} s, {cpu:.0} CPU s, {} units, built again by the demo's own commands: {}",
        built.units,
        if again.is_empty() {
            "none".to_string()
        } else {
            again.join(", ")
        }
    );
    let _ = std::fs::remove_dir_all(&target);
    let _ = std::fs::remove_dir_all(&ws);
    Ok(json!({
        "cold_demo_s": elapsed,
        "cpu_s": cpu,
        "units": built.units,
        "crates": built.crates,
        "built_twice": again,
        "host_target_splits": splits,
    }))
}

/// Removes each directory that exists (a cold build starts from nothing).
fn remove_dirs(dirs: &[&Path]) -> Result<(), String> {
    for d in dirs {
        if d.exists() {
            std::fs::remove_dir_all(d).map_err(|e| format!("cannot empty {}: {e}", d.display()))?;
        }
    }
    Ok(())
}

/// What cargo compiled into a profile directory (`target/debug`, `target/release`), read
/// from its fingerprints: one directory per unit, `NAME-HASH/`, holding `lib-….json` for a
/// library (or proc macro), `bin-…`/`example-…`/`test-…` for the others and
/// `build-script-build-script-build.json` for a compiled build script. A library's JSON names
/// its features and a hash of its source (`path`): two units with one name and one source are
/// one crate built twice (other features, other dependencies, or once for the build's proc
/// macros and build scripts and once for the program).
#[derive(Debug, PartialEq)]
pub(super) struct Built {
    /// Units compiled (libraries, binaries, examples, tests, build scripts).
    pub(super) units: usize,
    /// Distinct crates (name and source) compiled.
    pub(super) crates: usize,
    /// Their names.
    pub(super) names: Vec<String>,
    /// Each library compiled more than once: its name, version and feature sets.
    pub(super) twice: Vec<String>,
}

/// One compiled unit: its fingerprint directory, kind and what its JSON says.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Unit {
    pub(super) dir: String,
    pub(super) name: String,
    pub(super) library: bool,
    pub(super) build_script: bool,
    /// The hash of the package's source: one per name and version.
    pub(super) source: u64,
    pub(super) features: String,
}

impl Unit {
    /// From a fingerprint file (`None` for a file that is not a compiled unit: a build
    /// script's run, a dep-info file).
    pub(super) fn parse(dir: &str, file: &str, json: &str) -> Option<Unit> {
        let compiled = ["lib-", "bin-", "example-", "test-", "bench-"]
            .iter()
            .any(|p| file.starts_with(p))
            || file == "build-script-build-script-build.json";
        if !compiled || !file.ends_with(".json") {
            return None;
        }
        let value: Value = serde_json::from_str(json).unwrap_or(Value::Null);
        Some(Unit {
            dir: dir.to_string(),
            // `NAME-HASH`: the name is everything before the last `-`.
            name: dir.rsplit_once('-').map_or(dir, |(n, _)| n).to_string(),
            library: file.starts_with("lib-"),
            build_script: file == "build-script-build-script-build.json",
            source: value.get("path").and_then(Value::as_u64).unwrap_or(0),
            features: value
                .get("features")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_string(),
        })
    }

    fn key(&self) -> (String, u64) {
        (self.name.clone(), self.source)
    }
}

impl Built {
    /// The units of `<profile_dir>/.fingerprint`.
    pub(super) fn units_in(profile_dir: &Path) -> Result<Vec<Unit>, String> {
        let dir = profile_dir.join(".fingerprint");
        let read = |d: &Path| {
            std::fs::read_dir(d).map_err(|e| format!("cannot read {}: {e}", d.display()))
        };
        let mut units = Vec::new();
        for entry in read(&dir)? {
            let path = entry.map_err(|e| e.to_string())?.path();
            let Some(dir_name) = path
                .file_name()
                .and_then(|n| n.to_str())
                .map(str::to_string)
            else {
                continue;
            };
            if !path.is_dir() {
                continue;
            }
            for file in read(&path)? {
                let file = file.map_err(|e| e.to_string())?.path();
                let Some(file_name) = file.file_name().and_then(|n| n.to_str()) else {
                    continue;
                };
                if !file_name.ends_with(".json") {
                    continue;
                }
                let text = std::fs::read_to_string(&file)
                    .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
                units.extend(Unit::parse(&dir_name, file_name, &text));
            }
        }
        Ok(units)
    }

    /// The profile directory's units, counted.
    pub(super) fn from_target(profile_dir: &Path, lock: &str) -> Result<Built, String> {
        Ok(Built::summarize(&Built::units_in(profile_dir)?, lock))
    }

    /// Units and crates counted, libraries built more than once named (`lock`: the
    /// `Cargo.lock` text, for versions).
    pub(super) fn summarize(units: &[Unit], lock: &str) -> Built {
        use std::collections::{BTreeMap, BTreeSet};
        // A crate is its library (one per name and source; a build script's source is its
        // `build.rs`), or the package of a binary that has none.
        let libraries: BTreeSet<(String, u64)> =
            units.iter().filter(|u| u.library).map(Unit::key).collect();
        let library_names: BTreeSet<&str> = libraries.iter().map(|(n, _)| n.as_str()).collect();
        let others: BTreeSet<&str> = units
            .iter()
            .filter(|u| !u.library && !u.build_script && !library_names.contains(u.name.as_str()))
            .map(|u| u.name.as_str())
            .collect();
        let mut libs: BTreeMap<(String, u64), Vec<&str>> = BTreeMap::new();
        for u in units.iter().filter(|u| u.library) {
            libs.entry(u.key()).or_default().push(&u.features);
        }
        Built {
            units: units.len(),
            crates: libraries.len() + others.len(),
            names: library_names
                .iter()
                .chain(&others)
                .map(|n| n.to_string())
                .collect(),
            twice: libs
                .into_iter()
                .filter(|(_, f)| f.len() > 1)
                .map(|((name, _), mut f)| {
                    f.sort();
                    format!("{} ({})", versioned(&name, lock), f.join(" / "))
                })
                .collect(),
        }
    }

    /// Libraries `all` holds that `first` did not, whose name and source `first` already had
    /// or that `all` holds twice among the new: what later commands built again.
    pub(super) fn built_again(first: &[Unit], all: &[Unit], lock: &str) -> Vec<String> {
        use std::collections::{BTreeMap, BTreeSet};
        let before: BTreeSet<&str> = first.iter().map(|u| u.dir.as_str()).collect();
        let first_keys: BTreeSet<(String, u64)> =
            first.iter().filter(|u| u.library).map(Unit::key).collect();
        let mut new: BTreeMap<(String, u64), usize> = BTreeMap::new();
        for u in all
            .iter()
            .filter(|u| u.library && !before.contains(u.dir.as_str()))
        {
            *new.entry(u.key()).or_default() += 1;
        }
        new.into_iter()
            .filter(|(key, n)| *n > 1 || first_keys.contains(key))
            .map(|((name, _), _)| versioned(&name, lock))
            .collect()
    }
}

/// `NAME VERSION` when `Cargo.lock` holds one version of the package, else `NAME`.
fn versioned(name: &str, lock: &str) -> String {
    let mut versions = Vec::new();
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == format!("name = \"{name}\"")
            && let Some(v) = lines
                .next()
                .and_then(|l| l.trim().strip_prefix("version = "))
        {
            versions.push(v.trim_matches('"').to_string());
        }
    }
    match versions.as_slice() {
        [one] => format!("{name} {one}"),
        _ => name.to_string(),
    }
}

/// CPU seconds (user + system) of this process's finished children so far, from
/// `/proc/self/stat` (`cutime`, `cstime`) in clock ticks of `getconf CLK_TCK`.
fn children_cpu_s() -> Result<f64, String> {
    let stat = std::fs::read_to_string("/proc/self/stat")
        .map_err(|e| format!("cannot read /proc/self/stat (the CPU time of the build): {e}"))?;
    children_ticks(&stat)
        .map(|ticks| ticks / clock_ticks())
        .ok_or_else(|| format!("unexpected /proc/self/stat: {stat}"))
}

/// `cutime + cstime` of a `/proc/PID/stat` line (fields 16 and 17; the name, field 2, is in
/// parentheses and may hold spaces).
pub(super) fn children_ticks(stat: &str) -> Option<f64> {
    let after = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // `fields[0]` is field 3 (the state).
    let cutime: f64 = fields.get(13)?.parse().ok()?;
    let cstime: f64 = fields.get(14)?.parse().ok()?;
    Some(cutime + cstime)
}

/// Clock ticks per second (`getconf CLK_TCK`; 100 when it cannot say).
fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100.0)
}

// ---------------------------------------------------------------------------------------
// 4. snapshot: all default servers in parallel vs the slowest alone
// ---------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(dir: &str, file: &str, features: &str, source: u64) -> Unit {
        Unit::parse(
            dir,
            file,
            &json!({ "features": features, "path": source }).to_string(),
        )
        .expect("a compiled unit")
    }

    #[test]
    fn fingerprints_count_units_crates_and_libraries_built_twice() {
        let lock = "[[package]]\nname = \"serde\"\nversion = \"1.0.228\"\n";
        let units = [
            unit("serde-1111", "lib-serde.json", "[\"std\"]", 7),
            unit("serde-2222", "lib-serde.json", "[\"derive\", \"std\"]", 7),
            unit("serde-3333", "build-script-build-script-build.json", "", 8),
            // Another version of a crate is another crate.
            unit("base64-4444", "lib-base64.json", "[]", 1),
            unit("base64-5555", "lib-base64.json", "[]", 2),
            unit("mcp-bindgen-6666", "example-quickstart.json", "[]", 9),
        ];
        // Running a build script compiles nothing.
        assert_eq!(
            Unit::parse(
                "serde-7777",
                "run-build-script-build-script-build.json",
                "{}"
            ),
            None
        );
        let built = Built::summarize(&units, lock);
        assert_eq!(built.units, 6);
        // serde (its build script is not another crate), two base64, mcp-bindgen.
        assert_eq!(built.crates, 4, "{built:?}");
        assert_eq!(
            built.twice,
            ["serde 1.0.228 ([\"derive\", \"std\"] / [\"std\"])"]
        );
        assert!(Built::summarize(&units[2..], lock).twice.is_empty());

        // The first build had serde once; a later command built it again, and base64 once
        // more of a version not built before (not again), and the example (not a library).
        let first = &units[..1];
        let again = Built::built_again(first, &units, lock);
        assert_eq!(again, ["serde 1.0.228"]);
        assert!(Built::built_again(&units, &units, lock).is_empty());
    }

    #[test]
    fn children_cpu_ticks_come_after_the_parenthesised_name() {
        // Fields 16 and 17 (cutime 700, cstime 50) of a process whose name holds `) (`.
        let stat = "42 (a) (b) S 1 42 42 0 -1 4194304 100 0 0 0 5 6 700 50 20 0 1 0 9 0 0";
        assert_eq!(children_ticks(stat), Some(750.0));
        assert_eq!(children_ticks("42 (short) S 1"), None);
    }
}
