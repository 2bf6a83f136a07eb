//! A dispatched call's result as each provider takes it back, images included.

use serde_json::{Map, Value, json};

use crate::output::Content;
use crate::toolbox::Dispatch;
use crate::toolbox::dispatch::model_text_of;
use crate::toolbox::text::truncate_middle;

/// Image types Anthropic accepts in a `tool_result`.
pub const IMAGE_TYPES_ANTHROPIC: &[&str] = &["image/jpeg", "image/png", "image/gif", "image/webp"];
/// Media types Gemini accepts in a function response's `parts` (Gemini 3 and later).
pub const IMAGE_TYPES_GEMINI: &[&str] = &["image/png", "image/jpeg", "image/webp"];

/// `(mime type, base64 data)` of the images among `accepted`.
fn images<'a>(dispatch: &'a Dispatch, accepted: &[&str]) -> Vec<(&'a str, &'a str)> {
    let Ok(output) = &dispatch.result else {
        return Vec::new();
    };
    output
        .content
        .iter()
        .filter_map(|c| match c {
            Content::Image { data, mime_type } if accepted.contains(&mime_type.as_str()) => {
                Some((mime_type.as_str(), data.as_str()))
            }
            _ => None,
        })
        .collect()
}

/// The text beside the images: every other block as text, cut as [`Dispatch::text`] is.
fn text_beside(dispatch: &Dispatch, accepted: &[&str]) -> String {
    let Ok(output) = &dispatch.result else {
        return dispatch.text.clone();
    };
    let rest: Vec<Content> = output
        .content
        .iter()
        .filter(|c| !matches!(c, Content::Image { mime_type, .. } if accepted.contains(&mime_type.as_str())))
        .cloned()
        .collect();
    let text = if rest.is_empty() && output.structured.is_none() {
        String::new()
    } else {
        model_text_of(&rest, output.structured.as_ref())
    };
    truncate_middle(&text, dispatch.max_output_bytes).0
}

impl Dispatch {
    /// The `tool_result` block answering Anthropic's `tool_use` `tool_use_id`: the text, and
    /// each image the tool returned as an `image` block (JPEG, PNG, GIF, WebP; other types
    /// stay text). A failure is `is_error: true` with the error text.
    pub fn anthropic_tool_result(&self, tool_use_id: &str) -> Value {
        let mut block = Map::new();
        block.insert("type".into(), json!("tool_result"));
        block.insert("tool_use_id".into(), json!(tool_use_id));
        let images = images(self, IMAGE_TYPES_ANTHROPIC);
        if images.is_empty() {
            block.insert("content".into(), json!(self.text));
        } else {
            let mut content = Vec::new();
            let text = text_beside(self, IMAGE_TYPES_ANTHROPIC);
            if !text.is_empty() {
                content.push(json!({"type": "text", "text": text}));
            }
            for (mime, data) in images {
                content.push(json!({"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}));
            }
            block.insert("content".into(), Value::Array(content));
        }
        if !self.is_ok() {
            block.insert("is_error".into(), json!(true));
        }
        Value::Object(block)
    }

    /// The `functionResponse` part answering Gemini's function call `name` (with the call's
    /// `id` when the model gave one): `response` is `{"output": text}` or `{"error": text}`,
    /// and each image (PNG, JPEG, WebP) is an `inlineData` entry of `parts` — Gemini 3's
    /// multimodal function responses.
    pub fn gemini_function_response(&self, name: &str, id: Option<&str>) -> Value {
        let mut response = Map::new();
        response.insert("name".into(), json!(name));
        if let Some(id) = id {
            response.insert("id".into(), json!(id));
        }
        let images = images(self, IMAGE_TYPES_GEMINI);
        let text = if images.is_empty() {
            self.text.clone()
        } else {
            text_beside(self, IMAGE_TYPES_GEMINI)
        };
        let key = if self.is_ok() { "output" } else { "error" };
        response.insert("response".into(), json!({ key: text }));
        if !images.is_empty() {
            let parts: Vec<Value> = images
                .into_iter()
                .map(|(mime, data)| json!({"inlineData": {"mimeType": mime, "data": data}}))
                .collect();
            response.insert("parts".into(), Value::Array(parts));
        }
        json!({ "functionResponse": response })
    }

    /// The messages answering OpenAI's tool call `tool_call_id`: the `tool` message with the
    /// text, then — since chat-completions tool messages carry text only — a `user` message
    /// with each image as an `image_url` data URL (JPEG, PNG, GIF, WebP), when there are any.
    pub fn openai_tool_messages(&self, tool_call_id: &str) -> Vec<Value> {
        let images = images(self, IMAGE_TYPES_ANTHROPIC);
        if images.is_empty() {
            return vec![
                json!({"role": "tool", "tool_call_id": tool_call_id, "content": self.text}),
            ];
        }
        let text = text_beside(self, IMAGE_TYPES_ANTHROPIC);
        let count = images.len();
        let mut parts = vec![json!({"type": "text", "text": format!(
            "The {} returned by tool call {tool_call_id}:",
            if count == 1 { "image".to_string() } else { format!("{count} images") }
        )})];
        for (mime, data) in images {
            parts.push(json!({"type": "image_url", "image_url": {"url": format!("data:{mime};base64,{data}")}}));
        }
        vec![
            json!({"role": "tool", "tool_call_id": tool_call_id, "content": if text.is_empty() {
                format!("(returned {count} image{}; sent in the next message)", if count == 1 { "" } else { "s" })
            } else { text }}),
            json!({"role": "user", "content": parts}),
        ]
    }
}
