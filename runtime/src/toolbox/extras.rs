//! Prompts and resources for the model: opt-in tools beside a server's own
//! ([`ToolboxOptions::prompts_as_tools`], [`ToolboxOptions::resources_as_tools`]) and
//! resources rendered as context text ([`Toolbox::resources_context`]).
//!
//! * each prompt of a server is the tool `get_prompt_<name>` (exported
//!   `mcp_<alias>_get_prompt_<name>`): its arguments are the prompt's (strings), its result
//!   the prompt's messages as text;
//! * a server with resources gets the tool `read_resource` (`{"uri": string}`), whose
//!   description lists the resources (the first 50); text contents are
//!   text, images are image content, other binary contents are summarized.
//!
//! A server tool of the same name wins (the extra one is left out, with a warning).

use serde_json::{Map, Value};

use super::catalog::{Extras, Kind};
use super::{Toolbox, ToolboxOptions};
use crate::error::{Error, ErrorKind};
use crate::output::{Content, ToolOutput};
use crate::session::Session;

/// The prompt and resource lists `options` asks for (empty otherwise, or when the server
/// has none; a failure is logged and gives an empty list).
pub(super) async fn list(session: &Session, options: &ToolboxOptions) -> Extras {
    let alias = session.alias().to_string();
    let prompts = async {
        if !options.prompts_as_tools {
            return Vec::new();
        }
        session.list_prompts().await.unwrap_or_else(|e| {
            tracing::warn!(server = %alias, error = %e, "cannot list prompts");
            Vec::new()
        })
    };
    let resources = async {
        if !options.resources_as_tools {
            return Vec::new();
        }
        session.list_resources().await.unwrap_or_else(|e| {
            tracing::warn!(server = %alias, error = %e, "cannot list resources");
            Vec::new()
        })
    };
    let (prompts, resources) = futures::join!(prompts, resources);
    Extras { prompts, resources }
}

/// Runs an extra tool: the prompt's messages, or the resource's contents.
pub(super) async fn run(
    session: &Session,
    kind: &Kind,
    arguments: &Value,
) -> Result<ToolOutput, Error> {
    match kind {
        Kind::Tool => Err(Error::toolbox(ErrorKind::Config, "not an extra tool")),
        Kind::Prompt(name) => {
            let args: Map<String, Value> = arguments
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| {
                    let text = match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    (k.clone(), Value::String(text))
                })
                .collect();
            let result = session.get_prompt(name, args).await?;
            Ok(ToolOutput::from_text(render_prompt(&result)))
        }
        Kind::ReadResource => {
            let uri = arguments.get("uri").and_then(Value::as_str).unwrap_or("");
            let result = session.read_resource(uri).await?;
            Ok(resource_output(&result))
        }
    }
}

/// A `prompts/get` result as text: its description, then each message as `[role] text`.
fn render_prompt(result: &Value) -> String {
    let mut parts = Vec::new();
    if let Some(d) = result.get("description").and_then(Value::as_str) {
        parts.push(d.to_string());
    }
    for m in result
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("?");
        let content = &m["content"];
        let text = match content.get("type").and_then(Value::as_str) {
            Some("text") => content["text"].as_str().unwrap_or("").to_string(),
            Some("resource") => content["resource"]["text"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| format!("[resource {}]", content["resource"]["uri"])),
            Some(other) => format!("[{other} content]"),
            None => content.to_string(),
        };
        parts.push(format!("[{role}] {text}"));
    }
    parts.join("\n\n")
}

/// A `resources/read` result as a tool output: text as text, images as images.
fn resource_output(result: &Value) -> ToolOutput {
    let mut content = Vec::new();
    for c in result
        .get("contents")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let mime = c.get("mimeType").and_then(Value::as_str).unwrap_or("");
        if let Some(text) = c.get("text").and_then(Value::as_str) {
            content.push(Content::Text {
                text: text.to_string(),
            });
        } else if let Some(blob) = c.get("blob").and_then(Value::as_str) {
            if mime.starts_with("image/") {
                content.push(Content::Image {
                    data: blob.to_string(),
                    mime_type: mime.to_string(),
                });
            } else {
                content.push(Content::Text {
                    text: format!(
                        "[binary resource {}, {} bytes, {}]",
                        c.get("uri").and_then(Value::as_str).unwrap_or("?"),
                        blob.len() / 4 * 3,
                        if mime.is_empty() {
                            "unknown type"
                        } else {
                            mime
                        }
                    ),
                });
            }
        }
    }
    ToolOutput {
        content,
        structured: None,
        is_error: false,
    }
}

impl Toolbox {
    /// Reads the chosen resources (`(alias, uri)`) and renders them as context text for a
    /// model's prompt, one block per resource:
    ///
    /// ```text
    /// <resource server="docs" uri="file:///guide.md">
    /// …the text…
    /// </resource>
    /// ```
    ///
    /// Images and other binary contents are summarized (`[image image/png, 1234 bytes]`).
    /// Fails on the first resource that cannot be read, naming it.
    pub async fn resources_context(&self, resources: &[(&str, &str)]) -> Result<String, Error> {
        let mut blocks = Vec::with_capacity(resources.len());
        for (alias, uri) in resources {
            let result = self.read_resource(alias, uri).await.map_err(|e| {
                Error::toolbox(
                    e.kind(),
                    format!("cannot read resource {uri} of server \"{alias}\": {e}"),
                )
            })?;
            let text = resource_output(&result).text();
            blocks.push(format!(
                "<resource server=\"{alias}\" uri=\"{uri}\">\n{}\n</resource>",
                text.trim_end()
            ));
        }
        Ok(blocks.join("\n\n"))
    }
}
