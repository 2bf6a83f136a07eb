//! The three transports behind [`crate::Session::connect`]:
//!
//! * **stdio** — rmcp's child-process transport; the server's stderr is piped, each line is
//!   forwarded to `tracing` (target `mcp_runtime::server_stderr`) and the last lines are kept
//!   for error messages ([`StderrTail`]).
//! * **Streamable HTTP** — rmcp's reqwest client with our custom headers.
//! * **legacy HTTP+SSE** — our own [`SseTransport`] (rmcp removed its SSE client in 0.11):
//!   GET an event stream, wait for the `endpoint` event, POST every message there, read the
//!   answers from the stream.
//!
//! The two HTTP transports are behind the default-on `http` feature.

#[cfg(feature = "http")]
mod http;
#[cfg(feature = "http")]
mod sse;
mod stdio;
mod tap;

#[cfg(feature = "http")]
pub(crate) use http::streamable_http;
#[cfg(feature = "http")]
pub(crate) use sse::SseTransport;
pub(crate) use stdio::{Direct, StderrEof, StderrTail, StdioTransport, StdoutNoise};
pub(crate) use tap::RawTap;
