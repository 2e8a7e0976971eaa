//! Planning a reduction: which kernels, how many splits, which workspace.
//!
//! [`plan`] turns a [`Problem`] (shape, strides, dimension, types, the
//! device's SM count) into one to three [`Launch`]es and the f32 workspace
//! they share. It is pure host arithmetic, so every decision is testable
//! without a GPU.

mod launch;
mod lines;
mod problem;

use super::{ReduceLayout, ReduceSpec, BLOCK_THREADS};
use crate::numeric::ElementType;
use launch::{chunking, column_launch, column_tile, column_vector, row_launch};
use lines::{all_view, line_view, Lines};

pub use launch::{Launch, LaunchShape, Plan, Workspace};
pub use problem::{
    ColumnTuning, Problem, ReduceDim, COLUMN_BYTES_IN_FLIGHT, COLUMN_SHIFTED, COLUMN_WIDE,
    SHIFTED_BYTES_IN_FLIGHT,
};
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
pub(super) const MAX_SPLITS: u64 = 65535;
/// Most partials one finishing CTA reads before another split pass is added.
const MAX_FINISH: u64 = 1 << 16;
/// Largest grid a launch uses (the kernels loop over the remaining items).
pub(super) const MAX_GRID: u64 = 1 << 20;

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

const _: () = assert!(
    BLOCK_THREADS == 256,
    "the plan's CTA counts assume 256-thread blocks"
);

#[cfg(test)]
mod tests;
