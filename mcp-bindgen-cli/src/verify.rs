//! `verify [--fixtures DIR]`: codegen over every fixture of the project, no network.
//!
//! Prints one line per tool that is not fully typed (with the reason) and ends with exactly
//! `N tools: T typed, F fallback, E errors`; exits 1 when E > 0.

use std::process::ExitCode;

use crate::args::{Arg, Parser};
use crate::paths::{LOCATE_USAGE, Locate};
use crate::{Cli, Result};

fn usage(cli: &Cli) -> String {
    format!(
        "usage: {} verify [--fixtures DIR]

Generates the code of every fixture (as mcp_tools! would), without the network, and ends
with `N tools: T typed, F fallback, E errors`; exits 1 when a tool cannot be generated.
{LOCATE_USAGE}",
        cli.invoked_as
    )
}

/// Entry point; `words` are the words after `verify`.
pub(crate) fn run(cli: &Cli, words: &[String]) -> Result<ExitCode> {
    let mut p = Parser::new(words, usage(cli));
    let mut locate = Locate::default();
    while let Some(arg) = p.next()? {
        match arg {
            Arg::Flag(f) => {
                if !locate.take(&f, &mut p)? {
                    return Err(p.unknown(&f));
                }
            }
            Arg::Word(w) => return Err(p.error(&format!("unexpected argument `{w}`"))),
        }
    }
    let dir = locate.existing_fixtures_dir(cli)?;
    eprintln!("verify: fixtures in {}", cli.show(&dir));
    let summary = mcp_codegen::verify::verify_dir(&dir)?;
    for line in summary.detail_lines() {
        println!("{line}");
    }
    if summary.fixtures == 0 {
        eprintln!(
            "verify: no fixture in {}; run {}",
            cli.show(&dir),
            cli.hint("snapshot")
        );
    }
    println!("{}", summary.summary_line());
    Ok(if summary.errors() > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
