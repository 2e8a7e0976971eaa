//! [`AOperand`]: how a consumer's wgmmas read A, the one part in which the
//! SM90 mainloops differ. The shared mainloop ([`Sm90TmaGmmaWarpSpecialized`])
//! runs the ring, the k-loop and the wgmmas; [`DescriptorA`] (this folder,
//! the `_SS` atom) reads A's stage tile through a shared-memory descriptor,
//! and the `_rs_` folder's reader loads A's fragments from the stage into
//! registers (the `_RS` atom).

use super::{Sm90MainloopIo, Sm90TmaGmmaWarpSpecialized};
use crate::atom::{GmmaA, GmmaDescriptor};
use crate::gemm::{GemmOperand, OperandMajor};
use crate::ptx::{Kernel, PtxError, Reg};

/// How a consumer's wgmmas read A.
///
/// Per work tile, in the consumer, the mainloop calls
/// [`emit_tile_setup`](Self::emit_tile_setup) once; per k-tile,
/// [`emit_k_tile`](Self::emit_k_tile) with the stage and the register set
/// (the k-loop is unrolled [`sets`](Self::sets) times, the k-tiles taking
/// the sets in turn); per wgmma (k-step `kk`, 64-row block `mb`),
/// [`operand`](Self::operand).
pub(crate) trait AOperand {
    /// What a work tile's setup leaves for its k-tiles.
    type Tile;
    /// What a k-tile's preparation leaves for its wgmmas.
    type KTile<'t>
    where
        Self: 't;

    /// Register sets the k-tiles take turns with (1: none).
    fn sets(&self) -> usize;

    /// Emits a work tile's setup.
    ///
    /// # Errors
    /// The assembler's error.
    fn emit_tile_setup(
        &self,
        m: &Sm90TmaGmmaWarpSpecialized,
        k: &mut Kernel,
        io: &Sm90MainloopIo,
    ) -> Result<Self::Tile, PtxError>;

    /// Emits a k-tile's preparation of A in the stage at `stage`, with
    /// register set `set`.
    ///
    /// # Errors
    /// The assembler's error.
    fn emit_k_tile<'t>(
        &'t self,
        m: &Sm90TmaGmmaWarpSpecialized,
        k: &mut Kernel,
        io: &Sm90MainloopIo,
        tile: &'t Self::Tile,
        stage: Reg,
        set: usize,
    ) -> Result<Self::KTile<'t>, PtxError>;

    /// Emits what wgmma `(kk, mb)` of a k-tile reads for A.
    ///
    /// # Errors
    /// The assembler's error.
    fn operand<'a>(
        &self,
        m: &Sm90TmaGmmaWarpSpecialized,
        k: &mut Kernel,
        ktile: &'a Self::KTile<'_>,
        kk: u32,
        mb: u32,
    ) -> Result<GmmaA<'a>, PtxError>;

    /// Whether the wgmma transposes A (an MN-major A read through a
    /// descriptor).
    fn transposes(&self, m: &Sm90TmaGmmaWarpSpecialized) -> bool;
}

/// A read through a descriptor of its stage tile (the `_SS` wgmma).
#[derive(Clone, Copy, Debug)]
pub(crate) struct DescriptorA;

impl AOperand for DescriptorA {
    type Tile = ();
    type KTile<'t> = [Reg; 2];

    fn sets(&self) -> usize {
        1
    }

    fn emit_tile_setup(
        &self,
        _m: &Sm90TmaGmmaWarpSpecialized,
        _k: &mut Kernel,
        _io: &Sm90MainloopIo,
    ) -> Result<(), PtxError> {
        Ok(())
    }

    /// The descriptor words of this consumer warpgroup's rows of A.
    fn emit_k_tile<'t>(
        &'t self,
        m: &Sm90TmaGmmaWarpSpecialized,
        k: &mut Kernel,
        io: &Sm90MainloopIo,
        _tile: &'t (),
        stage: Reg,
        _set: usize,
    ) -> Result<[Reg; 2], PtxError> {
        let a = m.operand(GemmOperand::A);
        m.emit_stage_descriptor(k, &a, m.ctx.types.a, stage, io.a_rows_offset)
    }

    /// Each slice's descriptor: the stage's low word plus the slice's
    /// offset (one 32-bit add), the high word as it is.
    fn operand<'a>(
        &self,
        m: &Sm90TmaGmmaWarpSpecialized,
        k: &mut Kernel,
        desc: &'a [Reg; 2],
        kk: u32,
        mb: u32,
    ) -> Result<GmmaA<'a>, PtxError> {
        let a = m.operand(GemmOperand::A);
        let offset = a
            .slice_offset(m.ctx.types.a, mb, kk)
            .map_err(super::pipeline_error)?;
        Ok(GmmaA::Desc(
            GmmaDescriptor::emit_at(k, *desc, offset).map_err(super::pipeline_error)?,
        ))
    }

    fn transposes(&self, m: &Sm90TmaGmmaWarpSpecialized) -> bool {
        m.operand(GemmOperand::A).major == OperandMajor::MN
    }
}
