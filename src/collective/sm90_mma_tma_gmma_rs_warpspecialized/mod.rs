//! [`Sm90TmaGmmaRsWarpSpecialized`]: the SM90 mainloop whose wgmmas read A
//! from registers (CUTLASS's `MainloopSm90TmaGmmaRmemAWarpSpecialized`,
//! `sm90_mma_tma_gmma_rs_warpspecialized.hpp`), for a tf32 A that is
//! M-major: wgmma transposes only 16-bit operands, so such an A cannot be
//! read through a descriptor.
//!
//! Everything but the reading of A is the shared SM90 mainloop's
//! ([`Sm90TmaGmmaWarpSpecialized`]: the TMA ring, the producer, the
//! consumer's k-loop and wgmmas); this folder adds the reader of A,
//! [`RegisterA`]: a k-tile's A fragments are loaded from the stage
//! ([`a_fragment`]) into one of two register sets, which consecutive
//! k-tiles take turns with (the consumer loop is unrolled twice), so that
//! one k-tile of wgmma stays in flight as with a descriptor: the set a
//! k-tile overwrites was read by the k-tile before the previous one, which
//! has completed.

mod a_fragment;
mod contract;

use a_fragment::AFragment;

use crate::atom::GmmaA;
use crate::collective::sm90_mma_tma_gmma_ss_warpspecialized::pipeline_error;
use crate::collective::sm90_mma_tma_gmma_ss_warpspecialized::AOperand;
use crate::collective::{MainloopSpec, TileContext};
use crate::collective::{Sm90MainloopIo, Sm90TmaGmmaWarpSpecialized};
use crate::gemm::{ClusterShape, GemmOperand};
use crate::ptx::{Kernel, PtxError, Reg, RegClass};

/// The SM90 TMA + wgmma mainloop with A through registers (the `_RS`
/// wgmma): the shared mainloop and its reader of A (`RegisterA`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Sm90TmaGmmaRsWarpSpecialized {
    core: Sm90TmaGmmaWarpSpecialized,
}

impl Sm90TmaGmmaRsWarpSpecialized {
    /// The mainloop of `ctx` and `spec` in a cluster of `cluster` CTAs,
    /// read by `consumers` warpgroups that each multiply `wg_rows` rows
    /// (as [`Sm90TmaGmmaWarpSpecialized::new`]).
    pub fn new(
        ctx: &TileContext,
        spec: &MainloopSpec,
        cluster: ClusterShape,
        consumers: u32,
        wg_rows: u32,
    ) -> Self {
        Sm90TmaGmmaRsWarpSpecialized {
            core: Sm90TmaGmmaWarpSpecialized::new(ctx, spec, cluster, consumers, wg_rows),
        }
    }

    /// The A fragment plan: where each consumer thread reads its values in
    /// a stage's A tile.
    fn a_fragment(&self) -> crate::Result<AFragment> {
        let m = &self.core;
        let atom = m.atom().ok_or_else(|| {
            crate::Error::invalid_argument(
                "wgmma atom",
                format!("{:?}", m.ctx.types),
                "types with a wgmma instruction",
            )
        })?;
        AFragment::new(
            atom,
            &m.operand(GemmOperand::A),
            m.ctx.types.a,
            m.wg_rows / 64,
        )
    }

    /// The reader of A for the consumer's k-tiles.
    fn reader(&self) -> Result<RegisterA, PtxError> {
        Ok(RegisterA {
            plan: self.a_fragment().map_err(pipeline_error)?,
        })
    }
}

/// A loaded from its stage tile into registers (the `_RS` wgmma), two
/// register sets taken in turn by consecutive k-tiles.
#[derive(Clone, Debug)]
pub(crate) struct RegisterA {
    plan: AFragment,
}

/// A work tile's A fragments: this thread's value offsets in a stage's A
/// tile, and two sets of the registers of each k-step.
pub(crate) struct AFragmentRegs {
    offsets: Vec<Reg>,
    regs: [Vec<Vec<Reg>>; 2],
}

impl AOperand for RegisterA {
    type Tile = AFragmentRegs;
    type KTile<'t> = &'t [Vec<Reg>];

    fn sets(&self) -> usize {
        2
    }

    /// This thread's byte offsets of its A fragment values in a stage's A
    /// tile, and two sets of fragment registers of every k-step. Emitted
    /// per work tile: the offsets cost a few hundred instructions a tile,
    /// where keeping them across the epilogue would hold one more register
    /// per fragment value beside the accumulators.
    fn emit_tile_setup(
        &self,
        _m: &Sm90TmaGmmaWarpSpecialized,
        k: &mut Kernel,
        io: &Sm90MainloopIo,
    ) -> Result<AFragmentRegs, PtxError> {
        let plan = &self.plan;
        let offsets = plan.emit_offsets(k, io.wg_thread, io.a_rows_offset);
        let mut set = || {
            (0..plan.k_steps())
                .map(|_| k.regs(RegClass::B32, plan.regs_per_k_step()))
                .collect()
        };
        let regs = [set(), set()];
        Ok(AFragmentRegs { offsets, regs })
    }

    /// Each value's address in this stage (A's tile opens it), then every
    /// k-step's fragments loaded into register set `set`.
    fn emit_k_tile<'t>(
        &'t self,
        _m: &Sm90TmaGmmaWarpSpecialized,
        k: &mut Kernel,
        _io: &Sm90MainloopIo,
        tile: &'t AFragmentRegs,
        stage: Reg,
        set: usize,
    ) -> Result<&'t [Vec<Reg>], PtxError> {
        let addresses: Vec<Reg> = tile
            .offsets
            .iter()
            .map(|&offset| {
                let address = k.reg(RegClass::B32);
                k.push(format!("add.u32 {address}, {stage}, {offset};"));
                address
            })
            .collect();
        let regs = &tile.regs[set];
        for (kk, step) in regs.iter().enumerate() {
            self.plan.emit_loads(k, &addresses, kk as u32, step);
        }
        Ok(regs)
    }

    /// The k-step's registers of 64-row block `mb`.
    fn operand<'a>(
        &self,
        m: &Sm90TmaGmmaWarpSpecialized,
        _k: &mut Kernel,
        regs: &'a &[Vec<Reg>],
        kk: u32,
        mb: u32,
    ) -> Result<GmmaA<'a>, PtxError> {
        let blocks = (m.wg_rows / 64) as usize;
        let per = self.plan.regs_per_k_step() / blocks;
        Ok(GmmaA::Regs(&regs[kk as usize][mb as usize * per..][..per]))
    }

    fn transposes(&self, _m: &Sm90TmaGmmaWarpSpecialized) -> bool {
        false
    }
}
