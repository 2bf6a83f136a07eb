//! The reference: one chapter per subject. Every Rust example in it is compiled by the test
//! suite (`cargo test --doc`), and run where it needs no server.
//!
//! The same chapters are the files `runtime/guide/*.md` of the repository.

#[doc = include_str!("../guide/registry.md")]
pub mod registry {}

#[doc = include_str!("../guide/drift.md")]
pub mod drift {}

#[doc = include_str!("../guide/typed.md")]
pub mod typed {}

#[doc = include_str!("../guide/runtime.md")]
pub mod runtime {}

#[doc = include_str!("../guide/agents.md")]
pub mod agents {}

#[doc = include_str!("../guide/deploying.md")]
pub mod deploying {}

#[doc = include_str!("../guide/testing.md")]
pub mod testing {}

#[doc = include_str!("../guide/commands.md")]
pub mod commands {}
