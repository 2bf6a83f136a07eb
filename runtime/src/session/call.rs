//! The `tools/call` API, written once for both wires: arguments encoded once per attempt,
//! the deadlines a call gets, decoding of the result.

use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{CallOptions, DEFAULT_MAX_TOTAL, DEFAULT_TIMEOUT, Session};
use crate::error::{Error, Result};
use crate::output::ToolOutput;

impl Session {
    /// `output`, or [`Error::Tool`] when the tool reported an error (`isError: true`).
    pub(crate) fn check_tool_error(&self, tool: &str, output: ToolOutput) -> Result<ToolOutput> {
        output.checked(&self.inner.alias, tool)
    }

    /// Calls a tool with default options.
    pub async fn call<A: Serialize + Sync + ?Sized>(
        &self,
        tool: &str,
        args: &A,
    ) -> Result<ToolOutput> {
        self.call_with(tool, args, CallOptions::default()).await
    }

    /// The idle and total deadlines of a call: the call's options, else the registry's
    /// `tool_timeouts`, else the server's `timeout`, else [`DEFAULT_TIMEOUT`]; the total
    /// defaults to [`DEFAULT_MAX_TOTAL`] (at least the idle deadline).
    pub(super) fn limits(&self, tool: &str, options: &CallOptions) -> (Duration, Duration) {
        let config = &self.inner.config;
        let idle = options
            .timeout
            .or_else(|| config.tool_timeouts().get(tool).copied())
            .or(config.timeout())
            .unwrap_or(DEFAULT_TIMEOUT);
        let total = options.max_total.unwrap_or(DEFAULT_MAX_TOTAL.max(idle));
        (idle, total)
    }

    /// Calls a tool. `args` must serialize to a JSON object. A tool-level error
    /// (`isError: true`) is returned as `Ok` with [`ToolOutput::is_error`] set; use
    /// [`Session::call_structured`] or check the flag.
    ///
    /// The call has an idle deadline (reset by progress) and a total deadline; when one
    /// expires the server is sent `notifications/cancelled` and the call returns
    /// [`Error::Timeout`]. Dropping the returned future also cancels the request. A dead
    /// transport is reconnected first; see [`CallOptions::with_retry_if_idempotent`] for
    /// calls cut off mid-flight.
    pub async fn call_with<A: Serialize + Sync + ?Sized>(
        &self,
        tool: &str,
        args: &A,
        options: CallOptions,
    ) -> Result<ToolOutput> {
        self.call_encoded(tool, &args, options).await
    }

    /// [`Session::call_with`] past the argument type: everything from here on is compiled
    /// (and proven `Send`) once, not once per argument type.
    pub(crate) async fn call_encoded(
        &self,
        tool: &str,
        args: &dyn Encode,
        options: CallOptions,
    ) -> Result<ToolOutput> {
        self.wire_call(tool, args, &options).await
    }

    /// `args` as the JSON object of a `tools/call` (`null` is `{}`).
    pub(super) fn encode_arguments(
        &self,
        tool: &str,
        args: &dyn Encode,
    ) -> Result<serde_json::Map<String, Value>> {
        let encode_error = |message: String| Error::Encode {
            server: self.inner.alias.clone(),
            tool: tool.to_string(),
            message,
        };
        match args.to_json() {
            Ok(Value::Object(map)) => Ok(map),
            Ok(Value::Null) => Ok(serde_json::Map::new()),
            Ok(other) => Err(encode_error(format!(
                "found {}",
                mcp_bindgen_core::schema::json_kind(&other)
            ))),
            Err(e) => Err(encode_error(e.to_string())),
        }
    }

    /// Calls a tool and decodes its structured result into `O`: `structuredContent`,
    /// falling back to JSON in the first text block. `isError: true` is [`Error::Tool`].
    pub async fn call_structured<A: Serialize + Sync + ?Sized, O: DeserializeOwned>(
        &self,
        tool: &str,
        args: &A,
        options: CallOptions,
    ) -> Result<O> {
        let output = self.call_with(tool, args, options).await?;
        self.decode(tool, output)
    }

    /// Checks `isError` and decodes a tool result into `O`. A result that fits `O` in none
    /// of the spellings of either protocol revision is an [`Error::Decode`] that names the
    /// session's revision, and the fixture's when the session knows it
    /// ([`ConnectOptions::with_fixture_protocol`](super::ConnectOptions::with_fixture_protocol)).
    pub fn decode<O: DeserializeOwned>(&self, tool: &str, output: ToolOutput) -> Result<O> {
        output.decode_in_session(
            &self.inner.alias,
            tool,
            self.inner.options.fixture_protocol,
            &self.server_info().protocol_version,
        )
    }
}

/// Tool arguments behind one type (`&dyn Encode`), encoded to JSON per attempt: the call
/// path takes them so that it is not generic over the argument type.
pub(crate) trait Encode: Sync {
    /// The arguments as JSON.
    fn to_json(&self) -> serde_json::Result<Value>;
}

impl<T: Serialize + Sync> Encode for T {
    fn to_json(&self) -> serde_json::Result<Value> {
        serde_json::to_value(self)
    }
}
