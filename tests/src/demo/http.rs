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
    {
        let mut stdout = io::stdout().lock();
        writeln!(stdout, "listening on http://{address}{ENDPOINT}")?;
        stdout.flush()?;
    }
    log(format_args!("serving Streamable HTTP on {address}"));

    let server = DemoServer::new(DemoConfig {
        faults: options.faults,
        exit_after: options.exit_after,
        protocol: options.protocol,
        misbehave: options.misbehave,
        garbage: None,
    });
    let mut config = StreamableHttpServerConfig::default();
    // rmcp accepts only loopback `Host` headers by default (DNS-rebinding protection);
    // also accept the host we were asked to bind.
    let host = options.host.trim_start_matches('[').trim_end_matches(']');
    if !host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback()) && host != "localhost" {
        config.allowed_hosts.push(host.to_owned());
    }
    let oauth = options.oauth.then(|| {
        Arc::new(OAuthServer::new(
            format!("http://{address}"),
            options.oauth_ttl,
            options.oauth_refresh_delay,
            &options.oauth_clients,
        ))
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
                tokio::spawn(async move {
                    let handler = hyper::service::service_fn(move |request| {
                        route(service.clone(), oauth.clone(), request)
                    });
                    if let Err(error) = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), handler)
                        .await
                    {
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
