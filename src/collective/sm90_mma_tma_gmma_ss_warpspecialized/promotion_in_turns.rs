//! The FP8 mainloop's cooperative consumers where they promote after every
//! k-tile (CUTLASS's default interval: 4 wgmma k-steps of 32, one k-tile of
//! 128): two partial-sum sets that take turns, so that one k-tile's wgmmas
//! run while the previous k-tile's partial sums are added into the
//! accumulators.
//!
//! With one partial set (`Promotion::emit_promote`) a consumer waits for
//! every wgmma of a k-tile before it adds that k-tile's sums, so its
//! wgmmas stop from the k-tile's last one until the next k-tile's first is
//! issued, at every k-tile. Here the k-tiles write the two sets in turn
//! (each k-tile's first k-step with scale-d 0, so the sets are never
//! zeroed); once a k-tile is committed the consumer waits for all wgmmas
//! but its own (`wgmma.wait_group 1`: the k-tile before it is done), adds
//! the other set into the accumulators and releases that k-tile's stage.
//!
//! The loop runs rounds of [`IN_TURNS_ROUND`] k-tiles, unrolled, so that
//! each set is a fixed set of registers, and waits for every wgmma at the
//! end of a round: ptxas 12.9 proves a set's wgmmas complete after
//! `wait_group 1` only where they were committed earlier in the same
//! stretch of code. Reading a set committed before the loop's back edge
//! made it serialize every wgmma of the kernel (C7514). So the tensor cores
//! wait once a round instead of once a k-tile. A round left early (K
//! tiles not a multiple of the round) waits and adds the set in flight.
//! The sums are added in the same order as with one set: the same bits.
//! With block scales each promotion multiplies the set by its k-tile's
//! scales (`TileScales::emit_promote`); the step that makes them current
//! and loads the next block's runs just before it, so a load still has a
//! k-tile of wgmmas to land.
//!
//! Each consumer holds three sets of accumulators in the mainloop (the
//! epilogue only the first): at most [`IN_TURNS_MAX_REGISTERS`] together,
//! a 64 x 128 warpgroup tile (64 registers a set, the FP8 template's
//! cooperative 128x128 tiles). Wider tiles promote with one set.

use super::{pipeline_error, AOperand, KTileScale, Sm90MainloopIo, Sm90TmaGmmaWarpSpecialized};
use crate::atom::emit_wgmma_wait;
use crate::collective::{Accumulators, ConsumerOverlap};
use crate::pipeline::{Pipeline, TmaAsyncState};
use crate::ptx::{Kernel, PtxError, RegClass};

/// The most accumulator registers of all three sets for which consumers
/// promote in turns: three sets of 64 (a 64 x 128 warpgroup tile). ptxas
/// 12.9 assembles the FP8 128x128 kernels with them without spills, where
/// the mainloop's other registers and the 232 a consumer holds leave room
/// (`tests/gemm_fp8_ptxas.rs`).
pub(super) const IN_TURNS_MAX_REGISTERS: usize = 192;

/// K-tiles of one round of the loop (see the module's docs). H200,
/// 2026-11-30, e4m3 -> bf16 promoting, cutlet / cuBLASLt in one call,
/// rounds of 4 against 8: 8192³ 0.966-0.972 against 0.985, 4096³
/// 1.000-1.001 against 1.007-1.008, 8192x8192x1024 0.983 against 0.991,
/// 4096x14336x4096 0.975-0.981 against 0.977-0.981 (one set: 0.866-0.919).
pub(super) const IN_TURNS_ROUND: usize = 8;

impl Sm90TmaGmmaWarpSpecialized {
    /// Whether this mainloop's consumers promote in turns (see the module's
    /// docs): the FP8 policy promoting after every k-tile (with block
    /// scales or not), on the cooperative schedule (its consumers do not
    /// peel their first k-tile), A read from shared memory, three
    /// accumulator sets in [`IN_TURNS_MAX_REGISTERS`].
    pub(super) fn promotes_in_turns<R: AOperand>(&self, io: &Sm90MainloopIo, reader: &R) -> bool {
        self.promotion().is_some_and(|p| p.every_k_tile())
            && !self.peels_first_k_tile()
            && reader.sets() == 1
            && 3 * io.acc.regs().len() <= IN_TURNS_MAX_REGISTERS
    }

    /// Emits one work tile's MMAs by a cooperative consumer warpgroup that
    /// promotes in turns (see the module's docs) and returns its
    /// accumulators (`io.acc`), with `overlap` emitted once, after the
    /// last promotion (no wgmma in flight, as after the one-set
    /// promotion).
    pub(super) fn emit_mma_promoting_in_turns<R: AOperand>(
        &self,
        k: &mut Kernel,
        io: &Sm90MainloopIo,
        reader: &R,
        overlap: Option<&mut ConsumerOverlap<'_>>,
    ) -> Result<Accumulators, PtxError> {
        let err = pipeline_error;
        let acc = io.acc.clone();
        self.emit_zero_accumulators(k, io);
        let sets = [
            self.allocate_accumulators(k)?,
            self.allocate_accumulators(k)?,
        ];
        let a_tile = reader.emit_tile_setup(self, k, io)?;
        let scales = self.emit_tile_scales(k, io)?;
        let c = io.consumer;
        let prev = TmaAsyncState {
            stage: k.reg(RegClass::B32),
            full: k.reg(RegClass::B32),
            phase: c.phase,
        };
        let (kt, p, overwrite) = (
            k.reg(RegClass::B32),
            k.reg(RegClass::Pred),
            k.reg(RegClass::Pred),
        );
        // Every k-tile's first k-step overwrites its set (scale-d 0).
        k.push(format!("setp.ne.u32 {overwrite}, 0, 0;"));
        // The promotion of k-tile kt - 1's set (in the loop kt is the
        // k-tile just issued, past it the count issued): added, or with
        // block scales multiplied by that k-tile's scales, taken from the
        // registers loaded a k-tile ahead, which then load the next
        // block's.
        let promote = |k: &mut Kernel, set: &Accumulators| match &scales {
            Some((scales, first)) => {
                let (t, kb) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
                k.push(format!("sub.u32 {t}, {kt}, 1;"));
                k.push(format!("add.u32 {kb}, {t}, {first};"));
                scales.emit_step(k, t, kb, io.k_tiles);
                scales.emit_promote(k, &acc, set);
            }
            None => {
                for (a, t) in acc.regs().iter().zip(set.regs()) {
                    k.push(format!("add.f32 {a}, {a}, {t};"));
                }
            }
        };
        let top = k.new_label("consumer_k")?;
        // Exits before each k-tile of a round: before k-tile j > 0 the
        // k-tile j - 1's wgmmas are in flight.
        let exits = (0..IN_TURNS_ROUND)
            .map(|j| k.new_label(&format!("consumer_k_exit_{j}")))
            .collect::<Result<Vec<_>, _>>()?;
        let joined = k.new_label("consumer_k_joined")?;
        k.push(format!("mov.u32 {kt}, 0;"));
        k.place_label(&top);
        for (j, exit) in exits.iter().enumerate() {
            k.push(format!("setp.ge.u32 {p}, {kt}, {};", io.k_tiles));
            k.push(format!("@{p} bra {};", exit.name()));
            io.pipeline.consumer_wait(k, &c).map_err(err)?;
            self.emit_k_tile(
                k,
                io,
                &sets[j % 2],
                reader,
                &a_tile,
                0,
                KTileScale::ZeroFirst(overwrite),
            )?;
            if j > 0 {
                // At most this k-tile in flight: the previous one's sums
                // are whole and its stage read.
                emit_wgmma_wait(k, 1).map_err(err)?;
                promote(k, &sets[(j - 1) % 2]);
                self.emit_release(k, io, &prev)?;
            }
            k.push(format!("mov.u32 {}, {};", prev.stage, c.stage));
            k.push(format!("mov.u32 {}, {};", prev.full, c.full));
            io.pipeline.advance(k, &c).map_err(err)?;
            k.push(format!("add.u32 {kt}, {kt}, 1;"));
        }
        // The round's last k-tile: no wgmma in flight past the round.
        emit_wgmma_wait(k, 0).map_err(err)?;
        promote(k, &sets[(exits.len() - 1) % 2]);
        self.emit_release(k, io, &prev)?;
        k.push(format!("bra.uni {};", top.name()));
        for (j, exit) in exits.iter().enumerate() {
            k.place_label(exit);
            if j > 0 {
                emit_wgmma_wait(k, 0).map_err(err)?;
                promote(k, &sets[(j - 1) % 2]);
                self.emit_release(k, io, &prev)?;
            }
            k.push(format!("bra.uni {};", joined.name()));
        }
        k.place_label(&joined);
        // No wgmma in flight (as after the one-set promotion): the kernel's
        // overlapping work runs here. K = 0 leaves the accumulators zero.
        if let Some(overlap) = overlap {
            overlap(k)?;
        }
        Ok(acc)
    }
}
