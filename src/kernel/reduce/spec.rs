//! The static description of one reduction kernel: [`ReduceSpec`], its
//! [`ReduceLayout`], its name, params and checks.

use std::fmt;

use super::ReduceOp;
use crate::arch::ArchKind;
use crate::fusion::Expression;
use crate::numeric::ElementType;
use crate::ptx::PtxError;
use crate::{Error, Result};

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

impl fmt::Display for ReduceLayout {
    /// The kernel as a person reads it.
    ///
    /// ```
    /// use cutlet::kernel::reduce::ReduceLayout;
    ///
    /// assert_eq!(ReduceLayout::Rows { vectorized: true }.to_string(), "row kernel, 16-byte loads");
    /// let columns = ReduceLayout::Columns { vector: 4, reps: 1, rows: 4, shifted: false, prefetch: false };
    /// assert_eq!(columns.to_string(), "column kernel, 4 columns a load, 1 load a row, 4 rows in flight");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ReduceLayout::Rows { vectorized: true } => f.write_str("row kernel, 16-byte loads"),
            ReduceLayout::Rows { vectorized: false } => {
                f.write_str("row kernel, one element a load (strided rows)")
            }
            ReduceLayout::Columns {
                vector,
                reps,
                rows,
                shifted,
                prefetch,
            } => {
                write!(
                    f,
                    "column kernel, {vector} column{} a load, {reps} load{} a row, {rows} rows in flight",
                    if vector == 1 { "" } else { "s" },
                    if reps == 1 { "" } else { "s" },
                )?;
                if shifted {
                    f.write_str(", unaligned rows shifted in shared memory")?;
                }
                if prefetch {
                    f.write_str(", L2 256-byte prefetch")?;
                }
                Ok(())
            }
        }
    }
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
}
