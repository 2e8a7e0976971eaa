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
use crate::kernel::reduce::{ColumnTuning, Plan, ReduceOp};
use crate::numeric::ElementType;
use crate::tensor::{TensorArg, TensorArgMut};
use crate::Result;
use run::run_plan;

pub use crate::kernel::reduce::ReduceDim;
pub use workspace::ReduceWorkspace;

/// One reduction on one device: an operator along a dimension, of the
/// input or of a map of it.
///
/// As every cutlet operation, it is bound to its [`Device`] when built,
/// [`run`](Self::run) takes a stream of that device (`&Arc<CudaStream>`,
/// last), and scalars (the map's) are `f64`, checked to be finite in f32,
/// the type the kernels compute in, unless
/// [`check_scalars`](Self::check_scalars) is off.
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
/// Reduce::along(&device, ReduceOp::Sum, -1)?.run(
///     TensorRef::row_major(&x, 2, 3)?.into(),
///     TensorMut::vector(&mut sums).into(),
///     &mut workspace,
///     &stream,
/// )?;
/// assert_eq!(stream.clone_dtoh(&sums).unwrap(), [6.0, 15.0]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
#[must_use]
pub struct Reduce {
    device: Device,
    op: ReduceOp,
    dim: ReduceDim,
    map: Option<Expression>,
    scalars: Vec<f64>,
    check_scalars: bool,
    tuning: ColumnTuning,
}

impl Reduce {
    /// `op` along `dim`, on `device`.
    pub fn new(device: &Device, op: ReduceOp, dim: ReduceDim) -> Reduce {
        Reduce {
            device: device.clone(),
            op,
            dim,
            map: None,
            scalars: Vec::new(),
            check_scalars: true,
            tuning: ColumnTuning::default(),
        }
    }

    /// `op` along a PyTorch-style `dim`, on `device`: -1 or 1 (each row),
    /// 0 (each column).
    ///
    /// Errors: [`Error::InvalidArgument`](crate::Error::InvalidArgument) for any other `dim`, saying what is allowed.
    pub fn along(device: &Device, op: ReduceOp, dim: i64) -> Result<Reduce> {
        Ok(Reduce::new(device, op, check::dim_from_index(dim)?))
    }

    /// `op` over every element (one output value), on `device`.
    pub fn all(device: &Device, op: ReduceOp) -> Reduce {
        Reduce::new(device, op, ReduceDim::All)
    }

    /// Overrides the column kernel's shape (bytes in flight, wide strips,
    /// waves of splits) for tuning and benchmarks; the default lets the
    /// plan choose. Results stay deterministic for a given tuning.
    pub fn tuning(mut self, tuning: ColumnTuning) -> Reduce {
        self.tuning = tuning;
        self
    }

    /// Reduces `map(x)` instead of `x`, in the same kernel: `map` takes one
    /// input and computes in f32 (e.g. `|x| &x * &x` for a sum of squares);
    /// `scalars` are its runtime scalars (`scalar(i)`, rounded to f32),
    /// checked at [`run`](Self::run). The map is part of the kernel's cache key.
    pub fn map(mut self, map: Expression, scalars: &[f64]) -> Reduce {
        self.map = Some(map);
        self.scalars = scalars.to_vec();
        self
    }

    /// Whether [`run`](Self::run) rejects map scalars that are not finite
    /// in f32 (NaN, infinities, values beyond f32's range): on by default.
    /// Off passes them to the kernel as given.
    pub fn check_scalars(mut self, check: bool) -> Reduce {
        self.check_scalars = check;
        self
    }

    /// The device the reduction runs on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The operator.
    pub fn op(&self) -> ReduceOp {
        self.op
    }

    /// The dimension reduced.
    pub fn dim(&self) -> ReduceDim {
        self.dim
    }

    /// The map applied before reducing, if any.
    pub fn map_expression(&self) -> Option<&Expression> {
        self.map.as_ref()
    }

    /// The column kernel's tuning (the default lets the plan choose).
    pub fn column_tuning(&self) -> ColumnTuning {
        self.tuning
    }

    /// Reduces `input` into `output` on `stream` (a stream of this
    /// reduction's device).
    ///
    /// `output` is a vector (rank 1, or a 2-D view with one row or one
    /// column; any stride) of one element per row ([`ReduceDim::Last`]), per
    /// column ([`ReduceDim::First`]), or one element ([`ReduceDim::All`]).
    ///
    /// Errors: [`Error::InvalidArgument`](crate::Error::InvalidArgument) for a wrong output shape (naming
    /// both shapes), an output that shares memory with the input (the
    /// kernels read the input while they write the output: in place is not
    /// supported), an unsupported element type, an output type other than
    /// the input's or f32, max or min over an empty dimension, a map of
    /// another arity or scalar count, a map scalar not finite in f32 (unless
    /// [`check_scalars`](Self::check_scalars) is off), a stream of another
    /// device; [`Error::UnsupportedArch`](crate::Error::UnsupportedArch)
    /// before compute capability 7.0; driver and JIT errors with the
    /// kernel's name.
    pub fn run(
        &self,
        input: TensorArg<'_>,
        output: TensorArgMut<'_>,
        workspace: &mut ReduceWorkspace,
        stream: &Arc<CudaStream>,
    ) -> Result<()> {
        self.device.check_stream(stream)?;
        let checked = check::check(
            self.op,
            self.dim,
            (input.element(), input.layout()),
            (output.element(), output.layout()),
        )?;
        check::check_map(self.map.as_ref(), &self.scalars, self.check_scalars)?;
        if checked.outputs == 0 {
            return Ok(());
        }
        let mut output = output;
        run::check_disjoint(stream, &input, &mut output)?;
        let plan = self.plan(stream, &input, output.element(), checked.out_stride)?;
        run_plan(
            &self.device,
            stream,
            &plan,
            &self.scalars,
            input,
            output,
            workspace,
        )
    }

    /// The kernels [`run`](Self::run) would launch for `input` into an
    /// `output` element type (one output element after another), with
    /// their grids and workspace: for inspection and benchmarks. Compiles
    /// the first kernel of a column reduction (its register count sizes
    /// the splits).
    ///
    /// Errors: as [`run`](Self::run)'s arch, stream, driver and JIT errors.
    pub fn plan_for(
        &self,
        input: TensorArg<'_>,
        output: ElementType,
        stream: &Arc<CudaStream>,
    ) -> Result<Plan> {
        self.device.check_stream(stream)?;
        self.plan(stream, &input, output, 1)
    }

    /// 4-byte words of workspace (f32 partials plus u32 counters) that
    /// [`run`](Self::run) would need for `input` (0 when it does not split).
    pub fn workspace_size(&self, input: TensorArg<'_>, stream: &Arc<CudaStream>) -> Result<usize> {
        self.device.check_stream(stream)?;
        let plan = self.plan(stream, &input, input.element(), 1)?;
        Ok((plan.workspace + plan.counters) as usize)
    }
}
