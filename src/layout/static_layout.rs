//! Layouts and swizzles whose sizes are types (CuTe's `Layout<Shape<_4,_2>,
//! Stride<_2,_1>>` and `Swizzle<3,3,3>`).
//!
//! A configuration is a type, and its static sizes are typenum numbers
//! (`docs/design.md`): a [`StaticLayout`] is a zero-sized type whose shape and
//! stride are [`StaticIntTuple`]s, checked congruent by the compiler. It
//! lowers to the run-time value with [`StaticLayout::layout`]. Dynamic values,
//! where a size is known only at run time, are simply the plain value
//! [`Layout`]: there is no mixed static/dynamic layout type; the kernel spec a
//! static configuration lowers to holds plain `Layout`s either way.

use std::fmt;
use std::marker::PhantomData;

use typenum::{Integer, Unsigned};

use super::layout::Layout;
use super::static_tuple::{Congruent, StaticIntTuple};
use super::swizzle::Swizzle;

/// A layout fixed at compile time: `Shape:Stride` as types.
///
/// ```
/// use cutlet::layout::StaticLayout;
/// use typenum::{U1, U2, U4, U8};
/// type L = StaticLayout<(U4, (U2, U2)), (U2, (U1, U8))>;
/// assert_eq!(L::layout().to_string(), "(4,(2,2)):(2,(1,8))");
/// assert_eq!(L::SIZE, 16);
/// assert_eq!(std::mem::size_of::<L>(), 0);
/// ```
///
/// A shape and a stride that are not congruent do not compile:
///
/// ```compile_fail
/// use cutlet::layout::StaticLayout;
/// use typenum::{U1, U2, U4};
/// let _ = StaticLayout::<(U4, U2), U1>::layout();
/// ```
pub struct StaticLayout<Shape, Stride>(PhantomData<(Shape, Stride)>)
where
    Shape: StaticIntTuple + Congruent<Stride>,
    Stride: StaticIntTuple;

impl<Shape, Stride> StaticLayout<Shape, Stride>
where
    Shape: StaticIntTuple + Congruent<Stride>,
    Stride: StaticIntTuple,
{
    /// The domain size, the product of the shape.
    pub const SIZE: usize = Shape::SIZE;

    /// The number of top-level modes.
    pub const RANK: usize = Shape::RANK;

    /// The layout as a run-time value.
    pub fn layout() -> Layout {
        Layout::from_parts(Shape::value(), Stride::value())
    }
}

impl<Shape, Stride> fmt::Debug for StaticLayout<Shape, Stride>
where
    Shape: StaticIntTuple + Congruent<Stride>,
    Stride: StaticIntTuple,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StaticLayout({})", Self::layout())
    }
}

/// A swizzle fixed at compile time: `Swizzle<B,M,S>` with typenum `B` and `M`
/// (unsigned) and `S` (signed: `P3`, `N3`, ...).
///
/// ```
/// use cutlet::layout::StaticSwizzle;
/// use typenum::{P3, U3};
/// assert_eq!(StaticSwizzle::<U3, U3, P3>::value().to_string(), "Sw<3,3,3>");
/// ```
///
/// Parameters CuTe rejects do not compile (here `|S| < B`):
///
/// ```compile_fail
/// use cutlet::layout::StaticSwizzle;
/// use typenum::{P1, U3};
/// let _ = StaticSwizzle::<U3, U3, P1>::value();
/// ```
pub struct StaticSwizzle<B: Unsigned, M: Unsigned, S: Integer>(PhantomData<(B, M, S)>);

impl<B: Unsigned, M: Unsigned, S: Integer> StaticSwizzle<B, M, S> {
    /// Fails the build for parameters [`Swizzle::new`] would reject.
    const CHECK: () = assert!(
        S::I64.abs() >= B::I64 && B::I64 + M::I64 + S::I64.abs() <= 62,
        "StaticSwizzle<B, M, S> needs |S| >= B and B + M + |S| <= 62"
    );

    /// The swizzle as a run-time value.
    pub fn value() -> Swizzle {
        #[allow(clippy::let_unit_value)]
        let () = Self::CHECK;
        Swizzle::from_checked(B::U32, M::U32, S::I32)
    }
}
