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
// `verify --deep` needs the `verify-deep` feature (`cargo test --workspace` has it, through
// the tests crate); without it, `without_features` checks the message that names it.
#[cfg(feature = "verify-deep")]
mod verify_deep;
mod without_features;
