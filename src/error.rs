//! `cutlet::Error`: every failure a caller can see, with its context.

use crate::layout::LayoutError;
use crate::ptx::PtxError;

/// The result type of cutlet's fallible functions.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in cutlet, with enough context to act on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A layout operation was given arguments it cannot accept.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// The PTX assembler was given something it cannot emit.
    #[error(transparent)]
    Ptx(#[from] PtxError),
}
