//! What a plan holds: [`Launch`]es with their [`LaunchShape`] and
//! [`Workspace`]s, and the helpers that size one launch's grid and chunks.

use super::super::{ReduceLayout, ReduceSpec};
use super::lines::Lines;
use super::problem::Problem;
use super::{MAX_GRID, MAX_SPLITS};

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
    /// split; threads per block are [`BLOCK_THREADS`](super::super::BLOCK_THREADS).
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

/// Columns per thread: the widest of 8, 4, 2, 1 (at most 16 bytes) such that
/// the input address and the row stride keep every strip aligned.
pub(super) fn column_vector(problem: &Problem, row_stride: u64) -> u32 {
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
pub(super) fn column_tile(vector: u32, reps: u32, shifted: bool) -> u64 {
    let strips = if shifted { 31 } else { 32 };
    strips * u64::from(vector * reps)
}

/// The grid for `items` work items (x) and `splits` splits (y, at most
/// [`MAX_SPLITS`] by construction of the chunks).
pub(super) fn grid(items: u64, splits: u64) -> (u32, u32) {
    (
        items.clamp(1, MAX_GRID) as u32,
        splits.clamp(1, MAX_SPLITS) as u32,
    )
}

/// The chunk for `len` elements in about `splits` pieces, a multiple of
/// `align`, large enough that at most [`MAX_SPLITS`] pieces remain; and the
/// resulting number of pieces.
pub(super) fn chunking(len: u64, splits: u64, align: u64) -> (u64, u64) {
    let chunk = len
        .div_ceil(splits.max(1))
        .max(len.div_ceil(MAX_SPLITS))
        .max(1)
        .next_multiple_of(align);
    (chunk, len.div_ceil(chunk).max(1))
}

#[allow(clippy::too_many_arguments)]
pub(super) fn row_launch(
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
pub(super) fn column_launch(
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
