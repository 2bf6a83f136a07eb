//! `snapshot [ALIAS…] [--check [--fail-on LEVEL] [--format F]] [--all-required]`: list the
//! tools of the registry's servers into fixtures, or check the committed fixtures against
//! them.
//!
//! Connects to the selected servers in parallel, lists their tools (all pages, response
//! cache off), prompts and resource templates, and writes `fixtures/<alias>.json` in
//! canonical form (sorted keys, 2-space indent, trailing newline: an unchanged server gives
//! a byte-identical file). With `--check` nothing is written: each live answer is compared
//! with the committed fixture, every changed tool is reviewed on both axes (the wire class
//! BREAKING / ADDITIVE / DOCS / NONE and the Rust API effect major / minor / patch, as
//! `diff` prints them), a unified diff follows, and the exit code is 1 on drift that reaches
//! `--fail-on` (default: any change).
//!
//! The command never changes the environment: a server is started exactly as the user's
//! program would start it from the same registry.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use mcp_bindgen::{Registry, ServerConfig};
use mcp_bindgen_codegen::review::{Format, Review};
use mcp_bindgen_core::fixture::{build_document, canonical_json};
use serde_json::{Map, Value, json};

use crate::args::{Arg, Parser};
use crate::diff::{Gate, Shown};
use crate::paths::{LOCATE_USAGE, Locate};
use crate::{Cli, Error, Result};

fn usage(cli: &Cli) -> String {
    format!(
        "usage: {} snapshot [ALIAS…] [--check [--fail-on LEVEL] [--format FORMAT]] [--allow-unreachable] [--all-required] [--config PATH] [--fixtures DIR]

  ALIAS…                 servers to snapshot (default: every server of the registry but the
                         disabled ones: `enabled = false`, `\"disabled\": true`)
  --check                write nothing; compare with the committed fixtures, exit 1 on drift
                         or when a server could not be checked
  --allow-unreachable    a server that cannot be reached (not started, an undefined
                         variable) is a warning, not a failure (`required = true` servers
                         still fail); without it any such server exits 1
  --fail-on LEVEL        with --check: drift fails only when a change reaches LEVEL:
                         breaking, additive, docs (default: any change)
  --format FORMAT        with --check: the review as text (default), markdown or json
  --all-required         treat every selected server as `required = true`
{LOCATE_USAGE}",
        cli.invoked_as
    )
}

/// The parsed command line.
struct Args {
    aliases: Vec<String>,
    locate: Locate,
    check: bool,
    gate: Gate,
    gate_given: bool,
    allow_unreachable: bool,
    all_required: bool,
}

fn parse(cli: &Cli, words: &[String]) -> Result<Args> {
    let mut p = Parser::new(words, usage(cli));
    let mut out = Args {
        aliases: Vec::new(),
        locate: Locate::default(),
        check: false,
        gate: Gate::default(),
        gate_given: false,
        allow_unreachable: false,
        all_required: false,
    };
    while let Some(arg) = p.next()? {
        match arg {
            Arg::Word(alias) => out.aliases.push(alias),
            Arg::Flag(f) if f == "--check" => out.check = true,
            Arg::Flag(f) if f == "--all-required" => out.all_required = true,
            Arg::Flag(f) if f == "--allow-unreachable" => out.allow_unreachable = true,
            Arg::Flag(f) => {
                if out.gate.take(&f, &mut p)? {
                    out.gate_given = true;
                } else if !out.locate.take(&f, &mut p)? {
                    return Err(p.unknown(&f));
                }
            }
        }
    }
    if out.gate_given && !out.check {
        return Err(p.error("--fail-on and --format are for --check"));
    }
    Ok(out)
}

/// What happened to one server.
enum Outcome {
    /// Connected and listed.
    Listed(Listing),
    /// Not reached; `required` decides whether this fails the command.
    Failed(mcp_bindgen::Error),
    /// Reached, but what it answered had to be rejected (a pagination cycle, a tool listed
    /// twice, lines that are not JSON-RPC): always fails the command; no fixture is written.
    Rejected(mcp_bindgen::Error),
}

/// One server's tools as a canonical fixture text.
pub(crate) struct Listing {
    /// The fixture, canonical JSON.
    pub text: String,
    /// Number of tools.
    pub tools: usize,
    /// The protocol revision the server answered with.
    pub protocol: String,
    /// Tools the server listed that a client must not call (invalid `x-mcp-header`), with
    /// the rule each breaks; not in the fixture.
    pub rejected: Vec<(String, String)>,
    /// Tools whose names break the MCP tool-name rule, with why (kept, reported as the
    /// server's bug).
    pub odd_names: Vec<(String, String)>,
}

struct Row {
    alias: String,
    transport: &'static str,
    required: bool,
    elapsed: Duration,
    outcome: Outcome,
}

/// Entry point; `words` are the words after `snapshot`.
pub(crate) fn run(cli: &Cli, words: &[String]) -> Result<ExitCode> {
    let args = parse(cli, words)?;
    let registry = args.locate.load_registry(cli, "snapshot")?;
    let registry_path = registry.path.clone();
    let fixtures_dir = args.locate.fixtures_dir(cli, Some(&registry_path))?;
    let selected: Vec<ServerConfig> = if args.aliases.is_empty() {
        for alias in registry.disabled() {
            errln!(
                "snapshot: skipped server \"{alias}\": {}",
                why_disabled(cli, &registry, alias)
            );
        }
        registry.servers().to_vec()
    } else {
        // A disabled server named here is the registry's error, which says so.
        args.aliases
            .iter()
            .map(|a| registry.get(a).cloned())
            .collect::<std::result::Result<_, _>>()?
    };
    if selected.is_empty() {
        let shown = cli.show(&registry_path);
        return Err(Error::Project(if registry.disabled().is_empty() {
            format!("the registry {shown} lists no servers; add a [servers.<alias>] table")
        } else {
            format!(
                "every server of the registry {shown} is disabled ({}); enable one, or add a [servers.<alias>] table",
                registry.disabled().join(", ")
            )
        }));
    }

    let started = Instant::now();
    let names: Vec<&str> = selected.iter().map(|s| s.alias()).collect();
    errln!(
        "snapshot: {} server(s) of {}, in parallel: {}",
        selected.len(),
        cli.show(&registry_path),
        names.join(", ")
    );
    let rows = crate::async_runtime()?.block_on(snapshot_all(
        &selected,
        args.all_required,
        cli.connect_options(),
    ));
    let total = started.elapsed();

    let mut failed = false;
    let mut drift = false;
    let mut statuses = Vec::with_capacity(rows.len());
    // `--check --format json|markdown`: every checked server's review, printed at the end.
    let mut reviews: Vec<Shown> = Vec::new();
    for row in &rows {
        let path = fixtures_dir.join(format!("{}.json", row.alias));
        let status = match &row.outcome {
            Outcome::Failed(error) if row.required => {
                failed = true;
                errln!("error: server \"{}\" (required): {error}", row.alias);
                "FAILED (required)".to_string()
            }
            // A gate that skips what it cannot reach passes by accident; a re-snapshot that
            // skips it keeps a stale fixture quietly.
            Outcome::Failed(error) if args.check && !args.allow_unreachable => {
                failed = true;
                errln!(
                    "error: {error}\n       so \"{}\" was not checked (pass --allow-unreachable to check only the servers that answer)",
                    row.alias
                );
                "NOT CHECKED".to_string()
            }
            Outcome::Failed(error) if !args.allow_unreachable => {
                failed = true;
                errln!(
                    "error: {error}\n       so {} was not written (pass --allow-unreachable to snapshot only the servers that answer)",
                    cli.show(&path)
                );
                "FAILED".to_string()
            }
            Outcome::Failed(error) => {
                errln!("warning: {error}; skipped");
                "skipped".to_string()
            }
            Outcome::Rejected(error) => {
                failed = true;
                errln!(
                    "error: {error}\n       so {} was not written",
                    cli.show(&path)
                );
                "REJECTED".to_string()
            }
            Outcome::Listed(listing) => {
                let old = std::fs::read_to_string(&path).ok();
                if args.check {
                    match old {
                        Some(old) if old == listing.text => {
                            reviews.push(Shown {
                                name: row.alias.clone(),
                                header: cli.show(&path),
                                review: Review::default(),
                            });
                            "unchanged".to_string()
                        }
                        Some(old) => {
                            let fails = print_drift(
                                cli,
                                &row.alias,
                                &path,
                                (&old, &listing.text),
                                args.gate,
                                &mut reviews,
                            );
                            drift |= fails;
                            if fails {
                                "DRIFT"
                            } else {
                                "DRIFT (below --fail-on)"
                            }
                            .to_string()
                        }
                        None => {
                            drift = true;
                            if let Ok(new) = serde_json::from_str::<Value>(&listing.text) {
                                reviews.push(Shown {
                                    name: row.alias.clone(),
                                    header: format!("{} (no committed fixture)", cli.show(&path)),
                                    review: mcp_bindgen_codegen::review::review(
                                        &json!({"tools": []}),
                                        &new,
                                    ),
                                });
                            }
                            let line = format!(
                                "{}: no committed fixture at {}; run {}",
                                row.alias,
                                cli.show(&path),
                                cli.hint(&format!("snapshot {}", row.alias))
                            );
                            if args.gate.format == Format::Text {
                                outln!("{line}");
                            } else {
                                errln!("{line}");
                            }
                            "DRIFT (no fixture)".to_string()
                        }
                    }
                } else if old.as_deref() == Some(listing.text.as_str()) {
                    "unchanged".to_string()
                } else {
                    write_fixture(&path, &listing.text)?;
                    if old.is_some() { "updated" } else { "written" }.to_string()
                }
            }
        };
        statuses.push((status, path));
    }
    let machine = args.check && args.gate.format != Format::Text;
    if machine {
        out!("{}", crate::diff::render(&reviews, args.gate.format, false));
    }
    print_table(cli, &rows, &statuses, total, machine);
    // A rejected answer fails the command on its own (and was an answer).
    let none_answered = rows.iter().all(|r| matches!(r.outcome, Outcome::Failed(_)));
    if none_answered {
        errln!(
            "error: none of the {} selected server(s) answered; {}",
            rows.len(),
            if args.check {
                "nothing was checked"
            } else {
                "no fixture was written"
            }
        );
        failed = true;
    }
    Ok(if failed || drift {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Why the registry disables `alias`, as the registry says it (``disabled in mcp.json by
/// `"disabled": true` ``), the file shown as the user reads it.
fn why_disabled(cli: &Cli, registry: &Registry, alias: &str) -> String {
    let shown = cli.show(&registry.path);
    match registry.disabled_by(alias) {
        Some(key) => format!("disabled in {shown} by {key}"),
        None => format!("disabled in {shown}"),
    }
}

/// Writes a fixture atomically: a killed or failed run leaves the previous one intact.
fn write_fixture(path: &Path, text: &str) -> Result<()> {
    mcp_bindgen_core::project::write_atomic(path, text.as_bytes()).map_err(|source| Error::Write {
        path: path.to_path_buf(),
        source,
    })
}

async fn snapshot_all(
    selected: &[ServerConfig],
    all_required: bool,
    options: mcp_bindgen::ConnectOptions,
) -> Vec<Row> {
    let pending = std::sync::Arc::new(std::sync::Mutex::new(
        selected
            .iter()
            .map(|s| s.alias().to_string())
            .collect::<Vec<_>>(),
    ));
    let ticker = {
        let pending = pending.clone();
        tokio::spawn(async move {
            let started = Instant::now();
            loop {
                tokio::time::sleep(Duration::from_secs(5)).await;
                let waiting = pending.lock().map(|p| p.join(", ")).unwrap_or_default();
                if !waiting.is_empty() {
                    errln!(
                        "  … still waiting for: {waiting} ({:.0} s)",
                        started.elapsed().as_secs_f64()
                    );
                }
            }
        })
    };
    let tasks = selected.iter().cloned().map(|server| {
        let pending = pending.clone();
        let options = options.clone();
        tokio::spawn(async move {
            let started = Instant::now();
            let outcome = match snapshot_one(&server, options).await {
                Ok(listing) => Outcome::Listed(listing),
                Err(error) if rejected(&error) => Outcome::Rejected(error),
                Err(error) => Outcome::Failed(error),
            };
            let elapsed = started.elapsed();
            if let Ok(mut p) = pending.lock() {
                p.retain(|a| a != server.alias());
            }
            match &outcome {
                Outcome::Listed(listing) => {
                    errln!(
                        "  ✓ {:<20} {} tools in {:.1} s",
                        server.alias(),
                        listing.tools,
                        elapsed.as_secs_f64()
                    );
                    for (tool, why) in &listing.odd_names {
                        errln!(
                            "warning: {}: tool \"{}\" breaks the MCP tool-name rule: {why} (a server bug; kept, under a Rust name of its own)",
                            server.alias(),
                            mcp_bindgen_core::text::printable(tool, false)
                        );
                    }
                    for (tool, rule) in &listing.rejected {
                        errln!(
                            "warning: {}: tool \"{tool}\" left out of the fixture: {rule} (protocol 2026-07-28 forbids calling a tool with an invalid x-mcp-header)",
                            server.alias()
                        );
                    }
                }
                Outcome::Failed(_) | Outcome::Rejected(_) => errln!(
                    "  ✗ {:<20} failed after {:.1} s",
                    server.alias(),
                    elapsed.as_secs_f64()
                ),
            }
            Row {
                transport: server.transport().kind(),
                required: server.required() || all_required,
                alias: server.alias().to_string(),
                elapsed,
                outcome,
            }
        })
    });
    let results = futures::future::join_all(tasks).await;
    ticker.abort();
    results
        .into_iter()
        .zip(selected)
        .map(|(task, server)| {
            task.unwrap_or_else(|e| Row {
                alias: server.alias().to_string(),
                transport: server.transport().kind(),
                required: server.required() || all_required,
                elapsed: Duration::ZERO,
                outcome: Outcome::Failed(mcp_bindgen::Error::Transport {
                    server: server.alias().to_string(),
                    message: format!("snapshot task failed: {e}"),
                    stderr_tail: Vec::new(),
                }),
            })
        })
        .collect()
}

/// Whether a snapshot failed on what the server answered (not on reaching it): the server
/// broke the protocol, or timed out after writing lines that are not JSON-RPC.
fn rejected(error: &mcp_bindgen::Error) -> bool {
    matches!(
        error,
        mcp_bindgen::Error::Misbehaved { .. }
            | mcp_bindgen::Error::Timeout {
                diagnosis: Some(_),
                ..
            }
    )
}

/// Connects, lists tools, prompts and resource templates (and static resources, when the
/// registry entry says `record_resources = true`), and renders the fixture.
pub(crate) async fn snapshot_one(
    server: &ServerConfig,
    options: mcp_bindgen::ConnectOptions,
) -> mcp_bindgen::Result<Listing> {
    let session = options.connect(server).await?;
    let result = async {
        let tools = session.list_tools().await?;
        let prompts = session.list_prompts().await?;
        let templates = session.list_resource_templates().await?;
        // Static resources only when the registry asks: many servers list live data there.
        let resources = if server.record_resources() && session.server_info().has_resources {
            Some(session.list_resources().await?)
        } else {
            None
        };
        Ok::<_, mcp_bindgen::Error>((tools, prompts, templates, resources))
    }
    .await;
    let rejected = session.rejected_tools();
    let _ = session.close().await;
    let (tools, prompts, templates, resources) = result?;
    if let Some(name) = mcp_bindgen_core::fixture::duplicate_tool(&tools) {
        return Err(mcp_bindgen::Error::Misbehaved {
            server: server.alias().to_string(),
            method: "tools/list".into(),
            message: format!("server lists tool \"{name}\" twice (a server bug)"),
        });
    }
    // A server that reflects a resolved `${NAME}` (a token) into a tool must not get it
    // committed to git.
    if let Some(tool) = tools
        .iter()
        .chain(&prompts)
        .chain(&templates)
        .chain(resources.iter().flatten())
        .find(|t| session.contains_secret(&t.to_string()))
    {
        let name = tool
            .get("name")
            .or_else(|| tool.get("uriTemplate"))
            .or_else(|| tool.get("uri"))
            .and_then(Value::as_str)
            .unwrap_or("?");
        return Err(mcp_bindgen::Error::Misbehaved {
            server: server.alias().to_string(),
            method: "tools/list".into(),
            message: format!(
                "\"{}\" contains a secret of this server's configuration (a value a `${{NAME}}` resolved to, a header, or a credential in the URL), which a fixture meant for git must not hold; no fixture was written. Run the snapshot with a dummy value for that variable, or fix the server",
                mcp_bindgen_core::text::printable(&session.redact(name), false)
            ),
        });
    }
    let odd_names = tools
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .filter_map(|n| mcp_bindgen_core::text::valid_tool_name(n).map(|why| (n.to_string(), why)))
        .collect();
    let info = session.server_info();
    let count = tools.len();
    let mut extra = Map::new();
    extra.insert("prompts".into(), sorted_by(prompts, "name"));
    extra.insert(
        "resourceTemplates".into(),
        sorted_by(templates, "uriTemplate"),
    );
    if let Some(resources) = resources {
        extra.insert("resources".into(), sorted_by(resources, "uri"));
    }
    let doc = build_document(
        json!({
            "alias": server.alias(),
            "name": info.name,
            "version": info.version,
            "protocolVersion": info.protocol_version,
        }),
        tools,
        extra,
    );
    Ok(Listing {
        text: canonical_json(&doc),
        tools: count,
        protocol: info.protocol_version.clone(),
        rejected,
        odd_names,
    })
}

fn sorted_by(mut items: Vec<Value>, key: &str) -> Value {
    items.sort_by(|a, b| {
        let k = |v: &Value| v.get(key).and_then(Value::as_str).unwrap_or("").to_string();
        k(a).cmp(&k(b))
    });
    Value::Array(items)
}

/// Prints the review of one fixture's drift and a unified diff (as text), or keeps the
/// review for the JSON or markdown report; true when the drift reaches `--fail-on`.
fn print_drift(
    cli: &Cli,
    alias: &str,
    path: &Path,
    (old, new): (&str, &str),
    gate: Gate,
    reviews: &mut Vec<Shown>,
) -> bool {
    let shown = cli.show(path);
    let accept = cli.hint(&format!("snapshot {alias}"));
    let parsed = (
        serde_json::from_str::<Value>(old),
        serde_json::from_str::<Value>(new),
    );
    let (Ok(o), Ok(n)) = parsed else {
        errln!("{alias}: the committed fixture {shown} is not valid JSON; run {accept}");
        return true;
    };
    let review = mcp_bindgen_codegen::review::review(&o, &n);
    // Formatting alone is a change too (the fixture's text, so its hash, differs).
    let fails = review.fails(gate.fail_on) || (review.is_empty() && gate.fail_on.is_none());
    if gate.format != Format::Text {
        reviews.push(Shown {
            name: alias.to_string(),
            header: shown,
            review,
        });
        return fails;
    }
    outln!("── {alias}: drift against {shown}");
    if review.is_empty() {
        outln!("{alias}: only formatting differs (run {accept})");
    } else {
        out!("{}", review.render(Format::Text));
        outln!("{alias}: {}; accept them with {accept}", review.totals());
    }
    let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let label_old = format!("{shown} (committed)");
    let label_new = format!("{shown} (live)");
    let text = similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&label_old, &label_new)
        .to_string();
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.lines() {
        // Fixture text is JSON (control characters escaped), but C1 controls are not.
        let line = mcp_bindgen_core::text::printable(line, false);
        let paint = |code: &str| format!("\x1b[{code}m{line}\x1b[0m");
        let painted = if !color {
            line.to_string()
        } else if line.starts_with("+++") || line.starts_with("---") {
            paint("1")
        } else if line.starts_with('+') {
            paint("32")
        } else if line.starts_with('-') {
            paint("31")
        } else if line.starts_with("@@") {
            paint("36")
        } else {
            line.to_string()
        };
        out.push_str(&painted);
        out.push('\n');
    }
    crate::terminal::out_raw(&out);
    fails
}

/// The summary table: on stdout, or on stderr when stdout carries a JSON or markdown review.
fn print_table(
    cli: &Cli,
    rows: &[Row],
    statuses: &[(String, PathBuf)],
    total: Duration,
    to_stderr: bool,
) {
    let mut out = String::from("\n");
    out.push_str(&format!(
        "{:<20} {:<16} {:>5}  {:<10} {:>7}  {:<18} fixture\n",
        "server", "transport", "tools", "protocol", "time", "status"
    ));
    for (row, (status, path)) in rows.iter().zip(statuses) {
        let (tools, protocol) = match &row.outcome {
            Outcome::Listed(listing) => (listing.tools.to_string(), listing.protocol.clone()),
            Outcome::Failed(_) | Outcome::Rejected(_) => ("-".into(), "-".into()),
        };
        out.push_str(&format!(
            "{:<20} {:<16} {:>5}  {:<10} {:>6.1}s  {status:<18} {}\n",
            row.alias,
            row.transport,
            tools,
            protocol,
            row.elapsed.as_secs_f64(),
            cli.show(path)
        ));
    }
    out.push_str(&format!("total {:.1} s\n", total.as_secs_f64()));
    if to_stderr {
        err!("{out}");
    } else {
        out!("{out}");
    }
}
