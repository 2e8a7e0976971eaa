//! Compact layouts whose strides follow a given order of the modes.

use super::validate::{self, inadmissible};
use super::{IntTuple, Layout, LayoutError};

/// The shape's extents at the leaves of `order` (CuTe's `product_like`), flat.
fn products_at_order_leaves(shape: &IntTuple, order: &IntTuple, out: &mut Vec<i64>) {
    match (shape, order) {
        (IntTuple::Tuple(s), IntTuple::Tuple(o)) => s
            .iter()
            .zip(o)
            .for_each(|(s, o)| products_at_order_leaves(s, o, out)),
        _ => out.push(shape.size()),
    }
}

/// Compact strides of `shape` starting at `start`, column-major, size-1 modes stride 0.
fn compact_from(shape: &IntTuple, start: &mut i64) -> IntTuple {
    match shape {
        IntTuple::Int(1) => IntTuple::Int(0),
        IntTuple::Int(n) => {
            let d = *start;
            *start *= n;
            IntTuple::Int(d)
        }
        IntTuple::Tuple(m) => IntTuple::tuple(m.iter().map(|x| compact_from(x, start))),
    }
}

/// The strides for `shape` under `order`; `None` unless `order` is weakly
/// congruent to `shape` (a tuple of the same rank wherever `order` has one).
fn ordered_strides(shape: &IntTuple, order: &IntTuple, refs: &[(i64, i64)]) -> Option<IntTuple> {
    match (shape, order) {
        (IntTuple::Tuple(s), IntTuple::Tuple(o)) if s.len() == o.len() => s
            .iter()
            .zip(o)
            .map(|(s, o)| ordered_strides(s, o, refs))
            .collect::<Option<Vec<_>>>()
            .map(IntTuple::Tuple),
        (_, IntTuple::Int(rank)) => {
            let mut start = refs
                .iter()
                .filter(|&&(_, o)| o < *rank)
                .map(|&(s, _)| s)
                .product();
            Some(compact_from(shape, &mut start))
        }
        _ => None,
    }
}

/// A compact layout of `shape` whose modes take strides in the order given by
/// `order` (CuTe's `make_ordered_layout`): the mode with the smallest order
/// value gets stride 1, and so on. A leaf of `order` may stand for a whole
/// sub-shape, which is then laid out column-major. Size-1 modes get stride 0.
///
/// ```
/// use cutlet::layout::make_ordered_layout;
/// let l = make_ordered_layout(&"(2,2,2,2)".parse().unwrap(), &"(0,2,3,1)".parse().unwrap()).unwrap();
/// assert_eq!(l.to_string(), "(2,2,2,2):(1,4,8,2)");
/// let l = make_ordered_layout(&"((4,2),3)".parse().unwrap(), &"(1,0)".parse().unwrap()).unwrap();
/// assert_eq!(l.to_string(), "((4,2),3):((3,12),1)");
/// ```
pub fn make_ordered_layout(shape: &IntTuple, order: &IntTuple) -> Result<Layout, LayoutError> {
    validate::positive_shape("make_ordered_layout", shape)?;
    let mut sizes = Vec::new();
    products_at_order_leaves(shape, order, &mut sizes);
    let refs: Vec<(i64, i64)> = sizes.into_iter().zip(order.flatten()).collect();
    let stride = ordered_strides(shape, order, &refs).ok_or_else(|| {
        inadmissible(
            "make_ordered_layout",
            format!("the order {order} does not match the shape {shape}: expected a tuple of the same rank wherever the order has one"),
        )
    })?;
    Ok(Layout::from_parts(shape.clone(), stride))
}
