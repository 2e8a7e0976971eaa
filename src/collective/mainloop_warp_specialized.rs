//! [`WarpSpecializedMainloop`]: the contract of a mainloop whose producer
//! and consumer run on different warpgroups (CUTLASS's SM90
//! `CollectiveMma` of a `KernelTmaWarpSpecialized*` schedule), which the
//! SM90 kernel skeleton ([`Sm90GemmWarpSpecialized`](crate::kernel::gemm::Sm90GemmWarpSpecialized))
//! composes with an epilogue and a persistent tile scheduler.

use super::{Accumulators, Mainloop};
use crate::gemm::TensorMapRequest;
use crate::ptx::{Kernel, PtxError, Reg};

/// Work a kernel hands [`WarpSpecializedMainloop::emit_consumer_overlapped`]
/// to emit where the consumer's last MMAs hide it.
pub type ConsumerOverlap<'a> = dyn FnMut(&mut Kernel) -> Result<(), PtxError> + 'a;

/// A mainloop run as a producer part (the loads, by one thread of the
/// producer warpgroup) and a consumer part (the MMAs, by the consumer
/// warpgroups) over a ring of shared-memory stages.
///
/// # Contract
///
/// Host side, beside [`Mainloop`]'s:
/// - [`ring_bytes`](Self::ring_bytes): the bytes of its ring (stages, then
///   their barriers) from the kernel's 1024-byte aligned start of shared
///   memory; the skeleton places the epilogue's region after it, rounded
///   up to 1024 bytes (its [`Mainloop::shared_storage`] is this plus the
///   1024 bytes of slack that alignment may take);
/// - [`tensor_maps`](Self::tensor_maps): the tensor maps the launcher
///   encodes for its operands (one per `ParamRole::TensorMap` it declares).
///
/// Device side, in the order the skeleton calls them, with `io` from
/// [`Mainloop::emit_prologue`] (emitted once by every thread, after the
/// epilogue's `emit_init` and the ping-pong turn barriers' setup; its
/// producer thread prefetches the tensor maps there, before the ring's
/// setup; it ends with the block's, or cluster's, barrier, after which
/// every mbarrier initialized before it may be used: the kernel's other
/// barriers have no synchronization of their own):
/// 1. producer thread, per tile of its walk
///    [`emit_producer`](Self::emit_producer) (the tile's k-tiles into the
///    ring, each stage acquired and its transaction armed); after the last
///    tile [`emit_producer_tail`](Self::emit_producer_tail) (waits until
///    the consumers released every stage, so that no multicast lands in a
///    CTA that has exited);
/// 2. consumer warpgroups, per tile: [`emit_consumer`](Self::emit_consumer)
///    or [`emit_consumer_overlapped`](Self::emit_consumer_overlapped) (the
///    tile's MMAs; every stage waited for, consumed and released; the
///    accumulators returned in the layout the epilogue reads);
///    [`emit_consumer_skip`](Self::emit_consumer_skip) for a tile another
///    consumer warpgroup takes (ping-pong: its k-tiles' stages are passed
///    over, the pipeline state advanced as if consumed).
///
/// Both parts walk the same tiles in the same order (the skeleton's tile
/// scheduler), so the ring's stage and phase agree without other signals.
pub trait WarpSpecializedMainloop: Mainloop {
    /// Bytes of the ring from the 1024-byte aligned start of shared memory.
    fn ring_bytes(&self) -> u32;

    /// The tensor maps of the operands it loads.
    fn tensor_maps(&self) -> Vec<TensorMapRequest>;

    /// Emits the producer part of one tile: its k-tiles into the ring.
    ///
    /// # Errors
    /// The assembler's error.
    fn emit_producer(&self, k: &mut Kernel, io: &Self::Io) -> Result<(), PtxError>;

    /// Emits the producer's end, after its last tile.
    ///
    /// # Errors
    /// The assembler's error.
    fn emit_producer_tail(&self, k: &mut Kernel, io: &Self::Io) -> Result<(), PtxError>;

    /// Emits the consumer part of one tile (its MMAs) and returns the
    /// accumulators.
    ///
    /// # Errors
    /// The assembler's error.
    fn emit_consumer(&self, k: &mut Kernel, io: &Self::Io) -> Result<Accumulators, PtxError>;

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

    /// Whether the consumer part reads the work tile's coordinates (the
    /// tile registers of the [`BlockContext`](super::BlockContext) its
    /// prologue was given: the block scales' rows and column block). Then
    /// the kernel sets them before the consumer part, not in the overlap
    /// of [`emit_consumer_overlapped`](Self::emit_consumer_overlapped).
    /// `false` by default: the producer alone reads them.
    fn consumer_reads_tile(&self) -> bool {
        false
    }

    /// Emits the consumer part of one tile for the sliced-K schedule:
    /// consumer warpgroup `slice` (`.b32`, 0 or 1) multiplies the tile's
    /// k-tiles `slice`, `slice + 2`, ... and returns its partial
    /// accumulators (zeros where it has none); after it the ring's state is
    /// past all of the tile's k-tiles for both warpgroups. The kernel adds
    /// the two partial tiles. The default: an error (a mainloop without a
    /// sliced-K part; the kernel refuses the schedule with it).
    ///
    /// # Errors
    /// The assembler's error, or the default's.
    fn emit_consumer_sliced(
        &self,
        _k: &mut Kernel,
        _io: &Self::Io,
        _slice: Reg,
    ) -> Result<Accumulators, PtxError> {
        Err(PtxError::UnsupportedSpec {
            kernel: "gemm",
            name: String::from("warp-specialized mainloop"),
            reason: "the mainloop has no sliced-K consumer part".to_string(),
        })
    }

    /// Emits the pass over one tile's k-tiles that another consumer
    /// warpgroup multiplies (ping-pong).
    ///
    /// # Errors
    /// The assembler's error.
    fn emit_consumer_skip(&self, k: &mut Kernel, io: &Self::Io) -> Result<(), PtxError>;

    /// Emits, once after the prologue, what lets each work unit run a
    /// range of the problem's k-tiles rather than all of them (a tile
    /// scheduler that splits K: split-K, stream-K), and returns the
    /// problem's k-tile count (`.b32`) the ranges are taken from. After it,
    /// [`emit_k_range`](Self::emit_k_range) sets each unit's range, in the
    /// producer's and the consumers' walk alike, before the unit's
    /// producer and consumer parts. `None` (the default) for a mainloop
    /// that runs whole tiles only; a kernel refuses a K-splitting
    /// scheduler with it.
    fn emit_split_k(&self, _k: &mut Kernel, _io: &mut Self::Io) -> Option<Reg> {
        None
    }

    /// Emits the next work unit's k-tiles: `count` (`.b32`) from k-tile
    /// `first` (see [`emit_split_k`](Self::emit_split_k)).
    fn emit_k_range(&self, _k: &mut Kernel, _io: &Self::Io, _first: Reg, _count: Reg) {}
}
