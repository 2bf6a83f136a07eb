//! How much a server may send: [`Limits`].

/// Bounds on what one server may send, so that no server (broken or hostile) can make the
/// host's memory grow without limit. Crossing one ends the request (a message or a listing)
/// with an error that names the limit and the registry key that raises it.
///
/// | limit | default | registry key |
/// |---|---|---|
/// | one message: a stdio line, an SSE event, an HTTP JSON body | 16 MiB | `max_message_bytes` |
/// | tools in one `tools/list` (all pages) | 10 000 | `max_tools` |
/// | bytes of one `tools/list` (all pages) | 64 MiB | `max_tools_list_bytes` |
/// | requests from the server answered at once (sampling, elicitation, `roots/list`) | 4 | `max_server_requests` |
///
/// Lines a stdio server writes to stderr are read in bounded pieces whatever their length
/// (only their first 400 bytes are kept); that needs no setting.
///
/// ```
/// use mcp_bindgen::{Limits, ServerConfig};
///
/// let config = ServerConfig::stdio("big", "big-server", vec![])
///     .with_limits(Limits::default().with_max_tools(50_000));
/// assert_eq!(config.limits().max_tools(), 50_000);
/// assert_eq!(config.limits().max_message_bytes(), 16 * 1024 * 1024);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    message_bytes: usize,
    tools: usize,
    tools_list_bytes: usize,
    server_requests: usize,
}

impl Limits {
    /// The default size limit of one message (16 MiB, as rmcp's HTTP client).
    pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
    /// The default number of tools one `tools/list` may return (all pages).
    pub const DEFAULT_MAX_TOOLS: usize = 10_000;
    /// The default size of one `tools/list` (all pages).
    pub const DEFAULT_MAX_TOOLS_LIST_BYTES: usize = 64 * 1024 * 1024;
    /// The default number of requests from the server (sampling, elicitation, `roots/list`)
    /// answered at once: each sampling request is normally a paid model call.
    pub const DEFAULT_MAX_SERVER_REQUESTS: usize = 4;

    /// The largest message accepted: a stdio line, an SSE event, an HTTP JSON body
    /// (`max_message_bytes`).
    pub fn max_message_bytes(&self) -> usize {
        self.message_bytes
    }

    /// The most tools one `tools/list` may return, all pages together (`max_tools`).
    pub fn max_tools(&self) -> usize {
        self.tools
    }

    /// The most bytes one `tools/list` may take, all pages together (`max_tools_list_bytes`).
    pub fn max_tools_list_bytes(&self) -> usize {
        self.tools_list_bytes
    }

    /// The most requests from the server (sampling, elicitation, `roots/list`) answered at
    /// once (`max_server_requests`); one past it is refused with a JSON-RPC error that says
    /// so, as the MCP specification asks clients to rate-limit sampling.
    pub fn max_server_requests(&self) -> usize {
        self.server_requests
    }

    /// Sets [`Limits::max_server_requests`] (at least 1).
    pub fn with_max_server_requests(mut self, requests: usize) -> Self {
        self.server_requests = requests.max(1);
        self
    }

    /// Sets [`Limits::max_message_bytes`] (at least 1 KiB).
    pub fn with_max_message_bytes(mut self, bytes: usize) -> Self {
        self.message_bytes = bytes.max(1024);
        self
    }

    /// Sets [`Limits::max_tools`] (at least 1).
    pub fn with_max_tools(mut self, tools: usize) -> Self {
        self.tools = tools.max(1);
        self
    }

    /// Sets [`Limits::max_tools_list_bytes`] (at least 1 KiB).
    pub fn with_max_tools_list_bytes(mut self, bytes: usize) -> Self {
        self.tools_list_bytes = bytes.max(1024);
        self
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            message_bytes: Self::DEFAULT_MAX_MESSAGE_BYTES,
            tools: Self::DEFAULT_MAX_TOOLS,
            tools_list_bytes: Self::DEFAULT_MAX_TOOLS_LIST_BYTES,
            server_requests: Self::DEFAULT_MAX_SERVER_REQUESTS,
        }
    }
}

/// `bytes` in words: `16 MiB`, `1.5 KiB`, `300 bytes`.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn fmt_bytes(bytes: usize) -> String {
    const KIB: usize = 1024;
    const MIB: usize = 1024 * 1024;
    let scaled = |unit: usize, name: &str| {
        if bytes.is_multiple_of(unit) {
            format!("{} {name}", bytes / unit)
        } else {
            format!("{:.1} {name}", bytes as f64 / unit as f64)
        }
    };
    if bytes >= MIB {
        scaled(MIB, "MiB")
    } else if bytes >= KIB {
        scaled(KIB, "KiB")
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_in_words() {
        assert_eq!(fmt_bytes(16 * 1024 * 1024), "16 MiB");
        assert_eq!(fmt_bytes(1536), "1.5 KiB");
        assert_eq!(fmt_bytes(300), "300 bytes");
    }

    #[test]
    fn setters_keep_a_floor() {
        let l = Limits::default()
            .with_max_message_bytes(0)
            .with_max_tools(0)
            .with_max_tools_list_bytes(5);
        assert_eq!(
            (
                l.max_message_bytes(),
                l.max_tools(),
                l.max_tools_list_bytes()
            ),
            (1024, 1, 1024)
        );
    }
}
