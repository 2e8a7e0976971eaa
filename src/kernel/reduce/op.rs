//! The reduction operator, [`ReduceOp`].

use std::fmt;

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
