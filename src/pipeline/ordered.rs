//! [`OrderedSequenceBarrier`]: groups of threads (the two consumer
//! warpgroups of a ping-pong kernel) take turns through a sequence of
//! stages (CUTLASS's `OrderedSequenceBarrier<Depth, Length>`,
//! `sm90_pipeline.hpp`).
//!
//! `depth x length` mbarriers, `barrier[d][g]` at `(d x length + g) x 8`
//! bytes from the base, each completing after `group_size` arrivals. Group
//! `g` walks the `depth` stages with a [`PipelineState`]: at stage `d` it
//! waits on `barrier[d][g]`, does its work, then arrives on
//! `barrier[d][(g + 1) % length]` (handing stage `d` to the next group) and
//! moves on. Group 0 starts a phase ahead, so its first pass through the
//! stages waits for nobody; every later turn of every group waits for the
//! group before it. A ping-pong kernel uses depth 2 (the MMA, then the
//! epilogue) and length 2: the warpgroups alternate on the tensor cores
//! and, separately, on the epilogue's stores.
//!
//! | step | emits |
//! |---|---|
//! | [`init`](OrderedSequenceBarrier::init) | by the leader: `mbarrier.init` of each barrier with `group_size`, `fence.mbarrier_init`; by all: `bar.sync 0` ([`init_before_sync`](OrderedSequenceBarrier::init_before_sync): the same without it) |
//! | [`start`](OrderedSequenceBarrier::start) | the group's walk in registers: its own and its successor's barrier of stage 0, the end, the phase (1 for group 0) |
//! | [`wait`](OrderedSequenceBarrier::wait) | `mbarrier.try_wait.parity` on the group's barrier of the stage |
//! | [`arrive`](OrderedSequenceBarrier::arrive) | `mbarrier.arrive` on the successor's barrier of the stage, then [`advance`](OrderedSequenceBarrier::advance) |

use super::{PipelineState, MBARRIER_BYTES};
use crate::ptx::{Kernel, Reg, RegClass};
use crate::{Error, Result};

/// An mbarrier phase counts at most 2^20 - 1 arrivals.
const MAX_GROUP_SIZE: u32 = (1 << 20) - 1;

/// One group's walk through the stages, in registers (`.b32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderedState {
    /// Shared-window address of `barrier[stage][group]`: where this group
    /// waits for its turn.
    pub wait: Reg,
    /// Shared-window address of `barrier[stage][(group + 1) % length]`:
    /// where this group hands the stage on.
    pub signal: Reg,
    /// Shared-window address one past the last barrier: the wrap point.
    pub end: Reg,
    /// The phase parity this group waits for.
    pub phase: Reg,
}

/// The ordered barrier of `length` groups through `depth` stages, its
/// mbarriers at a shared-window base address.
#[derive(Clone, Copy, Debug)]
pub struct OrderedSequenceBarrier {
    depth: u32,
    length: u32,
    group_size: u32,
    base: Reg,
}

impl OrderedSequenceBarrier {
    /// The barrier at `base` (a `.b32` shared-window address, 8-byte
    /// aligned, [`shared_bytes`](Self::shared_bytes) long) of `length`
    /// groups of `group_size` threads through `depth` stages.
    ///
    /// Errors: [`Error::InvalidArgument`] for no stage, fewer than 2
    /// groups, or a group size outside 1 to 2^20 - 1.
    pub fn new(depth: u32, length: u32, group_size: u32, base: Reg) -> Result<Self> {
        if depth == 0 {
            return Err(Error::invalid_argument(
                "ordered barrier depth",
                depth,
                "at least 1 stage",
            ));
        }
        if length < 2 {
            return Err(Error::invalid_argument(
                "ordered barrier length",
                length,
                "at least 2 groups taking turns",
            ));
        }
        if !(1..=MAX_GROUP_SIZE).contains(&group_size) {
            return Err(Error::invalid_argument(
                "ordered barrier group size",
                group_size,
                "1 to 2^20 - 1 arrivals",
            ));
        }
        Ok(OrderedSequenceBarrier {
            depth,
            length,
            group_size,
            base,
        })
    }

    /// Shared memory of `depth x length` mbarriers.
    ///
    /// ```
    /// # use cutlet::pipeline::OrderedSequenceBarrier;
    /// assert_eq!(OrderedSequenceBarrier::shared_bytes(2, 2), 32);
    /// ```
    pub fn shared_bytes(depth: u32, length: u32) -> u32 {
        depth * length * MBARRIER_BYTES
    }

    /// Bytes from one stage's barriers to the next stage's.
    fn stage_stride(&self) -> u32 {
        self.length * MBARRIER_BYTES
    }

    /// The first state of group `group` on the host: stage 0, phase 1 for
    /// group 0 (it goes first), 0 for the others.
    pub fn host_start(&self, group: u32) -> PipelineState {
        if group == 0 {
            PipelineState::producer_start(self.depth)
        } else {
            PipelineState::consumer_start(self.depth)
        }
    }

    /// Initializes every barrier to `group_size` arrivals, by the thread
    /// where `leader` (`.pred`) holds, then `fence.mbarrier_init` and, by
    /// every thread, `bar.sync 0`.
    pub fn init(&self, k: &mut Kernel, leader: Reg) -> Result<()> {
        self.init_before_sync(k, leader)?;
        k.push("bar.sync 0;");
        Ok(())
    }

    /// [`init`](Self::init) without its `bar.sync 0`: for a kernel whose
    /// every thread passes a block (or cluster) barrier of its own after
    /// this and before any use of these barriers (the SM90 GEMM's
    /// mainloop setup), so that the block synchronizes once.
    pub fn init_before_sync(&self, k: &mut Kernel, leader: Reg) -> Result<()> {
        let skip = k.new_label("ordered_init_done")?;
        k.push(format!("@!{leader} bra {};", skip.name()));
        for b in 0..self.depth * self.length {
            let bar = format!("{}+{}", self.base, b * MBARRIER_BYTES);
            k.snippet(
                "sm90/mbarrier",
                "mbarrier_init",
                &[("bar", &bar), ("count", &self.group_size)],
            )?;
        }
        k.snippet("sm90/mbarrier", "fence_mbarrier_init", &[])?;
        k.place_label(&skip);
        Ok(())
    }

    /// The walk of the group whose index (`0..length`) is in `group`
    /// (`.b32`): allocates its registers and sets them to stage 0 of
    /// [`host_start`](Self::host_start).
    pub fn start(&self, k: &mut Kernel, group: Reg) -> OrderedState {
        let (wait, signal, end, phase) = (
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
        );
        let first = k.reg(RegClass::Pred);
        let base = self.base;
        k.push(format!(
            "mad.lo.u32 {wait}, {group}, {MBARRIER_BYTES}, {base};"
        ));
        k.push(format!("add.u32 {signal}, {group}, 1;"));
        k.rem_u32_by(signal, signal, self.length);
        k.push(format!(
            "mad.lo.u32 {signal}, {signal}, {MBARRIER_BYTES}, {base};"
        ));
        k.push(format!(
            "add.u32 {end}, {base}, {};",
            Self::shared_bytes(self.depth, self.length)
        ));
        k.push(format!("setp.eq.u32 {first}, {group}, 0;"));
        k.push(format!("selp.u32 {phase}, 1, 0, {first};"));
        OrderedState {
            wait,
            signal,
            end,
            phase,
        }
    }

    /// Waits for this group's turn at the current stage.
    pub fn wait(&self, k: &mut Kernel, state: &OrderedState) -> Result<()> {
        k.snippet(
            "sm90/mbarrier",
            "mbarrier_wait_parity",
            &[("bar", &state.wait), ("phase", &state.phase)],
        )?;
        Ok(())
    }

    /// Hands the current stage to the next group (one arrival of this
    /// thread on its barrier) and moves to the next stage.
    pub fn arrive(&self, k: &mut Kernel, state: &OrderedState) -> Result<()> {
        k.snippet(
            "sm90/mbarrier",
            "mbarrier_arrive",
            &[("bar", &state.signal)],
        )?;
        self.advance(k, state);
        Ok(())
    }

    /// Moves to the next stage without arriving: both barrier pointers one
    /// stage on; past the last stage back to the first, phase flipped.
    pub fn advance(&self, k: &mut Kernel, state: &OrderedState) {
        let OrderedState {
            wait,
            signal,
            end,
            phase,
        } = *state;
        let (stride, total) = (
            self.stage_stride(),
            Self::shared_bytes(self.depth, self.length),
        );
        let wrap = k.reg(RegClass::Pred);
        k.push(format!("add.u32 {wait}, {wait}, {stride};"));
        k.push(format!("add.u32 {signal}, {signal}, {stride};"));
        k.push(format!("setp.ge.u32 {wrap}, {wait}, {end};"));
        k.push(format!("@{wrap} sub.u32 {wait}, {wait}, {total};"));
        k.push(format!("@{wrap} sub.u32 {signal}, {signal}, {total};"));
        k.push(format!("@{wrap} xor.b32 {phase}, {phase}, 1;"));
    }
}

#[cfg(test)]
mod tests {
    use super::OrderedSequenceBarrier;
    use crate::pipeline::PipelineState;
    use crate::ptx::{Kernel, RegClass};

    /// mbarriers on the host: completed phases and pending arrivals.
    struct Barriers {
        completed: Vec<u32>,
        pending: Vec<u32>,
        group_size: u32,
    }

    impl Barriers {
        /// `try_wait.parity p` succeeds once the phase of parity `p` that
        /// precedes the current one has completed: the current phase's
        /// parity differs from `p`.
        fn try_wait(&self, b: usize, parity: u32) -> bool {
            self.completed[b] & 1 != parity
        }

        fn arrive(&mut self, b: usize) {
            self.pending[b] += 1;
            if self.pending[b] == self.group_size {
                self.pending[b] = 0;
                self.completed[b] += 1;
            }
        }
    }

    /// Runs `length` groups of `group_size` threads through `turns` turns
    /// of `depth` stages each, under every thread's wait / work / arrive,
    /// scheduling greedily; returns the order of (stage, group) work.
    fn simulate(depth: u32, length: u32, group_size: u32, turns: u32) -> Vec<(u32, u32)> {
        let k = &mut Kernel::new("k").unwrap();
        let base = k.reg(RegClass::B32);
        let order = OrderedSequenceBarrier::new(depth, length, group_size, base).unwrap();
        let mut barriers = Barriers {
            completed: vec![0; (depth * length) as usize],
            pending: vec![0; (depth * length) as usize],
            group_size,
        };
        // Per group: its state and how many stages it has finished.
        let mut groups: Vec<(PipelineState, u32)> =
            (0..length).map(|g| (order.host_start(g), 0)).collect();
        let mut log = Vec::new();
        let steps = depth * turns;
        // Groups are scheduled from the last to the first: order comes only
        // from the barriers.
        while groups.iter().any(|(_, done)| *done < steps) {
            let runnable = (0..length).rev().find(|&g| {
                let (s, done) = groups[g as usize];
                done < steps && barriers.try_wait((s.index() * length + g) as usize, s.phase())
            });
            let g = runnable.expect("deadlock: no group may proceed");
            let (s, done) = &mut groups[g as usize];
            log.push((s.index(), g));
            let next = (s.index() * length + (g + 1) % length) as usize;
            for _ in 0..group_size {
                barriers.arrive(next);
            }
            s.advance();
            *done += 1;
        }
        log
    }

    #[test]
    fn groups_take_each_stage_in_turn() {
        for (depth, length) in [(1, 2), (2, 2), (2, 3), (3, 2)] {
            let log = simulate(depth, length, 4, 5);
            for d in 0..depth {
                let at_stage: Vec<u32> = log
                    .iter()
                    .filter(|(s, _)| *s == d)
                    .map(|(_, g)| *g)
                    .collect();
                let expected: Vec<u32> = (0..at_stage.len() as u32).map(|i| i % length).collect();
                assert_eq!(
                    at_stage, expected,
                    "depth {depth} length {length} stage {d}"
                );
            }
        }
    }

    #[test]
    fn bad_shapes_are_refused() {
        let k = &mut Kernel::new("k").unwrap();
        let base = k.reg(RegClass::B32);
        assert!(OrderedSequenceBarrier::new(0, 2, 128, base).is_err());
        assert!(OrderedSequenceBarrier::new(2, 1, 128, base).is_err());
        assert!(OrderedSequenceBarrier::new(2, 2, 0, base).is_err());
        assert!(OrderedSequenceBarrier::new(2, 2, 128, base).is_ok());
    }
}
