//! [`Workspace`]: the device workspace a GEMM's kernels use where their
//! tile scheduler keeps state between blocks (split-K's partial tiles and
//! flags), shared by every kernel of one GEMM (the kernels picked for each
//! problem and the ones behind them), as CUTLASS's adapter holds one.
//!
//! Either the GEMM owns it (allocated zeroed at the first run that needs
//! it, grown when a problem needs more, reused) or the caller gave it to
//! `initialize` (checked, zeroed once, never grown). The flags in it start
//! at 0 and every launch leaves them 0, so no memset precedes a launch.
//! Each launch follows the one before it: on the same stream by the
//! stream's order alone (no event between the two kernels, so a kernel
//! launched to overlap the one ahead of it still does), on another stream
//! through an event recorded then on the stream of the last launch.
//!
//! # Layouts
//!
//! "Every launch leaves the flags 0" holds for one layout of flags and
//! slots ([`WorkspaceLayout`]: the tile, the scheduler's splits, the
//! reduction). A kernel of another layout would find its flags where the
//! last one left partial tiles and take them for arrivals (a wrong sum, and
//! counters that never return to 0). So:
//! - the GEMM's own workspace is a buffer per layout: the kernels a pick
//!   runs for different problems never share one, and a launch captured in
//!   a CUDA graph keeps its buffer (a buffer outgrown after a capture is
//!   kept, not freed, while the GEMM lives);
//! - a buffer given to `initialize` serves every layout in turn: it
//!   remembers the layout it is clean for and how far, and a launch of
//!   another layout (or past the clean bytes) zeroes the bytes it uses
//!   first. Once a launch on it has been captured, a launch of another
//!   layout also zeroes them after itself, so the graph's replays find
//!   their flags 0; a capture that would need a zeroing first, or a second
//!   layout's capture, is refused with a message that says what to do.

use std::sync::{Arc, Mutex, MutexGuard};

use cudarc::driver::{CudaEvent, CudaSlice, CudaStream, DevicePtr};

use crate::device::Device;
use crate::{Error, Result};

/// The alignment a workspace's address needs: its records start with a
/// 128-byte flag header ([`SPLIT_K_RECORD_HEADER`](crate::kernel::gemm::SPLIT_K_RECORD_HEADER)).
pub const WORKSPACE_ALIGNMENT: usize = 128;

/// A GEMM's workspace, shared by its launchers (clones share it).
#[derive(Clone, Debug, Default)]
pub(crate) struct Workspace(Arc<Mutex<Buffers>>);

/// The buffers of a workspace.
#[derive(Debug, Default)]
struct Buffers {
    /// The caller's buffer, given to `initialize`: every launch uses it.
    given: Option<Given>,
    /// The GEMM's own buffers, one per layout (where none is given).
    owned: Vec<(WorkspaceLayout, Held)>,
    /// Buffers replaced after a launch on them was captured in a CUDA
    /// graph, whose replays still use them: kept while the GEMM lives.
    kept: Vec<Held>,
}

impl Buffers {
    /// Drops `held`, or keeps it where a graph captured a launch on it.
    fn retire(&mut self, held: Held) {
        if held.captured.is_some() {
            self.kept.push(held);
        }
        // Else dropping it waits for its last use.
    }
}

/// The buffer held and what its next user must follow.
#[derive(Debug)]
struct Held {
    buffer: CudaSlice<u8>,
    /// The buffer's device address (read once: the launches are ordered
    /// here, not by the slice's own events).
    address: u64,
    /// The stream of the last use (the last launch, or the allocation's
    /// zeroing): a later use on it follows by the stream's order; one on
    /// another stream waits for an event recorded on it then.
    last_stream: Option<Arc<CudaStream>>,
    /// An event after the last use where that is not on a stream held
    /// here (the zeroing of a buffer the caller gave, on its own stream).
    last_event: Option<CudaEvent>,
    /// The layout of the launch captured in a CUDA graph on this buffer,
    /// whose replays may run at any time after: every other launch leaves
    /// the buffer ready for it.
    captured: Option<WorkspaceLayout>,
}

impl Held {
    /// A buffer of zeros (just allocated or zeroed).
    fn zeroed(buffer: CudaSlice<u8>, address: u64) -> Held {
        Held {
            buffer,
            address,
            last_stream: None,
            last_event: None,
            captured: None,
        }
    }

    /// Zeroes bytes `from..to` on `stream`.
    fn zero(&mut self, stream: &Arc<CudaStream>, from: usize, to: usize) -> Result<()> {
        let mut range = self.buffer.slice_mut(from..to);
        stream
            .memset_zeros(&mut range)
            .map_err(|e| Error::driver("zeroing the GEMM workspace for another layout", e))
    }
}

/// The caller's buffer, which serves every layout in turn, and how much of
/// it is ready for which.
#[derive(Debug)]
struct Given {
    held: Held,
    /// The layout the first `clean` bytes are ready for (its flags and
    /// atomic slots 0); `None`: the buffer is all zero, ready for any.
    layout: Option<WorkspaceLayout>,
    /// Bytes from the start that are ready for `layout`.
    clean: usize,
}

impl Given {
    /// The bytes a launch of `layout` over the first `bytes` must zero
    /// first: all of them after another layout, else those past the clean
    /// bytes.
    fn dirty(&self, layout: WorkspaceLayout, bytes: usize) -> std::ops::Range<usize> {
        match self.layout {
            Some(last) if last != layout => 0..bytes,
            _ => self.clean.min(bytes)..bytes,
        }
    }
}

/// What decides where a kernel's flags and partial slots lie in the
/// workspace: the CTA tile, the tile scheduler (its split count), the
/// reduction (the atomic one also needs its slots 0), the cluster and,
/// for stream-K, the grid.
/// Launches of one layout leave each other's flags 0, whatever their
/// problems (see the module's docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WorkspaceLayout {
    /// The CTA tile `[BM, BN, BK]`.
    pub(crate) tile: [u32; 3],
    /// The tile scheduler.
    pub(crate) scheduler: crate::kernel::gemm::TileSchedulerPolicy,
    /// The partial tiles' reduction.
    pub(crate) reduction: crate::kernel::gemm::Reduction,
    /// The cluster `[M, N]`.
    pub(crate) cluster: [u32; 2],
    /// Blocks in the grid where the layout depends on it (stream-K: a
    /// counter pair per block, then the slots), else 0.
    pub(crate) grid: u32,
}

impl Held {
    /// Orders the work enqueued next on `stream` after the buffer's last
    /// use.
    fn follow(&mut self, stream: &Arc<CudaStream>) -> Result<()> {
        let wait = |event: &CudaEvent| {
            stream
                .wait(event)
                .map_err(|e| Error::driver("ordering the GEMM workspace's uses", e))
        };
        match &self.last_stream {
            Some(last) if last.cu_stream() == stream.cu_stream() => Ok(()),
            Some(last) => {
                let event = last
                    .record_event(None)
                    .map_err(|e| Error::driver("recording the GEMM workspace's use", e))?;
                wait(&event)
            }
            None => self.last_event.as_ref().map_or(Ok(()), wait),
        }
    }
}

impl Drop for Held {
    /// The buffer is freed on the stream it was allocated on; a kernel on
    /// another stream may still read it: wait for the last use first (an
    /// error, as at the process's end, leaves nothing to wait for).
    fn drop(&mut self) {
        if let Some(last) = &self.last_stream {
            let _ = last
                .record_event(None)
                .and_then(|event| event.synchronize());
        } else if let Some(event) = &self.last_event {
            let _ = event.synchronize();
        }
    }
}

/// The workspace locked for one launch: its address, and the buffer that
/// records the launch ([`Acquired::launched`]).
pub(crate) struct Acquired<'a> {
    buffers: MutexGuard<'a, Buffers>,
    /// Which buffer: the given one (`None`) or an owned one's index.
    owned: Option<usize>,
    /// The buffer's device address.
    pub(crate) address: u64,
    /// The launch is being captured into a CUDA graph.
    capturing: bool,
    /// Bytes to zero after the launch (a launch of another layout than the
    /// one captured on a given buffer).
    zero_after: usize,
}

impl Acquired<'_> {
    /// The buffer acquired (there while the lock is held).
    fn held(&mut self) -> Option<&mut Held> {
        match self.owned {
            Some(i) => self.buffers.owned.get_mut(i).map(|(_, held)| held),
            None => self.buffers.given.as_mut().map(|given| &mut given.held),
        }
    }

    /// Notes the launch just enqueued on `stream` as the buffer's last
    /// use (not for a launch captured into a graph: the graph runs later,
    /// ordered by the stream it is launched on), and zeroes what it must
    /// leave zero. No event is recorded: a use on another stream records
    /// one then.
    pub(crate) fn launched(mut self, stream: &Arc<CudaStream>) -> Result<()> {
        if self.capturing {
            return Ok(());
        }
        let zero_after = self.zero_after;
        let Some(held) = self.held() else {
            return Ok(());
        };
        held.last_stream = Some(stream.clone());
        held.last_event = None;
        if zero_after > 0 {
            held.zero(stream, 0, zero_after)?;
        }
        Ok(())
    }
}

impl Workspace {
    fn lock(&self) -> MutexGuard<'_, Buffers> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes the caller's `buffer` as the workspace, replacing the one held
    /// (after its last use): checks that it lies on `device`, is
    /// [`WORKSPACE_ALIGNMENT`]-byte aligned and holds `needed` bytes, then
    /// zeroes it on its own stream. A buffer refused is not written (and is
    /// freed).
    ///
    /// Errors: [`Error::InvalidArgument`] naming the device, the address or
    /// the length, with the bytes needed.
    pub(crate) fn adopt(
        &self,
        device: &Device,
        mut buffer: CudaSlice<u8>,
        needed: usize,
    ) -> Result<()> {
        if buffer.context().cu_ctx() != device.context().cu_ctx() {
            return Err(Error::invalid_argument(
                "workspace",
                format!("a buffer on device {}", buffer.ordinal()),
                format!(
                    "a buffer of at least {needed} bytes on device {}, the GEMM's",
                    device.ordinal()
                ),
            ));
        }
        let stream = buffer.stream().clone();
        let (address, _) = buffer.device_ptr(&stream);
        if !(address as usize).is_multiple_of(WORKSPACE_ALIGNMENT) {
            return Err(Error::invalid_argument(
                "workspace (device address)",
                format!("{address:#x}"),
                format!("a {WORKSPACE_ALIGNMENT}-byte aligned buffer of at least {needed} bytes"),
            ));
        }
        if buffer.len() < needed {
            return Err(Error::invalid_argument(
                "workspace.len()",
                buffer.len(),
                format!("at least {needed} bytes (workspace_size)"),
            ));
        }
        let mut buffers = self.lock();
        // Every launch now takes the given buffer.
        let old: Vec<Held> = buffers
            .given
            .take()
            .map(|given| given.held)
            .into_iter()
            .chain(buffers.owned.drain(..).map(|(_, held)| held))
            .collect();
        for held in old {
            buffers.retire(held);
        }
        stream
            .memset_zeros(&mut buffer)
            .map_err(|e| Error::driver("zeroing the GEMM workspace given", e))?;
        let last_event = stream
            .record_event(None)
            .map_err(|e| Error::driver("recording the GEMM workspace's zeroing", e))?;
        let clean = buffer.len();
        let mut held = Held::zeroed(buffer, address);
        held.last_event = Some(last_event);
        buffers.given = Some(Given {
            held,
            layout: None,
            clean,
        });
        Ok(())
    }

    /// Locks the workspace for a launch of `layout` on `stream` that needs
    /// `bytes`, ordered after the last use of its buffer: the buffer given
    /// to `initialize`, its first `bytes` zeroed first where they are not
    /// ready for `layout`; else the GEMM's own buffer for `layout`,
    /// allocated zeroed or grown where it is short (see the module's docs).
    /// A launch captured into a CUDA graph takes its buffer unordered (the
    /// graph's replays are ordered by the stream they run on), and must
    /// find it ready: a capture never allocates or zeroes.
    ///
    /// Errors: [`Error::InvalidArgument`] where the caller's buffer is
    /// shorter than `bytes`, or where a capture would have to allocate or
    /// zero, or would share a given buffer with another layout's capture;
    /// driver errors of the allocation, the zeroing and the wait.
    pub(crate) fn acquire(
        &self,
        stream: &Arc<CudaStream>,
        bytes: usize,
        layout: WorkspaceLayout,
    ) -> Result<Acquired<'_>> {
        let capturing = stream.capture_status().is_ok_and(|status| {
            status == cudarc::driver::sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE
        });
        let mut buffers = self.lock();
        if let Some(given) = buffers.given.as_mut() {
            let len = given.held.buffer.len();
            if len < bytes {
                return Err(Error::invalid_argument(
                    "workspace.len()",
                    len,
                    format!(
                        "at least {bytes} bytes for this problem (the buffer given to initialize is too short: initialize again with a larger one)"
                    ),
                ));
            }
            let dirty = given.dirty(layout, bytes);
            let Given {
                held,
                layout: ready,
                clean,
            } = given;
            let mut zero_after = 0;
            if capturing {
                if !dirty.is_empty() {
                    return Err(Error::invalid_argument(
                        "workspace",
                        "one last used by a kernel of another layout (tile, splits or reduction), while the stream captures a CUDA graph",
                        "a workspace ready for this kernel before the capture: run this problem once first (a capture cannot zero it)",
                    ));
                }
                match held.captured {
                    Some(other) if other != layout => {
                        return Err(Error::invalid_argument(
                            "workspace",
                            "a given buffer that a captured kernel of another layout (tile, splits or reduction) uses",
                            "one layout's captures per given buffer: give each GEMM its own buffer, or let it own its workspace (initialize with None), which keeps one per layout",
                        ));
                    }
                    _ => {
                        held.captured = Some(layout);
                        // All zero is ready for it too.
                        *ready = Some(layout);
                    }
                }
            } else {
                held.follow(stream)?;
                if !dirty.is_empty() {
                    held.zero(stream, dirty.start, dirty.end)?;
                }
                match held.captured {
                    // The graph's layout stays the buffer's: this launch's
                    // bytes are zeroed again after it, which leaves them
                    // ready for the graph's.
                    Some(other) if other != layout => {
                        zero_after = bytes;
                        *clean = (*clean).max(bytes);
                    }
                    _ => {
                        // After another layout only the bytes just zeroed
                        // are ready; past them its partial tiles remain.
                        *clean = match *ready {
                            Some(last) if last != layout => bytes,
                            _ => (*clean).max(bytes),
                        };
                        *ready = Some(layout);
                    }
                }
            }
            let address = held.address;
            return Ok(Acquired {
                buffers,
                owned: None,
                address,
                capturing,
                zero_after,
            });
        }
        let index = buffers.owned.iter().position(|(l, _)| *l == layout);
        let short = index.is_none_or(|i| buffers.owned[i].1.buffer.len() < bytes);
        if capturing && short {
            return Err(Error::invalid_argument(
                "workspace",
                "none that holds this problem's, while the stream captures a CUDA graph",
                format!(
                    "a workspace of at least {bytes} bytes before the capture: give one to initialize, or run the problem once first (a capture cannot allocate)"
                ),
            ));
        }
        let index = match index {
            Some(i) if !short => i,
            found => {
                if let Some(i) = found {
                    let (_, old) = buffers.owned.swap_remove(i);
                    buffers.retire(old);
                }
                // Zeroed: the flags start at 0, and every launch leaves them 0.
                let buffer = stream.alloc_zeros::<u8>(bytes).map_err(|e| {
                    Error::driver(format!("allocating a {bytes}-byte GEMM workspace"), e)
                })?;
                let (address, _) = buffer.device_ptr(stream);
                let mut held = Held::zeroed(buffer, address);
                held.last_stream = Some(stream.clone());
                buffers.owned.push((layout, held));
                buffers.owned.len() - 1
            }
        };
        let held = &mut buffers.owned[index].1;
        if capturing {
            held.captured = Some(layout);
        } else {
            held.follow(stream)?;
        }
        let address = held.address;
        Ok(Acquired {
            buffers,
            owned: Some(index),
            address,
            capturing,
            zero_after: 0,
        })
    }
}
