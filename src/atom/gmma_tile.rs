//! Two layout-algebra steps the wgmma descriptors need: CuTe's
//! `tile_to_shape` of a swizzle atom over a 2-D tile, and one mode of a
//! layout divided into a tile and its rest (`logical_divide` by `n:1`).

use crate::layout::{blocked_product, coalesce, coalesce_by_mode, logical_divide, IntTuple, Layout, Tiler};
use crate::{Error, Result};

/// CuTe's `tile_to_shape(atom, (mn, k))` for a rank-2 atom: the atom
/// repeated column-major (along mode 0 first) until it covers `mn x k`,
/// each mode coalesced: `coalesce(blocked_product(atom, (mn/a0, k/a1)), (_,_))`.
///
/// # Errors
/// [`Error::InvalidArgument`] unless the atom's extents divide the shape.
pub(crate) fn tile_to_shape(atom: &Layout, shape: [i64; 2]) -> Result<Layout> {
    let extents = [0, 1].map(|m| atom.sub(&[m]).map_or(0, |l| l.size()));
    if extents.iter().zip(shape).any(|(&a, s)| a < 1 || s < 1 || s % a != 0) {
        return Err(Error::invalid_argument(
            "gmma tile shape",
            format!("({}, {})", shape[0], shape[1]),
            format!(
                "positive multiples of the swizzle atom's ({}, {}) (atom {atom})",
                extents[0], extents[1]
            ),
        ));
    }
    let repeats = Layout::col_major(IntTuple::ints(&[shape[0] / extents[0], shape[1] / extents[1]]));
    let tiled = blocked_product(atom, &repeats)?;
    Ok(coalesce_by_mode(&tiled, &IntTuple::ints(&[1, 1]))?)
}

/// Mode `mode` of `layout` divided by `tile:1` (CuTe's `logical_divide`),
/// each part coalesced: `((tile, tile stride), (rest, rest stride))`, or
/// `None` when a part is not one integer mode (no single stride), the
/// mode does not exist, or the division is inadmissible. A rest of extent 1
/// has stride 0.
pub(crate) fn divide_mode(layout: &Layout, mode: usize, tile: i64) -> Option<((i64, i64), (i64, i64))> {
    let sub = layout.sub(&[mode])?;
    let tiler = Tiler::Layout(Layout::col_major(IntTuple::from(tile)));
    let divided = logical_divide(&sub, &tiler).ok()?;
    let part = |i: usize| -> Option<(i64, i64)> {
        let l = coalesce(&divided.sub(&[i]).unwrap_or_else(Layout::unit));
        match (l.shape(), l.stride()) {
            (IntTuple::Int(1), _) => Some((1, 0)),
            (IntTuple::Int(s), IntTuple::Int(d)) => Some((*s, *d)),
            _ => None,
        }
    };
    let first = part(0)?;
    let rest = if divided.rank() > 1 { part(1)? } else { (1, 0) };
    (first.0 == tile).then_some((first, rest))
}
