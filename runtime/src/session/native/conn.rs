//! One established connection: the only place that knows how a request travels (over
//! stdio, `tools/call` skips rmcp's service loop), how it is cancelled, and what a failed
//! transport means in words.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, ProgressToken, RequestId, ServerResult,
};
use rmcp::service::{PeerRequestOptions, RunningService, ServiceError};
use rmcp::{ClientServiceExt, RoleClient};
use serde_json::Value;

use super::Session;
use super::handler::{Handler, Offers, client_config, lifecycle, stateless_meta};
use super::notify::{Listening, Shared};
use crate::config::{Protocol, REVISIONS, TransportConfig};
use crate::drift::DriftPolicy;
use crate::error::{Error, Result, excerpt};
use crate::output::ServerInfo;
use crate::protocol::Round;
#[cfg(feature = "http")]
use crate::transport::SseTransport;
use crate::transport::{Direct, StderrEof, StdioTransport};

/// How long a failed connect or call waits for a dying server's stderr to reach the tail.
pub(in crate::session) const STDERR_DRAIN: Duration = Duration::from_millis(500);
/// One established connection.
pub(in crate::session) struct Conn {
    pub(in crate::session) peer: rmcp::Peer<RoleClient>,
    pub(in crate::session) service: tokio::sync::Mutex<Option<RunningService<RoleClient, Handler>>>,
    pub(in crate::session) stderr_eof: Option<StderrEof>,
    /// stdio: `tools/call` past rmcp's service loop (known to this file only).
    direct: Option<Arc<Direct>>,
    pub(in crate::session) dead: AtomicBool,
    /// The session speaks a stateless revision (2026-07-28 on): no `ping`, `_meta` per request.
    pub(in crate::session) stateless: bool,
    /// The open `subscriptions/listen` request for tool-list changes (stateless sessions).
    listening: std::sync::Mutex<Option<Listening>>,
    /// The open `subscriptions/listen` requests for resource updates (stateless sessions).
    pub(in crate::session) resource_listens: super::notify::ResourceListens,
}

impl Conn {
    pub(in crate::session) fn alive(&self) -> bool {
        !self.dead.load(Ordering::Acquire) && !self.peer.is_transport_closed()
    }

    /// Closes the connection for good: its open `subscriptions/listen` requests (tool-list
    /// changes, resource updates) are cancelled first (a server waits for open requests once
    /// its input ends), then the transport (stdio servers: stdin closed, then SIGTERM, then
    /// SIGKILL).
    pub(in crate::session) async fn close(&self) {
        let listening = self.listening.lock().ok().and_then(|mut l| l.take());
        let resource_listens = self.resource_listens.take_all();
        for listening in listening.into_iter().chain(resource_listens) {
            listening.end().await;
        }
        let service = self.service.lock().await.take();
        if let Some(mut s) = service {
            let _ = s.close_with_timeout(Duration::from_secs(5)).await;
        }
    }

    /// Sends `tools/call`: the request's id and progress token, and its answer to await.
    /// Over stdio the request skips rmcp's service loop: it is queued now and written when
    /// the answer is first awaited, so the caller can arm its [`CancelOnDrop`] in between.
    pub(in crate::session) async fn send_call(
        &self,
        tool: &str,
        arguments: &serde_json::Map<String, Value>,
        round: Option<&Round>,
    ) -> std::result::Result<
        (
            RequestId,
            ProgressToken,
            impl Future<Output = std::result::Result<ServerResult, ServiceError>> + Send + use<>,
        ),
        ServiceError,
    > {
        match &self.direct {
            Some(direct) => direct.call(tool, arguments, round).map(|call| {
                (
                    call.id.clone(),
                    call.token.clone(),
                    futures::future::Either::Left(async move {
                        let mut call = call;
                        call.flush().await;
                        call.answer
                            .await
                            .unwrap_or(Err(ServiceError::TransportClosed))
                    }),
                )
            }),
            None => {
                let mut params =
                    CallToolRequestParams::new(tool.to_string()).with_arguments(arguments.clone());
                if let Some(round) = round {
                    params.input_responses = round
                        .input_responses
                        .clone()
                        .map(|r| r.into_iter().collect());
                    params.request_state = round.request_state.clone();
                }
                let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
                // Boxed: rmcp's futures are large, and the call's future (which holds this
                // one and the answer's) is moved whole once per call.
                Box::pin(
                    self.peer
                        .send_cancellable_request(request, PeerRequestOptions::no_options()),
                )
                .await
                .map(|handle| {
                    (
                        handle.id.clone(),
                        handle.progress_token.clone(),
                        futures::future::Either::Right(Box::pin(handle.await_response())),
                    )
                })
            }
        }
    }

    /// A guard that cancels request `id` (and stops its progress) unless disarmed.
    pub(in crate::session) fn cancel_guard(
        &self,
        id: RequestId,
        token: ProgressToken,
        shared: Arc<Shared>,
    ) -> CancelOnDrop {
        CancelOnDrop {
            peer: Some(self.peer.clone()),
            direct: self.direct.clone(),
            id,
            shared,
            token,
        }
    }
}

impl Session {
    /// Starts or reaches the server, runs `initialize`, and checks drift.
    pub(in crate::session) async fn establish(&self) -> Result<Arc<Conn>> {
        let inner = &self.inner;
        let alias = inner.alias.as_str();
        let connect_timeout = self.connect_timeout();
        let mut protocol = match (&inner.resolved.transport, inner.config.protocol()) {
            // The legacy HTTP+SSE transport predates the stateless revision.
            (TransportConfig::Sse { .. }, Protocol::Auto) => {
                Protocol::Revision(crate::config::LAST_WITH_INITIALIZE)
            }
            (_, p) => p,
        };
        // How an earlier connection ended is not this one's story.
        inner.wire.noise.clear_ended();
        let (service, client, stderr_eof, direct) = loop {
            let mode = lifecycle(protocol);
            let offers = Offers {
                elicitation: inner.options.elicit.is_some(),
                sampling: inner.options.sampling.is_some(),
                roots: inner.wire.shared.roots.is_some(),
            };
            let client = client_config(offers, protocol);
            let handler = Handler {
                config: client.clone(),
                shared: inner.wire.shared.clone(),
                elicit: inner.options.elicit.clone(),
                sampling: inner.options.sampling.clone(),
            };
            let stderr = &inner.wire.stderr;
            let tap = inner.wire.tap.clone();
            let transport_err = |message: String| {
                // How the connection ended (the server's exit status, a limit it crossed).
                let message = match inner.wire.noise.ended() {
                    Some(ended) if !message.contains(&ended) => format!("{message} ({ended})"),
                    _ => message,
                };
                Error::Transport {
                    server: alias.to_string(),
                    message: match inner.wire.noise.summary() {
                        Some(noise) => format!("{message}; {noise}"),
                        None => message,
                    },
                    stderr_tail: stderr.lines(),
                }
            };
            let target = match &inner.resolved.transport {
                TransportConfig::Stdio { command, .. } => format!("`{command}`"),
                TransportConfig::Sse { url, .. } | TransportConfig::StreamableHttp { url, .. } => {
                    url.clone()
                }
            };
            // Auto: a server that knows `server/discover` but not the current revision
            // names the revisions it speaks; the session then starts again with `initialize`.
            let fallback: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();
            let init_err = |e: rmcp::service::ClientInitializeError| {
                if let Some(auth) = self.auth_failure() {
                    return auth;
                }
                #[cfg(feature = "http")]
                if e.auth_challenge().is_some() {
                    return Error::Auth {
                        server: alias.to_string(),
                        message: format!(
                            "the server requires authorization (HTTP 401 or 403) and its registry entry has no `auth`: add `auth = \"oauth\"` and log in with `cargo xtask login {alias}` (or `cargo mcp-bindgen login {alias}`), or put a token in `headers`"
                        ),
                    };
                }
                // The server exited or crossed a limit: that is why, whatever rmcp saw.
                if let Some(ended) = inner.wire.noise.ended() {
                    // Auto: a stdio server on early rmcp (0.1) cannot parse
                    // `server/discover` and ends the connection instead of answering an
                    // error; a fresh process gets `initialize` (once: the next attempt is
                    // pinned to a revision).
                    if protocol == Protocol::Auto
                        && matches!(inner.resolved.transport, TransportConfig::Stdio { .. })
                    {
                        let _ = fallback.set(crate::config::LAST_WITH_INITIALIZE);
                    }
                    return transport_err(format!("initialize failed: {ended}"));
                }
                if protocol == Protocol::Auto
                    && let Some(revision) = initialize_fallback(&e)
                {
                    let _ = fallback.set(revision);
                }
                transport_err(describe_initialize_error(&e, &target))
            };
            let mut stderr_eof: Option<StderrEof> = None;
            let mut direct: Option<Arc<Direct>> = None;
            let serving = async {
                match &inner.resolved.transport {
                    TransportConfig::Stdio {
                        command,
                        args,
                        env,
                        cwd,
                        inherit,
                    } => {
                        let mut cmd = tokio::process::Command::new(command);
                        // `env` is the server's whole environment unless it inherits everything.
                        if *inherit != crate::config::InheritEnv::All {
                            cmd.env_clear();
                        }
                        cmd.args(args).envs(env);
                        if let Some(dir) = cwd {
                            cmd.current_dir(dir);
                        }
                        let (transport, eof) = StdioTransport::spawn(
                            alias,
                            cmd,
                            tap.clone(),
                            (stderr, &inner.wire.noise),
                            inner.config.limits().max_message_bytes(),
                        )
                        .map_err(|e| {
                            transport_err(format!(
                                "cannot start `{command}`: {e}{}",
                                not_found_hint(&e, command, inner.config.base_dir())
                            ))
                        })?;
                        stderr_eof = Some(eof.clone());
                        direct = Some(transport.direct());
                        match handler.serve_with_lifecycle(transport, mode).await {
                            Ok(service) => Ok(service),
                            Err(e) => {
                                // The server probably died: let its last words reach the tail.
                                eof.wait(STDERR_DRAIN).await;
                                Err(init_err(e))
                            }
                        }
                    }
                    #[cfg(feature = "http")]
                    TransportConfig::StreamableHttp { url, headers } => {
                        use rmcp::transport::StreamableHttpClientTransport as Http;
                        let (client, config) = crate::transport::streamable_http(
                            alias,
                            url,
                            headers,
                            tap.clone(),
                            inner.param_headers.clone(),
                            (&inner.wire.noise, inner.config.limits().max_message_bytes()),
                            &crate::transport::extra_roots(alias, inner.config.ca_certs())?,
                        )?;
                        #[cfg(feature = "oauth")]
                        if let Some(engine) = &inner.wire.auth {
                            let client = crate::auth::OAuthHttp::new(client, engine.clone());
                            return handler
                                .serve_with_lifecycle(Http::with_client(client, config), mode)
                                .await
                                .map_err(init_err);
                        }
                        handler
                            .serve_with_lifecycle(Http::with_client(client, config), mode)
                            .await
                            .map_err(init_err)
                    }
                    #[cfg(feature = "http")]
                    TransportConfig::Sse { url, headers } => {
                        let t = SseTransport::connect(
                            alias,
                            url,
                            headers,
                            connect_timeout,
                            tap.clone(),
                            (&inner.wire.noise, inner.config.limits().max_message_bytes()),
                            &crate::transport::extra_roots(alias, inner.config.ca_certs())?,
                        )
                        .await?;
                        handler
                            .serve_with_lifecycle(t, mode)
                            .await
                            .map_err(init_err)
                    }
                    #[cfg(not(feature = "http"))]
                    TransportConfig::StreamableHttp { .. } | TransportConfig::Sse { .. } => {
                        Err(transport_err(format!(
                            "this build of mcp-bindgen has no HTTP transports, so `transport = \"{}\"` cannot connect; enable the `http` feature of mcp-bindgen (on by default)",
                            inner.wire.kind
                        )))
                    }
                }
            };
            let service = match tokio::time::timeout(connect_timeout, serving).await {
                Ok(Ok(service)) => service,
                Ok(Err(_)) if let Some(&revision) = fallback.get() => {
                    tracing::debug!(server = %alias, revision, "the server lacks the current revision; starting again with initialize");
                    protocol = Protocol::Revision(revision);
                    continue;
                }
                Ok(Err(e)) => return Err(e),
                Err(_) => {
                    return Err(transport_err(format!(
                        "no answer to initialize within {} (raise `connect_timeout` in the registry if the server starts slowly)",
                        crate::error::fmt_duration(connect_timeout)
                    )));
                }
            };
            break (service, client, stderr_eof, direct);
        };
        let peer = service.peer().clone();
        peer.set_response_cache_config(rmcp::ClientCacheConfig::disabled())
            .await;
        let info = match peer.peer_info() {
            Some(i) => {
                if let Some(direct) = &direct {
                    direct.set_meta(stateless_meta(&client, &i.protocol_version));
                }
                ServerInfo {
                    name: i
                        .server_info
                        .as_ref()
                        .map(|s| s.name.clone())
                        .unwrap_or_default(),
                    version: i
                        .server_info
                        .as_ref()
                        .map(|s| s.version.clone())
                        .unwrap_or_default(),
                    protocol_version: i.protocol_version.to_string(),
                    has_prompts: i.capabilities.prompts.is_some(),
                    has_resources: i.capabilities.resources.is_some(),
                    has_completions: i.capabilities.completions.is_some(),
                }
            }
            None => ServerInfo::default(),
        };
        tracing::debug!(server = %alias, transport = inner.wire.kind, name = %info.name, version = %info.version, protocol = %info.protocol_version, "connected");
        let _ = inner.info.set(info);
        let stateless = !peer
            .peer_info()
            .is_none_or(|i| i.protocol_version.has_initialize());
        let announces_changes = peer
            .peer_info()
            .and_then(|i| i.capabilities.tools.as_ref().and_then(|t| t.list_changed))
            == Some(true);
        let listening = if stateless && announces_changes {
            super::notify::listen_for_tool_changes(peer.clone(), inner.wire.shared.clone())
        } else {
            None
        };
        let conn = Arc::new(Conn {
            peer,
            service: tokio::sync::Mutex::new(Some(service)),
            stderr_eof,
            direct,
            dead: AtomicBool::new(false),
            stateless,
            listening: std::sync::Mutex::new(listening),
            resource_listens: Default::default(),
        });
        // A new server process may have other tools.
        if let Ok(mut hints) = inner.wire.replay_safe.lock() {
            *hints = None;
        }
        let (expected, policy) = match inner.wire.drift.lock() {
            Ok(d) => (d.expected.clone(), d.policy),
            Err(_) => (None, DriftPolicy::Ignore),
        };
        if let Some(expected) = expected
            && policy != DriftPolicy::Ignore
        {
            let tools = self.list_tools_on(&conn).await?;
            if let Err(e) = self.apply_drift(&expected, policy, &tools) {
                conn.close().await;
                return Err(e);
            }
        }
        self.resubscribe(&conn).await;
        Ok(conn)
    }

    /// The OAuth failure behind the last refused request, if that is what ended it.
    pub(in crate::session) fn auth_failure(&self) -> Option<Error> {
        #[cfg(feature = "oauth")]
        if let Some(engine) = &self.inner.wire.auth {
            return engine.take_failure();
        }
        None
    }

    /// Maps an rmcp error; transport failures wait briefly for the server's stderr to end so
    /// its last lines are in the error.
    pub(in crate::session) async fn map_service_error(
        &self,
        conn: &Conn,
        what: &str,
        idle: Duration,
        e: ServiceError,
    ) -> Error {
        self.describe_service_error(conn, what, idle, e)
            .await
            .redacted(&self.inner.resolved.secrets)
    }

    async fn describe_service_error(
        &self,
        conn: &Conn,
        what: &str,
        idle: Duration,
        e: ServiceError,
    ) -> Error {
        if let Some(auth) = self.auth_failure() {
            return auth;
        }
        match e {
            ServiceError::McpError(data) => Error::Protocol {
                server: self.inner.alias.clone(),
                method: what.to_string(),
                code: data.code.0,
                message: data.message.to_string(),
            },
            ServiceError::Timeout { timeout } => Error::Timeout {
                server: self.inner.alias.clone(),
                what: what.to_string(),
                limit: timeout,
                diagnosis: self.inner.wire.noise.summary(),
                kind: if timeout == idle {
                    "idle timeout"
                } else {
                    "total timeout"
                },
            },
            ServiceError::TransportClosed => {
                conn.dead.store(true, Ordering::Release);
                if let Some(eof) = &conn.stderr_eof {
                    eof.wait(STDERR_DRAIN).await;
                }
                let ended = self.inner.wire.noise.ended();
                let why = match &ended {
                    Some(why) => why.as_str(),
                    None if self.inner.wire.kind == "stdio" => {
                        "the server exited or closed its stdout before answering"
                    }
                    None => "the server closed the connection before answering",
                };
                let noise = self
                    .inner
                    .wire
                    .noise
                    .summary()
                    .map(|n| format!("; {n}"))
                    .unwrap_or_default();
                Error::Transport {
                    server: self.inner.alias.clone(),
                    message: format!("{what} failed: {why}{noise}"),
                    stderr_tail: self.inner.wire.stderr.lines(),
                }
            }
            ServiceError::TransportSend(e) => Error::Transport {
                server: self.inner.alias.clone(),
                // The transport recorded why (an answer over a limit): say that.
                message: match self.inner.wire.noise.ended() {
                    Some(ended) => format!("{what} failed: {ended}"),
                    None => format!(
                        "{what} could not be sent: {}",
                        crate::error::cause(&*e.error)
                    ),
                },
                stderr_tail: self.inner.wire.stderr.lines(),
            },
            ServiceError::UnexpectedResponse => Error::Transport {
                server: self.inner.alias.clone(),
                message: format!("{what}: the server answered with a message of another kind"),
                stderr_tail: self.inner.wire.stderr.lines(),
            },
            other => Error::Transport {
                server: self.inner.alias.clone(),
                message: format!("{what}: {other}"),
                stderr_tail: self.inner.wire.stderr.lines(),
            },
        }
    }
}

/// Sends `notifications/cancelled` when a call future is dropped before its answer.
pub(in crate::session) struct CancelOnDrop {
    peer: Option<rmcp::Peer<RoleClient>>,
    /// Set for direct calls: their pending entry is removed on cancel.
    direct: Option<Arc<Direct>>,
    id: rmcp::model::RequestId,
    shared: Arc<Shared>,
    pub(in crate::session) token: ProgressToken,
}

impl CancelOnDrop {
    pub(in crate::session) fn disarm(mut self) {
        self.peer = None;
    }

    /// Sends `notifications/cancelled` with `reason` now (a deadline expired), instead of
    /// on drop.
    pub(in crate::session) async fn cancel(mut self, reason: &str) {
        if let Some(direct) = &self.direct {
            direct.forget(&self.id);
        }
        if let Some(peer) = self.peer.take() {
            let n = rmcp::model::CancelledNotification::new(
                rmcp::model::CancelledNotificationParam::new(
                    Some(self.id.clone()),
                    Some(reason.to_string()),
                ),
            );
            let _ = peer.send_notification(n.into()).await;
        }
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.shared.progress.unsubscribe(&self.token);
        if let Some(peer) = self.peer.take() {
            if let Some(direct) = &self.direct {
                direct.forget(&self.id);
            }
            let id = self.id.clone();
            if let Ok(rt) = tokio::runtime::Handle::try_current() {
                rt.spawn(async move {
                    let n = rmcp::model::CancelledNotification::new(
                        rmcp::model::CancelledNotificationParam::new(
                            Some(id),
                            Some("the caller dropped the call".into()),
                        ),
                    );
                    let _ = peer.send_notification(n.into()).await;
                });
            }
        }
    }
}

/// Where a stdio server's `command` was looked for, when it was not found: a path with a
/// `/` in the registry's directory (relative ones are resolved there), else `PATH`.
fn not_found_hint(e: &std::io::Error, command: &str, base: &std::path::Path) -> String {
    if e.kind() != std::io::ErrorKind::NotFound {
        return String::new();
    }
    if !command.contains('/') && !command.contains('\\') {
        return " (not found on PATH; give a path, or install the server)".to_string();
    }
    if std::path::Path::new(command).starts_with(base) && base != std::path::Path::new(".") {
        return format!(
            " (a relative `command` is resolved against the registry's directory, {})",
            base.display()
        );
    }
    String::new()
}

/// The revision to start again with after `server/discover` failed under `protocol =
/// "auto"`: the newest one with `initialize` that the server named, when it named its
/// revisions; 2025-11-25 when it answered `server/discover` with something that is not a
/// discover result (a server that answers every unknown method with `{}`).
fn initialize_fallback(e: &rmcp::service::ClientInitializeError) -> Option<&'static str> {
    use rmcp::service::ClientInitializeError as E;
    match e {
        E::NoCompatibleProtocolVersion {
            server_supported, ..
        } => REVISIONS
            .iter()
            .rev()
            .filter(|r| **r <= crate::config::LAST_WITH_INITIALIZE)
            .find(|r| server_supported.iter().any(|v| v.as_str() == **r))
            .copied(),
        E::ExpectedInitResult(_) | E::ExpectedInitResponse(_) => {
            Some(crate::config::LAST_WITH_INITIALIZE)
        }
        _ => None,
    }
}

fn join_versions(versions: &[rmcp::model::ProtocolVersion]) -> String {
    if versions.is_empty() {
        return "(none named)".to_string();
    }
    versions
        .iter()
        .map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why `initialize` failed, in words (rmcp's messages name its transport types and print
/// messages with `Debug`).
pub(in crate::session) fn describe_initialize_error(
    e: &rmcp::service::ClientInitializeError,
    target: &str,
) -> String {
    use rmcp::service::ClientInitializeError as E;
    match e {
        E::TransportError { error, .. } => match error.error.downcast_ref::<Error>() {
            // Our own transport's words (stdio), without its "server …:" prefix.
            Some(Error::Transport { message, .. }) => message.clone(),
            _ => format!(
                "could not connect to {target}: {}",
                crate::error::cause(&*error.error)
            ),
        },
        E::ConnectionClosed(_) => {
            "the server closed the connection before answering initialize".to_string()
        }
        E::ExpectedInitResponse(Some(message)) => format!(
            "the server answered initialize with something else: {}",
            excerpt(message)
        ),
        E::ExpectedInitResult(Some(result)) => format!(
            "the server answered initialize with a result that is not an InitializeResult: {}",
            excerpt(result)
        ),
        E::JsonRpcError(data)
            if data.code == rmcp::model::ErrorCode::UNSUPPORTED_PROTOCOL_VERSION =>
        {
            let list = |key: &str| {
                data.data.as_ref().and_then(|d| d.get(key)).and_then(|v| {
                    serde_json::from_value::<Vec<rmcp::model::ProtocolVersion>>(v.clone()).ok()
                })
            };
            let supported = list("supported").unwrap_or_default();
            format!(
                "the server does not speak the protocol revision this session asked for (it speaks {}; set `protocol` in the registry to one of them, or to \"auto\")",
                join_versions(&supported)
            )
        }
        E::JsonRpcError(data) => format!(
            "the server rejected initialize: {} (JSON-RPC error {})",
            data.message, data.code.0
        ),
        E::NoCompatibleProtocolVersion {
            client_supported,
            server_supported,
        } => format!(
            "the server speaks protocol {} and this session asked for {} (set `protocol` in the registry to one the server speaks, or to \"auto\")",
            join_versions(server_supported),
            join_versions(client_supported)
        ),
        E::LegacyFallbackFailed { discover, fallback } => format!(
            "the server answered server/discover with an error ({}) and then failed initialize: {}",
            describe_initialize_error(discover, target),
            describe_initialize_error(fallback, target)
        ),
        other => format!("initialize failed: {other}"),
    }
}
