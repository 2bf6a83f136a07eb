//! rig's tools (feature `rig`; rig-core's contracts, no HTTP client and no provider): every
//! tool of a [`Toolbox`] a [`rig_core::tool::DynamicTool`] with its reviewed definition,
//! whose calls run through the toolbox.
//!
//! A rig agent (`rig_agent::AgentBuilder::dynamic_tools`, or any registry rig's tool
//! contracts feed) then offers the model what was reviewed, and each call the model makes
//! is checked against the schema (and the generated type of a typed server), passes the
//! hooks and the approval policy, is cut to the toolbox's limit and counted in
//! [`Toolbox::stats`], exactly as [`Toolbox::call`] does it.
//!
//! ```no_run
//! # async fn run(toolbox: mcp_bindgen::toolbox::Toolbox) -> Result<(), mcp_bindgen::Error> {
//! let tools = toolbox.rig_tools()?; // Vec<rig_core::tool::DynamicTool>
//! // rig_agent::AgentBuilder::new(model).dynamic_tools(tools).build()
//! # let _ = tools;
//! # Ok(())
//! # }
//! ```
//!
//! * **Failures the model reads.** A failed call (a tool error, bad arguments, a refusal by
//!   a hook or the approval policy, a server that is down) is rig's failed tool result, of
//!   the matching [`ToolErrorKind`], and the model reads the toolbox's words for it (the
//!   `Error: …` text of [`Dispatch::text`](super::super::Dispatch::text)). A refusal is
//!   rig's refusal ([`ToolExecutionError::refused`]).
//! * **Run-time switches.** A tool switched off ([`Toolbox::switch_off`], itself or its
//!   server) reports itself not live ([`DynamicTool::is_live`]), so rig's registries drop it
//!   from the model's list on their next read; a call that still reaches it is refused.
//! * **Typed modules.** A generated module's tools reach rig through the toolbox:
//!   `Toolbox::builder(&registry).add_typed("github", github::TYPED_TOOLS)` (or a generated `Fake` through
//!   `add_fake`), then `rig_tools()`: the model's arguments are checked by the generated
//!   types before the server sees them.
//! * **An agent view** ([`Toolbox::agent`]) gives that agent's tools only.

use rig_core::message::ToolName;
use rig_core::tool::{DynamicTool, ToolErrorKind, ToolExecutionError, ToolOutput};
use serde_json::Value;

use crate::error::{Error, ErrorKind};
use crate::toolbox::Toolbox;
use crate::toolbox::provider::Format;

impl Toolbox {
    /// Every tool of this toolbox (an agent view: its tools) as a rig [`DynamicTool`]: the
    /// name, description and parameters the toolbox exports (the non-strict JSON Schema of
    /// [`Format::OpenAi`], which rig's providers turn into their own forms), and a callback
    /// that dispatches through [`Toolbox::call_value`].
    ///
    /// `Err` ([`ErrorKind::Config`]) with progressive discovery on: rig's agents take a
    /// fixed list, and the tools `load_tools` adds would not be in it.
    pub fn rig_tools(&self) -> Result<Vec<DynamicTool>, Error> {
        self.rig_tools_where(|_| true)
    }

    /// The tools of one server (its alias) as rig tools ([`Toolbox::rig_tools`]). `Err`
    /// ([`ErrorKind::Config`]) when the toolbox has no server of that alias.
    pub fn rig_server_tools(&self, alias: &str) -> Result<Vec<DynamicTool>, Error> {
        let snap = self.snapshot();
        if !snap.slots.contains_key(alias) {
            return Err(Error::toolbox(
                ErrorKind::Config,
                format!(
                    "the toolbox has no server \"{alias}\"; its servers: {}",
                    snap.slots.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        self.rig_tools_where(|server| server == alias)
    }

    fn rig_tools_where(&self, keep: impl Fn(&str) -> bool) -> Result<Vec<DynamicTool>, Error> {
        if self.inner.options.progressive.is_some() {
            return Err(Error::toolbox(
                ErrorKind::Config,
                "rig's agents take a fixed tool list, and progressive discovery changes it \
                 during a run (`load_tools`): build the toolbox for rig without \
                 `ToolboxBuilder::progressive`"
                    .to_string(),
            ));
        }
        let mut tools = Vec::new();
        for definition in self.export(Format::OpenAi).tools {
            let (name, description, parameters) = parts(&definition)?;
            let tool = self.resolve(&name)?;
            if !keep(&tool.server) {
                continue;
            }
            let tool_name = ToolName::new(name.clone()).map_err(|e| {
                Error::toolbox(
                    ErrorKind::Config,
                    format!("rig does not take the tool name \"{name}\": {e}"),
                )
            })?;
            let toolbox = self.clone();
            let callback = move |arguments: Value| {
                let toolbox = toolbox.clone();
                let name = name.clone();
                let call: rig_core::wasm_compat::WasmBoxedFuture<'static, _> =
                    Box::pin(async move { output(toolbox.call_value(&name, &arguments).await) });
                call
            };
            let watched = self.clone();
            let (server, name_on_server) = (tool.server, tool.tool);
            tools.push(
                DynamicTool::new(tool_name, description, parameters, callback).with_liveness(
                    move || !watched.inner.watch.switches().off(&server, &name_on_server),
                ),
            );
        }
        Ok(tools)
    }
}

/// The name, description and parameters of a [`Format::OpenAi`] definition.
fn parts(definition: &Value) -> Result<(String, String, Value), Error> {
    let function = definition.get("function").unwrap_or(definition);
    let name = function.get("name").and_then(Value::as_str);
    let parameters = function.get("parameters");
    match (name, parameters) {
        (Some(name), Some(parameters)) => Ok((
            name.to_string(),
            function
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            parameters.clone(),
        )),
        _ => Err(Error::toolbox(
            ErrorKind::Decode,
            format!("an exported definition without a name or parameters: {definition}"),
        )),
    }
}

/// A dispatch as rig's outcome: the text on success, else a failure of the matching kind
/// whose model-facing text is the toolbox's.
fn output(dispatch: crate::toolbox::Dispatch) -> Result<ToolOutput, ToolExecutionError> {
    let Some(kind) = dispatch.error_kind() else {
        return Ok(ToolOutput::text(dispatch.text));
    };
    let rig_kind = match kind {
        ErrorKind::Refused => return Err(ToolExecutionError::refused(dispatch.text)),
        ErrorKind::InvalidArguments => ToolErrorKind::InvalidArgs,
        ErrorKind::UnknownTool | ErrorKind::AmbiguousTool => ToolErrorKind::NotFound,
        ErrorKind::NotAllowed | ErrorKind::Unauthorized | ErrorKind::ModelServerMismatch => {
            ToolErrorKind::PermissionDenied
        }
        ErrorKind::Timeout => ToolErrorKind::Timeout,
        ErrorKind::Transport | ErrorKind::Unavailable => ToolErrorKind::Network,
        _ => ToolErrorKind::Other,
    };
    Err(ToolExecutionError::new(rig_kind, dispatch.text))
}
