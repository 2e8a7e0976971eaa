//! The configuration rules of the SM90 warp-specialized kernels (TMA +
//! wgmma mainloop, register-store epilogue, persistent scheduler), part of
//! the one rule set [`check_config`](super::check_config) both front doors
//! check.
//!
//! | rule | why |
//! |---|---|
//! | architecture `Sm90` | wgmma, TMA, `setmaxnreg` are `sm_90a` |
//! | the SM90 mainloop, epilogue and the persistent scheduler | the parts the schedules compose |
//! | types bf16/bf16/f32, f16/f16/f32, f16/f16/f16, tf32/tf32/f32 (tf32 B K-major; an M-major tf32 A passes through registers); C = D in type and major; D f16, bf16 or f32 | wgmma's types (it transposes only 16-bit operands); the epilogue |
//! | TileK x element = 64 or 128 bytes | a K-major operand's row is one 64- or 128-byte swizzle row, which TMA and wgmma share |
//! | TileN a multiple of 8 up to 256 (of 64 for N-major B) | wgmma's N; a swizzle row of N |
//! | warps 4x1 (`Warps<U4, U1>`) | the four warps of one consumer warpgroup; the schedule sets the warpgroups (a producer, two consumers) |
//! | TileM 128 or 256 (cooperative), 64 or 128 (ping-pong) | 64 or 128 rows per consumer warpgroup |
//! | at most 160 accumulator registers per consumer thread | 232 registers a consumer holds (every default kernel assembles without spills) |
//! | cluster 1 or 2 along M and N, 1 along K; each CTA of a cluster loads an equal share of the A tile (shared along N) and of the B tile (shared along M): a K-major share whole 8-row boxes, an MN-major share whole 128-byte boxes (64 16-bit or 32 tf32 elements) | multicast boxes: 256x64 with an N-major 16-bit B cannot take a 2x1 cluster (one 64-column box of B for two CTAs) |
//! | at least 2 stages; shared memory within 227 KiB | the ring |

use super::rules::{ConfigFacts, RuleMessage};
use super::{KernelSchedule, TileSchedulerPolicy};
use crate::arch::ArchKind;
use crate::collective::{EpiloguePolicy, MainloopPolicy};
use crate::gemm::OperandMajor;
use crate::numeric::ElementType;

/// The rules of the warp-specialized SM90 kernels.
#[allow(clippy::result_large_err)]
pub(super) const fn check_sm90(f: &ConfigFacts) -> Result<(), RuleMessage> {
    if !matches!(f.arch, ArchKind::Sm90) {
        return Err(RuleMessage::new()
            .s("the ")
            .s(f.schedule.name())
            .s(" kernel schedule on architecture ")
            .s(f.arch.ptx_target())
            .s(": expected Sm90 (wgmma, TMA and setmaxnreg are sm_90a instructions)"));
    }
    if !matches!(
        f.mainloop.policy,
        MainloopPolicy::Sm90TmaGmmaWarpSpecialized { .. }
    ) || !matches!(
        f.epilogue,
        EpiloguePolicy::Sm90NoSmem | EpiloguePolicy::Sm90TmaWarpSpecialized
    ) || !matches!(f.scheduler, TileSchedulerPolicy::Persistent)
    {
        return Err(RuleMessage::new()
            .s("the ")
            .s(f.schedule.name())
            .s(" kernel schedule runs the SM90 parts: expected MainloopSm90TmaGmmaWarpSpecialized, EpilogueTmaWarpSpecialized or EpilogueNoSmemWarpSpecialized, and the persistent tile scheduler"));
    }
    let t = f.types;
    let typed = matches!(
        (t.a, t.b, t.acc),
        (ElementType::BF16, ElementType::BF16, ElementType::F32)
            | (ElementType::F16, ElementType::F16, ElementType::F32)
            | (ElementType::F16, ElementType::F16, ElementType::F16)
            | (ElementType::TF32, ElementType::TF32, ElementType::F32)
            | (ElementType::F32, ElementType::F32, ElementType::F32)
    );
    if !typed {
        return Err(RuleMessage::new()
            .s("element types a=")
            .s(t.a.name())
            .s(", b=")
            .s(t.b.name())
            .s(", acc=")
            .s(t.acc.name())
            .s(" have no wgmma instruction: expected bf16/bf16/f32, f16/f16/f32, f16/f16/f16 or tf32/tf32/f32 (f32 inputs multiply as tf32)"));
    }
    if t.a.size_bytes() == 4 && !matches!(f.majors.b, OperandMajor::K) {
        return Err(RuleMessage::new().s(
            "tf32 B must be K-major on SM90: wgmma transposes only 16-bit operands (an M-major tf32 A passes through registers, B cannot)",
        ));
    }
    if t.c as u32 != t.d as u32 || f.majors.c as u32 != f.majors.d as u32 {
        return Err(RuleMessage::new()
            .s("C and D differ in element type or major: expected C of D's type and major"));
    }
    if !matches!(t.d, ElementType::F16 | ElementType::BF16 | ElementType::F32) {
        return Err(RuleMessage::new()
            .s("D of ")
            .s(t.d.name())
            .s(" is not supported: expected f16, bf16 or f32"));
    }
    let [wm, wn, wk] = f.mainloop.warps;
    if wm != 4 || wn != 1 || wk != 1 {
        return Err(RuleMessage::new()
            .s("warps ")
            .n(wm)
            .s("x")
            .n(wn)
            .s("x")
            .n(wk)
            .s(" with the ")
            .s(f.schedule.name())
            .s(" schedule: expected 4x1x1 (Warps<U4, U1>, the four warps of one consumer warpgroup; the schedule sets the warpgroups: a producer and two consumers)"));
    }
    let [bm, bn, bk] = f.tile;
    let size = t.a.size_bytes();
    if bk * size != 128 && bk * size != 64 {
        return Err(RuleMessage::new()
            .s("TileK ")
            .n(bk)
            .s(" of ")
            .s(t.a.name())
            .s(" makes ")
            .n(bk * size)
            .s("-byte rows: expected TileK ")
            .n(64 / size)
            .s(" or ")
            .n(128 / size)
            .s(" (one 64- or 128-byte swizzle row)"));
    }
    let n_step = if matches!(f.majors.b, OperandMajor::MN) {
        128 / size
    } else {
        8
    };
    if bn == 0 || bn > 256 || bn % n_step != 0 {
        return Err(RuleMessage::new()
            .s("TileN ")
            .n(bn)
            .s(": expected a multiple of ")
            .n(n_step)
            .s(" from ")
            .n(n_step)
            .s(" to 256 (wgmma's N)"));
    }
    if matches!(f.epilogue, EpiloguePolicy::Sm90TmaWarpSpecialized) && bn % 32 != 0 {
        return Err(RuleMessage::new()
            .s("TileN ")
            .n(bn)
            .s(" with the TMA epilogue: expected a multiple of its 32-column subtile"));
    }
    let consumers = match f.schedule {
        KernelSchedule::TmaWarpSpecializedCooperative => 2,
        _ => 1,
    };
    let wg_rows = bm / consumers;
    if bm % consumers != 0 || !(wg_rows == 64 || wg_rows == 128) {
        return Err(RuleMessage::new()
            .s("TileM ")
            .n(bm)
            .s(" with the ")
            .s(f.schedule.name())
            .s(" schedule: expected ")
            .n(64 * consumers)
            .s(" or ")
            .n(128 * consumers)
            .s(" (64 or 128 rows per consumer warpgroup)"));
    }
    let acc_values = wg_rows / 64 * bn / 2;
    let acc_regs = if matches!(t.acc, ElementType::F16) {
        acc_values / 2
    } else {
        acc_values
    };
    if acc_regs > 160 {
        return Err(RuleMessage::new()
            .s("a ")
            .n(wg_rows)
            .s("x")
            .n(bn)
            .s(" warpgroup tile needs ")
            .n(acc_regs)
            .s(" accumulator registers per thread: expected at most 160 (a smaller TileN, or the cooperative schedule)"));
    }
    let [cm, cn, ck] = f.cluster;
    if !(cm == 1 || cm == 2) || !(cn == 1 || cn == 2) || ck != 1 {
        return Err(RuleMessage::new()
            .s("cluster ")
            .n(cm)
            .s("x")
            .n(cn)
            .s("x")
            .n(ck)
            .s(": expected 1 or 2 CTAs along M and N and 1 along K"));
    }
    // A is shared by the cn CTAs of a cluster row, B by the cm of a column.
    let a_splits = match f.majors.a {
        OperandMajor::K => bm % (8 * cn) == 0,
        OperandMajor::MN => (bm / (128 / size)).is_multiple_of(cn),
    };
    let b_splits = match f.majors.b {
        OperandMajor::K => bn % (8 * cm) == 0,
        OperandMajor::MN => (bn / (128 / size)).is_multiple_of(cm),
    };
    if !a_splits || !b_splits {
        return Err(RuleMessage::new()
            .s("tile ")
            .n(bm)
            .s("x")
            .n(bn)
            .s(" cannot be split among the CTAs of cluster ")
            .n(cm)
            .s("x")
            .n(cn)
            .s(" that share its A and B tiles: expected each CTA's share of A (split along the cluster's N) and of B (split along its M) a whole number of 8-row boxes for a K-major operand or 128-byte boxes for an MN-major one (64 16-bit or 32 tf32 elements)"));
    }
    if f.mainloop.stages() < 2 {
        return Err(RuleMessage::new()
            .s("Stages ")
            .n(f.mainloop.stages())
            .s(": expected at least 2"));
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
            .s(" bytes and their barriers) exceeds the ")
            .n(limit)
            .s(" bytes a block of ")
            .s(f.arch.ptx_target())
            .s(" may use: expected fewer stages or a smaller tile"));
    }
    Ok(())
}
