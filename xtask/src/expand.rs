//! `cargo xtask expand ALIAS|PATH`: prints the Rust code `mcp_tools!` generates for a
//! fixture, formatted with prettyplease. `ALIAS` means `fixtures/ALIAS.json`; anything
//! containing a path separator or ending in `.json` is a path. Fallbacks and notes go to
//! stderr.

use std::path::PathBuf;
use std::process::ExitCode;

use mcp_codegen::fixture::Fixture;
use mcp_codegen::{Options, format_tokens, generate};

/// Entry point; `args` are the words after `expand`.
pub fn run(args: &[String]) -> ExitCode {
    let [target] = args else {
        eprintln!("usage: cargo xtask expand ALIAS|PATH   (ALIAS reads fixtures/ALIAS.json)");
        return ExitCode::from(2);
    };
    let is_path = target.ends_with(".json") || target.contains('/') || target.contains('\\');
    let path = if is_path {
        PathBuf::from(target)
    } else {
        PathBuf::from("fixtures").join(format!("{target}.json"))
    };
    let fixture = match Fixture::load(&path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("expand: {e}");
            if !is_path {
                eprintln!("expand: run `cargo xtask snapshot {target}` to create it");
            }
            return ExitCode::FAILURE;
        }
    };
    let alias = if is_path {
        mcp_codegen::verify::alias_of(&fixture)
    } else {
        target.clone()
    };
    let generated = match generate(&fixture, &alias, &Options::default()) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("expand: {e}");
            return ExitCode::FAILURE;
        }
    };
    for w in &generated.warnings {
        eprintln!("warning: {w}");
    }
    match format_tokens(&alias, generated.tokens) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("expand: {e}");
            ExitCode::FAILURE
        }
    }
}
