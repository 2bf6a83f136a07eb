//! The rmcp client handler: client capabilities, `tools/list_changed`, elicitation,
//! sampling and roots.

use std::sync::Arc;

use rmcp::ClientLifecycleMode;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationCapability,
    FormElicitationCapability, Implementation, ProgressNotificationParam, ProtocolVersion,
    RequestMetaObject,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, RoleClient};
use serde_json::Value;

use super::client::{SampleFn, SamplingRefusal, answer_sampling, offered_roots};
use super::input::{Elicit, answer_elicitation};
use super::notify::{Shared, server_log};
use crate::config::Protocol;

/// Our rmcp client handler: routes progress, reports `tools/list_changed`, and (opt-in)
/// answers elicitations (with the schema defaults or the application's callback), sampling
/// requests (the application's callback) and `roots/list` (the roots set).
pub(in crate::session) struct Handler {
    pub(in crate::session) config: ClientConfig,
    pub(in crate::session) shared: Arc<Shared>,
    pub(in crate::session) elicit: Option<Elicit>,
    pub(in crate::session) sampling: Option<SampleFn>,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        self.config.clone()
    }

    async fn on_progress(
        &self,
        _params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        // Delivered by the transport's tap instead, in order and before the result.
    }

    #[allow(deprecated)] // Logging is deprecated by protocol 2026-07-28; servers still send it.
    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        server_log(&self.shared, params);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        tracing::info!(server = %self.shared.alias, "server reported tools/list_changed");
        self.shared.list_changed.notify_one();
        if let Some(f) = &self.shared.on_tools_changed {
            f();
        }
    }

    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.shared.watchers.wake(&params.uri);
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> std::result::Result<ElicitResult, rmcp::ErrorData> {
        let _permit = self.admit("elicitation/create")?;
        Ok(answer_elicitation(self.elicit.as_ref(), &self.shared.alias, request).await)
    }

    #[allow(deprecated)] // Sampling is deprecated by a later revision; 2025-11-25 servers use it.
    async fn create_message(
        &self,
        params: rmcp::model::CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> std::result::Result<rmcp::model::CreateMessageResult, rmcp::ErrorData> {
        let _permit = self.admit("sampling/createMessage")?;
        let params = serde_json::to_value(params).unwrap_or(Value::Null);
        let refusal = |r: SamplingRefusal| {
            let code = match r {
                SamplingRefusal::NotOffered => rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                // The code the specification gives a refusal by the user.
                SamplingRefusal::Refused(_) => rmcp::model::ErrorCode(-1),
                SamplingRefusal::Invalid(_) => rmcp::model::ErrorCode::INVALID_PARAMS,
            };
            rmcp::ErrorData::new(code, r.to_string(), None)
        };
        let result = answer_sampling(self.sampling.as_ref(), &self.shared.alias, params)
            .await
            .map_err(refusal)?;
        serde_json::from_value(result).map_err(|e| {
            rmcp::ErrorData::internal_error(
                format!("the sampling reply is not a result: {e}"),
                None,
            )
        })
    }

    #[allow(deprecated)] // Roots are deprecated by a later revision; 2025-11-25 servers ask.
    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> std::result::Result<rmcp::model::ListRootsResult, rmcp::ErrorData> {
        let _permit = self.admit("roots/list")?;
        let Some(json) = offered_roots(self.shared.roots.as_ref()) else {
            return Err(rmcp::ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                "this client offers no roots (none in the registry entry or in mcp-bindgen's ConnectOptions::with_roots), so the roots capability was not declared",
                None,
            ));
        };
        serde_json::from_value(json)
            .map_err(|e| rmcp::ErrorData::internal_error(format!("roots: {e}"), None))
    }
}

impl Handler {
    /// A permit to answer one request from the server, or the JSON-RPC error that refuses
    /// it: [`Limits::max_server_requests`](crate::Limits::max_server_requests) are being
    /// answered already.
    fn admit(
        &self,
        method: &str,
    ) -> std::result::Result<tokio::sync::SemaphorePermit<'_>, rmcp::ErrorData> {
        self.shared.server_requests.try_acquire().map_err(|_| {
            tracing::warn!(server = %self.shared.alias, "refused {method}: too many requests from the server at once");
            rmcp::ErrorData::new(
                rmcp::model::ErrorCode(-32000),
                format!(
                    "refused: the client answers at most {} requests from server \"{}\" at once (sampling, elicitation, roots/list; the `max_server_requests` limit); retry later",
                    self.shared.max_server_requests, self.shared.alias
                ),
                None,
            )
        })
    }
}

/// The capabilities the client declares: those it answers.
#[derive(Debug, Clone, Copy, Default)]
pub(in crate::session) struct Offers {
    pub(in crate::session) elicitation: bool,
    pub(in crate::session) sampling: bool,
    pub(in crate::session) roots: bool,
}

#[allow(deprecated)] // `sampling`: deprecated by a later revision, declared for 2025-11-25 servers.
pub(in crate::session) fn client_config(offers: Offers, protocol: Protocol) -> ClientConfig {
    let mut capabilities = ClientCapabilities::default();
    // The tasks extension: a server may run a call as a task, which the session follows.
    capabilities.extensions = Some(
        [(
            rmcp::model::TASKS_EXTENSION_ID.to_string(),
            serde_json::Map::new(),
        )]
        .into_iter()
        .collect(),
    );
    if offers.elicitation {
        capabilities.elicitation =
            Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
    }
    if offers.sampling {
        capabilities.sampling = serde_json::from_value(serde_json::json!({})).ok();
    }
    if offers.roots {
        capabilities.roots = serde_json::from_value(serde_json::json!({"listChanged": true})).ok();
    }
    let mut config = ClientConfig::new(
        capabilities,
        Implementation::new("mcp-bindgen", env!("CARGO_PKG_VERSION")),
    );
    // rmcp's default is `LATEST` (2026-07-28), a revision without `initialize`; a handshake
    // must name the newest revision that has it (servers negotiate down), or the one pinned.
    config.protocol_version = match protocol {
        Protocol::Revision(r) if protocol.has_initialize() == Some(true) => version(r),
        _ => ProtocolVersion::LATEST_WITH_INITIALIZE,
    };
    config
}

/// rmcp's value of one of [`crate::config::REVISIONS`] (all of which rmcp knows).
fn version(revision: &str) -> ProtocolVersion {
    ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .find(|v| v.as_str() == revision)
        .cloned()
        .unwrap_or(ProtocolVersion::LATEST_WITH_INITIALIZE)
}

/// How rmcp starts the session for `protocol`: `server/discover` first with a fallback to
/// `initialize` (auto), `initialize` only (up to 2025-11-25), or `server/discover` only.
pub(in crate::session) fn lifecycle(protocol: Protocol) -> ClientLifecycleMode {
    match protocol {
        Protocol::Auto => ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::LATEST],
            legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
        },
        Protocol::Revision(_) if protocol.has_initialize() == Some(true) => {
            ClientLifecycleMode::Initialize
        }
        Protocol::Revision(r) => ClientLifecycleMode::Discover {
            preferred_versions: vec![version(r)],
        },
    }
}

/// The `_meta` entries every request of a stateless session (2026-07-28 on) carries: the
/// revision, the client's identity and capabilities. `None` on an `initialize` session.
pub(in crate::session) fn stateless_meta(
    config: &ClientConfig,
    negotiated: &ProtocolVersion,
) -> Option<serde_json::Map<String, Value>> {
    if negotiated.has_initialize() {
        return None;
    }
    let meta = RequestMetaObject::with_client_context(
        negotiated.clone(),
        config.client_info.clone(),
        config.capabilities.clone(),
    );
    match serde_json::to_value(meta) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}
