//! `verify [--deep] [--fixtures DIR]`: codegen over every fixture of the project, no network.
//!
//! Prints one line per tool that is not fully typed (with the reason), one line per fixture
//! with what its tools cost a model (`tokens   <alias>: N (OpenAI function definitions,
//! o200k_base), M compact`) and ends with exactly
//! `N tools: T typed, F fallback, E errors`; exits 1 when E > 0. With `--deep`, the
//! round-trip oracle also runs over every tool (see `deep`): one line per failed instance
//! and skipped tool, and a second summary line `round-trip: N tools, P passed, F failed,
//! S skipped`; exits 1 when F > 0 as well, or when more than 2 % of the tools were skipped
//! (`--max-skipped PCT` raises it): a round trip that checks nothing must not pass;
//! `--strict` fails on any skipped tool.

use std::process::ExitCode;

use crate::args::{Arg, Parser};
use crate::paths::{LOCATE_USAGE, Locate};
use crate::{Cli, Result};

fn usage(cli: &Cli) -> String {
    format!(
        "usage: {} verify [--deep [--max-skipped PCT | --strict]] [--fixtures DIR]

Generates the code of every fixture (as mcp_tools! would), without the network, prints each
fixture's token cost (`tokens   <alias>: …`) and ends with `N tools: T typed, F fallback,
E errors`; exits 1 when a tool cannot be generated.

  --deep                 also check that the generated types carry every value their
                         schemas allow: valid instances of each tool's input and output
                         schema go through the types (a program built under
                         <target>/mcp-bindgen/deep/) and must come back valid and equal, up
                         to optional nulls and defaults. Adds the line
                         `round-trip: N tools, P passed, F failed, S skipped`. Each
                         resource template's generated `Args` must make the URI that
                         RFC 6570 expansion makes of the same values (the line
                         `round-trip: N resource templates, P passed, F failed`).
                         (The CLI's `verify-deep` feature.)
  --max-skipped PCT      with --deep: fail when more than PCT % of the tools had no
                         instance to check (default {DEFAULT_MAX_SKIPPED_PCT})
  --strict               with --deep: fail when any tool had no instance to check (an
                         unchecked tool is an untested one)
{LOCATE_USAGE}",
        cli.invoked_as
    )
}

/// The share of tools `verify --deep` may skip (no instance could be checked) and pass.
const DEFAULT_MAX_SKIPPED_PCT: f64 = 2.0;

/// Entry point; `words` are the words after `verify`.
pub(crate) fn run(cli: &Cli, words: &[String]) -> Result<ExitCode> {
    let mut p = Parser::new(words, usage(cli));
    let mut locate = Locate::default();
    let mut deep = false;
    let mut max_skipped = None;
    let mut strict = false;
    while let Some(arg) = p.next()? {
        match arg {
            Arg::Flag(f) if f == "--deep" => deep = true,
            Arg::Flag(f) if f == "--strict" => strict = true,
            Arg::Flag(f) if f == "--max-skipped" => {
                let value = p.value(&f)?;
                match value.trim_end_matches('%').parse::<f64>() {
                    Ok(pct) if (0.0..=100.0).contains(&pct) => max_skipped = Some(pct),
                    _ => {
                        return Err(p.error(&format!(
                            "--max-skipped takes a percentage from 0 to 100, not `{value}`"
                        )));
                    }
                }
            }
            Arg::Flag(f) => {
                if !locate.take(&f, &mut p)? {
                    return Err(p.unknown(&f));
                }
            }
            Arg::Word(w) => return Err(p.error(&format!("unexpected argument `{w}`"))),
        }
    }
    if max_skipped.is_some() && !deep {
        return Err(p.error("--max-skipped is for --deep"));
    }
    if strict && !deep {
        return Err(p.error("--strict is for --deep"));
    }
    if strict && max_skipped.is_some() {
        return Err(p.error("--strict allows no skipped tool: leave out --max-skipped"));
    }
    #[cfg(not(feature = "verify-deep"))]
    if deep {
        return Err(crate::Error::Other(DEEP_UNAVAILABLE.to_string()));
    }
    let max_skipped = max_skipped.unwrap_or(DEFAULT_MAX_SKIPPED_PCT);
    let dir = locate.existing_fixtures_dir(cli)?;
    errln!("verify: fixtures in {}", cli.show(&dir));
    let summary = mcp_bindgen_codegen::verify::verify_dir(&dir)?;
    for line in summary.detail_lines() {
        outln!("{line}");
    }
    for line in summary.token_lines() {
        outln!("{line}");
    }
    if summary.fixtures == 0 {
        errln!(
            "verify: no fixture in {}; run {}",
            cli.show(&dir),
            cli.hint("snapshot")
        );
    }
    // Without the feature `deep` was refused above.
    #[cfg(feature = "verify-deep")]
    let failed = deep && round_trip(cli, &locate, &dir, &summary, strict, max_skipped)?;
    #[cfg(not(feature = "verify-deep"))]
    let failed = {
        let _ = (strict, max_skipped);
        false
    };
    if !deep {
        outln!("{}", summary.summary_line());
    }
    Ok(if summary.errors() > 0 || failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `--deep`: the round trip over every usable fixture, its lines printed after the summary;
/// `true` when it failed (a failed instance, or too many tools skipped).
#[cfg(feature = "verify-deep")]
fn round_trip(
    cli: &Cli,
    locate: &Locate,
    dir: &std::path::Path,
    summary: &mcp_bindgen_codegen::verify::Summary,
    strict: bool,
    max_skipped: f64,
) -> Result<bool> {
    let fixtures = crate::deep::usable(dir, summary)?;
    let report = crate::deep::run(cli, dir, &fixtures, &locate.start(cli)?)?;
    for line in report.detail_lines(3) {
        outln!("{line}");
    }
    outln!("{}", summary.summary_line());
    outln!("{}", report.summary_line());
    if let Some(line) = report.templates_line() {
        outln!("{line}");
    }
    let why = if strict {
        (report.skipped() > 0).then(|| {
            format!(
                "the round trip skipped {} of {} tools, and --strict allows none; see the skipped tools above",
                report.skipped(),
                report.tools.len()
            )
        })
    } else {
        too_many_skipped(report.skipped(), report.tools.len(), max_skipped)
    };
    if let Some(why) = &why {
        errln!("error: {why}");
    }
    Ok(report.failed() > 0 || report.templates_failed() > 0 || why.is_some())
}

/// Why `--deep` cannot run in a build without the `verify-deep` feature, and the fix.
#[cfg(not(feature = "verify-deep"))]
pub(crate) const DEEP_UNAVAILABLE: &str = "verify --deep needs the `verify-deep` feature of mcp-bindgen-cli (the round-trip oracle and jsonschema): `cargo install mcp-bindgen-cli --features verify-deep`, or in an xtask `mcp-bindgen-cli = { version = \"0.1\", features = [\"verify-deep\"] }`";

/// Why a round trip that skipped `skipped` of `tools` tools does not count as a pass, when
/// more than `max_pct` % were skipped.
#[cfg(feature = "verify-deep")]
fn too_many_skipped(skipped: usize, tools: usize, max_pct: f64) -> Option<String> {
    if tools == 0 {
        return None;
    }
    let pct = skipped as f64 * 100.0 / tools as f64;
    (pct > max_pct).then(|| {
        format!(
            "the round trip skipped {skipped} of {tools} tools ({pct:.1} %, more than {max_pct} %): it checked too little to pass; see the skipped tools above, or pass --max-skipped {}",
            pct.ceil()
        )
    })
}

#[cfg(all(test, feature = "verify-deep"))]
mod tests {
    use super::*;

    #[test]
    fn a_round_trip_that_skips_too_much_fails() {
        assert!(too_many_skipped(2, 100, 2.0).is_none());
        let e = too_many_skipped(3, 100, 2.0).expect("over 2 %");
        assert!(e.contains("3 of 100 tools (3.0 %"), "{e}");
        assert!(too_many_skipped(10, 10, 2.0).is_some());
        assert!(too_many_skipped(10, 10, 100.0).is_none());
        assert!(too_many_skipped(0, 0, 2.0).is_none());
    }
}
