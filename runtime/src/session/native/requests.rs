//! The native wire's requests other than `tools/call`: listings (the raw `tools/list`
//! pages from the tap), resources, prompts, ping and health.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rmcp::model::{ClientRequest, PingRequest};
use rmcp::service::{PeerRequestOptions, ServiceError};
use serde::Serialize;
use serde_json::Value;

use super::conn::Conn;
use super::{DEFAULT_TIMEOUT, HEALTH_TIMEOUT, Listing, Session};
use crate::error::{Error, Result};
use crate::output::Health;

impl Session {
    /// Ping with a short deadline ([`HEALTH_TIMEOUT`]) plus the transport's state. Never
    /// connects or reconnects.
    pub async fn health(&self) -> Health {
        if self.inner.wire.closed.load(Ordering::Acquire) {
            return Health::Closed;
        }
        let Some(conn) = self.current() else {
            return Health::NotConnected;
        };
        if !conn.alive() {
            return Health::TransportClosed;
        }
        let started = Instant::now();
        match self.ping_on(&conn, HEALTH_TIMEOUT).await {
            Ok(()) => Health::Ok {
                latency: started.elapsed(),
            },
            Err(_) if !conn.alive() => Health::TransportClosed,
            Err(e) => Health::Unresponsive {
                error: e.to_string(),
            },
        }
    }

    pub(in crate::session) fn request_timeout(&self) -> Duration {
        self.inner.config.timeout().unwrap_or(DEFAULT_TIMEOUT)
    }

    pub(in crate::session) async fn with_deadline<T>(
        &self,
        conn: &Conn,
        what: &str,
        fut: impl Future<Output = std::result::Result<T, ServiceError>>,
    ) -> Result<T> {
        let limit = self.request_timeout();
        match tokio::time::timeout(limit, fut).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(self.map_service_error(conn, what, limit, e).await),
            Err(_) => Err(Error::Timeout {
                server: self.inner.alias.clone(),
                what: what.to_string(),
                limit,
                kind: "total timeout",
                diagnosis: self.inner.wire.noise.summary(),
            }),
        }
    }

    /// The wire's `tools/list` (connecting first).
    pub(in crate::session) async fn wire_list_tools(&self) -> Result<Vec<Value>> {
        let conn = self.conn().await?;
        self.list_tools_on(&conn).await
    }

    /// Connects (or reconnects) when needed.
    pub(in crate::session) async fn wire_connect(&self) -> Result<()> {
        self.conn().await.map(drop)
    }

    pub(in crate::session) async fn list_tools_on(&self, conn: &Conn) -> Result<Vec<Value>> {
        let _one_at_a_time = self.inner.wire.listing.lock().await;
        self.inner.wire.tap.reset();
        let tools = self.list_tool_pages(conn).await?;
        let raw: Vec<Value> = self
            .inner
            .wire
            .tap
            .take_pages()
            .into_iter()
            .flatten()
            .collect();
        let listed = match kept_raw(raw, &tools) {
            Some(kept) => kept,
            None => {
                tracing::debug!(server = %self.inner.alias, "raw tools/list not captured; using rmcp's tool model");
                tools
                    .iter()
                    .map(|t| self.to_json("tools/list", t))
                    .collect::<Result<Vec<_>>>()?
            }
        };
        Ok(self.keep_valid_tools(listed))
    }

    /// Every page of `tools/list`, one request per page under the request deadline; a
    /// cursor the server already sent (a pagination cycle) or more than [`MAX_PAGES`] pages
    /// end the listing at once with an error saying so.
    async fn list_tool_pages(&self, conn: &Conn) -> Result<Vec<rmcp::model::Tool>> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = std::collections::HashSet::new();
        let limits = self.inner.config.limits();
        // (bytes the tap captured, bytes of pages it did not see)
        let mut seen_bytes = (0usize, 0usize);
        for _ in 0..MAX_PAGES {
            let params = rmcp::model::PaginatedRequestParams::default().with_cursor(cursor);
            let page = self
                .with_deadline(conn, "tools/list", conn.peer.list_tools(Some(params)))
                .await?;
            // Bytes of the answer: as received when the tap saw it, else (an HTTP JSON body
            // that rmcp parsed first) as encoded again.
            let captured = self.inner.wire.tap.captured_bytes();
            if captured == seen_bytes.0 {
                seen_bytes.1 += serde_json::to_vec(&page.tools).map_or(0, |v| v.len());
            }
            seen_bytes.0 = captured;
            tools.extend(page.tools);
            if tools.len() > limits.max_tools() {
                return Err(self.listing_error(format!(
                    "server listed more than {} tools (the `max_tools` limit; raise it in the registry if the server really has this many); stopped listing",
                    limits.max_tools()
                )));
            }
            if seen_bytes.0 + seen_bytes.1 > limits.max_tools_list_bytes() {
                return Err(self.listing_error(format!(
                    "the server's tools/list answers took more than {} (the `max_tools_list_bytes` limit; raise it in the registry if the server really lists this much); stopped listing",
                    crate::config::fmt_bytes(limits.max_tools_list_bytes())
                )));
            }
            match page.next_cursor {
                None => return Ok(tools),
                Some(next) if !seen.insert(next.clone()) => {
                    return Err(self.listing_error(format!(
                        "server returned cursor \"{}\" twice: pagination cycle",
                        mcp_bindgen_core::schema::truncate(&next, 80)
                    )));
                }
                Some(next) => cursor = Some(next),
            }
        }
        Err(self.listing_error(format!(
            "server kept sending next cursors after {MAX_PAGES} pages of tools; stopped listing"
        )))
    }

    fn listing_error(&self, message: String) -> Error {
        Error::Misbehaved {
            server: self.inner.alias.clone(),
            method: "tools/list".into(),
            message,
        }
    }

    /// Every item of a paged listing.
    pub(in crate::session) async fn wire_list(&self, what: Listing) -> Result<Vec<Value>> {
        let conn = self.conn().await?;
        let method = what.method();
        match what {
            Listing::Prompts => self.to_json_all(
                method,
                self.with_deadline(&conn, method, conn.peer.list_all_prompts())
                    .await?,
            ),
            Listing::Resources => self.to_json_all(
                method,
                self.with_deadline(&conn, method, conn.peer.list_all_resources())
                    .await?,
            ),
            Listing::ResourceTemplates => self.to_json_all(
                method,
                self.with_deadline(&conn, method, conn.peer.list_all_resource_templates())
                    .await?,
            ),
        }
    }

    fn to_json_all<T: Serialize>(&self, what: &str, items: Vec<T>) -> Result<Vec<Value>> {
        items.iter().map(|item| self.to_json(what, item)).collect()
    }

    /// `resources/read`.
    pub(in crate::session) async fn wire_read_resource(&self, uri: &str) -> Result<Value> {
        let conn = self.conn().await?;
        let what = format!("resources/read \"{uri}\"");
        let result = self
            .with_deadline(
                &conn,
                &what,
                conn.peer
                    .read_resource(rmcp::model::ReadResourceRequestParams::new(uri)),
            )
            .await?;
        self.to_json(&what, &result)
    }

    /// `prompts/get`.
    pub(in crate::session) async fn wire_get_prompt(
        &self,
        name: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<Value> {
        let conn = self.conn().await?;
        let what = format!("prompts/get \"{name}\"");
        let params = rmcp::model::GetPromptRequestParams::new(name).with_arguments(arguments);
        let result = self
            .with_deadline(&conn, &what, conn.peer.get_prompt(params))
            .await?;
        self.to_json(&what, &result)
    }

    /// `completion/complete` with `params` (built for both wires as JSON); the result as
    /// JSON.
    pub(in crate::session) async fn wire_complete(
        &self,
        what: &str,
        params: Value,
    ) -> Result<Value> {
        let conn = self.conn().await?;
        let params: rmcp::model::CompleteRequestParams =
            serde_json::from_value(params).map_err(|e| Error::Transport {
                server: self.inner.alias.clone(),
                message: format!("{what}: cannot build the request: {e}"),
                stderr_tail: Vec::new(),
            })?;
        let result = self
            .with_deadline(&conn, what, conn.peer.complete(params))
            .await?;
        self.to_json(what, &result)
    }

    pub(in crate::session) fn to_json(&self, what: &str, item: &impl Serialize) -> Result<Value> {
        serde_json::to_value(item).map_err(|e| Error::Transport {
            server: self.inner.alias.clone(),
            message: format!("{what}: cannot re-encode an item: {e}"),
            stderr_tail: Vec::new(),
        })
    }

    /// `ping` (or `server/discover`), connecting first when needed.
    pub(in crate::session) async fn wire_ping(&self, timeout: Duration) -> Result<()> {
        let conn = self.conn().await?;
        self.ping_on(&conn, timeout).await
    }

    pub(in crate::session) async fn ping_on(&self, conn: &Conn, timeout: Duration) -> Result<()> {
        // Protocol 2026-07-28 has no `ping`; `server/discover` is the cheapest request there.
        let (what, request) = if conn.stateless {
            (
                "server/discover",
                ClientRequest::DiscoverRequest(rmcp::model::DiscoverRequest::new(
                    rmcp::model::DiscoverRequestParams {},
                )),
            )
        } else {
            ("ping", ClientRequest::PingRequest(PingRequest::default()))
        };
        let handle = match conn
            .peer
            .send_cancellable_request(request, PeerRequestOptions::with_timeout(timeout))
            .await
        {
            Ok(h) => h,
            Err(e) => return Err(self.map_service_error(conn, what, timeout, e).await),
        };
        match handle.await_response().await {
            Ok(_) => Ok(()),
            Err(e) => Err(self.map_service_error(conn, what, timeout, e).await),
        }
    }
}

/// The most pages of one `tools/list` (a server that lists more is assumed to loop).
const MAX_PAGES: usize = 1000;

/// The raw tools (as the server sent them) that rmcp kept, in order: all of them, or fewer
/// when rmcp's HTTP transport dropped tools with invalid `x-mcp-header` annotations (the
/// dropped ones are returned too, for [`Session::keep_valid_tools`] to name). `None` when
/// the two lists do not match that way (the raw answer was not captured).
fn kept_raw(raw: Vec<Value>, tools: &[rmcp::model::Tool]) -> Option<Vec<Value>> {
    if raw.len() < tools.len() {
        return None;
    }
    let mut wanted = tools.iter().map(|t| &*t.name).peekable();
    let mut kept = Vec::with_capacity(raw.len());
    for tool in raw {
        let name = tool.get("name").and_then(Value::as_str);
        if name.is_some() && name == wanted.peek().copied() {
            wanted.next();
            kept.push(tool);
        } else if mcp_bindgen_core::headers::param_headers(
            tool.get("inputSchema").unwrap_or(&Value::Null),
        )
        .is_err()
        {
            // Dropped by rmcp for the same reason: kept here so that it is named.
            kept.push(tool);
        } else {
            return None;
        }
    }
    wanted.peek().is_none().then_some(kept)
}
