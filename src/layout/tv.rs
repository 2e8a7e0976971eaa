//! Thread-value layouts: which thread holds which value of a tile.

use super::composition::compose_layouts;
use super::inverse::right_inverse;
use super::product::raked_product;
use super::{IntTuple, Layout, LayoutError};

/// The tile and the thread-value layout of `val` repeated over `thr` (the CuTe
/// DSL's `make_layout_tv`). Returns `(tiler_mn, layout_tv)` where, with
/// `layout_mn = raked_product(thr, val)` mapping `(M,N)` to `(thr_idx, val_idx)`:
///
/// - `layout_tv = right_inverse(layout_mn) o (size(thr), size(val))` maps
///   `(thr_idx, val_idx)` to the linear `(M,N)` index in the tile;
/// - `tiler_mn = product_each(shape(layout_mn))`, the tile shape.
///
/// Both layouts should be compact for the result to partition the tile.
///
/// ```
/// use cutlet::layout::{make_layout_tv, Layout};
/// let thr: Layout = "(2,3):(3,1)".parse().unwrap();
/// let val: Layout = "(2,2):(2,1)".parse().unwrap();
/// let (tiler, tv) = make_layout_tv(&thr, &val).unwrap();
/// assert_eq!(tiler.to_string(), "(4,6)");
/// assert_eq!(tv.to_string(), "((3,2),(2,2)):((8,2),(4,1))");
/// ```
pub fn make_layout_tv(thr: &Layout, val: &Layout) -> Result<(IntTuple, Layout), LayoutError> {
    let layout_mn = raked_product(thr, val)?;
    let tv_shape = IntTuple::ints(&[thr.size(), val.size()]);
    let layout_tv = compose_layouts(&right_inverse(&layout_mn), &Layout::col_major(tv_shape))?;
    Ok((layout_mn.shape().product_each(), layout_tv))
}
