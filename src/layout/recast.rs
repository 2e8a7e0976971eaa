//! Recasting layouts between element types of different widths.

use super::coalesce::coalesce;
use super::composition::{ceil_div, compose_layouts};
use super::inverse::right_inverse;
use super::validate::{self, inadmissible};
use super::{IntTuple, Layout, LayoutError};

fn positive_factor(op: &'static str, what: &str, n: i64) -> Result<(), LayoutError> {
    if n < 1 {
        return Err(inadmissible(
            op,
            format!("{what} {n} is not positive, expected >= 1"),
        ));
    }
    Ok(())
}

fn upcast_leaf(layout: &Layout, s: i64, d: i64, n: i64) -> Result<(i64, i64), LayoutError> {
    if d == 0 {
        return Ok((s, 0));
    }
    if d % n != 0 && n % d != 0 {
        return Err(inadmissible(
            "upcast",
            format!("stride {d} of {layout} and the factor {n} do not divide one another"),
        ));
    }
    Ok((
        ceil_div(s, ceil_div(n, d.abs())),
        d.signum() * ceil_div(d.abs(), n),
    ))
}

fn upcast_tuple(
    layout: &Layout,
    s: &IntTuple,
    d: &IntTuple,
    n: i64,
) -> Result<(IntTuple, IntTuple), LayoutError> {
    match (s, d) {
        (IntTuple::Int(s), IntTuple::Int(d)) => {
            let (s, d) = upcast_leaf(layout, *s, *d, n)?;
            Ok((IntTuple::Int(s), IntTuple::Int(d)))
        }
        _ => {
            let (shapes, strides) = s
                .modes()
                .iter()
                .zip(d.modes())
                .map(|(s, d)| upcast_tuple(layout, s, &d, n))
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .unzip();
            Ok((IntTuple::Tuple(shapes), IntTuple::Tuple(strides)))
        }
    }
}

/// The layout of the same data seen as elements `n` times wider (CuTe's
/// `upcast<N>`): stride-±1 modes shrink by `n`, other strides are divided by
/// `n`, stride-0 modes are kept. Fails unless every nonzero stride and `n`
/// divide one another.
///
/// ```
/// use cutlet::layout::{upcast, Layout};
/// let l: Layout = "(4,(8,2)):(8,(1,32))".parse().unwrap();
/// assert_eq!(upcast(&l, 2).unwrap().to_string(), "(4,(4,2)):(4,(1,16))");
/// ```
pub fn upcast(layout: &Layout, n: i64) -> Result<Layout, LayoutError> {
    validate::layout("upcast", layout)?;
    positive_factor("upcast", "the factor", n)?;
    let (s, d) = upcast_tuple(layout, layout.shape(), layout.stride(), n)?;
    Ok(Layout::from_parts(s, d))
}

/// The layout of the same data seen as elements `n` times narrower (CuTe's
/// `downcast<N>`): stride-±1 modes grow by `n`, other strides are multiplied
/// by `n`. Fails unless some mode has stride 1.
///
/// ```
/// use cutlet::layout::{downcast, Layout};
/// let l: Layout = "(4,(4,2)):(4,(1,16))".parse().unwrap();
/// assert_eq!(downcast(&l, 2).unwrap().to_string(), "(4,(8,2)):(8,(1,32))");
/// ```
pub fn downcast(layout: &Layout, n: i64) -> Result<Layout, LayoutError> {
    validate::layout("downcast", layout)?;
    positive_factor("downcast", "the factor", n)?;
    if !layout.stride().flatten().contains(&1) {
        return Err(inadmissible(
            "downcast",
            format!("layout {layout} has no stride-1 mode, expected adjacent elements"),
        ));
    }
    let shape = layout
        .shape()
        .zip_with(layout.stride(), &|s, d| {
            if d.abs() == 1 {
                s * n
            } else {
                s
            }
        })
        .expect("a layout's shape and stride are congruent");
    let stride = layout
        .stride()
        .map(&|d| if d.abs() == 1 { d } else { d * n });
    Ok(Layout::from_parts(shape, stride))
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The layout of the same data recast from `old_bits`-wide to `new_bits`-wide
/// elements (CuTe's `recast_layout<Old, New>`): with `new/old = num/den` in
/// lowest terms, an upcast by `num` followed by a downcast by `den`.
///
/// ```
/// use cutlet::layout::{recast, Layout};
/// let l: Layout = "(8,4):(1,8)".parse().unwrap();
/// assert_eq!(recast(&l, 16, 32).unwrap().to_string(), "(4,4):(1,4)");
/// assert_eq!(recast(&l, 32, 8).unwrap().to_string(), "(32,4):(1,32)");
/// ```
pub fn recast(layout: &Layout, old_bits: i64, new_bits: i64) -> Result<Layout, LayoutError> {
    positive_factor("recast", "the old element width", old_bits)?;
    positive_factor("recast", "the new element width", new_bits)?;
    let g = gcd(new_bits, old_bits);
    let (num, den) = (new_bits / g, old_bits / g);
    match (num, den) {
        (1, 1) => {
            validate::layout("recast", layout)?;
            Ok(layout.clone())
        }
        (1, _) => downcast(layout, den),
        (_, 1) => upcast(layout, num),
        _ => downcast(&upcast(layout, num)?, den),
    }
}

/// The number of contiguous elements on which `a` and `b` agree, starting at
/// index 0 (CuTe's `max_common_vector`): the stride-1 front of
/// `coalesce(a o right_inverse(b))`, or 1 when there is none or the
/// composition is not admissible.
///
/// ```
/// use cutlet::layout::{max_common_vector, Layout};
/// let a: Layout = "(8,4):(1,8)".parse().unwrap();
/// let b: Layout = "(8,4):(4,1)".parse().unwrap();
/// assert_eq!(max_common_vector(&a, &a), 32);
/// assert_eq!(max_common_vector(&a, &b), 1);
/// ```
pub fn max_common_vector(a: &Layout, b: &Layout) -> i64 {
    match compose_layouts(a, &right_inverse(b)) {
        Ok(common) => {
            let front = coalesce(&common).modes()[0].clone();
            if front.stride().as_int() == Some(1) {
                front.size()
            } else {
                1
            }
        }
        Err(_) => 1,
    }
}
