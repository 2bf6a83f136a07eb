//! Requests other than `tools/call`: listings, resources, prompts, ping and health.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rmcp::model::{ClientRequest, PingRequest};
use rmcp::service::{PeerRequestOptions, ServiceError};
use serde::Serialize;
use serde_json::Value;

use super::conn::Conn;
use super::{DEFAULT_TIMEOUT, HEALTH_TIMEOUT, Session};
use crate::error::{Error, Result};
use crate::output::Health;

impl Session {
    /// Ping with a short deadline ([`HEALTH_TIMEOUT`]) plus the transport's state. Never
    /// connects or reconnects.
    pub async fn health(&self) -> Health {
        if self.inner.closed.load(Ordering::Acquire) {
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

    pub(super) fn request_timeout(&self) -> Duration {
        self.inner.config.timeout().unwrap_or(DEFAULT_TIMEOUT)
    }

    pub(super) async fn with_deadline<T>(
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
                diagnosis: self.inner.noise.summary(),
            }),
        }
    }

    /// Every tool of the server (all pages), as JSON objects in the server's order, exactly
    /// as the server sent them (fields rmcp's model does not know, such as `execution`,
    /// included) — except over Streamable HTTP answered with `application/json`, where
    /// rmcp's model is all there is (a debug event says so).
    pub async fn list_tools(&self) -> Result<Vec<Value>> {
        let conn = self.conn().await?;
        self.list_tools_on(&conn).await
    }

    pub(super) async fn list_tools_on(&self, conn: &Conn) -> Result<Vec<Value>> {
        let _one_at_a_time = self.inner.listing.lock().await;
        self.inner.tap.reset();
        let tools = self.list_tool_pages(conn).await?;
        let raw: Vec<Value> = self.inner.tap.take_pages().into_iter().flatten().collect();
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
            let captured = self.inner.tap.captured_bytes();
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

    /// Leaves out the tools whose `x-mcp-header` annotations break protocol 2026-07-28's
    /// rules (a client must not call them), on every wire so that a snapshot is the same on
    /// both; remembers why ([`Session::rejected_tools`]) and the valid annotations (mirrored
    /// into `Mcp-Param-*` headers over Streamable HTTP).
    fn keep_valid_tools(&self, tools: Vec<Value>) -> Vec<Value> {
        let mut rejected = Vec::new();
        let mut kept = Vec::with_capacity(tools.len());
        for tool in tools {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
            match mcp_bindgen_core::headers::param_headers(
                tool.get("inputSchema").unwrap_or(&Value::Null),
            ) {
                Ok(headers) => {
                    self.inner.param_headers.set(name, headers);
                    kept.push(tool);
                }
                Err(rule) => {
                    tracing::warn!(target: REJECTED_TOOL_TARGET, server = %self.inner.alias, tool = name, "tool left out: {rule}");
                    rejected.push((name.to_string(), rule));
                }
            }
        }
        if let Ok(mut r) = self.inner.rejected.lock() {
            *r = rejected;
        }
        kept
    }

    /// The tools the last `tools/list` left out, with the rule each broke: tools whose
    /// `x-mcp-header` annotations are invalid (protocol 2026-07-28 forbids calling them).
    pub fn rejected_tools(&self) -> Vec<(String, String)> {
        self.inner
            .rejected
            .lock()
            .map(|r| r.clone())
            .unwrap_or_default()
    }

    /// Every prompt (all pages); empty when the server has no `prompts` capability or does
    /// not know the method (`-32601`).
    pub async fn list_prompts(&self) -> Result<Vec<Value>> {
        let conn = self.conn().await?;
        if !self.server_info().has_prompts {
            return Ok(Vec::new());
        }
        let prompts = self
            .with_deadline(&conn, "prompts/list", conn.peer.list_all_prompts())
            .await;
        let Some(prompts) = unless_method_not_found(prompts)? else {
            return Ok(Vec::new());
        };
        prompts
            .iter()
            .map(|t| self.to_json("prompts/list", t))
            .collect()
    }

    /// Every resource template (all pages); empty without the `resources` capability or
    /// when the server does not know the method (`-32601`; servers of older SDKs declare
    /// `resources` without templates).
    pub async fn list_resource_templates(&self) -> Result<Vec<Value>> {
        let conn = self.conn().await?;
        if !self.server_info().has_resources {
            return Ok(Vec::new());
        }
        let templates = self
            .with_deadline(
                &conn,
                "resources/templates/list",
                conn.peer.list_all_resource_templates(),
            )
            .await;
        let Some(templates) = unless_method_not_found(templates)? else {
            return Ok(Vec::new());
        };
        templates
            .iter()
            .map(|t| self.to_json("resources/templates/list", t))
            .collect()
    }

    /// Every resource (all pages); empty without the `resources` capability.
    pub async fn list_resources(&self) -> Result<Vec<Value>> {
        let conn = self.conn().await?;
        if !self.server_info().has_resources {
            return Ok(Vec::new());
        }
        let resources = self
            .with_deadline(&conn, "resources/list", conn.peer.list_all_resources())
            .await?;
        resources
            .iter()
            .map(|r| self.to_json("resources/list", r))
            .collect()
    }

    /// Reads a resource: the `resources/read` result (`{"contents": [...]}`) as JSON.
    pub async fn read_resource(&self, uri: &str) -> Result<Value> {
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

    /// Gets a prompt with its arguments: the `prompts/get` result (`{"messages": [...]}`)
    /// as JSON.
    pub async fn get_prompt(
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

    pub(super) fn to_json(&self, what: &str, item: &impl Serialize) -> Result<Value> {
        serde_json::to_value(item).map_err(|e| Error::Transport {
            server: self.inner.alias.clone(),
            message: format!("{what}: cannot re-encode an item: {e}"),
            stderr_tail: Vec::new(),
        })
    }

    /// Sends `ping` and waits up to `timeout` for the answer (connects or reconnects first
    /// when needed; [`Session::health`] never does).
    pub async fn ping(&self, timeout: Duration) -> Result<()> {
        let conn = self.conn().await?;
        self.ping_on(&conn, timeout).await
    }

    pub(super) async fn ping_on(&self, conn: &Conn, timeout: Duration) -> Result<()> {
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

/// The `tracing` target of the warning about a tool left out of a listing (a program that
/// reports [`Session::rejected_tools`] itself, as `snapshot` does, can silence it).
pub const REJECTED_TOOL_TARGET: &str = "mcp_bindgen::rejected_tool";

/// The most pages of one `tools/list` (a server that lists more is assumed to loop).
const MAX_PAGES: usize = 1000;

/// `None` for a JSON-RPC "method not found" answer (an optional listing a server declares a
/// capability for but does not implement: nothing to list).
pub(super) fn unless_method_not_found<T>(result: Result<T>) -> Result<Option<T>> {
    match result {
        Ok(v) => Ok(Some(v)),
        Err(Error::Protocol { code: -32601, .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

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
