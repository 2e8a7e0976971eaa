//! [`TypedGemm`]: a runtime-built GEMM whose element types are type
//! parameters, so that buffers of other types do not compile.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};

use super::arguments::Arguments;
use super::launcher::Launcher;
use super::tags::GemmElement;
use crate::device::{Device, LoadedKernel};
use crate::kernel::gemm::GemmSpec;
use crate::Result;

/// The argument type of a [`TypedGemm<A, B, D>`]: buffers of A's, B's and
/// D's storage types, C of D's.
pub type TypedArguments<'a, A, B, D> = Arguments<
    'a,
    <A as GemmElement>::Storage,
    <B as GemmElement>::Storage,
    <D as GemmElement>::Storage,
    <D as GemmElement>::Storage,
>;

/// A GEMM built at run time (tile, majors, epilogue from runtime values)
/// whose element types are known at compile time: from
/// [`GemmBuilder::build_typed`](super::GemmBuilder::build_typed). Its calls
/// are those of [`GemmUniversalAdapter`](super::GemmUniversalAdapter) and
/// [`Gemm`](super::Gemm), with the same signatures, but its arguments are
/// [`TypedArguments<A, B, D>`]: a buffer of another element type is a
/// compile error instead of [`Gemm::run`](super::Gemm::run)'s run-time one.
///
/// ```no_run
/// use cutlet::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand};
/// use cutlet::device::Device;
/// use cutlet::half::bf16;
/// # fn main() -> cutlet::Result<()> {
/// let device = Device::new(0)?;
/// let stream = device.default_stream();
/// let (m, n, k) = (256, 512, 128);
/// let a = stream.alloc_zeros::<bf16>(m * k).unwrap();
/// let b = stream.alloc_zeros::<bf16>(n * k).unwrap();
/// let mut d = stream.alloc_zeros::<bf16>(m * n).unwrap();
/// let gemm = Gemm::builder().tile([128, 128, 64]).build_typed::<bf16, bf16, bf16>(&device)?;
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
///
/// The same call with an f16 A does not compile:
///
/// ```compile_fail,E0308
/// use cutlet::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand};
/// use cutlet::device::Device;
/// use cutlet::half::{bf16, f16};
/// # fn main() -> cutlet::Result<()> {
/// let device = Device::new(0)?;
/// let stream = device.default_stream();
/// let (m, n, k) = (256, 512, 128);
/// let a = stream.alloc_zeros::<f16>(m * k).unwrap();
/// let b = stream.alloc_zeros::<bf16>(n * k).unwrap();
/// let mut d = stream.alloc_zeros::<bf16>(m * n).unwrap();
/// let gemm = Gemm::builder().tile([128, 128, 64]).build_typed::<bf16, bf16, bf16>(&device)?;
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
pub struct TypedGemm<A, B, D> {
    launcher: Launcher,
    types: PhantomData<(A, B, D)>,
}

impl<A, B, D> fmt::Debug for TypedGemm<A, B, D> {
    /// The launcher: the device, the spec and whether the kernel is compiled.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TypedGemm")
            .field("launcher", &self.launcher)
            .finish()
    }
}

impl<A: GemmElement, B: GemmElement, D: GemmElement> TypedGemm<A, B, D> {
    /// The typed GEMM of a launcher whose spec has the element types
    /// `A`, `B`, `D` (checked by `build_typed`).
    pub(super) fn from_launcher(launcher: Launcher) -> Self {
        TypedGemm {
            launcher,
            types: PhantomData,
        }
    }

    /// Whether [`can_implement`](Self::can_implement) and [`run`](Self::run)
    /// reject alpha, beta and epilogue scalars that are not finite in f32:
    /// on by default (see
    /// [`GemmUniversalAdapter::check_scalars`](super::GemmUniversalAdapter::check_scalars)).
    #[must_use]
    pub fn check_scalars(mut self, check: bool) -> Self {
        self.launcher.set_check_scalars(check);
        self
    }

    /// The kernel spec: the default one where the builder picks a kernel
    /// for each problem (see [`Gemm::spec`](super::Gemm::spec)).
    pub fn spec(&self) -> &GemmSpec {
        self.launcher.spec()
    }

    /// The spec of the kernel [`run`](Self::run) launches for `args` (see
    /// [`Gemm::spec_for`](super::Gemm::spec_for)).
    pub fn spec_for(&self, args: &TypedArguments<'_, A, B, D>) -> &GemmSpec {
        let stream = self.launcher.device().default_stream();
        self.launcher.spec_for(args, &stream)
    }

    /// The device the kernel runs on.
    pub fn device(&self) -> &Device {
        self.launcher.device()
    }

    /// Whether the kernel can compute `args`, and why not (see
    /// [`GemmUniversalAdapter::can_implement`](super::GemmUniversalAdapter::can_implement)).
    pub fn can_implement(&self, args: &TypedArguments<'_, A, B, D>) -> Result<()> {
        let stream = self.launcher.device().default_stream();
        self.launcher.can_implement(args, &stream)
    }

    /// Bytes of device workspace `run` needs: as
    /// [`Gemm::workspace_size`](super::Gemm::workspace_size) (0 unless the
    /// kernel splits K).
    pub fn workspace_size(&self, args: &TypedArguments<'_, A, B, D>) -> usize {
        self.launcher.workspace_size(args)
    }

    /// Checks `args` and compiles the kernel; returns it. `workspace`:
    /// `None` keeps the GEMM's own, `Some(buffer)` makes the caller's
    /// buffer the workspace of every run that follows (see
    /// [`GemmUniversalAdapter::initialize`](super::GemmUniversalAdapter::initialize)).
    pub fn initialize(
        &self,
        args: &TypedArguments<'_, A, B, D>,
        workspace: Option<CudaSlice<u8>>,
    ) -> Result<&LoadedKernel> {
        self.launcher.initialize(args, workspace)
    }

    /// Blocks until the optimized compile of the kernel is in use (see
    /// [`GemmUniversalAdapter::wait_optimized`](super::GemmUniversalAdapter::wait_optimized)).
    pub fn wait_optimized(&self) -> Result<()> {
        self.launcher.wait_optimized()
    }

    /// Checks `args` and launches D = alpha · A · B + beta · C on `stream`
    /// (a stream of this GEMM's device).
    pub fn run(
        &self,
        args: &mut TypedArguments<'_, A, B, D>,
        stream: &Arc<CudaStream>,
    ) -> Result<()> {
        self.launcher.run(args, stream)
    }
}
