//! [`GemmUniversalAdapter`]: the typed front door, CUTLASS's
//! `gemm::device::GemmUniversalAdapter<GemmKernel>` host contract.

use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};

use super::arguments::Arguments;
use super::config::Config;
use super::launcher::Launcher;
use super::tags::GemmElement;
use crate::device::{Device, LoadedKernel};
use crate::kernel::gemm::{Epilogue, GemmSpec};
use crate::Result;

/// The argument type of configuration `C`: buffers of its storage types.
pub type ArgumentsOf<'a, C> = Arguments<
    'a,
    <<C as Config>::A as GemmElement>::Storage,
    <<C as Config>::B as GemmElement>::Storage,
    <<C as Config>::C as GemmElement>::Storage,
    <<C as Config>::D as GemmElement>::Storage,
>;

/// Runs the GEMM of configuration `C` on one device, in CUTLASS's order:
/// [`can_implement`](Self::can_implement), [`workspace_size`](Self::workspace_size),
/// [`initialize`](Self::initialize), [`run`](Self::run), plus
/// [`wait_optimized`](Self::wait_optimized). The runtime front doors,
/// [`Gemm`](super::Gemm) and [`TypedGemm`](super::TypedGemm), offer the same
/// calls with the same signatures.
///
/// The kernel is generated and JIT-compiled once per process and device (on
/// `initialize`, `wait_optimized` or the first `run`); a later `run` checks
/// the arguments and launches.
///
/// Semantics, as CUTLASS's: D = alpha · A · B + beta · C for every batch.
/// M, N or L zero is a no-op (nothing is read or written, no launch). K zero
/// launches and writes D = beta · C (alpha · 0 added), as CUTLASS and BLAS do.
///
/// The argument types follow from `C`'s element types, so buffers of
/// other types do not compile:
///
/// ```no_run
/// use cutlet::device::gemm::{Arguments, DefaultBf16Sm80, GemmShape, GemmUniversalAdapter, Operand, OutputOperand};
/// use cutlet::device::Device;
/// use cutlet::half::bf16;
/// # fn main() -> cutlet::Result<()> {
/// let device = Device::new(0)?;
/// let stream = device.default_stream();
/// let (m, n, k) = (256, 512, 128);
/// let a = stream.alloc_zeros::<bf16>(m * k).unwrap(); // row-major M x K
/// let b = stream.alloc_zeros::<bf16>(n * k).unwrap(); // column-major K x N
/// let mut d = stream.alloc_zeros::<bf16>(m * n).unwrap(); // row-major M x N
/// let gemm = GemmUniversalAdapter::<DefaultBf16Sm80>::new(&device);
/// let mut args = Arguments::product(
///     GemmShape::new(m, n, k, 1),
///     Operand::new(a.as_view(), k, 0),
///     Operand::new(b.as_view(), k, 0),
///     OutputOperand::new(d.as_view_mut(), n, 0),
///     1.0, // alpha
/// );
/// gemm.initialize(&args, None)?.wait_optimized()?; // compiled and final: ready to time
/// gemm.run(&mut args, &stream)?;
/// # Ok(())
/// # }
/// ```
///
/// An f16 A for the bf16 configuration is a compile error:
///
/// ```compile_fail,E0308
/// use cutlet::device::gemm::{Arguments, DefaultBf16Sm80, GemmShape, GemmUniversalAdapter, Operand, OutputOperand};
/// use cutlet::device::Device;
/// use cutlet::half::{bf16, f16};
/// # fn main() -> cutlet::Result<()> {
/// let device = Device::new(0)?;
/// let stream = device.default_stream();
/// let (m, n, k) = (256, 512, 128);
/// let a = stream.alloc_zeros::<f16>(m * k).unwrap();
/// let b = stream.alloc_zeros::<bf16>(n * k).unwrap();
/// let mut d = stream.alloc_zeros::<bf16>(m * n).unwrap();
/// let gemm = GemmUniversalAdapter::<DefaultBf16Sm80>::new(&device);
/// let mut args = Arguments::product(
///     GemmShape::new(m, n, k, 1),
///     Operand::new(a.as_view(), k, 0),
///     Operand::new(b.as_view(), k, 0),
///     OutputOperand::new(d.as_view_mut(), n, 0),
///     1.0,
/// );
/// gemm.run(&mut args, &stream)?;
/// # Ok(())
/// # }
/// ```
pub struct GemmUniversalAdapter<C: Config> {
    launcher: Launcher,
    config: PhantomData<C>,
}

/// Written by hand: a configuration is a type-level tag without `Debug`,
/// and `Result<GemmUniversalAdapter<C>>::unwrap_err` needs the adapter's.
impl<C: Config> std::fmt::Debug for GemmUniversalAdapter<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GemmUniversalAdapter")
            .field("launcher", &self.launcher)
            .finish()
    }
}

impl<C: Config> GemmUniversalAdapter<C> {
    /// The adapter of configuration `C` on `device`. A configuration that
    /// breaks a rule of [`Config::CHECK`] does not compile.
    ///
    /// An SM90 configuration with the TMA-store epilogue
    /// ([`EpilogueTmaWarpSpecialized`](crate::collective::EpilogueTmaWarpSpecialized))
    /// runs a call whose D TMA cannot write (a column-major D whose M is
    /// not a whole number of 16-byte chunks, a row-major D narrower than
    /// one chunk, a D address, `ld` or batch stride off 16 bytes) on the
    /// same kernel with the register-store epilogue;
    /// [`spec_for`](Self::spec_for) names the kernel a call runs.
    pub fn new(device: &Device) -> Self {
        let () = C::CHECK;
        GemmUniversalAdapter {
            launcher: Launcher::with_register_store(device, C::spec(), None),
            config: PhantomData,
        }
    }

    /// The adapter of configuration `C` with a fused `epilogue` in place of
    /// the linear combination.
    ///
    /// # Errors
    /// [`Error::Config`](crate::Error::Config) (kind
    /// [`InvalidConfiguration`](crate::ErrorKind::InvalidConfiguration))
    /// when the epilogue does not fit the spec (e.g. its arity does not
    /// match its bias vectors), naming the configuration and why, as
    /// [`GemmBuilder::epilogue`](super::GemmBuilder::epilogue) does.
    pub fn with_epilogue(device: &Device, epilogue: Epilogue) -> Result<Self> {
        let () = C::CHECK;
        let mut spec = C::spec();
        spec.epilogue.fusion = epilogue;
        spec.validate()?;
        Ok(GemmUniversalAdapter {
            launcher: Launcher::with_register_store(device, spec, None),
            config: PhantomData,
        })
    }

    /// Whether [`can_implement`](Self::can_implement) and [`run`](Self::run)
    /// reject alpha, beta and epilogue scalars that are not finite in f32
    /// (the kernel's scalar type): on by default. Off passes NaN and
    /// infinities to the kernel as given (e.g. an infinite clamp bound in a
    /// fused epilogue).
    #[must_use]
    pub fn check_scalars(mut self, check: bool) -> Self {
        self.launcher.set_check_scalars(check);
        self
    }

    /// The kernel spec `C` lowers to.
    pub fn spec(&self) -> &GemmSpec {
        self.launcher.spec()
    }

    /// The spec of the kernel [`run`](Self::run) launches for `args`:
    /// [`spec`](Self::spec), or the register-store form of an SM90 kernel
    /// for a D that TMA cannot write (see [`new`](Self::new)). The kernel is
    /// not compiled here.
    pub fn spec_for(&self, args: &ArgumentsOf<'_, C>) -> &GemmSpec {
        let stream = self.launcher.device().default_stream();
        self.launcher.spec_for(args, &stream)
    }

    /// The device the kernel runs on.
    pub fn device(&self) -> &Device {
        self.launcher.device()
    }

    /// Whether this kernel can compute `args` on this device, and why not:
    /// [`Error::UnsupportedArch`](crate::Error::UnsupportedArch) for a device that cannot run it,
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming the operand and the value for a
    /// misaligned pointer, leading dimension or batch stride (with the
    /// alignment required), a buffer shorter than the shape and strides
    /// need, a size beyond 32-bit indexing, a C that cannot be D, or a
    /// scalar that is not finite in f32 (unless
    /// [`check_scalars`](Self::check_scalars) is off).
    /// Reads the buffers' addresses on the device's default stream.
    pub fn can_implement(&self, args: &ArgumentsOf<'_, C>) -> Result<()> {
        self.launcher
            .can_implement(args, &self.device().default_stream())
    }

    /// Bytes of device workspace `run` needs: 0 for the data-parallel and
    /// persistent tile schedulers (no state between CTAs); for split-K a
    /// record per output tile (a 128-byte flag header and the tile's f32
    /// partial sums); for stream-K two 128-byte counters and one f32
    /// partial tile per SM of the device.
    pub fn workspace_size(&self, args: &ArgumentsOf<'_, C>) -> usize {
        self.launcher.workspace_size(args)
    }

    /// Checks `args` (as [`can_implement`](Self::can_implement)) and
    /// compiles the kernel, so that the first `run` only launches; returns
    /// the compiled kernel. `workspace`, as CUTLASS's adapter takes one:
    ///
    /// - `None` lets the operation own its workspace (allocated zeroed at
    ///   the first run that needs one, grown for a larger problem, reused;
    ///   one buffer per workspace layout, where the kernels picked for
    ///   different problems split K with different tiles or split counts).
    /// - `Some(buffer)` hands the operation the caller's buffer, which
    ///   becomes the workspace of every run that follows (the operation
    ///   keeps it, and frees it when it is dropped or given another). It
    ///   must lie on the operation's device, start
    ///   [`WORKSPACE_ALIGNMENT`](super::WORKSPACE_ALIGNMENT) (128) bytes
    ///   aligned (every cudarc allocation is) and hold
    ///   [`workspace_size`](Self::workspace_size) bytes; it is zeroed once,
    ///   here, on its own stream. A later run of a problem needing more is
    ///   refused rather than given a larger buffer. A buffer refused is
    ///   not written (and is freed with the error). Kernels of different
    ///   layouts take turns on it: a run whose kernel lays it out otherwise
    ///   than the last run's zeroes the bytes it uses first.
    ///
    /// Either way the workspace's flags reset themselves: no memset precedes
    /// a run of the same kernel as the last, and a run can be captured in a
    /// CUDA graph and replayed (give a buffer, or run once, before
    /// capturing: a capture cannot allocate or zero). A graph's replays
    /// stay right after direct runs of other problems; on a given buffer
    /// only one layout's runs may be captured (another's capture is an
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument)).
    ///
    /// A new configuration compiles in two tiers: a quick compile now, which
    /// the first runs launch, and the optimized one in the background. For
    /// SM70 and SM80 the quick compile is the same kernel at JIT level 1;
    /// for SM90 it is a stand-in kernel with 128x128 tiles that writes the
    /// same bits ([`GemmSpec::sm90_stand_in`](crate::kernel::gemm::GemmSpec::sm90_stand_in)),
    /// except that an SM90 kernel that splits K compiles once, at the full
    /// level.
    /// An SM90 configuration has one kernel for beta = 0 and one for any
    /// other beta, each compiled at its first use: this compiles the one for
    /// `args`' beta.
    /// `gemm.initialize(&args, None)?.wait_optimized()?` also waits for the
    /// final kernel (call it before timing).
    ///
    /// Errors: those of `can_implement`; an [`Error::InvalidArgument`](crate::Error::InvalidArgument)
    /// for a workspace on another device, misaligned or short, naming the
    /// bytes needed; emission, JIT and driver errors naming the kernel.
    pub fn initialize(
        &self,
        args: &ArgumentsOf<'_, C>,
        workspace: Option<CudaSlice<u8>>,
    ) -> Result<&LoadedKernel> {
        self.launcher.initialize(args, workspace)
    }

    /// Blocks until the optimized compile of this kernel is in use (the
    /// first runs of a new SM70 or SM80 configuration launch a quick
    /// compile while the optimized one runs in the background; see
    /// [`LoadedKernel::wait_optimized`]). Compiles the kernel first if no
    /// call has yet (for an SM90 configuration, the kernel for beta = 0;
    /// [`initialize`](Self::initialize) compiles the one a call's beta
    /// needs). Call it before timing.
    ///
    /// Errors: those of the compile, and [`Error::OptimizedCompile`](crate::Error::OptimizedCompile) if the
    /// optimized compile failed (the quick kernel then stays in use).
    pub fn wait_optimized(&self) -> Result<()> {
        self.launcher.wait_optimized()
    }

    /// Checks `args` (as [`can_implement`](Self::can_implement)) and
    /// launches D = alpha · A · B + beta · C on `stream`, which must belong
    /// to this GEMM's device. `args` is borrowed mutably because D is written.
    pub fn run(&self, args: &mut ArgumentsOf<'_, C>, stream: &Arc<CudaStream>) -> Result<()> {
        self.launcher.run(args, stream)
    }
}
