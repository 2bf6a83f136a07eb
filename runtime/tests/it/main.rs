//! The runtime's integration tests, in one binary (one link of the runtime and its
//! dependencies): the macros generated code uses, called from outside the crate.

mod serde_struct;
mod string_enum;
