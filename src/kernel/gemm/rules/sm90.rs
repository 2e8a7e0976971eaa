//! The configuration rules of the SM90 warp-specialized kernels (TMA +
//! wgmma mainloop, register-store epilogue, persistent scheduler), part of
//! the one rule set [`check_config`](super::check_config) both front doors
//! check.
//!
//! | rule | why |
//! |---|---|
//! | architecture `Sm90` | wgmma, TMA, `setmaxnreg` are `sm_90a` |
//! | the SM90 mainloop, epilogue and the persistent scheduler | the parts the schedules compose |
//! | the mainloop's rules: types, TileK, TileN, TileM per consumer warpgroup, accumulator registers, cluster shares (written once, in `collective/sm90_mma_tma_gmma_ss_warpspecialized/rules.rs`, which the mainloop's `can_implement` calls too) | wgmma, TMA, the register file |
//! | C = D in type and major; D f16, bf16 or f32, i32 with s32 accumulators, or e4m3/e5m2 with the register-store epilogue | the epilogue (an i32 D computes the linear combination in s32; an FP8 D is converted and stored from registers) |
//! | warps 4x1 (`Warps<U4, U1>`) | the four warps of one consumer warpgroup; the schedule sets the warpgroups (a producer, two consumers) |
//! | TileN a multiple of 32 with the TMA-store epilogue | its 32-column subtiles |
//! | at least 2 stages; shared memory within 227 KiB | the ring |
//! | sliced-K: f32 accumulators, no promotion, A from shared memory, the persistent scheduler, TileM 64, no cluster | its warpgroups add f32 partial tiles of one 64-row tile; no K-splitting scheduler or cluster was built beside it |

use super::super::{KernelSchedule, TileSchedulerPolicy};
use super::common::{check_c_and_d, check_no_cluster, check_shared_memory, check_stages};
use super::facts::ConfigFacts;
use crate::arch::ArchKind;
use crate::collective::{check_sm90_mainloop, check_sm90_promotion};
use crate::collective::{EpiloguePolicy, MainloopPolicy};
use crate::gemm::RuleMessage;
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
            | MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8 { .. }
    ) || !matches!(
        f.epilogue,
        EpiloguePolicy::Sm90NoSmem | EpiloguePolicy::Sm90TmaWarpSpecialized
    ) || !matches!(
        f.scheduler,
        TileSchedulerPolicy::Persistent
            | TileSchedulerPolicy::SplitK { .. }
            | TileSchedulerPolicy::StreamK
    ) {
        return Err(RuleMessage::new()
            .s("the ")
            .s(f.schedule.name())
            .s(" kernel schedule runs the SM90 parts: expected MainloopSm90TmaGmmaWarpSpecialized, EpilogueTmaWarpSpecialized or EpilogueNoSmemWarpSpecialized, and the persistent tile scheduler"));
    }
    if let TileSchedulerPolicy::SplitK { splits } = f.scheduler {
        if let Err(rule) = check_split_k(f, splits) {
            return Err(rule);
        }
    }
    if let TileSchedulerPolicy::StreamK = f.scheduler {
        if let Err(rule) = check_k_splitting(f, "stream-K", false, false) {
            return Err(rule);
        }
    }
    if let KernelSchedule::TmaWarpSpecializedSlicedK = f.schedule {
        if let Err(rule) = check_sliced_k(f) {
            return Err(rule);
        }
    }
    let consumers = f.schedule.tile_warpgroups();
    if let Err(rule) = check_sm90_mainloop(f.types, f.majors, f.tile, f.cluster, consumers) {
        return Err(rule);
    }
    if let MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8 {
        promotion_interval, ..
    } = f.mainloop.policy
    {
        if let Err(rule) = check_sm90_promotion(f.types, f.tile, consumers, promotion_interval) {
            return Err(rule);
        }
    }
    let t = f.types;
    if let Err(rule) = check_c_and_d(f) {
        return Err(rule);
    }
    let integer_d = matches!((t.acc, t.d), (ElementType::I32, ElementType::I32));
    let fp8_d = matches!(t.d, ElementType::F8E4M3 | ElementType::F8E5M2)
        && !matches!(t.acc, ElementType::I32);
    if !matches!(t.d, ElementType::F16 | ElementType::BF16 | ElementType::F32)
        && !integer_d
        && !fp8_d
    {
        return Err(RuleMessage::new()
            .s("D of ")
            .s(t.d.name())
            .s(" with ")
            .s(t.acc.name())
            .s(" accumulators is not supported: expected f16, bf16, f32, e4m3 or e5m2 (or i32 with s8/u8 inputs and s32 accumulators)"));
    }
    if fp8_d && !matches!(f.epilogue, EpiloguePolicy::Sm90NoSmem) {
        return Err(RuleMessage::new()
            .s("D of ")
            .s(t.d.name())
            .s(" with the TMA-store epilogue: expected EpilogueNoSmemWarpSpecialized (an FP8 D is stored from registers)"));
    }
    let [wm, wn, wk] = f.mainloop.warps;
    if wm != 4 || wn != 1 || wk != 1 {
        return Err(RuleMessage::new()
            .warps([wm, wn, wk])
            .s(" with the ")
            .s(f.schedule.name())
            .s(" schedule: expected 4x1x1 (Warps<U4, U1>, the four warps of one consumer warpgroup; the schedule sets the warpgroups: a producer and two consumers)"));
    }
    let bn = f.tile[1];
    if matches!(f.epilogue, EpiloguePolicy::Sm90TmaWarpSpecialized) && !bn.is_multiple_of(32) {
        return Err(RuleMessage::new()
            .s("TileN ")
            .n(bn)
            .s(" with the TMA epilogue: expected a multiple of its 32-column subtile"));
    }
    if let Err(rule) = check_stages(f) {
        return Err(rule);
    }
    check_shared_memory(f)
}

/// Sliced-K's rules: f32 accumulators (the partial tiles its warpgroups
/// add are f32), the 16-bit or 8-bit mainloop without promotion
/// (`MainloopSm90TmaGmmaWarpSpecialized`), A read from shared memory, the
/// persistent scheduler (the warpgroups split the tile's K loop; a
/// scheduler that splits K too is not built), TileM 64, no cluster.
#[allow(clippy::result_large_err)]
const fn check_sliced_k(f: &ConfigFacts) -> Result<(), RuleMessage> {
    if !matches!(f.types.acc, ElementType::F32) {
        return Err(RuleMessage::new()
            .s("the slicedk kernel schedule with ")
            .s(f.types.acc.name())
            .s(" accumulators: expected f32 (its warpgroups add f32 partial tiles)"));
    }
    if !matches!(
        f.mainloop.policy,
        MainloopPolicy::Sm90TmaGmmaWarpSpecialized { .. }
    ) {
        return Err(RuleMessage::new().s(
            "the slicedk kernel schedule with the promoting FP8 mainloop: expected MainloopSm90TmaGmmaWarpSpecialized (fast accumulation)",
        ));
    }
    if crate::collective::reads_a_from_registers(f.types.a, f.majors.a) {
        return Err(RuleMessage::new()
            .s("the slicedk kernel schedule with an M-major ")
            .s(f.types.a.name())
            .s(" A: expected A read from shared memory (a K-major A, or 16-bit types)"));
    }
    if !matches!(f.scheduler, TileSchedulerPolicy::Persistent) {
        return Err(RuleMessage::new().s(
            "the slicedk kernel schedule with a tile scheduler that splits K: expected the persistent scheduler (its warpgroups split each tile's K loop)",
        ));
    }
    if f.tile[0] != 64 {
        return Err(RuleMessage::new()
            .s("TileM ")
            .n(f.tile[0])
            .s(" with the slicedk kernel schedule: expected 64 (its two warpgroups take one 64-row tile; a wider one leaves too few registers beside the partial tile)"));
    }
    check_no_cluster(
        f,
        "sliced-K was built without clusters: its warpgroups share one block's stages",
    )
}

/// Split-K's rules: 2 to 64 splits, and those of every scheduler that
/// splits K ([`check_k_splitting`]), the ping-pong schedule allowed (its
/// warpgroups reduce their own units' partial tiles in turn).
#[allow(clippy::result_large_err)]
const fn check_split_k(f: &ConfigFacts, splits: u32) -> Result<(), RuleMessage> {
    if splits < 2 || splits > 64 {
        return Err(RuleMessage::new()
            .s("split-K with ")
            .n(splits)
            .s(" splits: expected 2 to 64"));
    }
    check_k_splitting(f, "split-K", true, true)
}

/// The rules of a scheduler that splits a tile's K loop (split-K,
/// stream-K), named `what` in the message: the cooperative schedule (its
/// two consumer warpgroups meet at the reduction), or ping-pong where
/// `pingpong` (each warpgroup reduces its own unit, in its turn), without
/// clusters unless `clusters` (split-K's units are cluster tiles;
/// stream-K's are not), and
/// f32 accumulators (the partial tiles are f32). Either SM90 epilogue:
/// the TMA-store one loads C in the store of the unit that stores the
/// tile ([`ConfigFacts::c_staging`](super::ConfigFacts::c_staging)).
#[allow(clippy::result_large_err)]
const fn check_k_splitting(
    f: &ConfigFacts,
    what: &'static str,
    clusters: bool,
    pingpong: bool,
) -> Result<(), RuleMessage> {
    let runs = match f.schedule {
        KernelSchedule::TmaWarpSpecializedCooperative => true,
        KernelSchedule::TmaWarpSpecializedPingpong => pingpong,
        _ => false,
    };
    if !runs {
        return Err(RuleMessage::new()
            .s(what)
            .s(" with the ")
            .s(f.schedule.name())
            .s(match pingpong {
                true => " schedule: expected the cooperative or ping-pong schedule",
                false => " schedule: expected the cooperative schedule",
            }));
    }
    if !clusters && !f.cluster.is_one() {
        return Err(RuleMessage::new()
            .s(what)
            .s(" with the ")
            .s(f.schedule.name())
            .s(" schedule in a ")
            .n(f.cluster.m)
            .s("x")
            .n(f.cluster.n)
            .s(" cluster: expected no cluster (1x1)"));
    }
    if !matches!(f.types.acc, ElementType::F32) {
        return Err(RuleMessage::new()
            .s(what)
            .s(" with ")
            .s(f.types.acc.name())
            .s(" accumulators: expected f32 (the partial tiles are f32)"));
    }
    Ok(())
}
