//! [`PeerGroup`]: the ranks of one process whose GPUs reach each other's
//! memory (peer access, over NVLink where there is one), and what they
//! need to move data with the copy engines instead of NCCL's kernels: a
//! board on which each rank posts its buffers' addresses and events, a
//! barrier, and peer copies.
//!
//! A copy engine moves data without taking an SM, so the GEMMs beside it
//! keep the whole GPU; an NCCL collective runs as a kernel on SMs that a
//! persistent GEMM would otherwise use.
//!
//! Every exchange is a barrier of the group's threads. A rank that fails
//! after an operation has started abandons the group: the others' waits
//! return an error instead of hanging, and the group's peer path stays
//! closed.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use cudarc::driver::sys::{self, CUevent_flags};
use cudarc::driver::{CudaContext, CudaEvent, CudaStream};

use super::reduce_slots::ReduceSlots;
use crate::device::Device;
use crate::{Error, Result};

/// A CUDA event handle that another rank's thread may wait on. The event
/// itself stays owned (and alive) on the rank that recorded it until the
/// operation's last barrier.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawEvent(sys::CUevent);

// SAFETY: a CUevent is a handle the driver accepts from any thread; the
// owning rank keeps the event alive while others may use the handle.
unsafe impl Send for RawEvent {}

/// What one rank posts in an exchange: device addresses and events.
#[derive(Clone, Debug, Default)]
pub(crate) struct Posting {
    /// Device addresses on the posting rank's GPU.
    pub(crate) addresses: Vec<u64>,
    /// Events recorded on the posting rank's streams.
    pub(crate) events: Vec<Option<RawEvent>>,
}

#[derive(Debug)]
struct Board {
    arrived: usize,
    generation: u64,
    abandoned_by: Option<usize>,
    /// Two rounds of postings, used in turn: a rank posts into round
    /// `exchanges % 2` and reads it after the barrier; it cannot post into
    /// that round again before every rank has passed the next barrier, by
    /// which time all have read it.
    postings: [Vec<Posting>; 2],
    /// Exchanges each rank has made (the same on every rank between
    /// exchanges).
    exchanges: Vec<u64>,
}

/// The ranks of one process with peer access between every pair of GPUs.
#[derive(Debug)]
pub(crate) struct PeerGroup {
    contexts: Vec<Arc<CudaContext>>,
    board: Mutex<Board>,
    turn: Condvar,
    /// Each rank's memory for GEMM + all-reduce; the group frees it (see
    /// its `Drop`).
    slots: Vec<Mutex<ReduceSlots>>,
    /// The device address of each rank's flags in `slots`.
    flags: Vec<u64>,
}

impl PeerGroup {
    /// The group of `devices`, with peer access enabled between every
    /// pair; `None` where some pair has none (the operations then use
    /// NCCL alone).
    pub(crate) fn new(devices: &[Device]) -> Result<Option<Arc<PeerGroup>>> {
        for (i, a) in devices.iter().enumerate() {
            for (j, b) in devices.iter().enumerate() {
                if i == j {
                    continue;
                }
                let mut can = 0;
                // SAFETY: `can` is a valid out-pointer; both devices are
                // live handles of their contexts.
                unsafe {
                    sys::cuDeviceCanAccessPeer(
                        &mut can,
                        a.context().cu_device(),
                        b.context().cu_device(),
                    )
                }
                .result()
                .map_err(|e| {
                    Error::driver("asking whether two GPUs reach each other's memory", e)
                })?;
                if can == 0 {
                    return Ok(None);
                }
                a.context()
                    .bind_to_thread()
                    .map_err(|e| Error::driver("making a rank's device current", e))?;
                // SAFETY: enables access from the current context (a's) to
                // b's; flags must be 0.
                let enabled = unsafe { sys::cuCtxEnablePeerAccess(b.context().cu_ctx(), 0) };
                match enabled {
                    sys::CUresult::CUDA_SUCCESS
                    | sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => {}
                    other => {
                        return Err(Error::driver(
                            format!(
                                "enabling GPU {}'s access to GPU {}'s memory",
                                a.ordinal(),
                                b.ordinal()
                            ),
                            other.result().unwrap_err(),
                        ))
                    }
                }
            }
        }
        // Stream-ordered allocations (cuMemAllocAsync, which cudarc and
        // cutlet use) come from each device's memory pool, which peer
        // access to the context does not cover: grant every other device
        // access to each device's default pool.
        for a in devices {
            let mut pool = std::ptr::null_mut();
            // SAFETY: `pool` is a valid out-pointer; the device handle is live.
            unsafe { sys::cuDeviceGetDefaultMemPool(&mut pool, a.context().cu_device()) }
                .result()
                .map_err(|e| Error::driver("reading a GPU's memory pool", e))?;
            let access: Vec<sys::CUmemAccessDesc> = devices
                .iter()
                .filter(|b| b.ordinal() != a.ordinal())
                .map(|b| sys::CUmemAccessDesc {
                    location: sys::CUmemLocation {
                        type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
                        id: b.ordinal() as i32,
                    },
                    flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
                })
                .collect();
            // SAFETY: `access` holds `access.len()` descriptors of devices
            // of this machine; the pool is the device's own.
            unsafe { sys::cuMemPoolSetAccess(pool, access.as_ptr(), access.len()) }
                .result()
                .map_err(|e| {
                    Error::driver(
                        format!(
                            "letting the other GPUs read GPU {}'s memory pool",
                            a.ordinal()
                        ),
                        e,
                    )
                })?;
        }
        let slots = devices
            .iter()
            .map(|d| ReduceSlots::new(devices.len(), d.context()))
            .collect::<Result<Vec<_>>>()?;
        Ok(Some(Arc::new(PeerGroup {
            contexts: devices.iter().map(|d| d.context().clone()).collect(),
            board: Mutex::new(Board {
                arrived: 0,
                generation: 0,
                abandoned_by: None,
                postings: [
                    vec![Posting::default(); devices.len()],
                    vec![Posting::default(); devices.len()],
                ],
                exchanges: vec![0; devices.len()],
            }),
            turn: Condvar::new(),
            flags: slots.iter().map(ReduceSlots::flags).collect(),
            slots: slots.into_iter().map(Mutex::new).collect(),
        })))
    }

    /// Rank `rank`'s all-reduce slots, held for the rank's call.
    pub(crate) fn slots(&self, rank: usize) -> MutexGuard<'_, ReduceSlots> {
        // A rank that panicked while holding them left them as they were.
        self.slots[rank].lock().unwrap_or_else(|e| e.into_inner())
    }

    fn lock(&self) -> MutexGuard<'_, Board> {
        // A rank that panicked while holding the lock left the board as it
        // was: the state is still consistent.
        self.board.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn abandoned(by: usize) -> Error {
        Error::invalid_argument(
            "tensor-parallel group",
            format!("abandoned by rank {by}, whose operation failed"),
            "every rank completing the operation (see that rank's error)",
        )
    }

    /// Waits until every rank has called `wait` (a barrier), or until a
    /// rank abandons the group.
    pub(crate) fn wait(&self) -> Result<()> {
        let mut board = self.lock();
        if let Some(by) = board.abandoned_by {
            return Err(PeerGroup::abandoned(by));
        }
        let generation = board.generation;
        board.arrived += 1;
        if board.arrived == self.contexts.len() {
            board.arrived = 0;
            board.generation += 1;
            self.turn.notify_all();
            return Ok(());
        }
        while board.generation == generation && board.abandoned_by.is_none() {
            board = self.turn.wait(board).unwrap_or_else(|e| e.into_inner());
        }
        match board.abandoned_by {
            Some(by) if board.generation == generation => Err(PeerGroup::abandoned(by)),
            _ => Ok(()),
        }
    }

    /// Where rank `rank` signals each rank: its word in that rank's flags
    /// (0 at `rank` itself).
    pub(crate) fn signals(&self, rank: usize) -> Vec<u64> {
        self.flags
            .iter()
            .enumerate()
            .map(|(p, &flags)| {
                if p == rank {
                    0
                } else {
                    flags + 4 * rank as u64
                }
            })
            .collect()
    }

    /// The error of [`wait`](Self::wait) where a rank has abandoned the
    /// group, without waiting for anyone.
    pub(crate) fn check_open(&self) -> Result<()> {
        match self.lock().abandoned_by {
            Some(by) => Err(PeerGroup::abandoned(by)),
            None => Ok(()),
        }
    }

    /// Posts `posting` as rank `rank`'s and returns every rank's, once all
    /// have posted.
    pub(crate) fn exchange(&self, rank: usize, posting: Posting) -> Result<Vec<Posting>> {
        let round = {
            let mut board = self.lock();
            let round = (board.exchanges[rank] % 2) as usize;
            board.exchanges[rank] += 1;
            board.postings[round][rank] = posting;
            round
        };
        self.wait()?;
        Ok(self.lock().postings[round].clone())
    }

    /// Marks the group as abandoned by `rank`: every wait, now and later,
    /// returns an error.
    pub(crate) fn abandon(&self, rank: usize) {
        let mut board = self.lock();
        board.abandoned_by.get_or_insert(rank);
        self.turn.notify_all();
    }

    /// Copies `bytes` from `src` on rank `src_rank`'s GPU to `dst` on rank
    /// `dst_rank`'s, on `stream` (of `dst_rank`'s device), with the copy
    /// engines.
    ///
    /// # Safety
    /// Both ranges must be live device memory of their GPUs for as long as
    /// the copy runs, ordered by the caller's events.
    pub(crate) unsafe fn copy(
        &self,
        (dst_rank, dst): (usize, u64),
        (src_rank, src): (usize, u64),
        bytes: usize,
        stream: &Arc<CudaStream>,
    ) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        stream
            .context()
            .bind_to_thread()
            .map_err(|e| Error::driver("making a rank's device current", e))?;
        let _ = (dst_rank, src_rank);
        // SAFETY: the caller keeps both ranges live and ordered. With
        // unified addressing and peer access enabled, a device-to-device
        // copy between the GPUs' addresses runs on the copy engines over
        // the GPUs' link (cuMemcpyPeerAsync with explicit contexts moved
        // about a tenth as much per second on an H200 pair).
        unsafe { cudarc::driver::result::memcpy_dtod_async(dst, src, bytes, stream.cu_stream()) }
            .map_err(|e| Error::driver("copying between GPUs", e))
    }
}

impl Drop for PeerGroup {
    /// Frees the ranks' all-reduce slots once every GPU of the group has
    /// finished its work: a rank's kernel may read another rank's slots
    /// after that rank's own stream is done with them.
    fn drop(&mut self) {
        let used = |s: &mut Mutex<ReduceSlots>| {
            s.get_mut()
                .unwrap_or_else(|e| e.into_inner())
                .holds_partials()
        };
        if !self.slots.iter_mut().any(used) {
            return;
        }
        for context in &self.contexts {
            // A failed wait (a GPU in error) leaves nothing better to do
            // than free: its kernels are gone.
            let _ = context.synchronize();
        }
    }
}

/// An event recorded on `stream` now, and its handle for the other ranks.
pub(crate) fn post_event(stream: &Arc<CudaStream>) -> Result<(CudaEvent, RawEvent)> {
    let event = stream
        .context()
        .new_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))
        .map_err(|e| Error::driver("creating an event for the other ranks", e))?;
    event
        .record(stream)
        .map_err(|e| Error::driver("recording an event for the other ranks", e))?;
    let raw = RawEvent(event.cu_event());
    Ok((event, raw))
}

/// Makes `stream` wait for another rank's `event`.
pub(crate) fn wait_for(stream: &Arc<CudaStream>, event: Option<RawEvent>) -> Result<()> {
    let Some(RawEvent(event)) = event else {
        return Ok(());
    };
    // SAFETY: the event is alive (its rank keeps it until the operation's
    // last barrier, after every wait on it is enqueued); waiting on an
    // event of another context is allowed.
    unsafe {
        cudarc::driver::result::stream::wait_event(
            stream.cu_stream(),
            event,
            sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
        )
    }
    .map_err(|e| Error::driver("waiting for another rank's event", e))
}

/// Keeps the memory that stream-ordered frees return in `device`'s default
/// pool (its release threshold at the maximum) instead of handing it back
/// to the driver at each synchronization: the operations' buffers are then
/// taken from the pool on the next call, where mapping them again (and,
/// for a peer group, into every other GPU) would cost hundreds of
/// microseconds of host time before the first kernel starts.
pub(crate) fn keep_freed_memory(device: &Device) -> Result<()> {
    let mut pool = std::ptr::null_mut();
    // SAFETY: `pool` is a valid out-pointer; the device handle is live.
    unsafe { sys::cuDeviceGetDefaultMemPool(&mut pool, device.context().cu_device()) }
        .result()
        .map_err(|e| Error::driver("reading a GPU's memory pool", e))?;
    let mut threshold = u64::MAX;
    // SAFETY: the attribute takes a u64, which `threshold` is.
    unsafe {
        sys::cuMemPoolSetAttribute(
            pool,
            sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            (&mut threshold as *mut u64).cast(),
        )
    }
    .result()
    .map_err(|e| Error::driver("keeping freed memory in a GPU's pool", e))
}
