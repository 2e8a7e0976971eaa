//! Right and left inverses of a layout.

use super::coalesce::{coalesce, flat_modes};
use super::validate::{self, inadmissible};
use super::{IntTuple, Layout, LayoutError};

/// Mode indices of `strides` in increasing stride order, sorted exactly as
/// CuTe's `detail::SortByKey` does (an exchange sort, which is not stable).
fn sorted_by_stride(strides: &[i64]) -> Vec<usize> {
    let mut pairs: Vec<(i64, usize)> = strides.iter().copied().zip(0..).collect();
    for i in 0..pairs.len() {
        for j in i + 1..pairs.len() {
            if pairs[j].0 < pairs[i].0 {
                pairs.swap(i, j);
            }
        }
    }
    pairs.into_iter().map(|(_, i)| i).collect()
}

/// Exclusive prefix products of `shapes`.
fn prefix_products(shapes: &[i64]) -> Vec<i64> {
    let mut acc = 1;
    shapes
        .iter()
        .map(|&s| {
            let p = acc;
            acc *= s;
            p
        })
        .collect()
}

/// The layout of the given modes, nested as `(shape...):(stride...)` then coalesced.
fn coalesced(shape: Vec<i64>, stride: Vec<i64>) -> Layout {
    coalesce(&Layout::from_parts(
        IntTuple::ints(&shape),
        IntTuple::ints(&stride),
    ))
}

/// The right inverse of `layout` (CuTe's `right_inverse`): the largest
/// layout `R` of the form CuTe builds with `layout(R(i)) == i` for every
/// `i < size(R)`. Modes with zero or negative stride never take part.
///
/// ```
/// use cutlet::layout::{right_inverse, Layout};
/// let l: Layout = "(4,8):(8,1)".parse().unwrap();
/// assert_eq!(right_inverse(&l).to_string(), "(8,4):(4,1)");
/// let l: Layout = "(2,4):(1,4)".parse().unwrap(); // index 2 is not reached
/// assert_eq!(right_inverse(&l).to_string(), "2:1");
/// ```
pub fn right_inverse(layout: &Layout) -> Layout {
    let modes = flat_modes(&coalesce(layout));
    let shapes: Vec<i64> = modes.iter().map(|&(s, _)| s).collect();
    let strides: Vec<i64> = modes.iter().map(|&(_, d)| d).collect();
    let preprod = prefix_products(&shapes);
    let (mut shape, mut stride, mut curr) = (vec![1], vec![0], 1);
    for i in sorted_by_stride(&strides) {
        if strides[i] == curr {
            shape.push(shapes[i]);
            stride.push(preprod[i]);
            curr = shapes[i] * strides[i];
        }
    }
    coalesced(shape, stride)
}

/// The left (quasi-)inverse of `layout` (CuTe's `left_inverse`): a layout
/// `L` with `L(layout(i)) == i` for every `i < size(layout)` when `layout`
/// is injective. Stride-0 modes are skipped.
///
/// Fails on a negative stride of a mode of extent above 1 (size-1 modes are
/// coalesced away first) and where CuTe's divisibility assert fails
/// (a stride that is not a multiple of the span of the smaller ones).
///
/// ```
/// use cutlet::layout::{left_inverse, Layout};
/// let l: Layout = "(4,8):(8,1)".parse().unwrap();
/// assert_eq!(left_inverse(&l).unwrap().to_string(), "(8,4):(4,1)");
/// let l: Layout = "4:2".parse().unwrap();
/// assert_eq!(left_inverse(&l).unwrap().to_string(), "(2,4):(0,1)");
/// ```
pub fn left_inverse(layout: &Layout) -> Result<Layout, LayoutError> {
    validate::layout_nonneg("left_inverse", layout)?;
    let modes = flat_modes(&coalesce(layout));
    let shapes: Vec<i64> = modes.iter().map(|&(s, _)| s).collect();
    let strides: Vec<i64> = modes.iter().map(|&(_, d)| d).collect();
    let preprod = prefix_products(&shapes);
    let sorted = sorted_by_stride(&strides);
    let (mut shape, mut stride, mut covered) = (Vec::new(), vec![0], 1);
    for &i in &sorted {
        let d = strides[i];
        if d == 0 {
            continue;
        }
        if d % covered != 0 {
            return Err(inadmissible(
                "left_inverse",
                format!(
                    "left inverse divisibility condition fails for {layout}: stride {d} is not a multiple of {covered}"
                ),
            ));
        }
        shape.push(d / covered);
        stride.push(preprod[i]);
        covered *= d / covered;
    }
    let last = *sorted.last().expect("a coalesced layout has a mode");
    shape.push(shapes[last]);
    Ok(coalesced(shape, stride))
}
