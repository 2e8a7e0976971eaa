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

use std::sync::{Arc, Mutex, MutexGuard};

use cudarc::driver::{CudaEvent, CudaSlice, CudaStream, DevicePtr};

use crate::device::Device;
use crate::{Error, Result};

/// The alignment a workspace's address needs: its records start with a
/// 128-byte flag header ([`SPLIT_K_RECORD_HEADER`](crate::kernel::gemm::SPLIT_K_RECORD_HEADER)).
pub const WORKSPACE_ALIGNMENT: usize = 128;

/// A GEMM's workspace, shared by its launchers (clones share it).
#[derive(Clone, Debug, Default)]
pub(crate) struct Workspace(Arc<Mutex<Option<Held>>>);

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
    /// Given by the caller (never replaced by a larger one).
    given: bool,
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

/// The workspace locked for one launch: its address, and the slot that
/// records the launch's event ([`Acquired::launched`]).
pub(crate) struct Acquired<'a> {
    slot: MutexGuard<'a, Option<Held>>,
    /// The buffer's device address.
    pub(crate) address: u64,
    /// The launch is being captured into a CUDA graph.
    capturing: bool,
}

impl Acquired<'_> {
    /// Notes the launch just enqueued on `stream` as the buffer's last
    /// use (not for a launch captured into a graph: the graph runs later,
    /// ordered by the stream it is launched on). No event is recorded: a
    /// use on another stream records one then.
    pub(crate) fn launched(mut self, stream: &Arc<CudaStream>) -> Result<()> {
        if self.capturing {
            return Ok(());
        }
        if let Some(held) = self.slot.as_mut() {
            held.last_stream = Some(stream.clone());
            held.last_event = None;
        }
        Ok(())
    }
}

impl Workspace {
    fn lock(&self) -> MutexGuard<'_, Option<Held>> {
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
        let mut slot = self.lock();
        // Dropping the buffer held waits for its last use.
        drop(slot.take());
        stream
            .memset_zeros(&mut buffer)
            .map_err(|e| Error::driver("zeroing the GEMM workspace given", e))?;
        let last_event = stream
            .record_event(None)
            .map_err(|e| Error::driver("recording the GEMM workspace's zeroing", e))?;
        *slot = Some(Held {
            buffer,
            address,
            last_stream: None,
            last_event: Some(last_event),
            given: true,
        });
        Ok(())
    }

    /// Locks the workspace for a launch on `stream` that needs `bytes`,
    /// ordered after the last one: the GEMM's own buffer, allocated zeroed
    /// or grown where it is short; a given one as it is. A launch captured
    /// into a CUDA graph takes the buffer as it is, unordered: the graph's
    /// replays are ordered by the stream they run on.
    ///
    /// Errors: [`Error::InvalidArgument`] where the caller's buffer is
    /// shorter than `bytes`, or where a capture would have to allocate;
    /// driver errors of the allocation and the wait.
    pub(crate) fn acquire(&self, stream: &Arc<CudaStream>, bytes: usize) -> Result<Acquired<'_>> {
        let capturing = stream.capture_status().is_ok_and(|status| {
            status == cudarc::driver::sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE
        });
        let mut slot = self.lock();
        if capturing && slot.as_ref().is_none_or(|held| held.buffer.len() < bytes) {
            return Err(Error::invalid_argument(
                "workspace",
                "none that holds this problem's, while the stream captures a CUDA graph",
                format!(
                    "a workspace of at least {bytes} bytes before the capture: give one to initialize, or run the problem once first (a capture cannot allocate)"
                ),
            ));
        }
        let held = match slot.take() {
            Some(held) if held.buffer.len() >= bytes => slot.insert(held),
            Some(held) if held.given => {
                let len = held.buffer.len();
                *slot = Some(held);
                return Err(Error::invalid_argument(
                    "workspace.len()",
                    len,
                    format!(
                        "at least {bytes} bytes for this problem (the buffer given to initialize is too short: initialize again with a larger one)"
                    ),
                ));
            }
            old => {
                // Dropping the old buffer waits for its last use.
                drop(old);
                // Zeroed: the flags start at 0, and every launch leaves them 0.
                let buffer = stream.alloc_zeros::<u8>(bytes).map_err(|e| {
                    Error::driver(format!("allocating a {bytes}-byte GEMM workspace"), e)
                })?;
                let (address, _) = buffer.device_ptr(stream);
                slot.insert(Held {
                    buffer,
                    address,
                    last_stream: Some(stream.clone()),
                    last_event: None,
                    given: false,
                })
            }
        };
        if !capturing {
            held.follow(stream)?;
        }
        let address = held.address;
        Ok(Acquired {
            slot,
            address,
            capturing,
        })
    }
}
