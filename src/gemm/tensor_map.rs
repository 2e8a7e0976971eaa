//! [`TensorMapRequest`]: what a TMA part of a GEMM kernel needs of an
//! operand's tensor map, for the launcher to encode per run.

use super::{GemmOperand, OperandMajor, OutputMajor, ProblemDim};
use crate::numeric::ElementType;

/// The tensor map a kernel part reads an operand through (its
/// [`ParamRole::TensorMap`](super::ParamRole::TensorMap) parameter): the
/// launcher encodes it for each run from the operand's address, leading
/// dimension and batch stride, as a rank-3 tiled map over
/// `(contiguous, strided, batch)` with this box and the 128-byte swizzle
/// (zero fill out of bounds).
///
/// `dims` names the problem's extents along the contiguous and the strided
/// dimension: (K, M) for a K-major A, (M, K) for an M-major one, (K, N) or
/// (N, K) for B, (N, M) for a row-major D, (M, N) for a column-major one.
///
/// ```
/// use cutlet::gemm::{GemmOperand, OperandMajor, OutputMajor, ProblemDim, TensorMapRequest};
///
/// assert_eq!(TensorMapRequest::operand_dims(GemmOperand::A, OperandMajor::K), [ProblemDim::K, ProblemDim::M]);
/// assert_eq!(TensorMapRequest::output_dims(OutputMajor::M), [ProblemDim::M, ProblemDim::N]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TensorMapRequest {
    /// The operand.
    pub operand: GemmOperand,
    /// The problem dimensions along its contiguous and strided dimension.
    pub dims: [ProblemDim; 2],
    /// The box, innermost first: (contiguous, strided); 1 along the batch.
    pub box_dims: [u32; 2],
    /// Bytes of the swizzle span (128).
    pub swizzle_bytes: u32,
    /// The map's contiguous extent stops at the last whole 16-byte chunk of
    /// each row (the rest of the row is written by the kernel itself): a
    /// TMA store then never writes a partial chunk, which the H100 writes
    /// whole (see [`tma_store_rows_exact`]). The extent must hold one chunk.
    pub whole_chunks: bool,
    /// The box's strided extent stops at the operand's own
    /// ([`clipped_rows`](Self::clipped_rows)) where that is smaller: a
    /// K-major operand of fewer rows than the tile (M = 80 under a 128-row
    /// tile) loads its rows alone instead of a box whose rows past M the
    /// TMA fills with zeros one by one; the kernel counts the box's bytes
    /// at run time and never stores the rows past M.
    pub clip_rows: bool,
}

impl TensorMapRequest {
    /// The strided extent of a [`clip_rows`](Self::clip_rows) box over an
    /// operand of `rows` rows: `rows` rounded up to a multiple of 8 (the
    /// swizzle's repeat), at least 8 and at most `box_rows`.
    ///
    /// ```
    /// use cutlet::gemm::TensorMapRequest;
    ///
    /// assert_eq!(TensorMapRequest::clipped_rows(128, 80), 80);
    /// assert_eq!(TensorMapRequest::clipped_rows(128, 77), 80);
    /// assert_eq!(TensorMapRequest::clipped_rows(128, 0), 8);
    /// assert_eq!(TensorMapRequest::clipped_rows(128, 4096), 128);
    /// assert_eq!(TensorMapRequest::clipped_rows(128, u32::MAX), 128);
    /// ```
    pub const fn clipped_rows(box_rows: u32, rows: u32) -> u32 {
        // Clamped before rounding, so that no sum overflows.
        let rows = if rows < box_rows { rows } else { box_rows };
        let rows = if rows == 0 { 1 } else { rows };
        let rounded = rows.div_ceil(8) * 8;
        if rounded < box_rows {
            rounded
        } else {
            box_rows
        }
    }

    /// (contiguous, strided) of A (M x K) or B (N x K) with `major`.
    pub const fn operand_dims(operand: GemmOperand, major: OperandMajor) -> [ProblemDim; 2] {
        let mn = match operand {
            GemmOperand::A => ProblemDim::M,
            _ => ProblemDim::N,
        };
        match major {
            OperandMajor::K => [ProblemDim::K, mn],
            OperandMajor::MN => [mn, ProblemDim::K],
        }
    }

    /// (contiguous, strided) of C or D (M x N) with `major`.
    pub const fn output_dims(major: OutputMajor) -> [ProblemDim; 2] {
        match major {
            OutputMajor::N => [ProblemDim::N, ProblemDim::M],
            OutputMajor::M => [ProblemDim::M, ProblemDim::N],
        }
    }
}

/// Whether the TMA store of a D with `major` maps whole 16-byte chunks
/// only ([`TensorMapRequest::whole_chunks`]): a row-major D, whose last
/// partial chunk of each row the SM90 TMA-store epilogue writes itself. A
/// column-major D's map covers its M exactly.
///
/// ```
/// use cutlet::gemm::{stores_whole_chunks, OutputMajor};
///
/// assert!(stores_whole_chunks(OutputMajor::N));
/// assert!(!stores_whole_chunks(OutputMajor::M));
/// ```
pub const fn stores_whole_chunks(major: OutputMajor) -> bool {
    matches!(major, OutputMajor::N)
}

/// Whether a TMA store of rows of `elements` values of `element` writes
/// them exactly: with a map over whole chunks (`whole_chunks`), where a row
/// holds one chunk at least; else where rows are whole chunks
/// ([`tma_store_rows_exact`]).
///
/// ```
/// use cutlet::gemm::tma_store_takes;
/// use cutlet::numeric::ElementType::BF16;
///
/// assert!(tma_store_takes(BF16, 4097, true));
/// assert!(!tma_store_takes(BF16, 7, true));
/// assert!(!tma_store_takes(BF16, 4097, false));
/// ```
pub const fn tma_store_takes(element: ElementType, elements: u64, whole_chunks: bool) -> bool {
    if whole_chunks {
        elements * element.size_bytes() as u64 >= 16
    } else {
        tma_store_rows_exact(element, elements)
    }
}

/// Whether a TMA store writes rows of `elements` values of `element`
/// exactly: rows of whole 16-byte chunks. The H100 writes a row's last
/// partial chunk whole (a TMA store of a 291-column bf16 D wrote zeros into
/// columns 291-295 of its 296-element rows), so an output whose rows are
/// not whole chunks cannot be stored with TMA without writing past them.
///
/// ```
/// use cutlet::gemm::tma_store_rows_exact;
/// use cutlet::numeric::ElementType::{BF16, F32};
///
/// assert!(tma_store_rows_exact(BF16, 4096));
/// assert!(!tma_store_rows_exact(BF16, 4097));
/// assert!(tma_store_rows_exact(F32, 132));
/// ```
pub const fn tma_store_rows_exact(element: ElementType, elements: u64) -> bool {
    (elements * element.size_bytes() as u64).is_multiple_of(16)
}
