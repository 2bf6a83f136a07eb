//! A connected MCP server: [`Session`], written once, over one of two wires chosen by
//! target: `native` (rmcp over stdio, legacy HTTP+SSE or Streamable HTTP, with reconnection,
//! server-to-client requests and tasks) and, on wasm32, `fetch` (Streamable HTTP through the
//! host's `fetch`, both protocol revisions).
//!
//! What does not depend on the wire lives here: the alias, configuration and resolved
//! secrets, redaction, the server's info, every call variant and its decoding, the task
//! handle, the tools a client must not call, and the listing API. Each wire provides the
//! same private operations (`wire_call`, `wire_task`, `wire_list_tools`, `wire_list`,
//! `wire_read_resource`, `wire_get_prompt`, `wire_ping`, `wire_check_drift`, `wire_close`,
//! `wire_connect`, `open`); a wasm32 build lacks the public methods its wire cannot serve
//! (`health`, `call_stream`, `task_status`, roots, sampling and elicitation).

use std::sync::{Arc, Mutex, OnceLock};

use crate::config::{Resolved, ServerConfig};
use crate::error::Result;
use crate::output::*;
use crate::protocol::ParamHeaders;

mod call;
#[cfg(target_arch = "wasm32")]
mod fetch;
#[cfg(not(target_arch = "wasm32"))]
mod native;
mod options;
mod requests;
mod task;

pub use crate::output::TaskState;
#[cfg(not(target_arch = "wasm32"))]
pub use native::client::{SamplingFuture, SamplingMessage, SamplingReply, SamplingRequest};
#[cfg(not(target_arch = "wasm32"))]
pub use native::input::{Elicitation, ElicitationAnswer, ElicitationFuture};
#[cfg(not(target_arch = "wasm32"))]
pub use native::notify::ServerLog;
#[cfg(not(target_arch = "wasm32"))]
pub use native::stream::{CallEvent, CallStream};
#[cfg(not(target_arch = "wasm32"))]
pub use native::watch::ResourceUpdates;
pub use options::*;
pub use requests::REJECTED_TOOL_TARGET;
pub use task::TaskHandle;

pub(crate) use call::Encode;
#[cfg(target_arch = "wasm32")]
use fetch::Wire;
#[cfg(not(target_arch = "wasm32"))]
use native::Wire;
use requests::Listing;

/// A live connection to one MCP server. Cheap to clone; the connection closes when the
/// last clone is dropped (stdio servers are terminated) or on [`Session::close`].
///
/// When the transport dies (the server crashed or exited), the next request reconnects
/// (one attempt at a time, with backoff after failures); a call that was in flight fails
/// with [`Error::Transport`](crate::Error::Transport) and is only replayed when the caller opted in
/// ([`CallOptions::with_retry_if_idempotent`]) and the tool is annotated read-only or
/// idempotent.
///
/// On wasm32 the session speaks Streamable HTTP through the host's `fetch`: every request
/// stands alone (a 2025-11-25 session the server expired is started again), and what needs
/// a server-to-client stream or a child process is not there.
#[derive(Clone)]
pub struct Session {
    inner: Arc<Inner>,
}

struct Inner {
    alias: String,
    config: ServerConfig,
    /// The substituted settings, kept for reconnections (`Debug` redacts them).
    resolved: Resolved,
    options: ConnectOptions,
    info: OnceLock<ServerInfo>,
    /// The tools the last listing left out, and why.
    rejected: Mutex<Vec<(String, String)>>,
    /// The valid `x-mcp-header` annotations by tool (the fixture's, then the live listing's).
    param_headers: Arc<ParamHeaders>,
    /// What the wire keeps: the connection and its state.
    wire: Wire,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("alias", &self.inner.alias)
            .field("transport", &self.transport())
            .field("server", self.server_info())
            .finish_non_exhaustive()
    }
}

impl Session {
    /// Connects to a server of the registry: substitutes `${NAME}` placeholders from the
    /// process environment (none on wasm32), starts or reaches the server, and runs
    /// `initialize` (or `server/discover` on protocol 2026-07-28).
    ///
    /// For anything else (placeholders from another source, lazy connection, connect
    /// deadline, drift check, elicitation), build [`ConnectOptions`] and call
    /// [`ConnectOptions::connect`].
    pub async fn connect(config: &ServerConfig) -> Result<Session> {
        ConnectOptions::new().connect(config).await
    }

    /// The server's alias in the registry.
    pub fn alias(&self) -> &str {
        &self.inner.alias
    }

    /// `value` with every secret of the server's configuration (the values its `${NAME}`
    /// placeholders resolved to, auth secrets) replaced by `<redacted>` in every string, keys
    /// included: what may be written where the configuration is not (cassettes).
    pub(crate) fn redact_json(&self, value: &serde_json::Value) -> serde_json::Value {
        use serde_json::Value;
        match value {
            Value::String(s) => Value::String(self.redact(s)),
            Value::Array(items) => {
                Value::Array(items.iter().map(|v| self.redact_json(v)).collect())
            }
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (self.redact(k), self.redact_json(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// `tools` (a live `tools/list`) with every secret of the server's configuration
    /// redacted as [`Session::redact`] does, in every string of a tool that holds one (the
    /// others are kept as they are): the list a toolbox judges, shows and offers.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn redact_tools(&self, tools: Vec<serde_json::Value>) -> Vec<serde_json::Value> {
        tools
            .into_iter()
            .map(|tool| {
                let text = tool.to_string();
                if self.contains_secret(&text) || text.contains("Bearer ") {
                    self.redact_json(&tool)
                } else {
                    tool
                }
            })
            .collect()
    }

    /// `text` with every secret of the server's configuration replaced by `<redacted>`: the
    /// values its `${NAME}` placeholders resolved to, its headers, its URL's userinfo and
    /// credential query parameters, auth secrets, and bearer tokens (16 or more token
    /// characters with a digit, after `Bearer `). The rule every error of the session
    /// follows; for text of your own (a log line).
    pub fn redact(&self, text: &str) -> String {
        crate::redact::redact(&self.inner.resolved.secrets, text)
    }

    /// Whether `text` contains a secret of the server's configuration (as
    /// [`Session::redact`] would replace, but for `Bearer ` examples): what must never be
    /// written to a file meant for git, such as a fixture.
    pub fn contains_secret(&self, text: &str) -> bool {
        crate::redact::contains_secret(&self.inner.resolved.secrets, text)
    }

    /// The transport's name: `stdio`, `sse` or `streamable-http` (always `streamable-http`
    /// on wasm32).
    pub fn transport(&self) -> &'static str {
        self.wire_transport()
    }

    /// What the server reported in `initialize` (or `server/discover`); empty before a lazy
    /// session connected.
    pub fn server_info(&self) -> &ServerInfo {
        self.inner.info.get().unwrap_or(&NO_INFO)
    }

    /// The last lines the server wrote to stderr (stdio servers; none otherwise).
    pub fn stderr_tail(&self) -> Vec<String> {
        self.wire_stderr_tail()
    }

    /// The shared part of a new session: `wire` is the wire's state.
    fn assemble(
        config: &ServerConfig,
        resolved: Resolved,
        options: ConnectOptions,
        wire: Wire,
    ) -> Arc<Inner> {
        let param_headers = Arc::new(ParamHeaders::default());
        for tool in options.fixture_tools.into_iter().flatten() {
            if let Ok(schema) = serde_json::from_str(tool.input_schema)
                && let Ok(headers) = mcp_bindgen_core::headers::param_headers(&schema)
            {
                param_headers.set_if_unknown(tool.name, headers);
            }
        }
        Arc::new(Inner {
            alias: config.alias().to_string(),
            config: config.clone(),
            resolved,
            options,
            info: OnceLock::new(),
            rejected: Mutex::new(Vec::new()),
            param_headers,
            wire,
        })
    }
}

impl ConnectOptions {
    /// Connects to a server of the registry with these options: substitutes `${NAME}`
    /// placeholders (from [`ConnectOptions::with_env_lookup`], or the process environment;
    /// a wasm32 host has none), starts or reaches the server, and runs `initialize` (or
    /// `server/discover`).
    ///
    /// With [`ConnectOptions::lazy`], the placeholders are substituted now (a missing
    /// variable fails here) and the session is returned at once, unconnected: it connects on
    /// its first request.
    ///
    /// ```no_run
    /// # async fn demo(config: &mcp_bindgen::ServerConfig) -> mcp_bindgen::Result<()> {
    /// use std::time::Duration;
    /// use mcp_bindgen::ConnectOptions;
    ///
    /// let session = ConnectOptions::new()
    ///     .with_connect_timeout(Duration::from_secs(5))
    ///     .with_env_lookup(|name| (name == "TOKEN").then(|| "secret".to_string()))
    ///     .connect(config)
    ///     .await?;
    /// # let _ = session;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn connect(self, config: &ServerConfig) -> Result<Session> {
        let resolved = match &self.lookup {
            Some(lookup) => config.resolve(&|name| lookup(name)),
            None => config.resolve(&environment),
        }?;
        Session::open(config, resolved, self).await
    }
}

/// A `${NAME}` placeholder's value from the process environment (a wasm32 host has none).
fn environment(name: &str) -> Option<String> {
    #[cfg(target_arch = "wasm32")]
    return {
        let _ = name;
        None
    };
    #[cfg(not(target_arch = "wasm32"))]
    std::env::var(name).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send<T: Send>(_: &T) {}

    /// Both ways to connect give `Send` futures (the toolbox and users spawn them).
    #[test]
    fn connecting_futures_are_send() {
        let config = ServerConfig::stdio("send", "/nonexistent/mcp-server", vec![]);
        assert_send(&Session::connect(&config));
        assert_send(&ConnectOptions::new().connect(&config));
        let options = ConnectOptions::new()
            .lazy()
            .with_env_lookup(|_| None)
            .with_connect_timeout(std::time::Duration::from_secs(1));
        assert_send(&options.connect(&config));
    }
}
