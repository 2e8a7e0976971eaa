//! [`ViewLayout`]: the shape and strides (in elements) of a 1-D or 2-D view,
//! with the host-side checks every view goes through.

use std::fmt;

use crate::{Error, Result};

/// Shape and strides, in elements, of a 1-D or 2-D tensor view.
///
/// Rank 1 is stored as `(1, n)` with stride `(0, s)`, so every kernel sees two
/// modes; [`ViewLayout::rank`] keeps the rank the caller asked for. Strides
/// are non-negative; a stride of 0 broadcasts one element along that mode.
///
/// ```
/// use cutlet::tensor::ViewLayout;
/// let l = ViewLayout::row_major(3, 5);
/// assert_eq!((l.shape(), l.strides()), ([3, 5], [5, 1]));
/// assert_eq!(l.offset(2, 4), 14);
/// assert_eq!(l.required_len().unwrap(), 15);
/// let col = ViewLayout::with_strides(&[3, 5], &[1, 4]).unwrap();
/// assert_eq!(col.required_len().unwrap(), 1 + 2 + 4 * 4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ViewLayout {
    rank: u8,
    shape: [usize; 2],
    strides: [usize; 2],
}

impl ViewLayout {
    /// A contiguous vector of `n` elements: `(n):(1)`.
    pub fn vector(n: usize) -> ViewLayout {
        ViewLayout {
            rank: 1,
            shape: [1, n],
            strides: [0, 1],
        }
    }

    /// `rows x cols`, row-major and packed: `(rows, cols):(cols, 1)`.
    pub fn row_major(rows: usize, cols: usize) -> ViewLayout {
        ViewLayout {
            rank: 2,
            shape: [rows, cols],
            strides: [cols, 1],
        }
    }

    /// `rows x cols`, column-major and packed: `(rows, cols):(1, rows)`.
    pub fn col_major(rows: usize, cols: usize) -> ViewLayout {
        ViewLayout {
            rank: 2,
            shape: [rows, cols],
            strides: [1, rows],
        }
    }

    /// Any shape and strides of rank 1 or 2 (the two slices have the same length).
    ///
    /// Errors: [`Error::InvalidArgument`] for a rank other than 1 or 2, or
    /// shape and strides of different lengths.
    pub fn with_strides(shape: &[usize], strides: &[usize]) -> Result<ViewLayout> {
        if shape.len() != strides.len() {
            return Err(Error::invalid_argument(
                "strides",
                format!("{strides:?}"),
                format!("one stride per mode of shape {shape:?}"),
            ));
        }
        match (shape, strides) {
            ([n], [s]) => Ok(ViewLayout {
                rank: 1,
                shape: [1, *n],
                strides: [0, *s],
            }),
            ([m, n], [sm, sn]) => Ok(ViewLayout {
                rank: 2,
                shape: [*m, *n],
                strides: [*sm, *sn],
            }),
            _ => Err(Error::invalid_argument(
                "shape",
                format!("{shape:?}"),
                "rank 1 or 2",
            )),
        }
    }

    /// The rank the view was built with (1 or 2).
    pub fn rank(&self) -> usize {
        usize::from(self.rank)
    }

    /// `[rows, cols]` (`[1, n]` for rank 1).
    pub fn shape(&self) -> [usize; 2] {
        self.shape
    }

    /// `[row stride, column stride]` in elements (`[0, s]` for rank 1).
    pub fn strides(&self) -> [usize; 2] {
        self.strides
    }

    /// Number of elements the view addresses (`rows * cols`), or `None` on overflow.
    pub fn numel(&self) -> Option<usize> {
        self.shape[0].checked_mul(self.shape[1])
    }

    /// Whether the view holds no element.
    pub fn is_empty(&self) -> bool {
        self.shape[0] == 0 || self.shape[1] == 0
    }

    /// Offset in elements of element `(row, col)` (no bounds check).
    pub fn offset(&self, row: usize, col: usize) -> usize {
        row * self.strides[0] + col * self.strides[1]
    }

    /// Elements a buffer must hold for every addressed element:
    /// `1 + sum((extent - 1) * stride)`, 0 for an empty view.
    ///
    /// Errors: [`Error::InvalidArgument`] naming the shape and strides on overflow.
    pub fn required_len(&self) -> Result<usize> {
        if self.is_empty() {
            return Ok(0);
        }
        let overflow = || {
            Error::invalid_argument(
                "tensor layout",
                self,
                "shape and strides whose largest offset fits in usize",
            )
        };
        let mut last = 0usize;
        for (extent, stride) in self.shape.iter().zip(self.strides) {
            let span = (extent - 1).checked_mul(stride).ok_or_else(overflow)?;
            last = last.checked_add(span).ok_or_else(overflow)?;
        }
        last.checked_add(1).ok_or_else(overflow)
    }

    /// The same view with rows and columns exchanged (a transpose).
    pub fn transposed(&self) -> ViewLayout {
        ViewLayout {
            rank: 2,
            shape: [self.shape[1], self.shape[0]],
            strides: [self.strides[1], self.strides[0]],
        }
    }

    /// This view broadcast to `shape` by NumPy's rule: a mode of extent 1
    /// stretches to any extent (stride 0), and a rank-1 view is a row.
    /// `None` when the shapes are incompatible.
    ///
    /// ```
    /// use cutlet::tensor::ViewLayout;
    /// let bias = ViewLayout::vector(8);
    /// let b = bias.broadcast_to([4, 8]).unwrap();
    /// assert_eq!((b.shape(), b.strides()), ([4, 8], [0, 1]));
    /// assert!(bias.broadcast_to([4, 7]).is_none());
    /// ```
    pub fn broadcast_to(&self, shape: [usize; 2]) -> Option<ViewLayout> {
        let mut out = ViewLayout {
            rank: 2,
            shape,
            strides: self.strides,
        };
        for ((have, want), stride) in self.shape.iter().zip(shape).zip(&mut out.strides) {
            if *have != want {
                if *have != 1 {
                    return None;
                }
                *stride = 0;
            }
        }
        Some(out)
    }
}

impl fmt::Display for ViewLayout {
    /// CuTe notation: `(3,5):(5,1)`, or `(5):(1)` for rank 1.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.rank == 1 {
            write!(f, "({}):({})", self.shape[1], self.strides[1])
        } else {
            write!(
                f,
                "({},{}):({},{})",
                self.shape[0], self.shape[1], self.strides[0], self.strides[1]
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_len_covers_the_largest_offset() {
        assert_eq!(ViewLayout::row_major(0, 5).required_len().unwrap(), 0);
        assert_eq!(ViewLayout::col_major(4, 3).required_len().unwrap(), 12);
        let padded = ViewLayout::with_strides(&[4, 3], &[8, 1]).unwrap();
        assert_eq!(padded.required_len().unwrap(), 3 * 8 + 3);
        let scalar = ViewLayout::with_strides(&[4, 3], &[0, 0]).unwrap();
        assert_eq!(scalar.required_len().unwrap(), 1);
    }

    #[test]
    fn overflowing_layout_is_an_error_naming_it() {
        let huge = ViewLayout::with_strides(&[usize::MAX, 3], &[2, 1]).unwrap();
        let text = huge.required_len().unwrap_err().to_string();
        assert!(
            text.contains(&format!("({},3):(2,1)", usize::MAX)),
            "{text}"
        );
    }

    #[test]
    fn rank_three_and_mismatched_strides_are_errors() {
        let text = ViewLayout::with_strides(&[1, 2, 3], &[6, 3, 1])
            .unwrap_err()
            .to_string();
        assert!(
            text.contains("[1, 2, 3]") && text.contains("rank 1 or 2"),
            "{text}"
        );
        let text = ViewLayout::with_strides(&[2, 3], &[1])
            .unwrap_err()
            .to_string();
        assert!(text.contains("[1]") && text.contains("[2, 3]"), "{text}");
    }

    #[test]
    fn broadcasting_follows_numpy() {
        let col = ViewLayout::with_strides(&[4, 1], &[1, 1]).unwrap();
        let b = col.broadcast_to([4, 6]).unwrap();
        assert_eq!(b.strides(), [1, 0]);
        assert!(ViewLayout::row_major(4, 6).broadcast_to([4, 6]).is_some());
        assert!(ViewLayout::row_major(2, 6).broadcast_to([4, 6]).is_none());
    }
}
