//! A toolbox in the types of the Rust agent libraries, each behind its feature.
//!
//! * [`async_openai`] (feature `async-openai`): the exports as async-openai's request types
//!   (chat completions `tools`, strict where the tool allows; Responses `tools`), and a
//!   model's tool calls, parsed by async-openai, dispatched through the toolbox into the
//!   reply it takes back (a `tool` message; a `function_call_output` item).
//! * [`rig`] (feature `rig`): every tool a rig `DynamicTool` with its reviewed definition,
//!   for a rig agent's tool list, its calls dispatched through the toolbox.

#[cfg(feature = "async-openai")]
pub mod async_openai;

#[cfg(feature = "rig")]
pub mod rig;
