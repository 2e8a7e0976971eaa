//! [`TileContext`]: what every collective of one kernel shares.

use crate::arch::ArchKind;
use crate::gemm::{GemmMajors, GemmTypes};

/// What the collectives of one kernel share: the element types and majors
/// of the GEMM, the CTA tile and the warps that run it. The kernel layer
/// hands it to each collective beside that collective's own spec
/// ([`MainloopSpec`](super::MainloopSpec), [`EpilogueSpec`](super::EpilogueSpec)).
///
/// ```
/// use cutlet::arch::ArchKind;
/// use cutlet::collective::TileContext;
/// use cutlet::gemm::{GemmMajors, GemmTypes, OperandMajor, OutputMajor};
/// use cutlet::numeric::ElementType::{F16, F32};
///
/// let ctx = TileContext {
///     arch: ArchKind::Sm80,
///     types: GemmTypes::new(F16, F16, F16, F16, F32),
///     majors: GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N),
///     tile: [128, 128, 32],
///     warps: [2, 2, 1],
/// };
/// assert_eq!(ctx.block_threads(), 128);
/// assert_eq!(ctx.warp_tile(), (64, 64));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TileContext {
    /// The architecture the PTX targets.
    pub arch: ArchKind,
    /// Element types of A, B, C, D and the accumulator.
    pub types: GemmTypes,
    /// Contiguous dimensions of A, B, C and D.
    pub majors: GemmMajors,
    /// CTA tile (BM, BN, BK).
    pub tile: [u32; 3],
    /// Warps along (M, N, K).
    pub warps: [u32; 3],
}

impl TileContext {
    /// Threads of the block: 32 per warp.
    pub const fn block_threads(&self) -> u32 {
        self.warps[0] * self.warps[1] * self.warps[2] * 32
    }

    /// The warp tile (M, N): the CTA tile over the warps.
    pub const fn warp_tile(&self) -> (u32, u32) {
        (self.tile[0] / self.warps[0], self.tile[1] / self.warps[1])
    }
}
