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

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtrMut};

use super::cache::get_or_load;
use super::device::Device;
use super::launch::{KernelArgs, LaunchConfig};
use crate::fusion::Expression;
use crate::kernel::reduce::{
    plan, ColumnTuning, Plan, Problem, ReduceLayout, ReduceOp, Workspace, BLOCK_THREADS,
};
use crate::numeric::ElementType;
use crate::tensor::{TensorArg, TensorArgMut};
use crate::{Error, Result};

pub use crate::kernel::reduce::ReduceDim;

/// A reusable workspace for reductions that split over CTAs: f32 partials
/// and u32 arrival counters (zeroed when allocated; every completed launch
/// leaves them zero). Starts empty; a call that needs more allocates
/// (once) on its stream.
#[derive(Debug, Default)]
pub struct ReduceWorkspace {
    buffer: Option<CudaSlice<f32>>,
    counters: Option<CudaSlice<u32>>,
}

impl ReduceWorkspace {
    /// An empty workspace (no device memory until a call needs it).
    pub fn new() -> ReduceWorkspace {
        ReduceWorkspace::default()
    }

    /// 4-byte words held now (f32 partials plus u32 counters).
    pub fn len(&self) -> usize {
        self.buffer.as_ref().map_or(0, CudaSlice::len)
            + self.counters.as_ref().map_or(0, CudaSlice::len)
    }

    /// Whether no device memory is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The partials (at least `len` f32) and the counters (at least
    /// `counters` u32, zero).
    fn ensure(
        &mut self,
        stream: &Arc<CudaStream>,
        len: usize,
        counters: usize,
    ) -> Result<(&mut CudaSlice<f32>, &mut CudaSlice<u32>)> {
        let buffer = match self.buffer.take() {
            Some(buffer) if buffer.len() >= len => buffer,
            _ => stream.alloc_zeros::<f32>(len.max(1)).map_err(|e| {
                Error::driver(format!("allocating a {len}-element reduction workspace"), e)
            })?,
        };
        let zeroed = match self.counters.take() {
            Some(zeroed) if zeroed.len() >= counters => zeroed,
            _ => stream.alloc_zeros::<u32>(counters.max(1)).map_err(|e| {
                Error::driver(format!("allocating {counters} reduction counters"), e)
            })?,
        };
        Ok((self.buffer.insert(buffer), self.counters.insert(zeroed)))
    }
}

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
    /// Errors: [`Error::InvalidArgument`] for any other `dim`, saying what is allowed.
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
    /// Errors: [`Error::InvalidArgument`] for a wrong output shape (naming
    /// both shapes), an unsupported element type, an output type other than
    /// the input's or f32, max or min over an empty dimension;
    /// [`Error::UnsupportedArch`] before compute capability 7.0; driver and
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

    fn check_map(&self) -> Result<()> {
        let Some(map) = &self.map else {
            return Ok(());
        };
        if map.arity() != 1 {
            return Err(Error::invalid_argument(
                "map arity",
                map.arity(),
                format!(
                    "1 (the map `{}` is applied to each input element)",
                    map.key()
                ),
            ));
        }
        if self.scalars.len() != map.scalar_count() {
            return Err(Error::invalid_argument(
                "map scalars",
                format!("{} value(s)", self.scalars.len()),
                format!(
                    "{} scalar(s), as the map `{}` reads",
                    map.scalar_count(),
                    map.key()
                ),
            ));
        }
        Ok(())
    }

    fn plan(
        &self,
        device: &Device,
        stream: &Arc<CudaStream>,
        input: &TensorArg<'_>,
        output: ElementType,
        out_stride: usize,
    ) -> Result<Plan> {
        let Some(arch) = device.arch() else {
            let (major, minor) = device.compute_capability();
            return Err(Error::UnsupportedArch {
                kernel: "reduce".into(),
                required: "compute capability 7.0 or newer".into(),
                ordinal: device.ordinal(),
                major,
                minor,
            });
        };
        let mut probe = KernelArgs::new(stream);
        let address = input.buffer.push_input(&mut probe);
        drop(probe);
        let layout = input.layout();
        let [rows, cols] = layout.shape();
        let [row_stride, col_stride] = layout.strides();
        let mut problem = Problem {
            op: self.op,
            input: input.element(),
            output,
            shape: [rows as u64, cols as u64],
            strides: [row_stride as u64, col_stride as u64],
            address,
            out_stride: out_stride as u64,
            dim: self.dim,
            map: self.map.clone(),
            arch,
            sm_count: device.limits().sm_count,
            ctas_per_sm: 8,
            tuning: self.tuning,
        };
        let first = plan(&problem);
        // A column reduction sizes its splits to one wave: ask the compiled
        // first kernel how many of its CTAs fit an SM, and plan again.
        let Some(launch) = first.launches.first() else {
            return Ok(first);
        };
        if !matches!(launch.spec.layout, ReduceLayout::Columns { .. }) {
            return Ok(first);
        }
        let spec = &launch.spec;
        let kernel = get_or_load(device, spec, &spec.kernel_name(), || spec.ptx())?;
        problem.ctas_per_sm = resident_ctas(kernel.function().num_regs()?);
        if problem.ctas_per_sm == 8 {
            return Ok(first);
        }
        Ok(plan(&problem))
    }
}

/// CTAs of [`BLOCK_THREADS`] threads using `regs` registers each that fit
/// one SM's 64 Ki registers (allocated in units of 8 per thread), at most
/// 8 (2048 threads).
fn resident_ctas(regs: u32) -> u32 {
    let per_cta = regs.max(1).next_multiple_of(8) * BLOCK_THREADS;
    (65536 / per_cta).clamp(1, 8)
}

/// Launches every kernel of `plan` in order.
fn run_plan(
    device: &Device,
    stream: &Arc<CudaStream>,
    plan: &Plan,
    scalars: &[f32],
    input: TensorArg<'_>,
    output: TensorArgMut<'_>,
    workspace: &mut ReduceWorkspace,
) -> Result<()> {
    let (ws, counters) =
        workspace.ensure(stream, plan.workspace as usize, plan.counters as usize)?;
    for launch in &plan.launches {
        let spec = &launch.spec;
        let name = spec.kernel_name();
        let kernel = get_or_load(device, spec, &name, || spec.ptx())?;
        let (ws_base, ws_guard) = ws.device_ptr_mut(stream);
        let (counters_base, counters_guard) = counters.device_ptr_mut(stream);
        let mut args = KernelArgs::new(stream);
        push_buffer(&mut args, launch.source, ws_base, |args| {
            input.buffer.push_input(args)
        });
        let out_buffer = &mut *output.buffer;
        match launch.target {
            Workspace::At(offset) => {
                args.scalar(ws_base + offset * 4);
            }
            _ => {
                out_buffer.push_output(&mut args);
            }
        }
        args.scalar(ws_base);
        args.scalar(counters_base);
        for value in launch.shape.params {
            args.scalar(value);
        }
        args.scalar(launch.shape.count);
        if spec.map.is_some() {
            for &value in scalars {
                args.scalar(value);
            }
        }
        let config = LaunchConfig {
            grid: (launch.shape.grid.0, launch.shape.grid.1, 1),
            block: (BLOCK_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: the params are the spec's (`ReduceSpec::param_names`: four
        // pointers, seven u64, one f32; then the map's f32 scalars, whose
        // count `check_map` checked), pushed in that order; the plan's
        // extents and strides come from the checked input view (every element
        // it addresses lies in its buffer) and the checked output vector; the
        // workspace holds `plan.workspace` f32s and `plan.counters` zeroed
        // u32s, which bound every offset and counter the plan uses; the
        // grid's y extent is the `splits` param; the block is the kernel's
        // 256 threads.
        unsafe { kernel.function().launch(&config, args)? };
        drop(counters_guard);
        drop(ws_guard);
    }
    Ok(())
}

/// Pushes a launch's source: the user's input (through `push_input`) or a
/// workspace offset.
fn push_buffer<'a>(
    args: &mut KernelArgs<'a>,
    source: Workspace,
    ws_base: u64,
    push_input: impl FnOnce(&mut KernelArgs<'a>) -> u64,
) {
    match source {
        Workspace::At(offset) => {
            args.scalar(ws_base + offset * 4);
        }
        _ => {
            push_input(args);
        }
    }
}
