//! The rules of the SM80 multistage kernel (the SM80 mainloop and
//! epilogue, the data-parallel scheduler; on `Sm80`, or `Sm90` for the same
//! kernel compiled for sm_90a), part of [`check_config`](super::check_config).

use super::common::{
    check_c_and_d, check_d_stored, check_no_cluster, check_shared_memory, check_stages,
    check_warp_count, MULTISTAGE_NO_CLUSTER,
};
use super::facts::{register_budget, shape_u32, swizzle_row_ok, ConfigFacts};
use crate::arch::ArchKind;
use crate::collective::{EpiloguePolicy, MainloopPolicy};
use crate::gemm::{OperandMajor, RuleMessage};

use super::super::TileSchedulerPolicy;

/// Checks the SM80 rules; the first broken one's sentence names the values.
#[allow(clippy::result_large_err)]
pub(super) const fn check_sm80(f: &ConfigFacts) -> Result<(), RuleMessage> {
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
    if let Err(rule) = check_no_cluster(f, MULTISTAGE_NO_CLUSTER) {
        return Err(rule);
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
    if let Err(rule) = check_c_and_d(f) {
        return Err(rule);
    }
    if let Err(rule) = check_d_stored(f) {
        return Err(rule);
    }
    let [bm, bn, bk] = f.tile;
    if let Err(rule) = check_warp_count(f) {
        return Err(rule);
    }
    let [wm, wn, _] = f.mainloop.warps;
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
    if let Err(rule) = check_stages(f) {
        return Err(rule);
    }
    check_shared_memory(f)
}
