//! The Rust API axis of `diff`, cross-checked with `cargo-semver-checks` on regenerated code.
//!
//! Every case of the drift corpus is expanded twice by the `cargo-mcp-bindgen` binary
//! (`expand old.json`, `expand new.json`) into two crates, one module per case; the pinned
//! `cargo-semver-checks` (installed by `cargo xtask test`, found through
//! `$MCP_SEMVER_CHECKS`) compares them in one run. Its verdict per case must agree with the
//! Rust label `diff --format json` gives:
//!
//! * where `cargo-semver-checks` finds a major change, `diff` says major (it never says less);
//! * where `diff` says major and `cargo-semver-checks` finds nothing, a reason of `diff` is a
//!   change `cargo-semver-checks` has no lint for: a field's or a parameter's type, a
//!   struct that became an enum (its lints look at names, counts and kinds of items, not at
//!   types).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate has a parent")
        .to_path_buf()
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map_or_else(|| root().join("target"), |t| root().join(t))
}

/// The reasons `diff` gives that `cargo-semver-checks` has no lint for.
const BEYOND_SEMVER_CHECKS: &[&str] = &[
    "changes type from",
    "changes its signature from",
    "changes from struct to enum",
    "changes from enum to struct",
];

fn semver_checks() -> Option<PathBuf> {
    match std::env::var_os("MCP_SEMVER_CHECKS").map(PathBuf::from) {
        Some(path) if path.is_file() => Some(path),
        found => {
            let why = match found {
                Some(path) => format!("{} does not exist", path.display()),
                None => "MCP_SEMVER_CHECKS is not set".to_string(),
            };
            assert!(
                std::env::var_os("CI").is_none_or(|v| v != "true"),
                "the cross-check needs the pinned cargo-semver-checks: {why} (run `cargo xtask test`)"
            );
            eprintln!(
                "skipped: {why}; `cargo xtask test` installs cargo-semver-checks and runs this"
            );
            None
        }
    }
}

fn bin(args: &[&str], dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-mcp-bindgen"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run cargo-mcp-bindgen")
}

/// A crate `bindings` depending on this repository's `mcp-bindgen`, with the workspace's
/// lock file (the same dependency versions, no resolution).
fn scratch_crate(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).expect("mkdir");
    let runtime = root()
        .join("runtime")
        .display()
        .to_string()
        .replace('\\', "/");
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"bindings\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nmcp-bindgen = {{ path = \"{runtime}\" }}\n\n[workspace]\n"
        ),
    )
    .expect("write manifest");
    std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).expect("copy lock");
}

#[test]
fn the_rust_axis_agrees_with_cargo_semver_checks_on_the_drift_corpus() {
    let Some(tool) = semver_checks() else { return };
    let corpus = root().join("mcp-bindgen-cli/tests/drift-corpus");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected.json").is_file())
        .collect();
    cases.sort();

    let work = target_dir().join("semver-cross-check");
    let _ = std::fs::remove_dir_all(work.join("baseline"));
    let _ = std::fs::remove_dir_all(work.join("current"));
    let (baseline, current) = (work.join("baseline"), work.join("current"));
    scratch_crate(&baseline);
    scratch_crate(&current);

    // Per case: its module name, our Rust label (worst over its tools) and its major reasons.
    let mut ours: BTreeMap<String, (PathBuf, String, Vec<String>)> = BTreeMap::new();
    let mut lib = String::new();
    for (i, case) in cases.iter().enumerate() {
        let module = format!("case{i:03}");
        for (side, file) in [(&baseline, "old.json"), (&current, "new.json")] {
            let out = bin(&["expand", file], case);
            assert!(
                out.status.success(),
                "expand {}/{file}: {}",
                case.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            std::fs::write(side.join(format!("src/{module}.rs")), &out.stdout).expect("write");
        }
        lib.push_str(&format!("pub mod {module};\n"));
        let out = bin(&["diff", "old.json", "new.json", "--format", "json"], case);
        let review: Value = serde_json::from_slice(&out.stdout).expect("diff JSON");
        let mut label = "patch".to_string();
        let mut reasons = Vec::new();
        for tool in review["tools"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(_, t)| t)
        {
            let rust = tool["rust"].as_str().unwrap_or("");
            if rust == "major" || (rust == "minor" && label == "patch") {
                label = rust.to_string();
            }
            reasons.extend(
                tool["reasons"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .filter(|r| r.starts_with("Rust major"))
                    .map(str::to_string),
            );
        }
        ours.insert(module, (case.clone(), label, reasons));
    }
    for side in [&baseline, &current] {
        std::fs::write(side.join("src/lib.rs"), &lib).expect("write lib.rs");
    }

    let out = Command::new(&tool)
        .args(["semver-checks", "check-release", "--release-type", "minor"])
        .arg("--manifest-path")
        .arg(current.join("Cargo.toml"))
        .arg("--baseline-root")
        .arg(&baseline)
        .env("CARGO_TARGET_DIR", work.join("target"))
        .output()
        .expect("run cargo-semver-checks");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("Summary"),
        "cargo-semver-checks did not finish its checks:\n{text}"
    );

    // The lints that failed per case module (`caseNNN` in a path or a file name).
    let mut failed: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut lint: Option<String> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("--- failure ") {
            lint = rest.split(':').next().map(str::to_string);
            continue;
        }
        if line.starts_with("--- ") {
            lint = None;
            continue;
        }
        let Some(lint) = &lint else { continue };
        for module in ours.keys() {
            if line.contains(&format!("{module}.rs")) || line.contains(&format!("{module}::")) {
                failed
                    .entry(module.clone())
                    .or_default()
                    .insert(lint.clone());
            }
        }
    }
    assert!(
        !failed.is_empty(),
        "cargo-semver-checks found no major change in any case; its output:\n{text}"
    );

    let mut wrong = Vec::new();
    let mut agree = 0;
    let mut beyond = 0;
    for (module, (case, label, reasons)) in &ours {
        let name = case
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        match (failed.get(module), label.as_str()) {
            (Some(lints), "major") => {
                agree += 1;
                let _ = lints;
            }
            (Some(lints), other) => wrong.push(format!(
                "{name}: cargo-semver-checks finds a major change ({lints:?}), diff says {other}"
            )),
            (None, "major") => {
                if reasons
                    .iter()
                    .any(|r| BEYOND_SEMVER_CHECKS.iter().any(|b| r.contains(b)))
                {
                    beyond += 1;
                } else {
                    wrong.push(format!(
                        "{name}: diff says major, cargo-semver-checks finds nothing, and no reason is one it cannot see: {reasons:?}"
                    ));
                }
            }
            (None, _) => agree += 1,
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    println!(
        "{} cases: {agree} agree with cargo-semver-checks, {beyond} major only by a type change it has no lint for",
        ours.len()
    );
}
