//! The rules of the GEMV kernel ([`Gemv`](crate::kernel::gemm::Gemv):
//! the [`MmaSyncGemv`](crate::collective::MainloopPolicy::MmaSyncGemv)
//! mainloop, the SM80 epilogue, one block per tile of `BM x BN` with its
//! warps slicing K), part of [`check_config`](super::check_config).

use super::common::{
    check_c_and_d, check_d_stored, check_no_cluster, check_shared_memory, MULTISTAGE_NO_CLUSTER,
};
use super::facts::{register_budget, ConfigFacts};
use crate::arch::ArchKind;
use crate::collective::{EpiloguePolicy, MainloopPolicy};
use crate::gemm::{OperandMajor, RuleMessage};
use crate::numeric::ElementType;

use super::super::TileSchedulerPolicy;

/// Registers a thread of the GEMV kernel holds beside its fragments and
/// accumulators (addresses, counters, predicates), counted generously.
const GEMV_OTHER_REGISTERS: u32 = 40;

/// Most k-steps a warp of the register GEMV mainloop holds in flight.
const GEMV_MAX_UNROLL: u32 = 8;

/// Most k-steps a warp of the ring GEMV mainloop keeps in flight (its
/// ring's slots).
const GEMV_RING_MAX_UNROLL: u32 = 16;

/// Checks the GEMV rules; the first broken one's sentence names the values.
#[allow(clippy::result_large_err)]
pub(super) const fn check_gemv(f: &ConfigFacts) -> Result<(), RuleMessage> {
    // The ring holds the k-steps in flight in shared memory: one k-step's
    // fragments in registers.
    let (unroll, max_unroll, ring) = match f.mainloop.policy {
        MainloopPolicy::MmaSyncGemv { unroll } => (unroll, GEMV_MAX_UNROLL, false),
        MainloopPolicy::MmaSyncGemvRing { unroll } => (unroll, GEMV_RING_MAX_UNROLL, true),
        _ => {
            return Err(
                RuleMessage::new().s("expected a GEMV mainloop (MmaSyncGemv or MmaSyncGemvRing)")
            );
        }
    };
    if !matches!(f.epilogue, EpiloguePolicy::Sm80Staged)
        || !matches!(f.scheduler, TileSchedulerPolicy::DataParallel)
    {
        return Err(RuleMessage::new().s(
            "the GEMV mainloop runs with the SM80 epilogue (EpilogueSm80Staged) and the data-parallel tile scheduler: expected those parts",
        ));
    }
    if !matches!(f.arch, ArchKind::Sm80 | ArchKind::Sm90) {
        return Err(RuleMessage::new()
            .s("architecture ")
            .s(f.arch.ptx_target())
            .s(" has no GEMV kernel: expected Sm80 or Sm90 (the kernel uses mma.sync of sm_80)"));
    }
    if let Err(rule) = check_no_cluster(f, MULTISTAGE_NO_CLUSTER) {
        return Err(rule);
    }
    let a = f.types.a;
    let pair_ok = a as u32 == f.types.b as u32
        && matches!(a, ElementType::F16 | ElementType::BF16 | ElementType::TF32)
        && matches!(f.types.acc, ElementType::F32);
    if !pair_ok {
        return Err(RuleMessage::new()
            .s("element types a=")
            .s(a.name())
            .s(", b=")
            .s(f.types.b.name())
            .s(", acc=")
            .s(f.types.acc.name())
            .s(" with the GEMV mainloop: expected f16/f16/f32, bf16/bf16/f32 or tf32/tf32/f32"));
    }
    if !matches!(f.majors.a, OperandMajor::K) || !matches!(f.majors.b, OperandMajor::K) {
        let a = if matches!(f.majors.a, OperandMajor::K) {
            "K"
        } else {
            "M"
        };
        let b = if matches!(f.majors.b, OperandMajor::K) {
            "K"
        } else {
            "N"
        };
        return Err(RuleMessage::new()
            .s("A is ")
            .s(a)
            .s("-major and B is ")
            .s(b)
            .s("-major with the GEMV mainloop: expected both K-major (it loads rows of A and columns of B along K)"));
    }
    if let Err(rule) = check_c_and_d(f) {
        return Err(rule);
    }
    if let Err(rule) = check_d_stored(f) {
        return Err(rule);
    }
    let [bm, bn, bk] = f.tile;
    if bm != 8 && bm != 16 {
        return Err(RuleMessage::new()
            .s("TileM ")
            .n(bm)
            .s(" with the GEMV mainloop: expected 8 or 16 (the rows of one mma atom)"));
    }
    if bn == 0 || bn % 8 != 0 || bn > 64 {
        return Err(RuleMessage::new().s("TileN ").n(bn).s(
            " with the GEMV mainloop: expected a multiple of 8 up to 64 (mma atoms of 8 columns)",
        ));
    }
    let step = 64 / a.size_bytes();
    if bk != step {
        return Err(RuleMessage::new()
            .s("TileK ")
            .n(bk)
            .s(" with the GEMV mainloop for ")
            .s(a.name())
            .s(": expected ")
            .n(step)
            .s(" (one k-step: 16 bytes for each of 4 lanes)"));
    }
    let [wm, wn, wk] = f.mainloop.warps;
    if wm != 1 || wn != 1 || wk == 0 || wk > 32 {
        return Err(RuleMessage::new()
            .warps([wm, wn, wk])
            .s(" with the GEMV mainloop: expected 1x1xW with 1 to 32 warps along K"));
    }
    if unroll == 0 || unroll > max_unroll {
        return Err(RuleMessage::new()
            .s("unroll ")
            .n(unroll)
            .s(" of the GEMV mainloop: expected 1 to ")
            .n(max_unroll)
            .s(" k-steps in flight"));
    }
    let held = if ring { 1 } else { unroll };
    let words = held * (bm / 8 + bn / 8) * 4 + bn / 8 * 4 * (bm / 8);
    let budget = register_budget(wk * 32);
    if words + GEMV_OTHER_REGISTERS > budget {
        return Err(RuleMessage::new()
            .s("the GEMV mainloop with TileM ")
            .n(bm)
            .s(", TileN ")
            .n(bn)
            .s(" and unroll ")
            .n(unroll)
            .s(" holds ")
            .n(words)
            .s(" registers of fragments and accumulators per thread, more than the ")
            .n(budget - GEMV_OTHER_REGISTERS)
            .s(" a thread of ")
            .n(wk * 32)
            .s(" may give them: expected a smaller tile or unroll"));
    }
    let (bytes, limit) = (f.shared_mem_bytes(), f.arch.max_dynamic_shared_bytes());
    if ring && bytes > limit {
        return Err(RuleMessage::new()
            .s("the GEMV ring of ")
            .n(unroll)
            .s(" k-steps of ")
            .n(bm / 8 + bn / 8)
            .s(" lines over ")
            .n(wk)
            .s(" warps takes ")
            .n(bytes)
            .s(" bytes of shared memory with the partial and staging tiles, more than the ")
            .n(limit)
            .s(" a block of ")
            .s(f.arch.ptx_target())
            .s(" may use: expected a smaller unroll, fewer warps or a smaller tile"));
    }
    check_shared_memory(f)
}
