//! The host side of the reductions: checked, planned, cached, launched.
//!
//! [`Reduce`] describes one reduction (operator, dimension); [`Reduce::run`]
//! checks the call, plans it ([`plan`](crate::kernel::reduce::plan)), and
//! launches its kernels on the caller's stream: one launch for every
//! reduction along a dimension and for full reductions of dense tensors
//! (a split finishes in-kernel: the last CTA of each output combines the
//! partials), two or three for full reductions of other views. Splitting
//! the reduced dimension over CTAs needs a workspace (f32 partials and u32
//! arrival counters): a [`ReduceWorkspace`] the caller keeps and passes to
//! every call grows when a call needs more and is otherwise reused, so a
//! cached call allocates nothing. Calls that share a workspace must not
//! run concurrently (on different streams).
//!
//! Results are deterministic: the plan (and so the order of every f32
//! addition) depends only on the shape, the strides' contiguity, the
//! input's 16-byte alignment, the device's SM count and (for column
//! reductions) the compiled kernel's register count, which fixes how many
//! of its CTAs fit an SM. The only atomics are integer arrival counters,
//! which decide which CTA finishes, never the order of the additions.
mod check;
mod plan;
mod run;
mod workspace;

use std::sync::Arc;

use cudarc::driver::CudaStream;

use super::device::Device;
use crate::fusion::Expression;
use crate::kernel::reduce::{ColumnTuning, ReduceOp};
use crate::tensor::{TensorArg, TensorArgMut};
use crate::Result;
use run::run_plan;

pub use crate::kernel::reduce::ReduceDim;
pub use workspace::ReduceWorkspace;

/// One reduction: an operator along a dimension.
///
/// - Dimensions: [`ReduceDim::Last`] (dim -1: one value per row),
///   [`ReduceDim::First`] (dim 0: one value per column), [`ReduceDim::All`].
///   [`Reduce::along`] takes PyTorch's integer form.
/// - Types: input f32, f16 or bf16; output the input's type or f32;
///   accumulation in f32.
/// - Empty inputs, as PyTorch: no output elements is a no-op; an empty
///   reduced dimension gives 0 for sum, NaN for mean, and an error for max
///   and min.
/// - Accuracy: each thread adds sequentially into a few f32 accumulators
///   (at most about 1000 terms each: the plan bounds the chunk a CTA
///   reduces), then the accumulators, lanes, warps and splits combine as
///   balanced trees. The error of a sum is at most about
///   `(s + log2(n)) * 2^-24 * sum(|x|)`, `s` the longest sequential run
///   (typically far less: random rounding errors cancel).
///
/// ```no_run
/// # fn main() -> cutlet::Result<()> {
/// use cutlet::device::{Device, Reduce, ReduceWorkspace};
/// use cutlet::kernel::reduce::ReduceOp;
/// use cutlet::tensor::{TensorMut, TensorRef};
/// let device = Device::new(0)?;
/// let stream = device.default_stream();
/// let x = stream.clone_htod(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
/// let mut sums = stream.alloc_zeros::<f32>(2).unwrap();
/// let mut workspace = ReduceWorkspace::new();
/// Reduce::along(ReduceOp::Sum, -1)?.run(
///     &device, &stream,
///     TensorRef::row_major(&x, 2, 3)?.into(),
///     TensorMut::vector(&mut sums).into(),
///     &mut workspace,
/// )?;
/// assert_eq!(stream.clone_dtoh(&sums).unwrap(), [6.0, 15.0]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, PartialEq)]
#[must_use]
pub struct Reduce {
    op: ReduceOp,
    dim: ReduceDim,
    map: Option<Expression>,
    scalars: Vec<f32>,
    tuning: ColumnTuning,
}

impl Reduce {
    /// `op` along `dim`.
    pub fn new(op: ReduceOp, dim: ReduceDim) -> Reduce {
        Reduce {
            op,
            dim,
            map: None,
            scalars: Vec::new(),
            tuning: ColumnTuning::default(),
        }
    }

    /// Overrides the column kernel's shape (bytes in flight, wide strips,
    /// waves of splits) for tuning and benchmarks; the default lets the
    /// plan choose. Results stay deterministic for a given tuning.
    pub fn tuning(mut self, tuning: ColumnTuning) -> Reduce {
        self.tuning = tuning;
        self
    }

    /// Reduces `map(x)` instead of `x`, in the same kernel: `map` takes one
    /// input and computes in f32 (e.g. `|x| x * x` for a sum of squares);
    /// `scalars` are its runtime scalars (`scalar(i)`), checked at
    /// [`run`](Self::run). The map is part of the kernel's cache key.
    pub fn map(mut self, map: Expression, scalars: &[f32]) -> Reduce {
        self.map = Some(map);
        self.scalars = scalars.to_vec();
        self
    }

    /// `op` along a PyTorch-style `dim`: -1 or 1 (each row), 0 (each column).
    ///
    /// Errors: [`Error::InvalidArgument`](crate::Error::InvalidArgument) for any other `dim`, saying what is allowed.
    pub fn along(op: ReduceOp, dim: i64) -> Result<Reduce> {
        Ok(Reduce::new(op, check::dim_from_index(dim)?))
    }

    /// The operator.
    pub fn op(&self) -> ReduceOp {
        self.op
    }

    /// The dimension reduced.
    pub fn dim(&self) -> ReduceDim {
        self.dim
    }

    /// `op` over every element (one output value).
    pub fn all(op: ReduceOp) -> Reduce {
        Reduce::new(op, ReduceDim::All)
    }

    /// Reduces `input` into `output` on `stream`.
    ///
    /// `output` is a vector (rank 1, or a 2-D view with one row or one
    /// column; any stride) of one element per row ([`ReduceDim::Last`]), per
    /// column ([`ReduceDim::First`]), or one element ([`ReduceDim::All`]).
    ///
    /// Errors: [`Error::InvalidArgument`](crate::Error::InvalidArgument) for a wrong output shape (naming
    /// both shapes), an unsupported element type, an output type other than
    /// the input's or f32, max or min over an empty dimension;
    /// [`Error::UnsupportedArch`](crate::Error::UnsupportedArch) before compute capability 7.0; driver and
    /// JIT errors with the kernel's name.
    pub fn run(
        &self,
        device: &Device,
        stream: &Arc<CudaStream>,
        input: TensorArg<'_>,
        output: TensorArgMut<'_>,
        workspace: &mut ReduceWorkspace,
    ) -> Result<()> {
        let checked = check::check(
            self.op,
            self.dim,
            (input.element(), input.layout()),
            (output.element(), output.layout()),
        )?;
        self.check_map()?;
        if checked.outputs == 0 {
            return Ok(());
        }
        let plan = self.plan(device, stream, &input, output.element(), checked.out_stride)?;
        run_plan(
            device,
            stream,
            &plan,
            &self.scalars,
            input,
            output,
            workspace,
        )
    }

    /// 4-byte words of workspace (f32 partials plus u32 counters) that
    /// [`run`](Self::run) would need for `input` on `device` (0 when it
    /// does not split).
    pub fn workspace_size(
        &self,
        device: &Device,
        stream: &Arc<CudaStream>,
        input: TensorArg<'_>,
    ) -> Result<usize> {
        let plan = self.plan(device, stream, &input, input.element(), 1)?;
        Ok((plan.workspace + plan.counters) as usize)
    }
}
