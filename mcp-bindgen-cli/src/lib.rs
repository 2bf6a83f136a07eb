//! # mcp-bindgen-cli
//!
//! The commands of [mcp-bindgen](https://github.com/mcp-bindgen/mcp-bindgen), for your own
//! workspace. Two ways to run them:
//!
//! * **installed**: `cargo install mcp-bindgen-cli` gives `cargo mcp-bindgen …`;
//! * **a 3-line xtask** (pinned with your other dependencies, nothing to install): a crate
//!   `xtask` with `mcp-bindgen-cli` as its dependency, the alias
//!   `xtask = "run --package xtask --"` in `.cargo/config.toml`, and
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     mcp_bindgen_cli::main()
//! }
//! ```
//!
//! which gives `cargo xtask snapshot`, `cargo xtask verify`, … exactly as in mcp-bindgen's
//! own repository.
//!
//! | command | what it does |
//! |---|---|
//! | `snapshot [ALIAS…] [--check] [--allow-unreachable]` | connect to the registry's servers and write `fixtures/<alias>.json`; exit 1 when a server failed (`--allow-unreachable`: a warning, except for `required = true` servers); with `--check` write nothing, classify every change, exit 1 on drift |
//! | `diff OLD NEW \| diff --base REV` | review a fixture change with no server: per tool, the wire class (BREAKING / ADDITIVE / DOCS / NONE) and the Rust API effect (major / minor / patch) with reasons; `--format text\|markdown\|json`, `--fail-on breaking\|additive\|docs` |
//! | `verify [--deep] [--fixtures DIR]` | generate code for every fixture (no network); with `--deep`, check that every valid value of every schema survives the generated types and that every resource template's `Args` makes the URI its expansion makes; exit 1 on errors, failures, or more than 2 % of the tools skipped (`--max-skipped PCT`) |
//! | `expand ALIAS\|PATH` | print the Rust code `mcp_tools!` generates for a fixture |
//! | `tools [--format FORMAT] [--compact] [--tokens] [--check]` | every fixture's tools as a model provider's tool definitions: `openai` (default), `openai-strict`, `openai-responses`, `anthropic` or `gemini` (`--compact`: the compact definitions); `--check` checks them and prints a summary; `anthropic-mcp` / `openai-mcp`: the remote servers as the provider's native MCP connector entries; `--tokens`: what each server's tools cost a model per format, full and compact, largest first, failing over a server's `max_tokens` budget |
//! | `call ALIAS TOOL [JSON]` | call one tool of a configured server and print the result |
//! | `login ALIAS [--no-browser]` | OAuth login to an HTTP server with `auth = "oauth"`: authorization code + PKCE through a loopback redirect, tokens in the user's token store |
//! | `logout ALIAS` | delete a server's stored OAuth tokens |
//!
//! Every command answers `--help`; a misspelled command, option or server alias gets a
//! "did you mean". Colours only on a terminal, never with `NO_COLOR`.
//!
//! ## Features
//!
//! The default build compiles no C and about 150 crates. Three features add the rest;
//! without one, the command that needs it fails at once and names it:
//!
//! * `verify-deep`: `verify --deep` (the round-trip oracle, `jsonschema`) and the draft
//!   2020-12 meta-schema check of `tools --format … --check`;
//! * `tokens`: `tools --tokens` and `--max-tokens` (OpenAI's `o200k_base`, `bpe-openai`);
//! * `oauth-jwt`: client credentials with a signed JWT (`private_key` in the registry;
//!   rmcp signs with `jsonwebtoken`, which builds aws-lc's C code).
//!
//! Paths work like cargo's: the project is found from the current directory (or
//! `--manifest-path`), its registry is `fixtures/servers.toml` and its fixtures are
//! `fixtures/*.json` next to the nearest `Cargo.toml` that has them — the rule `mcp_tools!`
//! uses ([`mcp_bindgen_core::project`]). `--config PATH` reads another registry: TOML, or JSON in
//! Claude Desktop's / Cursor's `{"mcpServers": …}` shape or VS Code's `{"servers": …}`
//! shape; disabled servers are skipped, and what the file has that mcp-bindgen does not read
//! (other clients' keys, a server name used under a normalized alias) is printed as
//! `<command>: warning: …`. Paths given on the command line are relative to the
//! current directory. The commands never set environment variables: a server sees at
//! snapshot time exactly what your program gives it at run time.
#![deny(missing_docs)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[macro_use]
mod terminal;
mod args;
mod call;
#[cfg(feature = "verify-deep")]
mod deep;
mod diff;
mod error;
mod expand;
mod login;
mod paths;
mod snapshot;
mod tokens;
mod tools;
mod verify;

pub use error::{Error, Result};

/// The README's examples, compiled by `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// One command: its synopsis and what it does. The top-level help, `cargo xtask`'s help in
/// mcp-bindgen's repository and the command table of this crate's documentation come from
/// [`COMMANDS`] (a test checks the documentation against it).
#[derive(Debug, Clone, Copy)]
pub struct Command {
    /// The word that selects it.
    pub name: &'static str,
    /// Its arguments, as in its own `--help`.
    pub synopsis: &'static str,
    /// What it does, in one or two short lines.
    pub about: &'static str,
}

/// Every command, in the order the help lists them.
pub const COMMANDS: &[Command] = &[
    Command {
        name: "snapshot",
        synopsis: "snapshot [ALIAS…] [--check] [--allow-unreachable]",
        about: "connect to the registry's servers, write fixtures/<alias>.json (exit 1 when a \
                server failed); --check: write nothing, classify every change, exit 1 on drift",
    },
    Command {
        name: "diff",
        synopsis: "diff OLD NEW | diff --base REV",
        about: "review a fixture change without a server: wire class and Rust API effect per \
                tool (--format text|markdown|json, --fail-on LEVEL)",
    },
    Command {
        name: "verify",
        synopsis: "verify [--deep] [--fixtures DIR]",
        about: "generate code for every fixture (no network); --deep: round-trip valid values \
                through the generated types; exit 1 on errors",
    },
    Command {
        name: "expand",
        synopsis: "expand ALIAS|PATH",
        about: "print the Rust code mcp_tools!(\"ALIAS\") generates",
    },
    Command {
        name: "tools",
        synopsis: "tools [--format FORMAT] [--compact] [--tokens] [--check]",
        about: "every fixture's tools as a model provider's tool definitions: openai (default), \
                openai-strict, openai-responses, anthropic or gemini; --tokens: what they cost a model, \
                per server and format; --check: check them (and the token budgets), print a summary",
    },
    Command {
        name: "call",
        synopsis: "call ALIAS TOOL [JSON]",
        about: "call one tool of a configured server, print the result",
    },
    Command {
        name: "login",
        synopsis: "login ALIAS [--no-browser]",
        about: "OAuth login to an HTTP server with `auth = \"oauth\"`: opens the authorization \
                URL, stores the tokens in the user's token store",
    },
    Command {
        name: "logout",
        synopsis: "logout ALIAS",
        about: "delete a server's stored OAuth tokens",
    },
];

/// The commands part of the help: each synopsis, its description beside it (wrapped).
pub fn commands_help() -> String {
    const COLUMN: usize = 32;
    const WIDTH: usize = 98;
    let mut out = String::new();
    for c in COMMANDS {
        let mut lines: Vec<String> = Vec::new();
        let mut line = String::new();
        for word in c.about.split_whitespace() {
            if !line.is_empty() && COLUMN + line.len() + 1 + word.len() > WIDTH {
                lines.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        lines.push(line);
        let head = format!("  {}", c.synopsis);
        if head.chars().count() + 2 > COLUMN {
            out.push_str(&head);
            out.push('\n');
        } else {
            out.push_str(&format!("{head:<COLUMN$}{}\n", lines.remove(0)));
        }
        for l in lines {
            out.push_str(&format!("{:COLUMN$}{l}\n", ""));
        }
    }
    out
}

/// Runs the command line of the current process and returns its exit code: 0 on success,
/// 1 when a command fails (drift, errors, an unreachable required server), 2 on a usage
/// error.
///
/// Works both as `cargo-mcp-bindgen` (run by cargo as `cargo mcp-bindgen …`, or directly)
/// and from a user's own xtask binary (`cargo xtask …`); messages name the fix in the form
/// the user ran.
pub fn main() -> ExitCode {
    let mut argv = std::env::args_os();
    let program = argv.next().unwrap_or_default();
    let mut args = Vec::new();
    for arg in argv {
        match arg.into_string() {
            Ok(a) => args.push(a),
            Err(bad) => {
                errln!("error: argument {bad:?} is not valid UTF-8");
                return ExitCode::from(2);
            }
        }
    }
    let stem = Path::new(&program)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let invoked_as = if stem == "cargo-mcp-bindgen" {
        // cargo runs `cargo-mcp-bindgen mcp-bindgen <args>`.
        if args.first().is_some_and(|a| a == "mcp-bindgen") {
            args.remove(0);
        }
        "cargo mcp-bindgen".to_string()
    } else if stem.is_empty() {
        "cargo xtask".to_string()
    } else {
        format!("cargo {stem}")
    };
    run(&invoked_as, &args)
}

/// Runs one command: `args` are the words after the program (`["snapshot", "github"]`),
/// `invoked_as` is how the user runs this program (`"cargo xtask"`, `"cargo mcp-bindgen"`),
/// used in usage texts and hints. Relative paths resolve against the current directory.
pub fn run(invoked_as: &str, args: &[String]) -> ExitCode {
    run_with_env(invoked_as, args, &[])
}

/// Like [`run`], with the registry's `${NAME}` placeholders looked up in `env` before the
/// process environment (how a task runner hands values to the servers it starts without
/// changing its own environment).
pub fn run_with_env(invoked_as: &str, args: &[String], env: &[(String, String)]) -> ExitCode {
    init_logging();
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => {
            errln!("error: cannot read the current directory: {e}");
            return ExitCode::FAILURE;
        }
    };
    let cli = Cli {
        invoked_as: invoked_as.to_string(),
        cwd,
        env: std::sync::Arc::new(env.to_vec()),
    };
    cli.dispatch(args)
}

/// The context every command gets: how the user runs us, and where they are.
pub(crate) struct Cli {
    /// `cargo xtask` or `cargo mcp-bindgen`.
    pub invoked_as: String,
    /// The directory relative paths resolve against.
    pub cwd: PathBuf,
    /// Placeholder values that take precedence over the process environment.
    pub env: std::sync::Arc<Vec<(String, String)>>,
}

impl Cli {
    /// How commands connect to servers: placeholders from [`Cli::env`], then the process
    /// environment.
    pub fn connect_options(&self) -> mcp_bindgen::ConnectOptions {
        let env = self.env.clone();
        mcp_bindgen::ConnectOptions::new().with_env_lookup(move |name| {
            env.iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
                .or_else(|| std::env::var(name).ok())
        })
    }

    /// `` `cargo xtask snapshot github` `` (in backticks) for `args = "snapshot github"`.
    pub fn hint(&self, args: &str) -> String {
        format!("`{} {args}`", self.invoked_as)
    }

    fn usage(&self) -> String {
        format!(
            "usage: {p} <command> [options]

commands:
{commands}
options of every command:
  --manifest-path PATH          find the project from this Cargo.toml instead of the current directory
  -h, --help                    the command's own options

The project's registry is fixtures/servers.toml and its fixtures fixtures/<alias>.json, next to
the nearest Cargo.toml (from the current directory up) that has them. `--config PATH` reads
another registry: TOML, or a .json file in the {{\"mcpServers\": …}} shape (Claude Desktop,
Cursor) or the {{\"servers\": …}} shape (VS Code's .vscode/mcp.json). Disabled servers are
skipped; other clients' keys are ignored with a warning.",
            p = self.invoked_as,
            commands = commands_help(),
        )
    }

    fn dispatch(&self, args: &[String]) -> ExitCode {
        let Some((command, rest)) = args.split_first() else {
            errln!("{}", self.usage());
            return ExitCode::from(2);
        };
        let result = match command.as_str() {
            "snapshot" => snapshot::run(self, rest),
            "diff" => diff::run(self, rest),
            "verify" => verify::run(self, rest),
            "expand" => expand::run(self, rest),
            "tools" => tools::run(self, rest),
            "call" => call::run(self, rest),
            "login" | "logout" => login::run(self, command, rest),
            "-h" | "--help" | "help" => {
                outln!("{}", self.usage());
                return ExitCode::SUCCESS;
            }
            "-V" | "--version" => {
                outln!("mcp-bindgen-cli {}", env!("CARGO_PKG_VERSION"));
                return ExitCode::SUCCESS;
            }
            // The suggestion and one usage line: the command list is one `--help` away.
            other => Err(Error::Usage(format!(
                "unknown command `{other}`{}\n\nusage: {p} <command> [options] ({p} --help lists the commands)",
                mcp_bindgen_core::naming::did_you_mean(other, COMMANDS.iter().map(|c| c.name)),
                p = self.invoked_as
            ))),
        };
        match result {
            Ok(code) => code,
            Err(Error::Help(text)) => {
                outln!("{text}");
                ExitCode::SUCCESS
            }
            Err(e @ Error::Usage(_)) => {
                errln!("{command}: {e}");
                ExitCode::from(2)
            }
            Err(e) => {
                errln!("{command}: error: {e}");
                ExitCode::FAILURE
            }
        }
    }

    /// `path` relative to the current directory (absolute paths stay as they are).
    pub fn resolve(&self, path: impl Into<PathBuf>) -> PathBuf {
        self.cwd.join(path.into())
    }

    /// `path` as the user should read it: relative to the current directory when it is
    /// below it, else as is.
    pub fn show(&self, path: &Path) -> String {
        path.strip_prefix(&self.cwd)
            .unwrap_or(path)
            .display()
            .to_string()
    }
}

/// Warnings of the runtime (a server's non-JSON output, skipped servers' details) go to
/// stderr; `MCP_BINDGEN_LOG=debug` (or `info`, `trace`, `error`, `off`) changes the level,
/// and `debug` shows every server's stderr.
fn init_logging() {
    use tracing_subscriber::filter::LevelFilter;
    let level = match std::env::var_os("MCP_BINDGEN_LOG")
        .map(OsString::into_string)
        .and_then(Result::ok)
        .as_deref()
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("off") => LevelFilter::OFF,
        Some("error") => LevelFilter::ERROR,
        Some("info") => LevelFilter::INFO,
        Some("debug") => LevelFilter::DEBUG,
        Some("trace") => LevelFilter::TRACE,
        _ => LevelFilter::WARN,
    };
    // rmcp logs its own view of failures (with library type names) that our errors
    // already report in words: shown from `debug` on.
    let debug_only = if level >= LevelFilter::DEBUG {
        level
    } else {
        LevelFilter::OFF
    };
    let filter = tracing_subscriber::filter::Targets::new()
        .with_default(level)
        .with_target("rmcp", debug_only)
        // `snapshot` reports the tools a listing left out itself, with what it did to them.
        .with_target(mcp_bindgen::REJECTED_TOOL_TARGET, debug_only);
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    // A second `run` in the same process keeps the first subscriber.
    let _ = tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_target(false)
                .with_ansi(
                    std::io::IsTerminal::is_terminal(&std::io::stderr())
                        && std::env::var_os("NO_COLOR").is_none(),
                )
                .without_time(),
        )
        .with(filter)
        .try_init();
}

/// A multi-threaded tokio runtime for the commands that talk to servers.
pub(crate) fn async_runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Other(format!("cannot start the async runtime: {e}")))
}

#[cfg(test)]
mod tests {
    use super::COMMANDS;

    /// The crate documentation's table lists exactly [`COMMANDS`], with their synopses.
    #[test]
    fn the_documented_commands_are_the_commands() {
        let source = include_str!("lib.rs");
        let rows: Vec<&str> = source
            .lines()
            .filter_map(|l| l.strip_prefix("//! | `"))
            .filter_map(|l| l.split("` |").next())
            .collect();
        let synopses: Vec<String> = COMMANDS
            .iter()
            .map(|c| c.synopsis.replace('|', "\\|"))
            .collect();
        assert_eq!(rows, synopses);
    }
}
