//! The three transports behind [`crate::Session::connect`]:
//!
//! * **stdio** — rmcp's child-process transport; the server's stderr is piped, each line is
//!   forwarded to `tracing` (target `mcp_runtime::server_stderr`) and the last lines are kept
//!   for error messages ([`StderrTail`]).
//! * **Streamable HTTP** — rmcp's reqwest client with our custom headers.
//! * **legacy HTTP+SSE** — our own [`SseTransport`] (rmcp removed its SSE client in 0.11):
//!   GET an event stream, wait for the `endpoint` event, POST every message there, read the
//!   answers from the stream.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::AsyncBufReadExt;
use tokio::sync::{mpsc, oneshot};

use crate::error::{Error, Result};

/// How many stderr lines of a stdio server are kept for error messages.
const STDERR_TAIL_LINES: usize = 20;
/// Longest stderr line kept (longer lines are cut).
const STDERR_LINE_MAX: usize = 400;

/// The last lines a stdio server wrote to stderr.
#[derive(Debug, Default, Clone)]
pub(crate) struct StderrTail(Arc<Mutex<VecDeque<String>>>);

impl StderrTail {
    /// A copy of the kept lines, oldest first.
    pub(crate) fn lines(&self) -> Vec<String> {
        self.0
            .lock()
            .map(|q| q.iter().cloned().collect())
            .unwrap_or_default()
    }

    fn push(&self, line: String) {
        if let Ok(mut q) = self.0.lock() {
            if q.len() == STDERR_TAIL_LINES {
                q.pop_front();
            }
            q.push_back(line);
        }
    }

    /// Forwards every line of `stderr` to `tracing` and keeps the tail. Ends at EOF.
    pub(crate) fn spawn_reader(
        &self,
        alias: String,
        stderr: tokio::process::ChildStderr,
    ) -> tokio::task::JoinHandle<()> {
        let tail = self.clone();
        tokio::spawn(async move {
            let mut reader = tokio::io::BufReader::new(stderr);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let mut line = String::from_utf8_lossy(&buf).trim_end().to_string();
                        if line.len() > STDERR_LINE_MAX {
                            let mut cut = STDERR_LINE_MAX;
                            while !line.is_char_boundary(cut) {
                                cut -= 1;
                            }
                            line.truncate(cut);
                            line.push('…');
                        }
                        tracing::debug!(target: "mcp_runtime::server_stderr", server = %alias, "{line}");
                        tail.push(line);
                    }
                }
            }
        })
    }
}

/// Builds rmcp's Streamable HTTP transport for `url` with extra headers.
pub(crate) fn streamable_http(
    alias: &str,
    url: &str,
    headers: &BTreeMap<String, String>,
) -> Result<rmcp::transport::StreamableHttpClientTransport<reqwest::Client>> {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let mut map = HashMap::new();
    for (k, v) in headers {
        let (name, value) = header_pair(alias, k, v)?;
        map.insert(name, value);
    }
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_string()).custom_headers(map);
    Ok(rmcp::transport::StreamableHttpClientTransport::from_config(
        config,
    ))
}

fn header_pair(
    alias: &str,
    name: &str,
    value: &str,
) -> Result<(reqwest::header::HeaderName, reqwest::header::HeaderValue)> {
    let bad = |what: &str| Error::InvalidServer {
        path: Default::default(),
        alias: alias.to_string(),
        // Never quote the value: it may hold a secret.
        message: format!("header \"{name}\": invalid {what}"),
    };
    let n = reqwest::header::HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad("name"))?;
    let mut v = reqwest::header::HeaderValue::from_str(value).map_err(|_| bad("value"))?;
    v.set_sensitive(true);
    Ok((n, v))
}

/// Legacy HTTP+SSE client transport (MCP 2024-11-05).
pub(crate) struct SseTransport {
    alias: Arc<str>,
    client: reqwest::Client,
    post_url: reqwest::Url,
    headers: reqwest::header::HeaderMap,
    incoming: mpsc::Receiver<RxJsonRpcMessage<RoleClient>>,
    reader: tokio::task::JoinHandle<()>,
}

impl SseTransport {
    /// Opens the event stream and waits (up to `timeout`) for the `endpoint` event.
    pub(crate) async fn connect(
        alias: &str,
        url: &str,
        headers: &BTreeMap<String, String>,
        timeout: Duration,
    ) -> Result<Self> {
        let err = |message: String| Error::Transport {
            server: alias.to_string(),
            message,
            stderr_tail: Vec::new(),
        };
        let sse_url = reqwest::Url::parse(url).map_err(|e| err(format!("invalid SSE url: {e}")))?;
        let mut header_map = reqwest::header::HeaderMap::new();
        for (k, v) in headers {
            let (n, v) = header_pair(alias, k, v)?;
            header_map.insert(n, v);
        }
        let client = reqwest::Client::builder()
            .build()
            .map_err(|e| err(format!("cannot build HTTP client: {e}")))?;
        let response = tokio::time::timeout(
            timeout,
            client
                .get(sse_url.clone())
                .headers(header_map.clone())
                .header(reqwest::header::ACCEPT, "text/event-stream")
                .send(),
        )
        .await
        .map_err(|_| err(format!("no answer from GET {sse_url} within {timeout:?}")))?
        .map_err(|e| err(format!("GET {sse_url} failed: {e}")))?;
        if !response.status().is_success() {
            return Err(err(format!(
                "GET {sse_url} answered HTTP {}",
                response.status()
            )));
        }
        let (endpoint_tx, endpoint_rx) = oneshot::channel::<String>();
        let (msg_tx, incoming) = mpsc::channel(256);
        let reader_alias: Arc<str> = alias.into();
        let reader = tokio::spawn(read_events(
            reader_alias.clone(),
            response,
            endpoint_tx,
            msg_tx,
        ));
        let endpoint = match tokio::time::timeout(timeout, endpoint_rx).await {
            Ok(Ok(e)) => e,
            Ok(Err(_)) => {
                reader.abort();
                return Err(err(format!(
                    "the event stream at {sse_url} ended before its `endpoint` event"
                )));
            }
            Err(_) => {
                reader.abort();
                return Err(err(format!(
                    "no `endpoint` event from {sse_url} within {timeout:?} (is this a legacy SSE server?)"
                )));
            }
        };
        let post_url = sse_url
            .join(&endpoint)
            .map_err(|e| err(format!("invalid endpoint \"{endpoint}\": {e}")))?;
        Ok(SseTransport {
            alias: reader_alias,
            client,
            post_url,
            headers: header_map,
            incoming,
            reader,
        })
    }
}

async fn read_events(
    alias: Arc<str>,
    response: reqwest::Response,
    endpoint_tx: oneshot::Sender<String>,
    msg_tx: mpsc::Sender<RxJsonRpcMessage<RoleClient>>,
) {
    let mut endpoint_tx = Some(endpoint_tx);
    let mut parser = SseParser::default();
    let mut body = response.bytes_stream();
    while let Some(chunk) = body.next().await {
        let Ok(chunk) = chunk else { break };
        for event in parser.feed(&chunk) {
            match event.event.as_deref() {
                Some("endpoint") => {
                    if let Some(tx) = endpoint_tx.take() {
                        let _ = tx.send(event.data.trim().to_string());
                    }
                }
                None | Some("message") => {
                    if event.data.trim().is_empty() {
                        continue; // priming or keep-alive event
                    }
                    match serde_json::from_str::<RxJsonRpcMessage<RoleClient>>(&event.data) {
                        Ok(msg) => {
                            if msg_tx.send(msg).await.is_err() {
                                return;
                            }
                        }
                        Err(e) => {
                            tracing::warn!(server = %alias, "ignoring an SSE message that is not JSON-RPC: {e}");
                        }
                    }
                }
                Some(_) => {} // ping and unknown events
            }
        }
    }
    tracing::debug!(server = %alias, "SSE stream ended");
}

impl Transport<RoleClient> for SseTransport {
    type Error = Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let client = self.client.clone();
        let url = self.post_url.clone();
        let headers = self.headers.clone();
        let alias = self.alias.clone();
        async move {
            let err = |message: String| Error::Transport {
                server: alias.to_string(),
                message,
                stderr_tail: Vec::new(),
            };
            let body = serde_json::to_vec(&item).map_err(|e| err(format!("cannot encode: {e}")))?;
            let response = client
                .post(url.clone())
                .headers(headers)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body)
                .send()
                .await
                .map_err(|e| err(format!("POST {} failed: {e}", url.path())))?;
            if response.status().is_success() {
                Ok(())
            } else {
                Err(err(format!(
                    "POST {} answered HTTP {}",
                    url.path(),
                    response.status()
                )))
            }
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.reader.abort();
        self.incoming.close();
        Ok(())
    }
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// One dispatched server-sent event.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct SseEvent {
    pub(crate) event: Option<String>,
    pub(crate) data: String,
    pub(crate) id: Option<String>,
}

/// Incremental parser of the `text/event-stream` format (WHATWG HTML §9.2).
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    buf: Vec<u8>,
    current: SseEvent,
    has_data: bool,
}

impl SseParser {
    /// Feeds bytes; returns the events completed by them.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        self.buf.extend_from_slice(bytes);
        let mut events = Vec::new();
        let mut start = 0;
        while let Some(pos) = memchr_newline(&self.buf[start..]) {
            let end = start + pos;
            let mut line = &self.buf[start..end];
            if line.last() == Some(&b'\r') {
                line = &line[..line.len() - 1];
            }
            let line = String::from_utf8_lossy(line).into_owned();
            start = end + 1;
            if line.is_empty() {
                let ev = std::mem::take(&mut self.current);
                if self.has_data || ev.event.is_some() {
                    events.push(ev);
                }
                self.has_data = false;
                continue;
            }
            if line.starts_with(':') {
                continue; // comment
            }
            let (field, value) = match line.split_once(':') {
                Some((f, v)) => (f.to_string(), v.strip_prefix(' ').unwrap_or(v).to_string()),
                None => (line, String::new()),
            };
            match field.as_str() {
                "event" => self.current.event = Some(value),
                "data" => {
                    if self.has_data {
                        self.current.data.push('\n');
                    }
                    self.current.data.push_str(&value);
                    self.has_data = true;
                }
                "id" => self.current.id = Some(value),
                _ => {} // retry and unknown fields
            }
        }
        self.buf.drain(..start);
        events
    }
}

fn memchr_newline(haystack: &[u8]) -> Option<usize> {
    memchr::memchr(b'\n', haystack)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_parser_handles_split_chunks_crlf_comments_and_multiline_data() {
        let mut p = SseParser::default();
        assert!(p.feed(b"event: endpoint\r\nda").is_empty());
        let evs = p.feed(b"ta: /message?sessionId=1\r\n\r\n: keep-alive\n\ndata: {\"a\":\ndata: 1}\nid: 7\n\n");
        assert_eq!(
            evs,
            vec![
                SseEvent {
                    event: Some("endpoint".into()),
                    data: "/message?sessionId=1".into(),
                    id: None
                },
                SseEvent {
                    event: None,
                    data: "{\"a\":\n1}".into(),
                    id: Some("7".into())
                },
            ]
        );
        // An event with an id but no data (a priming event) is not dispatched.
        assert!(p.feed(b"id: 9\n\n").is_empty());
    }

    #[test]
    fn stderr_tail_keeps_the_last_lines() {
        let t = StderrTail::default();
        for i in 0..(STDERR_TAIL_LINES + 5) {
            t.push(format!("line {i}"));
        }
        let lines = t.lines();
        assert_eq!(lines.len(), STDERR_TAIL_LINES);
        assert_eq!(lines[0], "line 5");
    }
}
