//! Shared pieces of the end-to-end tests and the embedded demo MCP server.
//!
//! [`demo`] holds the demo/fault MCP server behind the `mcp-demo-server` binary.

pub mod demo;
