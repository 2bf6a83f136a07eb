//! The protocol's nouns that the session and the transports below it share: the state a
//! retried `tools/call` carries ([`Round`]) and the `x-mcp-header` annotations mirrored into
//! `Mcp-Param-*` headers ([`ParamHeaders`]).

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use mcp_bindgen_core::headers::{ParamHeader, header_value, value_at};
use serde_json::Value;

/// What a retried `tools/call` carries after an `input_required` answer (protocol
/// 2026-07-28): the answers to the server's input requests and its opaque state. (The
/// `fetch` wire does not answer input requests.)
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Round {
    pub(crate) input_responses: Option<serde_json::Map<String, Value>>,
    pub(crate) request_state: Option<String>,
}

/// The valid `x-mcp-header` annotations of a session's tools, by tool name: what a
/// `tools/call` over Streamable HTTP mirrors into `Mcp-Param-*` headers (protocol
/// 2026-07-28). rmcp mirrors them only for tools it saw in a `tools/list` answer; a typed
/// call may come first, so the session also records the annotations of the fixture it was
/// generated from.
#[derive(Debug, Default)]
pub(crate) struct ParamHeaders(RwLock<HashMap<String, Arc<[ParamHeader]>>>);

impl ParamHeaders {
    /// Records `tool`'s annotations (none: forgets the tool).
    pub(crate) fn set(&self, tool: &str, headers: Vec<ParamHeader>) {
        if let Ok(mut map) = self.0.write() {
            if headers.is_empty() {
                map.remove(tool);
            } else {
                map.insert(tool.to_string(), headers.into());
            }
        }
    }

    /// Records `tool`'s annotations unless the tool is known already (a live listing wins
    /// over the fixture).
    pub(crate) fn set_if_unknown(&self, tool: &str, headers: Vec<ParamHeader>) {
        let known = self.0.read().map(|m| m.contains_key(tool)).unwrap_or(true);
        if !known && !headers.is_empty() {
            self.set(tool, headers);
        }
    }

    /// The `Mcp-Param-*` headers (name without the prefix, value) of a call of `tool` with
    /// `arguments`: one per annotated argument present with a value a header can carry.
    #[cfg_attr(not(any(feature = "http", target_arch = "wasm32")), allow(dead_code))]
    pub(crate) fn mirrored(&self, tool: &str, arguments: &Value) -> Vec<(String, String)> {
        let Some(params) = self.0.read().ok().and_then(|m| m.get(tool).cloned()) else {
            return Vec::new();
        };
        params
            .iter()
            .filter_map(|p| {
                let value = value_at(arguments, &p.path).and_then(header_value)?;
                Some((format!("Mcp-Param-{}", p.header), value))
            })
            .collect()
    }
}
