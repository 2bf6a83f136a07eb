//! The rmcp client handler: client capabilities, `tools/list_changed`, elicitation defaults.

use std::sync::Arc;

use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, FormElicitationCapability, Implementation, ProgressNotificationParam,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, RoleClient};
use serde_json::Value;

use super::progress::ProgressRouter;

/// State the rmcp client handler shares with its session (and every reconnection).
pub(super) struct Shared {
    pub(super) alias: Arc<str>,
    pub(super) progress: ProgressRouter,
    /// Woken by `tools/list_changed` (and when the session is dropped).
    pub(super) list_changed: tokio::sync::Notify,
}

/// Our rmcp client handler: routes progress, reports `tools/list_changed`, and (opt-in)
/// answers elicitations with the schema defaults.
pub(super) struct Handler {
    pub(super) config: ClientConfig,
    pub(super) shared: Arc<Shared>,
    pub(super) elicitation_defaults: bool,
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

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        tracing::info!(server = %self.shared.alias, "server reported tools/list_changed");
        self.shared.list_changed.notify_one();
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> std::result::Result<ElicitResult, rmcp::ErrorData> {
        if !self.elicitation_defaults {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        }
        match request {
            ElicitRequestParams::FormElicitationParams {
                requested_schema, ..
            } => {
                let schema = serde_json::to_value(&requested_schema).unwrap_or(Value::Null);
                Ok(ElicitResult::new(ElicitationAction::Accept)
                    .with_content(schema_defaults(&schema)))
            }
            _ => Ok(ElicitResult::new(ElicitationAction::Decline)),
        }
    }
}

/// `{property: default}` for every property of an object schema that has a default.
pub(super) fn schema_defaults(schema: &Value) -> Value {
    let mut content = serde_json::Map::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, prop) in props {
            if let Some(default) = prop.get("default") {
                content.insert(name.clone(), default.clone());
            }
        }
    }
    Value::Object(content)
}

pub(super) fn client_config(elicitation: bool) -> ClientConfig {
    let mut capabilities = ClientCapabilities::default();
    if elicitation {
        capabilities.elicitation =
            Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
    }
    let mut config = ClientConfig::new(
        capabilities,
        Implementation::new("mcp-bindgen", env!("CARGO_PKG_VERSION")),
    );
    // rmcp's default is `LATEST` (2026-07-28), a revision without `initialize`; the
    // handshake we run must name the newest revision that has it (servers negotiate down).
    config.protocol_version = rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE;
    config
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elicitation_answer_holds_the_schema_defaults() {
        let schema = serde_json::json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "nick": {"type": "string"}
        }});
        assert_eq!(
            schema_defaults(&schema),
            serde_json::json!({"name": "John Doe", "age": 30})
        );
    }
}
