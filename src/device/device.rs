//! A CUDA device: its primary context, its limits, and a report of what it is.

use std::sync::Arc;

use cudarc::driver::{sys::CUdevice_attribute as Attr, CudaContext, CudaStream};

use super::driver::device_count;
use crate::arch::ArchKind;
use crate::{Error, Result};

/// One GPU, through its primary context. Cheap to clone: clones share the context.
///
/// The launch limits (block size, grid size, shared memory) are read once at
/// [`Device::new`], so validating a launch costs no driver call.
#[derive(Clone, Debug)]
pub struct Device {
    context: Arc<CudaContext>,
    ordinal: usize,
    compute_capability: (u32, u32),
    limits: DeviceLimits,
}

/// The launch limits of a device, read once when the [`Device`] is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    /// Most threads in one block (1024 on every supported GPU).
    pub max_threads_per_block: u32,
    /// Largest block extent in x, y, z.
    pub max_block_dim: (u32, u32, u32),
    /// Largest grid extent in x, y, z.
    pub max_grid_dim: (u32, u32, u32),
    /// Shared memory a block may use without opting in (48 KiB).
    pub max_shared_memory_per_block: u32,
    /// Shared memory a block may use after opting in
    /// (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`): 227 KiB on H100.
    pub max_shared_memory_per_block_optin: u32,
    /// Number of streaming multiprocessors (sizes persistent and grid-stride grids).
    pub sm_count: u32,
}

/// What a device is, as `cutlet info` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The device's ordinal.
    pub ordinal: usize,
    /// The marketing name, e.g. "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// Compute capability `(major, minor)`, e.g. `(9, 0)`.
    pub compute_capability: (u32, u32),
    /// Number of streaming multiprocessors.
    pub sm_count: u32,
    /// Total device memory in bytes.
    pub total_memory_bytes: u64,
    /// Shared memory a block may use after opting in, in bytes.
    pub max_shared_memory_per_block_optin: u32,
    /// L2 cache size in bytes.
    pub l2_cache_bytes: u32,
    /// Peak memory clock in kHz.
    pub memory_clock_khz: u32,
    /// Global memory bus width in bits.
    pub memory_bus_width_bits: u32,
}

impl DeviceInfo {
    /// The DRAM bandwidth ceiling in GB/s (10^9 bytes per second):
    /// 2 transfers per clock × memory clock × bus width in bytes.
    ///
    /// ```
    /// # use cutlet::device::DeviceInfo;
    /// let h100 = DeviceInfo {
    ///     ordinal: 0,
    ///     name: "NVIDIA H100 80GB HBM3".into(),
    ///     compute_capability: (9, 0),
    ///     sm_count: 132,
    ///     total_memory_bytes: 85_028_896_768,
    ///     max_shared_memory_per_block_optin: 232_448,
    ///     l2_cache_bytes: 52_428_800,
    ///     memory_clock_khz: 2_619_000,
    ///     memory_bus_width_bits: 5120,
    /// };
    /// // 2 × 2.619 GHz × 640 bytes = 3352.32 GB/s
    /// assert!((h100.dram_bandwidth_gbps() - 3352.32).abs() < 1e-6);
    /// ```
    pub fn dram_bandwidth_gbps(&self) -> f64 {
        let bytes_per_clock = f64::from(self.memory_bus_width_bits) / 8.0;
        2.0 * f64::from(self.memory_clock_khz) * 1e3 * bytes_per_clock / 1e9
    }

    /// The architecture cutlet would generate code for on this device.
    pub fn arch(&self) -> Option<ArchKind> {
        let (major, minor) = self.compute_capability;
        ArchKind::from_compute_capability(major, minor)
    }
}

impl Device {
    /// Opens device `ordinal` through its primary context.
    ///
    /// Errors: [`Error::NoDriver`] without `libcuda`, [`Error::NoDevice`] when
    /// the ordinal is not below the device count, [`Error::Driver`] when the
    /// driver refuses the context.
    pub fn new(ordinal: usize) -> Result<Device> {
        let count = device_count()?;
        if ordinal >= count {
            return Err(Error::NoDevice { ordinal, count });
        }
        let context = CudaContext::new(ordinal).map_err(|e| {
            Error::driver(
                format!("creating the primary context of device {ordinal}"),
                e,
            )
        })?;
        let read = |attribute: Attr| read_attribute(&context, ordinal, attribute);
        let compute_capability = (
            read(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            read(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        );
        let limits = DeviceLimits {
            max_threads_per_block: read(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_block_dim: (
                read(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                read(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                read(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ),
            max_grid_dim: (
                read(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                read(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                read(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ),
            max_shared_memory_per_block: read(
                Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
            )?,
            max_shared_memory_per_block_optin: read(
                Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )?,
            sm_count: read(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
        };
        Ok(Device {
            context,
            ordinal,
            compute_capability,
            limits,
        })
    }

    /// Opens device 0.
    pub fn default_device() -> Result<Device> {
        Device::new(0)
    }

    /// The device's ordinal.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// The cudarc context (the device's primary context), for allocating
    /// buffers and creating streams.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.context
    }

    /// The context's default stream.
    pub fn default_stream(&self) -> Arc<CudaStream> {
        self.context.default_stream()
    }

    /// A new non-blocking stream on this device.
    pub fn new_stream(&self) -> Result<Arc<CudaStream>> {
        self.context
            .new_stream()
            .map_err(|e| Error::driver(format!("creating a stream on device {}", self.ordinal), e))
    }

    /// Whether `stream` belongs to this device (its context): a kernel
    /// loaded for one device cannot run on another's stream.
    ///
    /// Errors: [`Error::InvalidArgument`] naming both devices.
    pub(crate) fn check_stream(&self, stream: &CudaStream) -> Result<()> {
        let context = stream.context();
        if context.cu_ctx() == self.context.cu_ctx() {
            return Ok(());
        }
        Err(Error::invalid_argument(
            "stream",
            format!("a stream of device {}", context.ordinal()),
            format!(
                "a stream of device {}, the device this operation was built for",
                self.ordinal
            ),
        ))
    }

    /// Compute capability `(major, minor)`.
    pub fn compute_capability(&self) -> (u32, u32) {
        self.compute_capability
    }

    /// The launch limits read when the device was opened.
    pub fn limits(&self) -> &DeviceLimits {
        &self.limits
    }

    /// The architecture cutlet generates code for on this device; `None`
    /// below compute capability 7.0.
    pub fn arch(&self) -> Option<ArchKind> {
        let (major, minor) = self.compute_capability;
        ArchKind::from_compute_capability(major, minor)
    }

    /// Reads the device's name, memory and cache sizes, and clocks.
    pub fn info(&self) -> Result<DeviceInfo> {
        let ordinal = self.ordinal;
        let read = |attribute: Attr| read_attribute(&self.context, ordinal, attribute);
        let name = self
            .context
            .name()
            .map_err(|e| Error::driver(format!("reading the name of device {ordinal}"), e))?;
        let total_memory = self.context.total_mem().map_err(|e| {
            Error::driver(format!("reading the memory size of device {ordinal}"), e)
        })?;
        Ok(DeviceInfo {
            ordinal,
            name,
            compute_capability: self.compute_capability,
            sm_count: read(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            total_memory_bytes: total_memory as u64,
            max_shared_memory_per_block_optin: self.limits.max_shared_memory_per_block_optin,
            l2_cache_bytes: read(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?,
            memory_clock_khz: read(Attr::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)?,
            memory_bus_width_bits: read(Attr::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)?,
        })
    }
}

/// Reads one device attribute; the driver reports them as non-negative `int`s.
fn read_attribute(context: &CudaContext, ordinal: usize, attribute: Attr) -> Result<u32> {
    let value = context
        .attribute(attribute)
        .map_err(|e| Error::driver(format!("reading {attribute:?} of device {ordinal}"), e))?;
    u32::try_from(value).map_err(|_| {
        Error::invalid_argument(
            format!("{attribute:?} of device {ordinal}"),
            value,
            "a non-negative value from the driver",
        )
    })
}
