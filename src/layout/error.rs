//! Errors of the layout algebra.

use super::notation::ParseError;

/// Why a layout operation cannot be carried out on its arguments.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// The arguments violate a precondition of the operation (CuTe asserts these).
    #[error("{op}: {detail}")]
    Inadmissible {
        /// The operation, e.g. `composition`.
        op: &'static str,
        /// What was wrong, naming the values.
        detail: String,
    },
    /// Malformed CuTe notation.
    #[error("{0}")]
    Parse(#[from] ParseError),
}
