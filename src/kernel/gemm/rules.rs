//! The one rule set of a GEMM configuration: [`check_config`], a `const fn` over
//! the configuration's lowered values ([`ConfigFacts`]).
//!
//! Both front doors call it: the typed [`Config::CHECK`] evaluates it at
//! compile time (a configuration type that breaks a rule does not compile,
//! and the compiler prints the rule's sentence with the values), and
//! [`GemmSpec::validate`] at run time (the builder's `Error::Config` carries
//! the same sentence). A configuration the rules accept is one the kernel
//! generator builds; a test sweeps tiles, warps, types and majors to hold
//! the generator to that.
//!
//! The rules refuse only what the hardware or the instruction cannot do:
//!
//! | rule | why |
//! |---|---|
//! | architecture `Sm80` or `Sm90` with the SM80 mainloop, `Sm70` with the SM70 one | the SM80 kernel is `mma.sync` + `cp.async` + `ldmatrix` (sm_80 and later); `Sm70`'s rules are `rules_sm70.rs`'s |
//! | cluster 1x1x1 | the multistage kernel schedule runs without clusters |
//! | A/B/accumulator types with a tensor-core instruction | f16/f16/f32, bf16/bf16/f32, f16/f16/f16, tf32/tf32/f32 |
//! | C and D of one type (f16, bf16, f32) and one major | the epilogue reads C where it writes D |
//! | at most 1024 threads (32 warps), one warp along K | a block's limit |
//! | warp tile a multiple of the atom (16 rows, 8 columns); BK a multiple of its K (16, or 8 for tf32) | the `mma.sync` shape |
//! | BK and MN-major extents of 32, 64 or a multiple of 128 bytes | the row of a swizzled shared-memory atom |
//! | accumulators and fragments fit a thread's registers at this block size | the register file: 255 per thread, 65536 per block |
//! | at least 2 stages, and shared memory within the architecture's opt-in limit | the pipeline; the shared memory |
//!
//! [`Config::CHECK`]: crate::device::gemm::Config::CHECK
//! [`GemmSpec::validate`]: super::GemmSpec::validate

use super::rules_sm90::check_sm90;
use super::{KernelSchedule, TileSchedulerPolicy};
use crate::arch::ArchKind;
use crate::atom::{MmaAtom, SM80_MMA};
use crate::collective::{staging_bytes, tile_stage_bytes};
use crate::collective::{CStaging, EpiloguePolicy, MainloopPolicy, MainloopSpec};
pub use crate::gemm::RuleMessage;
use crate::gemm::{GemmMajors, GemmTypes, OperandMajor};
use crate::numeric::ElementType;

/// Every fact of a GEMM configuration the rules read: a
/// [`GemmSpec`](super::GemmSpec) with its epilogue's policy but without
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
    /// Thread-block cluster (M, N, K).
    pub cluster: [u32; 3],
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
const fn shape_u32(atom: MmaAtom) -> [u32; 3] {
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
    /// use cutlet::collective::CStaging;
    /// use cutlet::kernel::gemm::{sm90_spec, KernelSchedule, OperandMajor, OutputMajor};
    /// use cutlet::numeric::ElementType::{BF16, F32};
    ///
    /// let (k, n) = (OperandMajor::K, OutputMajor::N);
    /// let spec = |d, schedule, tile| {
    ///     sm90_spec(BF16, BF16, d, F32, k, k, n, schedule, tile, [1, 1]).unwrap()
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
        if rest + 2 * d <= limit {
            CStaging::OwnBuffers
        } else if rest + d <= limit {
            CStaging::InDBuffers
        } else {
            CStaging::Global
        }
    }

    /// A warp-specialized kernel's shared memory but the epilogue's region:
    /// the stages and their `full` and `empty` barriers (rounded up to 1024
    /// bytes), the ping-pong kernel's ordered barrier (4 mbarriers), and
    /// 1024 bytes to align the start.
    const fn warp_specialized_bytes_beside_epilogue(&self) -> u32 {
        let stages = self.mainloop.stages();
        let ordered = match self.schedule {
            KernelSchedule::TmaWarpSpecializedPingpong => 32,
            _ => 0,
        };
        let ring = (stages * self.stage_bytes() + 16 * stages).div_ceil(1024) * 1024;
        ring + ordered + 1024
    }

    /// Bytes of D's subtile buffers in the TMA-store epilogue: two 32-column
    /// buffers per consumer warpgroup, each its rows (BM/2 cooperative, BM
    /// ping-pong).
    const fn tma_epilogue_d_bytes(&self) -> u32 {
        let rows = match self.schedule {
            KernelSchedule::TmaWarpSpecializedPingpong => self.tile[0],
            _ => self.tile[0] / 2,
        };
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

/// Checks every rule; the first broken one's sentence names the values.
///
/// ```
/// use cutlet::arch::ArchKind;
/// use cutlet::collective::{EpiloguePolicy, MainloopPolicy, MainloopSpec};
/// use cutlet::gemm::{GemmMajors, GemmTypes, OperandMajor, OutputMajor};
/// use cutlet::kernel::gemm::{check_config, ConfigFacts, KernelSchedule, TileSchedulerPolicy};
/// use cutlet::numeric::ElementType::{BF16, F32};
///
/// let mut facts = ConfigFacts {
///     arch: ArchKind::Sm80,
///     types: GemmTypes::new(BF16, BF16, BF16, BF16, F32),
///     majors: GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N),
///     tile: [32, 32, 64],
///     cluster: [1, 1, 1],
///     mainloop: MainloopSpec { policy: MainloopPolicy::Sm80CpAsync { stages: 2 }, warps: [1, 1, 1] },
///     epilogue: EpiloguePolicy::Sm80Staged,
///     scheduler: TileSchedulerPolicy::DataParallel,
///     schedule: KernelSchedule::Multistage,
/// };
/// assert!(check_config(&facts).is_ok());
/// facts.mainloop.warps = [4, 1, 1];
/// assert_eq!(
///     check_config(&facts).unwrap_err().as_str(),
///     "TileM 32 over 4 warps along M gives each warp 8 rows: expected a multiple of the mma atom's 16 rows (TileM a multiple of 16 x WarpsM)"
/// );
/// ```
// The message is a fixed buffer by value: a `const fn` cannot allocate.
#[allow(clippy::result_large_err)]
pub const fn check_config(f: &ConfigFacts) -> Result<(), RuleMessage> {
    if f.schedule.warp_specialized() {
        return check_sm90(f);
    }
    if matches!(f.arch, ArchKind::Sm70) || matches!(f.mainloop.policy, MainloopPolicy::Sm70TwoStage)
    {
        return super::rules_sm70::check_sm70(f);
    }
    if !matches!(f.mainloop.policy, MainloopPolicy::Sm80CpAsync { .. })
        || !matches!(f.epilogue, EpiloguePolicy::Sm80Staged)
        || !matches!(f.scheduler, TileSchedulerPolicy::DataParallel)
    {
        return Err(RuleMessage::new().s(
            "the multistage kernel schedule runs the SM80 mainloop (MainloopSm80CpAsync), the SM80 epilogue (EpilogueSm80Staged) and the data-parallel tile scheduler: expected those parts, or a warp-specialized SM90 schedule for the SM90 parts",
        ));
    }
    if !matches!(f.arch, ArchKind::Sm80 | ArchKind::Sm90) {
        return Err(RuleMessage::new()
            .s("architecture ")
            .s(f.arch.ptx_target())
            .s(" has no GEMM kernel yet: expected Sm80 or Sm90 (the kernel uses mma.sync, cp.async and ldmatrix of sm_80)"));
    }
    // The multistage kernel (the only schedule today) runs one block per
    // tile, without clusters.
    if f.cluster[0] != 1 || f.cluster[1] != 1 || f.cluster[2] != 1 {
        return Err(RuleMessage::new()
            .s("cluster ")
            .n(f.cluster[0])
            .s("x")
            .n(f.cluster[1])
            .s("x")
            .n(f.cluster[2])
            .s(" with the ")
            .s(f.schedule.name())
            .s(" kernel schedule: expected 1x1x1 (the multistage kernel runs without thread-block clusters)"));
    }
    let Some(atom) = f.atom() else {
        return Err(RuleMessage::new()
            .s("element types a=")
            .s(f.types.a.name())
            .s(", b=")
            .s(f.types.b.name())
            .s(", acc=")
            .s(f.types.acc.name())
            .s(" have no tensor-core instruction: expected f16/f16/f32, bf16/bf16/f32, f16/f16/f16 or tf32/tf32/f32"));
    };
    if f.types.c as u32 != f.types.d as u32 {
        return Err(RuleMessage::new()
            .s("C is ")
            .s(f.types.c.name())
            .s(" but D is ")
            .s(f.types.d.name())
            .s(": expected C and D of one element type"));
    }
    if !matches!(
        f.types.d,
        ElementType::F16 | ElementType::BF16 | ElementType::F32
    ) {
        return Err(RuleMessage::new()
            .s("D of ")
            .s(f.types.d.name())
            .s(" is not supported: expected f16, bf16 or f32"));
    }
    if f.majors.c as u32 != f.majors.d as u32 {
        return Err(RuleMessage::new()
            .s("C is ")
            .s(f.majors.c.name())
            .s("-major but D is ")
            .s(f.majors.d.name())
            .s("-major: expected C and D of one major"));
    }
    let [bm, bn, bk] = f.tile;
    let [wm, wn, wk] = f.mainloop.warps;
    if wm == 0 || wn == 0 || wk != 1 {
        return Err(RuleMessage::new()
            .s("warps ")
            .n(wm)
            .s("x")
            .n(wn)
            .s("x")
            .n(wk)
            .s(": expected at least one warp along M and N and exactly one along K"));
    }
    if wm * wn > 32 {
        return Err(RuleMessage::new()
            .s("warps ")
            .n(wm)
            .s("x")
            .n(wn)
            .s(" make ")
            .n(wm * wn * 32)
            .s(" threads: a block holds at most 1024 (32 warps)"));
    }
    let [atom_m, atom_n, atom_k] = shape_u32(atom);
    if bm == 0 || bm % (atom_m * wm) != 0 {
        return Err(RuleMessage::new()
            .s("TileM ")
            .n(bm)
            .s(" over ")
            .n(wm)
            .s(" warps along M gives each warp ")
            .n(bm / wm)
            .s(" rows: expected a multiple of the mma atom's ")
            .n(atom_m)
            .s(" rows (TileM a multiple of ")
            .n(atom_m)
            .s(" x WarpsM)"));
    }
    if bn == 0 || bn % (atom_n * wn) != 0 {
        return Err(RuleMessage::new()
            .s("TileN ")
            .n(bn)
            .s(" over ")
            .n(wn)
            .s(" warps along N gives each warp ")
            .n(bn / wn)
            .s(" columns: expected a multiple of the mma atom's ")
            .n(atom_n)
            .s(" columns (TileN a multiple of ")
            .n(atom_n)
            .s(" x WarpsN)"));
    }
    if bk == 0 || bk % atom_k != 0 {
        return Err(RuleMessage::new()
            .s("TileK ")
            .n(bk)
            .s(" is not a multiple of the mma atom's K of ")
            .n(atom_k)
            .s(" for ")
            .s(f.types.a.name()));
    }
    let esize = f.types.a.size_bytes();
    if !swizzle_row_ok(bk * esize) {
        return Err(RuleMessage::new()
            .s("TileK ")
            .n(bk)
            .s(" of ")
            .s(f.types.a.name())
            .s(" makes ")
            .n(bk * esize)
            .s("-byte shared-memory rows: expected 32, 64 or a multiple of 128 bytes (the row of a swizzle atom)"));
    }
    if matches!(f.majors.a, OperandMajor::MN) && !swizzle_row_ok(bm * esize) {
        return Err(RuleMessage::new()
            .s("A is M-major with TileM ")
            .n(bm)
            .s(" of ")
            .s(f.types.a.name())
            .s(" (")
            .n(bm * esize)
            .s("-byte shared-memory rows): expected 32, 64 or a multiple of 128 bytes (the row of a swizzle atom)"));
    }
    if matches!(f.majors.b, OperandMajor::MN) && !swizzle_row_ok(bn * esize) {
        return Err(RuleMessage::new()
            .s("B is N-major with TileN ")
            .n(bn)
            .s(" of ")
            .s(f.types.b.name())
            .s(" (")
            .n(bn * esize)
            .s("-byte shared-memory rows): expected 32, 64 or a multiple of 128 bytes (the row of a swizzle atom)"));
    }
    let threads = f.block_threads();
    let (wtm, wtn) = f.warp_tile();
    let needed = f.fragment_registers();
    let budget = register_budget(threads);
    if needed > budget {
        return Err(RuleMessage::new()
            .s("a ")
            .n(wtm)
            .s("x")
            .n(wtn)
            .s(" warp tile needs ")
            .n(needed)
            .s(" registers per thread for its accumulators and fragments, more than the ")
            .n(budget)
            .s(" a thread may hold in a block of ")
            .n(threads)
            .s(" threads: expected a smaller warp tile (more warps or a smaller tile)"));
    }
    if f.mainloop.stages() < 2 {
        return Err(RuleMessage::new()
            .s("Stages ")
            .n(f.mainloop.stages())
            .s(": expected at least 2 (the cp.async pipeline double-buffers)"));
    }
    let bytes = f.shared_mem_bytes();
    let limit = f.arch.max_dynamic_shared_bytes();
    if bytes > limit {
        return Err(RuleMessage::new()
            .s("shared memory of ")
            .n(bytes)
            .s(" bytes (")
            .n(f.mainloop.stages())
            .s(" stages of ")
            .n(f.stage_bytes())
            .s(" bytes; the epilogue stages ")
            .n(f.epilogue_bytes())
            .s(") exceeds the ")
            .n(limit)
            .s(" bytes a block of ")
            .s(f.arch.ptx_target())
            .s(" may use: expected fewer stages or a smaller tile"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gemm::OutputMajor;
    use ElementType::{BF16, F16, F32};

    fn facts(tile: [u32; 3], warps: [u32; 2], stages: u32) -> ConfigFacts {
        ConfigFacts {
            arch: ArchKind::Sm80,
            types: GemmTypes::new(BF16, BF16, BF16, BF16, F32),
            majors: GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N),
            tile,
            cluster: [1, 1, 1],
            mainloop: MainloopSpec {
                policy: crate::collective::MainloopPolicy::Sm80CpAsync { stages },
                warps: [warps[0], warps[1], 1],
            },
            epilogue: EpiloguePolicy::Sm80Staged,
            scheduler: TileSchedulerPolicy::DataParallel,
            schedule: KernelSchedule::Multistage,
        }
    }

    fn refusal(f: &ConfigFacts) -> String {
        check_config(f).unwrap_err().to_string()
    }

    #[test]
    fn small_tiles_on_one_warp_pass() {
        assert!(check_config(&facts([32, 32, 64], [1, 1], 2)).is_ok());
        assert!(check_config(&facts([16, 8, 16], [1, 1], 2)).is_ok());
    }

    #[test]
    fn each_rule_names_its_values() {
        let text = refusal(&facts([64, 64, 64], [8, 8], 2));
        assert!(text.contains("8x8 make 2048 threads"), "{text}");
        let text = refusal(&facts([64, 32, 64], [1, 8], 2));
        assert!(text.contains("TileN 32 over 8 warps"), "{text}");
        let text = refusal(&facts([64, 64, 24], [1, 1], 2));
        assert!(text.contains("TileK 24"), "{text}");
        let text = refusal(&facts([64, 64, 48], [1, 1], 2));
        assert!(text.contains("96-byte"), "{text}");
        let text = refusal(&facts([256, 256, 64], [1, 1], 2));
        assert!(text.contains("256x256 warp tile needs"), "{text}");
        let text = refusal(&facts([128, 128, 64], [2, 2], 1));
        assert!(text.contains("Stages 1"), "{text}");
        let text = refusal(&facts([128, 256, 64], [2, 4], 8));
        assert!(text.contains("exceeds the 166912 bytes"), "{text}");
        let mut f = facts([64, 64, 64], [2, 2], 2);
        f.types.b = F16;
        assert!(refusal(&f).contains("a=bf16, b=f16"));
        let mut f = facts([64, 64, 64], [2, 2], 2);
        f.majors.b = OperandMajor::MN;
        f.tile[1] = 48;
        f.mainloop.warps[1] = 1;
        assert!(refusal(&f).contains("B is N-major with TileN 48"));
    }

    #[test]
    fn register_budget_follows_the_block_size() {
        assert_eq!(register_budget(128), 255);
        assert_eq!(register_budget(256), 255);
        assert_eq!(register_budget(512), 128);
        assert_eq!(register_budget(1024), 64);
    }

    #[test]
    fn messages_print_numbers_exactly() {
        let m = RuleMessage::new().s("a ").n(0).s(" b ").n(4_294_967_295);
        assert_eq!(m.as_str(), "a 0 b 4294967295");
    }
}
