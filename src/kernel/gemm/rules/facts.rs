//! [`ConfigFacts`]: what the rules read of a configuration, and the
//! figures every arch's rules share (the mma atom's shape, a thread's
//! register budget, the swizzle rows).

use crate::arch::ArchKind;
use crate::atom::{MmaAtom, SM80_MMA};
use crate::collective::{staging_bytes, tile_stage_bytes};
use crate::collective::{CStaging, EpiloguePolicy, MainloopSpec};
use crate::gemm::{ClusterShape, GemmMajors, GemmTypes};
use crate::numeric::ElementType;

use super::super::{KernelSchedule, TileSchedulerPolicy};

/// Every fact of a GEMM configuration the rules read: a
/// [`GemmSpec`](crate::kernel::gemm::GemmSpec) with its epilogue's policy but without
/// its fusion expression, `Copy` so that a `const` can build it from a
/// configuration type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConfigFacts {
    /// The architecture the PTX targets.
    pub arch: ArchKind,
    /// Element types of A, B, C, D and the accumulator.
    pub types: GemmTypes,
    /// Contiguous dimensions of A, B, C and D.
    pub majors: GemmMajors,
    /// CTA tile (BM, BN, BK).
    pub tile: [u32; 3],
    /// Thread-block cluster.
    pub cluster: ClusterShape,
    /// The mainloop's policy and warp layout.
    pub mainloop: MainloopSpec,
    /// The epilogue's policy.
    pub epilogue: EpiloguePolicy,
    /// The tile scheduler.
    pub scheduler: TileSchedulerPolicy,
    /// The kernel schedule.
    pub schedule: KernelSchedule,
}

/// The mma atom's shape (M, N, K) for A's element type, read from the
/// first atom of the SM80 table that takes A's type (A and B of one type):
/// 16x8x16, or 16x8x8 for tf32 (`f32` data on the tensor cores). A type
/// without an atom gets 16x8x16 (the rules refuse it before using a shape).
pub const fn atom_shape(a: ElementType) -> [u32; 3] {
    let mut i = 0;
    while i < SM80_MMA.len() {
        let atom = SM80_MMA[i];
        if let Some(found) = MmaAtom::for_types(a, a, atom.types().c) {
            return shape_u32(found);
        }
        i += 1;
    }
    [16, 8, 16]
}

/// An atom's (M, N, K) as `u32`.
pub(super) const fn shape_u32(atom: MmaAtom) -> [u32; 3] {
    let [m, n, k] = atom.shape_mnk();
    [m as u32, n as u32, k as u32]
}

/// Registers a thread may hold when `threads` run in one block: 255, or
/// less where 65536 registers shared by the block are fewer (allocated in
/// units of 8 per thread).
pub const fn register_budget(threads: u32) -> u32 {
    let threads = if threads == 0 { 1 } else { threads };
    let per = 65536 / threads / 8 * 8;
    if per > 255 {
        255
    } else {
        per
    }
}

impl ConfigFacts {
    /// Threads per block: 32 per warp, or 384 for a warp-specialized
    /// schedule (a producer warpgroup and two consumer warpgroups).
    pub const fn block_threads(&self) -> u32 {
        if self.schedule.warp_specialized() {
            return 384;
        }
        self.mainloop.warps[0] * self.mainloop.warps[1] * self.mainloop.warps[2] * 32
    }

    /// Bytes of one mainloop stage: the A tile, then the B tile, each
    /// rounded up to the 1024-byte alignment of the swizzle atoms.
    pub const fn stage_bytes(&self) -> u32 {
        let [bm, bn, bk] = self.tile;
        tile_stage_bytes(bm, bk, self.types.a.size_bytes())
            + tile_stage_bytes(bn, bk, self.types.b.size_bytes())
    }

    /// Bytes of the epilogue's staging tile: the f32 accumulators of the
    /// whole CTA tile, rows padded against bank conflicts.
    pub const fn epilogue_bytes(&self) -> u32 {
        match self.epilogue {
            EpiloguePolicy::Sm80Staged => staging_bytes(self.tile, self.majors.d),
            EpiloguePolicy::Sm90NoSmem => 0,
            // D's buffers (`tma_epilogue_d_bytes`); C's as many again where
            // it has buffers of its own, and C's four barriers where it is
            // loaded with TMA (`c_staging`).
            EpiloguePolicy::Sm90TmaWarpSpecialized => {
                let d = self.tma_epilogue_d_bytes();
                match self.c_staging() {
                    CStaging::OwnBuffers => 2 * d + 32,
                    CStaging::InDBuffers => d + 32,
                    CStaging::Global => d,
                }
            }
        }
    }

    /// Where the SM90 TMA-store epilogue stages C ([`CStaging`]): a C of
    /// D's type is loaded with TMA, into buffers of its own where they fit
    /// in the shared memory beside the stages, else into D's buffers (C's
    /// four barriers, 32 bytes, beside them), so that C never costs the
    /// mainloop a stage; else it is read from global memory.
    ///
    /// ```
    /// use cutlet::gemm::{GemmMajors, GemmTypes};
    /// use cutlet::collective::CStaging;
    /// use cutlet::kernel::gemm::{sm90_spec, KernelSchedule, OperandMajor, OutputMajor};
    /// use cutlet::numeric::ElementType::{BF16, F32};
    ///
    /// let (k, n) = (OperandMajor::K, OutputMajor::N);
    /// let spec = |d, schedule, tile| {
    ///     sm90_spec(GemmTypes::new(BF16, BF16, d, d, F32), GemmMajors::new(k, k, n), schedule, tile, [1, 1]).unwrap()
    /// };
    /// // 4 stages of 48 KiB leave room for C's 16 KiB of buffers.
    /// let cooperative = spec(BF16, KernelSchedule::TmaWarpSpecializedCooperative, [128, 256, 64]);
    /// assert_eq!(cooperative.mainloop.stages(), 4);
    /// assert_eq!(cooperative.facts().c_staging(), CStaging::OwnBuffers);
    /// // 6 stages of 32 KiB and D's 32 KiB leave none for C's 32 KiB.
    /// let pingpong = spec(BF16, KernelSchedule::TmaWarpSpecializedPingpong, [128, 128, 64]);
    /// assert_eq!(pingpong.mainloop.stages(), 6);
    /// assert_eq!(pingpong.facts().c_staging(), CStaging::InDBuffers);
    /// // An f32 D's 32 KiB of buffers and 4 stages leave room for C's barriers only.
    /// let f32_out = spec(F32, KernelSchedule::TmaWarpSpecializedCooperative, [128, 256, 64]);
    /// assert_eq!(f32_out.mainloop.stages(), 4);
    /// assert_eq!(f32_out.facts().c_staging(), CStaging::InDBuffers);
    /// ```
    pub const fn c_staging(&self) -> CStaging {
        if !matches!(self.epilogue, EpiloguePolicy::Sm90TmaWarpSpecialized)
            || self.types.c as u32 != self.types.d as u32
        {
            return CStaging::Global;
        }
        let d = self.tma_epilogue_d_bytes();
        // Everything but the epilogue's region, and C's four barriers.
        let rest = self.warp_specialized_bytes_beside_epilogue() + 32;
        let limit = self.arch.max_dynamic_shared_bytes();
        // A scheduler that splits K: C is loaded by the unit that stores
        // the tile, in the store itself (C's own buffers would be filled
        // during every unit's mainloop, and a unit that does not store
        // would leave them loaded).
        let splits_k = matches!(
            self.scheduler,
            TileSchedulerPolicy::SplitK { .. } | TileSchedulerPolicy::StreamK
        );
        if rest + 2 * d <= limit && !splits_k {
            CStaging::OwnBuffers
        } else if rest + d <= limit {
            CStaging::InDBuffers
        } else {
            CStaging::Global
        }
    }

    /// A warp-specialized kernel's shared memory but the epilogue's region:
    /// the stages and their `full` and `empty` barriers (rounded up to 1024
    /// bytes), the ping-pong kernel's ordered barrier (4 mbarriers), the
    /// sliced-K kernel's exchange of partial tiles
    /// ([`KernelSchedule::exchange_bytes`]), and 1024 bytes to align the
    /// start.
    const fn warp_specialized_bytes_beside_epilogue(&self) -> u32 {
        let stages = self.mainloop.stages();
        let ordered = match self.schedule {
            KernelSchedule::TmaWarpSpecializedPingpong => 32,
            _ => 0,
        };
        let ring = (stages * self.stage_bytes() + 16 * stages).div_ceil(1024) * 1024;
        ring + ordered + self.schedule.exchange_bytes(self.tile) + 1024
    }

    /// Bytes of D's subtile buffers in the TMA-store epilogue: two 32-column
    /// buffers per consumer warpgroup, each its rows (BM/2 cooperative, BM
    /// ping-pong).
    const fn tma_epilogue_d_bytes(&self) -> u32 {
        let rows = self.tile[0] / self.schedule.tile_warpgroups();
        4 * rows * 32 * self.types.d.size_bytes()
    }

    /// Dynamic shared memory of the kernel: the larger of the mainloop's
    /// stages and the epilogue's staging tile (which reuses them).
    ///
    /// A warp-specialized kernel runs its parts at once: the stages and
    /// their `full` and `empty` barriers (rounded up to 1024 bytes), the
    /// epilogue's buffers, the ping-pong kernel's ordered barrier (4
    /// mbarriers), and 1024 bytes to align the start.
    pub const fn shared_mem_bytes(&self) -> u32 {
        if self.schedule.warp_specialized() {
            return self.warp_specialized_bytes_beside_epilogue() + self.epilogue_bytes();
        }
        if self.mainloop.policy.is_gemv() {
            // The warps' partial tiles, then the epilogue's staging tile;
            // for the ring, then (16-byte aligned) each warp's ring of
            // `unroll` k-steps: 16 bytes a lane of each row of A and column
            // of B.
            let [bm, bn, _] = self.tile;
            let warps = self.mainloop.warps[2];
            let tiles = warps * bm * bn * 4 + self.epilogue_bytes();
            return match self.mainloop.policy {
                crate::collective::MainloopPolicy::MmaSyncGemvRing { unroll } => {
                    tiles.next_multiple_of(16) + warps * unroll * (bm / 8 + bn / 8) * 32 * 16
                }
                _ => tiles,
            };
        }
        let mainloop = self.mainloop.stages() * self.stage_bytes();
        let epilogue = self.epilogue_bytes();
        if mainloop > epilogue {
            mainloop
        } else {
            epilogue
        }
    }

    /// The tensor-core atom of the element types, if the table has one.
    pub const fn atom(&self) -> Option<MmaAtom> {
        MmaAtom::for_types(self.types.a, self.types.b, self.types.acc)
    }

    /// Registers per thread the accumulators and the double-buffered A and
    /// B fragments of one k-step take (the floor of the kernel's register
    /// use; addressing comes on top), as the atom gives them per
    /// instruction; 0 for types without an atom.
    pub const fn fragment_registers(&self) -> u32 {
        let Some(atom) = self.atom() else {
            return 0;
        };
        let (wtm, wtn) = self.warp_tile();
        let [am, an, _] = shape_u32(atom);
        let regs = atom.regs();
        let (m_atoms, n_atoms) = (wtm / am, wtn / an);
        let acc = m_atoms * n_atoms * regs.c as u32;
        // Per k-step: the A registers of every atom along M, the B
        // registers of every atom along N, twice (double buffer).
        acc + 2 * (m_atoms * regs.a as u32 + n_atoms * regs.b as u32)
    }

    /// The warp tile (M, N).
    pub const fn warp_tile(&self) -> (u32, u32) {
        let [wm, wn, _] = self.mainloop.warps;
        let wm = if wm == 0 { 1 } else { wm };
        let wn = if wn == 0 { 1 } else { wn };
        (self.tile[0] / wm, self.tile[1] / wn)
    }
}

/// Whether a shared-memory row of `bytes` is one the swizzle atoms tile:
/// 32 or 64 bytes (`Sw<1,4,3>`, `Sw<2,4,3>`) or a multiple of 128
/// (`Sw<3,4,3>`, one atom per 128 bytes).
pub const fn swizzle_row_ok(bytes: u32) -> bool {
    bytes == 32 || bytes == 64 || (bytes > 0 && bytes.is_multiple_of(128))
}
