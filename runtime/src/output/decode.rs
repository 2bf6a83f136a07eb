//! A tool's result as the call's outcome: [`ToolOutput::checked`] (the tool's own error,
//! `isError: true`, as [`Error::Tool`]) and [`ToolOutput::decode`] (the structured result
//! read into the generated type, [`Error::Decode`] naming the field), beside the type they
//! read.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::ToolOutput;
use crate::error::{Error, Result, excerpt};

/// A tool's result as the call's outcome: the tool's own error (`isError: true`) becomes
/// [`Error::Tool`], a result that does not fit the expected type [`Error::Decode`].
impl ToolOutput {
    /// `self`, or [`Error::Tool`] when the tool reported an error (`isError: true`): what an
    /// untyped call of `tool` on `server` returns.
    pub(crate) fn checked(self, server: &str, tool: &str) -> Result<ToolOutput> {
        if self.is_error {
            Err(Error::Tool {
                server: server.to_string(),
                tool: tool.to_string(),
                output: Box::new(self),
            })
        } else {
            Ok(self)
        }
    }

    /// [`ToolOutput::decode`] in a session: a decode error also names the revision the
    /// session speaks and the fixture's (when known).
    pub(crate) fn decode_in_session<O: DeserializeOwned>(
        self,
        server: &str,
        tool: &str,
        fixture_protocol: Option<&str>,
        spoken: &str,
    ) -> Result<O> {
        self.decode(server, tool).map_err(|mut e| {
            if let Error::Decode { message, .. } = &mut e {
                let fixture = match fixture_protocol {
                    Some(revision) => format!("the fixture was snapshotted at protocol {revision}, "),
                    None => String::new(),
                };
                *message = format!(
                    "{message} ({fixture}the session speaks protocol {spoken}; the result was read as structuredContent and as the first text block's JSON, each also unwrapped from and wrapped into {{\"result\": …}}, as the revisions up to 2025-11-25 and 2026-07-28 carry it)"
                );
            }
            e
        })
    }

    /// What a typed call of `tool` on `server` returns: [`Error::Tool`] when the tool reported
    /// an error, else the structured result decoded into `O` ([`Error::Decode`] names the
    /// field).
    ///
    /// A result that is not an object travels differently by protocol revision and SDK:
    /// as `structuredContent` itself (2026-07-28), as JSON in the first text block (rmcp
    /// servers on older revisions), or wrapped as `{"result": …}` (the TypeScript SDK on
    /// older revisions). The structured result is tried first, then the text block's JSON;
    /// each as it is, then unwrapped from `{"result": …}`, then wrapped into it — so a
    /// fixture snapshotted on one revision decodes results sent on the other.
    pub(crate) fn decode<O: DeserializeOwned>(self, server: &str, tool: &str) -> Result<O> {
        let output = self.checked(server, tool)?;
        let text_json: Option<Value> = output.content.iter().find_map(|c| match c {
            super::Content::Text { text } => serde_json::from_str(text).ok(),
            _ => None,
        });
        let sources: Vec<&Value> = output
            .structured
            .iter()
            .chain(
                text_json
                    .iter()
                    .filter(|t| Some(*t) != output.structured.as_ref()),
            )
            .collect();
        let Some(first) = sources.first().copied() else {
            return O::deserialize(&Value::Null).map_err(|e| Error::Decode {
                server: server.to_string(),
                tool: tool.to_string(),
                type_name: std::any::type_name::<O>(),
                message: e.to_string(),
                excerpt: "no structured result and no JSON text".into(),
            });
        };
        let mut first_error = None;
        for json in &sources {
            // Read from a reference: the structured result is not copied.
            match O::deserialize(*json) {
                Ok(value) => return Ok(value),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
            let unwrapped = json
                .as_object()
                .filter(|m| m.len() == 1)
                .and_then(|m| m.get("result"));
            if let Some(Ok(value)) = unwrapped.map(O::deserialize) {
                return Ok(value);
            }
            let wrapped = serde_json::json!({ "result": json });
            if let Ok(value) = O::deserialize(&wrapped) {
                return Ok(value);
            }
        }
        Err(Error::Decode {
            server: server.to_string(),
            tool: tool.to_string(),
            type_name: std::any::type_name::<O>(),
            message: first_error.map_or_else(String::new, |e| e.to_string()),
            excerpt: excerpt(first),
        })
    }
}
