//! What a reduction is asked to do: the [`Problem`] a plan starts from, the
//! [`ReduceDim`] it removes and the [`ColumnTuning`] of column reductions.

use super::super::ReduceOp;
use crate::arch::ArchKind;
use crate::fusion::Expression;
use crate::numeric::ElementType;

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
