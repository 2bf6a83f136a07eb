//! The valid `x-mcp-header` annotations of a session's tools, by tool name: what a
//! `tools/call` over Streamable HTTP mirrors into `Mcp-Param-*` headers (protocol
//! 2026-07-28). rmcp mirrors them only for tools it saw in a `tools/list` answer; a typed
//! call may come first, so the session also records the annotations of the fixture it was
//! generated from.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use mcp_bindgen_core::headers::ParamHeader;

/// Tool name → its mirrored arguments.
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

    /// `tool`'s annotations, if it has any.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn get(&self, tool: &str) -> Option<Arc<[ParamHeader]>> {
        self.0.read().ok().and_then(|m| m.get(tool).cloned())
    }
}
