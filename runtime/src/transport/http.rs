//! Streamable HTTP over rmcp's reqwest client.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use futures::StreamExt;
use futures::stream::BoxStream;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits as ResponseLimits,
};
use sse_stream::{Error as SseError, Sse};

use super::{RawTap, StdoutNoise};
use crate::error::{Error, Result};
use crate::protocol::ParamHeaders;

/// rmcp's Streamable HTTP transport for `url` with extra headers: the tapped client and the
/// transport's configuration, for the session to put together (with OAuth in front of the
/// client when the server has an `auth` setting).
pub(crate) fn streamable_http(
    alias: &str,
    url: &str,
    headers: &BTreeMap<String, String>,
    tap: Arc<RawTap>,
    params: Arc<ParamHeaders>,
    (noise, max_message): (&StdoutNoise, usize),
    roots: &[reqwest::Certificate],
) -> Result<(
    TappedClient,
    rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig,
)> {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let mut map = HashMap::new();
    for (k, v) in headers {
        let (name, value) = header_pair(alias, k, v)?;
        map.insert(name, value);
    }
    let config = StreamableHttpClientTransportConfig::with_uri(url.to_string())
        .custom_headers(map)
        .max_sse_event_size(max_message)
        .max_json_response_size(max_message);
    let client = TappedClient::new(tap, params, roots).map_err(|e| Error::Transport {
        server: alias.to_string(),
        message: format!("cannot build the HTTP client: {e}"),
        stderr_tail: Vec::new(),
    })?;
    Ok((client.watched(noise.clone(), max_message), config))
}

/// The root certificates of the PEM files `paths` (a server's `ca_certs`), for the clients
/// that reach it; an unreadable file or one without a certificate is the server's
/// configuration error, naming the file.
pub(crate) fn extra_roots(
    alias: &str,
    paths: &[std::path::PathBuf],
) -> Result<Vec<reqwest::Certificate>> {
    let mut roots = Vec::new();
    for path in paths {
        let bad = |why: String| Error::InvalidServer {
            path: Default::default(),
            alias: alias.to_string(),
            message: format!("ca_certs: {}: {why}", path.display()),
        };
        let pem = std::fs::read(path).map_err(|e| bad(format!("cannot read it: {e}")))?;
        let certs = reqwest::Certificate::from_pem_bundle(&pem)
            .map_err(|e| bad(format!("not a PEM certificate file: {e}")))?;
        if certs.is_empty() {
            return Err(bad("holds no certificate".into()));
        }
        roots.extend(certs);
    }
    Ok(roots)
}

/// A client builder trusting `roots` besides the system's, once a TLS provider is ready
/// ([`tls_ready`]).
pub(crate) fn client_builder(
    roots: &[reqwest::Certificate],
) -> Result<reqwest::ClientBuilder, String> {
    tls_ready()?;
    let builder = reqwest::Client::builder();
    Ok(if roots.is_empty() {
        builder
    } else {
        builder.tls_certs_merge(roots.iter().cloned())
    })
}

/// Makes sure rustls has a process-wide crypto provider before any HTTP client is built
/// (reqwest is built without one; rmcp's OAuth code builds its own clients too).
///
/// With the `rustls` feature: installs *ring*'s provider unless the program installed one
/// before. Without it: the program must have installed one, else an error that says so
/// (reqwest would panic).
pub(crate) fn tls_ready() -> Result<(), String> {
    if rustls::crypto::CryptoProvider::get_default().is_some() {
        return Ok(());
    }
    #[cfg(feature = "rustls")]
    {
        // Losing a race to another installer is fine: a provider is installed either way.
        let _ = rustls::crypto::ring::default_provider().install_default();
        Ok(())
    }
    #[cfg(not(feature = "rustls"))]
    Err("no TLS crypto provider: enable the `rustls` feature of mcp-bindgen (on by default), or install a rustls `CryptoProvider` (`CryptoProvider::install_default`) before connecting".to_string())
}

pub(super) fn header_pair(
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

/// rmcp's reqwest client with a [`RawTap`] on event-stream answers.
///
/// Answers that come as `application/json` are parsed by rmcp before we see them; for those
/// the session falls back to rmcp's typed tool model (see `Session::list_tools`).
#[derive(Clone)]
pub(crate) struct TappedClient {
    inner: reqwest::Client,
    tap: Arc<RawTap>,
    params: Arc<ParamHeaders>,
    /// Where an over-size answer is recorded (the session's error names the limit), and
    /// the limit.
    watch: Option<(StdoutNoise, usize)>,
}

impl TappedClient {
    pub(crate) fn new(
        tap: Arc<RawTap>,
        params: Arc<ParamHeaders>,
        roots: &[reqwest::Certificate],
    ) -> Result<Self, String> {
        let inner = client_builder(roots)?
            // rmcp's default: idle pooling stalls on Linux delayed ACKs.
            .pool_max_idle_per_host(0)
            .redirect(same_origin_redirects())
            .build()
            .map_err(|e| e.to_string())?;
        Ok(TappedClient {
            inner,
            tap,
            params,
            watch: None,
        })
    }

    /// This client, recording an answer over `max_message` bytes in `noise`.
    pub(crate) fn watched(mut self, noise: StdoutNoise, max_message: usize) -> Self {
        self.watch = Some((noise, max_message));
        self
    }

    /// Records that the server crossed the message size limit.
    fn too_large(&self, what: &str) {
        if let Some((noise, max)) = &self.watch {
            noise.end(super::too_large(what, *max));
        }
    }

    /// Notes an over-size JSON body in `result`, and a session the server does not know.
    fn check<T>(&self, result: HttpResult<T>) -> HttpResult<T> {
        match &result {
            Err(StreamableHttpError::ResponseBodyTooLarge { .. }) => {
                self.too_large("an HTTP answer");
            }
            Err(StreamableHttpError::SessionExpired) => {
                if let Some((noise, _)) = &self.watch {
                    noise.end(UNKNOWN_SESSION.to_string());
                }
            }
            _ => {}
        }
        result
    }
}

/// Why a request of a session got HTTP 404: the words name the likely cause and its fix. A
/// session of the 2025-11-25 wire lives on the one server that answered `initialize`; a
/// load balancer that spreads one session's requests over replicas produces exactly this.
pub(crate) const UNKNOWN_SESSION: &str = "the server answered HTTP 404 to a request of this \
session: it does not know the session. Behind a load balancer this means the session's \
requests reach a replica that did not create it: the 2025-11-25 protocol keeps a session on \
one server, so configure session affinity in the balancer (nginx: `ip_hash;` in the \
upstream), or speak the stateless 2026-07-28 revision (`protocol = \"2026-07-28\"` for this \
server in the registry), which any replica can answer. A server that restarted or expired \
the session answers the same";

/// Follows up to 10 redirects, only within the original origin (headers may hold secrets).
pub(crate) fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if attempt.previous().len() > 10 {
            attempt.error("too many redirects")
        } else if same_origin {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

type HttpResult<T> = std::result::Result<T, StreamableHttpError<reqwest::Error>>;

impl StreamableHttpClient for TappedClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<StreamableHttpPostResponse> {
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            ResponseLimits::default(),
        )
        .await
    }

    /// Every POST comes here (rmcp's transport calls this one, with the configured limits;
    /// `post_message` comes with the defaults): tapped, `Mcp-Param-*` mirrored, an
    /// over-size answer recorded.
    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        mut custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: ResponseLimits,
    ) -> HttpResult<StreamableHttpPostResponse> {
        self.tap.on_send(&message);
        self.mirror_params(&message, &mut custom_headers);
        let response = self.check(
            self.inner
                .post_message_with_response_limits(
                    uri,
                    message,
                    session_id,
                    auth_header,
                    custom_headers,
                    limits,
                )
                .await,
        )?;
        Ok(self.tap_response(response))
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<()> {
        self.inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<BoxStream<'static, std::result::Result<Sse, SseError>>> {
        let stream = self
            .inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await?;
        Ok(self.tap_stream(stream))
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> HttpResult<BoxStream<'static, std::result::Result<Sse, SseError>>> {
        let stream = self
            .inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await?;
        Ok(self.tap_stream(stream))
    }
}

impl TappedClient {
    /// Adds the `Mcp-Param-*` headers of a `tools/call` (protocol 2026-07-28) when rmcp did
    /// not (it knows only the tools of a `tools/list` it saw; a typed call may come first).
    fn mirror_params(
        &self,
        message: &ClientJsonRpcMessage,
        headers: &mut HashMap<HeaderName, HeaderValue>,
    ) {
        let rmcp::model::JsonRpcMessage::Request(request) = message else {
            return;
        };
        let rmcp::model::ClientRequest::CallToolRequest(call) = &request.request else {
            return;
        };
        // The revision is in the request's `_meta` on a stateless session.
        let stateless = {
            use rmcp::model::GetMeta as _;
            request
                .request
                .get_meta()
                .protocol_version()
                .is_some_and(|v| !v.has_initialize())
        };
        if !stateless || headers.keys().any(|k| k.as_str().starts_with("mcp-param-")) {
            return;
        }
        let arguments =
            serde_json::Value::Object(call.params.arguments.clone().unwrap_or_default());
        for (name, text) in self.params.mirrored(&call.params.name, &arguments) {
            // `from_bytes` takes the name in any case (header names are stored lowercase).
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(&text),
            ) {
                headers.insert(name, value);
            }
        }
    }

    fn tap_response(&self, response: StreamableHttpPostResponse) -> StreamableHttpPostResponse {
        match response {
            StreamableHttpPostResponse::Sse(stream, session) => {
                StreamableHttpPostResponse::Sse(self.tap_stream(stream), session)
            }
            other => other,
        }
    }

    fn tap_stream(
        &self,
        stream: BoxStream<'static, std::result::Result<Sse, SseError>>,
    ) -> BoxStream<'static, std::result::Result<Sse, SseError>> {
        let tap = self.tap.clone();
        let watch = self.watch.clone();
        stream
            .inspect(move |event| match event {
                Ok(Sse {
                    data: Some(data), ..
                }) => tap.on_receive(data.as_bytes()),
                // rmcp's bounded event stream: "SSE event exceeded the maximum size of …".
                Err(e) if e.to_string().contains("exceeded the maximum size") => {
                    if let Some((noise, max)) = &watch {
                        noise.end(super::too_large("an SSE event", *max));
                    }
                }
                _ => {}
            })
            .boxed()
    }
}
