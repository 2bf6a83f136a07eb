//! The `wasm` section: the size of a typed client built for `wasm32-unknown-unknown` — the
//! library of `tests/wasm` (`mcp_tools!("demo")` and one exported function calling the
//! server), as a user ships it: built in release for size (`opt-level = "z"`, LTO, one
//! codegen unit, `panic = "abort"`), passed through the pinned `wasm-bindgen`
//! (`--target web`), then through binaryen's `wasm-opt -Oz` (the pinned npm package).

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

const WASM: &str = "wasm32-unknown-unknown";

/// The section; `setup_only`: its pinned tools installed, nothing built.
pub(super) fn wasm(root: &Path, dir: &Path, setup_only: bool) -> Result<Value, String> {
    crate::servers::install(root, &["node22", "wasm-bindgen", "binaryen"])?;
    if setup_only {
        return Ok(json!({ "setup_only": true }));
    }
    let entry = |alias: &str| {
        crate::servers::find(alias)
            .map(|p| p.entry_path(root))
            .ok_or(format!("the {alias} pin is missing from xtask's table"))
    };
    let profile = [
        ("CARGO_PROFILE_RELEASE_OPT_LEVEL", "z"),
        ("CARGO_PROFILE_RELEASE_LTO", "true"),
        ("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1"),
        ("CARGO_PROFILE_RELEASE_PANIC", "abort"),
        ("CARGO_PROFILE_RELEASE_DEBUG", "false"),
    ]
    .map(|(k, v)| (k.to_string(), v.to_string()));
    crate::cargo_with_env(
        &[
            "build",
            "--release",
            "--target",
            WASM,
            "--package",
            "mcp-bindgen-wasm-tests",
            "--lib",
        ],
        &profile,
    )?;
    let raw = super::cargo_target_dir()
        .join(WASM)
        .join("release")
        .join("mcp_bindgen_wasm_tests.wasm");
    let out = dir.join("wasm");
    let _ = std::fs::remove_dir_all(&out);
    let mut bindgen = Command::new(entry("wasm-bindgen")?.with_file_name("wasm-bindgen"));
    bindgen
        .args(["--target", "web", "--out-dir"])
        .arg(&out)
        .arg(&raw);
    crate::portability::status(&mut bindgen)?;
    let bound = out.join("mcp_bindgen_wasm_tests_bg.wasm");
    let optimized = out.join("mcp_bindgen_wasm_tests_opt.wasm");
    let mut opt = Command::new(entry("node22")?);
    opt.arg(entry("binaryen")?)
        .arg("-Oz")
        .arg(&bound)
        .arg("-o")
        .arg(&optimized);
    crate::portability::status(&mut opt)?;
    let size = |p: &Path| {
        std::fs::metadata(p)
            .map(|m| m.len())
            .map_err(|e| format!("{}: {e}", p.display()))
    };
    Ok(json!({
        "raw_bytes": size(&raw)?,
        "bindgen_bytes": size(&bound)?,
        "opt_bytes": size(&optimized)?,
    }))
}
