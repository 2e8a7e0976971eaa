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
///    work tile (a warp-specialized kernel: once, before the walk): the
///    setup, returning what the body reads ([`Mainloop::Io`]);
/// 2. [`emit_mainloop`](Mainloop::emit_mainloop), producer and consumer in
///    one body run by every thread (the SM70/SM80 multistage kernels),
///    returning the accumulators. A warp-specialized mainloop implements
///    [`WarpSpecializedMainloop`](super::WarpSpecializedMainloop) instead,
///    whose producer and consumer parts run on different warpgroups.
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
}
