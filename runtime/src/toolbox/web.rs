//! The toolbox on wasm32 (the `wasm` feature): only what generated code names — each
//! tool's [`TypedTool`] and its token counts ([`Tokens`]) — and the argument preparation
//! a fake and a cassette use. The agent layer (the `Toolbox`, provider exports, dispatch) is built
//! for native targets.

pub(crate) mod typed;

pub use crate::typed::{Normalize, TypedTool, normalize_as, normalize_no_args};
pub use mcp_bindgen_core::provider::Tokens;
pub use typed::prepare_arguments;
