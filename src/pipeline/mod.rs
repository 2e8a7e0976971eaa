//! Pipelines: rings of shared-memory stages that a producer fills and a
//! consumer drains, written once and shared by every mainloop and epilogue
//! that streams through shared memory (CUTLASS's `cutlass/pipeline/`).
//!
//! # Concept
//! A ring has `stages` buffers. Producer and consumer each walk it with a
//! [`PipelineState`]: the stage `index` and the `phase`, the parity of the
//! number of times the walk has wrapped. An mbarrier completes one phase per
//! use of its stage, so a waiter names the phase it waits for by that parity
//! (`mbarrier.try_wait.parity`). The producer starts one phase ahead
//! ([`PipelineState::producer_start`]): every stage is empty at first.
//!
//! The contract, [`Pipeline`], is CUTLASS's, called in this order per stage:
//!
//! | call | who | emits | guarantees, once it returns |
//! |---|---|---|---|
//! | [`producer_acquire`](Pipeline::producer_acquire) | producer | waits until the stage is empty; arms the stage's completion (tx bytes) | the producer may write the stage |
//! | [`producer_commit`](Pipeline::producer_commit) | producer, after issuing the stage's copies | closes the stage's copies (a `cp.async` group) or nothing where the copies complete the stage themselves (bulk and TMA copies: `complete_tx`) | the consumer's wait on the stage will end when the copies land |
//! | [`consumer_wait`](Pipeline::consumer_wait) | consumer | waits until the stage is full | every byte of the stage is visible to the calling thread |
//! | [`consumer_release`](Pipeline::consumer_release) | consumer, after its last read of the stage | signals the stage empty | the producer's acquire of the stage may end |
//! | [`advance`](Pipeline::advance) | each side, on its own state | the next stage, the phase flipped on wrap | the state names the next stage |
//!
//! States live in registers: the index as the addresses it selects (the
//! stage's buffer, its mbarriers), the phase as a `.b32` bit. Each ring
//! names its state type ([`Pipeline::State`]) and allocates its registers at
//! the point its caller asks for them, so that a kernel moving onto a
//! pipeline keeps its register numbering and its instruction order.
//!
//! | ring | file | CUTLASS counterpart |
//! |---|---|---|
//! | [`PipelineCpAsync`] | `cp_async.rs` | the `cp.async` groups of `sm80_mma_multistage.hpp` |
//! | [`PipelineTmaAsync`], [`TmaAsyncConfig`], [`Release`] | `tma_async.rs` | `PipelineTmaAsync` (`sm90_pipeline.hpp`) |
//! | [`PipelineTmaStore`], [`StoreAcquire`] | `tma_store.rs` | `PipelineTmaStore` (`sm90_pipeline.hpp`) |
//! | [`OrderedSequenceBarrier`] | `ordered.rs` | `OrderedSequenceBarrier` (`sm90_pipeline.hpp`) |
//!
//! [`PipelineTmaStore`] runs the other way, shared memory out to global
//! memory, and has a producer side only (its consumer is the copy engine):
//! it keeps CUTLASS's producer calls (`producer_acquire`, `producer_commit`,
//! `producer_tail`) outside the [`Pipeline`] trait, as does
//! [`OrderedSequenceBarrier`], whose groups are each other's producers and
//! consumers.

mod cp_async;
mod ordered;
mod state;
mod tma_async;
mod tma_store;

pub use cp_async::{CpAsyncState, PipelineCpAsync};
pub use ordered::{OrderedSequenceBarrier, OrderedState};
pub use state::PipelineState;
pub use tma_async::{
    Parity, PipelineTmaAsync, Release, RemoteArrival, TmaAsyncConfig, TmaAsyncState, MBARRIER_BYTES,
};
pub use tma_store::{PipelineTmaStore, StoreAcquire};

use crate::ptx::Kernel;
use crate::Result;

/// The producer/consumer contract of a ring of shared-memory stages (see
/// the [module documentation](self) for the order of calls).
///
/// Every method writes the instructions of one step for the state it is
/// given and nothing else; a step that a ring implements with no
/// instruction of its own (its guarantee comes from another step) writes
/// nothing, and says so in its documentation.
pub trait Pipeline {
    /// A walk of the ring in registers (a copyable handle: the registers
    /// change in the emitted code, the handle does not).
    type State: Copy;

    /// Producer: waits until the stage of `state` may be written, and arms
    /// its completion.
    fn producer_acquire(&self, k: &mut Kernel, state: &Self::State) -> Result<()>;

    /// Producer: closes the copies issued into the stage of `state`.
    fn producer_commit(&self, k: &mut Kernel, state: &Self::State) -> Result<()>;

    /// Consumer: waits until the stage of `state` is full and visible.
    fn consumer_wait(&self, k: &mut Kernel, state: &Self::State) -> Result<()>;

    /// Consumer: signals that it has read the stage of `state`.
    fn consumer_release(&self, k: &mut Kernel, state: &Self::State) -> Result<()>;

    /// Moves `state` to the next stage, flipping its phase on wrap.
    fn advance(&self, k: &mut Kernel, state: &Self::State) -> Result<()>;
}
