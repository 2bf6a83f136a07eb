//! # mcp-bindgen
//!
//! The one dependency a user of **mcp-bindgen** adds. It holds:
//!
//! * the [`mcp_tools!`] macro (re-exported from `mcp-bindgen-macros`), which turns a committed
//!   fixture (`fixtures/<alias>.json`) into a typed module at compile time;
//! * the server registry ([`Registry`], [`ServerConfig`]): `fixtures/servers.toml` or the `{"mcpServers": …}`
//!   JSON shape, with `${NAME}` / `${NAME:-default}` substitution at connect time;
//! * the transports (stdio, legacy HTTP+SSE, Streamable HTTP) behind one connect API
//!   ([`Session::connect`]);
//! * the call path generated code uses ([`Session::call`], [`Session::call_structured`],
//!   [`Session::prompt`] for typed prompt arguments).
//!
//! All `rmcp` types stay inside this crate: generated code and users name only
//! `::mcp_bindgen::…` paths.
//!
//! The [`guide`] is the reference, one chapter per subject: [`guide::registry`],
//! [`guide::drift`], [`guide::typed`], [`guide::runtime`], [`guide::agents`],
//! [`guide::testing`], [`guide::commands`].
//!
//! Features: `macros`, `http` and `rustls` (rustls with the *ring* provider) on by default;
//! `oauth`, `oauth-jwt`, `drift-details` and `local-tools` opt-in.
#![deny(missing_docs)]

#[cfg(feature = "oauth")]
pub mod auth;
mod call_future;
mod config;
pub mod drift;
mod error;
pub mod fake;
pub mod guide;
mod output;
mod prompt;
mod serde_struct;
mod session;
mod string_enum;
#[cfg(test)]
mod test_recorder;
pub mod toolbox;
mod transport;
mod typed;

pub use call_future::CallFuture;
pub use config::{
    AuthConfig, ClientCredentialsSettings, InheritEnv, Limits, OAuthSettings, Protocol, Registry,
    ServerConfig, TransportConfig,
};
pub use error::{Error, ErrorKind, Report, Result};
#[cfg(feature = "macros")]
pub use mcp_bindgen_macros::mcp_tools;
pub use output::{Content, Health, NoArgs, ServerInfo, ToolOutput};
pub use prompt::{PromptMessage, PromptResult, Role};
/// schemars 1, for the argument types of local tools
/// ([`toolbox::ToolboxBuilder::add_local`]): `#[derive(mcp_bindgen::schemars::JsonSchema)]`
/// with `#[schemars(crate = "mcp_bindgen::schemars")]`. With the `local-tools` feature.
#[cfg(feature = "local-tools")]
pub use schemars;
pub use session::{
    CallEvent, CallOptions, CallStream, ConnectOptions, DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_TOTAL,
    DEFAULT_TIMEOUT, Elicitation, ElicitationAnswer, ElicitationFuture, HEALTH_TIMEOUT, Progress,
    REJECTED_TOOL_TARGET, Root, SamplingFuture, SamplingMessage, SamplingReply, SamplingRequest,
    ServerLog, Session, TaskHandle, TaskState,
};
pub use typed::ConversionError;

/// Items used by code that `mcp_tools!` generates. Not a public API: names and shapes
/// may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use ::serde;
    pub use ::serde_json;

    pub use crate::__serde_struct as serde_struct;
    pub use crate::__string_enum as string_enum;
    pub use crate::serde_struct::{
        DeserializeStruct, FieldDefault, NoDefault, PathDefault, StdDefault, StructInfo, StructMap,
        StructSeq, deserialize_struct, serialize_struct, serialize_struct_field,
    };
    pub use crate::string_enum::{deserialize_str_enum, from_str_enum, serialize_str_enum};
    pub use crate::toolbox::typed::roundtrip_stdio;
}
