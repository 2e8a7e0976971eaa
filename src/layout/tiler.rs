//! Tilers: what the divides and products take as their second argument.

use std::fmt;

use super::int_tuple::IntTuple;
use super::layout::Layout;

/// The second argument of a divide or product (CuTe's `Tiler`).
///
/// A tiler is a layout, applied to the whole first argument, or a tuple of
/// tilers applied mode by mode (by-mode). A bare shape is a by-mode tiler of
/// compact layouts: `(1,8)` is `[1:0, 8:1]`, as in CuTe.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum Tiler {
    /// One layout for the whole argument.
    Layout(Layout),
    /// One tiler per mode of the argument (written `[T0, T1, ...]`).
    ByMode(Vec<Tiler>),
}

impl Tiler {
    /// The by-mode tiler of a shape: an integer `n` is the layout `n:1`
    /// (`1:0` for 1), a tuple is a by-mode tiler of its modes.
    ///
    /// ```
    /// use cutlet::layout::Tiler;
    /// let t = Tiler::from_shape(&"(1,8)".parse().unwrap());
    /// assert_eq!(t.to_string(), "[1:0,8:1]");
    /// ```
    pub fn from_shape(shape: &IntTuple) -> Tiler {
        match shape {
            IntTuple::Int(_) => Tiler::Layout(Layout::col_major(shape.clone())),
            IntTuple::Tuple(m) => Tiler::ByMode(m.iter().map(Tiler::from_shape).collect()),
        }
    }

    /// The tiler CuTe's `composition` makes of a bare shape: an integer `n`
    /// is `n:1` even for `n = 1` (an integral tiler keeps stride 1, where
    /// [`Tiler::from_shape`], as the divides and products use it, gives
    /// `make_layout(_1)`, `1:0`), a tuple is by-mode.
    ///
    /// ```
    /// use cutlet::layout::{composition, Tiler};
    /// let t = Tiler::from_shape_for_composition(&"(1,8)".parse().unwrap());
    /// assert_eq!(t.to_string(), "[1:1,8:1]");
    /// let l = composition(&"3:8".parse().unwrap(), &Tiler::from_shape_for_composition(&1.into()));
    /// assert_eq!(l.unwrap().to_string(), "1:8");
    /// ```
    pub fn from_shape_for_composition(shape: &IntTuple) -> Tiler {
        match shape {
            IntTuple::Int(n) => {
                Tiler::Layout(Layout::from_parts(IntTuple::Int(*n), IntTuple::Int(1)))
            }
            IntTuple::Tuple(m) => {
                Tiler::ByMode(m.iter().map(Tiler::from_shape_for_composition).collect())
            }
        }
    }

    /// The tiler as one layout: a by-mode tiler becomes the layout whose modes
    /// are its parts (CuTe's `make_layout(T0, T1, ...)`).
    pub fn to_layout(&self) -> Layout {
        match self {
            Tiler::Layout(l) => l.clone(),
            Tiler::ByMode(m) => Layout::from_modes(m.iter().map(Tiler::to_layout)),
        }
    }
}

impl From<Layout> for Tiler {
    fn from(l: Layout) -> Self {
        Tiler::Layout(l)
    }
}

impl fmt::Display for Tiler {
    /// A layout in CuTe notation; a by-mode tiler as `[T0,T1,...]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tiler::Layout(l) => write!(f, "{l}"),
            Tiler::ByMode(m) => {
                f.write_str("[")?;
                for (i, t) in m.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str("]")
            }
        }
    }
}

impl fmt::Debug for Tiler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tiler({self})")
    }
}
