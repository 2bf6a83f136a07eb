//! # mcp-codegen
//!
//! The code generation library behind mcp-bindgen. It has no `proc_macro` dependency so the
//! proc macro (`mcp-macros`), the command line (`mcp-bindgen-cli`) and the tests share it:
//!
//! * [`fixture`] — the fixture model (`fixtures/<alias>.json`), its loader and its canonical
//!   JSON form (sorted keys, 2-space indent, trailing newline) and hash;
//! * [`naming`] — tool names → Rust names, [`naming::openai_name`];
//! * [`openai`] — OpenAI function definitions (non-strict and strict);
//! * [`diff`] — the schema drift classifier behind `snapshot --check`;
//! * [`project`] — where a project's registry and fixtures live (the rule `mcp_tools!` and
//!   the command line share) and how to name a command in the user's vocabulary.
//!
//! With the default feature `generate` (typify, syn, prettyplease; `mcp-runtime` does without
//! it):
//!
//! * `emit` — `generate`: fixture → the typed server module, with `Options` (`only`,
//!   `skip`, `rename`, `types`) and per-tool fallbacks instead of failures;
//!   `expand_to_string` formats it;
//! * `verify` — the per-fixture report behind the `verify` command.
//!
//! With the default feature `oracle` (`jsonschema`): `instances` (valid instances of a
//! schema) and `oracle` (is a generated type faithful to its schema?), behind
//! `verify --deep`.
//!
//! Internally, `normalize` rewrites each schema into what typify 0.8 handles, the
//! `typify_driver` (the only module calling typify) converts it inside `catch_unwind`, and
//! `tokens` rewrites the result so it needs only `mcp-runtime`.
#![deny(missing_docs)]

#[cfg(feature = "diff")]
pub mod diff;
#[cfg(feature = "generate")]
pub mod emit;
mod error;
pub mod fixture;
pub mod headers;
#[cfg(feature = "oracle")]
pub mod instances;
pub mod naming;
#[cfg(feature = "generate")]
mod normalize;
pub mod openai;
#[cfg(feature = "oracle")]
pub mod oracle;
pub mod project;
#[cfg(feature = "generate")]
mod prompts;
pub mod schema;
#[cfg(feature = "generate")]
mod tokens;
#[cfg(feature = "generate")]
mod typify_driver;
#[cfg(feature = "generate")]
mod unions;
#[cfg(feature = "generate")]
pub mod verify;
#[cfg(feature = "generate")]
mod warning;

#[cfg(feature = "generate")]
pub use emit::{
    Generated, Options, Stats, ToolReport, Typing, expand_to_string, format_tokens, generate,
};
pub use error::{ArgumentCollision, Error, Result};
#[cfg(feature = "generate")]
pub use warning::{Warning, WarningKind};
