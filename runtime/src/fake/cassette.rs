//! Cassettes: JSON Lines of recorded calls, written by [`Tape`] and checked line by line
//! against the generated types when loaded.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::{Value, json};

use crate::error::{Error, Result};
use crate::output::ToolOutput;
use crate::session::{CallOptions, Encode, Session};
use crate::typed::TypedTool;
use crate::validate::{locate, validate};

/// The cassette a generated `Recorder` appends to: one line per call,
/// `{"server", "tool", "arguments", "result"}`. Calls that fail before the server answers
/// (transport errors, timeouts) are not recorded: a cassette holds what servers said. The
/// server's resolved secrets (the values of its `${NAME}` placeholders, auth secrets) are
/// written as `<redacted>`.
#[derive(Debug)]
pub struct Tape {
    path: PathBuf,
    file: Mutex<std::fs::File>,
}

impl Tape {
    /// Opens `path` for appending, creating it (and its directory) when missing.
    pub fn append(path: impl AsRef<Path>) -> Result<Tape> {
        let path = path.as_ref().to_path_buf();
        let fail = |e: std::io::Error| Error::Cassette {
            path: path.clone(),
            line: 0,
            message: format!("cannot open it for appending: {e}"),
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(fail)?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(fail)?;
        Ok(Tape {
            path,
            file: Mutex::new(file),
        })
    }

    /// The cassette's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Calls `tool` on `session` (as a task, followed to its end, when `task`) and appends
    /// the call and the server's result (an `isError` result included) to the cassette.
    pub(super) async fn call(
        &self,
        session: &Session,
        tool: &str,
        args: &dyn Encode,
        options: CallOptions,
        task: bool,
    ) -> Result<ToolOutput> {
        let arguments = args.to_json().map_err(|e| Error::Encode {
            server: session.alias().to_string(),
            tool: tool.to_string(),
            message: e.to_string(),
        })?;
        let output = if task {
            match session
                .call_task(tool, &arguments, options)
                .await?
                .wait()
                .await
            {
                Err(Error::Tool { output, .. }) => *output,
                other => other?,
            }
        } else {
            session.call_with(tool, &arguments, options).await?
        };
        // The server's secrets never reach the cassette (a file meant to be committed):
        // a tool that echoes its environment records `<redacted>`.
        let line = session.redact_json(&json!({
            "server": session.alias(),
            "tool": tool,
            "arguments": arguments,
            "result": output,
        }));
        let mut text = line.to_string();
        text.push('\n');
        let mut file = self
            .file
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        file.write_all(text.as_bytes())
            .and_then(|()| file.flush())
            .map_err(|e| Error::Cassette {
                path: self.path.clone(),
                line: 0,
                message: format!("cannot append the call of \"{tool}\": {e}"),
            })?;
        Ok(output)
    }
}

/// One checked line of a cassette.
pub(super) struct Entry {
    pub(super) tool: String,
    /// The arguments as the generated type writes them, canonical.
    pub(super) key: String,
    pub(super) result: ToolOutput,
}

/// Reads and checks every line of the cassette at `path` for the server `alias`.
pub(super) fn load(path: &Path, alias: &str, tools: &[TypedTool]) -> Result<Vec<Entry>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Cassette {
        path: path.to_path_buf(),
        line: 0,
        message: format!("cannot read it: {e}"),
    })?;
    let mut entries = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let entry = entry(line, alias, tools).map_err(|message| Error::Cassette {
            path: path.to_path_buf(),
            line: n + 1,
            message,
        })?;
        entries.push(entry);
    }
    Ok(entries)
}

fn entry(line: &str, alias: &str, tools: &[TypedTool]) -> std::result::Result<Entry, String> {
    let value: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let field = |name: &str| {
        value.get(name).ok_or_else(|| {
            format!("no \"{name}\" (a line is {{\"server\", \"tool\", \"arguments\", \"result\"}})")
        })
    };
    if let Some(server) = value.get("server").and_then(Value::as_str)
        && server != alias
    {
        return Err(format!(
            "recorded from server \"{server}\", not \"{alias}\"; use that server's Fake, or record this server's calls"
        ));
    }
    let tool = field("tool")?.as_str().ok_or("\"tool\" is not a string")?;
    let Some(typed) = tools.iter().find(|t| t.name == tool) else {
        return Err(format!(
            "tool \"{tool}\" is not in the fixture of server \"{alias}\" any more; record the cassette again (its tools: {})",
            tools.iter().map(|t| t.name).collect::<Vec<_>>().join(", ")
        ));
    };
    let arguments = field("arguments")?;
    let arguments = match typed.normalize {
        Some(normalize) => normalize(arguments).map_err(|e| {
            format!(
                "tool \"{tool}\": the recorded arguments do not fit its generated `Args`: {e}{}",
                at(typed.input_schema, arguments)
            )
        })?,
        None => {
            if let Err(problems) =
                schema(typed.input_schema).map_or(Ok(()), |schema| validate(&schema, arguments))
            {
                return Err(format!(
                    "tool \"{tool}\": the recorded arguments do not fit its input schema: {}",
                    problems.join("; ")
                ));
            }
            arguments.clone()
        }
    };
    let result: ToolOutput = serde_json::from_value(field("result")?.clone())
        .map_err(|e| format!("tool \"{tool}\": \"result\" is not a tool result: {e}"))?;
    if let Some(normalize) = typed.normalize_output
        && !result.is_error
    {
        let structured = result.json().unwrap_or(Value::Null);
        normalize(&structured).map_err(|e| {
            format!(
                "tool \"{tool}\": the recorded result does not fit its generated `Output`: {e}{}",
                typed
                    .output_schema
                    .map(|s| at(s, &structured))
                    .unwrap_or_default()
            )
        })?;
    }
    Ok(Entry {
        tool: tool.to_string(),
        key: canonical(&arguments),
        result,
    })
}

fn schema(text: &str) -> Option<Value> {
    serde_json::from_str(text).ok()
}

/// Where `value` breaks the schema `schema_text` ([`locate`]).
fn at(schema_text: &str, value: &Value) -> String {
    schema(schema_text).map_or_else(String::new, |s| locate(&s, value))
}

/// `value` as text with object keys sorted at every depth: equal arguments give equal keys
/// whatever order they were written in.
pub(super) fn canonical(value: &Value) -> String {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                let mut out = serde_json::Map::new();
                for k in keys {
                    out.insert(k.clone(), sorted(&m[k]));
                }
                Value::Object(out)
            }
            Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(value).to_string()
}
