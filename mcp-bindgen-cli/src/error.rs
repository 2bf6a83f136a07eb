//! The one error type of `mcp-bindgen-cli`.

use std::path::PathBuf;

/// What a command can fail with. Its `Display` is the message printed after
/// `<command>: error: `.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The command line is not understood (exit code 2); the text includes the usage.
    #[error("{0}")]
    Usage(String),
    /// `--help`: the text to print on stdout (exit code 0).
    #[error("{0}")]
    Help(String),
    /// The project, its registry or its fixtures could not be found.
    #[error("{0}")]
    Project(String),
    /// The registry, a connection or a call failed.
    #[error(transparent)]
    Runtime(#[from] mcp_bindgen::Error),
    /// A fixture could not be read.
    #[error(transparent)]
    Fixture(#[from] mcp_bindgen_core::Error),
    /// A fixture's code could not be generated.
    #[error(transparent)]
    Codegen(#[from] mcp_bindgen_codegen::Error),
    /// A file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Anything else, said in full.
    #[error("{0}")]
    Other(String),
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
