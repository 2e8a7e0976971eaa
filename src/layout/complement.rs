//! The complement of a layout: the layout of its repetitions within a cotarget.

use super::coalesce::{coalesce, filter, flat_modes};
use super::composition::ceil_div;
use super::validate::{self, inadmissible};
use super::{IntTuple, Layout, LayoutError};

/// CuTe's `ceil_div(IntTuple, Int)`: divides `b` out of `a` from the left.
fn ceil_div_tuple(a: &IntTuple, b: i64) -> IntTuple {
    match a {
        IntTuple::Int(v) => IntTuple::Int(ceil_div(*v, b)),
        IntTuple::Tuple(parts) => {
            let mut rest = b;
            IntTuple::tuple(parts.iter().map(|p| {
                let q = ceil_div_tuple(p, rest);
                rest = ceil_div(rest, p.size());
                q
            }))
        }
    }
}

/// The complement of `layout` with respect to the shape `cotarget` (CuTe's
/// `complement(layout, cotarget)` with a shape cotarget).
pub(crate) fn complement_to(layout: &Layout, cotarget: &IntTuple) -> Result<Layout, LayoutError> {
    validate::layout_nonneg("complement", layout)?;
    validate::positive_shape("complement", cotarget)?;
    let mut modes = flat_modes(&filter(layout));
    if modes.iter().all(|&(_, d)| d == 0) {
        return Ok(Layout::col_major(IntTuple::Int(cotarget.size())));
    }
    let non_injective = |d: i64, prev: i64| {
        inadmissible(
            "complement",
            format!(
                "layout {layout} is not injective: stride {d} is smaller than the extent {prev} already covered"
            ),
        )
    };
    let mut result_shape = Vec::with_capacity(modes.len() + 1);
    let mut result_stride = vec![1];
    while modes.len() > 1 {
        let (min_idx, &(s, d)) = modes
            .iter()
            .enumerate()
            .min_by_key(|&(i, &(_, d))| (d, i))
            .expect("at least two modes");
        let prev = *result_stride.last().expect("never empty");
        if d / prev == 0 {
            return Err(non_injective(d, prev));
        }
        result_shape.push(d / prev);
        result_stride.push(d * s);
        modes.remove(min_idx);
    }
    let (s, d) = modes[0];
    let prev = *result_stride.last().expect("never empty");
    if d / prev == 0 {
        return Err(non_injective(d, prev));
    }
    result_shape.push(d / prev);
    let new_stride = d * s;
    let rest_shape = ceil_div_tuple(cotarget, new_stride).size();
    let rest_stride = if rest_shape == 1 { 0 } else { new_stride };
    let shape = IntTuple::tuple([IntTuple::ints(&result_shape), IntTuple::Int(rest_shape)]);
    let stride = IntTuple::tuple([IntTuple::ints(&result_stride), IntTuple::Int(rest_stride)]);
    Ok(coalesce(&Layout::from_parts(shape, stride)))
}

/// The complement of `layout` up to `cotarget` (CuTe's `complement`): the
/// ordered layout `R` whose image avoids the image of `layout`, so that
/// `(layout, R)` repeats `layout` to cover at least `cotarget` indices.
///
/// For an injective `layout` whose sorted strides divide each other's spans
/// (`d[i+1]` a multiple of `s[i]*d[i]`), `(layout, R)` is a bijection onto
/// `[0, size(layout)*size(R))`. Fails on a negative stride of a mode of
/// extent above 1 (size-1 modes are filtered away first) and where CuTe
/// detects a non-injective layout.
///
/// ```
/// use cutlet::layout::{complement, Layout};
/// let c = |l: &str, m| complement(&l.parse::<Layout>().unwrap(), m).unwrap().to_string();
/// assert_eq!(c("4:1", 24), "6:4");
/// assert_eq!(c("6:4", 24), "4:1");
/// assert_eq!(c("(4,6):(1,4)", 24), "1:0");
/// assert_eq!(c("4:2", 24), "(2,3):(1,8)");
/// assert_eq!(c("(2,4):(1,6)", 24), "3:2");
/// assert_eq!(c("(2,2):(1,6)", 24), "(3,2):(2,12)");
/// ```
pub fn complement(layout: &Layout, cotarget: i64) -> Result<Layout, LayoutError> {
    complement_to(layout, &IntTuple::Int(cotarget))
}
