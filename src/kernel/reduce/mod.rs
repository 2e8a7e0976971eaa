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

mod assemble;
mod columns;
mod emit;
mod finish;
mod op;
mod plan;
mod rows;
mod spec;
mod tile;

pub use op::ReduceOp;
pub use plan::{
    plan, ColumnTuning, Launch, LaunchShape, Plan, Problem, ReduceDim, Workspace,
    COLUMN_BYTES_IN_FLIGHT, COLUMN_SHIFTED, COLUMN_WIDE, SHIFTED_BYTES_IN_FLIGHT,
};
pub use spec::{ReduceLayout, ReduceSpec, SUPPORTED};

/// Threads per block of both reduction kernels.
pub const BLOCK_THREADS: u32 = 256;

/// Loads each thread keeps in flight in the main loops.
pub(crate) const UNROLL: usize = 4;
