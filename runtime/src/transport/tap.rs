//! Raw capture of `tools/list` answers.
//!
//! rmcp parses every message into its typed model, which drops fields it does not know
//! (e.g. a tool's `execution` object of protocol 2025-11-25). A fixture must hold the tools
//! exactly as the server sent them, so each transport shows the tap the messages it sends
//! and the raw JSON text it receives; the tap keeps the `result.tools` array of every answer
//! to a `tools/list` request it saw go out. The fast path (no listing in flight) is one
//! atomic load per message.
//!
//! The tap also delivers `notifications/progress` to the session's progress router, in
//! arrival order and before any later message (such as the call's result) reaches rmcp:
//! rmcp runs each notification handler in its own task, which can reorder progress updates
//! and let them trail the result.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, ProgressNotificationParam};
use serde::Deserialize;
use serde_json::Value;

/// Receives progress notifications in arrival order.
pub(crate) type ProgressSink = Arc<dyn Fn(ProgressNotificationParam) + Send + Sync>;

/// Shared between a session and its transport.
#[derive(Default)]
pub(crate) struct RawTap {
    in_flight: AtomicUsize,
    state: Mutex<TapState>,
    progress: OnceLock<ProgressSink>,
}

impl std::fmt::Debug for RawTap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawTap")
            .field("in_flight", &self.in_flight)
            .finish_non_exhaustive()
    }
}

/// Longest message inspected for `notifications/progress` (progress updates are small).
const PROGRESS_MAX: usize = 64 * 1024;

#[derive(Deserialize)]
struct RawNotification {
    method: String,
    params: Option<ProgressNotificationParam>,
}

#[derive(Debug, Default)]
struct TapState {
    /// Request ids (as JSON text) of `tools/list` requests awaiting their answer.
    wanted: HashSet<String>,
    /// Captured `result.tools` arrays, in arrival order.
    pages: Vec<Vec<Value>>,
    /// Bytes of the captured answers.
    bytes: usize,
}

#[derive(Deserialize)]
struct RawResponse {
    id: Option<Value>,
    result: Option<RawResult>,
}

#[derive(Deserialize)]
struct RawResult {
    tools: Option<Vec<Value>>,
}

impl RawTap {
    /// Notes an outgoing message; remembers the id of a `tools/list` request.
    pub(crate) fn on_send(&self, message: &ClientJsonRpcMessage) {
        if let JsonRpcMessage::Request(r) = message
            && matches!(r.request, ClientRequest::ListToolsRequest(_))
            && let Ok(id) = serde_json::to_string(&r.id)
            && let Ok(mut st) = self.state.lock()
        {
            st.wanted.insert(id);
            self.in_flight.store(st.wanted.len(), Ordering::Release);
        }
    }

    /// Sets where progress notifications go (once).
    pub(crate) fn set_progress_sink(&self, sink: ProgressSink) {
        let _ = self.progress.set(sink);
    }

    /// Looks at an incoming message's JSON text (every line the transport reads).
    pub(crate) fn on_receive(&self, text: &[u8]) {
        if text.len() <= PROGRESS_MAX
            && let Some(sink) = self.progress.get()
            && progress_finder().find(text).is_some()
            && let Ok(RawNotification {
                method,
                params: Some(params),
            }) = serde_json::from_slice::<RawNotification>(text)
            && method == "notifications/progress"
        {
            sink(params);
            return;
        }
        if self.in_flight.load(Ordering::Acquire) == 0 {
            return;
        }
        let Ok(resp) = serde_json::from_slice::<RawResponse>(text) else {
            return;
        };
        let (Some(id), Some(RawResult { tools: Some(tools) })) = (resp.id, resp.result) else {
            return;
        };
        if let Ok(mut st) = self.state.lock()
            && st.wanted.remove(&id.to_string())
        {
            st.pages.push(tools);
            st.bytes += text.len();
            self.in_flight.store(st.wanted.len(), Ordering::Release);
        }
    }

    /// Forgets earlier captures (call before listing).
    pub(crate) fn reset(&self) {
        if let Ok(mut st) = self.state.lock() {
            st.pages.clear();
            st.bytes = 0;
        }
    }

    /// Bytes of the `tools/list` answers captured since [`RawTap::reset`] (0 when the
    /// transport parsed them before the tap saw them).
    pub(crate) fn captured_bytes(&self) -> usize {
        self.state.lock().map(|st| st.bytes).unwrap_or(0)
    }

    /// The pages captured since [`RawTap::reset`].
    pub(crate) fn take_pages(&self) -> Vec<Vec<Value>> {
        self.state
            .lock()
            .map(|mut st| std::mem::take(&mut st.pages))
            .unwrap_or_default()
    }
}

/// The searcher for `notifications/progress`, built once (building one per line read was
/// ≈0.5 % of a busy client's time).
fn progress_finder() -> &'static memchr::memmem::Finder<'static> {
    static FINDER: std::sync::OnceLock<memchr::memmem::Finder<'static>> =
        std::sync::OnceLock::new();
    FINDER.get_or_init(|| memchr::memmem::Finder::new(b"notifications/progress"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_only_answers_to_tools_list() {
        let tap = RawTap::default();
        let list: ClientJsonRpcMessage =
            serde_json::from_str(r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}"#)
                .unwrap();
        let ping: ClientJsonRpcMessage =
            serde_json::from_str(r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#).unwrap();
        tap.on_send(&ping);
        tap.on_receive(br#"{"jsonrpc":"2.0","id":8,"result":{"tools":[{"name":"x"}]}}"#);
        assert!(tap.take_pages().is_empty());
        tap.on_send(&list);
        tap.on_receive(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#);
        tap.on_receive(
            br#"{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"a","execution":{"taskSupport":"forbidden"}}]}}"#,
        );
        let pages = tap.take_pages();
        assert_eq!(pages.len(), 1);
        assert_eq!(pages[0][0]["execution"]["taskSupport"], "forbidden");
        assert_eq!(tap.in_flight.load(Ordering::Acquire), 0);
    }
}
