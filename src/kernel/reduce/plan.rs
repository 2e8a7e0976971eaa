//! Planning a reduction: which kernels, how many splits, which workspace.
//!
//! [`plan`] turns a [`Problem`] (shape, strides, dimension, types, the
//! device's SM count) into one to three [`Launch`]es and the f32 workspace
//! they share. It is pure host arithmetic, so every decision is testable
//! without a GPU.

use super::{ReduceLayout, ReduceOp, ReduceSpec, BLOCK_THREADS};
use crate::arch::ArchKind;
use crate::fusion::Expression;
use crate::numeric::ElementType;

/// CTAs per SM a pass aims for (8 x 256 threads = 2048, a full SM).
const CTAS_PER_SM: u64 = 8;
/// Fewest elements a `Rows` split reduces (16 vectors per thread of a CTA).
const MIN_ROW_CHUNK: u64 = 16 * 1024;
/// Most elements a `Rows` split reduces (bounds each thread's sequential sum).
const MAX_ROW_CHUNK: u64 = 1 << 20;
/// Fewest rows a `Columns` split reduces.
const MIN_COL_CHUNK: u64 = 64;
/// Most rows a `Columns` split reduces.
const MAX_COL_CHUNK: u64 = 8192;
/// Most splits of one launch (the grid's y extent).
const MAX_SPLITS: u64 = 65535;
/// Most partials one finishing CTA reads before another split pass is added.
const MAX_FINISH: u64 = 1 << 16;
/// Largest grid a launch uses (the kernels loop over the remaining items).
const MAX_GRID: u64 = 1 << 20;

/// Which dimension of a 2-D tensor a reduction removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceDim {
    /// Dim -1 (or 1): each row becomes one value; the output has `rows` values.
    Last,
    /// Dim 0: each column becomes one value; the output has `cols` values.
    First,
    /// Every element: the output has one value.
    All,
}

impl ReduceDim {
    /// The dimension PyTorch-style: -1 and 1 are [`Last`](Self::Last), 0 is
    /// [`First`](Self::First); anything else is `None`.
    ///
    /// ```
    /// use cutlet::kernel::reduce::ReduceDim;
    /// assert_eq!(ReduceDim::from_index(-1), Some(ReduceDim::Last));
    /// assert_eq!(ReduceDim::from_index(0), Some(ReduceDim::First));
    /// assert_eq!(ReduceDim::from_index(2), None);
    /// ```
    pub fn from_index(dim: i64) -> Option<ReduceDim> {
        match dim {
            -1 | 1 => Some(ReduceDim::Last),
            0 => Some(ReduceDim::First),
            _ => None,
        }
    }
}

/// Everything a plan depends on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The operator.
    pub op: ReduceOp,
    /// Input element type.
    pub input: ElementType,
    /// Output element type.
    pub output: ElementType,
    /// `(rows, cols)` of the input.
    pub shape: [u64; 2],
    /// Strides of the input in elements, `(row, col)`.
    pub strides: [u64; 2],
    /// Device address of the input's first element (for vector alignment).
    pub address: u64,
    /// Stride between output elements, in elements.
    pub out_stride: u64,
    /// The dimension reduced.
    pub dim: ReduceDim,
    /// The per-element map of the first pass (`None`: the identity).
    pub map: Option<Expression>,
    /// Architecture of the kernels.
    pub arch: ArchKind,
    /// SMs of the device.
    pub sm_count: u32,
    /// CTAs of the first pass's kernel resident per SM (its occupancy; 8
    /// when unknown). A column reduction splits its rows so that all its
    /// CTAs run in one wave: a second, partial wave would cost a whole one.
    pub ctas_per_sm: u32,
    /// The column kernel's shape (`Default`: the plan's choice).
    pub tuning: ColumnTuning,
}

/// Overrides of the column kernel's shape, for tuning and benchmarks;
/// zeros and `None` leave the choice to the plan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ColumnTuning {
    /// Bytes each thread keeps in flight down its columns (rows in flight
    /// times the bytes it loads per row); 0: [`COLUMN_BYTES_IN_FLIGHT`],
    /// or [`SHIFTED_BYTES_IN_FLIGHT`] for a shifted kernel.
    pub bytes_in_flight: u32,
    /// Whether a thread whose columns cannot be loaded 16 bytes at a time
    /// (unaligned rows) still reads 16 bytes per row, as several narrower
    /// loads 32 strips apart (`true`), or only one narrow strip (`false`);
    /// `None`: [`COLUMN_WIDE`].
    pub wide: Option<bool>,
    /// Waves of CTAs the row splits fill (a wave: the kernel's occupancy
    /// times the SMs); 0: 1.
    pub waves: u32,
    /// Whether unaligned rows are read as aligned 16-byte vectors whose
    /// values are shifted back to their columns in shared memory (`true`;
    /// `wide` is then unused) or with narrower loads (`false`); `None`:
    /// [`COLUMN_SHIFTED`].
    pub shifted: Option<bool>,
    /// Whether the loads ask L2 for 256-byte prefetches (`.L2::256B`; the
    /// kernel's PTX is then version 7.4 on sm_80).
    pub prefetch: bool,
}

/// Bytes each thread of a column kernel keeps in flight by default.
pub const COLUMN_BYTES_IN_FLIGHT: u32 = 64;
/// Whether column kernels widen narrow strips to 16 bytes per row by
/// default: no (measured on an H200, 16383 x 8191 f32 sum along dim 0:
/// 51% of the DRAM ceiling wide, 72% narrow with 16 rows in flight).
pub const COLUMN_WIDE: bool = false;

/// Whether column kernels read unaligned rows as shifted aligned vectors
/// by default: yes (H200, 16383 x 8191 f32 sum along dim 0: 83% of the
/// DRAM ceiling with 32 bytes in flight, vs 72% for narrow strips).
pub const COLUMN_SHIFTED: bool = true;
/// Bytes each thread of a shifted column kernel keeps in flight by default
/// (H200, 16383 x 8191 f32: 83% of the ceiling with 32, 59% with 64, 54%
/// with 128; ncu: the same bytes read from DRAM, at 88%, 61% and 56% of
/// its peak).
pub const SHIFTED_BYTES_IN_FLIGHT: u32 = 32;

/// Where a launch reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workspace {
    /// The user's input tensor.
    Input,
    /// The user's output tensor.
    Output,
    /// The f32 workspace, from this element offset.
    At(u64),
}

/// The grid-facing numbers of one launch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LaunchShape {
    /// The u64 params after `input` and `output`, in the spec's order.
    pub params: [u64; 7],
    /// The f32 `count` param (a finishing mean divides by it).
    pub count: f32,
    /// Blocks `(x, y)`: x strides over lines (or column tiles), y is the
    /// split; threads per block are [`BLOCK_THREADS`].
    pub grid: (u32, u32),
}

/// One kernel launch of a plan.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    /// The kernel.
    pub spec: ReduceSpec,
    /// What it reads.
    pub source: Workspace,
    /// What it writes.
    pub target: Workspace,
    /// Its params and grid.
    pub shape: LaunchShape,
}

/// The launches of one reduction, in order, and the f32 workspace they need.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    /// Kernel launches, in stream order (none for an empty output).
    pub launches: Vec<Launch>,
    /// f32 elements of workspace the launches use.
    pub workspace: u64,
    /// u32 arrival counters a split that finishes in-kernel uses (zero
    /// before the first launch; the launches leave them zero).
    pub counters: u64,
}

/// The reduction as lines: `lines` lines of `len` elements.
#[derive(Clone, Copy, Debug)]
struct Lines {
    lines: u64,
    len: u64,
    line_stride: u64,
    elem_stride: u64,
}

impl Lines {
    /// One contiguous line of `len` elements (as a finishing pass reads the
    /// partials).
    fn single(len: u64) -> Lines {
        Lines {
            lines: 1,
            len,
            line_stride: len,
            elem_stride: 1,
        }
    }
}

/// Plans `problem`. The number of splits depends on the shape and on
/// `sm_count` only, so one device always reduces in the same order.
///
/// ```
/// use cutlet::arch::ArchKind;
/// use cutlet::kernel::reduce::{plan, ColumnTuning, Problem, ReduceDim, ReduceLayout, ReduceOp};
/// use cutlet::numeric::ElementType;
///
/// let problem = Problem {
///     op: ReduceOp::Sum, input: ElementType::F32, output: ElementType::F32,
///     shape: [16384, 8192], strides: [8192, 1], address: 0, out_stride: 1,
///     dim: ReduceDim::First, map: None, arch: ArchKind::Sm90, sm_count: 132,
///     ctas_per_sm: 4, tuning: ColumnTuning::default(),
/// };
/// let plan = plan(&problem);
/// // 64 column tiles x 8 row splits of 2048 rows (512 CTAs, one wave of 4
/// // per SM), 4 rows of 16 bytes in flight per thread; the last CTA of
/// // each tile combines the 8 partials (f32 workspace, 64 counters).
/// assert_eq!(plan.launches.len(), 1);
/// let layout = ReduceLayout::Columns {
///     vector: 4, reps: 1, rows: 4, shifted: false, prefetch: false,
/// };
/// assert_eq!(plan.launches[0].spec.layout, layout);
/// assert_eq!(plan.launches[0].shape.grid, (64, 8));
/// assert_eq!((plan.workspace, plan.counters), (8 * 8192, 64));
/// ```
pub fn plan(problem: &Problem) -> Plan {
    let [rows, cols] = problem.shape;
    let [row_stride, col_stride] = problem.strides;
    let mut plan = Plan::default();
    let kept = match problem.dim {
        ReduceDim::Last => rows,
        ReduceDim::First => cols,
        ReduceDim::All => 1,
    };
    if kept == 0 {
        return plan;
    }
    // The first pass reads the input and applies the map; later passes
    // read f32 partials.
    let spec = |layout, finish, first: bool| ReduceSpec {
        op: problem.op,
        input: if first {
            problem.input
        } else {
            ElementType::F32
        },
        output: problem.output,
        layout,
        finish,
        map: if first { problem.map.clone() } else { None },
        arch: problem.arch,
    };
    let (len, lines) = match problem.dim {
        ReduceDim::Last => (cols, line_view(rows, row_stride, cols, col_stride)),
        ReduceDim::First => (rows, line_view(cols, col_stride, rows, row_stride)),
        ReduceDim::All => (rows.saturating_mul(cols), all_view(problem)),
    };
    let count = len as f32;
    let target = u64::from(problem.sm_count.max(1)) * CTAS_PER_SM;
    let wave = u64::from(problem.sm_count.max(1)) * u64::from(problem.ctas_per_sm.clamp(1, 8));
    // Columns: the kept dimension is contiguous and the reduced one is not.
    if problem.dim != ReduceDim::All
        && lines.elem_stride != 1
        && lines.line_stride == 1
        && lines.lines > 1
    {
        let tuning = problem.tuning;
        let full = 16 / problem.input.size_bytes();
        let mut vector = column_vector(problem, lines.elem_stride);
        // Unaligned rows: aligned vectors, shifted back in shared memory
        // (every row a thread visits has the same shift: 8 rows are a
        // multiple of 16 bytes apart for 2- and 4-byte elements).
        let shifted = vector < full && tuning.shifted.unwrap_or(COLUMN_SHIFTED);
        if shifted {
            vector = full;
        }
        let strip = vector * problem.input.size_bytes();
        let reps = if !shifted && tuning.wide.unwrap_or(COLUMN_WIDE) {
            16 / strip
        } else {
            1
        };
        let in_flight = match tuning.bytes_in_flight {
            0 if shifted => SHIFTED_BYTES_IN_FLIGHT,
            0 => COLUMN_BYTES_IN_FLIGHT,
            bytes => bytes,
        };
        let rows = (in_flight / (strip * reps)).clamp(1, 32);
        let tile = column_tile(vector, reps, shifted);
        let tiles = lines.lines.div_ceil(tile);
        let wave = wave * u64::from(tuning.waves.max(1));
        // As many splits as fit the wave(s) next to the tiles (rounded down).
        let splits = if tiles >= wave || len <= MIN_COL_CHUNK {
            len.div_ceil(MAX_COL_CHUNK).max(1)
        } else {
            (wave / tiles)
                .min(len.div_ceil(MIN_COL_CHUNK))
                .max(len.div_ceil(MAX_COL_CHUNK))
        };
        let (chunk, splits) = chunking(len, splits, 1);
        let layout = ReduceLayout::Columns {
            vector,
            reps,
            rows,
            shifted,
            prefetch: tuning.prefetch,
        };
        plan.launches.push(column_launch(
            spec(layout, true, true),
            lines.lines,
            len,
            lines.elem_stride,
            splits,
            chunk,
            problem.out_stride,
            count,
        ));
        if splits > 1 {
            // (splits, whole tiles) f32 partials, one counter per tile.
            plan.workspace = splits.saturating_mul(tiles.saturating_mul(tile));
            plan.counters = tiles;
        }
        return plan;
    }
    // Rows: along each line, split when there are too few lines.
    let vectorized = lines.elem_stride == 1;
    let layout = ReduceLayout::Rows { vectorized };
    let splits = if lines.lines >= target || len <= MIN_ROW_CHUNK {
        len.div_ceil(MAX_ROW_CHUNK).max(1)
    } else {
        target
            .div_ceil(lines.lines)
            .min(len.div_ceil(MIN_ROW_CHUNK))
            .max(len.div_ceil(MAX_ROW_CHUNK))
    };
    let (chunk, splits) = chunking(len, splits, 64);
    let mut partials = lines.lines.saturating_mul(splits);
    // One launch, finishing its splits in-kernel, unless a full reduction
    // of several lines needs a pass across the lines.
    if problem.dim != ReduceDim::All || lines.lines == 1 {
        plan.launches.push(row_launch(
            spec(layout, true, true),
            Workspace::Input,
            Workspace::Output,
            lines,
            splits,
            if splits == 1 { chunk.max(len) } else { chunk },
            problem.out_stride,
            count,
        ));
        if splits > 1 {
            plan.workspace = partials;
            plan.counters = lines.lines;
        }
        return plan;
    }
    plan.launches.push(row_launch(
        spec(layout, false, true),
        Workspace::Input,
        Workspace::At(0),
        lines,
        splits,
        chunk,
        1,
        count,
    ));
    plan.workspace = partials;
    let finish = ReduceLayout::Rows { vectorized: true };
    // A full reduction finishes over all partials as one line, adding
    // split passes (ping-ponging in the workspace) while there are too many.
    let mut from = 0;
    while partials > MAX_FINISH {
        let (chunk, splits) = chunking(partials, partials.div_ceil(MIN_ROW_CHUNK), 64);
        let to = if from == 0 { plan.workspace } else { 0 };
        plan.launches.push(row_launch(
            spec(finish, false, false),
            Workspace::At(from),
            Workspace::At(to),
            Lines::single(partials),
            splits,
            chunk,
            1,
            count,
        ));
        plan.workspace = plan.workspace.max(to + splits);
        from = to;
        partials = splits;
    }
    plan.launches.push(row_launch(
        spec(finish, true, false),
        Workspace::At(from),
        Workspace::Output,
        Lines::single(partials),
        1,
        partials,
        problem.out_stride,
        count,
    ));
    plan
}

/// Lines along the reduced dimension (extent `len`, stride `elem_stride`)
/// of `lines` lines `line_stride` apart. A reduced extent of one or zero
/// counts as contiguous.
fn line_view(lines: u64, line_stride: u64, len: u64, elem_stride: u64) -> Lines {
    Lines {
        lines,
        len,
        line_stride: if lines <= 1 { 1 } else { line_stride },
        elem_stride: if len <= 1 { 1 } else { elem_stride },
    }
}

/// A full reduction as lines: one contiguous line when the tensor is dense
/// in either order, else lines along the dimension with the smaller stride.
fn all_view(problem: &Problem) -> Lines {
    let [rows, cols] = problem.shape;
    let [rs, cs] = problem.strides;
    let total = rows.saturating_mul(cols);
    let dense = rows <= 1 && (cols <= 1 || cs == 1)
        || cols <= 1 && (rows <= 1 || rs == 1)
        || cs == 1 && rs == cols
        || rs == 1 && cs == rows;
    if dense {
        return Lines {
            lines: 1,
            len: total,
            line_stride: 1,
            elem_stride: 1,
        };
    }
    if rows == 1 {
        return line_view(1, 1, cols, cs);
    }
    if cols == 1 {
        return line_view(1, 1, rows, rs);
    }
    if cs <= rs {
        line_view(rows, rs, cols, cs)
    } else {
        line_view(cols, cs, rows, rs)
    }
}

/// Columns per thread: the widest of 8, 4, 2, 1 (at most 16 bytes) such that
/// the input address and the row stride keep every strip aligned.
fn column_vector(problem: &Problem, row_stride: u64) -> u32 {
    let size = u64::from(problem.input.size_bytes());
    let mut vector = 16 / size;
    while vector > 1 {
        let bytes = vector * size;
        if problem.address.is_multiple_of(bytes)
            && row_stride.saturating_mul(size).is_multiple_of(bytes)
        {
            break;
        }
        vector /= 2;
    }
    vector as u32
}

/// Columns of one `Columns` CTA's tile: 32 strips of `reps` loads of
/// `vector` columns, or 31 strips when shifted (lane 31's columns belong to
/// the next tile).
fn column_tile(vector: u32, reps: u32, shifted: bool) -> u64 {
    let strips = if shifted { 31 } else { 32 };
    strips * u64::from(vector * reps)
}

/// The grid for `items` work items (x) and `splits` splits (y, at most
/// [`MAX_SPLITS`] by construction of the chunks).
fn grid(items: u64, splits: u64) -> (u32, u32) {
    (
        items.clamp(1, MAX_GRID) as u32,
        splits.clamp(1, MAX_SPLITS) as u32,
    )
}

/// The chunk for `len` elements in about `splits` pieces, a multiple of
/// `align`, large enough that at most [`MAX_SPLITS`] pieces remain; and the
/// resulting number of pieces.
fn chunking(len: u64, splits: u64, align: u64) -> (u64, u64) {
    let chunk = len
        .div_ceil(splits.max(1))
        .max(len.div_ceil(MAX_SPLITS))
        .max(1)
        .next_multiple_of(align);
    (chunk, len.div_ceil(chunk).max(1))
}

#[allow(clippy::too_many_arguments)]
fn row_launch(
    spec: ReduceSpec,
    source: Workspace,
    target: Workspace,
    lines: Lines,
    splits: u64,
    chunk: u64,
    out_stride: u64,
    count: f32,
) -> Launch {
    Launch {
        spec,
        source,
        target,
        shape: LaunchShape {
            params: [
                lines.lines,
                lines.len,
                lines.line_stride,
                lines.elem_stride,
                splits,
                chunk,
                out_stride,
            ],
            count,
            grid: grid(lines.lines, splits),
        },
    }
}

#[allow(clippy::too_many_arguments)]
fn column_launch(
    spec: ReduceSpec,
    cols: u64,
    len: u64,
    row_stride: u64,
    splits: u64,
    chunk: u64,
    out_stride: u64,
    count: f32,
) -> Launch {
    let tile = match spec.layout {
        ReduceLayout::Columns {
            vector,
            reps,
            shifted,
            ..
        } => column_tile(vector, reps, shifted),
        ReduceLayout::Rows { .. } => 32,
    };
    Launch {
        spec,
        source: Workspace::Input,
        target: Workspace::Output,
        shape: LaunchShape {
            params: [
                cols,
                len,
                row_stride,
                splits,
                chunk,
                out_stride,
                cols.div_ceil(tile).saturating_mul(tile),
            ],
            count,
            grid: grid(cols.div_ceil(tile), splits),
        },
    }
}

const _: () = assert!(
    BLOCK_THREADS == 256,
    "the plan's CTA counts assume 256-thread blocks"
);

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(shape: [u64; 2], strides: [u64; 2], dim: ReduceDim) -> Problem {
        Problem {
            op: ReduceOp::Sum,
            input: ElementType::F32,
            output: ElementType::F32,
            shape,
            strides,
            address: 0,
            out_stride: 1,
            dim,
            map: None,
            arch: ArchKind::Sm90,
            sm_count: 132,
            ctas_per_sm: 8,
            tuning: ColumnTuning::default(),
        }
    }

    /// Every launch's grid y is its splits param, and reads/writes stay in
    /// the workspace it declares.
    fn consistent(plan: &Plan) {
        for launch in &plan.launches {
            let splits = match launch.spec.layout {
                ReduceLayout::Rows { .. } => launch.shape.params[4],
                ReduceLayout::Columns { .. } => launch.shape.params[3],
            };
            assert_eq!(u64::from(launch.shape.grid.1), splits, "{launch:?}");
            if let Workspace::At(offset) = launch.target {
                assert!(offset < plan.workspace.max(1), "{launch:?}");
            }
        }
    }

    #[test]
    fn split_column_reductions_finish_in_one_launch() {
        let mut aligned = problem([16384, 8192], [8192, 1], ReduceDim::First);
        aligned.ctas_per_sm = 4;
        let plan = plan(&aligned);
        assert_eq!(plan.launches.len(), 1);
        assert_eq!(plan.launches[0].shape.grid, (64, 8));
        assert_eq!((plan.workspace, plan.counters), (8 * 8192, 64));
        aligned.tuning.waves = 2;
        aligned.tuning.bytes_in_flight = 128;
        let two = super::plan(&aligned);
        assert_eq!(two.launches[0].shape.grid, (64, 16));
        assert!(matches!(
            two.launches[0].spec.layout,
            ReduceLayout::Columns { rows: 8, .. }
        ));
        let short = super::plan(&problem([40, 8192], [8192, 1], ReduceDim::First));
        assert_eq!(short.launches[0].shape.grid.1, 1);
        assert_eq!((short.workspace, short.counters), (0, 0));
        consistent(&plan);
    }

    #[test]
    fn many_rows_need_one_pass() {
        let plan = plan(&problem([16384, 8192], [8192, 1], ReduceDim::Last));
        assert_eq!(plan.launches.len(), 1);
        assert_eq!(plan.workspace, 0);
        let launch = &plan.launches[0];
        assert_eq!(launch.spec.layout, ReduceLayout::Rows { vectorized: true });
        assert_eq!(launch.shape.grid, (16384, 1));
        consistent(&plan);
    }

    #[test]
    fn few_long_rows_split_and_finish_in_one_launch() {
        let plan = plan(&problem([3, 200_000], [200_000, 1], ReduceDim::Last));
        assert_eq!(plan.launches.len(), 1);
        let launch = &plan.launches[0];
        assert!(launch.spec.finish);
        assert!(launch.shape.grid.1 > 1, "split: {launch:?}");
        assert_eq!(launch.target, Workspace::Output);
        assert_eq!(plan.workspace, 3 * u64::from(launch.shape.grid.1));
        assert_eq!(plan.counters, 3);
        consistent(&plan);
    }

    fn columns(vector: u32, reps: u32, rows: u32, shifted: bool) -> ReduceLayout {
        ReduceLayout::Columns {
            vector,
            reps,
            rows,
            shifted,
            prefetch: false,
        }
    }

    #[test]
    fn column_reduction_vector_width_follows_alignment() {
        let aligned = plan(&problem([1000, 1000], [1000, 1], ReduceDim::First));
        assert_eq!(aligned.launches[0].spec.layout, columns(4, 1, 4, false));
        // Unaligned rows: shifted 16-byte vectors by default.
        let ragged = plan(&problem([1000, 999], [999, 1], ReduceDim::First));
        assert_eq!(ragged.launches[0].spec.layout, columns(4, 1, 2, true));
        let mut narrow = problem([1000, 999], [999, 1], ReduceDim::First);
        narrow.tuning.shifted = Some(false);
        assert_eq!(
            plan(&narrow).launches[0].spec.layout,
            columns(1, 1, 16, false)
        );
        narrow.tuning.wide = Some(true);
        assert_eq!(
            plan(&narrow).launches[0].spec.layout,
            columns(1, 4, 4, false)
        );
        let mut offset = problem([1000, 1000], [1000, 1], ReduceDim::First);
        offset.address = 8;
        assert_eq!(
            plan(&offset).launches[0].spec.layout,
            columns(4, 1, 2, true)
        );
        offset.tuning.shifted = Some(false);
        assert_eq!(
            plan(&offset).launches[0].spec.layout,
            columns(2, 1, 8, false)
        );
        consistent(&aligned);
    }

    #[test]
    fn column_major_rows_reduce_down_columns() {
        let plan = plan(&problem([500, 300], [1, 500], ReduceDim::Last));
        assert!(matches!(
            plan.launches[0].spec.layout,
            ReduceLayout::Columns { .. }
        ));
        consistent(&plan);
    }

    #[test]
    fn full_reductions_flatten_dense_tensors() {
        let dense = plan(&problem([16384, 8192], [8192, 1], ReduceDim::All));
        assert_eq!(dense.launches.len(), 1, "one launch, finished in-kernel");
        assert_eq!(dense.counters, 1);
        assert_eq!(dense.launches[0].shape.params[0], 1, "one line");
        let padded = plan(&problem([700, 500], [512, 1], ReduceDim::All));
        assert_eq!(padded.launches[0].shape.params[0], 700, "one line per row");
        assert_eq!(padded.launches.last().unwrap().target, Workspace::Output);
        consistent(&dense);
        consistent(&padded);
    }

    #[test]
    fn very_many_partials_add_a_pass_and_ping_pong() {
        let plan = plan(&problem([1 << 20, 3], [4, 1], ReduceDim::All));
        assert_eq!(plan.launches.len(), 3);
        assert_eq!(plan.launches[1].source, Workspace::At(0));
        assert_eq!(plan.launches[2].source, plan.launches[1].target);
        consistent(&plan);
    }

    #[test]
    fn empty_outputs_plan_nothing_and_empty_lines_one_launch() {
        assert!(plan(&problem([0, 5], [5, 1], ReduceDim::Last))
            .launches
            .is_empty());
        let empty_lines = plan(&problem([4, 0], [0, 1], ReduceDim::Last));
        assert_eq!(empty_lines.launches.len(), 1);
        assert_eq!(empty_lines.launches[0].shape.grid, (4, 1));
    }
}
