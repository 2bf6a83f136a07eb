//! What the client offers the server: completions from the application's model (MCP
//! sampling, `sampling/createMessage`) and the application's roots (`roots/list`), as server
//! requests (protocol up to 2025-11-25) or as `input_required` answers to a call
//! (2026-07-28). Both eras go through [`answer_sampling`] and [`offered_roots`].

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::error::{Error, Result};
pub(in crate::session) use crate::root::Root;

/// A server's request for a completion from the application's model (MCP sampling).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SamplingRequest {
    /// The server's alias.
    pub server: String,
    /// The conversation to complete, oldest first.
    pub messages: Vec<SamplingMessage>,
    /// The system prompt the server asks for.
    pub system_prompt: Option<String>,
    /// The most tokens the completion may have.
    pub max_tokens: u32,
    /// The sampling temperature the server asks for.
    pub temperature: Option<f64>,
    /// Sequences that end the completion.
    pub stop_sequences: Vec<String>,
    /// Model names the server suggests, most preferred first (hints: the application
    /// chooses the model).
    pub model_hints: Vec<String>,
    /// The request's parameters as the server sent them (model preference priorities,
    /// `includeContext`, `metadata`, tools, …).
    pub params: Value,
}

/// One message of a [`SamplingRequest`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SamplingMessage {
    /// `"user"` or `"assistant"`.
    pub role: String,
    /// The message's content blocks as the server sent them (`{"type": "text", "text": …}`,
    /// images, audio, tool uses and results).
    pub content: Vec<Value>,
}

impl SamplingMessage {
    /// The text of the message's text blocks, joined by newlines.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The application's completion for a [`SamplingRequest`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SamplingReply {
    /// The model that wrote the completion.
    pub model: String,
    /// The completion's text.
    pub text: String,
    /// Why the model stopped (`endTurn`, `stopSequence`, `maxTokens`); `None`: not said.
    pub stop_reason: Option<String>,
}

impl SamplingReply {
    /// A completion `text` written by `model`, ended at the end of the model's turn.
    pub fn new(model: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            text: text.into(),
            stop_reason: Some("endTurn".to_string()),
        }
    }

    /// Sets [`SamplingReply::stop_reason`].
    pub fn with_stop_reason(mut self, reason: impl Into<String>) -> Self {
        self.stop_reason = Some(reason.into());
        self
    }
}

/// The boxed future a sampling callback returns: the completion, or why the application
/// refuses it (the server receives the reason as a JSON-RPC error).
pub type SamplingFuture = Pin<Box<dyn Future<Output = Result<SamplingReply, String>> + Send>>;

/// The application's sampling callback (set through [`crate::ConnectOptions::on_sampling`]).
pub(in crate::session) type SampleFn = Arc<dyn Fn(SamplingRequest) -> SamplingFuture + Send + Sync>;

/// The `roots/list` result of the roots a session offers; `None` when it offers none (the
/// capability was not declared).
pub(in crate::session) fn offered_roots(
    roots: Option<&std::sync::Mutex<Vec<Root>>>,
) -> Option<Value> {
    roots.map(|r| roots_json(&r.lock().unwrap_or_else(|p| p.into_inner())))
}

/// A `roots/list` result: `{"roots": [{"uri", "name"?}, …]}`.
fn roots_json(roots: &[Root]) -> Value {
    json!({ "roots": roots })
}

/// Why a sampling request got no completion: no callback, the application refused, or the
/// request could not be read. Each becomes a JSON-RPC error for the server.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::session) enum SamplingRefusal {
    /// The application set no sampling callback (the capability was not declared).
    NotOffered,
    /// The callback refused, with its reason.
    Refused(String),
    /// The request's parameters are not a sampling request.
    Invalid(String),
}

impl std::fmt::Display for SamplingRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SamplingRefusal::NotOffered => f.write_str(
                "this client does not offer sampling: the application set no sampling callback (mcp-bindgen's ConnectOptions::on_sampling), so the sampling capability was not declared",
            ),
            SamplingRefusal::Refused(reason) => {
                write!(f, "the application refused the sampling request: {reason}")
            }
            SamplingRefusal::Invalid(why) => write!(f, "invalid sampling request: {why}"),
        }
    }
}

/// Answers one sampling request (its `params` as JSON) with the application's callback: the
/// `sampling/createMessage` result as JSON.
pub(in crate::session) async fn answer_sampling(
    callback: Option<&SampleFn>,
    server: &str,
    params: Value,
) -> Result<Value, SamplingRefusal> {
    let Some(callback) = callback else {
        return Err(SamplingRefusal::NotOffered);
    };
    let request = sampling_request(server, params).map_err(SamplingRefusal::Invalid)?;
    let reply = callback(request).await.map_err(SamplingRefusal::Refused)?;
    tracing::debug!(server, model = %reply.model, "answered a sampling request");
    let mut result = json!({
        "model": reply.model,
        "role": "assistant",
        "content": {"type": "text", "text": reply.text},
    });
    if let (Some(reason), Some(map)) = (reply.stop_reason, result.as_object_mut()) {
        map.insert("stopReason".into(), Value::String(reason));
    }
    Ok(result)
}

/// Reads a `sampling/createMessage` request's parameters.
fn sampling_request(server: &str, params: Value) -> Result<SamplingRequest, String> {
    let messages = params
        .get("messages")
        .and_then(Value::as_array)
        .ok_or("no `messages` array")?
        .iter()
        .map(|m| {
            let role = m
                .get("role")
                .and_then(Value::as_str)
                .ok_or("a message without `role`")?
                .to_string();
            let content = match m.get("content") {
                Some(Value::Array(blocks)) => blocks.clone(),
                Some(block @ Value::Object(_)) => vec![block.clone()],
                _ => return Err("a message without `content`"),
            };
            Ok(SamplingMessage { role, content })
        })
        .collect::<Result<Vec<_>, &str>>()?;
    let max_tokens = params
        .get("maxTokens")
        .and_then(Value::as_u64)
        .ok_or("no `maxTokens`")?;
    let strings = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    };
    let model_hints = params
        .pointer("/modelPreferences/hints")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|h| h.get("name").and_then(Value::as_str))
        .map(str::to_string)
        .collect();
    Ok(SamplingRequest {
        server: server.to_string(),
        messages,
        system_prompt: params
            .get("systemPrompt")
            .and_then(Value::as_str)
            .map(str::to_string),
        max_tokens: u32::try_from(max_tokens).unwrap_or(u32::MAX),
        temperature: params.get("temperature").and_then(Value::as_f64),
        stop_sequences: strings(params.get("stopSequences")),
        model_hints,
        params,
    })
}

impl super::Session {
    /// The roots the session offers the server (empty when it offers none).
    pub fn roots(&self) -> Vec<Root> {
        match &self.inner.wire.shared.roots {
            Some(roots) => roots.lock().unwrap_or_else(|p| p.into_inner()).clone(),
            None => Vec::new(),
        }
    }

    /// Replaces the roots the session offers and sends the server
    /// `notifications/roots/list_changed` (when connected; a later connection gets the new
    /// roots anyway), so it asks for them again.
    ///
    /// The `roots` capability is declared when the session connects, so this needs roots
    /// from [`crate::ConnectOptions::with_roots`] (an empty list will do) or from the
    /// registry's `roots`; otherwise it is an [`Error::InvalidServer`].
    pub async fn set_roots(&self, roots: impl IntoIterator<Item = Root>) -> Result<()> {
        let Some(slot) = &self.inner.wire.shared.roots else {
            return Err(Error::InvalidServer {
                path: Default::default(),
                alias: self.inner.alias.clone(),
                message: "roots cannot be set: the session was connected without roots, so it did not declare the roots capability; connect with ConnectOptions::with_roots (an empty list will do) or give the registry entry `roots`".into(),
            });
        };
        *slot.lock().unwrap_or_else(|p| p.into_inner()) = roots.into_iter().collect();
        let Some(conn) = self.current().filter(|c| c.alive()) else {
            return Ok(());
        };
        conn.peer
            .notify_roots_list_changed()
            .await
            .map_err(|e| Error::Transport {
                server: self.inner.alias.clone(),
                message: format!("cannot send notifications/roots/list_changed: {e}"),
                stderr_tail: self.inner.wire.stderr.lines(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn echo() -> SampleFn {
        Arc::new(|r: SamplingRequest| {
            Box::pin(async move {
                let last = r
                    .messages
                    .last()
                    .map(SamplingMessage::text)
                    .unwrap_or_default();
                Ok(SamplingReply::new("echo-1", format!("echo: {last}")))
            })
        })
    }

    #[tokio::test]
    async fn a_request_is_read_and_the_reply_is_a_create_message_result() {
        let params = json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
            "systemPrompt": "be brief", "maxTokens": 50, "temperature": 0.5,
            "stopSequences": ["\n\n"], "modelPreferences": {"hints": [{"name": "claude"}]}
        });
        let request = sampling_request("s", params.clone()).expect("a request");
        assert_eq!(request.messages[0].text(), "hi");
        assert_eq!(request.system_prompt.as_deref(), Some("be brief"));
        assert_eq!(request.max_tokens, 50);
        assert_eq!(request.stop_sequences, ["\n\n"]);
        assert_eq!(request.model_hints, ["claude"]);
        let result = answer_sampling(Some(&echo()), "s", params).await;
        assert_eq!(
            result,
            Ok(
                json!({"model": "echo-1", "role": "assistant", "stopReason": "endTurn",
                      "content": {"type": "text", "text": "echo: hi"}})
            )
        );
    }

    #[tokio::test]
    async fn no_callback_a_refusal_and_a_bad_request_are_refusals() {
        let params = json!({"messages": [], "maxTokens": 1});
        assert_eq!(
            answer_sampling(None, "s", params.clone()).await,
            Err(SamplingRefusal::NotOffered)
        );
        let refuse: SampleFn = Arc::new(|_| Box::pin(async { Err("the user said no".into()) }));
        let got = answer_sampling(Some(&refuse), "s", params).await;
        assert_eq!(
            got,
            Err(SamplingRefusal::Refused("the user said no".into()))
        );
        let got = answer_sampling(Some(&echo()), "s", json!({"messages": []})).await;
        assert!(matches!(got, Err(SamplingRefusal::Invalid(ref m)) if m.contains("maxTokens")));
    }

    #[test]
    fn roots_are_file_uris() {
        assert_eq!(
            roots_json(&[
                Root::new("file:///x").with_name("X"),
                Root::new("file:///y")
            ]),
            json!({"roots": [{"uri": "file:///x", "name": "X"}, {"uri": "file:///y"}]})
        );
    }
}
