//! [`TensorMapRequest`]: what a TMA part of a GEMM kernel needs of an
//! operand's tensor map, for the launcher to encode per run.

use super::{GemmOperand, OperandMajor};

/// The tensor map a kernel part reads an operand through (its
/// [`ParamRole::TensorMap`](super::ParamRole::TensorMap) parameter): the
/// launcher encodes it for each run from the operand's address, leading
/// dimension and batch stride, as a rank-3 tiled map over
/// `(contiguous, strided, batch)` with this box and the 128-byte swizzle
/// (zero fill out of bounds).
///
/// For A (M x K) the contiguous dimension is K when A is K-major, M
/// otherwise; for B (N x K) it is K or N.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TensorMapRequest {
    /// The operand.
    pub operand: GemmOperand,
    /// Its contiguous dimension.
    pub major: OperandMajor,
    /// The box, innermost first: (contiguous, strided); 1 along the batch.
    pub box_dims: [u32; 2],
    /// Bytes of the swizzle span (128).
    pub swizzle_bytes: u32,
}
