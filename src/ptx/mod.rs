//! The PTX assembler (to be written).

/// Errors of the PTX assembler (to be written).
#[derive(Debug, thiserror::Error)]
pub enum PtxError {
    /// Placeholder.
    #[error("ptx error: {0}")]
    Other(String),
}
