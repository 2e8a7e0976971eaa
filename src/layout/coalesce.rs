//! Coalesce and filter: simplify a layout without changing it as a function.

use super::validate::{self, inadmissible};
use super::{IntTuple, Layout, LayoutError};

/// The flattened modes of `layout` as `(shape, stride)` pairs, left to right.
pub(crate) fn flat_modes(layout: &Layout) -> Vec<(i64, i64)> {
    let shape = layout.shape().flatten();
    let stride = layout.stride().flatten();
    shape.into_iter().zip(stride).collect()
}

/// The layout of `modes`: an integer layout for one mode, a flat tuple otherwise.
pub(crate) fn from_flat_modes(modes: &[(i64, i64)]) -> Layout {
    match modes {
        [(s, d)] => Layout::from_parts(IntTuple::Int(*s), IntTuple::Int(*d)),
        _ => Layout::from_parts(
            IntTuple::tuple(modes.iter().map(|&(s, _)| IntTuple::Int(s))),
            IntTuple::tuple(modes.iter().map(|&(_, d)| IntTuple::Int(d))),
        ),
    }
}

/// CuTe's `bw_coalesce`: folds `modes` right to left onto the starting mode `last`.
fn bw_coalesce(modes: &[(i64, i64)], last: (i64, i64)) -> Layout {
    // `acc` holds the result reversed: its last element is the result's front.
    let mut acc = vec![last];
    for &(s, d) in modes.iter().rev() {
        if s == 1 {
            continue;
        }
        if acc.len() == 1 && acc[0].0 == 1 {
            acc[0] = (s, d);
            continue;
        }
        let front = acc.last_mut().expect("acc is never empty");
        if s * d == front.1 {
            *front = (s * front.0, d);
        } else {
            acc.push((s, d));
        }
    }
    if acc.len() == 1 && acc[0].0 == 1 {
        return Layout::unit();
    }
    acc.reverse();
    from_flat_modes(&acc)
}

/// Combines the modes of `layout` that can be combined (CuTe's `coalesce`).
///
/// The result is flat (depth at most 1), has the same size, and agrees with
/// `layout` at every index below its size. Size-1 modes are dropped; a layout
/// of size 1 becomes `1:0`.
///
/// ```
/// use cutlet::layout::{coalesce, Layout};
/// let l: Layout = "(2,(1,6)):(1,(6,2))".parse().unwrap();
/// assert_eq!(coalesce(&l).to_string(), "12:1");
/// let l: Layout = "(4,(2,3)):(2,(1,8))".parse().unwrap();
/// assert_eq!(coalesce(&l).to_string(), "(4,2,3):(2,1,8)");
/// ```
pub fn coalesce(layout: &Layout) -> Layout {
    let modes = flat_modes(layout);
    match modes.split_last() {
        Some((&last, rest)) => bw_coalesce(rest, last),
        None => Layout::unit(),
    }
}

/// CuTe's `detail::coalesce_x`: like [`coalesce`], but also keeps the function
/// beyond the domain, by treating a trailing size-1 mode as size 2.
pub(crate) fn coalesce_x(layout: &Layout) -> Layout {
    let modes = flat_modes(layout);
    match modes.split_last() {
        Some((&(1, d), rest)) => bw_coalesce(rest, (2, d)),
        Some((&last, rest)) => bw_coalesce(rest, last),
        None => Layout::unit(),
    }
}

/// Applies `f` at the terminals of `profile`, keeping the modes of `layout`
/// that the profile does not reach (CuTe's `transform_layout` with a profile).
fn by_profile(
    op: &'static str,
    layout: &Layout,
    profile: &IntTuple,
    f: &impl Fn(&Layout) -> Layout,
) -> Result<Layout, LayoutError> {
    match profile {
        IntTuple::Int(_) => Ok(f(layout)),
        IntTuple::Tuple(parts) => {
            if parts.len() > layout.rank() {
                return Err(inadmissible(
                    op,
                    format!(
                        "the profile {profile} has {} modes but the layout {layout} has rank {}, expected at most as many modes as the layout",
                        parts.len(),
                        layout.rank()
                    ),
                ));
            }
            let modes = layout.modes();
            let mut out = Vec::with_capacity(modes.len());
            for (i, mode) in modes.iter().enumerate() {
                out.push(match parts.get(i) {
                    Some(p) => by_profile(op, mode, p, f)?,
                    None => mode.clone(),
                });
            }
            Ok(Layout::from_modes(out))
        }
    }
}

/// Coalesces each sublayout at the terminals of `profile` (CuTe's
/// `coalesce(layout, trg_profile)`); only the profile's structure matters.
///
/// Fails when the profile has more modes than the layout it applies to.
///
/// ```
/// use cutlet::layout::{coalesce_by_mode, Layout};
/// let l: Layout = "(2,(1,6)):(1,(6,2))".parse().unwrap();
/// let r = coalesce_by_mode(&l, &"(1,1)".parse().unwrap()).unwrap();
/// assert_eq!(r.to_string(), "(2,6):(1,2)");
/// ```
pub fn coalesce_by_mode(layout: &Layout, profile: &IntTuple) -> Result<Layout, LayoutError> {
    validate::layout("coalesce", layout)?;
    by_profile("coalesce", layout, profile, &coalesce)
}

/// Replaces the extent of every stride-0 mode by 1 (CuTe's `filter_zeros`).
///
/// ```
/// use cutlet::layout::{filter_zeros, Layout};
/// let l: Layout = "(4,(2,3)):(0,(1,0))".parse().unwrap();
/// assert_eq!(filter_zeros(&l).to_string(), "(1,(2,1)):(0,(1,0))");
/// ```
pub fn filter_zeros(layout: &Layout) -> Layout {
    let shape = layout
        .stride()
        .zip_with(layout.shape(), &|d, s| if d == 0 { 1 } else { s })
        .expect("a layout's shape and stride are congruent");
    Layout::from_parts(shape, layout.stride().clone())
}

/// Removes every stride-0 and size-1 mode, then coalesces (CuTe's `filter`).
///
/// The result has the same image as `layout`; it is `1:0` when nothing is left.
///
/// ```
/// use cutlet::layout::{filter, Layout};
/// let l: Layout = "(4,(2,3),1):(0,(1,2),7)".parse().unwrap();
/// assert_eq!(filter(&l).to_string(), "6:1");
/// let l: Layout = "(4,2):(0,0)".parse().unwrap();
/// assert_eq!(filter(&l).to_string(), "1:0");
/// ```
pub fn filter(layout: &Layout) -> Layout {
    coalesce(&filter_zeros(layout))
}
