//! [`Communicator`]: one rank's NCCL communicator and the stream its
//! collectives run on, made either with NCCL's defaults or split from
//! another with a cap on the CTAs (so SMs) each collective takes
//! (`ncclConfig_t::maxCTAs`), which the overlapped operations use so that
//! a collective and a GEMM beside it share the GPU without waiting for
//! each other's blocks.

use std::sync::Arc;

use cudarc::driver::{CudaStream, DevicePtr, DevicePtrMut};
use cudarc::nccl::{result, sys, NcclType, ReduceOp};

use super::nccl::nccl_error;
use crate::{Error, Result};

/// NCCL's "not set" for an integer field of `ncclConfig_t`
/// (`NCCL_CONFIG_UNDEF_INT`).
const UNDEF: i32 = i32::MIN;

/// A communicator of one rank.
#[derive(Debug)]
pub(crate) struct Communicator {
    raw: sys::ncclComm_t,
    stream: Arc<CudaStream>,
    rank: usize,
    world_size: usize,
}

/// `NCCL_CONFIG_INITIALIZER` with `maxCTAs` set where given.
fn config(max_ctas: Option<u32>) -> sys::ncclConfig_t {
    sys::ncclConfig_t {
        size: std::mem::size_of::<sys::ncclConfig_t>(),
        magic: 0xcafe_beef,
        // NCCL_VERSION(2, 28, 0): the layout of this struct.
        version: 22800,
        blocking: UNDEF,
        cgaClusterSize: UNDEF,
        minCTAs: UNDEF,
        maxCTAs: max_ctas.map_or(UNDEF, |n| i32::try_from(n).unwrap_or(i32::MAX)),
        netName: std::ptr::null(),
        splitShare: UNDEF,
        trafficClass: UNDEF,
        commName: std::ptr::null(),
        collnetEnable: UNDEF,
        CTAPolicy: UNDEF,
        shrinkShare: UNDEF,
        nvlsCTAs: UNDEF,
        nChannelsPerNetPeer: UNDEF,
        nvlinkCentricSched: UNDEF,
    }
}

impl Communicator {
    /// The communicators of every stream's device, in one process
    /// (`ncclCommInitAll`): rank `i` on `streams[i]`.
    pub(crate) fn all(streams: &[Arc<CudaStream>]) -> Result<Vec<Communicator>> {
        let ordinals: Vec<i32> = streams
            .iter()
            .map(|s| s.context().ordinal() as i32)
            .collect();
        let mut raw = vec![std::ptr::null_mut(); streams.len()];
        // SAFETY: `raw` has one slot per device of `ordinals`, which NCCL
        // fills; the lengths agree.
        unsafe {
            result::comm_init_all(raw.as_mut_ptr(), ordinals.len() as i32, ordinals.as_ptr())
        }
        .map_err(|e| nccl_error("creating the communicators (ncclCommInitAll)", e))?;
        let world_size = streams.len();
        Ok(raw
            .into_iter()
            .zip(streams.iter().cloned())
            .enumerate()
            .map(|(rank, (raw, stream))| Communicator {
                raw,
                stream,
                rank,
                world_size,
            })
            .collect())
    }

    /// Rank `rank` of `world_size` joining the group of `id`
    /// (`ncclCommInitRank`).
    pub(crate) fn join(
        stream: Arc<CudaStream>,
        rank: usize,
        world_size: usize,
        id: sys::ncclUniqueId,
    ) -> Result<Communicator> {
        stream
            .context()
            .bind_to_thread()
            .map_err(|e| Error::driver("making the rank's device current", e))?;
        let mut raw = std::ptr::null_mut();
        // SAFETY: `raw` is written by NCCL; rank and size were checked to
        // fit an i32 by the caller.
        unsafe { result::comm_init_rank(&mut raw, world_size as i32, id, rank as i32) }.map_err(
            |e| {
                nccl_error(
                    format!("joining the group as rank {rank} of {world_size} (ncclCommInitRank)"),
                    e,
                )
            },
        )?;
        Ok(Communicator {
            raw,
            stream,
            rank,
            world_size,
        })
    }

    /// A communicator of the same ranks for each of `parents` (one per
    /// rank this process drives, split together in one NCCL group) whose
    /// collectives take at most `max_ctas` CTAs each (`ncclCommSplit` with
    /// `maxCTAs`), on the same streams. Every rank of the group must call
    /// this at once.
    pub(crate) fn split_capped(
        parents: &[&Communicator],
        max_ctas: u32,
    ) -> Result<Vec<Communicator>> {
        let mut raw = vec![std::ptr::null_mut(); parents.len()];
        let mut configs: Vec<sys::ncclConfig_t> =
            parents.iter().map(|_| config(Some(max_ctas))).collect();
        let grouped = parents.len() > 1;
        if grouped {
            result::group_start()
                .map_err(|e| nccl_error("starting a group (ncclGroupStart)", e))?;
        }
        let mut failed = None;
        for ((parent, slot), config) in parents.iter().zip(raw.iter_mut()).zip(configs.iter_mut()) {
            // SAFETY: `parent.raw` is a live communicator; `slot` and
            // `config` outlive the group, which ends below before either
            // is dropped.
            let status = unsafe {
                sys::ncclCommSplit(parent.raw, 0, parent.rank as i32, slot, config).result()
            };
            if let Err(e) = status {
                failed = Some(e);
                break;
            }
        }
        if grouped {
            let ended = result::group_end();
            if failed.is_none() {
                failed = ended.err();
            }
        }
        if let Some(e) = failed {
            return Err(nccl_error(
                format!("making the collectives' communicator of at most {max_ctas} CTAs (ncclCommSplit)"),
                e,
            ));
        }
        Ok(parents
            .iter()
            .zip(raw)
            .map(|(parent, raw)| Communicator {
                raw,
                stream: parent.stream.clone(),
                rank: parent.rank,
                world_size: parent.world_size,
            })
            .collect())
    }

    /// The stream the collectives run on.
    pub(crate) fn stream(&self) -> Arc<CudaStream> {
        self.stream.clone()
    }

    /// This rank's index.
    pub(crate) fn rank(&self) -> usize {
        self.rank
    }

    /// Ranks in the group.
    pub(crate) fn world_size(&self) -> usize {
        self.world_size
    }

    /// Enqueues `call` (one NCCL collective, given the send and receive
    /// addresses and the element's NCCL type) on the collectives' stream;
    /// the buffers' guards record their use there after it.
    fn enqueue<S: DevicePtr<T>, R: DevicePtrMut<T>, T: NcclType>(
        &self,
        send: &S,
        recv: &mut R,
        call: impl FnOnce(
            *const std::ffi::c_void,
            *mut std::ffi::c_void,
            sys::ncclDataType_t,
        ) -> std::result::Result<result::NcclStatus, result::NcclError>,
    ) -> std::result::Result<(), result::NcclError> {
        let (src, _read) = send.device_ptr(&self.stream);
        let (dst, _write) = recv.device_ptr_mut(&self.stream);
        call(src as _, dst as _, T::as_nccl_type()).map(|_| ())
    }

    /// `recv` (`world_size` times `send`'s length) gets every rank's `send`
    /// in rank order.
    pub(crate) fn all_gather<S: DevicePtr<T>, R: DevicePtrMut<T>, T: NcclType>(
        &self,
        send: &S,
        recv: &mut R,
    ) -> std::result::Result<(), result::NcclError> {
        let count = send.len();
        self.enqueue(send, recv, |src, dst, ty| {
            // SAFETY: both buffers are live device memory of this rank's
            // device; `recv` holds `world_size · count` elements, which the
            // callers size.
            unsafe { result::all_gather(src, dst, count, ty, self.raw, self.cu_stream()) }
        })
    }

    /// `recv` gets the `rank`-th `recv.len()` elements of the sum over the
    /// ranks of `send`.
    pub(crate) fn reduce_scatter<S: DevicePtr<T>, R: DevicePtrMut<T>, T: NcclType>(
        &self,
        send: &S,
        recv: &mut R,
        op: &ReduceOp,
    ) -> std::result::Result<(), result::NcclError> {
        let count = recv.len();
        self.enqueue(send, recv, |src, dst, ty| {
            // SAFETY: as `all_gather`; `send` holds `world_size · count`.
            unsafe {
                result::reduce_scatter(src, dst, count, ty, nccl_op(op), self.raw, self.cu_stream())
            }
        })
    }

    /// `recv` gets the sum over the ranks of `send` (the same length).
    pub(crate) fn all_reduce<S: DevicePtr<T>, R: DevicePtrMut<T>, T: NcclType>(
        &self,
        send: &S,
        recv: &mut R,
        op: &ReduceOp,
    ) -> std::result::Result<(), result::NcclError> {
        let count = send.len();
        self.enqueue(send, recv, |src, dst, ty| {
            // SAFETY: as `all_gather`; both hold `count` elements.
            unsafe {
                result::all_reduce(src, dst, count, ty, nccl_op(op), self.raw, self.cu_stream())
            }
        })
    }

    /// The collectives' stream as NCCL's `cudaStream_t`.
    fn cu_stream(&self) -> sys::cudaStream_t {
        self.stream.cu_stream() as _
    }

    /// Ends the communicator at once (`ncclCommAbort`): collectives in
    /// flight on it stop, so that ranks waiting on a failed peer return.
    pub(crate) fn abort(&mut self) {
        if !self.raw.is_null() {
            // SAFETY: a live communicator, ended once (the handle is
            // cleared so that `drop` does not end it again).
            let _ = unsafe { result::comm_abort(self.raw) };
            self.raw = std::ptr::null_mut();
        }
    }
}

impl Drop for Communicator {
    fn drop(&mut self) {
        // Abort, not destroy: destroy waits for the peers' outstanding
        // work, which a process on its way out must not.
        self.abort();
    }
}

/// NCCL's reduction operator of cudarc's.
fn nccl_op(op: &ReduceOp) -> sys::ncclRedOp_t {
    match op {
        ReduceOp::Sum => sys::ncclRedOp_t::ncclSum,
        ReduceOp::Prod => sys::ncclRedOp_t::ncclProd,
        ReduceOp::Max => sys::ncclRedOp_t::ncclMax,
        ReduceOp::Min => sys::ncclRedOp_t::ncclMin,
        ReduceOp::Avg => sys::ncclRedOp_t::ncclAvg,
    }
}
