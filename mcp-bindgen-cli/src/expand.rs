//! `expand ALIAS|PATH [--only TOOL]… [--skip TOOL]… [--rename FROM=TO]… [--type TOOL.ARG=TYPE]…`:
//! prints the Rust code `mcp_tools!` generates for a fixture, formatted with prettyplease.
//!
//! `ALIAS` is looked up as `mcp_tools!("ALIAS")` would look it up (the project's
//! `fixtures/ALIAS.json`); a word that contains a path separator or ends in `.json` is a
//! path, relative to the current directory. The options mirror the macro's. Fallbacks and
//! notes go to stderr.

use std::path::PathBuf;
use std::process::ExitCode;

use mcp_bindgen_codegen::{Options, format_tokens, generate};
use mcp_bindgen_core::fixture::Fixture;

use crate::args::{Arg, Parser};
use crate::paths::{LOCATE_USAGE, Locate};
use crate::{Cli, Error, Result};

fn usage(cli: &Cli) -> String {
    format!(
        "usage: {} expand ALIAS|PATH [options]

Prints the Rust code mcp_tools!(\"ALIAS\") generates (ALIAS: the project's
fixtures/ALIAS.json; a word with a `/` or ending in .json is a file path).

  --only TOOL            generate only these tools (repeat, or comma-separate)
  --skip TOOL            leave these tools out (repeat, or comma-separate)
  --rename FROM=TO       rename a tool's function (`tool=name`) or an argument (`tool.arg=name`)
  --type TOOL.ARG=TYPE   use a Rust type for one argument (e.g. `get_issue.number=u64`)
{LOCATE_USAGE}",
        cli.invoked_as
    )
}

/// Entry point; `words` are the words after `expand`.
pub(crate) fn run(cli: &Cli, words: &[String]) -> Result<ExitCode> {
    let mut p = Parser::new(words, usage(cli));
    let mut locate = Locate::default();
    let mut target: Option<String> = None;
    let mut options = Options::default();
    // `--only` may be repeated: the lists add up.
    let mut only: Option<Vec<String>> = None;
    while let Some(arg) = p.next()? {
        match arg {
            Arg::Word(w) if target.is_none() => target = Some(w),
            Arg::Word(w) => return Err(p.error(&format!("unexpected argument `{w}`"))),
            Arg::Flag(f) if f == "--only" => {
                let tools = list(&p.value(&f)?);
                only.get_or_insert_with(Vec::new).extend(tools);
            }
            Arg::Flag(f) if f == "--skip" => options = options.with_skip(list(&p.value(&f)?)),
            Arg::Flag(f) if f == "--rename" || f == "--type" => {
                let value = p.value(&f)?;
                let Some((from, to)) = value.split_once('=') else {
                    return Err(p.error(&format!("{f} takes KEY=VALUE, not `{value}`")));
                };
                let (from, to) = (from.trim(), to.trim());
                options = if f == "--rename" {
                    options.with_rename(from, to)
                } else {
                    options.with_type(from, to)
                };
            }
            Arg::Flag(f) => {
                if !locate.take(&f, &mut p)? {
                    return Err(p.unknown(&f));
                }
            }
        }
    }
    if let Some(only) = only {
        options = options.with_only(only);
    }
    let Some(target) = target else {
        return Err(p.error("which fixture? give an ALIAS or a PATH"));
    };
    let is_path = target.ends_with(".json") || target.contains('/') || target.contains('\\');
    let path: PathBuf = if is_path {
        cli.resolve(&target)
    } else {
        locate.fixture_file(cli, &target)?
    };
    if !is_path && !path.exists() {
        let dir = path.parent().unwrap_or(&path);
        let fix = mcp_bindgen_core::project::missing_fixture_fix(
            dir,
            &target,
            &|a| cli.hint(&format!("snapshot {a}")),
            &|best| cli.hint(&format!("expand {best}")),
        );
        return Err(Error::Other(format!(
            "no fixture for server \"{target}\" at {}; {fix}",
            cli.show(&path)
        )));
    }
    let fixture = Fixture::load(&path).map_err(|e| {
        if is_path {
            Error::Fixture(e)
        } else {
            Error::Other(format!(
                "{e}; run {} to write it again",
                cli.hint(&format!("snapshot {target}"))
            ))
        }
    })?;
    let alias = if is_path {
        mcp_bindgen_codegen::verify::alias_of(&fixture)
    } else {
        target
    };
    let generated = generate(&fixture, &alias, &options)?;
    for w in &generated.warnings {
        errln!("warning: {w}");
    }
    out!("{}", format_tokens(&alias, generated.tokens()?)?);
    Ok(ExitCode::SUCCESS)
}

/// `a,b, c` → `["a", "b", "c"]`.
fn list(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}
