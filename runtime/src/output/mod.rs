//! What calls return: tool output and content blocks, server info, health.

mod decode;

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

/// The state of a session's connection, from [`Session::health`](crate::Session::health).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Health {
    /// The server answered `ping`.
    Ok {
        /// Round-trip time of the ping.
        latency: Duration,
    },
    /// A lazy session that has not connected yet.
    NotConnected,
    /// The transport is closed (the server exited or dropped the connection); the next
    /// request reconnects.
    TransportClosed,
    /// [`Session::close`](crate::Session::close) was called.
    Closed,
    /// The transport is open but `ping` failed or timed out.
    Unresponsive {
        /// Why.
        error: String,
    },
}

impl Health {
    /// Whether the server answered `ping`.
    pub fn is_ok(&self) -> bool {
        matches!(self, Health::Ok { .. })
    }
}

impl std::fmt::Display for Health {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Health::Ok { latency } => write!(f, "answered ping in {latency:.1?}"),
            Health::NotConnected => f.write_str("not connected yet"),
            Health::TransportClosed => f.write_str("the connection is closed"),
            Health::Closed => f.write_str("the session was closed"),
            Health::Unresponsive { error } => write!(f, "no answer to ping: {error}"),
        }
    }
}

/// Where a task stands ([`TaskHandle::status`](crate::TaskHandle::status)).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskState {
    /// Running; the server's status message, if any.
    Working(Option<String>),
    /// Waiting for input from the user (answered by the session's elicitation callback).
    InputRequired,
    /// Done: [`TaskHandle::wait`](crate::TaskHandle::wait) returns the result.
    Completed,
    /// Ended with an error.
    Failed,
    /// Cancelled.
    Cancelled,
}

/// Arguments of a tool that takes none: serializes as `{}` (and reads any object).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct NoArgs {}

/// One content block of a tool result.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Content {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image (base64 data).
    Image {
        /// Base64 data.
        data: String,
        /// MIME type.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// Audio (base64 data).
    Audio {
        /// Base64 data.
        data: String,
        /// MIME type.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// An embedded resource.
    Resource {
        /// The resource (`uri`, `mimeType`, `text` or `blob`).
        resource: Value,
    },
    /// A link to a resource.
    ResourceLink {
        /// The resource URI.
        uri: String,
        /// The resource name.
        #[serde(default)]
        name: String,
    },
}

impl Content {
    #[cfg(not(target_arch = "wasm32"))]
    /// Converts rmcp's content block, moving its data (`None` for a kind we do not model).
    pub(crate) fn from_rmcp(block: rmcp::model::ContentBlock) -> Option<Content> {
        use rmcp::model::ContentBlock;
        match block {
            ContentBlock::Text(t) => Some(Content::Text { text: t.text }),
            ContentBlock::Image(i) => Some(Content::Image {
                data: i.data,
                mime_type: i.mime_type,
            }),
            ContentBlock::Audio(a) => Some(Content::Audio {
                data: a.data,
                mime_type: a.mime_type,
            }),
            ContentBlock::ResourceLink(r) => Some(Content::ResourceLink {
                uri: r.uri,
                name: r.name,
            }),
            other => serde_json::to_value(&other)
                .ok()
                .and_then(|v| serde_json::from_value::<Content>(v).ok()),
        }
    }

    /// The block as text: text as is, JSON-free summaries for binary content.
    pub fn to_text(&self) -> String {
        match self {
            Content::Text { text } => text.clone(),
            Content::Image { data, mime_type } => {
                format!("[image {mime_type}, {} bytes]", data.len() / 4 * 3)
            }
            Content::Audio { data, mime_type } => {
                format!("[audio {mime_type}, {} bytes]", data.len() / 4 * 3)
            }
            Content::Resource { resource } => match resource.get("text").and_then(Value::as_str) {
                Some(t) => t.to_string(),
                None => format!(
                    "[resource {}]",
                    resource.get("uri").and_then(Value::as_str).unwrap_or("?")
                ),
            },
            Content::ResourceLink { uri, name } => format!("[resource link {name} {uri}]"),
        }
    }
}

/// The result of a tool call. Its serde form is MCP's `CallToolResult`:
/// `{"content": […], "structuredContent": …, "isError": true}` (the last two only when set).
#[derive(Debug, Clone, PartialEq, Default, Serialize, serde::Deserialize)]
pub struct ToolOutput {
    /// The content blocks.
    #[serde(default)]
    pub content: Vec<Content>,
    /// `structuredContent`, when the server sent it.
    #[serde(
        rename = "structuredContent",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub structured: Option<Value>,
    /// Whether the tool reported an error (`isError: true`).
    #[serde(rename = "isError", default, skip_serializing_if = "is_false")]
    pub is_error: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl ToolOutput {
    /// A successful result of one text block.
    pub fn from_text(text: impl Into<String>) -> Self {
        ToolOutput {
            content: vec![Content::Text { text: text.into() }],
            structured: None,
            is_error: false,
        }
    }

    /// A successful structured result: `value` as `structuredContent` and, for clients that
    /// read text, as one JSON text block.
    pub fn from_json(value: Value) -> Self {
        ToolOutput {
            content: vec![Content::Text {
                text: value.to_string(),
            }],
            structured: Some(value),
            is_error: false,
        }
    }

    /// All content blocks as text, joined by newlines.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .map(Content::to_text)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The structured result as JSON: `structuredContent`, else the first text block parsed
    /// as JSON.
    pub fn json(&self) -> Option<Value> {
        if let Some(v) = &self.structured {
            return Some(v.clone());
        }
        self.content.iter().find_map(|c| match c {
            Content::Text { text } => serde_json::from_str(text).ok(),
            _ => None,
        })
    }
}

/// What the server said about itself in `initialize`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ServerInfo {
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.version`.
    pub version: String,
    /// The negotiated protocol version.
    pub protocol_version: String,
    /// Whether the server declared the `prompts` capability.
    pub has_prompts: bool,
    /// Whether the server declared the `resources` capability.
    pub has_resources: bool,
    /// Whether the server declared the `completions` capability
    /// ([`Session::complete`](crate::Session::complete)).
    pub has_completions: bool,
}

/// What [`Session::server_info`](crate::Session::server_info) answers before the session
/// has started.
pub(crate) static NO_INFO: ServerInfo = ServerInfo {
    name: String::new(),
    version: String::new(),
    protocol_version: String::new(),
    has_prompts: false,
    has_resources: false,
    has_completions: false,
};

impl From<String> for ToolOutput {
    fn from(text: String) -> Self {
        ToolOutput::from_text(text)
    }
}

impl From<&str> for ToolOutput {
    fn from(text: &str) -> Self {
        ToolOutput::from_text(text)
    }
}

impl From<Value> for ToolOutput {
    fn from(value: Value) -> Self {
        ToolOutput::from_json(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_summaries_never_dump_binary_data() {
        let image = Content::Image {
            data: "AAAA".repeat(100),
            mime_type: "image/png".into(),
        };
        assert_eq!(image.to_text(), "[image image/png, 300 bytes]");
        let out = ToolOutput {
            content: vec![
                Content::Text {
                    text: "{\"a\":1}".into(),
                },
                Content::Audio {
                    data: "AAAA".into(),
                    mime_type: "audio/wav".into(),
                },
            ],
            structured: None,
            is_error: false,
        };
        assert_eq!(out.text(), "{\"a\":1}\n[audio audio/wav, 3 bytes]");
        assert_eq!(out.json(), Some(serde_json::json!({"a": 1})));
    }
}
