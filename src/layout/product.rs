//! Products: reproduce a layout according to another.

use super::complement::complement;
use super::composition::compose_layouts;
use super::rearrange::{by_mode_keeping_rest, tile_unzip, unpack_both, unpack_second, zip};
use super::validate;
use super::{Layout, LayoutError, Tiler};

/// `(block, complement(block, size(block)*cosize(tile)) o tile)`.
fn product_layouts(block: &Layout, tile: &Layout) -> Result<Layout, LayoutError> {
    validate::layout_nonneg("logical_product", block)?;
    let rest = complement(block, block.size() * tile.cosize())?;
    Ok(Layout::from_modes([
        block.clone(),
        compose_layouts(&rest, tile)?,
    ]))
}

fn product(block: &Layout, t: &Tiler) -> Result<Layout, LayoutError> {
    match t {
        Tiler::Layout(tile) => product_layouts(block, tile),
        Tiler::ByMode(parts) => by_mode_keeping_rest("logical_product", block, parts, product),
    }
}

/// The product of `block` by the tiler `t` (CuTe's `logical_product`):
/// `(block, block* o t)`, where `block*` is the complement of `block` up to
/// `size(block)*cosize(t)`: mode 1 repeats `block` as `t` says. A by-mode
/// tiler multiplies mode by mode and keeps the modes it does not reach
/// (those may have negative strides; a multiplied mode may not, on a mode of
/// extent above 1).
///
/// ```
/// use cutlet::layout::{logical_product, Layout};
/// let a: Layout = "(2,2):(4,1)".parse().unwrap();
/// let b: Layout = "6:1".parse().unwrap();
/// assert_eq!(logical_product(&a, &b.into()).unwrap().to_string(), "((2,2),(2,3)):((4,1),(2,8))");
/// let b: Layout = "(4,2):(2,1)".parse().unwrap();
/// assert_eq!(logical_product(&a, &b.into()).unwrap().to_string(), "((2,2),(4,2)):((4,1),(8,2))");
/// ```
pub fn logical_product(block: &Layout, t: &Tiler) -> Result<Layout, LayoutError> {
    validate::layout("logical_product", block)?;
    validate::tiler("logical_product", t)?;
    product(block, t)
}

/// [`logical_product`] with the blocks gathered in mode 0 and the repetitions
/// in mode 1: `((M,N), (TileM,TileN,L,...))` (CuTe's `zipped_product`).
///
/// ```
/// use cutlet::layout::{zipped_product, Layout, Tiler};
/// let a: Layout = "(2,5):(5,1)".parse().unwrap();
/// let t = Tiler::ByMode(vec!["3:5".parse::<Layout>().unwrap().into(), "4:6".parse::<Layout>().unwrap().into()]);
/// assert_eq!(zipped_product(&a, &t).unwrap().to_string(), "((2,5),(3,4)):((5,1),(10,30))");
/// ```
pub fn zipped_product(block: &Layout, t: &Tiler) -> Result<Layout, LayoutError> {
    tile_unzip("zipped_product", &logical_product(block, t)?, t)
}

/// [`zipped_product`] with the repetition mode unpacked: `((M,N), TileM, TileN, L, ...)`
/// (CuTe's `tiled_product`).
///
/// ```
/// use cutlet::layout::{tiled_product, Layout, Tiler};
/// let a: Layout = "(2,5):(5,1)".parse().unwrap();
/// let t = Tiler::ByMode(vec!["3:5".parse::<Layout>().unwrap().into(), "4:6".parse::<Layout>().unwrap().into()]);
/// assert_eq!(tiled_product(&a, &t).unwrap().to_string(), "((2,5),3,4):((5,1),10,30)");
/// ```
pub fn tiled_product(block: &Layout, t: &Tiler) -> Result<Layout, LayoutError> {
    Ok(unpack_second(&zipped_product(block, t)?))
}

/// [`zipped_product`] with both modes unpacked: `(M, N, TileM, TileN, L, ...)`
/// (CuTe's `flat_product`).
///
/// ```
/// use cutlet::layout::{flat_product, Layout, Tiler};
/// let a: Layout = "(2,5):(5,1)".parse().unwrap();
/// let t = Tiler::ByMode(vec!["3:5".parse::<Layout>().unwrap().into(), "4:6".parse::<Layout>().unwrap().into()]);
/// assert_eq!(flat_product(&a, &t).unwrap().to_string(), "(2,5,3,4):(5,1,10,30)");
/// ```
pub fn flat_product(block: &Layout, t: &Tiler) -> Result<Layout, LayoutError> {
    Ok(unpack_both(&zipped_product(block, t)?))
}

/// `logical_product` of `block` and `tiler` padded to equal rank, as (mode 0, mode 1).
fn rank_matched_product(
    op: &'static str,
    block: &Layout,
    tiler: &Layout,
) -> Result<(Layout, Layout), LayoutError> {
    validate::layout_nonneg(op, block)?;
    validate::layout(op, tiler)?;
    let rank = block.rank().max(tiler.rank());
    let result = product_layouts(&pad_to_rank(block, rank), &pad_to_rank(tiler, rank))?;
    let mut modes = result.modes().into_iter();
    let first = modes.next().expect("a product has two modes");
    let second = modes.next().expect("a product has two modes");
    Ok((first, second))
}

/// CuTe's `append<N>(layout)`: an integer layout stays as it is for `n == 1`.
fn pad_to_rank(l: &Layout, n: usize) -> Layout {
    if l.shape().is_int() && n == 1 {
        l.clone()
    } else {
        l.append_to_rank(n)
    }
}

/// `block` repeated as `tiler` says, mode by mode, blocks kept contiguous
/// (CuTe's `blocked_product`): mode `i` of the result is `(block_i, tile_i)`.
///
/// ```
/// use cutlet::layout::{blocked_product, Layout};
/// let a: Layout = "(2,5):(5,1)".parse().unwrap();
/// let b: Layout = "(3,4):(1,3)".parse().unwrap();
/// assert_eq!(blocked_product(&a, &b).unwrap().to_string(), "((2,3),(5,4)):((5,10),(1,30))");
/// ```
pub fn blocked_product(block: &Layout, tiler: &Layout) -> Result<Layout, LayoutError> {
    let (first, second) = rank_matched_product("blocked_product", block, tiler)?;
    zip("blocked_product", &first, &second)
}

/// `block` repeated as `tiler` says, with the repetitions interleaved
/// (CuTe's `raked_product`): mode `i` of the result is `(tile_i, block_i)`.
///
/// ```
/// use cutlet::layout::{raked_product, Layout};
/// let a: Layout = "(2,5):(5,1)".parse().unwrap();
/// let b: Layout = "(3,4):(1,3)".parse().unwrap();
/// assert_eq!(raked_product(&a, &b).unwrap().to_string(), "((3,2),(4,5)):((10,5),(30,1))");
/// ```
pub fn raked_product(block: &Layout, tiler: &Layout) -> Result<Layout, LayoutError> {
    let (first, second) = rank_matched_product("raked_product", block, tiler)?;
    zip("raked_product", &second, &first)
}
