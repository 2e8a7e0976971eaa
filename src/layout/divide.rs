//! Divides: split a layout into tiles and the layout of those tiles.

use super::coalesce::coalesce;
use super::complement::complement_to;
use super::composition::compose_layouts;
use super::rearrange::{by_mode_keeping_rest, tile_unzip, unpack_both, unpack_second};
use super::validate;
use super::{Layout, LayoutError, Tiler};

fn divide(a: &Layout, t: &Tiler) -> Result<Layout, LayoutError> {
    match t {
        Tiler::Layout(tile) => {
            let rest = complement_to(tile, coalesce(a).shape())?;
            compose_layouts(a, &Layout::from_modes([tile.clone(), rest]))
        }
        Tiler::ByMode(parts) => by_mode_keeping_rest("logical_divide", a, parts, divide),
    }
}

/// `a` divided by the tiler `t` (CuTe's `logical_divide`): `a o (t, t*)`,
/// where `t*` is the complement of `t` up to the shape of `a`. A by-mode
/// tiler divides mode by mode and keeps the modes it does not reach.
///
/// ```
/// use cutlet::layout::{logical_divide, Layout, Tiler};
/// let a: Layout = "(4,2,3):(2,1,8)".parse().unwrap();
/// let t: Layout = "4:2".parse().unwrap();
/// assert_eq!(logical_divide(&a, &t.into()).unwrap().to_string(), "((2,2),(2,3)):((4,1),(2,8))");
///
/// let a: Layout = "(9,(4,8)):(59,(13,1))".parse().unwrap();
/// let t = Tiler::ByMode(vec!["3:3".parse::<Layout>().unwrap().into(), "(2,4):(1,8)".parse::<Layout>().unwrap().into()]);
/// assert_eq!(logical_divide(&a, &t).unwrap().to_string(), "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))");
/// ```
pub fn logical_divide(a: &Layout, t: &Tiler) -> Result<Layout, LayoutError> {
    validate::layout("logical_divide", a)?;
    validate::tiler("logical_divide", t)?;
    divide(a, t)
}

/// [`logical_divide`] with the tiles gathered in mode 0 and the rests in
/// mode 1: `((TileM,TileN), (RestM,RestN,L,...))` (CuTe's `zipped_divide`).
///
/// ```
/// use cutlet::layout::{zipped_divide, Layout, Tiler};
/// let a: Layout = "(9,(4,8)):(59,(13,1))".parse().unwrap();
/// let t = Tiler::ByMode(vec!["3:3".parse::<Layout>().unwrap().into(), "(2,4):(1,8)".parse::<Layout>().unwrap().into()]);
/// assert_eq!(zipped_divide(&a, &t).unwrap().to_string(), "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))");
/// ```
pub fn zipped_divide(a: &Layout, t: &Tiler) -> Result<Layout, LayoutError> {
    tile_unzip("zipped_divide", &logical_divide(a, t)?, t)
}

/// [`zipped_divide`] with the rest mode unpacked: `((TileM,TileN), RestM, RestN, L, ...)`
/// (CuTe's `tiled_divide`).
///
/// ```
/// use cutlet::layout::{tiled_divide, Layout, Tiler};
/// let a: Layout = "(9,(4,8)):(59,(13,1))".parse().unwrap();
/// let t = Tiler::ByMode(vec!["3:3".parse::<Layout>().unwrap().into(), "(2,4):(1,8)".parse::<Layout>().unwrap().into()]);
/// assert_eq!(tiled_divide(&a, &t).unwrap().to_string(), "((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))");
/// ```
pub fn tiled_divide(a: &Layout, t: &Tiler) -> Result<Layout, LayoutError> {
    Ok(unpack_second(&zipped_divide(a, t)?))
}

/// [`zipped_divide`] with both modes unpacked: `(TileM, TileN, RestM, RestN, L, ...)`
/// (CuTe's `flat_divide`).
///
/// ```
/// use cutlet::layout::{flat_divide, Layout, Tiler};
/// let a: Layout = "(9,(4,8)):(59,(13,1))".parse().unwrap();
/// let t = Tiler::ByMode(vec!["3:3".parse::<Layout>().unwrap().into(), "(2,4):(1,8)".parse::<Layout>().unwrap().into()]);
/// assert_eq!(flat_divide(&a, &t).unwrap().to_string(), "(3,(2,4),3,(2,2)):(177,(13,2),59,(26,1))");
/// ```
pub fn flat_divide(a: &Layout, t: &Tiler) -> Result<Layout, LayoutError> {
    Ok(unpack_both(&zipped_divide(a, t)?))
}
