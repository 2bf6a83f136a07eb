//! Shared pieces of the end-to-end tests and the embedded demo MCP server.
//!
//! [`demo`] holds the demo/fault MCP server behind the `mcp-demo-server` binary.

pub mod balancer;
pub mod demo;

/// The Rust examples of the READMEs, compiled by `cargo test --doc` (and run where they need
/// no server): a README whose code does not compile fails the test suite.
#[cfg(doctest)]
pub mod readmes {
    #[doc = include_str!("../../README.md")]
    pub struct Readme;

    #[doc = include_str!("../../runtime/README.md")]
    pub struct RuntimeReadme;

    #[doc = include_str!("../../mcp-macros/README.md")]
    pub struct MacrosReadme;
}
