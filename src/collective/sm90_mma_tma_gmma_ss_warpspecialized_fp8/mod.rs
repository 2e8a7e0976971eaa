//! The FP8 mainloop's accumulation (CUTLASS's `GmmaFP8Accumulation`,
//! `fp8_accumulation.hpp`, in `MainloopSm90TmaGmmaWarpSpecializedFP8`).
//!
//! Hopper's FP8 wgmma adds its products into the accumulators with about
//! 22 bits of mantissa, so a long K loses the low bits of every partial
//! sum. The FP8 mainloop
//! ([`MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8`](crate::collective::MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8))
//! is the SS mainloop
//! ([`Sm90TmaGmmaWarpSpecialized`](crate::collective::Sm90TmaGmmaWarpSpecialized))
//! with this part in its consumers: the wgmmas of one promotion interval
//! write a second set of accumulator registers (the first k-step of an
//! interval with scale-d 0, so they are never zeroed), and at the end of
//! the interval, or of the work unit, the consumer waits for its wgmmas and
//! adds that set into the f32 accumulators with `add.f32`, whose rounding
//! is IEEE's.
//!
//! The interval counts wgmma k-steps of 32 elements, as CUTLASS's
//! `mma_promotion_interval` does (default 4, every 128 of K); it is a whole
//! number of k-tiles, so that a promotion falls between two k-tiles. The
//! wait costs the consumer the overlap of one k-tile's wgmmas with the
//! next k-tile's issue. Where it promotes after every k-tile (the
//! default) on the cooperative schedule, the consumers keep two partial
//! sets that take turns instead, adding one while the next k-tile's wgmmas
//! write the other (`promotion_in_turns.rs` in the SS mainloop's folder):
//! the same sums in the same order.
//!
//! With block scales ([`ScaleGranularity::Block`](crate::gemm::ScaleGranularity::Block),
//! `block_scales.rs`) the promotion multiplies each partial sum by its
//! row's and column block's scales of the k-tile.

mod block_scales;

pub use block_scales::BlockScaleIo;
pub(crate) use block_scales::{emit_block_scale_setup, TileScales};

use crate::atom::emit_wgmma_wait;
use crate::collective::Accumulators;
use crate::ptx::{Kernel, PtxError, Reg, RegClass};

/// When a consumer promotes its partial sums: every `k_tiles` k-tiles of a
/// work unit, and after the unit's last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Promotion {
    k_tiles: u32,
}

impl Promotion {
    /// The promotion every `interval` wgmma k-steps, with `steps` k-steps
    /// a k-tile (the rules make `interval` a positive multiple of `steps`).
    pub(crate) fn new(interval: u32, steps: u32) -> Promotion {
        Promotion {
            k_tiles: (interval / steps.max(1)).max(1),
        }
    }

    /// Whether it promotes after every k-tile (an interval of one k-tile's
    /// k-steps: the default, 4 k-steps of a 128-deep k-tile).
    pub(crate) fn every_k_tile(&self) -> bool {
        self.k_tiles == 1
    }

    /// A predicate, true where k-tile `kt` (`.b32`) of a unit adds into
    /// the partial sums and false where it starts an interval (its first
    /// k-step overwrites them: the wgmmas' scale-d).
    pub(crate) fn emit_adds(&self, k: &mut Kernel, kt: Reg) -> Reg {
        let p = k.reg(RegClass::Pred);
        if self.k_tiles == 1 {
            k.push(format!("setp.ne.u32 {p}, 0, 0;"));
        } else {
            let r = k.reg(RegClass::B32);
            k.rem_u32_by(r, kt, self.k_tiles);
            k.push(format!("setp.ne.u32 {p}, {r}, 0;"));
        }
        p
    }

    /// After k-tile `kt` of `k_tiles` (`.b32`) was committed: where it
    /// ends an interval or the unit, waits for every wgmma of the
    /// consumer and adds `partial` into `acc`, times the k-tile's block
    /// scales where `scales` holds them.
    pub(crate) fn emit_promote(
        &self,
        k: &mut Kernel,
        kt: Reg,
        k_tiles: Reg,
        acc: &Accumulators,
        partial: &Accumulators,
        scales: Option<&TileScales>,
    ) -> Result<(), PtxError> {
        let skip = if self.k_tiles > 1 {
            let skip = k.new_label("promote_skip")?;
            let (next, r, p) = (
                k.reg(RegClass::B32),
                k.reg(RegClass::B32),
                k.reg(RegClass::Pred),
            );
            k.push(format!("add.u32 {next}, {kt}, 1;"));
            k.rem_u32_by(r, next, self.k_tiles);
            k.push(format!("setp.ne.u32 {p}, {r}, 0;"));
            k.push(format!("setp.ne.and.u32 {p}, {next}, {k_tiles}, {p};"));
            k.push(format!("@{p} bra.uni {};", skip.name()));
            Some(skip)
        } else {
            None
        };
        emit_wgmma_wait(k, 0).map_err(|e| PtxError::UnsupportedSpec {
            kernel: "gemm",
            name: String::from("sm90 fp8 promotion"),
            reason: e.to_string(),
        })?;
        match scales {
            Some(scales) => scales.emit_promote(k, acc, partial),
            None => {
                for (a, t) in acc.regs().iter().zip(partial.regs()) {
                    k.push(format!("add.f32 {a}, {a}, {t};"));
                }
            }
        }
        if let Some(skip) = skip {
            k.place_label(&skip);
        }
        Ok(())
    }
}
