//! The configuration rules of the SM70 kernel (the two-stage mainloop of
//! [`Sm70MmaPipelined`](crate::collective::Sm70MmaPipelined) and the SM80
//! epilogue), part of [`check_config`](super::check_config):
//!
//! | rule | why |
//! |---|---|
//! | architecture `Sm70` with the SM70 mainloop, and the SM70 mainloop only on `Sm70` | `mma.sync.m8n8k4` is optimized for sm_70; the SM80 kernel needs `cp.async` |
//! | cluster 1x1; C and D of one major; 1 to 32 warps, one along K | the rules every multistage kernel shares (`common.rs`) |
//! | A and B f16, accumulator f32 or f16 | the m8n8k4 instruction's types |
//! | C and D of one type (f16 or f32) and one major | the epilogue reads C where it writes D; sm_70 converts no bf16 |
//! | at most 32 warps, one along K | a block's limit |
//! | TileM a multiple of 32 x WarpsM, TileN of 32 x WarpsN | each warp holds 2x2 quad pairs, each at least two 8-row atoms along M and N (the conflict-free permutation pairs them) |
//! | TileK a multiple of 8, of 32, 64 or a multiple of 128 bytes | k-groups of two k-steps; the row of a swizzle atom |
//! | MN-major extents of 32, 64 or a multiple of 128 bytes | the row of a swizzle atom |
//! | accumulators, fragments and staging registers fit a thread's registers | the register file |
//! | two stages or the epilogue's staging tile within sm_70's 96 KiB | the shared memory |

use super::common::{
    check_c_and_d, check_no_cluster, check_shared_memory, check_warp_count, MULTISTAGE_NO_CLUSTER,
};
use super::facts::{register_budget, swizzle_row_ok, ConfigFacts};
use crate::arch::ArchKind;
use crate::collective::MainloopPolicy;
use crate::gemm::OperandMajor;
use crate::gemm::RuleMessage;
use crate::numeric::ElementType;

/// Registers per thread the SM70 kernel's accumulators, double-buffered
/// fragments (a k-group: two k-steps of 2 registers per atom) and staging
/// chunks (4 data registers, a 64-bit source and a 32-bit destination
/// address each) take: the floor of its register use.
pub(super) const fn sm70_registers(f: &ConfigFacts) -> u32 {
    let [bm, bn, bk] = f.tile;
    let [wm, wn, _] = f.mainloop.warps;
    let threads = f.block_threads();
    if threads == 0 || wm == 0 || wn == 0 {
        return 0;
    }
    let acc_per_reg = if matches!(f.types.acc, ElementType::F16) {
        2
    } else {
        1
    };
    let acc = bm * bn / threads / acc_per_reg;
    let (am, an) = (bm / (16 * wm), bn / (16 * wn));
    let frags = 2 * 4 * (am + an);
    let chunks = (bm * bk + bn * bk) / 8 / threads;
    acc + frags + 7 * chunks
}

/// Checks the SM70 rules; the first broken one's sentence names the values.
#[allow(clippy::result_large_err)]
pub(super) const fn check_sm70(f: &ConfigFacts) -> Result<(), RuleMessage> {
    if !matches!(f.arch, ArchKind::Sm70) {
        return Err(RuleMessage::new()
            .s("the SM70 two-stage mainloop on ")
            .s(f.arch.ptx_target())
            .s(": expected architecture Sm70 (sm_80 and later run the SM80 multistage mainloop)"));
    }
    if !matches!(f.mainloop.policy, MainloopPolicy::Sm70TwoStage) {
        return Err(RuleMessage::new().s(
            "architecture sm_70 with the SM80 multistage mainloop: expected the SM70 two-stage mainloop (MainloopSm70TwoStage; sm_70 has no cp.async)",
        ));
    }
    if let Err(rule) = check_no_cluster(f, MULTISTAGE_NO_CLUSTER) {
        return Err(rule);
    }
    let types = f.types;
    if !matches!(types.a, ElementType::F16)
        || !matches!(types.b, ElementType::F16)
        || !matches!(types.acc, ElementType::F32 | ElementType::F16)
    {
        return Err(RuleMessage::new()
            .s("element types a=")
            .s(types.a.name())
            .s(", b=")
            .s(types.b.name())
            .s(", acc=")
            .s(types.acc.name())
            .s(" have no sm_70 tensor-core instruction: expected f16/f16/f32 or f16/f16/f16"));
    }
    if let Err(rule) = check_c_and_d(f) {
        return Err(rule);
    }
    if !matches!(types.d, ElementType::F16 | ElementType::F32) {
        return Err(RuleMessage::new()
            .s("D of ")
            .s(types.d.name())
            .s(" on sm_70: expected f16 or f32 (sm_70 has no bf16 conversions)"));
    }
    let [bm, bn, bk] = f.tile;
    if let Err(rule) = check_warp_count(f) {
        return Err(rule);
    }
    let [wm, wn, _] = f.mainloop.warps;
    if bm == 0 || bm % (32 * wm) != 0 {
        return Err(RuleMessage::new()
            .s("TileM ")
            .n(bm)
            .s(" over ")
            .n(wm)
            .s(" warps along M: expected a multiple of 32 x WarpsM = ")
            .n(32 * wm)
            .s(" (each warp's 2 quad pairs along M take at least two 8-row atoms each)"));
    }
    if bn == 0 || bn % (32 * wn) != 0 {
        return Err(RuleMessage::new()
            .s("TileN ")
            .n(bn)
            .s(" over ")
            .n(wn)
            .s(" warps along N: expected a multiple of 32 x WarpsN = ")
            .n(32 * wn)
            .s(" (each warp's 2 quad pairs along N take at least two 8-column atoms each)"));
    }
    if bk == 0 || bk % 8 != 0 || !swizzle_row_ok(bk * 2) {
        return Err(RuleMessage::new()
            .s("TileK ")
            .n(bk)
            .s(" of f16: expected a multiple of 8 (two k-steps of the m8n8k4 atom) making 32-, 64- or a multiple of 128-byte shared-memory rows"));
    }
    if matches!(f.majors.a, OperandMajor::MN) && !swizzle_row_ok(bm * 2) {
        return Err(RuleMessage::new()
            .s("A is M-major with TileM ")
            .n(bm)
            .s(" of f16 (")
            .n(bm * 2)
            .s("-byte shared-memory rows): expected 32, 64 or a multiple of 128 bytes (the row of a swizzle atom)"));
    }
    if matches!(f.majors.b, OperandMajor::MN) && !swizzle_row_ok(bn * 2) {
        return Err(RuleMessage::new()
            .s("B is N-major with TileN ")
            .n(bn)
            .s(" of f16 (")
            .n(bn * 2)
            .s("-byte shared-memory rows): expected 32, 64 or a multiple of 128 bytes (the row of a swizzle atom)"));
    }
    let threads = f.block_threads();
    let needed = sm70_registers(f);
    let budget = register_budget(threads);
    if needed > budget {
        return Err(RuleMessage::new()
            .s("a ")
            .n(bm)
            .s("x")
            .n(bn)
            .s("x")
            .n(bk)
            .s(" tile over ")
            .n(threads)
            .s(" threads needs ")
            .n(needed)
            .s(" registers per thread for its accumulators, fragments and staged copies, more than the ")
            .n(budget)
            .s(" a thread may hold: expected a smaller tile or more warps"));
    }
    check_shared_memory(f)
}
