//! `call ALIAS TOOL [JSON] [--json] [--timeout SECS] [--no-validate]`: calls one tool of a
//! configured server and prints the result — the quickest way to try a server.
//!
//! The arguments are a JSON object (default `{}`; `-` reads them from stdin). Before anything
//! is sent they are checked against the tool's input schema in the server's fixture (the
//! live one when there is no fixture), as a toolbox checks a model's arguments: a wrong
//! argument fails with our message, and the server never sees the call (`--no-validate`
//! sends it anyway). The result is
//! printed as text (every content block; binary blocks summarized), or with `--json` as the
//! MCP result object `{"content": […], "structuredContent": …, "isError": …}`. Progress
//! goes to stderr. Exits 1 when the tool reports an error (`isError`), after printing it.

use std::io::Read;
use std::process::ExitCode;
use std::time::Duration;

use mcp_bindgen::{CallOptions, Session, ToolOutput};
use serde_json::{Map, Value, json};

use crate::args::{Arg, Parser};
use crate::paths::{LOCATE_USAGE, Locate};
use crate::{Cli, Error, Result};

fn usage(cli: &Cli) -> String {
    format!(
        "usage: {} call ALIAS TOOL [JSON] [--json] [--timeout SECS] [--no-validate]

Calls one tool of a server of the registry and prints the result.

  JSON                   the arguments, a JSON object (default {{}}); `-` reads them from stdin
  --json                 print the whole result as JSON (content, structuredContent, isError)
  --timeout SECS         idle deadline of the call (default: the registry's, else 60 s)
  --no-validate          send the arguments without checking them against the tool's input
                         schema (the fixture's, else the live one) first
{LOCATE_USAGE}",
        cli.invoked_as
    )
}

struct Args {
    alias: String,
    tool: String,
    arguments: Option<String>,
    json: bool,
    timeout: Option<Duration>,
    validate: bool,
    locate: Locate,
}

fn parse(cli: &Cli, words: &[String]) -> Result<Args> {
    let mut p = Parser::new(words, usage(cli));
    let mut positional = Vec::new();
    let mut json = false;
    let mut validate = true;
    let mut timeout = None;
    let mut locate = Locate::default();
    while let Some(arg) = p.next()? {
        match arg {
            Arg::Word(w) => positional.push(w),
            Arg::Flag(f) if f == "--json" => json = true,
            Arg::Flag(f) if f == "--no-validate" => validate = false,
            Arg::Flag(f) if f == "--timeout" => {
                let value = p.value(&f)?;
                let secs: f64 = value
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s > 0.0)
                    .ok_or_else(|| {
                        p.error(&format!(
                            "--timeout takes a positive number of seconds, not `{value}`"
                        ))
                    })?;
                timeout = Some(Duration::from_secs_f64(secs));
            }
            Arg::Flag(f) => {
                if !locate.take(&f, &mut p)? {
                    return Err(p.unknown(&f));
                }
            }
        }
    }
    let mut positional = positional.into_iter();
    let (Some(alias), Some(tool)) = (positional.next(), positional.next()) else {
        return Err(p.error("which server and tool? give ALIAS and TOOL"));
    };
    let arguments = positional.next();
    if let Some(extra) = positional.next() {
        return Err(p.error(&format!(
            "unexpected argument `{extra}` (the arguments are one JSON object: quote it)"
        )));
    }
    Ok(Args {
        alias,
        tool,
        arguments,
        json,
        timeout,
        validate,
        locate,
    })
}

/// The arguments as a JSON object.
fn arguments(text: Option<&str>) -> Result<Map<String, Value>> {
    let text = match text {
        None => return Ok(Map::new()),
        Some("-") => {
            let mut buf = String::new();
            std::io::stdin()
                .read_to_string(&mut buf)
                .map_err(|e| Error::Other(format!("cannot read the arguments from stdin: {e}")))?;
            buf
        }
        Some(t) => t.to_string(),
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(value) => object(value),
        Err(e) => Err(Error::Other(format!(
            "the arguments are not valid JSON (line {}, column {}): {e}",
            e.line(),
            e.column()
        ))),
    }
}

/// The arguments, which must be a JSON object.
fn object(value: Value) -> Result<Map<String, Value>> {
    match value {
        Value::Object(map) => Ok(map),
        other => Err(Error::Other(format!(
            "the arguments must be a JSON object like {{\"name\": \"value\"}}, not {}",
            mcp_bindgen_core::schema::json_kind(&other)
        ))),
    }
}

/// Entry point; `words` are the words after `call`.
pub(crate) fn run(cli: &Cli, words: &[String]) -> Result<ExitCode> {
    let args = parse(cli, words)?;
    let mut arguments = arguments(args.arguments.as_deref())?;
    let registry = args.locate.load_registry(cli, "call")?;
    let server = registry.get(&args.alias)?.clone();
    // The reviewed schema first: a wrong argument never starts the server.
    let mut checked = false;
    if args.validate
        && let Some((fixture, schema)) = fixture_schema(cli, &args)?
    {
        arguments = checked_arguments(&args, &schema, arguments, &cli.show(&fixture))?;
        checked = true;
    }
    let output = crate::async_runtime()?.block_on(async {
        let session = cli.connect_options().connect(&server).await?;
        let result = call(&session, &args, arguments, !checked && args.validate).await;
        let _ = session.close().await;
        result
    })?;
    if args.json {
        let mut result = json!({ "content": output.content, "isError": output.is_error });
        if let Some(structured) = &output.structured {
            result["structuredContent"] = structured.clone();
        }
        let text = serde_json::to_string_pretty(&result)
            .map_err(|e| Error::Other(format!("cannot print JSON: {e}")))?;
        outln!("{text}");
    } else {
        outln!("{}", as_text(&output));
    }
    if output.is_error {
        errln!(
            "call: tool \"{}\" of server \"{}\" reported an error (isError)",
            args.tool,
            args.alias
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// The fixture of the server (its path) and the tool's input schema in it, when the
/// fixture exists and lists the tool.
fn fixture_schema(cli: &Cli, args: &Args) -> Result<Option<(std::path::PathBuf, Value)>> {
    let path = args.locate.fixture_file(cli, &args.alias)?;
    if !path.is_file() {
        return Ok(None);
    }
    let fixture = mcp_bindgen_core::fixture::Fixture::load(&path).map_err(Error::Fixture)?;
    Ok(fixture
        .tools
        .into_iter()
        .find(|t| t.name == args.tool)
        .map(|t| (path, t.input_schema)))
}

/// The arguments as a toolbox prepares a model's: checked against `schema` (`from` says
/// whose), with the `null`s it does not allow on optional properties left out.
fn checked_arguments(
    args: &Args,
    schema: &Value,
    arguments: Map<String, Value>,
    from: &str,
) -> Result<Map<String, Value>> {
    match mcp_bindgen::toolbox::prepare_arguments(schema, None, Value::Object(arguments)) {
        Ok(prepared) => object(prepared),
        Err(problems) => Err(Error::Other(format!(
            "invalid arguments for tool \"{}\" of server \"{}\" (checked against {from}; nothing was sent): {problems}. Fix the arguments, or pass --no-validate to send them anyway.",
            args.tool, args.alias
        ))),
    }
}

/// Checks that the server has the tool (with a hint when it does not), and with `validate`
/// the arguments against its live input schema, then calls it.
async fn call(
    session: &Session,
    args: &Args,
    mut arguments: Map<String, Value>,
    validate: bool,
) -> Result<ToolOutput> {
    let tools = session.list_tools().await?;
    let names: Vec<&str> = tools
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .collect();
    if !names.contains(&args.tool.as_str()) {
        // A server may reflect a resolved `${NAME}` into its tool names: never shown.
        let message = no_such_tool(&args.alias, &args.tool, &names);
        return Err(Error::Other(session.redact(&message)));
    }
    if validate
        && let Some(schema) = tools
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(args.tool.as_str()))
            .and_then(|t| t.get("inputSchema"))
    {
        arguments = checked_arguments(args, schema, arguments, "its live tools/list")
            .map_err(|e| Error::Other(session.redact(&e.to_string())))?;
    }
    let mut options = CallOptions::new().on_progress(|p| match (p.total, p.message) {
        (Some(total), Some(m)) => errln!("  progress {}/{total}: {m}", p.progress),
        (Some(total), None) => errln!("  progress {}/{total}", p.progress),
        (None, Some(m)) => errln!("  progress {}: {m}", p.progress),
        (None, None) => errln!("  progress {}", p.progress),
    });
    if let Some(t) = args.timeout {
        options = options.with_timeout(t);
    }
    Ok(session.call_with(&args.tool, &arguments, options).await?)
}

/// The result as a person reads it: the content blocks as text; when there are none, the
/// structured result as indented JSON.
fn as_text(output: &ToolOutput) -> String {
    if output.content.is_empty()
        && let Some(structured) = &output.structured
    {
        return serde_json::to_string_pretty(structured).unwrap_or_else(|_| structured.to_string());
    }
    output.text()
}

/// Tools listed in full in a "no tool" error; longer lists are cut with a count.
const TOOLS_LISTED: usize = 20;

/// The error for a tool the server does not list: the closest names first, then at most
/// [`TOOLS_LISTED`] of the others (a server with 200 000 tools must not make a 2 MB line),
/// every name escaped for the terminal.
fn no_such_tool(alias: &str, tool: &str, names: &[&str]) -> String {
    let show = |n: &str| format!("\"{}\"", mcp_bindgen_core::text::printable(n, false));
    let close = mcp_bindgen_core::naming::close_matches(tool, names.iter().copied());
    let hint = if close.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = close.iter().map(|c| show(c)).collect();
        format!(" (did you mean {}?)", list.join(" or "))
    };
    let listed: Vec<String> = names
        .iter()
        .take(TOOLS_LISTED)
        .map(|n| mcp_bindgen_core::text::printable(n, false).into_owned())
        .collect();
    let more = match names.len().saturating_sub(TOOLS_LISTED) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    format!(
        "server \"{alias}\" has no tool {}{hint}; its tools: {}{more}",
        show(tool),
        listed.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_must_be_one_json_object() {
        assert!(arguments(None).expect("none").is_empty());
        let map = arguments(Some(r#"{"a": 1}"#)).expect("object");
        assert_eq!(map["a"], json!(1));
        let e = arguments(Some("[1]")).expect_err("array").to_string();
        assert!(
            e.contains("must be a JSON object") && e.contains("an array"),
            "{e}"
        );
        let e = arguments(Some("{\"a\":")).expect_err("broken").to_string();
        assert!(e.contains("not valid JSON (line 1"), "{e}");
    }

    #[test]
    fn structured_only_results_print_as_json() {
        let out = ToolOutput {
            content: Vec::new(),
            structured: Some(json!({"x": 1})),
            is_error: false,
        };
        assert_eq!(as_text(&out), "{\n  \"x\": 1\n}");
    }

    #[test]
    fn no_such_tool_names_the_closest_and_stays_short() {
        let many: Vec<String> = (0..200_000).map(|i| format!("tool_{i}")).collect();
        let mut names: Vec<&str> = many.iter().map(String::as_str).collect();
        names.push("get_issue");
        let e = no_such_tool("gh", "get_isue", &names);
        assert!(e.contains("did you mean \"get_issue\""), "{e}");
        assert!(e.contains("and 199981 more"), "{e}");
        assert!(e.len() < 1000, "{} bytes", e.len());
        let e = no_such_tool("gh", "x", &["evil\x1b[2J"]);
        assert!(!e.contains('\x1b'), "{e}");
        assert!(e.contains("evil\\u{1b}[2J"), "{e}");
    }
}
