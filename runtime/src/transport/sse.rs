//! Legacy HTTP+SSE (MCP 2024-11-05), our own rmcp `Transport`.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::{mpsc, oneshot};

use super::http::header_pair;
use super::{RawTap, StdoutNoise};
use crate::error::{Error, Result};

/// Legacy HTTP+SSE client transport (MCP 2024-11-05).
pub(crate) struct SseTransport {
    alias: Arc<str>,
    client: reqwest::Client,
    post_url: reqwest::Url,
    headers: reqwest::header::HeaderMap,
    incoming: mpsc::Receiver<RxJsonRpcMessage<RoleClient>>,
    reader: tokio::task::JoinHandle<()>,
    tap: Arc<RawTap>,
}

impl SseTransport {
    /// Opens the event stream and waits (up to `timeout`) for the `endpoint` event.
    pub(crate) async fn connect(
        alias: &str,
        url: &str,
        headers: &BTreeMap<String, String>,
        timeout: Duration,
        tap: Arc<RawTap>,
        (noise, max_event): (&StdoutNoise, usize),
        roots: &[reqwest::Certificate],
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
        let client = super::http::client_builder(roots)
            .map_err(&err)?
            .redirect(super::http::same_origin_redirects())
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
        .map_err(|e| {
            err(format!(
                "could not connect to {sse_url}: {}",
                crate::error::cause(&e)
            ))
        })?;
        if !response.status().is_success() {
            return Err(err(format!(
                "GET {sse_url} answered HTTP {}",
                response.status()
            )));
        }
        let (endpoint_tx, endpoint_rx) = oneshot::channel::<String>();
        let (msg_tx, incoming) = mpsc::channel(256);
        let reader_alias: Arc<str> = alias.into();
        let bytes = bounded_events(response.bytes_stream(), max_event, noise.clone());
        let reader = tokio::spawn(read_events(
            reader_alias.clone(),
            bytes,
            endpoint_tx,
            msg_tx,
            tap.clone(),
        ));
        let endpoint = match tokio::time::timeout(timeout, endpoint_rx).await {
            Ok(Ok(e)) => e,
            Ok(Err(_)) => {
                reader.abort();
                // Ended by a limit (an event over `max_message_bytes`): say which.
                let why = noise
                    .ended()
                    .map(|ended| format!(": {ended}"))
                    .unwrap_or_default();
                return Err(err(format!(
                    "the event stream at {sse_url} ended before its `endpoint` event{why}"
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
        // The configured headers (credentials, often) go only where the user pointed them.
        if post_url.origin() != sse_url.origin() {
            reader.abort();
            return Err(err(format!(
                "the server's `endpoint` event points at {}, another origin than {}: messages (and the configured headers) are only sent to the origin of the configured url",
                post_url.origin().ascii_serialization(),
                sse_url.origin().ascii_serialization()
            )));
        }
        Ok(SseTransport {
            alias: reader_alias,
            client,
            post_url,
            headers: header_map,
            incoming,
            reader,
            tap,
        })
    }
}

/// The event stream's bytes, ended with an error (recorded in `noise`) as soon as one event
/// grows past `max` bytes: an event that never ends cannot fill the memory.
fn bounded_events(
    bytes: impl futures::Stream<Item = reqwest::Result<bytes::Bytes>> + Send + 'static,
    max: usize,
    noise: StdoutNoise,
) -> impl futures::Stream<Item = std::io::Result<bytes::Bytes>> + Send + 'static {
    // Bytes of the current event, and of its current line (a blank line ends an event).
    let mut event = 0usize;
    let mut line = 0usize;
    let mut over = false;
    bytes.map(move |chunk| {
        if over {
            return Err(std::io::Error::other("event too large"));
        }
        let chunk = chunk.map_err(std::io::Error::other)?;
        for &b in chunk.iter() {
            match b {
                b'\n' => {
                    if line == 0 {
                        event = 0;
                    }
                    line = 0;
                }
                b'\r' => {}
                _ => {
                    line += 1;
                    event += 1;
                }
            }
            if event > max {
                over = true;
                noise.end(super::too_large("an SSE event", max));
                return Err(std::io::Error::other(format!(
                    "an SSE event exceeded {} bytes",
                    max
                )));
            }
        }
        Ok(chunk)
    })
}

async fn read_events(
    alias: Arc<str>,
    bytes: impl futures::Stream<Item = std::io::Result<bytes::Bytes>> + Send + 'static,
    endpoint_tx: oneshot::Sender<String>,
    msg_tx: mpsc::Sender<RxJsonRpcMessage<RoleClient>>,
    tap: Arc<RawTap>,
) {
    let mut endpoint_tx = Some(endpoint_tx);
    let events = sse_stream::SseStream::from_bytes_stream(bytes);
    futures::pin_mut!(events);
    while let Some(event) = events.next().await {
        let event = match event {
            Ok(event) => event,
            Err(e) => {
                tracing::warn!(server = %alias, "the SSE stream broke off: {e}");
                break;
            }
        };
        let data = event.data.unwrap_or_default();
        match event.event.as_deref() {
            Some("endpoint") => {
                if let Some(tx) = endpoint_tx.take() {
                    let _ = tx.send(data.trim().to_string());
                }
            }
            None | Some("message") => {
                if data.trim().is_empty() {
                    continue; // priming or keep-alive event
                }
                tap.on_receive(data.as_bytes());
                match serde_json::from_str::<RxJsonRpcMessage<RoleClient>>(&data) {
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
    tracing::debug!(server = %alias, "SSE stream ended");
}

impl Transport<RoleClient> for SseTransport {
    type Error = Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.tap.on_send(&item);
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
                .map_err(|e| {
                    err(format!(
                        "POST {} failed: {}",
                        url.path(),
                        crate::error::cause(&e)
                    ))
                })?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The stream of `chunks` through [`bounded_events`] with a 16-byte limit: what came
    /// through, and why it stopped.
    async fn through(chunks: &[&'static [u8]]) -> (Vec<u8>, Option<String>) {
        let noise = StdoutNoise::default();
        let source = futures::stream::iter(
            chunks
                .iter()
                .map(|c| Ok::<_, reqwest::Error>(bytes::Bytes::from_static(c)))
                .collect::<Vec<_>>(),
        );
        let bounded = bounded_events(source, 16, noise.clone());
        futures::pin_mut!(bounded);
        let mut out = Vec::new();
        while let Some(Ok(chunk)) = bounded.next().await {
            out.extend_from_slice(&chunk);
        }
        (out, noise.ended())
    }

    #[tokio::test]
    async fn an_event_that_never_ends_stops_at_the_limit() {
        // Events under the limit, split anywhere, pass; a blank line (LF or CRLF) ends each.
        let (out, ended) =
            through(&[b"data: 123456\n\nda", b"ta: 1234567\r\n\r\ndata: x\n\n"]).await;
        assert_eq!(out.len(), 40);
        assert_eq!(ended, None);
        // One that never ends is cut as soon as it is over the limit, and says so.
        let (out, ended) = through(&[b"data: aaaaaaaa", b"aaaaaaaaaaaaaaaa", b"\n\n"]).await;
        assert!(out.len() <= 16, "{}", out.len());
        let ended = ended.expect("recorded");
        assert!(
            ended.contains("an SSE event larger than 16 bytes")
                && ended.contains("max_message_bytes"),
            "{ended}"
        );
    }
}
