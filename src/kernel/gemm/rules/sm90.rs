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
//! | C = D in type and major; D f16, bf16 or f32 | the epilogue |
//! | warps 4x1 (`Warps<U4, U1>`) | the four warps of one consumer warpgroup; the schedule sets the warpgroups (a producer, two consumers) |
//! | TileN a multiple of 32 with the TMA-store epilogue | its 32-column subtiles |
//! | at least 2 stages; shared memory within 227 KiB | the ring |

use super::super::TileSchedulerPolicy;
use super::common::{check_c_and_d, check_shared_memory, check_stages};
use super::facts::ConfigFacts;
use crate::arch::ArchKind;
use crate::collective::check_sm90_mainloop;
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
    let consumers = f.schedule.tile_warpgroups();
    if let Err(rule) = check_sm90_mainloop(f.types, f.majors, f.tile, f.cluster, consumers) {
        return Err(rule);
    }
    let t = f.types;
    if let Err(rule) = check_c_and_d(f) {
        return Err(rule);
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
