//! [`ReduceSlots`]: what one rank of a peer group keeps from one GEMM +
//! all-reduce to the next, so that the ranks' sums meet on the GPUs (the
//! [`peer_all_reduce`](crate::kernel::peer_all_reduce) kernel's flags)
//! instead of through events and exchanges on the host: W flag words that
//! the other ranks' sums write, and a buffer of two halves into which the
//! rank's GEMM writes its partial products, a call's half chosen by its
//! epoch's parity (the kernel's docs say why two are enough).
//!
//! The group ([`PeerGroup`](super::peers::PeerGroup)) owns every rank's
//! slots, made with the group, and frees them only after every GPU of the
//! group has finished its work, since another rank's kernel may still read
//! this rank's buffer after this rank's own stream is done.

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, CudaViewMut, DevicePtr, DeviceRepr};

use super::ops::TpElement;
use crate::device::{get_or_load, Device, KernelArgs, LaunchConfig};
use crate::kernel::peer_all_reduce::{PeerAllReduceSpec, ABORT, BLOCK_THREADS};
use crate::{Error, Result};

/// Bytes the halves are rounded up to (the kernel reads 16-byte vectors;
/// 256 keeps each half on its own cache lines).
const HALF_ALIGN: usize = 256;

/// Where a rank's buffer is, as it posted it in the last exchange.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Halves {
    /// The buffer's first half.
    pub(crate) base: u64,
    /// Bytes of each half.
    pub(crate) half_bytes: u64,
}

impl Halves {
    /// What a rank posts of its buffer, as [`from_posting`](Self::from_posting) reads it.
    pub(crate) fn posting(&self) -> [u64; 2] {
        [self.base, self.half_bytes]
    }

    /// The buffer a rank posted (`words`: [`posting`](Self::posting)'s).
    pub(crate) fn from_posting(words: &[u64]) -> Halves {
        Halves {
            base: words[0],
            half_bytes: words[1],
        }
    }

    /// The half that holds the partial products of the call of `epoch`.
    pub(crate) fn half(&self, epoch: u32) -> u64 {
        self.base + u64::from(epoch % 2) * self.half_bytes
    }
}

/// One rank's flags and partial-product buffer (see the module's docs).
#[derive(Debug)]
pub(crate) struct ReduceSlots {
    /// This rank's W flag words.
    flags: FlagWords,
    /// Two halves of `own.half_bytes`; empty until a call needs some.
    data: Option<CudaSlice<u8>>,
    /// Where this rank's buffer is.
    own: Halves,
    /// Every rank's buffer as of the last exchange (`None` before it, or
    /// after this rank's buffer grew).
    group: Option<Vec<Halves>>,
    /// Buffers a growth replaced, freed after the next sum (by then no
    /// rank reads them).
    retired: Vec<CudaSlice<u8>>,
    /// The last call's epoch (0 before the first).
    epoch: u32,
}

impl ReduceSlots {
    /// The slots of a rank of `world` on `context`'s device.
    pub(crate) fn new(world: usize, context: &Arc<CudaContext>) -> Result<ReduceSlots> {
        Ok(ReduceSlots {
            flags: FlagWords::new(world, context)?,
            data: None,
            own: Halves {
                base: 0,
                half_bytes: 0,
            },
            group: None,
            retired: Vec::new(),
            epoch: 0,
        })
    }

    /// The device address of this rank's flag words.
    pub(crate) fn flags(&self) -> u64 {
        self.flags.address
    }

    /// Where this rank's buffer is, to post.
    pub(crate) fn own(&self) -> Halves {
        self.own
    }

    /// Every rank's buffer as of the last exchange, where this rank's has
    /// not changed since.
    pub(crate) fn group(&self) -> Option<&[Halves]> {
        self.group.as_deref()
    }

    /// Whether the rank has a buffer of partial products (that another
    /// rank's kernel may read).
    pub(crate) fn holds_partials(&self) -> bool {
        self.data.is_some()
    }

    /// Remembers every rank's buffer, as posted in an exchange.
    pub(crate) fn remember(&mut self, group: Vec<Halves>) {
        self.group = Some(group);
    }

    /// Whether a call of `bytes` of partial products can skip the
    /// exchange: every rank's half held that much at the last one.
    pub(crate) fn holds(&self, bytes: usize) -> bool {
        self.group
            .as_ref()
            .is_some_and(|g| g.iter().all(|h| h.half_bytes >= bytes.max(1) as u64))
    }

    /// The epoch of the next call: one more than the last, skipping
    /// [`ABORT`] (the waits compare cyclically, so it may wrap).
    pub(crate) fn next_epoch(&self) -> u32 {
        match self.epoch.wrapping_add(1) {
            ABORT => 0,
            next => next,
        }
    }

    /// Records that the call of `epoch` ended (summed or not): every rank
    /// counts every call, failed ones included, so that the epochs agree.
    pub(crate) fn advance(&mut self, epoch: u32) {
        self.epoch = epoch;
    }

    /// Frees the buffers a growth replaced once `stream` has passed the
    /// sum just launched (every rank had started the same call's sum by
    /// then, so had finished the sums that read them).
    pub(crate) fn free_retired(&mut self, stream: &Arc<CudaStream>) -> Result<()> {
        if self.retired.is_empty() {
            return Ok(());
        }
        let summed = stream
            .record_event(None)
            .map_err(|e| Error::driver("recording the end of the all-reduce's sum", e))?;
        for old in self.retired.drain(..) {
            old.stream()
                .wait(&summed)
                .map_err(|e| Error::driver("ordering a replaced buffer's free", e))?;
            drop(old);
        }
        Ok(())
    }

    /// This rank's half for `epoch`, as `len` or more elements of `T`;
    /// the buffer grows (retiring the old one, forgetting the group's
    /// buffers) where it is too small.
    pub(crate) fn half<T: DeviceRepr>(
        &mut self,
        epoch: u32,
        len: usize,
        stream: &Arc<CudaStream>,
    ) -> Result<CudaViewMut<'_, T>> {
        let bytes = (len * std::mem::size_of::<T>()).max(1);
        if self.data.is_none() || bytes as u64 > self.own.half_bytes {
            let half_bytes = bytes.next_power_of_two().max(HALF_ALIGN);
            let data = stream
                .alloc_zeros::<u8>(2 * half_bytes)
                .map_err(|e| Error::driver("allocating the all-reduce's partial products", e))?;
            let base = {
                let (address, _write) = data.device_ptr(stream);
                address
            };
            if let Some(old) = self.data.replace(data) {
                self.retired.push(old);
            }
            self.own = Halves {
                base,
                half_bytes: half_bytes as u64,
            };
            self.group = None;
        }
        let half_bytes = self.own.half_bytes as usize;
        let per_half = half_bytes / std::mem::size_of::<T>().max(1);
        let data = self.data.as_mut().expect("allocated above");
        let too_small = || {
            Error::invalid_argument(
                "all-reduce partial products",
                format!("{len} elements"),
                "a buffer that holds them (allocated above)",
            )
        };
        // SAFETY: the buffer holds 2 · half_bytes bytes, a whole number of
        // `T` (half_bytes is a power of two of at least 256), and its base
        // is the pool's (256-byte aligned); every bit pattern of the GEMM's
        // element types is a valid value.
        let all = unsafe { data.transmute_mut::<T>(2 * per_half) }.ok_or_else(too_small)?;
        all.chunks_exact_mut(per_half)
            .nth((epoch % 2) as usize)
            .ok_or_else(too_small)
    }
}

/// A rank's flag words: `cuMemAlloc` memory, zeroed before any other
/// rank learns its address (so that no signal is overwritten by the
/// zeros), freed with the group.
#[derive(Debug)]
struct FlagWords {
    context: Arc<CudaContext>,
    address: u64,
}

impl FlagWords {
    fn new(world: usize, context: &Arc<CudaContext>) -> Result<FlagWords> {
        context
            .bind_to_thread()
            .map_err(|e| Error::driver("making a rank's device current", e))?;
        let bytes = 4 * world;
        // SAFETY: a plain device allocation of `bytes`, zeroed at once.
        let address = unsafe { cudarc::driver::result::malloc_sync(bytes) }
            .map_err(|e| Error::driver("allocating the all-reduce's flags", e))?;
        let words = FlagWords {
            context: context.clone(),
            address,
        };
        // SAFETY: `address` holds `bytes` bytes (allocated above).
        unsafe { cudarc::driver::result::memset_d8_sync(address, 0, bytes) }
            .map_err(|e| Error::driver("zeroing the all-reduce's flags", e))?;
        Ok(words)
    }
}

impl Drop for FlagWords {
    fn drop(&mut self) {
        if self.context.bind_to_thread().is_ok() {
            // SAFETY: allocated by `new` in this context; the group frees
            // its slots only after its GPUs have finished their work.
            let _ = unsafe { cudarc::driver::result::free_sync(self.address) };
        }
    }
}

/// Releases the sums of the other ranks of a call that this rank could
/// not complete: [`ABORT`] into this rank's word of each one's flags
/// (`signals`, 0 at this rank), which ends their kernels with D unwritten.
/// Best effort: the group is abandoned anyway.
pub(crate) fn abort(device: &Device, signals: &[u64]) {
    if device.context().bind_to_thread().is_err() {
        return;
    }
    for &signal in signals.iter().filter(|&&s| s != 0) {
        // SAFETY: `signal` is a u32 word of another rank's flags, alive
        // while the group is; peer access lets this context write it.
        let _ = unsafe { cudarc::driver::result::memcpy_htod_sync(signal, &[ABORT]) };
    }
}

/// The architecture of `device`, or the error of a GPU too old.
fn arch_of(device: &Device) -> Result<crate::arch::ArchKind> {
    device.arch().ok_or_else(|| {
        let (major, minor) = device.compute_capability();
        Error::UnsupportedArch {
            kernel: "peer_all_reduce".into(),
            required: "compute capability 7.0 or newer".into(),
            ordinal: device.ordinal(),
            major,
            minor,
        }
    })
}

/// One call's sum, as rank `rank` launches it.
pub(crate) struct Sum<'p> {
    /// Every rank's half for this call, in rank order (this rank's own
    /// included).
    pub(crate) parts: &'p [u64],
    /// Where this rank signals each other rank: the address of this
    /// rank's word in that rank's flags (0 at `rank`).
    pub(crate) signals: &'p [u64],
    /// This rank's flag words.
    pub(crate) flags: u64,
    /// The call's epoch.
    pub(crate) epoch: u32,
    /// This rank.
    pub(crate) rank: usize,
}

impl Sum<'_> {
    /// Launches the [`peer_all_reduce`](crate::kernel::peer_all_reduce)
    /// kernel of this call on `stream`: it signals this rank's part, waits
    /// for the other ranks', and sums the parts into `out` (the call's D,
    /// any alignment).
    pub(crate) fn launch<T: TpElement>(
        &self,
        device: &Device,
        out: &mut CudaViewMut<'_, T>,
        stream: &Arc<CudaStream>,
    ) -> Result<()> {
        let len = out.len();
        let arch = arch_of(device)?;
        let spec = PeerAllReduceSpec {
            element: T::TYPE,
            world: self.parts.len() as u32,
            arch,
        };
        let kernel = get_or_load(device, &spec, || spec.kernel_name(), || Ok(spec.ptx()?))?;
        let mut args = KernelArgs::new(stream);
        let out_address = args.output_address(out);
        for &address in self.parts.iter().chain(self.signals) {
            args.scalar(address);
        }
        let aligned = std::iter::once(&out_address)
            .chain(self.parts)
            .all(|address| address % 16 == 0);
        let vectors = if aligned {
            len / spec.elements_per_vector() as usize
        } else {
            0
        };
        args.scalar(self.flags)
            .scalar(len as u64)
            .scalar(vectors as u64)
            .scalar(self.epoch)
            .scalar(self.rank as u32);
        let config = LaunchConfig {
            grid: (spec.blocks(len as u64, device.limits().sm_count), 1, 1),
            block: (BLOCK_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: the params are pushed in the kernel's order (out, the W
        // parts, the W signals, flags, len, vectors, epoch, rank). `out`
        // holds `len` elements (its length); each part holds at least
        // `len` elements of T on its rank's GPU, which this one reads (the
        // group's pools are open to each other) once that rank has
        // signalled, and stays allocated until every GPU of the group is
        // done (the group owns the slots); each signal is a u32 word of a
        // rank's flags, alive as long, and `flags` this rank's W words.
        // Vector loads are used only where every address is 16-byte
        // aligned. Launched as a dependent launch only where the kernel
        // waits for the grid ahead first (`griddepcontrol.wait` in every
        // thread before any global access).
        unsafe {
            kernel.function().launch_after_grid_ahead(
                &config,
                (1, 1, 1),
                spec.dependent_launch(),
                args,
            )
        }
    }
}
