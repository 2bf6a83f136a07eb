//! The crate family's dependency rules, read from cargo itself:
//!
//! * the runtime (`mcp-bindgen`) depends on `mcp-bindgen-core`, never on the generator
//!   (`mcp-bindgen-codegen`); only its `macros` feature brings the proc macro, which is the
//!   generator's one way in;
//! * without default features no part of the generator is built: no `typify`, no
//!   `prettyplease`, no `mcp-bindgen-macros` or `mcp-bindgen-codegen`;
//! * `mcp-bindgen-core` builds none of them either, nor rmcp, tokio or reqwest;
//! * the default runtime builds no C crypto (aws-lc), one schemars, no OAuth crates and no
//!   tokenizer (`bpe-openai` is the `tokens` feature's);
//! * on wasm32 with the `wasm` feature the runtime builds neither rmcp nor tokio (nor mio,
//!   whose sockets do not exist there) nor rustls, with or without the default features,
//!   and reqwest is its HTTP client.

use crate::common;

use std::process::Command;

/// `cargo tree -e normal --prefix none` of `package` with `args`: one package per line.
fn tree(package: &str, args: &[&str]) -> Vec<String> {
    let out = Command::new(env!("CARGO"))
        .args(["tree", "-e", "normal", "--prefix", "none", "-p", package])
        .args(args)
        .current_dir(common::root())
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

fn has(lines: &[String], name: &str) -> bool {
    lines.iter().any(|l| l.starts_with(&format!("{name} v")))
}

const GENERATOR: [&str; 4] = [
    "typify",
    "prettyplease",
    "mcp-bindgen-codegen",
    "mcp-bindgen-macros",
];

#[test]
fn the_runtime_without_default_features_builds_no_generator() {
    let lean = tree("mcp-bindgen", &["--no-default-features"]);
    assert!(has(&lean, "mcp-bindgen-core"), "{lean:#?}");
    for name in GENERATOR {
        assert!(!has(&lean, name), "{name} in the lean runtime: {lean:#?}");
    }
    // The default runtime brings the macro (and so the generator): the check above can fail.
    let default = tree("mcp-bindgen", &[]);
    assert!(has(&default, "mcp-bindgen-macros"), "{default:#?}");
    assert!(has(&default, "typify"), "{default:#?}");
}

#[test]
fn the_wasm32_runtime_builds_no_rmcp_and_no_tokio() {
    // With the default features too: `http`, `rustls` and `oauth` add nothing there.
    for defaults in [&["--no-default-features"][..], &[]] {
        let mut args = vec!["--target", "wasm32-unknown-unknown", "--features", "wasm"];
        args.extend(defaults);
        let wasm = tree("mcp-bindgen", &args);
        assert!(has(&wasm, "reqwest"), "{wasm:#?}");
        assert!(has(&wasm, "mcp-bindgen-macros"), "{wasm:#?}");
        for name in ["rmcp", "tokio", "mio", "rustls", "ring"] {
            assert!(
                !has(&wasm, name),
                "{name} in the wasm32 runtime {args:?}: {wasm:#?}"
            );
        }
    }
    // The same features on this machine's target bring rmcp and tokio: the check can fail.
    let native = tree(
        "mcp-bindgen",
        &["--no-default-features", "--features", "wasm"],
    );
    assert!(has(&native, "rmcp") && has(&native, "tokio"), "{native:#?}");
}

#[test]
fn the_runtime_depends_on_core_and_never_on_the_generator() {
    // Direct dependencies only (`--depth 1`), every feature on.
    let direct = tree("mcp-bindgen", &["--all-features", "--depth", "1"]);
    assert!(has(&direct, "mcp-bindgen-core"), "{direct:#?}");
    assert!(has(&direct, "mcp-bindgen-macros"), "{direct:#?}");
    assert!(!has(&direct, "mcp-bindgen-codegen"), "{direct:#?}");
    let core = tree("mcp-bindgen-core", &["--all-features"]);
    // (`syn` is there, through `thiserror`'s derive, as in every crate that derives.)
    for name in GENERATOR.iter().chain(&["rmcp", "tokio", "reqwest"]) {
        assert!(!has(&core, name), "{name} in mcp-bindgen-core: {core:#?}");
    }
}

#[test]
fn the_default_runtime_builds_no_c_crypto_one_schemars_no_oauth_and_no_tokenizer() {
    let default = tree("mcp-bindgen", &[]);
    // TLS through rustls with ring: aws-lc's C build is not in the default tree.
    assert!(has(&default, "ring"), "{default:#?}");
    for name in [
        "aws-lc-sys",
        "aws-lc-rs",
        "jsonwebtoken",
        "oauth2",
        "bpe-openai",
        "async-openai",
    ] {
        assert!(
            !has(&default, name),
            "{name} with default features: {default:#?}"
        );
    }
    // One schemars: typify's (0.8, in the proc macro's build); local tools' schemars 1 is
    // the `local-tools` feature.
    assert_eq!(versions(&default, "schemars").len(), 1, "{default:#?}");
    // The features that bring them: the checks above can fail.
    let jwt = tree("mcp-bindgen", &["--features", "oauth-jwt,local-tools"]);
    for name in ["aws-lc-sys", "jsonwebtoken", "oauth2"] {
        assert!(has(&jwt, name), "{name} with oauth-jwt: {jwt:#?}");
    }
    assert_eq!(versions(&jwt, "schemars").len(), 2, "{jwt:#?}");
    let tokens = tree("mcp-bindgen", &["--features", "tokens"]);
    assert!(
        has(&tokens, "bpe-openai"),
        "bpe-openai with tokens: {tokens:#?}"
    );
}

/// The versions of `name` in a tree, each once.
fn versions(lines: &[String], name: &str) -> Vec<String> {
    let mut found: Vec<String> = lines
        .iter()
        .filter_map(|l| l.strip_prefix(&format!("{name} v")))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(|v| format!("v{v}"))
        .collect();
    found.sort();
    found.dedup();
    found
}

/// `cargo install mcp-bindgen-cli` with its default features: no C crypto (aws-lc), neither
/// of the two heaviest checkers (`jsonschema`: `verify-deep`; `bpe-openai`: `tokens`), no
/// ICU4X (URLs' domain names through unicode-rs), and at most 160 crates in all.
#[test]
fn the_default_cli_builds_no_c_crypto_no_heavy_checker_and_at_most_160_crates() {
    let default = tree("mcp-bindgen-cli", &["-e", "build"]);
    for name in [
        "aws-lc-sys",
        "jsonwebtoken",
        "jsonschema",
        "bpe-openai",
        "icu_normalizer",
    ] {
        assert!(
            !has(&default, name),
            "{name} in the default CLI: {default:#?}"
        );
    }
    let mut crates: Vec<&str> = default
        .iter()
        .map(|l| l.trim_end_matches(" (*)").trim_end_matches(" (proc-macro)"))
        .collect();
    crates.sort();
    crates.dedup();
    assert!(crates.len() <= 160, "{} crates: {crates:#?}", crates.len());
    // The features bring them: the checks above can fail.
    let full = tree(
        "mcp-bindgen-cli",
        &["--features", "verify-deep,tokens,oauth-jwt"],
    );
    for name in ["aws-lc-sys", "jsonschema", "bpe-openai"] {
        assert!(has(&full, name), "{name} with every feature: {full:#?}");
    }
}
