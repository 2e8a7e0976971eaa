//! [`PipelineState`]: a walk of a ring of stages, on the host (CUTLASS's
//! `PipelineState<Stages>`). The emitted kernels keep the same walk in
//! registers; this model says what those registers hold after any number of
//! steps, and is what tests check them against.

/// A position in a ring of `stages` stages: the stage `index`, the `phase`
/// (0 or 1, flipped each time the walk wraps from the last stage to the
/// first) and the `count` of steps taken.
///
/// ```
/// use cutlet::pipeline::PipelineState;
///
/// let mut s = PipelineState::consumer_start(3);
/// let walk: Vec<(u32, u32)> = (0..7)
///     .map(|_| {
///         let at = (s.index(), s.phase());
///         s.advance();
///         at
///     })
///     .collect();
/// assert_eq!(walk, [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1), (0, 0)]);
/// assert_eq!(s.count(), 7);
///
/// // The producer starts a phase ahead: every stage is empty at first, so
/// // its wait on a fresh `empty` mbarrier (parity 1) ends at once.
/// let p = PipelineState::producer_start(3);
/// assert_eq!((p.index(), p.phase()), (0, 1));
/// assert_eq!(p.advanced_by(4), PipelineState::producer_start(3).advanced_by(1).advanced_by(3));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PipelineState {
    stages: u32,
    index: u32,
    phase: u32,
    count: u32,
}

impl PipelineState {
    /// The consumer's first state: stage 0, phase 0 (it waits for the first
    /// phase of each `full` barrier to complete).
    ///
    /// # Panics
    /// If `stages` is 0 (a ring has at least one stage; stage counts come
    /// from validated specs).
    pub const fn consumer_start(stages: u32) -> PipelineState {
        assert!(stages > 0, "a pipeline has at least one stage");
        PipelineState {
            stages,
            index: 0,
            phase: 0,
            count: 0,
        }
    }

    /// The producer's first state: stage 0, phase 1 (CUTLASS's
    /// `make_producer_start_state`: the stages start empty, so the wait for
    /// the "previous" phase of each `empty` barrier passes at once).
    ///
    /// # Panics
    /// If `stages` is 0.
    pub const fn producer_start(stages: u32) -> PipelineState {
        let mut s = PipelineState::consumer_start(stages);
        s.phase = 1;
        s
    }

    /// Stages of the ring.
    pub const fn stages(&self) -> u32 {
        self.stages
    }

    /// The stage this state names, `0..stages`.
    pub const fn index(&self) -> u32 {
        self.index
    }

    /// The phase parity a wait on this stage's barrier names (0 or 1).
    pub const fn phase(&self) -> u32 {
        self.phase
    }

    /// Steps taken since the start.
    pub const fn count(&self) -> u32 {
        self.count
    }

    /// One step: the next stage; the phase flips when the index wraps.
    pub fn advance(&mut self) {
        self.index += 1;
        self.count += 1;
        if self.index == self.stages {
            self.index = 0;
            self.phase ^= 1;
        }
    }

    /// This state moved `steps` stages on: the phase flips once per wrap.
    pub fn advanced_by(mut self, steps: u32) -> PipelineState {
        let total = u64::from(self.index) + u64::from(steps);
        let wraps = total / u64::from(self.stages);
        self.index = (total % u64::from(self.stages)) as u32;
        self.phase ^= (wraps & 1) as u32;
        self.count = self.count.wrapping_add(steps);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::PipelineState;

    #[test]
    fn step_by_step_matches_the_closed_form() {
        for stages in 1..=9 {
            let mut s = PipelineState::consumer_start(stages);
            for step in 0..1000u32 {
                assert_eq!(s.index(), step % stages, "stages {stages} step {step}");
                assert_eq!(
                    s.phase(),
                    (step / stages) & 1,
                    "stages {stages} step {step}"
                );
                assert_eq!(s.count(), step);
                assert_eq!(PipelineState::consumer_start(stages).advanced_by(step), s);
                s.advance();
            }
        }
    }

    #[test]
    fn producer_runs_one_phase_ahead_of_the_consumer() {
        for stages in 1..=8 {
            let mut p = PipelineState::producer_start(stages);
            let mut c = PipelineState::consumer_start(stages);
            for _ in 0..200 {
                assert_eq!(p.index(), c.index());
                assert_eq!(p.phase(), c.phase() ^ 1);
                p.advance();
                c.advance();
            }
        }
    }

    #[test]
    fn advance_by_composes() {
        for stages in 1..=6 {
            let s = PipelineState::producer_start(stages);
            for a in 0..40 {
                for b in 0..40 {
                    assert_eq!(s.advanced_by(a).advanced_by(b), s.advanced_by(a + b));
                }
            }
        }
    }

    #[test]
    fn a_wait_names_the_parity_of_the_phase_its_stage_completes() {
        // Fill j of stage j % S completes that stage's barrier phase j / S.
        let stages = 4;
        let mut c = PipelineState::consumer_start(stages);
        for fill in 0..64u32 {
            let completed_phase = fill / stages;
            assert_eq!(c.index(), fill % stages);
            assert_eq!(c.phase(), completed_phase % 2);
            c.advance();
        }
    }
}
