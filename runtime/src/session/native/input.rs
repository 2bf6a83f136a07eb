//! Input the server asks the user for: elicitation, as a server request (up to protocol
//! 2025-11-25) or as an `input_required` answer to a call (2026-07-28). Both go through
//! [`answer_elicitation`], so an application answers them with one callback.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction, InputRequest};
use serde_json::{Map, Value};

use super::Session;
use crate::error::{Error, Result};
use crate::protocol::Round;

/// A server's request for input from the user (MCP elicitation).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Elicitation {
    /// The server's alias.
    pub server: String,
    /// What the server asks for, in words for the user.
    pub message: String,
    /// Form mode: the JSON Schema of the answer (an object of primitive properties).
    pub schema: Option<Value>,
    /// URL mode: the page where the user gives the input (out of band).
    pub url: Option<String>,
}

impl Elicitation {
    /// `{property: default}` for every property of the form's schema that has a default.
    pub fn defaults(&self) -> Map<String, Value> {
        let mut content = Map::new();
        let props = self
            .schema
            .as_ref()
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object);
        for (name, prop) in props.into_iter().flatten() {
            if let Some(default) = prop.get("default") {
                content.insert(name.clone(), default.clone());
            }
        }
        content
    }
}

/// The user's answer to an [`Elicitation`].
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitationAnswer {
    /// The user gave these values (form mode) or completed the page (URL mode: empty).
    Accept(Map<String, Value>),
    /// The user refused.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
}

/// The boxed future an elicitation callback returns.
pub type ElicitationFuture = Pin<Box<dyn Future<Output = ElicitationAnswer> + Send>>;

/// How a session answers elicitations (set through [`crate::ConnectOptions`]).
#[derive(Clone)]
pub(in crate::session) enum Elicit {
    /// Accept forms with their schema defaults, decline URLs.
    Defaults,
    /// Ask the application.
    Callback(Arc<dyn Fn(Elicitation) -> ElicitationFuture + Send + Sync>),
}

/// Answers one elicitation: with the application's callback, with the schema defaults, or
/// (no policy: the client did not declare the capability) by declining.
pub(in crate::session) async fn answer_elicitation(
    policy: Option<&Elicit>,
    server: &str,
    request: ElicitRequestParams,
) -> ElicitResult {
    let request = match request {
        ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } => Elicitation {
            server: server.to_string(),
            message,
            schema: serde_json::to_value(&requested_schema).ok(),
            url: None,
        },
        ElicitRequestParams::UrlElicitationParams { message, url, .. } => Elicitation {
            server: server.to_string(),
            message,
            schema: None,
            url: Some(url),
        },
        // An elicitation mode of a later revision: nothing to show the user.
        _ => return ElicitResult::new(ElicitationAction::Decline),
    };
    let answer = match policy {
        None => ElicitationAnswer::Decline,
        Some(Elicit::Defaults) if request.url.is_some() => ElicitationAnswer::Decline,
        Some(Elicit::Defaults) => ElicitationAnswer::Accept(request.defaults()),
        Some(Elicit::Callback(f)) => f(request).await,
    };
    tracing::debug!(server, answer = ?std::mem::discriminant(&answer), "answered an elicitation");
    match answer {
        ElicitationAnswer::Accept(content) if content.is_empty() => {
            ElicitResult::new(ElicitationAction::Accept)
        }
        ElicitationAnswer::Accept(content) => {
            ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content))
        }
        ElicitationAnswer::Decline => ElicitResult::new(ElicitationAction::Decline),
        ElicitationAnswer::Cancel => ElicitResult::new(ElicitationAction::Cancel),
    }
}

impl Session {
    /// The next round of a call the server answered with `input_required`: every input
    /// request answered, the server's `requestState` echoed unchanged.
    pub(in crate::session) async fn answer_input_required(
        &self,
        tool: &str,
        result: rmcp::model::InputRequiredResult,
    ) -> Result<Round> {
        let alias = self.inner.alias.as_str();
        let policy = self.inner.options.elicit.as_ref();
        let mut responses = Map::new();
        for (key, request) in result.input_requests.unwrap_or_default() {
            let answer = match request {
                InputRequest::Elicitation(r) => {
                    let result = answer_elicitation(policy, alias, r.params).await;
                    serde_json::to_value(result).unwrap_or(Value::Null)
                }
                InputRequest::ListRoots(_) => {
                    match super::client::offered_roots(self.inner.wire.shared.roots.as_ref()) {
                        Some(json) => json,
                        None => {
                            return Err(Error::Misbehaved {
                                server: alias.to_string(),
                                method: format!("tools/call \"{tool}\""),
                                message: "the server asked for the client's roots, but this client offers none (no `roots` in the registry entry, no ConnectOptions::with_roots) and did not declare the roots capability".into(),
                            });
                        }
                    }
                }
                #[allow(deprecated)] // Sampling: deprecated by a later revision, still sent.
                InputRequest::CreateMessage(r) => {
                    let params = serde_json::to_value(&r.params).unwrap_or(Value::Null);
                    let sampling = self.inner.options.sampling.as_ref();
                    super::client::answer_sampling(sampling, alias, params)
                        .await
                        .map_err(|refusal| Error::Misbehaved {
                            server: alias.to_string(),
                            method: format!("tools/call \"{tool}\""),
                            message: format!(
                                "the server asked for an LLM completion (sampling): {refusal}"
                            ),
                        })?
                }
                other => {
                    return Err(Error::Misbehaved {
                        server: alias.to_string(),
                        method: format!("tools/call \"{tool}\""),
                        message: format!(
                            "the server asked for input of a kind this client does not know: {}",
                            crate::error::excerpt(&other)
                        ),
                    });
                }
            };
            responses.insert(key, answer);
        }
        Ok(Round {
            input_responses: (!responses.is_empty()).then_some(responses),
            request_state: result.request_state,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_schema_defaults() {
        let e = Elicitation {
            server: "s".into(),
            message: "m".into(),
            schema: Some(serde_json::json!({"type": "object", "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "nick": {"type": "string"}
            }})),
            url: None,
        };
        assert_eq!(
            Value::Object(e.defaults()),
            serde_json::json!({"name": "John Doe", "age": 30})
        );
    }
}
