//! Two layout-algebra steps the wgmma descriptors need: CuTe's
//! `tile_to_shape` of a swizzle atom over a 2-D tile, and one mode of a
//! layout divided into a tile and its rest (`logical_divide` by `n:1`).

use crate::layout::{
    blocked_product, coalesce, coalesce_by_mode, logical_divide, IntTuple, Layout, Tiler,
};
use crate::{Error, Result};

/// CuTe's `tile_to_shape(atom, (mn, k), order)` for a rank-2 atom: the
/// atom repeated until it covers `mn x k`, along mode 0 first
/// (`Step<_1,_2>`) or, with `k_first`, along mode 1 first
/// (`Step<_2,_1>`), each mode coalesced:
/// `coalesce(blocked_product(atom, ordered (mn/a0, k/a1)), (_,_))`.
///
/// # Errors
/// [`Error::InvalidArgument`] unless the atom's extents divide the shape.
pub(crate) fn tile_to_shape(atom: &Layout, shape: [i64; 2], k_first: bool) -> Result<Layout> {
    let extents = [0, 1].map(|m| atom.sub(&[m]).map_or(0, |l| l.size()));
    if extents
        .iter()
        .zip(shape)
        .any(|(&a, s)| a < 1 || s < 1 || s % a != 0)
    {
        return Err(Error::invalid_argument(
            "gmma tile shape",
            format!("({}, {})", shape[0], shape[1]),
            format!(
                "positive multiples of the swizzle atom's ({}, {}) (atom {atom})",
                extents[0], extents[1]
            ),
        ));
    }
    let counts = IntTuple::ints(&[shape[0] / extents[0], shape[1] / extents[1]]);
    let repeats = if k_first {
        Layout::row_major(counts)
    } else {
        Layout::col_major(counts)
    };
    let tiled = blocked_product(atom, &repeats)?;
    Ok(coalesce_by_mode(&tiled, &IntTuple::ints(&[1, 1]))?)
}

/// Mode `mode` of `layout` divided by `tile:1` (CuTe's `logical_divide`):
/// `(tile part, rest)`, the rest `1:0` where the division leaves none;
/// `None` when the mode does not exist or the division is inadmissible.
pub(crate) fn split_mode(layout: &Layout, mode: usize, tile: i64) -> Option<(Layout, Layout)> {
    let sub = layout.sub(&[mode])?;
    let tiler = Tiler::Layout(Layout::col_major(IntTuple::from(tile)));
    let divided = logical_divide(&sub, &tiler).ok()?;
    let first = divided.sub(&[0])?;
    let rest = if divided.rank() > 1 {
        divided.sub(&[1])?
    } else {
        Layout::unit()
    };
    (first.size() == tile).then_some((first, rest))
}

/// [`split_mode`] with each part coalesced to one `(extent, stride)`
/// (stride 0 for extent 1), or `None` where a part has no single stride.
pub(crate) fn divide_mode(
    layout: &Layout,
    mode: usize,
    tile: i64,
) -> Option<((i64, i64), (i64, i64))> {
    let (first, rest) = split_mode(layout, mode, tile)?;
    let part = |l: &Layout| -> Option<(i64, i64)> {
        let l = coalesce(l);
        match (l.shape(), l.stride()) {
            (IntTuple::Int(1), _) => Some((1, 0)),
            (IntTuple::Int(s), IntTuple::Int(d)) => Some((*s, *d)),
            _ => None,
        }
    };
    Some((part(&first)?, part(&rest)?))
}
