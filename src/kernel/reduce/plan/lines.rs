//! The reduction seen as lines: `lines` lines of `len` elements, as the
//! `Rows` kernel and the finishing passes read them.

use super::problem::Problem;

/// The reduction as lines: `lines` lines of `len` elements.
#[derive(Clone, Copy, Debug)]
pub(super) struct Lines {
    pub(super) lines: u64,
    pub(super) len: u64,
    pub(super) line_stride: u64,
    pub(super) elem_stride: u64,
}

impl Lines {
    /// One contiguous line of `len` elements (as a finishing pass reads the
    /// partials).
    pub(super) fn single(len: u64) -> Lines {
        Lines {
            lines: 1,
            len,
            line_stride: len,
            elem_stride: 1,
        }
    }
}

/// Lines along the reduced dimension (extent `len`, stride `elem_stride`)
/// of `lines` lines `line_stride` apart. A reduced extent of one or zero
/// counts as contiguous.
pub(super) fn line_view(lines: u64, line_stride: u64, len: u64, elem_stride: u64) -> Lines {
    Lines {
        lines,
        len,
        line_stride: if lines <= 1 { 1 } else { line_stride },
        elem_stride: if len <= 1 { 1 } else { elem_stride },
    }
}

/// A full reduction as lines: one contiguous line when the tensor is dense
/// in either order, else lines along the dimension with the smaller stride.
pub(super) fn all_view(problem: &Problem) -> Lines {
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
