//! [`ProblemPicks`]: the SM90 kernels of a [`Gemm`](super::Gemm) the builder
//! picks for the device, chosen again for each problem as CUTLASS's
//! `KernelScheduleAuto` would (the schedule, tile and cluster of
//! [`sm90_spec_for_problem`](crate::kernel::gemm::sm90_spec_for_problem)),
//! each made on the first call that needs it. What it holds for each pick
//! (the launcher, in `launcher.rs`) is made by a function it is given, so
//! this file imports nothing of the launcher's.

use crate::collective::MainloopPolicy;
use std::sync::OnceLock;

use crate::collective::MAX_TRANSPOSED_BLOCK_SCALE_TILE_N;
use crate::gemm::GemmShape;
use crate::kernel::gemm::{GemmSpec, ScaleGranularity, Sm90Pick, Sm90PickFacts};

/// Kernels one GEMM keeps beside its default: more than the distinct
/// picks [`Sm90Pick::for_problem`] makes (five today).
const SLOTS: usize = 8;

/// What a [`ProblemPicks`] makes for a picked spec (the kernel's: the
/// transposed problem's where the pick swaps A and B, the second argument),
/// given the caller's `check_scalars` setting.
type Make<L> = dyn Fn(GemmSpec, bool, bool) -> L + Send + Sync;

/// The per-problem kernels of a GEMM whose default is `template` (an SM90
/// spec: its types, majors and fused epilogue are every pick's), each held
/// as an `L` (a launcher) that `make` builds from the picked spec.
pub(crate) struct ProblemPicks<L> {
    template: GemmSpec,
    /// What the template's types and majors allow the pick
    /// ([`Sm90PickFacts`]), worked out once.
    facts: Sm90PickFacts,
    /// The same for the transposed problem (the pick on it where swap-AB
    /// is asked for and M is too large for its narrow tiles).
    facts_transposed: Sm90PickFacts,
    /// Swap-AB as picked (`None`), never or always (`GemmBuilder::swap_ab`).
    swap: Option<bool>,
    sm_count: u32,
    make: Box<Make<L>>,
    /// Each pick made so far and what was made of it (`None` where its
    /// spec could not be built: the default runs those problems). Filled
    /// in order, never emptied, so a reference handed out lives as long as
    /// the picks.
    slots: [OnceLock<(Sm90Pick, Option<L>)>; SLOTS],
}

impl<L> std::fmt::Debug for ProblemPicks<L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let picks: Vec<Sm90Pick> = self
            .slots
            .iter()
            .filter_map(|s| s.get().map(|p| p.0))
            .collect();
        f.debug_struct("ProblemPicks")
            .field("template", &self.template.kernel_name())
            .field("sm_count", &self.sm_count)
            .field("picks", &picks)
            .finish()
    }
}

impl<L> ProblemPicks<L> {
    /// Picks for a GEMM whose default kernel is `template` on a device of
    /// `sm_count` SMs; `make` builds what runs a picked spec.
    pub(crate) fn new(
        template: GemmSpec,
        sm_count: u32,
        swap: Option<bool>,
        make: impl Fn(GemmSpec, bool, bool) -> L + Send + Sync + 'static,
    ) -> Self {
        let mut facts = Sm90PickFacts::of(template.types, template.majors);
        // The GEMV kernel runs the SM80 epilogue: not for a fusion only the
        // SM90 epilogues read (scales, a per-tensor vector).
        let fusion = &template.epilogue.fusion;
        facts.gemv_ok &= !fusion.needs_sm90() && fusion.unfit_reason().is_none();
        // An output scale or amax: the register-store epilogue writes D.
        facts.register_store_d |= fusion.output() != Default::default();
        let facts_transposed =
            Sm90PickFacts::of(template.types.transposed(), template.majors.transposed());
        ProblemPicks {
            facts,
            facts_transposed,
            swap,
            template,
            sm_count,
            make: Box::new(make),
            slots: Default::default(),
        }
    }

    /// What runs the kernel picked for `shape`, or `None` where that is
    /// the default kernel (or could not be built): the caller's own then
    /// runs it. `check_scalars` is the caller's setting, given to what is
    /// made here (changing it later: [`made_mut`](Self::made_mut)).
    pub(crate) fn launcher(&self, shape: &GemmShape, check_scalars: bool) -> Option<&L> {
        let clamp = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
        let problem = [shape.m, shape.n, shape.k, shape.l].map(clamp);
        let t = &self.template;
        let transposed = || self.facts_transposed;
        let pick = Sm90Pick::choose(
            t.types,
            t.majors,
            problem,
            self.sm_count,
            self.facts,
            transposed,
            self.swap,
        );
        if pick.is(t) {
            return None;
        }
        for slot in &self.slots {
            let made = || {
                let made = self
                    .spec_of(pick)
                    .map(|spec| (self.make)(spec, pick.swap, check_scalars));
                (pick, made)
            };
            let (made, launcher) = slot.get_or_init(made);
            // Another call may have filled this slot with another pick.
            if *made == pick {
                return launcher.as_ref();
            }
        }
        None
    }

    /// The spec of `pick`: the template's types, majors, fusion and FP8
    /// promotion with the pick's schedule, tile and cluster; `None` where
    /// it cannot be built.
    fn spec_of(&self, mut pick: Sm90Pick) -> Option<GemmSpec> {
        let t = &self.template;
        // Swap-AB's block-scaled kernel holds a scale of A per column: a
        // wider swapped tile takes the widest it may have (H200, e4m3,
        // 128x4096x4096: 64x64 swapped against the unswapped template).
        if pick.swap && t.epilogue.fusion.scales() == Some(ScaleGranularity::Block) {
            pick.tile[1] = pick.tile[1].min(MAX_TRANSPOSED_BLOCK_SCALE_TILE_N);
        }
        let mut spec = pick.spec(t.types, t.majors).ok()?;
        spec.reduction = t.reduction;
        spec = spec
            .with_fusion(if pick.swap {
                t.epilogue.fusion.transposed()
            } else {
                t.epilogue.fusion.clone()
            })
            .ok()?;
        // The FP8 mainloop's promotion carries over; a pick whose tile
        // leaves no room for its second accumulator set is no pick, and
        // the template runs the problem.
        if let MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8 {
            promotion_interval, ..
        } = t.mainloop.policy
        {
            spec = spec.with_fp8_promotion(promotion_interval).ok()?;
        }
        spec.kernel().ok()?;
        Some(spec)
    }

    /// What was made so far.
    pub(crate) fn made(&self) -> impl Iterator<Item = &L> {
        self.slots
            .iter()
            .filter_map(|slot| slot.get().and_then(|(_, launcher)| launcher.as_ref()))
    }

    /// What was made so far, to change a setting of each.
    pub(crate) fn made_mut(&mut self) -> impl Iterator<Item = &mut L> {
        self.slots
            .iter_mut()
            .filter_map(|slot| slot.get_mut().and_then(|(_, launcher)| launcher.as_mut()))
    }
}
