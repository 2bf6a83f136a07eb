//! Typed servers in the toolbox: arguments prepared through the generated types, and the
//! round-trip entry point of `verify --deep`.

use serde_json::Value;

use crate::typed::{Normalize, TypedTool};

/// What dispatch does to a model's arguments before it sends them: drops the `null`s a
/// strict-mode model sends for optional properties the schema does not let be `null`, then
/// round-trips them through the generated type (`normalize`, for typed tools) and checks the
/// result against `input_schema`. The returned value is what the server receives; `Err` says
/// what is wrong with the arguments, in words a model can act on.
///
/// ```
/// use serde_json::json;
/// let schema = json!({"type": "object", "properties": {
///     "path": {"type": "string"}, "head": {"type": "integer"}}, "required": ["path"]});
/// let sent = mcp_bindgen::toolbox::prepare_arguments(
///     &schema, None, json!({"path": "a.txt", "head": null}))?;
/// assert_eq!(sent, json!({"path": "a.txt"}));
/// # Ok::<(), String>(())
/// ```
pub fn prepare_arguments(
    input_schema: &Value,
    normalize: Option<Normalize>,
    arguments: Value,
) -> Result<Value, String> {
    let arguments = crate::validate::strip_disallowed_nulls(input_schema, arguments);
    let arguments = match normalize {
        Some(normalize) => normalize(&arguments)
            .map_err(|e| format!("{e}{}", crate::validate::locate(input_schema, &arguments)))?,
        None => arguments,
    };
    crate::validate::validate(input_schema, &arguments).map_err(|e| e.join("; "))?;
    Ok(arguments)
}

/// The round-trip driver of `verify --deep` (not a public API): reads one request per line
/// on stdin, `{"server", "tool", "output": bool, "value"}`, and answers each with one line:
/// `{"ok": value}` (the value as the generated type carries it), `{"err": message}` (the
/// type rejected it), `{"untyped": true}` (the tool's arguments or result are JSON) or
/// `{"unknown": true}`.
#[doc(hidden)]
pub fn roundtrip_stdio(servers: &[(&str, &[TypedTool])]) -> std::process::ExitCode {
    use std::io::{BufRead, Write};
    let stdin = std::io::stdin().lock();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in stdin.lines() {
        let Ok(line) = line else {
            return std::process::ExitCode::FAILURE;
        };
        if line.trim().is_empty() {
            continue;
        }
        let answer = match serde_json::from_str::<Value>(&line) {
            Ok(request) => roundtrip_one(servers, &request),
            Err(e) => serde_json::json!({"err": format!("bad request: {e}")}),
        };
        if writeln!(out, "{answer}").is_err() {
            return std::process::ExitCode::FAILURE;
        }
    }
    if out.flush().is_err() {
        return std::process::ExitCode::FAILURE;
    }
    std::process::ExitCode::SUCCESS
}

fn roundtrip_one(servers: &[(&str, &[TypedTool])], request: &Value) -> Value {
    let server = request.get("server").and_then(Value::as_str).unwrap_or("");
    let tool = request.get("tool").and_then(Value::as_str).unwrap_or("");
    let output = request
        .get("output")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let value = request.get("value").unwrap_or(&Value::Null);
    let Some(t) = servers
        .iter()
        .filter(|(alias, _)| *alias == server)
        .flat_map(|(_, tools)| tools.iter())
        .find(|t| t.name == tool)
    else {
        return serde_json::json!({"unknown": true});
    };
    let normalize = if output {
        t.normalize_output
    } else {
        t.normalize
    };
    match normalize {
        None => serde_json::json!({"untyped": true}),
        Some(f) => match f(value) {
            Ok(v) => serde_json::json!({"ok": v}),
            Err(e) => serde_json::json!({"err": e}),
        },
    }
}
