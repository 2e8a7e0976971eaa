//! [`Mainloop`]: the contract of a collective mainloop, the part of a GEMM
//! kernel that moves tiles of A and B into the block and accumulates their
//! product (CUTLASS's `CollectiveMma`).

use super::{Accumulators, BlockContext, SharedStorage};
use crate::gemm::ParamRole;
use crate::ptx::{Kernel, PtxError};

/// A collective mainloop: moves tiles of A and B into the block and accumulates their product.
///
/// # Contract
///
/// Host side, before any PTX exists:
/// - [`params`](Mainloop::params): the kernel parameters it reads, as
///   roles (addresses, leading dimensions and batch strides of A and B
///   for a `cp.async` mainloop; a tensor map per operand for a TMA one);
/// - [`shared_storage`](Mainloop::shared_storage): its shared memory (the
///   stages of its pipeline);
/// - [`alignment`](Mainloop::alignment): the elements A's and B's
///   addresses, leading dimensions and batch strides must be multiples of;
/// - [`can_implement`](Mainloop::can_implement): whether it can be built
///   at all (an instruction for the element types, ...).
///
/// Device side, in the order the kernel calls them:
/// 1. [`emit_prologue`](Mainloop::emit_prologue), once the block knows its
///    work tile: the per-tile setup (tile addresses), returning what the
///    body reads ([`Mainloop::Io`]);
/// 2. either [`emit_mainloop`](Mainloop::emit_mainloop), producer and
///    consumer in one body run by every thread (the SM70/SM80 multistage
///    kernels), returning the accumulators; or, in a warp-specialized
///    kernel, [`emit_producer`](Mainloop::emit_producer) on the producer
///    warps (the loads) and [`emit_consumer`](Mainloop::emit_consumer) on
///    the consumer warps (the MMAs), which returns the accumulators.
///    [`warp_specialized`](Mainloop::warp_specialized) says which pair a
///    mainloop implements.
///
/// After the body, the shared memory may be reused by the epilogue: the
/// body ends with every copy landed and the block synchronized.
pub trait Mainloop {
    /// What the prologue hands the body.
    type Io;

    /// The kernel parameters the mainloop reads.
    fn params(&self) -> Vec<ParamRole>;

    /// The shared memory the mainloop uses.
    fn shared_storage(&self) -> SharedStorage;

    /// Elements that A's and B's addresses, leading dimensions and batch
    /// strides must be multiples of: `[a, b]`.
    fn alignment(&self) -> [u32; 2];

    /// Whether this mainloop can be generated.
    ///
    /// # Errors
    /// [`Error::Config`](crate::Error::Config) naming what it cannot do.
    fn can_implement(&self) -> crate::Result<()>;

    /// Whether the mainloop runs as a producer part and a consumer part on
    /// different warps (`emit_producer` / `emit_consumer`) rather than in
    /// one body (`emit_mainloop`).
    fn warp_specialized(&self) -> bool;

    /// Emits the per-tile setup.
    ///
    /// # Errors
    /// The assembler's error, or a parameter no part declared.
    fn emit_prologue(&self, k: &mut Kernel, block: &BlockContext<'_>)
        -> Result<Self::Io, PtxError>;

    /// Emits producer and consumer in one body and returns the accumulators.
    ///
    /// # Errors
    /// The assembler's error; [`PtxError::UnsupportedSpec`] for a
    /// warp-specialized mainloop.
    fn emit_mainloop(&self, k: &mut Kernel, io: &Self::Io) -> Result<Accumulators, PtxError>;

    /// Emits the producer part (the loads), for warp-specialized kernels.
    ///
    /// # Errors
    /// [`PtxError::UnsupportedSpec`] for a mainloop that runs in one body
    /// (the default).
    fn emit_producer(&self, _k: &mut Kernel, _io: &Self::Io) -> Result<(), PtxError> {
        Err(one_body("producer"))
    }

    /// Emits the consumer part (the MMAs) and returns the accumulators, for
    /// warp-specialized kernels.
    ///
    /// # Errors
    /// [`PtxError::UnsupportedSpec`] for a mainloop that runs in one body
    /// (the default).
    fn emit_consumer(&self, _k: &mut Kernel, _io: &Self::Io) -> Result<Accumulators, PtxError> {
        Err(one_body("consumer"))
    }

    /// [`emit_consumer`](Self::emit_consumer) with `overlap` (work of the
    /// kernel that reads no accumulator and no stage: the next tile's
    /// coordinates and epilogue registers) emitted once on every path,
    /// where its cost is hidden: the SM90 cooperative mainloop emits it
    /// while its last MMAs run. The default emits it after the consumer.
    ///
    /// # Errors
    /// As [`emit_consumer`](Self::emit_consumer), and `overlap`'s.
    fn emit_consumer_overlapped(
        &self,
        k: &mut Kernel,
        io: &Self::Io,
        overlap: &mut ConsumerOverlap<'_>,
    ) -> Result<Accumulators, PtxError> {
        let acc = self.emit_consumer(k, io)?;
        overlap(k)?;
        Ok(acc)
    }
}

/// Work a kernel hands [`Mainloop::emit_consumer_overlapped`] to emit
/// where the consumer's last MMAs hide it.
pub type ConsumerOverlap<'a> = dyn FnMut(&mut Kernel) -> Result<(), PtxError> + 'a;

fn one_body(part: &str) -> PtxError {
    PtxError::UnsupportedSpec {
        kernel: "gemm",
        name: String::new(),
        reason: format!(
            "the mainloop runs producer and consumer in one body: it has no separate {part} part for a warp-specialized kernel"
        ),
    }
}
