//! [`PipelineCpAsync`]: the SM80 ring of `cp.async` groups, as the SM80
//! multistage mainloop runs it (CUTLASS's `sm80_mma_multistage.hpp`, which
//! calls `cp_async_fence` / `cp_async_wait<Stages-2>` / `__syncthreads`
//! itself; here the same steps sit behind the [`Pipeline`] contract).
//!
//! Every thread is both producer and consumer: it issues its own
//! `cp.async` copies of a stage and reads stages that other threads filled.
//! Completion is counted per thread by *groups* (one group per stage, in
//! issue order), not per stage, so the wait does not name a stage: waiting
//! until at most `stages - 2` groups are in flight means the oldest
//! uncommitted stage has landed, and the `bar.sync` after it makes every
//! thread's copies visible to all.
//!
//! | step | emits |
//! |---|---|
//! | `producer_acquire` | nothing: the stage a producer refills was read before the last `consumer_wait`, whose `bar.sync` every thread passed |
//! | `producer_commit` | `cp.async.commit_group` |
//! | `consumer_wait` | `cp.async.wait_group stages-2; bar.sync 0;` |
//! | `consumer_release` | nothing: the next `consumer_wait`'s `bar.sync` is every thread's release |
//! | `advance` | the stage pointer moved one stage on, wrapped at the ring's end |

use super::Pipeline;
use crate::atom::SM80_CP_ASYNC_CACHEGLOBAL_ZFILL as CpAsync;
use crate::ptx::{Kernel, Reg, RegClass};
use crate::{Error, Result};

/// A walk of the `cp.async` ring: the stage's shared-window address (`.b32`,
/// ring base + index x stage bytes). The ring has no phases: `cp.async`
/// completion is counted by groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpAsyncState {
    /// Shared-window address of the stage's buffer.
    pub stage: Reg,
}

/// The `cp.async` ring of one kernel: `stages` stages of `stage_bytes`
/// bytes from a shared-window base address, and the two walks over it (the
/// reads and the writes of one thread).
#[derive(Clone, Copy, Debug)]
pub struct PipelineCpAsync {
    stages: u32,
    stage_bytes: u32,
    /// Shared-window address one past the last stage.
    end: Reg,
    read: CpAsyncState,
    write: CpAsyncState,
}

impl PipelineCpAsync {
    /// Starts the ring at `base` (a `.b32` shared-window address): allocates
    /// the read pointer, the write pointer and the end address, in this
    /// order, and sets them (`mov` base, `mov` base, `add` the ring's
    /// bytes).
    ///
    /// Errors: [`Error::InvalidArgument`] for fewer than 2 stages (a wait
    /// keeps `stages - 2` groups in flight) or a ring past 4 GiB.
    pub fn new(k: &mut Kernel, base: Reg, stages: u32, stage_bytes: u32) -> Result<Self> {
        if stages < 2 {
            return Err(Error::invalid_argument(
                "cp.async pipeline stages",
                stages,
                "at least 2",
            ));
        }
        if stages.checked_mul(stage_bytes).is_none() {
            return Err(Error::invalid_argument(
                "cp.async pipeline",
                format!("{stages} stages of {stage_bytes} bytes"),
                "a ring of at most 4 GiB",
            ));
        }
        let (read, write, end) = (
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
        );
        k.mov(read, base);
        k.mov(write, base);
        k.push(format!("add.u32 {end}, {base}, {};", stages * stage_bytes));
        Ok(PipelineCpAsync {
            stages,
            stage_bytes,
            end,
            read: CpAsyncState { stage: read },
            write: CpAsyncState { stage: write },
        })
    }

    /// Stages of the ring.
    pub fn stages(&self) -> u32 {
        self.stages
    }

    /// The consumer's walk (the stage this thread reads next).
    pub fn consumer_state(&self) -> CpAsyncState {
        self.read
    }

    /// The producer's walk (the stage this thread's next copies fill).
    pub fn producer_state(&self) -> CpAsyncState {
        self.write
    }

    /// The end of the stream: waits for all of this thread's copies
    /// (`cp.async.wait_group 0`) and for every thread (`bar.sync 0`), so
    /// that the shared memory may be reused (by an epilogue).
    pub fn drain(&self, k: &mut Kernel) -> Result<()> {
        CpAsync::emit_wait(k, 0)?;
        k.push("bar.sync 0;");
        Ok(())
    }
}

impl Pipeline for PipelineCpAsync {
    type State = CpAsyncState;

    /// Emits nothing: the stage a producer refills is the one its threads
    /// read before their last [`consumer_wait`](Self::consumer_wait), whose
    /// `bar.sync` all of them passed.
    fn producer_acquire(&self, _k: &mut Kernel, _state: &CpAsyncState) -> Result<()> {
        Ok(())
    }

    /// `cp.async.commit_group`: this thread's copies since the last commit
    /// form the stage's group.
    fn producer_commit(&self, k: &mut Kernel, _state: &CpAsyncState) -> Result<()> {
        CpAsync::emit_commit(k)
    }

    /// `cp.async.wait_group stages-2` then `bar.sync 0`: the oldest stage in
    /// flight has landed, for every thread. Groups are counted in issue
    /// order, so the wait names no stage: it is the stage of `state` when
    /// the producer has committed `stages - 1` stages ahead of it.
    fn consumer_wait(&self, k: &mut Kernel, _state: &CpAsyncState) -> Result<()> {
        CpAsync::emit_wait(k, self.stages - 2)?;
        k.push("bar.sync 0;");
        Ok(())
    }

    /// Emits nothing: the `bar.sync` of the next
    /// [`consumer_wait`](Self::consumer_wait) is every thread's release.
    fn consumer_release(&self, _k: &mut Kernel, _state: &CpAsyncState) -> Result<()> {
        Ok(())
    }

    /// `add` one stage's bytes; where the pointer reaches the ring's end,
    /// `sub` the ring's bytes (through a fresh predicate).
    fn advance(&self, k: &mut Kernel, state: &CpAsyncState) -> Result<()> {
        let (stage, end) = (state.stage, self.end);
        let p = k.reg(RegClass::Pred);
        k.push(format!("add.u32 {stage}, {stage}, {};", self.stage_bytes));
        k.push(format!("setp.ge.u32 {p}, {stage}, {end};"));
        k.push(format!(
            "@{p} sub.u32 {stage}, {stage}, {};",
            self.stages * self.stage_bytes
        ));
        Ok(())
    }
}
