//! Local tools: functions of the application, exported and dispatched beside MCP tools.
//!
//! A local tool's argument type derives `schemars::JsonSchema` (schemars 1, re-exported as
//! `mcp_bindgen::schemars`) and `serde::Deserialize`; its input schema is the type's schema.
//! It is exported under its own name (`^[A-Za-z0-9_-]{1,64}$`; the `mcp_` prefix is kept for
//! MCP tools) in every format, and a model's call goes through the same steps as an MCP
//! tool's: the arguments are checked against the schema, then decoded into the type; the
//! handler's error becomes a [`ErrorKind::ToolFailed`] text; long results are cut; a handler
//! that panics gives an error, not a crash.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::error::{Error, ErrorKind};
use crate::output::ToolOutput;

type Handler =
    dyn Fn(Value) -> Pin<Box<dyn Future<Output = Result<ToolOutput, Error>> + Send>> + Send + Sync;

/// A local tool: name, description, input schema and handler.
#[derive(Clone)]
pub struct LocalTool {
    pub(super) name: String,
    pub(super) description: String,
    pub(super) input_schema: Value,
    handler: Arc<Handler>,
}

impl std::fmt::Debug for LocalTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalTool")
            .field("name", &self.name)
            .field("description", &self.description)
            .field("input_schema", &self.input_schema)
            .finish_non_exhaustive()
    }
}

impl LocalTool {
    /// A tool named `name` whose arguments are an `A` and whose work is `handler`; its
    /// input schema is `A`'s (schemars 1).
    ///
    /// The handler returns anything that converts into a [`ToolOutput`] (`String`, `&str`,
    /// a `serde_json::Value` — structured — or a `ToolOutput`), or an error whose text the
    /// model reads.
    ///
    /// Fails ([`ErrorKind::Config`]) for a name outside `^[A-Za-z0-9_-]{1,64}$` or starting
    /// with `mcp_`. Needs the `local-tools` feature; [`LocalTool::with_schema`] does not.
    #[cfg(feature = "local-tools")]
    pub fn new<A, F, Fut, T, E>(
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> Result<LocalTool, Error>
    where
        A: schemars::JsonSchema + DeserializeOwned + Send + 'static,
        F: Fn(A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<T, E>> + Send + 'static,
        T: Into<ToolOutput>,
        E: std::fmt::Display,
    {
        LocalTool::with_schema(name, description, input_schema::<A>(), handler)
    }

    /// A tool named `name` with the JSON Schema `input_schema` (an object schema), whose
    /// arguments are decoded into an `A` (`serde_json::Value` for no decoding) and whose
    /// work is `handler`. Arguments are checked against the schema before the decoding.
    ///
    /// Fails ([`ErrorKind::Config`]) for a name outside `^[A-Za-z0-9_-]{1,64}$` or starting
    /// with `mcp_`.
    pub fn with_schema<A, F, Fut, T, E>(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        handler: F,
    ) -> Result<LocalTool, Error>
    where
        A: DeserializeOwned + Send + 'static,
        F: Fn(A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<T, E>> + Send + 'static,
        T: Into<ToolOutput>,
        E: std::fmt::Display,
    {
        let name = name.into();
        check_name(&name)?;
        let handler = Arc::new(handler);
        let tool = name.clone();
        let erased: Arc<Handler> = Arc::new(move |arguments: Value| {
            let handler = handler.clone();
            let tool = tool.clone();
            Box::pin(async move {
                let args: A = serde_json::from_value(arguments).map_err(|e| {
                    Error::toolbox(
                        ErrorKind::InvalidArguments,
                        format!(
                            "invalid arguments for {tool}: {e}. Fix the arguments and call it again."
                        ),
                    )
                })?;
                match handler(args).await {
                    Ok(out) => Ok(out.into()),
                    Err(e) => Err(Error::toolbox(
                        ErrorKind::ToolFailed,
                        format!("tool {tool} failed: {e}"),
                    )),
                }
            })
        });
        Ok(LocalTool {
            name,
            description: description.into(),
            input_schema,
            handler: erased,
        })
    }

    /// The tool's name (as exported).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The input schema (from the argument type, or as given).
    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }

    /// The tool as an MCP tool definition (`name`, `description`, `inputSchema`).
    pub fn definition(&self) -> Value {
        json!({"name": self.name, "description": self.description, "inputSchema": self.input_schema})
    }

    /// Runs the handler on its own task, so a panic becomes an error.
    pub(super) async fn run(&self, arguments: Value) -> Result<ToolOutput, Error> {
        let fut = (self.handler)(arguments);
        match tokio::spawn(fut).await {
            Ok(result) => result,
            Err(e) => Err(Error::toolbox(
                ErrorKind::ToolFailed,
                format!(
                    "tool {} failed: its handler {}",
                    self.name,
                    if e.is_panic() {
                        "panicked"
                    } else {
                        "was cancelled"
                    }
                ),
            )),
        }
    }
}

fn check_name(name: &str) -> Result<(), Error> {
    if !super::names::is_valid_name(name) {
        return Err(Error::toolbox(
            ErrorKind::Config,
            format!(
                "local tool name \"{name}\" is not valid: use 1 to 64 of A-Z a-z 0-9 _ -, as every model provider requires"
            ),
        ));
    }
    if name.starts_with("mcp_") {
        return Err(Error::toolbox(
            ErrorKind::Config,
            format!(
                "local tool name \"{name}\" starts with `mcp_`, which is kept for the tools of MCP servers; choose another name"
            ),
        ));
    }
    Ok(())
}

#[cfg(feature = "local-tools")]
/// The JSON Schema of `A` as a tool's input schema: an object schema, `$schema` and the
/// type's title removed.
fn input_schema<A: schemars::JsonSchema>() -> Value {
    let schema = schemars::schema_for!(A);
    let mut value = serde_json::to_value(&schema).unwrap_or_else(|_| json!({}));
    if let Value::Object(m) = &mut value {
        m.remove("$schema");
        m.remove("title");
        // `()` and unit structs: no arguments.
        if m.get("type") == Some(&json!("null")) {
            m.clear();
        }
        m.entry("type").or_insert(json!("object"));
        if m.get("type") == Some(&json!("object")) {
            m.entry("properties").or_insert(json!({}));
        }
    }
    value
}
