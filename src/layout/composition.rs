//! Functional composition of layouts: `(A o B)(i) == A(B(i))`.

use super::coalesce::{coalesce_x, flat_modes};
use super::validate::{self, inadmissible};
use super::{IntTuple, Layout, LayoutError, Tiler};

/// CuTe's `ceil_div` of two integers (`b >= 1`).
pub(crate) fn ceil_div(a: i64, b: i64) -> i64 {
    (a + b - 1) / b
}

/// Why [`compose_flat`] cannot compose; the caller adds the layouts.
#[derive(Debug)]
enum Refusal<'a> {
    /// The right layout's shape and stride differ in structure.
    NotCongruent(&'a IntTuple, &'a IntTuple),
    /// The left layout has no modes.
    EmptyLeft,
    /// A stride of the right layout neither divides nor is below an extent of the left.
    StrideDivisibility { stride: i64, extent: i64 },
    /// An extent of the right layout is not a multiple of the extent it reaches.
    ShapeDivisibility { extent: i64, divisor: i64 },
}

impl std::fmt::Display for Refusal<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::NotCongruent(shape, stride) => {
                write!(f, "shape {shape} and stride {stride} are not congruent")
            }
            Refusal::EmptyLeft => write!(f, "the left layout is empty"),
            Refusal::StrideDivisibility { stride, extent } => write!(
                f,
                "stride divisibility condition fails: stride {stride} is neither a multiple of nor less than the extent {extent}"
            ),
            Refusal::ShapeDivisibility { extent, divisor } => write!(
                f,
                "shape divisibility condition fails: extent {extent} is not a multiple of {divisor}"
            ),
        }
    }
}

/// `lhs o (rs:rd)` for a coalesced `lhs` given by its flat modes (one mode
/// means an integral lhs). Errors carry only the detail; the caller adds context.
fn compose_flat<'a>(
    lhs: &[(i64, i64)],
    rs: &'a IntTuple,
    rd: &'a IntTuple,
) -> Result<Layout, Refusal<'a>> {
    let (rs, rd) = match (rs, rd) {
        (IntTuple::Tuple(s), IntTuple::Tuple(d)) => {
            let modes = s
                .iter()
                .zip(d)
                .map(|(s, d)| compose_flat(lhs, s, d))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(Layout::from_modes(modes));
        }
        (IntTuple::Int(s), IntTuple::Int(d)) => (*s, *d),
        _ => return Err(Refusal::NotCongruent(rs, rd)),
    };
    let int = |s: i64, d: i64| Layout::from_parts(IntTuple::Int(s), IntTuple::Int(d));
    if rd == 0 {
        return Ok(int(rs, 0));
    }
    let Some((&(_, last_stride), init)) = lhs.split_last() else {
        return Err(Refusal::EmptyLeft);
    };
    if init.is_empty() {
        return Ok(int(rs, rd * last_stride));
    }
    let mut result: Vec<(i64, i64)> = Vec::new();
    let (mut rest_shape, mut rest_stride) = (rs, rd);
    for &(curr_shape, curr_stride) in init {
        if !(rest_stride % curr_shape == 0 || rest_stride < curr_shape) {
            return Err(Refusal::StrideDivisibility {
                stride: rest_stride,
                extent: curr_shape,
            });
        }
        let next_shape = ceil_div(curr_shape, rest_stride.abs());
        let next_stride = ceil_div(rest_stride.abs(), curr_shape) * rest_stride.signum();
        if next_shape != 1 && rest_shape != 1 {
            let new_shape = next_shape.min(rest_shape);
            if rest_shape % new_shape != 0 {
                return Err(Refusal::ShapeDivisibility {
                    extent: rest_shape,
                    divisor: new_shape,
                });
            }
            result.push((new_shape, rest_stride * curr_stride));
            rest_shape /= new_shape;
        }
        rest_stride = next_stride;
    }
    if result.is_empty() {
        return Ok(int(rest_shape, rest_stride * last_stride));
    }
    if rest_shape != 1 {
        result.push((rest_shape, rest_stride * last_stride));
    }
    Ok(super::coalesce::from_flat_modes(&result))
}

/// `a o b` for two layouts, `b` taken as a whole (CuTe's `composition(Layout, Layout)`).
pub(crate) fn compose_layouts(a: &Layout, b: &Layout) -> Result<Layout, LayoutError> {
    let flat = flat_modes(&coalesce_x(a));
    compose_flat(&flat, b.shape(), b.stride())
        .map_err(|detail| inadmissible("composition", format!("{a} o {b}: {detail}")))
}

/// The composition `a o b` (CuTe's `composition`): the layout `R` compatible
/// with `b` such that `R(c) == a(b(c))` for every coordinate `c` of `b`.
///
/// A by-mode tiler composes mode by mode and drops the modes of `a` it does
/// not reach. Fails (as CuTe's static asserts do) when the strides of `b` do
/// not divide the shape of `a` evenly, or a by-mode tiler has too many modes.
///
/// ```
/// use cutlet::layout::{composition, Layout, Tiler};
/// let a: Layout = "(10,2):(16,4)".parse().unwrap();
/// let b: Layout = "(5,4):(1,5)".parse().unwrap();
/// assert_eq!(composition(&a, &b.into()).unwrap().to_string(), "(5,(2,2)):(16,(80,4))");
///
/// // By-mode: <3:4, 8:2>.
/// let a: Layout = "(12,(4,8)):(59,(13,1))".parse().unwrap();
/// let t = Tiler::ByMode(vec!["3:4".parse::<Layout>().unwrap().into(), "8:2".parse::<Layout>().unwrap().into()]);
/// assert_eq!(composition(&a, &t).unwrap().to_string(), "(3,(2,4)):(236,(26,1))");
/// ```
pub fn composition(a: &Layout, b: &Tiler) -> Result<Layout, LayoutError> {
    validate::layout("composition", a)?;
    validate::tiler("composition", b)?;
    compose_checked(a, b)
}

fn compose_checked(a: &Layout, b: &Tiler) -> Result<Layout, LayoutError> {
    match b {
        Tiler::Layout(l) => compose_layouts(a, l),
        Tiler::ByMode(parts) => {
            validate::by_mode_rank("composition", a, parts)?;
            let modes = a
                .modes()
                .iter()
                .zip(parts)
                .map(|(m, t)| compose_checked(m, t))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Layout::from_modes(modes))
        }
    }
}
