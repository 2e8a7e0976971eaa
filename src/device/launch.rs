//! Launching a [`Function`] on a cudarc stream: the launch configuration, its
//! validation against the device, and a typed argument list.

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{sys, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, SyncOnDrop};

use super::device::DeviceLimits;
use super::function::Function;
use crate::tensor::{ReadBuffer, WriteBuffer};
use crate::{Error, Result};

/// Grid, block and dynamic shared memory of one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in x, y, z.
    pub grid: (u32, u32, u32),
    /// Threads per block in x, y, z.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes.
    pub shared_mem_bytes: u32,
}

impl LaunchConfig {
    /// A 1-D launch of `threads_per_block`-thread blocks covering `n` items,
    /// one per thread, with no dynamic shared memory (`n = 0` gives an empty
    /// grid, which [`LaunchConfig::validate`] rejects).
    ///
    /// ```
    /// # use cutlet::device::LaunchConfig;
    /// let config = LaunchConfig::for_elements(1000, 256);
    /// assert_eq!(config.grid, (4, 1, 1));
    /// assert_eq!(config.block, (256, 1, 1));
    /// ```
    pub fn for_elements(n: u32, threads_per_block: u32) -> LaunchConfig {
        LaunchConfig {
            grid: (n.div_ceil(threads_per_block.max(1)), 1, 1),
            block: (threads_per_block, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    /// Threads per block (the product of the block extents).
    pub fn threads_per_block(&self) -> u64 {
        let (x, y, z) = self.block;
        u64::from(x) * u64::from(y) * u64::from(z)
    }

    /// Checks the block and grid against `limits` (dynamic shared memory is
    /// checked by the function, which knows its static shared memory).
    ///
    /// Errors: [`Error::InvalidLaunchConfig`] naming `kernel`, the values and the limit.
    pub fn validate(&self, kernel: &str, limits: &DeviceLimits) -> Result<()> {
        let invalid = |reason: String| Error::InvalidLaunchConfig {
            kernel: kernel.to_string(),
            reason,
        };
        let (bx, by, bz) = self.block;
        let (gx, gy, gz) = self.grid;
        if [bx, by, bz, gx, gy, gz].contains(&0) {
            return Err(invalid(format!(
                "grid {:?} and block {:?} must have every extent at least 1",
                self.grid, self.block
            )));
        }
        let threads = self.threads_per_block();
        if threads > u64::from(limits.max_threads_per_block) {
            return Err(invalid(format!(
                "block {:?} has {threads} threads; the device allows at most {}",
                self.block, limits.max_threads_per_block
            )));
        }
        let (mx, my, mz) = limits.max_block_dim;
        if bx > mx || by > my || bz > mz {
            return Err(invalid(format!(
                "block {:?} exceeds the device's largest block {:?}",
                self.block, limits.max_block_dim
            )));
        }
        let (mx, my, mz) = limits.max_grid_dim;
        if gx > mx || gy > my || gz > mz {
            return Err(invalid(format!(
                "grid {:?} exceeds the device's largest grid {:?}",
                self.grid, limits.max_grid_dim
            )));
        }
        Ok(())
    }
}

/// A `CUtensorMap` passed to a kernel by value (a `.param .align 64 .b8
/// map[128]` parameter). The driver copies its 128 bytes at launch.
///
/// cudarc's `CUtensorMap` is itself `align(128)` at the `cuda-13000` level,
/// so this wrapper is 128-byte aligned; 64 is what the driver requires.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug)]
pub struct TensorMapArg(pub sys::CUtensorMap);

/// The arguments of one launch, in the kernel's parameter order.
///
/// Buffers contribute their device address (and cudarc's stream ordering:
/// a read waits for earlier writes, a write for earlier reads and writes;
/// the read/write is recorded after the launch). Scalars and tensor maps
/// are copied into storage the list owns.
pub struct KernelArgs<'a> {
    stream: &'a Arc<CudaStream>,
    values: Vec<Box<dyn ParamValue + 'a>>,
    guards: Vec<SyncOnDrop<'a>>,
}

/// A host copy of one kernel parameter, whose address the driver reads.
trait ParamValue {
    fn address(&self) -> *mut c_void;
}

impl<T: DeviceRepr> ParamValue for T {
    fn address(&self) -> *mut c_void {
        (self as *const T).cast_mut().cast()
    }
}

impl<'a> KernelArgs<'a> {
    /// An empty argument list for a launch on `stream`.
    pub fn new(stream: &'a Arc<CudaStream>) -> Self {
        KernelArgs {
            stream,
            values: Vec::new(),
            guards: Vec::new(),
        }
    }

    /// The stream the launch will go to.
    pub fn stream(&self) -> &'a Arc<CudaStream> {
        self.stream
    }

    /// Number of arguments pushed so far.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no argument has been pushed.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// A buffer the kernel reads (`&CudaSlice<T>`, `&CudaView<T>`, `&CudaViewMut<T>`);
    /// passed as its `u64` device address.
    pub fn input<T, B: DevicePtr<T>>(&mut self, buffer: &'a B) -> &mut Self {
        let (address, guard) = buffer.device_ptr(self.stream);
        self.guards.push(guard);
        self.scalar(address)
    }

    /// A buffer the kernel writes (`&mut CudaSlice<T>`, `&mut CudaViewMut<T>`);
    /// passed as its `u64` device address.
    pub fn output<T, B: DevicePtrMut<T>>(&mut self, buffer: &'a mut B) -> &mut Self {
        let (address, guard) = buffer.device_ptr_mut(self.stream);
        self.guards.push(guard);
        self.scalar(address)
    }

    /// As [`KernelArgs::input`] (any `DevicePtr`, unsized ones too), returning
    /// the device address it pushed, for launchers that pick a kernel variant
    /// by alignment or check overlaps.
    pub fn input_address<T, B: DevicePtr<T> + ?Sized>(&mut self, buffer: &'a B) -> u64 {
        let (address, guard) = buffer.device_ptr(self.stream);
        self.guards.push(guard);
        self.scalar(address);
        address
    }

    /// Pushes a type-erased read buffer (a tensor view's) as a read
    /// argument and returns its address (see [`input_address`](Self::input_address)).
    pub fn read_buffer(&mut self, buffer: &'a dyn ReadBuffer) -> u64 {
        let (address, guard) = buffer.read_address(self.stream);
        self.guards.push(guard);
        self.scalar(address);
        address
    }

    /// Pushes a type-erased write buffer as a written argument and returns
    /// its address (see [`output_address`](Self::output_address)).
    pub fn write_buffer(&mut self, buffer: &'a mut dyn WriteBuffer) -> u64 {
        let (address, guard) = buffer.write_address(self.stream);
        self.guards.push(guard);
        self.scalar(address);
        address
    }

    /// As [`KernelArgs::output`] (any `DevicePtrMut`, unsized ones too),
    /// returning the device address it pushed.
    pub fn output_address<T, B: DevicePtrMut<T> + ?Sized>(&mut self, buffer: &'a mut B) -> u64 {
        let (address, guard) = buffer.device_ptr_mut(self.stream);
        self.guards.push(guard);
        self.scalar(address);
        address
    }

    /// As [`KernelArgs::input`], after checking that the buffer's device
    /// address is a multiple of `align` bytes (vectorized kernels need it).
    ///
    /// Errors: [`Error::InvalidArgument`] naming `name`, the address and the
    /// alignment required.
    pub fn aligned_input<T, B: DevicePtr<T>>(
        &mut self,
        name: &str,
        buffer: &'a B,
        align: u64,
    ) -> Result<&mut Self> {
        let (address, guard) = buffer.device_ptr(self.stream);
        self.guards.push(guard);
        check_alignment(name, address, align)?;
        Ok(self.scalar(address))
    }

    /// As [`KernelArgs::output`], after checking that the buffer's device
    /// address is a multiple of `align` bytes.
    ///
    /// Errors: [`Error::InvalidArgument`] naming `name`, the address and the
    /// alignment required.
    pub fn aligned_output<T, B: DevicePtrMut<T>>(
        &mut self,
        name: &str,
        buffer: &'a mut B,
        align: u64,
    ) -> Result<&mut Self> {
        let (address, guard) = buffer.device_ptr_mut(self.stream);
        self.guards.push(guard);
        check_alignment(name, address, align)?;
        Ok(self.scalar(address))
    }

    /// A value passed by copy (`u32`, `f32`, `u64`, a `#[repr(C)]` struct
    /// implementing `DeviceRepr`, ...).
    pub fn scalar<T: DeviceRepr + 'a>(&mut self, value: T) -> &mut Self {
        self.values.push(Box::new(value));
        self
    }

    /// A tensor map passed by value (128 bytes).
    pub fn tensor_map(&mut self, map: TensorMapArg) -> &mut Self {
        self.scalar(map)
    }
}

/// `address` is a multiple of `align` bytes, or an error naming the buffer.
fn check_alignment(name: &str, address: u64, align: u64) -> Result<()> {
    if !address.is_multiple_of(align.max(1)) {
        return Err(Error::invalid_argument(
            format!("{name} (device address)"),
            format!("{address:#x}"),
            format!("a {align}-byte aligned address"),
        ));
    }
    Ok(())
}

// SAFETY: `TensorMapArg` is `repr(C)` around the driver's own `CUtensorMap`
// (plain bytes), exactly what a `.param .align 64 .b8 [128]` parameter holds.
unsafe impl DeviceRepr for TensorMapArg {}

/// The environment variable that turns programmatic dependent launches
/// off (`0`): the GEMM kernels that support them
/// ([`GemmKernel::dependent_launch`](crate::kernel::gemm::GemmKernel::dependent_launch),
/// the SM90 kernels) then launch as every other kernel does, after the
/// kernel ahead of them on the stream has finished. Read once per process.
pub const DEPENDENT_LAUNCH_ENV: &str = "CUTLET_DEPENDENT_LAUNCH";

/// Whether kernels that support it launch as programmatic dependent
/// launches in this process: yes unless [`DEPENDENT_LAUNCH_ENV`] is `0`.
fn dependent_launch_enabled() -> bool {
    static ENABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ENABLED.get_or_init(|| {
        std::env::var(DEPENDENT_LAUNCH_ENV)
            .ok()
            .as_deref()
            .map(str::trim)
            != Some("0")
    })
}

impl Function {
    /// Launches this kernel with `config` and `args` on `args`' stream.
    ///
    /// Checks first, with no driver call: the block and grid against the
    /// device's limits, the dynamic shared memory (plus the kernel's static
    /// shared memory) against the opt-in limit, and that the stream belongs
    /// to the kernel's context. Above 48 KiB of dynamic shared memory it
    /// raises the function's limit first (once per new size).
    ///
    /// # Safety
    ///
    /// The caller guarantees that:
    /// - `args` matches the kernel's parameter list exactly: the same count,
    ///   in order, each with the size and meaning of its PTX parameter
    ///   (`.u64` addresses for buffers, the scalar types as declared);
    /// - every buffer is large enough for every element the kernel touches
    ///   with this configuration and these scalars, and a buffer passed with
    ///   [`KernelArgs::input`] is not written by the kernel;
    /// - the kernel terminates and does not otherwise access memory it was
    ///   not given.
    pub unsafe fn launch(&self, config: &LaunchConfig, args: KernelArgs<'_>) -> Result<()> {
        // SAFETY: the caller's guarantees, passed on unchanged.
        unsafe { self.launch_with(config, None, false, args) }
    }

    /// Launches the function on `args`' stream in thread-block clusters of
    /// `cluster` blocks (x, y, z), through `cuLaunchKernelEx` with the
    /// cluster-dimension attribute: the blocks of one cluster run at the
    /// same time on one GPC and may read each other's shared memory
    /// (`mapa`, `%cluster_ctarank`).
    ///
    /// Errors: as [`launch`](Self::launch), and
    /// [`Error::InvalidLaunchConfig`] when a cluster extent is 0, does not
    /// divide the grid's, or the cluster has more than 8 blocks (the
    /// portable limit); [`Error::UnsupportedArch`] on a device below
    /// compute capability 9.0, which has no clusters.
    ///
    /// # Safety
    ///
    /// As [`launch`](Self::launch).
    pub unsafe fn launch_cluster(
        &self,
        config: &LaunchConfig,
        cluster: (u32, u32, u32),
        args: KernelArgs<'_>,
    ) -> Result<()> {
        check_cluster(&self.name, config, cluster)?;
        self.require_sm90("thread-block clusters")?;
        // SAFETY: the caller's guarantees, passed on unchanged; the cluster
        // was checked above.
        unsafe { self.launch_with(config, Some(cluster), false, args) }
    }

    /// Launches the function as [`launch_cluster`](Self::launch_cluster)
    /// does (a cluster of `(1, 1, 1)` launches without clusters), and
    /// allows it to start before the kernel ahead of it on the stream has
    /// finished: CUDA's programmatic dependent launch
    /// (`CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`). The
    /// blocks may then be placed on SMs as the kernel ahead frees them, and
    /// the kernel's start (its launch, barrier setup, tensor-map prefetch)
    /// overlaps that kernel's last blocks; `griddepcontrol.wait` in the
    /// kernel holds it until the kernel ahead has completed and its memory
    /// operations are visible. After any other stream operation (a copy, an
    /// event) the launch waits as [`launch`](Self::launch)'s does.
    ///
    /// Errors: as [`launch_cluster`](Self::launch_cluster), including
    /// [`Error::UnsupportedArch`] below compute capability 9.0 (which has
    /// no programmatic dependent launch).
    ///
    /// # Safety
    ///
    /// As [`launch`](Self::launch), and: every thread of the kernel that
    /// reads or writes global memory executes `griddepcontrol.wait` first
    /// (the kernel's parameters, tensor maps included, and shared memory may
    /// be used before it).
    pub unsafe fn launch_dependent(
        &self,
        config: &LaunchConfig,
        cluster: (u32, u32, u32),
        args: KernelArgs<'_>,
    ) -> Result<()> {
        check_cluster(&self.name, config, cluster)?;
        self.require_sm90("programmatic dependent launch")?;
        let cluster = (cluster != (1, 1, 1)).then_some(cluster);
        // SAFETY: the caller's guarantees, passed on unchanged (the kernel
        // waits for the grid ahead before touching global memory); the
        // cluster was checked above.
        unsafe { self.launch_with(config, cluster, true, args) }
    }

    /// Launches the function in clusters of `cluster` blocks (none where it
    /// is `(1, 1, 1)`), as a programmatic dependent launch
    /// ([`launch_dependent`](Self::launch_dependent)) where
    /// `waits_for_grid_ahead` says the kernel is built for one and
    /// [`DEPENDENT_LAUNCH_ENV`] does not turn them off, else as
    /// [`launch`](Self::launch) or [`launch_cluster`](Self::launch_cluster):
    /// the one place that decides how a kernel that may start early
    /// launches.
    ///
    /// Errors: as the launch it makes.
    ///
    /// # Safety
    ///
    /// As [`launch`](Self::launch), and, where `waits_for_grid_ahead`, as
    /// [`launch_dependent`](Self::launch_dependent).
    pub(crate) unsafe fn launch_after_grid_ahead(
        &self,
        config: &LaunchConfig,
        cluster: (u32, u32, u32),
        waits_for_grid_ahead: bool,
        args: KernelArgs<'_>,
    ) -> Result<()> {
        // SAFETY: the caller's guarantees, passed on unchanged; the
        // dependent form only where the kernel waits for the grid ahead.
        unsafe {
            if waits_for_grid_ahead && dependent_launch_enabled() {
                self.launch_dependent(config, cluster, args)
            } else if cluster == (1, 1, 1) {
                self.launch(config, args)
            } else {
                self.launch_cluster(config, cluster, args)
            }
        }
    }

    /// [`Error::UnsupportedArch`] naming `feature` where the function's
    /// device is below compute capability 9.0 (read when the function was
    /// looked up: no driver call).
    fn require_sm90(&self, feature: &str) -> Result<()> {
        let (major, minor) = self.compute_capability;
        if major < 9 {
            return Err(Error::UnsupportedArch {
                kernel: self.name.clone(),
                required: format!("{feature} (compute capability 9.0 or newer)"),
                ordinal: self.module.context.ordinal(),
                major,
                minor,
            });
        }
        Ok(())
    }

    /// How many clusters of `cluster` blocks (x, y, z) of this function, at
    /// `block` threads and `shared_mem_bytes` of dynamic shared memory, the
    /// device runs at once (`cuOccupancyMaxActiveClusters`): what a
    /// persistent grid of clusters should launch, as CUTLASS's
    /// `KernelHardwareInfo` asks. Fewer than SMs / cluster size where the
    /// GPCs' SM counts are not multiples of the cluster size, or shared
    /// memory leaves room for fewer.
    ///
    /// Errors: [`Error::SharedMemoryTooLarge`] as for a launch;
    /// [`Error::Driver`] where the driver cannot answer (a device without
    /// clusters, an invalid cluster shape).
    pub fn max_active_clusters(
        &self,
        block: (u32, u32, u32),
        shared_mem_bytes: u32,
        cluster: (u32, u32, u32),
    ) -> Result<u32> {
        self.allow_dynamic_shared_memory(shared_mem_bytes)?;
        self.module.context.bind_to_thread().map_err(|e| {
            Error::driver(format!("binding the context for kernel `{}`", self.name), e)
        })?;
        // SAFETY: an all-zero `CUlaunchAttribute` is a valid value of the
        // plain C struct (id IGNORE, zeroed union); its id and cluster
        // dimensions are set below.
        let mut attribute: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
        attribute.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attribute.value.clusterDim.x = cluster.0;
        attribute.value.clusterDim.y = cluster.1;
        attribute.value.clusterDim.z = cluster.2;
        let config = sys::CUlaunchConfig {
            gridDimX: cluster.0,
            gridDimY: cluster.1,
            gridDimZ: cluster.2,
            blockDimX: block.0,
            blockDimY: block.1,
            blockDimZ: block.2,
            sharedMemBytes: shared_mem_bytes,
            hStream: std::ptr::null_mut(),
            attrs: &mut attribute,
            numAttrs: 1,
        };
        let mut clusters: std::ffi::c_int = 0;
        // SAFETY: the context is bound; `self.raw` is a function of a module
        // kept loaded by `self.module`; `config` and the attribute it points
        // to live until the call returns; `clusters` is a valid out-pointer.
        unsafe { sys::cuOccupancyMaxActiveClusters(&mut clusters, self.raw, &config) }
            .result()
            .map_err(|e| {
                Error::driver(
                    format!(
                        "asking how many {}x{}x{} clusters of kernel `{}` fit at once",
                        cluster.0, cluster.1, cluster.2, self.name
                    ),
                    e,
                )
            })?;
        Ok(u32::try_from(clusters).unwrap_or(0))
    }

    /// [`launch`](Self::launch) or, with a cluster or a programmatic
    /// dependent launch, [`launch_cluster`](Self::launch_cluster) and
    /// [`launch_dependent`](Self::launch_dependent).
    ///
    /// # Safety
    ///
    /// As [`launch`](Self::launch); where `dependent`, as
    /// [`launch_dependent`](Self::launch_dependent).
    unsafe fn launch_with(
        &self,
        config: &LaunchConfig,
        cluster: Option<(u32, u32, u32)>,
        dependent: bool,
        args: KernelArgs<'_>,
    ) -> Result<()> {
        let context = &self.module.context;
        config.validate(&self.name, &self.module.limits)?;
        self.allow_dynamic_shared_memory(config.shared_mem_bytes)?;
        if args.stream.context().cu_ctx() != context.cu_ctx() {
            return Err(Error::invalid_argument(
                "stream",
                format!("a stream of device {}", args.stream.context().ordinal()),
                format!(
                    "a stream of device {}, where kernel `{}` is loaded",
                    context.ordinal(),
                    self.name
                ),
            ));
        }
        context.bind_to_thread().map_err(|e| {
            Error::driver(format!("binding the context to launch `{}`", self.name), e)
        })?;
        let mut params: Vec<*mut c_void> = args.values.iter().map(|v| v.address()).collect();
        let (gx, gy, gz) = config.grid;
        let (bx, by, bz) = config.block;
        let result = if cluster.is_none() && !dependent {
            // SAFETY: the context is bound; `self.raw` is a function of a
            // loaded module; `params` holds one pointer per argument, each
            // to a host copy owned by `args` and alive until after this call;
            // argument types and buffer sizes are the caller's guarantee (see
            // `# Safety`); the configuration was validated above.
            unsafe {
                sys::cuLaunchKernel(
                    self.raw,
                    gx,
                    gy,
                    gz,
                    bx,
                    by,
                    bz,
                    config.shared_mem_bytes,
                    args.stream.cu_stream(),
                    params.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            }
        } else {
            // SAFETY: an all-zero `CUlaunchAttribute` is a valid value of
            // the plain C struct (id IGNORE, zeroed union); the ids and
            // values of those passed are set below.
            let mut attributes: [sys::CUlaunchAttribute; 2] = unsafe { std::mem::zeroed() };
            let mut count = 0;
            if let Some((cx, cy, cz)) = cluster {
                let attribute = &mut attributes[count];
                attribute.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
                attribute.value.clusterDim.x = cx;
                attribute.value.clusterDim.y = cy;
                attribute.value.clusterDim.z = cz;
                count += 1;
            }
            if dependent {
                let attribute = &mut attributes[count];
                attribute.id =
                    sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
                attribute.value.programmaticStreamSerializationAllowed = 1;
                count += 1;
            }
            let launch = sys::CUlaunchConfig {
                gridDimX: gx,
                gridDimY: gy,
                gridDimZ: gz,
                blockDimX: bx,
                blockDimY: by,
                blockDimZ: bz,
                sharedMemBytes: config.shared_mem_bytes,
                hStream: args.stream.cu_stream(),
                attrs: attributes.as_mut_ptr(),
                numAttrs: count as u32,
            };
            // SAFETY: as for `cuLaunchKernel` above; `launch` and the
            // attributes it points to live until the call returns; a
            // cluster divides the grid and the device has clusters, and a
            // dependent launch's kernel waits for the grid ahead before it
            // touches global memory (`launch_cluster` and
            // `launch_dependent` checked the first two, the caller
            // guarantees the third).
            unsafe {
                sys::cuLaunchKernelEx(&launch, self.raw, params.as_mut_ptr(), std::ptr::null_mut())
            }
        };
        result
            .result()
            .map_err(|e| Error::driver(format!("launching kernel `{}`", self.name), e))?;
        // The buffer guards record each read/write on the stream when `args`
        // drops here, after the launch is enqueued.
        drop(args);
        Ok(())
    }
}

/// The most blocks one cluster may hold without the non-portable opt-in.
pub const MAX_PORTABLE_CLUSTER: u32 = 8;

/// Checks `cluster` against `config`'s grid: every extent at least 1 and a
/// divisor of the grid's, at most [`MAX_PORTABLE_CLUSTER`] blocks in all.
///
/// ```
/// use cutlet::device::{check_cluster, LaunchConfig};
///
/// let config = LaunchConfig { grid: (8, 2, 1), block: (128, 1, 1), shared_mem_bytes: 0 };
/// assert!(check_cluster("k", &config, (2, 1, 1)).is_ok());
/// let err = check_cluster("k", &config, (3, 1, 1)).unwrap_err();
/// assert!(err.to_string().contains("cluster 3x1x1"), "{err}");
/// assert!(check_cluster("k", &config, (4, 2, 2)).is_err());
/// ```
///
/// Errors: [`Error::InvalidLaunchConfig`] naming the kernel, the cluster
/// and the grid.
pub fn check_cluster(kernel: &str, config: &LaunchConfig, cluster: (u32, u32, u32)) -> Result<()> {
    let (cx, cy, cz) = cluster;
    let (gx, gy, gz) = config.grid;
    let invalid = |expected: String| Error::InvalidLaunchConfig {
        kernel: kernel.to_string(),
        reason: format!("cluster {cx}x{cy}x{cz} for grid {gx}x{gy}x{gz}: expected {expected}"),
    };
    if [cx, cy, cz].contains(&0) {
        return Err(invalid("every cluster extent at least 1".to_string()));
    }
    if gx % cx != 0 || gy % cy != 0 || gz % cz != 0 {
        return Err(invalid(
            "cluster extents that divide the grid's extents".to_string(),
        ));
    }
    let blocks = u64::from(cx) * u64::from(cy) * u64::from(cz);
    if blocks > u64::from(MAX_PORTABLE_CLUSTER) {
        return Err(invalid(format!(
            "at most {MAX_PORTABLE_CLUSTER} blocks a cluster (the portable limit)"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alignment_check_names_the_buffer_address_and_requirement() {
        assert!(check_alignment("a", 0x7f00_0000_0100, 16).is_ok());
        let err = check_alignment("b", 0x7f00_0000_0108, 16).unwrap_err();
        let message = err.to_string();
        assert!(matches!(err, Error::InvalidArgument { .. }), "{message}");
        assert!(message.contains("b (device address)"), "{message}");
        assert!(message.contains("0x7f0000000108"), "{message}");
        assert!(message.contains("16-byte aligned"), "{message}");
    }

    fn h100_limits() -> DeviceLimits {
        DeviceLimits {
            max_threads_per_block: 1024,
            max_block_dim: (1024, 1024, 64),
            max_grid_dim: (2_147_483_647, 65_535, 65_535),
            max_shared_memory_per_block: 48 * 1024,
            max_shared_memory_per_block_optin: 227 * 1024,
            sm_count: 132,
        }
    }

    fn config(grid: (u32, u32, u32), block: (u32, u32, u32)) -> LaunchConfig {
        LaunchConfig {
            grid,
            block,
            shared_mem_bytes: 0,
        }
    }

    #[test]
    fn valid_configurations_pass() {
        let limits = h100_limits();
        assert!(config((1, 1, 1), (1024, 1, 1))
            .validate("k", &limits)
            .is_ok());
        assert!(config((65_535, 65_535, 1), (32, 32, 1))
            .validate("k", &limits)
            .is_ok());
    }

    #[test]
    fn too_many_threads_names_the_count_and_the_limit() {
        let err = config((1, 1, 1), (32, 32, 2))
            .validate("gemm", &h100_limits())
            .unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, Error::InvalidLaunchConfig { .. }));
        assert!(
            text.contains("`gemm`") && text.contains("2048") && text.contains("1024"),
            "{text}"
        );
    }

    #[test]
    fn empty_and_oversized_grids_are_rejected() {
        let limits = h100_limits();
        let empty = config((0, 1, 1), (128, 1, 1))
            .validate("k", &limits)
            .unwrap_err();
        assert!(empty.to_string().contains("(0, 1, 1)"));
        let tall = config((1, 65_536, 1), (128, 1, 1))
            .validate("k", &limits)
            .unwrap_err();
        assert!(tall.to_string().contains("65536"));
        let deep = config((1, 1, 1), (1, 1, 65))
            .validate("k", &limits)
            .unwrap_err();
        assert!(deep.to_string().contains("(1, 1, 65)"));
    }

    #[test]
    fn for_elements_covers_every_element() {
        for (n, block) in [(1, 128), (128, 128), (129, 128), (1_000_003, 256)] {
            let c = LaunchConfig::for_elements(n, block);
            assert!(u64::from(c.grid.0) * u64::from(block) >= u64::from(n));
            assert!(u64::from(c.grid.0 - 1) * u64::from(block) < u64::from(n));
        }
    }

    #[test]
    fn tensor_map_argument_is_128_bytes_and_64_aligned() {
        assert_eq!(std::mem::size_of::<TensorMapArg>(), 128);
        assert_eq!(std::mem::align_of::<TensorMapArg>() % 64, 0);
    }
}
