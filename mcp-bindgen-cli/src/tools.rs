//! `tools [--format openai|openai-strict|openai-responses|anthropic|gemini] [--prefix] [--fixtures DIR]`: every
//! fixture's tools in a model provider's format, as one toolbox over all of them would export
//! them (`mcp_bindgen::toolbox::export_offline`), printed as JSON on stdout:
//!
//! ```json
//! {"format": "gemini", "tools": [ … ], "fallbacks": [{"name", "server", "tool", "reason"}],
//!  "left_out": [{"name", "server", "tool", "reason"}], "collisions": [ … ]}
//! ```
//!
//! A one-line summary goes to stderr (`--check`: only the summary). Each definition is checked against its format's rules
//! (`mcp_bindgen::toolbox::provider::check`; for Anthropic's `input_schema` and Gemini's
//! `parametersJsonSchema`, also the JSON Schema draft 2020-12 meta-schema). Exits 1 when a
//! definition fails its check, a name is not unique, or a fixture cannot be read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::ExitCode;

use mcp_bindgen::toolbox::names::NameCollision;
use mcp_bindgen::toolbox::provider::connector::{
    Approval, Connector, Refused, RemoteServer, connector_export,
};
use mcp_bindgen::toolbox::provider::{self, Format, ToolExport};
use mcp_bindgen::toolbox::{ToolboxOptions, export_offline};
use mcp_bindgen::{ServerConfig, TransportConfig};
use serde_json::{Value, json};

use crate::args::{Arg, Parser};
use crate::paths::{LOCATE_USAGE, Locate};
use crate::{Cli, Error, Result};

/// Most function declarations Gemini takes in one request.
const GEMINI_MAX_DECLARATIONS: usize = 512;

fn usage(cli: &Cli) -> String {
    format!(
        "usage: {} tools [--format FORMAT] [--strict] [--compact] [--prefix] [--max-description-chars N]
                [--check] [--out FILE] [--fixtures DIR]
       {0} tools --tokens [--max-tokens N] [--check]

Prints every fixture's tools as a model provider's tool definitions (names mcp_<alias>_<tool>).

  --format FORMAT        openai (default), openai-strict, openai-responses, anthropic or gemini
                         (chat completions, strict, the Responses API, …); tools a format
                         cannot express take a weaker form, listed under \"fallbacks\" with the reason;
                         a tool no form makes acceptable is left out of that format alone
                         (\"left_out\", with the reason, and a warning)
  --format anthropic-mcp|openai-mcp
                         the registry's remote servers for the provider to connect to itself:
                         Anthropic's mcp_servers and mcp_toolsets, or OpenAI Responses' mcp
                         tools, each allowing the fixture's tools; ${{NAME}} placeholders are
                         printed as written; stdio and unreachable servers are refused, with why
  --approval auto|always|never
                         (openai-mcp) which calls need approval; auto: all but read-only tools
  --public-url ALIAS=URL the URL the provider reaches ALIAS at (a private server's gateway)
  --strict               the same as --format openai-strict
  --compact              the compact definitions (what ToolboxBuilder::compact exports: no
                         $schema, titles that repeat a name, defaults the description states,
                         keywords that allow everything, spare whitespace)
  --tokens               instead of the definitions, what they cost: tokens per server and
                         format (o200k_base), full and compact, largest tools first; fails
                         when a server is over its budget (the registry's max_tokens).
                         (The CLI's `tokens` feature.)
  --max-tokens N         (--tokens) the budget of every server, instead of the registry's
  --prefix               prefix descriptions with `[MCP: <alias>]`
  --max-description-chars N
                         shorten descriptions past N characters at a sentence, moving the
                         sentences past the cut that name an argument into its description
                         (the registry's max_description_chars per server overrides it)
  --check                check every definition and print the summary only (for CI)
  --out FILE             write the JSON to FILE instead of stdout (with --check too: the
                         definitions to hand to another checker)
{LOCATE_USAGE}",
        cli.invoked_as
    )
}

/// Entry point; `words` are the words after `tools`.
pub(crate) fn run(cli: &Cli, words: &[String]) -> Result<ExitCode> {
    let mut p = Parser::new(words, usage(cli));
    let mut locate = Locate::default();
    let mut format = Format::OpenAi;
    let mut options = ToolboxOptions::default();
    let mut check_only = false;
    let mut out: Option<std::path::PathBuf> = None;
    let mut connector: Option<Connector> = None;
    let mut approval = Approval::Auto;
    let mut public_urls: BTreeMap<String, String> = BTreeMap::new();
    let mut tokens = false;
    let mut max_tokens: Option<u32> = None;
    while let Some(arg) = p.next()? {
        match arg {
            Arg::Flag(f) if f == "--tokens" => tokens = true,
            Arg::Flag(f) if f == "--compact" => options.compact = true,
            Arg::Flag(f) if f == "--max-description-chars" => {
                let value = p.value(&f)?;
                options.max_description_chars = Some(value.parse().map_err(|_| {
                    p.error(&format!(
                        "--max-description-chars takes a character count, not `{value}`"
                    ))
                })?);
            }
            Arg::Flag(f) if f == "--max-tokens" => {
                let value = p.value(&f)?;
                max_tokens = Some(value.parse().map_err(|_| {
                    p.error(&format!("--max-tokens takes a token count, not `{value}`"))
                })?);
            }
            Arg::Flag(f) if f == "--strict" => format = Format::OpenAiStrict,
            Arg::Flag(f) if f == "--format" => {
                let value = p.value(&f)?;
                match (value.parse::<Connector>(), value.parse::<Format>()) {
                    (Ok(c), _) => connector = Some(c),
                    (_, Ok(f)) => format = f,
                    (Err(_), Err(_)) => {
                        let names = Format::ALL
                            .map(Format::as_str)
                            .into_iter()
                            .chain(Connector::ALL.map(Connector::as_str));
                        return Err(p.error(&format!(
                            "unknown format \"{value}\"{}; use openai, openai-strict, openai-responses, anthropic or gemini, or a connector: anthropic-mcp or openai-mcp",
                            mcp_bindgen_core::naming::did_you_mean(&value, names)
                        )));
                    }
                }
            }
            Arg::Flag(f) if f == "--approval" => {
                let value = p.value(&f)?;
                approval = value.parse().map_err(|e: String| p.error(&e))?;
            }
            Arg::Flag(f) if f == "--public-url" => {
                let value = p.value(&f)?;
                let Some((alias, url)) = value.split_once('=') else {
                    return Err(p.error(&format!("--public-url {value}: expected ALIAS=URL")));
                };
                public_urls.insert(alias.to_string(), url.to_string());
            }
            Arg::Flag(f) if f == "--prefix" => options.description_prefix = true,
            Arg::Flag(f) if f == "--check" => check_only = true,
            Arg::Flag(f) if f == "--out" => out = Some(p.value(&f)?.into()),
            Arg::Flag(f) => {
                if !locate.take(&f, &mut p)? {
                    return Err(p.unknown(&f));
                }
            }
            Arg::Word(w) => return Err(p.error(&format!("unexpected argument `{w}`"))),
        }
    }
    if max_tokens.is_some() && !tokens {
        return Err(p.error("--max-tokens is for --tokens"));
    }
    if out.is_some() && (tokens || connector.is_some()) {
        return Err(p.error("--out is for tool definitions (not --tokens or a connector)"));
    }
    #[cfg(not(feature = "tokens"))]
    if tokens {
        return Err(crate::Error::Other(crate::tokens::UNAVAILABLE.to_string()));
    }
    if tokens {
        return crate::tokens::run(cli, &locate, max_tokens, check_only);
    }
    if let Some(connector) = connector {
        return connectors(cli, &locate, connector, approval, &public_urls, check_only);
    }
    let dir = locate.existing_fixtures_dir(cli)?;
    let servers = load(cli, &dir)?;
    // The registry is optional here; its servers' `max_description_chars` apply.
    let registry = match locate.registry(cli) {
        Ok(path) if path.is_file() => Some(locate.load_registry(cli, "tools")?),
        _ => None,
    };
    let configured: Vec<(ServerConfig, Vec<Value>)> = servers
        .iter()
        .map(|(alias, tools)| {
            let config = registry
                .as_ref()
                .and_then(|r| r.servers().iter().find(|s| s.alias() == alias))
                .cloned()
                .unwrap_or_else(|| ServerConfig::stdio(alias.clone(), "", Vec::new()));
            (config, tools.clone())
        })
        .collect();
    let (export, collisions) = export_offline(&configured, &options, format);
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for def in &export.tools {
        let name = format.name_of(def).unwrap_or("");
        if let Err(e) = check(format, def) {
            problems.push(format!("invalid {format} definition: {e}"));
        }
        if !seen.insert(name.to_string()) {
            problems.push(format!("duplicate name \"{name}\""));
        }
    }
    for f in &export.left_out {
        errln!(
            "tools: warning: left out of the {format} export ({}'s `{}`): {}",
            f.server,
            f.tool,
            f.reason
        );
    }
    // A server whose descriptions are capped within the clients' cut loses nothing to it.
    let uncapped: Vec<(String, Vec<Value>)> = configured
        .iter()
        .filter(|(config, _)| {
            config
                .max_description_chars()
                .or(options.max_description_chars)
                .is_none_or(|max| max > mcp_bindgen_core::provider::DESCRIPTION_CUT)
        })
        .map(|(config, tools)| (config.alias().to_string(), tools.clone()))
        .collect();
    for warning in crate::tokens::long_descriptions(&uncapped) {
        errln!("tools: warning: {warning}");
    }
    if format == Format::Gemini && export.tools.len() > GEMINI_MAX_DECLARATIONS {
        errln!(
            "tools: warning: {} declarations; Gemini takes at most {GEMINI_MAX_DECLARATIONS} per request (choose servers or tools per agent)",
            export.tools.len()
        );
    }
    if let Some(path) = &out {
        write_json(cli, path, format, &export, &collisions)?;
    } else if !check_only {
        outln!("{}", export_json(format, &export, &collisions)?);
    }
    let weaker = match format {
        Format::OpenAi => String::new(),
        Format::OpenAiStrict | Format::OpenAiResponses => {
            format!(", {} not strict", export.fallbacks.len())
        }
        Format::Anthropic => format!(
            ", {} adjusted to fit (see fallbacks)",
            export.fallbacks.len()
        ),
        Format::Gemini => format!(", {} as parametersJsonSchema", export.fallbacks.len()),
    };
    errln!(
        "{} {format} tool definitions from {} fixtures in {}{weaker}, {} left out, {} name collisions resolved",
        export.tools.len(),
        servers.len(),
        cli.show(&dir),
        export.left_out.len(),
        collisions.len()
    );
    Ok(finish(&problems))
}

fn export_json(
    format: Format,
    export: &ToolExport,
    collisions: &[NameCollision],
) -> Result<String> {
    let listed = |list: &[provider::Fallback]| -> Vec<Value> {
        list.iter()
            .map(|f| json!({"name": f.exported, "server": f.server, "tool": f.tool, "reason": f.reason}))
            .collect()
    };
    let out = json!({
        "format": format.as_str(),
        "tools": export.tools,
        "fallbacks": listed(&export.fallbacks),
        "left_out": listed(&export.left_out),
        "collisions": collisions.iter().map(ToString::to_string).collect::<Vec<_>>(),
    });
    serde_json::to_string_pretty(&out).map_err(|e| Error::Other(format!("cannot print JSON: {e}")))
}

/// `--out FILE`: the export, written whole (`write_atomic`).
fn write_json(
    cli: &Cli,
    path: &Path,
    format: Format,
    export: &ToolExport,
    collisions: &[NameCollision],
) -> Result<()> {
    let text = export_json(format, export, collisions)? + "\n";
    mcp_bindgen_core::project::write_atomic(path, text.as_bytes())
        .map_err(|e| Error::Other(format!("cannot write {}: {e}", cli.show(path))))
}

/// The format's own rules, then (with the `verify-deep` feature, which builds `jsonschema`)
/// the draft 2020-12 meta-schema for the JSON Schemas the format carries as they are. The
/// format's rules include the well-formedness of every schema keyword, any draft.
fn check(format: Format, def: &Value) -> std::result::Result<(), String> {
    provider::check(format, def)?;
    #[cfg(feature = "verify-deep")]
    {
        let schema = match format {
            Format::Anthropic => def.get("input_schema"),
            Format::Gemini => def.get("parametersJsonSchema"),
            Format::OpenAi | Format::OpenAiStrict | Format::OpenAiResponses => None,
        };
        if let Some(schema) = schema
            && let Err(e) = jsonschema::draft202012::meta::validate(schema)
        {
            return Err(format!(
                "{}: not a valid JSON Schema (draft 2020-12) at {}: {e}",
                format.name_of(def).unwrap_or("?"),
                e.instance_path
            ));
        }
    }
    Ok(())
}

/// `tools --format anthropic-mcp|openai-mcp`: the registry's servers as connector entries,
/// each allowing its fixture's tools (after the registry's `tools`/`exclude_tools`), with
/// `${NAME}` placeholders as written (nothing is resolved, so no secret is printed).
fn connectors(
    cli: &Cli,
    locate: &Locate,
    connector: Connector,
    approval: Approval,
    public_urls: &BTreeMap<String, String>,
    check_only: bool,
) -> Result<ExitCode> {
    let registry = locate.load_registry(cli, "tools")?;
    let dir = locate.existing_fixtures_dir(cli)?;
    let fixtures: BTreeMap<String, Vec<Value>> = load(cli, &dir)?.into_iter().collect();
    let mut servers = Vec::new();
    let mut refused = Vec::new();
    for config in registry.servers() {
        let alias = config.alias().to_string();
        let (url, headers) = match config.transport() {
            TransportConfig::Sse { url, headers }
            | TransportConfig::StreamableHttp { url, headers } => (url.clone(), headers.clone()),
            _ => {
                refused.push(Refused::stdio(alias));
                continue;
            }
        };
        let Some(tools) = fixtures.get(&alias) else {
            refused.push(Refused {
                alias: alias.clone(),
                reason: format!("no fixture; run {}", cli.hint(&format!("snapshot {alias}"))),
            });
            continue;
        };
        let tools: Vec<Value> = tools
            .iter()
            .filter(|t| {
                config.allows_tool(t.get("name").and_then(Value::as_str).unwrap_or_default())
            })
            .cloned()
            .collect();
        let bearer = config.auth().map(|_| {
            format!(
                "<the OAuth access token of {alias}: log in with {}>",
                cli.hint(&format!("login {alias}"))
            )
        });
        servers.push(RemoteServer {
            url: public_urls.get(&alias).cloned().unwrap_or(url),
            alias,
            headers,
            bearer,
            tools,
        });
    }
    let export = connector_export(connector, &servers, approval, refused);
    let problems: Vec<String> = provider::connector::check(connector, &export)
        .err()
        .into_iter()
        .collect();
    if !check_only {
        let mut out = json!({"format": connector.as_str()});
        if connector == Connector::Anthropic {
            out["anthropic_beta"] = json!(provider::connector::ANTHROPIC_BETA);
            out["mcp_servers"] = json!(export.mcp_servers);
        }
        out["tools"] = json!(export.tools);
        out["refused"] = json!(
            export
                .refused
                .iter()
                .map(|r| json!({"server": r.alias, "reason": r.reason}))
                .collect::<Vec<_>>()
        );
        let text = serde_json::to_string_pretty(&out)
            .map_err(|e| Error::Other(format!("cannot print JSON: {e}")))?;
        outln!("{text}");
    }
    errln!(
        "{} {connector} entries from {} in {}, {} servers refused",
        export.tools.len(),
        cli.show(&locate.registry(cli)?),
        cli.show(&dir),
        export.refused.len()
    );
    for r in &export.refused {
        errln!("  {}: {}", r.alias, r.reason);
    }
    Ok(finish(&problems))
}

/// Prints each problem; the exit code (1 when there is one).
fn finish(problems: &[String]) -> ExitCode {
    for problem in problems {
        errln!("tools: {problem}");
    }
    if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `(alias, tools)` of every fixture in `dir`, sorted by file name, under the alias
/// `verify` uses (`server.alias`, else the file stem).
fn load(cli: &Cli, dir: &Path) -> Result<Vec<(String, Vec<Value>)>> {
    Ok(crate::paths::load_fixtures(cli, dir)?
        .into_iter()
        .map(|(alias, f)| (alias, f.tools.into_iter().map(|t| t.raw).collect()))
        .collect())
}
