//! The host side of the elementwise kernels: validation, the spec (cache
//! key) from the tensors, the launch.
//!
//! [`Elementwise`] holds an expression, its options and the device it runs
//! on; [`Elementwise::run`] applies it on a stream of that device.
//! Validation runs in this order, all before any device call except the
//! last: argument counts, scalars and types ([`check_arguments`]), shapes,
//! broadcasting and the kernel's view ([`plan_problem`]), then the arch,
//! then the buffers' addresses (pushed as launch arguments) for overlap
//! ([`check_overlap`]) and alignment. The host-only checks are public
//! functions, so that they run (and are tested) without a GPU.

mod problem;

use std::sync::{Arc, OnceLock};

use cudarc::driver::CudaStream;

pub use problem::{check_arguments, check_overlap, plan_problem, Problem, TensorDesc, MAX_INPUTS};

use super::cache::get_or_load;
use super::device::Device;
use super::launch::{KernelArgs, LaunchConfig};
use crate::fusion::Expression;
use crate::kernel::elementwise::{Access, ElementwiseSpec, Operand, Schedule, Tiling, TvPlan};
use crate::layout::Layout;
use crate::numeric::ElementType;
use crate::tensor::{TensorArg, TensorArgMut};
use crate::{Error, Result};

/// An elementwise operation on one device: an expression, its tiling and
/// options, ready to run on any tensors of matching shape.
///
/// As every cutlet operation, it is bound to its [`Device`] when built,
/// [`run`](Self::run) takes a stream of that device (`&Arc<CudaStream>`,
/// last), and scalars are `f64`, checked to be finite in the type the
/// kernel computes in unless [`check_scalars`](Self::check_scalars) is off.
///
/// ```no_run
/// # fn main() -> cutlet::Result<()> {
/// use cutlet::device::{Device, Elementwise};
/// use cutlet::fusion::{Expr, Expression};
/// use cutlet::tensor::{TensorMut, TensorRef};
/// let device = Device::new(0)?;
/// let stream = device.default_stream();
/// let a = stream.clone_htod(&[1.0f32, 2.0, 3.0]).unwrap();
/// let b = stream.clone_htod(&[10.0f32, 20.0, 30.0]).unwrap();
/// let mut c = stream.alloc_zeros::<f32>(3).unwrap();
/// let add = Elementwise::new(&device, Expression::from_fn(|a: Expr, b: Expr| a + b));
/// add.run(&[TensorRef::vector(&a).into(), TensorRef::vector(&b).into()],
///         TensorMut::vector(&mut c).into(), &[], &stream)?;
/// assert_eq!(stream.clone_dtoh(&c).unwrap(), [11.0, 22.0, 33.0]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Elementwise {
    device: Device,
    expression: Expression,
    tiling: Option<(Tiling, TvPlan)>,
    compute: Option<ElementType>,
    check_scalars: bool,
    schedule: Schedule,
}

impl Elementwise {
    /// `expression` on `device`, with the default tiling (16 bytes per
    /// access), f32 arithmetic (f64 when an input is f64 or i32) and scalar
    /// checks on.
    pub fn new(device: &Device, expression: Expression) -> Elementwise {
        Elementwise {
            device: device.clone(),
            expression,
            tiling: None,
            compute: None,
            check_scalars: true,
            schedule: Schedule::default(),
        }
    }

    /// The device the operation runs on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Uses the thread layout `thr` and value layout `val` (both `(M, N)`).
    ///
    /// Errors: [`Error::InvalidArgument`] naming the layouts when their TV
    /// layout does not cover its tile exactly once (see [`Tiling::plan`]).
    pub fn with_layouts(mut self, thr: Layout, val: Layout) -> Result<Elementwise> {
        let tiling = Tiling { thr, val };
        let plan = tiling.plan()?;
        self.tiling = Some((tiling, plan));
        Ok(self)
    }

    /// Arithmetic in `compute` (F32 or F64) instead of the default (f64
    /// where an input is f64 or i32, else f32). Any other type makes
    /// [`run`](Self::run) return [`Error::InvalidArgument`] naming it.
    #[must_use]
    pub fn compute(mut self, compute: ElementType) -> Elementwise {
        self.compute = Some(compute);
        self
    }

    /// Whether [`Elementwise::run`] rejects scalars that are not finite in
    /// the compute type (NaN, infinities, and for f32 arithmetic values
    /// beyond f32's range): on by default. Off passes them to the kernel as
    /// given, e.g. `-inf` as the masked value of
    /// `x.gt(s0).select(&x, scalar(1))`.
    #[must_use]
    pub fn check_scalars(mut self, check: bool) -> Elementwise {
        self.check_scalars = check;
        self
    }

    /// Walks the tiles and hints the accesses as `schedule` says (the
    /// default, [`Schedule::default`], is the measured best on an H200).
    #[must_use]
    pub fn schedule(mut self, schedule: Schedule) -> Elementwise {
        self.schedule = schedule;
        self
    }

    /// The schedule this operation asks for.
    pub fn schedule_in_use(&self) -> Schedule {
        self.schedule
    }

    /// The expression.
    pub fn expression(&self) -> &Expression {
        &self.expression
    }

    /// The tiling and its plan for tensors of these element types.
    pub fn tiling_for(
        &self,
        elements: impl IntoIterator<Item = ElementType>,
    ) -> Result<(Tiling, TvPlan)> {
        if let Some(t) = &self.tiling {
            return Ok(t.clone());
        }
        let narrowest = elements
            .into_iter()
            .map(|e| e.size_bytes())
            .min()
            .unwrap_or(4)
            .clamp(1, 16);
        // The default plans are computed once per vector width: checking a
        // TV layout's coverage walks every (thread, value) pair, far more
        // than a cached call may spend.
        static DEFAULT_PLANS: [OnceLock<(Tiling, TvPlan)>; 5] = [const { OnceLock::new() }; 5];
        let slot = &DEFAULT_PLANS[narrowest.trailing_zeros() as usize];
        if let Some(plan) = slot.get() {
            return Ok(plan.clone());
        }
        let tiling = Tiling::for_vector(16 / narrowest);
        let plan = tiling.plan()?;
        Ok(slot.get_or_init(|| (tiling, plan)).clone())
    }

    /// Host-only validation of a call on tensors described by `inputs` and
    /// `output`: every check that needs no device call. Returns the
    /// kernel's view.
    pub fn validate(
        &self,
        inputs: &[TensorDesc],
        output: &TensorDesc,
        scalars: &[f64],
    ) -> Result<Problem> {
        check_arguments(
            self.expression.arity(),
            self.expression.scalar_count(),
            inputs,
            output,
            scalars,
            self.check_scalars.then(|| self.compute_type(inputs)),
        )?;
        let (_, plan) = self.tiling_for(inputs.iter().chain([output]).map(|d| d.element))?;
        plan_problem(inputs, output, &plan)
    }

    /// The arithmetic type for inputs `descs`: the one asked for, else f64
    /// when an input is f64 or i32, else f32.
    fn compute_type(&self, descs: &[TensorDesc]) -> ElementType {
        self.compute.unwrap_or_else(|| {
            if descs
                .iter()
                .any(|d| matches!(d.element, ElementType::F64 | ElementType::I32))
            {
                ElementType::F64
            } else {
                ElementType::F32
            }
        })
    }

    /// Applies the expression, `output[i,j] = f(inputs[0][i,j], ..., scalars)`,
    /// on `stream` (a stream of this operation's device). Inputs broadcast
    /// to the output's shape (extent-1 modes, stride-0 views); any element
    /// types in [`SUPPORTED_ELEMENTS`](crate::kernel::elementwise::SUPPORTED_ELEMENTS).
    /// Scalars are read in the compute type (f32 ones rounded to nearest).
    /// An empty output is a no-op.
    ///
    /// Errors: [`Error::InvalidArgument`] for a compute type other than f32
    /// or f64, a wrong input or scalar count,
    /// more than 8 inputs, a scalar not finite in the compute type (unless
    /// [`check_scalars`](Self::check_scalars) is off), shapes that do not
    /// broadcast, an output that addresses an element twice or overlaps an
    /// input other than in place, a stream of another device;
    /// [`Error::UnsupportedArch`] below compute capability 7.0; emission,
    /// JIT and driver errors.
    pub fn run(
        &self,
        inputs: &[TensorArg<'_>],
        output: TensorArgMut<'_>,
        scalars: &[f64],
        stream: &Arc<CudaStream>,
    ) -> Result<()> {
        let device = &self.device;
        device.check_stream(stream)?;
        let descs: Vec<TensorDesc> = inputs
            .iter()
            .map(|t| TensorDesc {
                element: t.element(),
                layout: t.layout(),
            })
            .collect();
        let out_desc = TensorDesc {
            element: output.element(),
            layout: output.layout(),
        };
        let compute = self.compute_type(&descs);
        if !matches!(compute, ElementType::F32 | ElementType::F64) {
            return Err(Error::invalid_argument(
                "compute type",
                compute,
                "f32 or f64 (the arithmetic types of the elementwise kernels; 16-bit inputs compute in f32)",
            ));
        }
        check_arguments(
            self.expression.arity(),
            self.expression.scalar_count(),
            &descs,
            &out_desc,
            scalars,
            self.check_scalars.then_some(compute),
        )?;
        let (tiling, plan) = self.tiling_for(descs.iter().chain([&out_desc]).map(|d| d.element))?;
        let problem = plan_problem(&descs, &out_desc, &plan)?;
        if problem.empty {
            return Ok(());
        }
        let Some(arch) = device.arch() else {
            let (major, minor) = device.compute_capability();
            return Err(Error::UnsupportedArch {
                kernel: "elementwise".into(),
                required: "compute capability 7.0 or newer".into(),
                ordinal: device.ordinal(),
                major,
                minor,
            });
        };
        let mut args = KernelArgs::new(stream);
        let TensorArgMut { buffer, .. } = output;
        let out_addr = args.write_buffer(buffer);
        let (rs, cs) = problem.strides[0];
        args.scalar(rs).scalar(cs);
        let mut in_addrs = Vec::with_capacity(inputs.len());
        for (input, (rs, cs)) in inputs.iter().zip(&problem.strides[1..]) {
            in_addrs.push(args.read_buffer(input.buffer));
            args.scalar(*rs).scalar(*cs);
        }
        let disjoint = check_overlap(&out_desc, out_addr, &descs, &in_addrs)?;
        let operand =
            |desc: &TensorDesc, addr: u64, (rs, cs): (u64, u64), read_only: bool| Operand {
                element: desc.element,
                access: access(desc.element, addr, rs, cs),
                read_only,
            };
        let spec = ElementwiseSpec {
            arch,
            expression: self.expression.clone(),
            compute,
            inputs: descs
                .iter()
                .zip(&in_addrs)
                .zip(&problem.strides[1..])
                .zip(&disjoint)
                .map(|(((d, a), s), r)| operand(d, *a, *s, *r))
                .collect(),
            output: operand(&out_desc, out_addr, problem.strides[0], false),
            tiling,
            schedule: self.schedule,
            flat: problem.flat,
        };
        let mut spec = spec;
        if std::iter::once(&spec.output)
            .chain(&spec.inputs)
            .any(|o| o.access == Access::Strided)
        {
            spec.schedule.persistent = 0;
        }
        // The bulk-copy ring where the problem fits it (a bad configuration
        // is an error); elsewhere the default one-tile-per-block path.
        let bulk = match spec.schedule.bulk {
            Some(_) => match spec.bulk_layout_for(&plan)? {
                Ok(layout) => Some(layout),
                Err(_) => {
                    spec.schedule.bulk = None;
                    spec.schedule.persistent = 0;
                    None
                }
            },
            None => None,
        };
        args.scalar(problem.n)
            .scalar(problem.len)
            .scalar(problem.tiles_n)
            .scalar(problem.blocks);
        for s in scalars {
            if compute == ElementType::F64 {
                args.scalar(*s);
            } else {
                args.scalar(*s as f32);
            }
        }
        let kernel = get_or_load(device, &spec, || spec.kernel_name(), || spec.ptx())?;
        let sm_count = device.limits().sm_count;
        let grid = match (&bulk, spec.schedule.persistent) {
            (Some(layout), k) => layout.grid(problem.blocks, k, sm_count),
            (None, 0) => problem.blocks,
            (None, k) => problem.blocks.min(k.saturating_mul(sm_count).max(1)),
        };
        let config = LaunchConfig {
            grid: (grid, 1, 1),
            block: (plan.threads as u32, 1, 1),
            shared_mem_bytes: bulk.as_ref().map_or(0, |l| l.shared_bytes),
        };
        // SAFETY: the params are pushed in the spec's order (output, inputs:
        // ptr, row stride, col stride; n, len, tiles_n, tiles; scalars in the
        // compute type). Every view was checked against its buffer when it
        // was built, and the kernel touches only elements (row, col) with
        // col < n and row * n + col < len of the kernel's view, which map
        // to elements of those views; the output is written only where it
        // shares no memory with an input or is that input in place (checked
        // above); vector accesses were chosen from the actual addresses and
        // strides; the block has the plan's thread count; a grid smaller
        // than `tiles` only with a persistent schedule, which walks them all;
        // a bulk-copy kernel only where `bulk_layout` found every tensor
        // contiguous and 16-byte aligned in the 1-D view, with the grid and
        // the dynamic shared memory of that layout.
        unsafe { kernel.function().launch(&config, args) }
    }
}

/// The widest access a tensor allows along `N` at `addr` with these strides.
fn access(element: ElementType, addr: u64, row_stride: u64, col_stride: u64) -> Access {
    match col_stride {
        0 => Access::Broadcast,
        1 => {
            let size = u64::from(element.size_bytes());
            let mut width = 16 / size;
            while width > 1
                && (!row_stride.is_multiple_of(width) || !addr.is_multiple_of(width * size))
            {
                width /= 2;
            }
            Access::Contiguous {
                width: width as u32,
            }
        }
        _ => Access::Strided,
    }
}
