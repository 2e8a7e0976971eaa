//! [`PipelineTmaAsync`]: a ring of stages filled by the copy engine (bulk
//! copies, TMA) and counted by mbarriers, sm_90 (CUTLASS's
//! `PipelineTmaAsync`, `sm90_pipeline.hpp`).
//!
//! Shared memory, from the ring's base: `stages` stages of `stage_bytes`,
//! then one `full` mbarrier per stage, then (with [`Release::EmptyBarrier`])
//! one `empty` mbarrier per stage, 8 bytes each. The ring's end is the first
//! `full` barrier, so a walk wraps where its stage pointer meets it.
//!
//! | step | who | emits |
//! |---|---|---|
//! | [`init`](PipelineTmaAsync::init) | every thread; the leader initializes | `full[s]` expecting 1 arrival, `empty[s]` expecting the consumers' arrivals, `fence.mbarrier_init`, then `bar.sync 0` (a cluster barrier in a cluster) |
//! | `producer_acquire` | the producer thread alone | the wait on `empty[s]` for the state's phase (none with [`Release::BlockBarrier`]), then `mbarrier.arrive.expect_tx [full[s]], tx_bytes` |
//! | copies | the producer thread | `cp.async.bulk` / `cp.async.bulk.tensor` completing on [`TmaAsyncState::full`] |
//! | `producer_commit` | | nothing: the copies' `complete_tx` completes the phase |
//! | `consumer_wait` | every consumer thread | `mbarrier.try_wait.parity [full[s]], phase` in a loop |
//! | `consumer_release` | every consumer thread | `bar.sync 0` ([`Release::BlockBarrier`]), an arrival on `empty[s]`, or on a peer CTA's `empty[s]` (multicast, [`RemoteArrival`]) |
//! | `advance` | each side | stage and barrier pointers one stage on; at the end back to the first, phase flipped |
//!
//! Multicast: a CTA's stage is filled by copies that CTAs of its cluster row
//! and column issue, so before a producer refills stage `s` every consumer
//! of every CTA its copies land in must have released it: the `empty`
//! barrier counts `consumers x (cluster_m + cluster_n - 1)` arrivals
//! ([`TmaAsyncConfig::multicast_arrivals`]), and `tx_bytes` counts every
//! byte that lands in this CTA, the peers' slices included.

use std::fmt;

use super::{Pipeline, PipelineState};
use crate::ptx::{Kernel, Label, Reg, RegClass};
use crate::{Error, Result};

/// Bytes of one mbarrier (`.b64`, 8-byte aligned).
pub const MBARRIER_BYTES: u32 = 8;

/// An mbarrier phase counts at most 2^20 - 1 arrivals and transaction bytes.
const MBARRIER_MAX_COUNT: u32 = (1 << 20) - 1;

/// How consumers hand a stage back to the producer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Release {
    /// Every thread of the block, the producer thread among them, passes
    /// `bar.sync 0` after reading the stage: no `empty` barriers. For a
    /// block that is its own producer (one of its threads issues the copies
    /// after the barrier), without clusters.
    BlockBarrier,
    /// An `empty` mbarrier per stage that completes after `arrivals`
    /// arrivals (consumer threads, or elected consumer threads per warp
    /// group, times the CTAs whose copies land here); the producer waits on
    /// it before refilling the stage.
    EmptyBarrier {
        /// Arrivals that complete one phase of an `empty` barrier.
        arrivals: u32,
    },
}

/// The host side of a [`PipelineTmaAsync`]: the ring's shape and counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TmaAsyncConfig {
    /// Stages of the ring.
    pub stages: u32,
    /// Bytes of one stage (a multiple of the buffers' alignment).
    pub stage_bytes: u32,
    /// Bytes the copies deliver to this CTA per stage: what the producer's
    /// `arrive.expect_tx` announces.
    pub tx_bytes: u32,
    /// How consumers release a stage.
    pub release: Release,
    /// CTAs of the cluster (1 without clusters): more than one makes `init`
    /// end with a cluster barrier, so that peers may arrive and multicast.
    pub cluster_ctas: u32,
}

impl TmaAsyncConfig {
    /// The `empty` barrier's arrivals of a multicast ring (CUTLASS's
    /// `multicast_consumer_arrival_count`): each of the `consumers`
    /// arrivals per CTA, from every CTA of this CTA's cluster row and
    /// column (`cluster_m + cluster_n - 1` CTAs, this one included).
    ///
    /// ```
    /// use cutlet::pipeline::TmaAsyncConfig;
    /// // Two consumer warpgroups, one arrival each, cluster 2 x 1.
    /// assert_eq!(TmaAsyncConfig::multicast_arrivals(2, [2, 1]), 4);
    /// assert_eq!(TmaAsyncConfig::multicast_arrivals(2, [1, 1]), 2);
    /// assert_eq!(TmaAsyncConfig::multicast_arrivals(1, [2, 4]), 5);
    /// ```
    pub fn multicast_arrivals(consumers: u32, [cluster_m, cluster_n]: [u32; 2]) -> u32 {
        consumers * (cluster_m + cluster_n).saturating_sub(1)
    }

    /// Offset of the first `full` barrier from the ring's base: the ring's
    /// stages end there.
    pub fn barrier_offset(&self) -> u32 {
        self.stages * self.stage_bytes
    }

    /// Bytes of the barriers: `full`, and `empty` where consumers release
    /// through them.
    pub fn barrier_bytes(&self) -> u32 {
        let per_stage = match self.release {
            Release::BlockBarrier => 1,
            Release::EmptyBarrier { .. } => 2,
        };
        per_stage * MBARRIER_BYTES * self.stages
    }

    /// Shared memory of the whole ring, stages and barriers.
    pub fn shared_bytes(&self) -> u32 {
        self.barrier_offset() + self.barrier_bytes()
    }

    /// Checks the counts: at least one stage, at least one CTA, 1 to
    /// 2^20 - 1 arrivals and at most 2^20 - 1 transaction bytes per phase,
    /// a ring below 4 GiB, and no cluster without `empty` barriers.
    ///
    /// Errors: [`Error::InvalidArgument`] naming the value.
    pub fn validate(&self) -> Result<()> {
        let invalid = |what: &str, value: String, needed: &str| {
            Err(Error::invalid_argument(what, value, needed))
        };
        if self.stages == 0 {
            return invalid("tma pipeline stages", "0".into(), "at least 1");
        }
        if self.cluster_ctas == 0 {
            return invalid("tma pipeline cluster", "0 CTAs".into(), "at least 1");
        }
        if self.tx_bytes > MBARRIER_MAX_COUNT {
            return invalid(
                "tma pipeline transaction bytes",
                self.tx_bytes.to_string(),
                "at most 2^20 - 1 per phase",
            );
        }
        match self.release {
            Release::EmptyBarrier { arrivals } if !(1..=MBARRIER_MAX_COUNT).contains(&arrivals) => {
                return invalid(
                    "tma pipeline empty-barrier arrivals",
                    arrivals.to_string(),
                    "1 to 2^20 - 1",
                );
            }
            Release::BlockBarrier if self.cluster_ctas > 1 => {
                return invalid(
                    "tma pipeline release",
                    format!("a block barrier in a cluster of {}", self.cluster_ctas),
                    "empty mbarriers (a block barrier cannot wait for peer CTAs)",
                );
            }
            _ => {}
        }
        let total = u64::from(self.stages) * u64::from(self.stage_bytes)
            + 2 * u64::from(MBARRIER_BYTES) * u64::from(self.stages);
        if total > u64::from(u32::MAX) || !self.stage_bytes.is_multiple_of(MBARRIER_BYTES) {
            return invalid(
                "tma pipeline",
                format!("{} stages of {} bytes", self.stages, self.stage_bytes),
                "stages of a multiple of 8 bytes, a ring below 4 GiB",
            );
        }
        Ok(())
    }
}

/// A phase operand: a register that a walk flips, or a parity known at
/// generation time (a walk unrolled on the host).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parity {
    /// A `.b32` register holding 0 or 1.
    Reg(Reg),
    /// 0 or 1.
    Imm(u32),
}

impl fmt::Display for Parity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Parity::Reg(r) => write!(f, "{r}"),
            Parity::Imm(bit) => write!(f, "{bit}"),
        }
    }
}

/// A walk of a [`PipelineTmaAsync`] in registers: the stage index as the
/// addresses it selects, and the phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TmaAsyncState {
    /// Shared-window address of the stage (`.b32`).
    pub stage: Reg,
    /// Shared-window address of the stage's `full` mbarrier (`.b32`): the
    /// barrier the producer's copies complete on. The `empty` barrier lies
    /// `stages x 8` bytes after it.
    pub full: Reg,
    /// The phase parity waits on this stage name.
    pub phase: Parity,
}

/// Where a consumer thread arrives to release a stage of a multicast ring:
/// the `empty` barrier of cluster CTA `cta`, where `signal` holds (CUTLASS
/// spreads a warpgroup's arrivals over the cluster, one signalling thread
/// per destination CTA).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RemoteArrival {
    /// The destination CTA's `%cluster_ctarank` (`.b32`).
    pub cta: Reg,
    /// Whether this thread arrives (`.pred`).
    pub signal: Reg,
}

/// An mbarrier-counted ring in one kernel: its configuration, the base of
/// its shared memory and the address of its first `full` barrier.
#[derive(Clone, Debug)]
pub struct PipelineTmaAsync {
    config: TmaAsyncConfig,
    name: &'static str,
    base: Reg,
    barriers: Reg,
    remote: Option<RemoteArrival>,
}

impl PipelineTmaAsync {
    /// The ring of `config` at shared-window address `base` (`.b32`):
    /// allocates the `.b32` register of the first `full` barrier's address
    /// and sets it (`add.u32 barriers, base, barrier_offset`). `name`
    /// prefixes the ring's labels (`<name>_init_done`); `remote`, where
    /// given, makes consumers release stages by arriving on a cluster
    /// CTA's `empty` barrier.
    ///
    /// Errors: [`TmaAsyncConfig::validate`]'s; [`Error::InvalidArgument`]
    /// for a remote arrival without `empty` barriers.
    pub fn new(
        k: &mut Kernel,
        config: TmaAsyncConfig,
        base: Reg,
        name: &'static str,
        remote: Option<RemoteArrival>,
    ) -> Result<Self> {
        config.validate()?;
        if remote.is_some() && config.release == Release::BlockBarrier {
            return Err(Error::invalid_argument(
                "tma pipeline release",
                "a remote arrival with a block barrier",
                "empty mbarriers for consumers to arrive on",
            ));
        }
        let barriers = k.reg(RegClass::B32);
        k.push(format!(
            "add.u32 {barriers}, {base}, {};",
            config.barrier_offset()
        ));
        Ok(PipelineTmaAsync {
            config,
            name,
            base,
            barriers,
            remote,
        })
    }

    /// The ring's configuration.
    pub fn config(&self) -> &TmaAsyncConfig {
        &self.config
    }

    /// Shared-window address of the ring's first stage.
    pub fn base(&self) -> Reg {
        self.base
    }

    /// Shared-window address of the first `full` barrier (the ring's end).
    pub fn barriers(&self) -> Reg {
        self.barriers
    }

    /// Byte distance from a stage's `full` barrier to its `empty` barrier.
    fn empty_offset(&self) -> u32 {
        self.config.stages * MBARRIER_BYTES
    }

    /// Initializes the barriers, by the thread where `leader` (`.pred`)
    /// holds: `full[s]` expects one arrival (the producer's
    /// `arrive.expect_tx`), `empty[s]` the consumers' arrivals; then
    /// `fence.mbarrier_init.release.cluster` and, by every thread,
    /// `bar.sync 0` (a cluster barrier where the cluster has more than one
    /// CTA): after it, every thread of the block (cluster) may use them.
    pub fn init(&self, k: &mut Kernel, leader: Reg) -> Result<()> {
        let skip = k.new_label(&format!("{}_init_done", self.name))?;
        k.push(format!("@!{leader} bra {};", skip.name()));
        let counts = match self.config.release {
            Release::BlockBarrier => vec![(0, 1)],
            Release::EmptyBarrier { arrivals } => vec![(0, 1), (self.empty_offset(), arrivals)],
        };
        for (offset, count) in counts {
            for s in 0..self.config.stages {
                let bar = format!("{}+{}", self.barriers, offset + MBARRIER_BYTES * s);
                k.snippet(
                    "sm90/mbarrier",
                    "mbarrier_init",
                    &[("bar", &bar), ("count", &count)],
                )?;
            }
        }
        k.snippet("sm90/mbarrier", "fence_mbarrier_init", &[])?;
        k.place_label(&skip);
        if self.config.cluster_ctas > 1 {
            k.snippet("sm90/cluster", "cluster_sync", &[])?;
        } else {
            k.push("bar.sync 0;");
        }
        Ok(())
    }

    /// The consumer's first state in fresh registers (stage, `full`
    /// barrier, phase, allocated in this order): stage 0, phase 0.
    pub fn consumer_start(&self, k: &mut Kernel) -> TmaAsyncState {
        self.start(k, PipelineState::consumer_start(self.config.stages))
    }

    /// The producer's first state in fresh registers: stage 0, phase 1
    /// (the stages start empty).
    pub fn producer_start(&self, k: &mut Kernel) -> TmaAsyncState {
        self.start(k, PipelineState::producer_start(self.config.stages))
    }

    fn start(&self, k: &mut Kernel, at: PipelineState) -> TmaAsyncState {
        let (stage, full, phase) = (
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
        );
        k.push(format!("mov.u32 {stage}, {};", self.base));
        k.push(format!("mov.u32 {full}, {};", self.barriers));
        k.push(format!("mov.u32 {phase}, {};", at.phase()));
        TmaAsyncState {
            stage,
            full,
            phase: Parity::Reg(phase),
        }
    }

    /// The state `at` (a walk unrolled on the host) in the given `stage`
    /// and `full` registers: `add.u32 stage, base, index x stage_bytes`,
    /// `add.u32 full, barriers, index x 8`; its phase is an immediate.
    ///
    /// Errors: [`Error::InvalidArgument`] when `at` walks a ring of
    /// another stage count.
    pub fn state_at(
        &self,
        k: &mut Kernel,
        (stage, full): (Reg, Reg),
        at: &PipelineState,
    ) -> Result<TmaAsyncState> {
        if at.stages() != self.config.stages {
            return Err(Error::invalid_argument(
                "pipeline state",
                format!("a walk of {} stages", at.stages()),
                format!("a walk of this ring's {} stages", self.config.stages),
            ));
        }
        let index = at.index();
        k.push(format!(
            "add.u32 {stage}, {}, {};",
            self.base,
            index * self.config.stage_bytes
        ));
        k.push(format!(
            "add.u32 {full}, {}, {};",
            self.barriers,
            MBARRIER_BYTES * index
        ));
        Ok(TmaAsyncState {
            stage,
            full,
            phase: Parity::Imm(at.phase()),
        })
    }

    /// [`advance`](Pipeline::advance) at a loop's back edge, the wrap off
    /// the common path: `add` the stage and barrier pointers; where the
    /// stage pointer is not at the ring's end, branch to `top`; else reset
    /// both, flip the phase and `bra.uni top`. `scratch` is a `.pred` the
    /// caller may reuse.
    pub fn advance_looping(
        &self,
        k: &mut Kernel,
        state: &TmaAsyncState,
        scratch: Reg,
        top: &Label,
    ) -> Result<()> {
        let phase = self.phase_reg(state)?;
        let TmaAsyncState { stage, full, .. } = *state;
        k.push(format!(
            "add.u32 {stage}, {stage}, {};",
            self.config.stage_bytes
        ));
        k.push(format!("add.u32 {full}, {full}, {MBARRIER_BYTES};"));
        // The barriers follow the last stage: reaching them wraps the ring.
        k.push(format!(
            "setp.ne.u32 {scratch}, {stage}, {};",
            self.barriers
        ));
        k.push(format!("@{scratch} bra {};", top.name()));
        k.push(format!("mov.u32 {stage}, {};", self.base));
        k.push(format!("mov.u32 {full}, {};", self.barriers));
        k.push(format!("xor.b32 {phase}, {phase}, 1;"));
        k.push(format!("bra.uni {};", top.name()));
        Ok(())
    }

    /// The producer's end in a cluster (CUTLASS's `producer_tail`): waits,
    /// stage by stage from `state`, until the consumers released every
    /// stage, so that no CTA exits while peers may still arrive on its
    /// barriers. Advances `state` `stages` times (back to where it began,
    /// phase flipped). Nothing with [`Release::BlockBarrier`].
    pub fn producer_tail(&self, k: &mut Kernel, state: &TmaAsyncState) -> Result<()> {
        if self.config.release == Release::BlockBarrier {
            return Ok(());
        }
        for _ in 0..self.config.stages {
            self.wait_empty(k, state)?;
            self.advance(k, state)?;
        }
        Ok(())
    }

    fn wait_empty(&self, k: &mut Kernel, state: &TmaAsyncState) -> Result<()> {
        let empty = format!("{}+{}", state.full, self.empty_offset());
        k.snippet(
            "sm90/mbarrier",
            "mbarrier_wait_parity",
            &[("bar", &empty), ("phase", &state.phase)],
        )?;
        Ok(())
    }

    fn phase_reg(&self, state: &TmaAsyncState) -> Result<Reg> {
        match state.phase {
            Parity::Reg(r) => Ok(r),
            Parity::Imm(bit) => Err(Error::invalid_argument(
                "pipeline state",
                format!("a state with the immediate phase {bit}"),
                "a state in registers (consumer_start or producer_start) to advance",
            )),
        }
    }
}

impl PipelineTmaAsync {
    /// [`producer_acquire`](Pipeline::producer_acquire) announcing the
    /// bytes in `tx_bytes` (`.b32`, counted at run time: a stage whose
    /// boxes are smaller than the tile's, such as an A box clipped to
    /// M's rows) instead of the configuration's `tx_bytes`.
    ///
    /// # Errors
    /// As [`producer_acquire`](Pipeline::producer_acquire).
    pub fn producer_acquire_counted(
        &self,
        k: &mut Kernel,
        state: &TmaAsyncState,
        tx_bytes: Reg,
    ) -> Result<()> {
        self.acquire_announcing(k, state, &tx_bytes)
    }

    /// The wait on the stage's `empty` barrier (with
    /// [`Release::EmptyBarrier`]), then one arrival on its `full` barrier
    /// announcing `bytes`.
    fn acquire_announcing(
        &self,
        k: &mut Kernel,
        state: &TmaAsyncState,
        bytes: &dyn fmt::Display,
    ) -> Result<()> {
        if let Release::EmptyBarrier { .. } = self.config.release {
            self.wait_empty(k, state)?;
        }
        k.snippet(
            "sm90/mbarrier",
            "mbarrier_arrive_expect_tx",
            &[("bar", &state.full), ("bytes", bytes)],
        )?;
        Ok(())
    }
}

impl Pipeline for PipelineTmaAsync {
    type State = TmaAsyncState;

    /// By the producer thread alone: with `empty` barriers, waits on the
    /// stage's for the state's phase; then arrives once on its `full`
    /// barrier announcing `tx_bytes` (`mbarrier.arrive.expect_tx`). With
    /// [`Release::BlockBarrier`] the consumers' `bar.sync` has already
    /// released the stage.
    fn producer_acquire(&self, k: &mut Kernel, state: &TmaAsyncState) -> Result<()> {
        self.acquire_announcing(k, state, &self.config.tx_bytes)
    }

    /// Emits nothing: the copies complete their bytes on the `full`
    /// barrier themselves (`complete_tx`), and the phase ends when all the
    /// announced bytes have landed.
    fn producer_commit(&self, _k: &mut Kernel, _state: &TmaAsyncState) -> Result<()> {
        Ok(())
    }

    /// Spins on `mbarrier.try_wait.parity` of the stage's `full` barrier
    /// for the state's phase: the stage's bytes are visible after it.
    fn consumer_wait(&self, k: &mut Kernel, state: &TmaAsyncState) -> Result<()> {
        k.snippet(
            "sm90/mbarrier",
            "mbarrier_wait_parity",
            &[("bar", &state.full), ("phase", &state.phase)],
        )?;
        Ok(())
    }

    /// [`Release::BlockBarrier`]: `bar.sync 0`. Else one arrival on the
    /// stage's `empty` barrier: this CTA's, or (with a [`RemoteArrival`])
    /// cluster CTA `cta`'s where `signal` holds.
    fn consumer_release(&self, k: &mut Kernel, state: &TmaAsyncState) -> Result<()> {
        match (self.config.release, self.remote) {
            (Release::BlockBarrier, _) => k.push("bar.sync 0;"),
            (Release::EmptyBarrier { .. }, None) => {
                let empty = format!("{}+{}", state.full, self.empty_offset());
                k.snippet("sm90/mbarrier", "mbarrier_arrive", &[("bar", &empty)])?;
            }
            (Release::EmptyBarrier { .. }, Some(remote)) => k.snippet(
                "sm90/mbarrier",
                "mbarrier_arrive_cluster",
                &[
                    ("bar", &state.full),
                    ("offset", &self.empty_offset()),
                    ("cta", &remote.cta),
                    ("pred", &remote.signal),
                ],
            )?,
        }
        Ok(())
    }

    /// Branch-free: `add` the stage and barrier pointers; where the stage
    /// pointer reaches the ring's end (a fresh predicate), reset both and
    /// flip the phase. Errors for a state whose phase is an immediate.
    fn advance(&self, k: &mut Kernel, state: &TmaAsyncState) -> Result<()> {
        let phase = self.phase_reg(state)?;
        let TmaAsyncState { stage, full, .. } = *state;
        let wrap = k.reg(RegClass::Pred);
        k.push(format!(
            "add.u32 {stage}, {stage}, {};",
            self.config.stage_bytes
        ));
        k.push(format!("add.u32 {full}, {full}, {MBARRIER_BYTES};"));
        k.push(format!("setp.eq.u32 {wrap}, {stage}, {};", self.barriers));
        k.push(format!("@{wrap} mov.u32 {stage}, {};", self.base));
        k.push(format!("@{wrap} mov.u32 {full}, {};", self.barriers));
        k.push(format!("@{wrap} xor.b32 {phase}, {phase}, 1;"));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{Release, TmaAsyncConfig};

    fn config(release: Release, cluster_ctas: u32) -> TmaAsyncConfig {
        TmaAsyncConfig {
            stages: 3,
            stage_bytes: 1024,
            tx_bytes: 1024,
            release,
            cluster_ctas,
        }
    }

    #[test]
    fn layout_places_full_then_empty_barriers_after_the_stages() {
        let c = config(Release::EmptyBarrier { arrivals: 2 }, 1);
        assert_eq!(c.barrier_offset(), 3072);
        assert_eq!(c.barrier_bytes(), 48);
        assert_eq!(c.shared_bytes(), 3120);
        let c = config(Release::BlockBarrier, 1);
        assert_eq!(c.barrier_bytes(), 24);
        assert!(c.validate().is_ok());
    }

    #[test]
    fn validate_names_what_cannot_work() {
        let bad = [
            TmaAsyncConfig {
                stages: 0,
                ..config(Release::BlockBarrier, 1)
            },
            TmaAsyncConfig {
                tx_bytes: 1 << 20,
                ..config(Release::BlockBarrier, 1)
            },
            TmaAsyncConfig {
                stage_bytes: 1020,
                ..config(Release::BlockBarrier, 1)
            },
            config(Release::EmptyBarrier { arrivals: 0 }, 1),
            config(Release::BlockBarrier, 2),
            config(Release::EmptyBarrier { arrivals: 1 }, 0),
        ];
        for c in bad {
            assert!(c.validate().is_err(), "{c:?}");
        }
        assert!(config(Release::EmptyBarrier { arrivals: 4 }, 2)
            .validate()
            .is_ok());
    }
}
