//! The one error type of `mcp-bindgen-core`.

use std::path::PathBuf;

/// What can go wrong while reading a fixture.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A fixture file could not be read.
    #[error("cannot read fixture {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A fixture is not valid JSON or does not have the expected shape.
    #[error("malformed fixture {}: at {pointer}: {message}", path.display())]
    Malformed {
        /// The file (or `<memory>`).
        path: PathBuf,
        /// JSON pointer of the offending value (`""` for the document).
        pointer: String,
        /// What was expected or what went wrong.
        message: String,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
