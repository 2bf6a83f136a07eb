//! `cargo xtask verify [--fixtures DIR]`: codegen over every fixture in DIR (default
//! `fixtures/`), no network. Prints one line per tool that is not fully typed (with the
//! reason) and ends with exactly `N tools: T typed, F fallback, E errors`; exits 1 when
//! E > 0.

use std::path::PathBuf;
use std::process::ExitCode;

/// Entry point; `args` are the words after `verify`.
pub fn run(args: &[String]) -> ExitCode {
    let mut dir = PathBuf::from("fixtures");
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--fixtures" => match args.get(i + 1) {
                Some(d) => {
                    dir = PathBuf::from(d);
                    i += 1;
                }
                None => {
                    eprintln!("verify: --fixtures needs a directory");
                    return ExitCode::from(2);
                }
            },
            "-h" | "--help" => {
                println!("usage: cargo xtask verify [--fixtures DIR]   (default DIR: fixtures/)");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!(
                    "verify: unexpected argument `{other}` (usage: cargo xtask verify [--fixtures DIR])"
                );
                return ExitCode::from(2);
            }
        }
        i += 1;
    }
    let summary = match mcp_codegen::verify::verify_dir(&dir) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("verify: {e}");
            println!("0 tools: 0 typed, 0 fallback, 1 errors");
            return ExitCode::FAILURE;
        }
    };
    for line in summary.detail_lines() {
        println!("{line}");
    }
    println!("{}", summary.summary_line());
    if summary.errors() > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
