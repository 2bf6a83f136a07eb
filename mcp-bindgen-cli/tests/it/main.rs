//! The CLI's integration tests, in one binary: each module runs the built
//! `cargo-mcp-bindgen` as a user does, against real servers. `common` holds the helpers.

mod call_checks;
mod common;
mod drift_corpus;
mod hostile_servers;
mod https_and_sessions;
mod oauth_login;
mod registry_files;
mod rug_pull;
mod semver_cross_check;
mod snapshot_check;
mod tools_export;
mod typos;
mod verify_deep;
