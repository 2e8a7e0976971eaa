//! Reductions: sum, mean, max and min of a 2-D tensor along one dimension,
//! or of all of it, with f32 accumulation.
//!
//! What: each output element is `op` over one line of the input (a row or a
//! column, any strides), of `f(x)` where `f` is the spec's per-element map;
//! the whole tensor reduces to one value through the same kernels.
//!
//! How (two kernel shapes, chosen by which dimension is contiguous):
//! 1. [`ReduceLayout::Rows`]: the reduced dimension is the contiguous one.
//!    One CTA of 256 threads reduces one *work item*, a row or a chunk of a
//!    row: rows stride over the grid's x, chunks are the grid's y (the
//!    reduced extent is split over CTAs when there are too few rows to fill
//!    the GPU). Each thread loads 16 bytes at a time, four loads in
//!    flight, with scalar loads for the unaligned head and the tail of the
//!    row, then a warp butterfly (`shfl.sync.bfly`) and a shared-memory step
//!    across the 8 warps. A non-contiguous reduced dimension uses the same
//!    kernel with scalar strided loads.
//! 2. [`ReduceLayout::Columns`]: the kept dimension is the contiguous one.
//!    A CTA is 32 column strips by 8 row groups; each thread owns `reps`
//!    strips of `vector` adjacent columns (one 16-byte strip when the row
//!    stride and the address allow; otherwise, by default, one 16-byte
//!    strip read as the aligned vector holding the thread's first column,
//!    whose values shared memory moves back to their columns ("shifted",
//!    see `columns.rs`); tuned otherwise, narrower strips, one with more
//!    rows in flight or, "wide", several `32 * vector` columns apart) and
//!    walks rows 8 apart, `rows` rows in flight;
//!    shared memory combines the 8 row groups. Column tiles stride over the
//!    grid's x; the reduced dimension is split over the grid's y so that
//!    the grid fills the GPU.
//! 3. A split (`splits > 1`) finishes in the same launch: each CTA writes
//!    f32 partials to the `partials` workspace and the last CTA of each
//!    output item (an integer counter per item in the `counters`
//!    workspace) combines them in a fixed order and writes the result
//!    (see `finish.rs`). A `Rows` kernel with `finish: false` instead writes
//!    one f32 partial per work item to `output`, for a later launch over
//!    them (full reductions of non-dense tensors).
//!
//! Order and accuracy: every thread accumulates sequentially into a few
//! independent f32 accumulators, which are then combined as a balanced tree
//! (accumulators, warp butterfly, warps, splits): the order depends only on
//! the shape, the strides' contiguity and the split count, never on timing,
//! so results are deterministic (bitwise reproducible) for a given device.
//! The only atomics are the integer arrival counters of a split; no float
//! atomics.
//!
//! Params, in launch order (all `u64` unless said; counts and strides in
//! elements): see [`ReduceSpec::param_names`].
//!
//! Constraints (the launcher checks them): 256 threads per block; the input
//! holds every addressed element; a `Columns` kernel with `vector` > 1 needs
//! the input address and row stride to be multiples of `vector` elements
//! times the element size; outputs do not overlap the input.

mod columns;
mod emit;
mod finish;
mod plan;
mod rows;
mod tile;

use std::fmt;

use crate::arch::ArchKind;
use crate::fusion::{Expression, Value};
use crate::numeric::ElementType;
use crate::ptx::{Kernel, Module, ParamType, PtxError, Reg};
use crate::{Error, Result};

pub use plan::{
    plan, ColumnTuning, Launch, LaunchShape, Plan, Problem, ReduceDim, Workspace,
    COLUMN_BYTES_IN_FLIGHT, COLUMN_SHIFTED, COLUMN_WIDE, SHIFTED_BYTES_IN_FLIGHT,
};

/// Threads per block of both reduction kernels.
pub const BLOCK_THREADS: u32 = 256;

/// Loads each thread keeps in flight in the main loops.
pub(crate) const UNROLL: usize = 4;

/// The reduction operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// The sum; 0 over an empty line.
    Sum,
    /// The sum divided by the line's length; NaN over an empty line (0 / 0).
    Mean,
    /// The largest value; NaN if any value is NaN.
    Max,
    /// The smallest value; NaN if any value is NaN.
    Min,
}

impl ReduceOp {
    /// Every operator.
    pub const ALL: [ReduceOp; 4] = [ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Max, ReduceOp::Min];

    /// The operator's name: `sum`, `mean`, `max` or `min`.
    pub const fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Mean => "mean",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
        }
    }

    /// The identity of the combining step as a PTX f32 immediate: 0 for sum
    /// and mean, -inf for max, +inf for min.
    pub const fn identity_ptx(self) -> &'static str {
        match self {
            ReduceOp::Sum | ReduceOp::Mean => "0f00000000",
            ReduceOp::Max => "0fFF800000",
            ReduceOp::Min => "0f7F800000",
        }
    }
}

impl fmt::Display for ReduceOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which of the two kernel shapes a spec generates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceLayout {
    /// Reduce along each row (a *line*): 16-byte loads along a contiguous
    /// line when `vectorized`, scalar loads at `elem_stride` otherwise.
    Rows {
        /// Lines are contiguous (element stride 1).
        vectorized: bool,
    },
    /// Reduce down each column: each thread owns `reps` strips of `vector`
    /// adjacent columns, `32 * vector` columns apart, and keeps `rows` rows
    /// in flight.
    Columns {
        /// Adjacent columns per load: 1, 2, 4 or 8, at most 16 bytes.
        vector: u32,
        /// Loads per row: 1, 2 or 4, at most 16 bytes per row in all.
        reps: u32,
        /// Rows in flight per thread: 1 to 32.
        rows: u32,
        /// Unaligned rows read as aligned 16-byte vectors (one 16-byte
        /// strip, `reps` 1): each thread loads the aligned vector holding
        /// its first column, so its values belong to columns shifted by the
        /// row's misalignment (the same on every row a thread visits, as
        /// they are 8 rows apart); shared memory puts them back in place.
        /// A tile is 31 strips (lane 31 reads the next tile's first vector).
        shifted: bool,
        /// Loads ask L2 for 256-byte prefetches (`.L2::256B`, PTX 7.4 for
        /// this kernel; no effect on sm_70).
        prefetch: bool,
    },
}

/// The static description of one reduction kernel. A module-cache key.
///
/// ```
/// use cutlet::arch::ArchKind;
/// use cutlet::kernel::reduce::{ReduceLayout, ReduceOp, ReduceSpec};
/// use cutlet::numeric::ElementType;
///
/// let spec = ReduceSpec {
///     op: ReduceOp::Sum,
///     input: ElementType::F16,
///     output: ElementType::F16,
///     layout: ReduceLayout::Rows { vectorized: true },
///     finish: true,
///     map: None,
///     arch: ArchKind::Sm80,
/// };
/// assert_eq!(spec.kernel_name(), "reduce_rows_v_sum_f16_f16");
/// let ptx = spec.ptx().unwrap();
/// assert!(ptx.contains("ld.global.nc.v4.b32"));
/// assert!(ptx.contains("shfl.sync.bfly.b32"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReduceSpec {
    /// The operator.
    pub op: ReduceOp,
    /// Element type read: f32, f16 or bf16.
    pub input: ElementType,
    /// Element type of the final result: f32, f16 or bf16 (partials are
    /// always f32).
    pub output: ElementType,
    /// Kernel shape.
    pub layout: ReduceLayout,
    /// `true`: write final results (mean divided, converted to `output`);
    /// `false` (`Rows` only): write f32 partials for a finishing launch.
    pub finish: bool,
    /// The per-element map `f` of `reduce(f(x))`, of arity 1, computed in
    /// f32 (`None`: the identity). Its runtime scalars are f32 params after
    /// `count`.
    pub map: Option<Expression>,
    /// Architecture the PTX targets.
    pub arch: ArchKind,
}

/// Input and output types the reduction kernels support.
pub const SUPPORTED: [ElementType; 3] = [ElementType::F32, ElementType::F16, ElementType::BF16];

impl ReduceSpec {
    /// The kernel's `.entry` name, e.g. `reduce_cols4x1r4_max_f32_f32`.
    pub fn kernel_name(&self) -> String {
        let layout = match self.layout {
            ReduceLayout::Rows { vectorized: true } => "rows_v".to_string(),
            ReduceLayout::Rows { vectorized: false } => "rows_s".to_string(),
            ReduceLayout::Columns {
                vector,
                reps,
                rows,
                shifted,
                prefetch,
            } => {
                let shifted = if shifted { "s" } else { "" };
                let prefetch = if prefetch { "p" } else { "" };
                format!("cols{vector}x{reps}r{rows}{shifted}{prefetch}")
            }
        };
        let stage = if self.finish { "" } else { "_partial" };
        let map = if self.map.is_some() { "_map" } else { "" };
        format!(
            "reduce_{layout}_{}_{}_{}{stage}{map}",
            self.op,
            self.input,
            self.written_type()
        )
    }

    /// The type the kernel writes: `output` when finishing, f32 otherwise.
    pub fn written_type(&self) -> ElementType {
        if self.finish {
            self.output
        } else {
            ElementType::F32
        }
    }

    /// The kernel's params, in launch order.
    ///
    /// Both kernels start with `input, output, partials, counters`
    /// (pointers; `partials` is an f32 and `counters` a u32 workspace, used
    /// only by a finishing kernel launched with `splits > 1`, see
    /// `finish.rs`), then:
    /// - `Rows`: `lines, len, line_stride, elem_stride, splits, chunk,
    ///   out_stride` (u64) and `count` (f32). Work item
    ///   `w = line * splits + split` (split = `%ctaid.y`, `splits` = the
    ///   grid's y extent) reduces elements
    ///   `[split * chunk, min(len, (split + 1) * chunk))` of its line. It
    ///   writes `output[w * out_stride]` (`finish: false`), or
    ///   `partials[w]` and the line's last CTA writes
    ///   `output[line * out_stride]` (`finish: true`; directly when
    ///   `splits` is 1); counter `line`.
    /// - `Columns`: `cols, len, row_stride, splits, chunk, out_stride,
    ///   split_stride` (u64) and `count` (f32). Split `s` (`%ctaid.y`;
    ///   `splits` is the grid's y extent) reduces rows
    ///   `[s * chunk, min(len, (s + 1) * chunk))` of column `c` into
    ///   `partials[s * split_stride + c]`, and the tile's last CTA writes
    ///   `output[c * out_stride]` (directly when `splits` is 1); counter
    ///   = the column tile.
    ///
    /// `count` divides a finishing mean (the full reduced length). A map's
    /// runtime scalars follow as f32 params `scalar0, scalar1, ...`.
    pub fn param_names(&self) -> &'static [&'static str] {
        match self.layout {
            ReduceLayout::Rows { .. } => &[
                "input",
                "output",
                "partials",
                "counters",
                "lines",
                "len",
                "line_stride",
                "elem_stride",
                "splits",
                "chunk",
                "out_stride",
                "count",
            ],
            ReduceLayout::Columns { .. } => &[
                "input",
                "output",
                "partials",
                "counters",
                "cols",
                "len",
                "row_stride",
                "splits",
                "chunk",
                "out_stride",
                "split_stride",
                "count",
            ],
        }
    }

    /// Checks the types and the vector width.
    pub fn check(&self) -> Result<()> {
        for (role, ty) in [("input", self.input), ("output", self.output)] {
            if !SUPPORTED.contains(&ty) {
                return Err(PtxError::UnsupportedElement {
                    kernel: "reduce",
                    element: format!("{ty} ({role})"),
                    supported: "f32, f16, bf16",
                }
                .into());
            }
        }
        if let Some(map) = &self.map {
            if map.arity() != 1 {
                return Err(Error::invalid_argument(
                    "reduction map arity",
                    map.arity(),
                    format!(
                        "1: the map `{}` is applied to each input element",
                        map.key()
                    ),
                ));
            }
        }
        if let ReduceLayout::Columns {
            vector,
            reps,
            rows,
            shifted,
            ..
        } = self.layout
        {
            let bytes = u64::from(vector) * u64::from(self.input.size_bytes());
            let shape_ok = vector.is_power_of_two()
                && reps.is_power_of_two()
                && bytes * u64::from(reps) <= 16
                && (1..=32).contains(&rows)
                && (!shifted || bytes == 16 && reps == 1);
            if !shape_ok {
                return Err(PtxError::UnsupportedElement {
                    kernel: "reduce",
                    element: format!(
                        "{reps} strip(s) of {vector} columns of {} per thread, {rows} rows in flight",
                        self.input
                    ),
                    supported: "power-of-two strips and columns, at most 16 bytes per row, 1 to 32 rows, one 16-byte strip when shifted",
                }
                .into());
            }
            if !self.finish {
                return Err(Error::invalid_argument(
                    "finish",
                    "false (a column kernel)",
                    "true: column kernels finish their splits in the same launch",
                ));
            }
        }
        Ok(())
    }

    /// The module's PTX text: one kernel named [`kernel_name`](Self::kernel_name).
    pub fn ptx(&self) -> Result<String> {
        self.check()?;
        let kernel = match self.layout {
            ReduceLayout::Rows { vectorized } => rows::kernel(self, vectorized)?,
            ReduceLayout::Columns { .. } => columns::kernel(self)?,
        };
        let mut module = Module::new(self.arch);
        if let Some((major, minor)) = self.ptx_version() {
            module = module.with_ptx_version(major, minor)?;
        }
        module.add_kernel(kernel)?;
        Ok(module.emit()?)
    }

    /// The `.version` this kernel needs above its arch's own, if any: 7.4
    /// for `.L2::256B` prefetch hints (sm_80 and newer).
    pub fn ptx_version(&self) -> Option<(u32, u32)> {
        let hinted = !self.load_hint().is_empty();
        (hinted && self.arch.ptx_version() < (7, 4)).then_some((7, 4))
    }

    /// The qualifiers the kernel's input loads carry after `ld.global.nc`.
    pub(crate) fn load_hint(&self) -> &'static str {
        match self.layout {
            ReduceLayout::Columns { prefetch: true, .. } if self.arch != ArchKind::Sm70 => {
                ".L2::256B"
            }
            _ => "",
        }
    }

    /// A kernel with the spec's name, block size and params declared; the
    /// params' registers in declaration order (pointers converted to global)
    /// and the map's scalars.
    fn start_kernel(&self) -> Result<(Kernel, Vec<Reg>, Vec<Value>)> {
        let mut k = Kernel::new(&self.kernel_name())?;
        k.max_threads(BLOCK_THREADS, 1, 1);
        let names = self.param_names();
        let mut regs = Vec::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            let ty = if i + 1 == names.len() {
                ParamType::F32
            } else {
                ParamType::U64
            };
            let param = k.param(name, ty)?;
            let reg = k.load_param(&param)?;
            if i < 4 {
                k.cvta_to_global(reg, reg);
            }
            regs.push(reg);
        }
        let scalar_count = self.map.as_ref().map_or(0, Expression::scalar_count);
        let mut scalars = Vec::with_capacity(scalar_count);
        for i in 0..scalar_count {
            let param = k.param(&format!("scalar{i}"), ParamType::F32)?;
            let reg = k.load_param(&param)?;
            scalars.push(Value {
                reg,
                ty: ElementType::F32,
            });
        }
        Ok((k, regs, scalars))
    }
}
