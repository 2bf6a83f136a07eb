//! # mcp-bindgen-core
//!
//! What the runtime (`mcp-bindgen`) and the generator (`mcp-bindgen-codegen`) of
//! mcp-bindgen share, with no code-generation dependency (no `syn`, no `typify`): the
//! runtime is built on this crate, never on the generator.
//!
//! * [`fixture`] — the fixture model (`fixtures/<alias>.json`), its loader, its canonical
//!   JSON form (sorted keys, 2-space indent, trailing newline) and the tool-list hash that
//!   generated code and live sessions compare;
//! * [`fingerprint`] — each tool's two digests (what a model reads, what a call must fit)
//!   over RFC 8785 canonical JSON, and renames told from them;
//! * [`schema`] — JSON Schema plumbing: JSON pointers, local `$ref`s, a value's JSON type,
//!   char-boundary truncation;
//! * [`naming`] — tool names → Rust names, exported (OpenAI-style) names, "did you mean";
//! * [`headers`] — the `x-mcp-header` annotations of protocol 2026-07-28;
//! * [`provider`] — one tool in each model provider's format (OpenAI, OpenAI strict, the
//!   Responses API, Anthropic, Gemini), and the checks of those formats;
//! * [`project`] — where a project's registry and fixtures live (the rule `mcp_tools!`,
//!   the command line and the runtime share) and how to name a command in the user's
//!   vocabulary;
//! * [`diff`] (feature `diff`, default) — the wire axis of schema drift: what changed
//!   between two snapshots, tool by tool, breaking or additive.
//!
//! This crate is an implementation detail of mcp-bindgen; its API follows the family's
//! version but is shaped for the other crates, not for direct use.
#![deny(missing_docs)]

#[cfg(feature = "diff")]
pub mod diff;
mod error;
pub mod fingerprint;
pub mod fixture;
pub mod headers;
pub mod naming;
pub mod project;
pub mod provider;
pub mod schema;
pub mod text;
pub mod uri_template;

pub use error::{Error, Result};
