//! `diff OLD NEW` and `diff --base REV`: the reviewer's command. The same review as
//! `snapshot --check` — the wire class (BREAKING / ADDITIVE / DOCS / NONE) and the effect on
//! the generated Rust API (major / minor / patch) per changed tool, with the reasons — for
//! two fixture files, two fixture directories, or the project's fixtures against a git
//! revision. No server is started.
//!
//! Exit code: 0 when nothing changed (or nothing reached `--fail-on`), 1 when something did,
//! 2 on a usage error.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use mcp_bindgen_codegen::review::{Format, Review, review};
use mcp_bindgen_core::diff::Severity;
use serde_json::{Map, Value, json};

use crate::args::{Arg, Parser};
use crate::paths::{LOCATE_USAGE, Locate};
use crate::{Cli, Error, Result};

fn usage(cli: &Cli) -> String {
    format!(
        "usage: {p} diff OLD NEW [--format text|markdown|json] [--fail-on LEVEL]
       {p} diff --base REV [ALIAS…] [--format …] [--fail-on LEVEL] [--fixtures DIR]

Reviews a fixture change with no server: per changed tool, the wire class (BREAKING,
ADDITIVE, DOCS, NONE) and the effect on the generated Rust API (major, minor, patch), with
the reasons.

  OLD NEW                two fixture files, or two directories of fixtures (paired by name)
  --base REV             the project's fixtures (working tree) against git revision REV
  ALIAS…                 with --base: only these fixtures
  --format FORMAT        text (default), markdown (a pull-request comment) or json
  --fail-on LEVEL        exit 1 only when a change reaches LEVEL: breaking, additive, docs
                         (default: any change, equivalent spellings included)
{LOCATE_USAGE}",
        p = cli.invoked_as
    )
}

/// `--format` and `--fail-on`, shared with `snapshot --check`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Gate {
    pub format: Format,
    /// `None`: any change fails.
    pub fail_on: Option<Severity>,
}

impl Default for Gate {
    fn default() -> Self {
        Gate {
            format: Format::Text,
            fail_on: None,
        }
    }
}

impl Gate {
    /// Takes `--format` or `--fail-on` (and its value) when `flag` is one of them.
    pub fn take(&mut self, flag: &str, p: &mut Parser) -> Result<bool> {
        match flag {
            "--format" => {
                self.format = match p.value(flag)?.as_str() {
                    "text" => Format::Text,
                    "markdown" | "md" => Format::Markdown,
                    "json" => Format::Json,
                    other => {
                        return Err(p.error(&format!(
                            "--format {other}: expected text, markdown or json"
                        )));
                    }
                }
            }
            "--fail-on" => {
                self.fail_on = match p.value(flag)?.as_str() {
                    "any" => None,
                    "docs" => Some(Severity::Docs),
                    "additive" => Some(Severity::Additive),
                    "breaking" => Some(Severity::Breaking),
                    other => {
                        return Err(p.error(&format!(
                            "--fail-on {other}: expected breaking, additive, docs or any"
                        )));
                    }
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// One fixture on both sides (`None`: absent on that side).
struct Pair {
    name: String,
    shown: String,
    old: Option<Value>,
    new: Option<Value>,
}

/// Entry point; `words` are the words after `diff`.
pub(crate) fn run(cli: &Cli, words: &[String]) -> Result<ExitCode> {
    let mut p = Parser::new(words, usage(cli));
    let mut locate = Locate::default();
    let mut gate = Gate::default();
    let mut base: Option<String> = None;
    let mut positional: Vec<String> = Vec::new();
    while let Some(arg) = p.next()? {
        match arg {
            Arg::Word(w) => positional.push(w),
            Arg::Flag(f) if f == "--base" => base = Some(p.value(&f)?),
            Arg::Flag(f) => {
                if !gate.take(&f, &mut p)? && !locate.take(&f, &mut p)? {
                    return Err(p.unknown(&f));
                }
            }
        }
    }
    let (pairs, single) = match (&base, positional.as_slice()) {
        (Some(rev), aliases) => (against_revision(cli, &locate, rev, aliases)?, false),
        (None, [old, new]) => {
            let (old, new) = (cli.resolve(old), cli.resolve(new));
            match (old.is_dir(), new.is_dir()) {
                (true, true) => (directories(cli, &old, &new)?, false),
                (false, false) => (vec![files(cli, &old, &new)?], true),
                _ => {
                    return Err(p.error("OLD and NEW must both be files or both be directories"));
                }
            }
        }
        (None, _) => return Err(p.error("give OLD and NEW, or --base REV")),
    };
    // In a directory, a JSON file with no `tools` array on either side is not a fixture
    // (a registry in the `mcpServers` or `servers` shape, say).
    let is_fixture = |v: &Option<Value>| {
        v.as_ref()
            .is_some_and(|v| v.get("tools").is_some_and(Value::is_array))
    };
    let pairs: Vec<Pair> = pairs
        .into_iter()
        .filter(|pair| {
            let keep = single || is_fixture(&pair.old) || is_fixture(&pair.new);
            if !keep {
                errln!(
                    "note: {} is not a fixture (no `tools` array); skipped",
                    pair.shown
                );
            }
            keep
        })
        .collect();
    let reviews: Vec<Shown> = pairs
        .into_iter()
        .map(|pair| {
            let empty = json!({"tools": []});
            let note = match (&pair.old, &pair.new) {
                (None, _) => " (new fixture)",
                (_, None) => " (fixture removed)",
                _ => "",
            };
            Shown {
                review: review(
                    pair.old.as_ref().unwrap_or(&empty),
                    pair.new.as_ref().unwrap_or(&empty),
                ),
                header: format!("{}{note}", pair.shown),
                name: pair.name,
            }
        })
        .collect();
    out!("{}", render(&reviews, gate.format, single));
    let failed = reviews.iter().any(|r| r.review.fails(gate.fail_on));
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// One fixture's review as printed: its name (the JSON key), its header line (a path, and
/// `(new fixture)` / `(fixture removed)`) and the review.
pub(crate) struct Shown {
    pub name: String,
    pub header: String,
    pub review: Review,
}

/// Reviews in `format`: JSON is one document (a single pair of files: the review itself;
/// else `{"fixtures": {"<name>": review}}`), text and markdown one block per changed
/// fixture.
pub(crate) fn render(reviews: &[Shown], format: Format, single: bool) -> String {
    if format == Format::Json {
        let value = match reviews {
            [only] if single => only.review.to_json(),
            _ => {
                let mut m = Map::new();
                for r in reviews {
                    m.insert(r.name.clone(), r.review.to_json());
                }
                json!({ "fixtures": m })
            }
        };
        let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
        text.push('\n');
        return text;
    }
    let changed: Vec<&Shown> = reviews.iter().filter(|r| !r.review.is_empty()).collect();
    if changed.is_empty() {
        return match format {
            Format::Markdown => "No fixture changes.\n",
            _ => "no changes\n",
        }
        .to_string();
    }
    let mut out = String::new();
    for r in changed {
        match format {
            Format::Markdown => {
                out.push_str(&format!("### `{}`\n\n", r.header));
                out.push_str(&r.review.render(Format::Markdown));
                out.push('\n');
            }
            _ => {
                out.push_str(&format!("── {}: {}\n", r.header, r.review.totals()));
                out.push_str(&r.review.render(Format::Text));
            }
        }
    }
    out
}

fn read_json(cli: &Cli, path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Project(format!("cannot read {}: {e}", cli.show(path))))?;
    parse_json(&text, &cli.show(path))
}

fn parse_json(text: &str, shown: &str) -> Result<Value> {
    serde_json::from_str(text).map_err(|e| {
        Error::Project(format!(
            "{shown} is not valid JSON (line {} column {}: {e})",
            e.line(),
            e.column()
        ))
    })
}

fn files(cli: &Cli, old: &Path, new: &Path) -> Result<Pair> {
    Ok(Pair {
        name: stem(new),
        shown: cli.show(new),
        old: Some(read_json(cli, old)?),
        new: Some(read_json(cli, new)?),
    })
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}

/// The `*.json` file names of a directory.
fn json_names(cli: &Cli, dir: &Path) -> Result<Vec<String>> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Error::Project(format!("cannot read {}: {e}", cli.show(dir))))?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    Ok(names)
}

fn directories(cli: &Cli, old: &Path, new: &Path) -> Result<Vec<Pair>> {
    let mut names = json_names(cli, old)?;
    names.extend(json_names(cli, new)?);
    names.sort();
    names.dedup();
    names
        .into_iter()
        .map(|name| {
            let (a, b) = (old.join(&name), new.join(&name));
            Ok(Pair {
                name: name.trim_end_matches(".json").to_string(),
                shown: cli.show(&b),
                old: a.is_file().then(|| read_json(cli, &a)).transpose()?,
                new: b.is_file().then(|| read_json(cli, &b)).transpose()?,
            })
        })
        .collect()
}

fn git(dir: &Path, args: &[&str]) -> Result<std::process::Output> {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| Error::Other(format!("cannot run git: {e}")))
}

/// The project's fixtures in the working tree against the same directory at `rev`.
fn against_revision(
    cli: &Cli,
    locate: &Locate,
    rev: &str,
    aliases: &[String],
) -> Result<Vec<Pair>> {
    let dir: PathBuf = locate.existing_fixtures_dir(cli)?;
    let check = git(
        &dir,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )?;
    if !check.status.success() {
        return Err(Error::Project(format!(
            "--base {rev}: not a git revision of the repository holding {}",
            cli.show(&dir)
        )));
    }
    let listed = git(&dir, &["ls-tree", "--name-only", rev, "./"])?;
    if !listed.status.success() {
        return Err(Error::Project(format!(
            "git ls-tree {rev}: {}",
            String::from_utf8_lossy(&listed.stderr).trim()
        )));
    }
    let mut names: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .filter_map(|l| Path::new(l).file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.extend(json_names(cli, &dir)?);
    names.sort();
    names.dedup();
    if !aliases.is_empty() {
        for alias in aliases {
            if !names.iter().any(|n| n.trim_end_matches(".json") == alias) {
                return Err(Error::Project(format!(
                    "no fixture {alias}.json in {} or at {rev}",
                    cli.show(&dir)
                )));
            }
        }
        names.retain(|n| aliases.iter().any(|a| n.trim_end_matches(".json") == a));
    }
    names
        .into_iter()
        .map(|name| {
            let path = dir.join(&name);
            let shown = cli.show(&path);
            let old = git(&dir, &["show", &format!("{rev}:./{name}")])?;
            let old = if old.status.success() {
                Some(parse_json(
                    &String::from_utf8_lossy(&old.stdout),
                    &format!("{shown} at {rev}"),
                )?)
            } else {
                None
            };
            let new = path.is_file().then(|| read_json(cli, &path)).transpose()?;
            Ok(Pair {
                name: name.trim_end_matches(".json").to_string(),
                shown,
                old,
                new,
            })
        })
        .collect()
}
