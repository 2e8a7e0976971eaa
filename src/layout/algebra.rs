//! TEMPORARY contract for the layout algebra: signatures only, bodies to be written.
#![allow(unused_variables, missing_docs)]

use super::{IntTuple, Layout, LayoutError, Tiler};

pub fn coalesce(layout: &Layout) -> Layout {
    todo!()
}
pub fn coalesce_by_mode(layout: &Layout, profile: &IntTuple) -> Layout {
    todo!()
}
pub fn filter(layout: &Layout) -> Layout {
    todo!()
}
pub fn filter_zeros(layout: &Layout) -> Layout {
    todo!()
}
pub fn composition(a: &Layout, b: &Tiler) -> Result<Layout, LayoutError> {
    todo!()
}
pub fn complement(layout: &Layout, cotarget: i64) -> Result<Layout, LayoutError> {
    todo!()
}
pub fn right_inverse(layout: &Layout) -> Layout {
    todo!()
}
pub fn left_inverse(layout: &Layout) -> Result<Layout, LayoutError> {
    todo!()
}
pub fn logical_divide(a: &Layout, t: &Tiler) -> Result<Layout, LayoutError> {
    todo!()
}
pub fn zipped_divide(a: &Layout, t: &Tiler) -> Result<Layout, LayoutError> {
    todo!()
}
pub fn tiled_divide(a: &Layout, t: &Tiler) -> Result<Layout, LayoutError> {
    todo!()
}
pub fn flat_divide(a: &Layout, t: &Tiler) -> Result<Layout, LayoutError> {
    todo!()
}
pub fn logical_product(a: &Layout, t: &Tiler) -> Result<Layout, LayoutError> {
    todo!()
}
pub fn zipped_product(a: &Layout, t: &Tiler) -> Result<Layout, LayoutError> {
    todo!()
}
pub fn tiled_product(a: &Layout, t: &Tiler) -> Result<Layout, LayoutError> {
    todo!()
}
pub fn flat_product(a: &Layout, t: &Tiler) -> Result<Layout, LayoutError> {
    todo!()
}
pub fn blocked_product(a: &Layout, b: &Layout) -> Result<Layout, LayoutError> {
    todo!()
}
pub fn raked_product(a: &Layout, b: &Layout) -> Result<Layout, LayoutError> {
    todo!()
}
/// Returns (tiler_mn, layout_tv).
pub fn make_layout_tv(thr: &Layout, val: &Layout) -> Result<(IntTuple, Layout), LayoutError> {
    todo!()
}
pub fn make_ordered_layout(shape: &IntTuple, order: &IntTuple) -> Result<Layout, LayoutError> {
    todo!()
}
pub fn max_common_vector(a: &Layout, b: &Layout) -> i64 {
    todo!()
}
pub fn upcast(layout: &Layout, n: i64) -> Result<Layout, LayoutError> {
    todo!()
}
pub fn downcast(layout: &Layout, n: i64) -> Result<Layout, LayoutError> {
    todo!()
}
pub fn recast(layout: &Layout, old_bits: i64, new_bits: i64) -> Result<Layout, LayoutError> {
    todo!()
}
