//! Typed servers: tool definitions decided at compile time by `mcp_tools!`.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// One tool of a typed server, built from the constants `mcp_tools!` generates per tool
/// (`NAME`, `INPUT_SCHEMA`, `OPENAI_FUNCTION`, `OPENAI_FUNCTION_STRICT`,
/// `OPENAI_STRICT_UNAVAILABLE`) plus round trips through the generated types
/// ([`normalize_as`]). The macro emits the whole list per server as `TYPED_TOOLS`:
///
/// ```no_run
/// # async fn run(registry: mcp_runtime::Registry) -> Result<(), Box<dyn std::error::Error>> {
/// use mcp_runtime::toolbox::{Toolbox, TypedTool};
///
/// mcp_runtime::mcp_tools!("demo");
///
/// const DEMO: &[TypedTool] = demo::TYPED_TOOLS;
/// let toolbox = Toolbox::builder(&registry).add_typed("demo", DEMO).connect().await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct TypedTool {
    /// The tool's name on the server.
    pub name: &'static str,
    /// The tool's description.
    pub description: Option<&'static str>,
    /// The tool's `inputSchema` (JSON text).
    pub input_schema: &'static str,
    /// The tool's `outputSchema` (JSON text), when it has one.
    pub output_schema: Option<&'static str>,
    /// The non-strict OpenAI function definition (JSON text).
    pub openai_function: &'static str,
    /// The strict OpenAI function definition (JSON text), when the schema allows one.
    pub openai_function_strict: Option<&'static str>,
    /// Why there is no strict definition.
    pub openai_strict_unavailable: Option<&'static str>,
    /// The arguments as the generated `Args` type carries them: deserialized into it and
    /// serialized back, so what is sent is what the types say. `Err` says what is wrong
    /// (a `serde_json` message naming the field). `None` when the tool's arguments are
    /// untyped JSON (its schema could not be typed); they are checked against the schema.
    pub normalize: Option<Normalize>,
    /// The same round trip through the generated `Output` type, when the tool's structured
    /// result is typed.
    pub normalize_output: Option<Normalize>,
}

/// A round trip through a generated type ([`TypedTool::normalize`]): the value as the type
/// carries it, or what is wrong with it.
pub type Normalize = fn(&Value) -> Result<Value, String>;

/// A [`TypedTool::normalize`]: deserializes `value` into `T` and serializes it back.
pub fn normalize_as<T: DeserializeOwned + Serialize>(value: &Value) -> Result<Value, String> {
    let typed = T::deserialize(value).map_err(|e| e.to_string())?;
    serde_json::to_value(&typed).map_err(|e| format!("cannot serialize the arguments back: {e}"))
}

/// A [`TypedTool::normalize`] for tools without parameters: any object (or nothing) is
/// accepted and `{}` is sent.
pub fn normalize_no_args(arguments: &Value) -> Result<Value, String> {
    if arguments.is_object() || arguments.is_null() {
        Ok(Value::Object(serde_json::Map::new()))
    } else {
        Err("this tool takes no arguments; send {}".into())
    }
}

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
/// let sent = mcp_runtime::toolbox::prepare_arguments(
///     &schema, None, json!({"path": "a.txt", "head": null}))?;
/// assert_eq!(sent, json!({"path": "a.txt"}));
/// # Ok::<(), String>(())
/// ```
pub fn prepare_arguments(
    input_schema: &Value,
    normalize: Option<Normalize>,
    arguments: Value,
) -> Result<Value, String> {
    let arguments = super::validate::strip_disallowed_nulls(input_schema, arguments);
    let arguments = match normalize {
        Some(normalize) => normalize(&arguments)?,
        None => arguments,
    };
    super::validate::validate(input_schema, &arguments).map_err(|e| e.join("; "))?;
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
