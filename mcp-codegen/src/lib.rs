//! # mcp-codegen
//!
//! The code generation library behind mcp-bindgen. It has no `proc_macro` dependency so the
//! proc macro (`mcp-macros`), the `xtask` commands and the tests share it:
//!
//! * [`fixture`] — the fixture model (`fixtures/<alias>.json`), its loader and its canonical
//!   JSON form (sorted keys, 2-space indent, trailing newline) and hash;
//! * [`emit`] — [`generate`]: fixture → the typed server module (BRIEF §3.4), with
//!   [`Options`] (`only`, `skip`, `rename`, `types`) and per-tool fallbacks instead of
//!   failures; [`expand_to_string`] formats it;
//! * [`naming`] — tool names → Rust names, [`naming::openai_name`];
//! * [`openai`] — OpenAI function definitions (non-strict and strict);
//! * [`verify`] — the per-fixture report behind `cargo xtask verify`;
//! * [`diff`] — the schema drift classifier behind `cargo xtask snapshot --check`.
//!
//! Internally, `normalize` rewrites each schema into what typify 0.8 handles, the
//! `typify_driver` (the only module calling typify) converts it inside `catch_unwind`, and
//! `tokens` rewrites the result so it needs only `mcp-runtime`.
#![deny(missing_docs)]

pub mod diff;
#[cfg(feature = "generate")]
pub mod emit;
mod error;
pub mod fixture;
pub mod naming;
#[cfg(feature = "generate")]
mod normalize;
pub mod openai;
#[cfg(feature = "generate")]
mod prompts;
#[cfg(feature = "generate")]
mod tokens;
#[cfg(feature = "generate")]
mod typify_driver;
#[cfg(feature = "generate")]
pub mod verify;

#[cfg(feature = "generate")]
pub use emit::{
    Generated, Options, Stats, ToolReport, Typing, Warning, WarningKind, expand_to_string,
    format_tokens, generate,
};
pub use error::{ArgumentCollision, Error, Result};
