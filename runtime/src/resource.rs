//! Typed resources: what `resources/read` answers ([`ResourceContents`], which
//! `Session::read` decodes), and resource templates (RFC 6570, [`crate::UriTemplate`])
//! expanded into the URI to read, which is what the `resources()` methods of a generated
//! client do.

use serde::{Deserialize, Serialize};

/// The result of `resources/read`: the resource's contents (a resource may have several
/// parts, each with its own URI).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct ResourceContents {
    /// The parts, in the server's order.
    pub contents: Vec<ResourceContent>,
}

/// One part of a resource: text, or binary data in base64.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum ResourceContent {
    /// A text part.
    Text {
        /// The part's URI.
        uri: String,
        /// Its MIME type, if the server says.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The text.
        text: String,
    },
    /// A binary part.
    Blob {
        /// The part's URI.
        uri: String,
        /// Its MIME type, if the server says.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The bytes, base64-encoded as the server sent them.
        blob: String,
    },
}

impl ResourceContents {
    /// One text part at `uri` (what a `Fake`'s resource stub returns, say).
    pub fn from_text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        ResourceContents {
            contents: vec![ResourceContent::Text {
                uri: uri.into(),
                mime_type: None,
                text: text.into(),
            }],
        }
    }

    /// The text parts, in order.
    fn texts(&self) -> impl Iterator<Item = &str> {
        self.contents.iter().filter_map(|c| match c {
            ResourceContent::Text { text, .. } => Some(text.as_str()),
            ResourceContent::Blob { .. } => None,
        })
    }

    /// The text parts, joined by newlines (`None` when there is none).
    pub fn text(&self) -> Option<String> {
        let texts: Vec<&str> = self.texts().collect();
        (!texts.is_empty()).then(|| texts.join("\n"))
    }

    /// The first text part decoded as JSON into `T` (a resource whose `mimeType` is
    /// `application/json`).
    pub fn json<T: serde::de::DeserializeOwned>(&self) -> std::result::Result<T, String> {
        let text = self.texts().next().ok_or("the resource has no text part")?;
        serde_json::from_str(text).map_err(|e| format!("the resource is not that JSON: {e}"))
    }
}

/// Expands a template the generator checked (a template it cannot parse is returned as
/// written; the generator does not emit such a template).
#[doc(hidden)]
pub fn expand_checked<'v>(template: &str, value: impl Fn(&str) -> Option<&'v str>) -> String {
    match crate::UriTemplate::parse(template) {
        Ok(t) => t.expand(value),
        Err(_) => template.to_string(),
    }
}
