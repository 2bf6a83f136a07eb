//! # mcp-codegen
//!
//! The code generation library behind mcp-bindgen. It has no `proc_macro` dependency so the
//! proc macro (`mcp-macros`), the `xtask` commands and the tests share it:
//!
//! * [`fixture`] — the fixture model (`fixtures/<alias>.json`), its loader and its canonical
//!   JSON form (sorted keys, 2-space indent, trailing newline) and hash;
//! * [`diff`] — the schema drift classifier behind `cargo xtask snapshot --check`.
#![deny(missing_docs)]

pub mod diff;
mod error;
pub mod fixture;
pub mod naming;
mod typify_driver;

pub use error::{Error, Result};
