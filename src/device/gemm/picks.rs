//! [`ProblemPicks`]: the SM90 kernel of a [`Gemm`](super::Gemm) the builder
//! picks for the device, chosen again for each problem as CUTLASS's
//! `KernelScheduleAuto` would (the schedule, tile and cluster of
//! [`sm90_spec_for_problem`](crate::kernel::gemm::sm90_spec_for_problem)),
//! each kernel made and compiled on the first call that needs it.

use std::sync::OnceLock;

use super::launcher::{check_spec, Launcher};
use crate::device::Device;
use crate::gemm::GemmShape;
use crate::kernel::gemm::{sm90_spec, GemmSpec, Sm90Pick, Sm90PickFacts};

/// Kernels one GEMM keeps beside its default: more than the distinct
/// picks [`Sm90Pick::for_problem`] makes (five today).
const SLOTS: usize = 8;

/// The per-problem kernels of a GEMM whose default is `template` (an SM90
/// spec: its types, majors and fused epilogue are every pick's).
#[derive(Debug)]
pub(crate) struct ProblemPicks {
    template: GemmSpec,
    /// What the template's types and majors allow the pick
    /// ([`Sm90PickFacts`]), worked out once.
    facts: Sm90PickFacts,
    /// The kernel behind each pick's register-store form (the SM80 kernel
    /// for operands TMA cannot read); `None` where the SM90 kernel was
    /// pinned, so that its refusals of A and B state TMA's rules.
    fallback: Option<GemmSpec>,
    sm_count: u32,
    /// Each pick made so far and its launcher (`None` where its spec could
    /// not be built: the default runs those problems). Filled in order, never
    /// emptied, so a launcher handed out lives as long as the picks.
    slots: [OnceLock<(Sm90Pick, Option<Launcher>)>; SLOTS],
}

impl ProblemPicks {
    /// Picks for a GEMM whose default kernel is `template` on a device of
    /// `sm_count` SMs, each pick's register-store form then `fallback`
    /// behind it where that is given.
    pub(crate) fn new(template: GemmSpec, fallback: Option<GemmSpec>, sm_count: u32) -> Self {
        let facts = Sm90PickFacts::of(template.types, template.majors);
        ProblemPicks {
            facts,
            template,
            fallback,
            sm_count,
            slots: Default::default(),
        }
    }

    /// The launcher of the kernel picked for `shape`, or `None` where that
    /// is the default kernel (or could not be built): the caller's own
    /// launcher then runs it. `check_scalars` is the caller's setting, given
    /// to a launcher made here (`set_check_scalars` changes those made
    /// before: [`made_mut`](Self::made_mut)).
    pub(crate) fn launcher(
        &self,
        device: &Device,
        shape: &GemmShape,
        check_scalars: bool,
    ) -> Option<&Launcher> {
        let clamp = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
        let problem = [shape.m, shape.n, shape.k, shape.l].map(clamp);
        let t = &self.template;
        let pick = Sm90Pick::for_problem(t.types.a, t.majors.a, problem, self.sm_count, self.facts);
        if pick.schedule == t.schedule && pick.tile == t.tile && pick.cluster == t.cluster[..2] {
            return None;
        }
        for slot in &self.slots {
            let made = || (pick, self.make(device, pick, check_scalars));
            let (made, launcher) = slot.get_or_init(made);
            // Another call may have filled this slot with another pick.
            if *made == pick {
                return launcher.as_ref();
            }
        }
        None
    }

    /// The launcher of `pick`: its spec (the template's types, majors and
    /// fusion), with its register-store form and the fallback behind it.
    fn make(&self, device: &Device, pick: Sm90Pick, check_scalars: bool) -> Option<Launcher> {
        let t = &self.template;
        let mut spec = sm90_spec(
            t.types.a,
            t.types.b,
            t.types.d,
            t.types.acc,
            t.majors.a,
            t.majors.b,
            t.majors.d,
            pick.schedule,
            pick.tile,
            [pick.cluster[0], pick.cluster[1]],
        )
        .ok()?;
        spec.epilogue.fusion = t.epilogue.fusion.clone();
        check_spec(&spec).ok()?;
        let mut launcher = Launcher::with_register_store(device, spec, self.fallback.clone());
        launcher.set_check_scalars(check_scalars);
        Some(launcher)
    }

    /// The launchers made so far.
    pub(crate) fn made(&self) -> impl Iterator<Item = &Launcher> {
        self.slots
            .iter()
            .filter_map(|slot| slot.get().and_then(|(_, launcher)| launcher.as_ref()))
    }

    /// The launchers made so far, to change a setting of each.
    pub(crate) fn made_mut(&mut self) -> impl Iterator<Item = &mut Launcher> {
        self.slots
            .iter_mut()
            .filter_map(|slot| slot.get_mut().and_then(|(_, launcher)| launcher.as_mut()))
    }
}
