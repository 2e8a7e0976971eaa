//! MN-major 8-bit operands: the SM90 8-bit kernels read A and B K-major
//! only (the wgmma takes 8-bit operands from shared memory K-major), so a
//! GEMM built with an MN-major e4m3, e5m2, s8 or u8 operand copies it
//! K-major before the kernel, with the byte transpose of
//! [`kernel::transpose`](crate::kernel::transpose), into memory allocated
//! on the stream for the call and freed after it (stream-ordered).
//!
//! The copy of an `rows x K` operand (rows = M for A, N for B) is packed
//! row by row, each row padded to a multiple of 16 bytes (TMA's row
//! stride), batch after batch. The kernel's checks read the copy's facts
//! in place of the caller's; the caller's buffer is checked here, in its
//! own major, with no alignment asked (the transpose reads bytes).

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DeviceRepr};

use super::arguments::{Arguments, EpilogueArgs, GemmShape, Operand, OutputOperand, Source};
use super::can_implement::{check_unaligned_operand, OperandFacts};
use super::launcher::Launcher;
use crate::device::transpose::transpose_bytes;
use crate::kernel::gemm::{GemmSpec, OperandMajor};
use crate::numeric::Element;
use crate::Result;

/// Which of A and B a GEMM copies K-major before its kernel (each an
/// MN-major 8-bit operand of the caller's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct KMajorCopies {
    /// A is copied.
    pub(crate) a: bool,
    /// B is copied.
    pub(crate) b: bool,
}

/// Facts of A and B that stand in for the caller's in the kernel's checks.
pub(crate) type Overrides = [Option<OperandFacts>; 2];

impl KMajorCopies {
    /// Whether either operand is copied.
    pub(crate) fn any(self) -> bool {
        self.a || self.b
    }

    /// Bytes (elements) between rows of a copy: `k` rounded up to 16.
    fn ld(k: usize) -> usize {
        k.div_ceil(16) * 16
    }

    /// The facts of the copies of `args`' problem, for each copied
    /// operand (no address: the copy is allocated at the run).
    pub(crate) fn overrides<A: Element, B: Element, C, D>(
        self,
        args: &Arguments<'_, A, B, C, D>,
    ) -> Overrides {
        let shape = args.shape;
        let ld = Self::ld(shape.k);
        let copy = |element, rows: usize| OperandFacts {
            element,
            address: None,
            len: rows * ld * shape.l,
            ld,
            batch_stride: rows * ld,
        };
        [
            self.a.then(|| copy(A::TYPE, shape.m)),
            self.b.then(|| copy(B::TYPE, shape.n)),
        ]
    }

    /// Checks the caller's copied operands of `args` in their own major
    /// (MN) against `spec` (the problem's view of the kernel): element type,
    /// leading dimension, batch stride and length.
    pub(crate) fn check_caller<A, B, C, D>(
        self,
        spec: &GemmSpec,
        args: &Arguments<'_, A, B, C, D>,
        stream: &CudaStream,
    ) -> Result<()>
    where
        A: Element + DeviceRepr,
        B: Element + DeviceRepr,
    {
        if self.a {
            let a = facts(&args.a, stream);
            check_unaligned_operand(false, spec.types.a, OperandMajor::MN, &args.shape, &a)?;
        }
        if self.b {
            let b = facts(&args.b, stream);
            check_unaligned_operand(true, spec.types.b, OperandMajor::MN, &args.shape, &b)?;
        }
        Ok(())
    }
}

/// The facts of the caller's `operand`, its address read on `stream`.
fn facts<T: Element + DeviceRepr>(operand: &Operand<'_, T>, stream: &CudaStream) -> OperandFacts {
    OperandFacts {
        element: T::TYPE,
        address: Some(operand.data.device_ptr(stream).0),
        len: operand.data.len(),
        ld: operand.ld,
        batch_stride: operand.batch_stride,
    }
}

/// The K-major copy of the caller's MN-major `operand` of `rows` rows
/// (M or N) in `shape`, rows `ld` apart, allocated and written on `stream`.
fn copy<T: DeviceRepr>(
    launcher: &Launcher,
    operand: &Operand<'_, T>,
    rows: usize,
    shape: &GemmShape,
    ld: usize,
    stream: &Arc<CudaStream>,
) -> Result<CudaSlice<T>> {
    transpose_bytes(
        launcher.device(),
        &operand.data,
        [shape.k, rows],
        [operand.ld, operand.batch_stride],
        shape.l,
        ld,
        stream,
    )
}

/// The operand the kernel reads: the copy where there is one (rows `ld`
/// apart, packed), else the caller's.
fn kernel_operand<'a, T>(
    copy: &'a Option<CudaSlice<T>>,
    given: &'a Operand<'_, T>,
    rows: usize,
    ld: usize,
) -> Operand<'a, T> {
    match copy {
        Some(copy) => Operand::new(copy.as_view(), ld, rows * ld),
        None => Operand::new(given.data.slice(..), given.ld, given.batch_stride),
    }
}

/// Runs `args` on `launcher`'s kernel with the copied operands copied
/// K-major first, on `stream`; `sm_count` as [`Launcher::run_on`].
pub(crate) fn run_copied<A, B, C, D>(
    launcher: &Launcher,
    copies: KMajorCopies,
    args: &mut Arguments<'_, A, B, C, D>,
    stream: &Arc<CudaStream>,
    sm_count: Option<u32>,
) -> Result<()>
where
    A: Element + DeviceRepr,
    B: Element + DeviceRepr,
    C: Element + DeviceRepr,
    D: Element + DeviceRepr,
{
    let shape = args.shape;
    copies.check_caller(launcher.view(), args, stream)?;
    // A problem that reads neither operand (an empty D, K = 0) runs on the
    // caller's buffers: the kernel's checks do not touch them.
    let reads = !shape.is_empty_output() && shape.k > 0;
    let ld = KMajorCopies::ld(shape.k);
    let a_copy = match copies.a && reads {
        true => Some(copy(launcher, &args.a, shape.m, &shape, ld, stream)?),
        false => None,
    };
    let b_copy = match copies.b && reads {
        true => Some(copy(launcher, &args.b, shape.n, &shape, ld, stream)?),
        false => None,
    };
    let mut inner = Arguments {
        shape,
        a: kernel_operand(&a_copy, &args.a, shape.m, ld),
        b: kernel_operand(&b_copy, &args.b, shape.n, ld),
        c: match &args.c {
            Source::Buffer(c) => {
                Source::Buffer(Operand::new(c.data.slice(..), c.ld, c.batch_stride))
            }
            Source::D => Source::D,
        },
        d: OutputOperand::new(args.d.data.slice_mut(..), args.d.ld, args.d.batch_stride),
        alpha: args.alpha,
        beta: args.beta,
        epilogue: EpilogueArgs {
            biases: args.epilogue.biases.iter().map(|b| b.slice(..)).collect(),
            scalars: args.epilogue.scalars.clone(),
            scales: args
                .epilogue
                .scales
                .as_ref()
                .map(|[a, b]| [a.slice(..), b.slice(..)]),
            d_scale: args.epilogue.d_scale.as_ref().map(|s| s.slice(..)),
            d_amax: args.epilogue.d_amax.as_mut().map(|s| s.slice_mut(..)),
        },
        scheduler: args.scheduler,
    };
    launcher.run_kernel(&mut inner, stream, sm_count)
}
