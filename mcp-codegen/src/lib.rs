//! # mcp-bindgen-codegen
//!
//! The code generation library behind mcp-bindgen. It has no `proc_macro` dependency so the
//! proc macro (`mcp-bindgen-macros`), the command line (`mcp-bindgen-cli`) and the tests
//! share it. What it shares with the runtime — the fixture model, naming, schema helpers,
//! project paths, the wire drift classifier — is `mcp-bindgen-core`'s.
//!
//! * [`generate`]: fixture → the typed server module, with [`Options`] (`only`,
//!   `skip`, `rename`, `types`) and per-tool fallbacks instead of failures;
//!   [`expand_to_string`] formats it;
//! * [`verify`] — the per-fixture report behind the `verify` command;
//! * [`review`] — a fixture change on both axes: the wire class (`mcp_bindgen_core::diff`)
//!   and the effect on the generated Rust API, as `snapshot --check` and `diff` print it.
//!
//! With the default feature `oracle` (`jsonschema`): `instances` (valid instances of a
//! schema) and `oracle` (is a generated type faithful to its schema?), behind
//! `verify --deep`.
//!
//! Internally, `normalize` rewrites each schema into what typify 0.8 handles, the
//! `typify_driver` (the only module calling typify) converts it inside `catch_unwind`, and
//! `tokens` rewrites the result so it needs only `mcp-bindgen`.
#![deny(missing_docs)]

pub mod budget;
mod completable;
mod emit;
mod error;
#[cfg(feature = "oracle")]
pub mod instances;
mod naming;
mod normalize;
#[cfg(feature = "oracle")]
pub mod oracle;
mod prompts;
mod resources;
pub mod review;
mod tokens;
mod typify_driver;
pub mod verify;
mod warning;

pub use emit::{
    Generated, Options, Stats, ToolReport, Typing, expand_to_string, format_tokens, generate,
};
pub use error::{ArgumentCollision, Error, Result};
pub use resources::{TemplatePlan, TemplateVariable, plan_templates};

// The shared modules under the paths this crate has always used internally (not re-exported).
use mcp_bindgen_core::{fixture, headers, schema};
pub use warning::{Warning, WarningKind};
