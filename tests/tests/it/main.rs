//! The end-to-end tests of mcp-bindgen, in one binary (the runtime, rmcp, tokio and reqwest
//! are linked once, not once per file): real servers, the demo/fault server, trybuild's UI
//! and golden cases, scratch user crates. `common` holds the helpers: where things are,
//! free ports, child processes. `cargo test -p mcp-bindgen-tests --test it toolbox::` runs
//! one module.

mod async_openai;
mod balancer;
mod call_stream;
mod common;
mod completion;
mod demo_server;
mod dependency_tree;
mod drift;
mod error_messages;
mod fakes;
mod faults;
mod hostile;
mod macro_all_fixtures;
mod progress;
mod protocol;
mod rebuild;
mod resources;
mod reviewed;
mod rig_agent;
mod secrets;
mod server_env;
mod sse_origin;
mod stdio_only;
mod subscriptions;
mod toolbox;
mod toolbox_hooks;
mod toolbox_lifecycle;
mod toolbox_mixed;
mod toolbox_names;
mod toolbox_providers;
mod toolbox_tracing;
mod transports;
mod typed_calls;
mod ui;
mod user_project;
