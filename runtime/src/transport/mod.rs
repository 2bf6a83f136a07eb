//! The three transports behind [`crate::Session::connect`]:
//!
//! * **stdio** — our own [`StdioTransport`] over the child's pipes: `memchr` line framing,
//!   lines that are not JSON-RPC skipped and remembered for errors ([`StdoutNoise`]), and a
//!   direct path for `tools/call` past rmcp's service loop ([`Direct`]: own ids, answers
//!   routed to the waiting call). The server's stderr is forwarded to `tracing` (target
//!   `mcp_bindgen::server_stderr`) and its last lines are kept for error messages
//!   ([`StderrTail`]); both redact the server's resolved secrets.
//! * **Streamable HTTP** — rmcp's reqwest client with our custom headers.
//! * **legacy HTTP+SSE** — our own [`SseTransport`] (rmcp removed its SSE client in 0.11):
//!   GET an event stream, wait for the `endpoint` event, POST every message there, read the
//!   answers from the stream.
//!
//! The two HTTP transports are behind the default-on `http` feature.
//!
//! Every transport hands what it receives to a [`RawTap`]: it keeps the raw `tools/list`
//! answers (rmcp's model drops fields it does not know; fixtures keep them) and routes
//! `notifications/progress` to the session's progress delivery.

#[cfg(feature = "http")]
mod http;
mod server_output;
#[cfg(feature = "http")]
mod sse;
mod stdio;
mod tap;

#[cfg(feature = "oauth")]
pub(crate) use http::{client_builder, same_origin_redirects, tls_ready};
#[cfg(feature = "http")]
pub(crate) use http::{extra_roots, streamable_http};
pub(crate) use server_output::{StderrEof, StderrTail, StdoutNoise};
#[cfg(feature = "http")]
pub(crate) use sse::SseTransport;
pub(crate) use stdio::{Direct, StdioTransport};
pub(crate) use tap::RawTap;

/// The message of a session ended because the server sent `what` over the
/// `max_message_bytes` limit (`max` bytes).
pub(crate) fn too_large(what: &str, max: usize) -> String {
    format!(
        "the server sent {what} larger than {} (the `max_message_bytes` limit; raise it in the registry if the server's messages are this large), so the client ended the session",
        crate::config::fmt_bytes(max)
    )
}
