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
    /// The map of the operand's last tile along the box's strided
    /// dimension (its [`ParamRole::EdgeTensorMap`](super::ParamRole::EdgeTensorMap)
    /// parameter): the box's strided extent stops at the rows that tile
    /// holds ([`edge_rows`](Self::edge_rows)). A K-major operand whose rows
    /// do not fill its last tile (M = 160 under 128-row tiles: 32 rows in
    /// the second) loads those rows alone instead of a box whose rows past
    /// M the TMA fills with zeros one by one, which costs more than loading
    /// whole rows (H200, 2026-11-29, ping-pong 128x128 tiles over N = 8192,
    /// K = 4096: 41.6 µs at M = 160 with whole boxes against 27.4 at
    /// M = 256, and 26.5 at M = 160 through this map). The kernel loads
    /// its last tile through this map, counts its bytes at run time and
    /// never stores the rows past M.
    pub clip_rows: bool,
}

impl TensorMapRequest {
    /// The strided extent of a box of at most `box_rows` rows over `rows`
    /// rows: `rows` rounded up to a multiple of 8 (the swizzle's repeat),
    /// at least 8 and at most `box_rows` ([`edge_rows`](Self::edge_rows)
    /// takes it over the rows of an operand's last tile).
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

    /// The strided extent of a [`clip_rows`](Self::clip_rows) box over an
    /// operand of `rows` rows in tiles of `box_rows`: the rows of the last
    /// tile, `(rows - 1) % box_rows + 1`, as [`clipped_rows`](Self::clipped_rows)
    /// rounds them.
    ///
    /// ```
    /// use cutlet::gemm::TensorMapRequest;
    ///
    /// // M = 160 in 128-row tiles: the second holds 32 rows.
    /// assert_eq!(TensorMapRequest::edge_rows(128, 160), 32);
    /// assert_eq!(TensorMapRequest::edge_rows(128, 129), 8);
    /// assert_eq!(TensorMapRequest::edge_rows(128, 256), 128);
    /// assert_eq!(TensorMapRequest::edge_rows(176, 11008), 96);
    /// assert_eq!(TensorMapRequest::edge_rows(128, 80), 80);
    /// assert_eq!(TensorMapRequest::edge_rows(128, 0), 8);
    /// ```
    pub const fn edge_rows(box_rows: u32, rows: u32) -> u32 {
        if rows == 0 || box_rows == 0 {
            return Self::clipped_rows(box_rows, rows);
        }
        Self::clipped_rows(box_rows, (rows - 1) % box_rows + 1)
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
