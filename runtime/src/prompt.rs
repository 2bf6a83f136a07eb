//! Typed prompts: `prompts/get` with arguments from a generated `Args` struct (or any
//! `Serialize` value that is a JSON object of strings), and its result as Rust types.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::output::Content;
use crate::session::Session;

/// Who speaks a [`PromptMessage`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Role {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

/// One message of a prompt: a role and one content block.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct PromptMessage {
    /// Who speaks.
    pub role: Role,
    /// What is said (text, image, audio, embedded resource or resource link).
    pub content: Content,
}

/// The result of `prompts/get`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct PromptResult {
    /// The server's description of the rendered prompt, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages, in order.
    pub messages: Vec<PromptMessage>,
}

impl PromptResult {
    /// One message from the user with `text` (what a `Fake`'s prompt stub returns, say).
    pub fn from_user_text(text: impl Into<String>) -> Self {
        PromptResult {
            description: None,
            messages: vec![PromptMessage {
                role: Role::User,
                content: Content::Text { text: text.into() },
            }],
        }
    }

    /// Every message as text (binary content summarized), one `role: text` line each.
    pub fn text(&self) -> String {
        self.messages
            .iter()
            .map(|m| {
                let role = match m.role {
                    Role::User => "user",
                    Role::Assistant => "assistant",
                };
                format!("{role}: {}", m.content.to_text())
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl Session {
    /// Gets the prompt `name` with typed arguments (what the `prompts()` methods of a
    /// generated client call).
    ///
    /// `arguments` must serialize to a JSON object whose values are strings (MCP prompt
    /// arguments are strings); absent optional fields are left out. The result is decoded
    /// into a [`PromptResult`]; [`Session::get_prompt`] gives the raw JSON instead.
    pub async fn prompt<A: Serialize + ?Sized>(
        &self,
        name: &str,
        arguments: &A,
    ) -> Result<PromptResult> {
        let error = |message: String| Error::Prompt {
            server: self.alias().to_string(),
            prompt: name.to_string(),
            message,
        };
        let map = prompt_arguments(arguments).map_err(error)?;
        let raw = self.get_prompt(name, map).await?;
        serde_json::from_value(raw)
            .map_err(|e| error(format!("unexpected prompts/get result: {e}")))
    }
}

/// Encodes prompt arguments: a JSON object of strings (`null` members are left out).
fn prompt_arguments<A: Serialize + ?Sized>(
    arguments: &A,
) -> std::result::Result<Map<String, Value>, String> {
    let value =
        serde_json::to_value(arguments).map_err(|e| format!("arguments cannot be encoded: {e}"))?;
    let Value::Object(map) = value else {
        return Err(format!(
            "arguments must encode to a JSON object of strings, not {value}"
        ));
    };
    let mut out = Map::with_capacity(map.len());
    for (key, value) in map {
        match value {
            Value::Null => {}
            Value::String(_) => {
                out.insert(key, value);
            }
            other => {
                return Err(format!(
                    "argument \"{key}\" must be a string (MCP prompt arguments are strings), not {other}"
                ));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_are_an_object_of_strings_without_nulls() {
        let map = prompt_arguments(&json!({"city": "Oslo", "state": null})).unwrap();
        assert_eq!(Value::Object(map), json!({"city": "Oslo"}));
        let e = prompt_arguments(&json!({"n": 3})).unwrap_err();
        assert!(e.contains("argument \"n\" must be a string"), "{e}");
        let e = prompt_arguments(&json!(["x"])).unwrap_err();
        assert!(e.contains("JSON object of strings"), "{e}");
    }

    #[test]
    fn results_decode_with_roles_and_content() {
        let r: PromptResult = serde_json::from_value(json!({
            "description": "d",
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "hi"}},
                {"role": "assistant", "content": {"type": "image", "data": "AAAA", "mimeType": "image/png"}}
            ]
        }))
        .unwrap();
        assert_eq!(r.messages[0].role, Role::User);
        assert_eq!(r.text(), "user: hi\nassistant: [image image/png, 3 bytes]");
    }
}
