//! # mcp-bindgen
//!
//! Typed Rust bindings for MCP servers, generated at compile time from committed snapshots
//! of their tool lists:
//!
//! ```no_run
//! use mcp_bindgen::Registry;
//!
//! mcp_bindgen::mcp_tools!("memory"); // fixtures/memory.json, read at compile time
//!
//! #[tokio::main]
//! async fn main() -> Result<(), mcp_bindgen::Report> {
//!     let registry = Registry::discover()?; // fixtures/servers.toml
//!     // Connects, and compares the live tools with the fixture: drift is named tool by tool.
//!     let memory = memory::Client::connect(registry.get("memory")?).await?;
//!     let graph = memory.read_graph().await?; // typed from the tool's outputSchema
//!     println!("{} entities", graph.entities.len());
//!     Ok(())
//! }
//! ```
//!
//! `cargo mcp-bindgen snapshot` (or a 3-line `cargo xtask`) writes the fixtures; a
//! misspelled or mistyped argument is a compile error.
//!
//! This is the one dependency a user of **mcp-bindgen** adds. It holds:
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
//! [`guide::deploying`], [`guide::testing`], [`guide::commands`].
//!
//! Features: `macros` (the [`mcp_tools!`] macro), `http` (Streamable HTTP and legacy
//! HTTP+SSE) and `rustls` (TLS with the *ring* provider) on by default; opt-in: `oauth`
//! (OAuth 2.1 login, client secrets), `oauth-jwt` (client credentials with a signed JWT;
//! builds aws-lc's C), `drift-details` (drift messages that classify each change),
//! `local-tools` (your own functions as toolbox tools), `tokens` (`mcp_tools!(…, tokens =
//! true)` and `max_tokens = N`: token counts at build time), `async-openai` (a toolbox in
//! async-openai's request and reply types: [`toolbox::adapters::async_openai`]) and `wasm`
//! (the wasm32 client over `fetch`).
//!
//! On `wasm32-unknown-unknown` (browsers, edge workers) the runtime is built with
//! `default-features = false, features = ["wasm"]`: the same generated code then calls
//! servers over Streamable HTTP through the host's `fetch`, on both protocol revisions
//! ([`guide::runtime`], "In the browser and on edge workers").
#![deny(missing_docs)]

#[cfg(all(target_arch = "wasm32", not(feature = "wasm")))]
compile_error!(
    "mcp-bindgen on wasm32 needs its `wasm` feature: `mcp-bindgen = { version = \"0.1\", default-features = false, features = [\"wasm\"] }`"
);
#[cfg(all(target_arch = "wasm32", feature = "oauth"))]
compile_error!(
    "mcp-bindgen's `oauth` feature (the login flow, the token store) is not available on wasm32: pass a bearer token in the registry's `headers` instead"
);

#[cfg(all(feature = "oauth", not(target_arch = "wasm32")))]
pub mod auth;
mod call_future;
pub mod calls;
pub mod completion;
mod config;
pub mod drift;
mod error;
pub mod fake;
pub mod guide;
mod output;
mod prompt;
mod protocol;
mod redact;
mod resource;
mod root;
mod serde_struct;
mod session;
mod string_enum;
#[cfg(test)]
mod test_recorder;
// On wasm32 the toolbox holds only what generated code names (the agent layer is native).
#[cfg_attr(target_arch = "wasm32", path = "toolbox/web.rs")]
pub mod toolbox;
#[cfg(not(target_arch = "wasm32"))]
mod transport;
mod typed;
pub mod validate;

pub use call_future::CallFuture;
pub use completion::{Completion, CompletionArgument, CompletionRef};
pub use config::{
    AuthConfig, ClientCredentialsSettings, InheritEnv, Limits, OAuthSettings, Protocol, Registry,
    ServerConfig, TransportConfig,
};
pub use error::{Error, ErrorKind, Report, Result};
pub use mcp_bindgen_core::uri_template;
#[cfg(feature = "macros")]
pub use mcp_bindgen_macros::mcp_tools;
pub use output::{Content, Health, NoArgs, ServerInfo, ToolOutput};
pub use prompt::{PromptMessage, PromptResult, Role};
pub use resource::{ResourceContent, ResourceContents};
pub use root::Root;
/// schemars 1, for the argument types of local tools
/// ([`toolbox::ToolboxBuilder::add_local`]): `#[derive(mcp_bindgen::schemars::JsonSchema)]`
/// with `#[schemars(crate = "mcp_bindgen::schemars")]`. With the `local-tools` feature.
#[cfg(feature = "local-tools")]
pub use schemars;
#[cfg(not(target_arch = "wasm32"))]
pub use session::{
    CallEvent, CallStream, Elicitation, ElicitationAnswer, ElicitationFuture, ResourceUpdates,
    SamplingFuture, SamplingMessage, SamplingReply, SamplingRequest, ServerLog,
};
pub use session::{
    CallOptions, ConnectOptions, DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_TOTAL, DEFAULT_TIMEOUT,
    HEALTH_TIMEOUT, Progress, REJECTED_TOOL_TARGET, Session, TaskHandle, TaskState,
};
pub use typed::ConversionError;
pub use uri_template::UriTemplate;

/// Items used by code that `mcp_tools!` generates. Not a public API: names and shapes
/// may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use ::serde;
    pub use ::serde_json;

    pub use crate::__serde_struct as serde_struct;
    pub use crate::__string_enum as string_enum;
    pub use crate::resource::expand_checked as expand_uri_template;
    pub use crate::serde_struct::{
        DeserializeStruct, FieldDefault, NoDefault, PathDefault, StdDefault, StructInfo, StructMap,
        StructSeq, deserialize_struct, serialize_struct, serialize_struct_field,
    };
    pub use crate::string_enum::{deserialize_str_enum, from_str_enum, serialize_str_enum};
    pub use crate::toolbox::typed::roundtrip_stdio;
}
