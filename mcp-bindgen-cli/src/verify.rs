//! `verify [--deep] [--fixtures DIR]`: codegen over every fixture of the project, no network.
//!
//! Prints one line per tool that is not fully typed (with the reason) and ends with exactly
//! `N tools: T typed, F fallback, E errors`; exits 1 when E > 0. With `--deep`, the
//! round-trip oracle also runs over every tool (see `deep`): one line per failed instance
//! and skipped tool, and a second summary line `round-trip: N tools, P passed, F failed,
//! S skipped`; exits 1 when F > 0 as well.

use std::process::ExitCode;

use crate::args::{Arg, Parser};
use crate::paths::{LOCATE_USAGE, Locate};
use crate::{Cli, Result};

fn usage(cli: &Cli) -> String {
    format!(
        "usage: {} verify [--deep] [--fixtures DIR]

Generates the code of every fixture (as mcp_tools! would), without the network, and ends
with `N tools: T typed, F fallback, E errors`; exits 1 when a tool cannot be generated.

  --deep                 also check that the generated types carry every value their
                         schemas allow: valid instances of each tool's input and output
                         schema go through the types (a program built under
                         <target>/mcp-bindgen/deep) and must come back valid and equal, up
                         to optional nulls and defaults. Adds the line
                         `round-trip: N tools, P passed, F failed, S skipped`.
{LOCATE_USAGE}",
        cli.invoked_as
    )
}

/// Entry point; `words` are the words after `verify`.
pub(crate) fn run(cli: &Cli, words: &[String]) -> Result<ExitCode> {
    let mut p = Parser::new(words, usage(cli));
    let mut locate = Locate::default();
    let mut deep = false;
    while let Some(arg) = p.next()? {
        match arg {
            Arg::Flag(f) if f == "--deep" => deep = true,
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
    let summary = mcp_bindgen_codegen::verify::verify_dir(&dir)?;
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
    let round_trip = if deep {
        let fixtures = crate::deep::usable(&dir, &summary)?;
        let report = crate::deep::run(cli, &dir, &fixtures, &locate.start(cli)?)?;
        for line in report.detail_lines(3) {
            println!("{line}");
        }
        Some(report)
    } else {
        None
    };
    println!("{}", summary.summary_line());
    if let Some(report) = &round_trip {
        println!("{}", report.summary_line());
    }
    let failed = round_trip.as_ref().is_some_and(|r| r.failed() > 0);
    Ok(if summary.errors() > 0 || failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
