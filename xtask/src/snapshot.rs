//! `cargo xtask snapshot [ALIAS…] [--config PATH] [--fixtures DIR] [--check] [--all-required]`
//!
//! Connects to the selected servers of the registry in parallel, lists their tools (all
//! pages, response cache off), and writes `fixtures/<alias>.json` in canonical form. With
//! `--check` nothing is written: each live answer is compared with the committed fixture,
//! every change is classified (BREAKING / ADDITIVE / DOCS) tool by tool, a unified diff
//! follows, and the exit code is 1 on any drift.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use mcp_codegen::fixture::{build_document, canonical_json};
use mcp_runtime::{Error, Registry, ServerConfig, Session, TransportConfig};
use serde_json::{Map, Value, json};

const USAGE: &str = "usage: cargo xtask snapshot [ALIAS…] [--config PATH] [--fixtures DIR] [--check] [--all-required]

  ALIAS…           servers to snapshot (default: every server of the registry)
  --config PATH    the registry (default: fixtures/servers.toml; .json: the mcpServers shape)
  --fixtures DIR   where fixtures live (default: the registry's directory)
  --check          write nothing; compare with the committed fixtures, exit 1 on drift
  --all-required   treat every selected server as `required = true`";

struct Args {
    aliases: Vec<String>,
    config: PathBuf,
    fixtures: Option<PathBuf>,
    check: bool,
    all_required: bool,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut out = Args {
        aliases: Vec::new(),
        config: PathBuf::from("fixtures/servers.toml"),
        fixtures: None,
        check: false,
        all_required: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--check" => out.check = true,
            "--all-required" => out.all_required = true,
            "--config" => {
                out.config = it.next().ok_or("--config needs a path")?.into();
            }
            "--fixtures" => {
                out.fixtures = Some(it.next().ok_or("--fixtures needs a directory")?.into());
            }
            "-h" | "--help" => return Err(String::new()),
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag}")),
            alias => out.aliases.push(alias.to_string()),
        }
    }
    Ok(out)
}

/// Outcome of one server.
enum Outcome {
    /// Connected and listed.
    Listed {
        text: String,
        tools: usize,
        protocol: String,
    },
    /// Not reached; `required` decides whether this fails the command.
    Failed { error: Error },
}

struct Row {
    alias: String,
    transport: &'static str,
    required: bool,
    elapsed: Duration,
    outcome: Outcome,
}

/// Entry point.
pub fn run(args: &[String]) -> ExitCode {
    let args = match parse(args) {
        Ok(a) => a,
        Err(e) if e.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("snapshot: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run_inner(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("snapshot: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run_inner(args: &Args) -> Result<ExitCode, String> {
    let registry = Registry::load(&args.config).map_err(|e| e.to_string())?;
    let fixtures_dir = args.fixtures.clone().unwrap_or_else(|| {
        registry
            .path
            .parent()
            .unwrap_or(Path::new("."))
            .to_path_buf()
    });
    let selected: Vec<ServerConfig> = if args.aliases.is_empty() {
        registry.servers().to_vec()
    } else {
        args.aliases
            .iter()
            .map(|a| registry.get(a).cloned().map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?
    };
    prepare_environment(&selected)?;

    let started = Instant::now();
    let names: Vec<&str> = selected.iter().map(|s| s.alias.as_str()).collect();
    eprintln!(
        "snapshot: connecting to {} server(s) in parallel: {}",
        selected.len(),
        names.join(", ")
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let rows = runtime.block_on(snapshot_all(&selected, args.all_required));
    let total = started.elapsed();

    let mut failed_required = false;
    let mut drift = false;
    let mut statuses = Vec::with_capacity(rows.len());
    for row in &rows {
        let status = match &row.outcome {
            Outcome::Failed { error } => {
                if row.required {
                    failed_required = true;
                    eprintln!("error: server \"{}\" (required): {error}", row.alias);
                    "FAILED (required)".to_string()
                } else {
                    eprintln!("warning: server \"{}\" skipped: {error}", row.alias);
                    "skipped".to_string()
                }
            }
            Outcome::Listed { text, .. } => {
                let path = fixtures_dir.join(format!("{}.json", row.alias));
                let old = std::fs::read_to_string(&path).ok();
                if args.check {
                    match old {
                        Some(old) if old == *text => "unchanged".to_string(),
                        Some(old) => {
                            drift = true;
                            print_drift(&row.alias, &path, &old, text);
                            "DRIFT".to_string()
                        }
                        None => {
                            drift = true;
                            println!(
                                "{}: no committed fixture at {} — run `cargo xtask snapshot {}`",
                                row.alias,
                                path.display(),
                                row.alias
                            );
                            "DRIFT (no fixture)".to_string()
                        }
                    }
                } else if old.as_deref() == Some(text.as_str()) {
                    "unchanged".to_string()
                } else {
                    std::fs::write(&path, text)
                        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                    if old.is_some() { "updated" } else { "written" }.to_string()
                }
            }
        };
        statuses.push(status);
    }
    print_table(&rows, &statuses, total);
    Ok(if failed_required || drift {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Sets the variables the default registry uses (`MCP_SERVERS_DIR`, `MCP_DEMO_SERVER`),
/// installs the pinned servers that are selected, and builds the demo server when used.
fn prepare_environment(selected: &[ServerConfig]) -> Result<(), String> {
    let root = crate::workspace_root();
    for (k, v) in crate::servers::env_vars(&root) {
        if std::env::var_os(&k).is_none() {
            // SAFETY: single-threaded at this point (no runtime started yet).
            unsafe { std::env::set_var(&k, &v) };
        }
    }
    let uses = |var: &str| {
        selected.iter().any(|s| match &s.transport {
            TransportConfig::Stdio { command, args, .. } => {
                command.contains(var) || args.iter().any(|a| a.contains(var))
            }
            _ => false,
        })
    };
    if uses("MCP_DEMO_SERVER") && std::env::var_os("MCP_DEMO_SERVER").is_none() {
        let path = build_demo_server()?;
        // SAFETY: as above.
        unsafe { std::env::set_var("MCP_DEMO_SERVER", &path) };
    }
    if uses("MCP_SERVERS_DIR") {
        let pinned: Vec<&str> = selected
            .iter()
            .filter(|s| crate::servers::find(&s.alias).is_some())
            .map(|s| s.alias.as_str())
            .collect();
        if !pinned.is_empty() {
            crate::servers::install(&root, &pinned)?;
        }
    }
    Ok(())
}

/// Builds the embedded demo server and returns its path.
pub fn build_demo_server() -> Result<PathBuf, String> {
    crate::cargo(&[
        "build",
        "--quiet",
        "--package",
        "mcp-bindgen-tests",
        "--bin",
        "mcp-demo-server",
    ])?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::workspace_root().join("target"));
    let path = target.join("debug").join("mcp-demo-server");
    if path.exists() {
        Ok(path)
    } else {
        Err(format!(
            "built the demo server but {} is missing",
            path.display()
        ))
    }
}

async fn snapshot_all(selected: &[ServerConfig], all_required: bool) -> Vec<Row> {
    let pending = std::sync::Arc::new(std::sync::Mutex::new(
        selected.iter().map(|s| s.alias.clone()).collect::<Vec<_>>(),
    ));
    let ticker = {
        let pending = pending.clone();
        tokio::spawn(async move {
            let started = Instant::now();
            loop {
                tokio::time::sleep(Duration::from_secs(5)).await;
                let waiting = pending.lock().map(|p| p.join(", ")).unwrap_or_default();
                if !waiting.is_empty() {
                    eprintln!(
                        "  … still waiting for: {waiting} ({:.0} s)",
                        started.elapsed().as_secs_f64()
                    );
                }
            }
        })
    };
    let tasks = selected.iter().cloned().map(|server| {
        let pending = pending.clone();
        tokio::spawn(async move {
            let started = Instant::now();
            let outcome = match snapshot_one(&server).await {
                Ok((text, tools, protocol)) => Outcome::Listed {
                    text,
                    tools,
                    protocol,
                },
                Err(error) => Outcome::Failed { error },
            };
            let elapsed = started.elapsed();
            if let Ok(mut p) = pending.lock() {
                p.retain(|a| *a != server.alias);
            }
            match &outcome {
                Outcome::Listed { tools, .. } => eprintln!(
                    "  ✓ {:<20} {tools} tools in {:.1} s",
                    server.alias,
                    elapsed.as_secs_f64()
                ),
                Outcome::Failed { .. } => eprintln!(
                    "  ✗ {:<20} failed after {:.1} s",
                    server.alias,
                    elapsed.as_secs_f64()
                ),
            }
            Row {
                transport: server.transport.kind(),
                required: server.required || all_required,
                alias: server.alias,
                elapsed,
                outcome,
            }
        })
    });
    let results = futures::future::join_all(tasks).await;
    ticker.abort();
    let mut rows = Vec::new();
    for (task, server) in results.into_iter().zip(selected) {
        rows.push(task.unwrap_or_else(|e| Row {
            alias: server.alias.clone(),
            transport: server.transport.kind(),
            required: server.required || all_required,
            elapsed: Duration::ZERO,
            outcome: Outcome::Failed {
                error: Error::Transport {
                    server: server.alias.clone(),
                    message: format!("snapshot task failed: {e}"),
                    stderr_tail: Vec::new(),
                },
            },
        }));
    }
    rows
}

/// Connects, lists tools, prompts and resource templates, and renders the fixture.
pub async fn snapshot_one(server: &ServerConfig) -> Result<(String, usize, String), Error> {
    let session = Session::connect(server).await?;
    let result = async {
        let tools = session.list_tools().await?;
        let prompts = session.list_prompts().await?;
        let templates = session.list_resource_templates().await?;
        Ok::<_, Error>((tools, prompts, templates))
    }
    .await;
    let _ = session.close().await;
    let (tools, prompts, templates) = result?;
    let info = session.server_info();
    let count = tools.len();
    let mut extra = Map::new();
    extra.insert("prompts".into(), sorted_by_name(prompts, "name"));
    extra.insert(
        "resourceTemplates".into(),
        sorted_by_name(templates, "uriTemplate"),
    );
    let doc = build_document(
        json!({
            "alias": server.alias,
            "name": info.name,
            "version": info.version,
            "protocolVersion": info.protocol_version,
        }),
        tools,
        extra,
    );
    Ok((canonical_json(&doc), count, info.protocol_version.clone()))
}

fn sorted_by_name(mut items: Vec<Value>, key: &str) -> Value {
    items.sort_by(|a, b| {
        let k = |v: &Value| v.get(key).and_then(Value::as_str).unwrap_or("").to_string();
        k(a).cmp(&k(b))
    });
    Value::Array(items)
}

fn print_drift(alias: &str, path: &Path, old: &str, new: &str) {
    let parsed = (
        serde_json::from_str::<Value>(old),
        serde_json::from_str::<Value>(new),
    );
    println!("── {alias}: drift against {}", path.display());
    match parsed {
        (Ok(o), Ok(n)) => {
            let report = mcp_codegen::diff::classify(&o, &n);
            if report.is_empty() {
                println!(
                    "{alias}: only formatting differs (re-run `cargo xtask snapshot {alias}`)"
                );
            } else {
                print!("{report}");
            }
        }
        _ => println!("{alias}: the committed fixture is not valid JSON"),
    }
    let color = std::io::stdout().is_terminal();
    let label_old = format!("{} (committed)", path.display());
    let label_new = format!("{} (live)", path.display());
    let diff = similar::TextDiff::from_lines(old, new);
    let mut out = std::io::stdout().lock();
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(&label_old, &label_new)
        .to_string();
    for line in text.lines() {
        let painted = if !color {
            line.to_string()
        } else if line.starts_with("+++") || line.starts_with("---") {
            format!("\x1b[1m{line}\x1b[0m")
        } else if line.starts_with('+') {
            format!("\x1b[32m{line}\x1b[0m")
        } else if line.starts_with('-') {
            format!("\x1b[31m{line}\x1b[0m")
        } else if line.starts_with("@@") {
            format!("\x1b[36m{line}\x1b[0m")
        } else {
            line.to_string()
        };
        let _ = writeln!(out, "{painted}");
    }
}

fn print_table(rows: &[Row], statuses: &[String], total: Duration) {
    println!();
    println!(
        "{:<20} {:<16} {:>5}  {:<10} {:>7}  status",
        "server", "transport", "tools", "protocol", "time"
    );
    for (row, status) in rows.iter().zip(statuses) {
        let (tools, protocol) = match &row.outcome {
            Outcome::Listed {
                tools, protocol, ..
            } => (tools.to_string(), protocol.clone()),
            Outcome::Failed { .. } => ("-".into(), "-".into()),
        };
        println!(
            "{:<20} {:<16} {:>5}  {:<10} {:>6.1}s  {status}",
            row.alias,
            row.transport,
            tools,
            protocol,
            row.elapsed.as_secs_f64()
        );
    }
    println!("total {:.1} s", total.as_secs_f64());
}
