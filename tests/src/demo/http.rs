//! Serving Streamable HTTP at `/mcp`, with hyper's HTTP/1.1 server under rmcp's tower
//! service (no web framework).

use std::{
    convert::Infallible,
    io::{self, Write},
    net::IpAddr,
    sync::Arc,
    time::Duration,
};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::{Request, Response, StatusCode, body::Incoming, server::conn::http1};
use hyper_util::rt::TokioIo;
use rmcp::transport::{
    StreamableHttpServerConfig, StreamableHttpService,
    streamable_http_server::session::local::LocalSessionManager,
};
use tokio::net::TcpListener;

use super::{
    Options,
    oauth::{Answer, OAuthServer},
    server::{DemoConfig, DemoServer, log},
};

/// Path of the MCP endpoint.
const ENDPOINT: &str = "/mcp";
/// With `--exit-after`, how long the last answer gets to reach the client before the
/// process exits (the HTTP layer offers no "response written" signal).
const EXIT_GRACE: Duration = Duration::from_millis(300);

/// Binds, prints `listening on http://…/mcp` to stdout, and serves until `--exit-after`
/// triggers (otherwise until the process is killed).
pub(super) async fn serve(options: &Options) -> io::Result<()> {
    let listener = TcpListener::bind((options.host.as_str(), options.port)).await?;
    let address = listener.local_addr()?;
    let tls = match &options.tls {
        Some((cert, key)) => Some(tls_acceptor(cert, key)?),
        None => None,
    };
    let scheme = if tls.is_some() { "https" } else { "http" };
    {
        let mut stdout = io::stdout().lock();
        writeln!(stdout, "listening on {scheme}://{address}{ENDPOINT}")?;
        stdout.flush()?;
    }
    log(format_args!("serving Streamable HTTP on {address}"));

    let server = DemoServer::new(DemoConfig {
        faults: options.faults,
        exit_after: options.exit_after,
        protocol: options.protocol,
        misbehave: options.misbehave,
        page_size: options.page_size,
        rug_pull: options.rug_pull,
        rug_pull_after: options.rug_pull_after,
        task_poll_ms: options.task_poll_ms,
        garbage: None,
    });
    let mut config = StreamableHttpServerConfig::default();
    config.json_response = options.json_response;
    // rmcp accepts only loopback `Host` headers by default (DNS-rebinding protection);
    // also accept the host we were asked to bind.
    let host = options.host.trim_start_matches('[').trim_end_matches(']');
    if !host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback()) && host != "localhost" {
        config.allowed_hosts.push(host.to_owned());
    }
    let oauth = options.oauth.then(|| {
        Arc::new(OAuthServer::new(
            format!("{scheme}://{address}"),
            options.oauth_ttl,
            options.oauth_refresh_delay,
            &options.oauth_clients,
        ))
    });
    let gate = Arc::new(Gate {
        header: options.require_header.clone(),
        expire_after: options.expire_session_after,
        seen: std::sync::Mutex::new(std::collections::HashMap::new()),
    });
    let factory = server.clone();
    let service = StreamableHttpService::new(
        move || Ok(factory.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );

    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, _) = match accepted {
                    Ok(accepted) => accepted,
                    Err(error) => {
                        log(format_args!("accept failed: {error}"));
                        continue;
                    }
                };
                let service = service.clone();
                let oauth = oauth.clone();
                let tls = tls.clone();
                let gate = gate.clone();
                tokio::spawn(async move {
                    let handler = hyper::service::service_fn(move |request| {
                        let gate = gate.clone();
                        let service = service.clone();
                        let oauth = oauth.clone();
                        async move {
                            if let Some(refused) = gate.check(&request) {
                                return Ok(refused);
                            }
                            route(service, oauth, request).await
                        }
                    });
                    let served = match tls {
                        Some(tls) => match tls.accept(stream).await {
                            Ok(stream) => {
                                http1::Builder::new()
                                    .serve_connection(TokioIo::new(stream), handler)
                                    .await
                            }
                            Err(error) => {
                                log(format_args!("TLS handshake failed: {error}"));
                                return;
                            }
                        },
                        None => {
                            http1::Builder::new()
                                .serve_connection(TokioIo::new(stream), handler)
                                .await
                        }
                    };
                    if let Err(error) = served {
                        log(format_args!("http connection error: {error}"));
                    }
                });
            }
            () = server.exit_requested() => {
                tokio::time::sleep(EXIT_GRACE).await;
                return Ok(());
            }
        }
    }
}

type Body = BoxBody<Bytes, Infallible>;

/// The server's TLS side: the certificate chain and key in PEM files.
fn tls_acceptor(
    cert: &std::path::Path,
    key: &std::path::Path,
) -> io::Result<tokio_rustls::TlsAcceptor> {
    use tokio_rustls::rustls;
    use tokio_rustls::rustls::pki_types::pem::PemObject as _;
    use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let bad = |what: &str, e: &dyn std::fmt::Display| io::Error::other(format!("{what}: {e}"));
    let chain = CertificateDer::pem_file_iter(cert)
        .map_err(|e| bad("--tls-cert", &e))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad("--tls-cert", &e))?;
    let key = PrivateKeyDer::from_pem_file(key).map_err(|e| bad("--tls-key", &e))?;
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::aws_lc_rs::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| bad("TLS", &e))?
    .with_no_client_auth()
    .with_single_cert(chain, key)
    .map_err(|e| bad("TLS", &e))?;
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}

/// What every request passes before it reaches the MCP endpoint: `--require-header`, and
/// `--expire-session-after` (a session forgotten after N of its requests answers 404, as
/// the specification has a server that expired a session do).
struct Gate {
    header: Option<(String, String)>,
    expire_after: Option<u64>,
    /// Requests seen per session id.
    seen: std::sync::Mutex<std::collections::HashMap<String, u64>>,
}

impl Gate {
    fn check(&self, request: &Request<Incoming>) -> Option<Response<Body>> {
        let refuse = |status: StatusCode, text: String| {
            let mut response = Response::new(Full::new(Bytes::from(text)).boxed());
            *response.status_mut() = status;
            response
        };
        if let Some((name, value)) = &self.header {
            let got = request
                .headers()
                .get(name.as_str())
                .and_then(|v| v.to_str().ok());
            if got != Some(value.as_str()) {
                log(format_args!("refused a request without header {name}"));
                // Echoes the request's authorization, as careless servers' error pages do.
                let authorization = request
                    .headers()
                    .get("authorization")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("none");
                return Some(refuse(
                    StatusCode::BAD_REQUEST,
                    format!("missing or wrong header {name}; authorization: {authorization}\n"),
                ));
            }
        }
        let limit = self.expire_after?;
        let session = request
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())?
            .to_string();
        let mut seen = self.seen.lock().ok()?;
        let count = seen.entry(session.clone()).or_default();
        *count += 1;
        if *count > limit {
            log(format_args!("session {session} expired"));
            return Some(refuse(StatusCode::NOT_FOUND, "session expired\n".into()));
        }
        None
    }
}

async fn route(
    mut service: StreamableHttpService<DemoServer, LocalSessionManager>,
    oauth: Option<Arc<OAuthServer>>,
    request: Request<Incoming>,
) -> Result<Response<Body>, Infallible> {
    if let Some(oauth) = oauth {
        let authorization = request
            .headers()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        if request.uri().path() == ENDPOINT {
            if let Some(answer) = oauth.check(authorization.as_deref()) {
                return Ok(respond(answer));
            }
        } else {
            let method = request.method().as_str().to_string();
            let path = request.uri().path().to_string();
            let query = request.uri().query().unwrap_or("").to_string();
            let body = match request.into_body().collect().await {
                Ok(collected) => collected.to_bytes(),
                Err(_) => Bytes::new(),
            };
            let answer = oauth
                .route(&method, &path, &query, authorization.as_deref(), &body)
                .unwrap_or(Answer {
                    status: 404,
                    headers: Vec::new(),
                    body: "not found\n".into(),
                    delay: Duration::ZERO,
                });
            tokio::time::sleep(answer.delay).await;
            return Ok(respond(answer));
        }
    }
    if request.uri().path() != ENDPOINT {
        let mut response = Response::new(
            Full::new(Bytes::from_static(b"not found: the MCP endpoint is /mcp\n")).boxed(),
        );
        *response.status_mut() = StatusCode::NOT_FOUND;
        return Ok(response);
    }
    tower_service::Service::call(&mut service, request).await
}

fn respond(answer: Answer) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(answer.body)).boxed());
    *response.status_mut() = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::OK);
    for (name, value) in answer.headers {
        if let Ok(value) = hyper::header::HeaderValue::from_str(&value) {
            response.headers_mut().insert(name, value);
        }
    }
    response
}
