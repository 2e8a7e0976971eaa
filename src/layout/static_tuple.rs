//! Integer tuples as types: typenum numbers are the leaves, Rust tuples the
//! nodes (CuTe's `Shape<_4, Shape<_2,_2>>` is `(U4, (U2, U2))` here).

use typenum::{Bit, UInt, UTerm, Unsigned};

use super::int_tuple::IntTuple;

/// A hierarchical integer tuple known at compile time.
///
/// Implemented for typenum's unsigned integers (`U0`, `U4`, ...) and for Rust
/// tuples of up to 8 `StaticIntTuple`s.
///
/// ```
/// use cutlet::layout::StaticIntTuple;
/// use typenum::{U2, U4};
/// assert_eq!(<(U4, (U2, U2))>::value().to_string(), "(4,(2,2))");
/// assert_eq!(<(U4, (U2, U2)) as StaticIntTuple>::SIZE, 16);
/// assert_eq!(<U4 as StaticIntTuple>::value().to_string(), "4");
/// ```
pub trait StaticIntTuple {
    /// The product of all the integers.
    const SIZE: usize;
    /// Number of top-level modes (1 for an integer).
    const RANK: usize;
    /// The value, as a run-time [`IntTuple`].
    fn value() -> IntTuple;
}

impl StaticIntTuple for UTerm {
    const SIZE: usize = 0;
    const RANK: usize = 1;
    fn value() -> IntTuple {
        IntTuple::Int(0)
    }
}

impl<U: Unsigned, B: Bit> StaticIntTuple for UInt<U, B> {
    const SIZE: usize = <UInt<U, B> as Unsigned>::USIZE;
    const RANK: usize = 1;
    fn value() -> IntTuple {
        IntTuple::Int(<UInt<U, B> as Unsigned>::I64)
    }
}

/// `Self` has the same tuple structure as `Other` (CuTe's `congruent`), checked
/// by the type system: the shape and stride of a
/// [`StaticLayout`](super::StaticLayout) must be congruent.
#[diagnostic::on_unimplemented(
    message = "the static tuples `{Self}` and `{Other}` are not congruent",
    label = "this shape and its stride differ in tuple structure",
    note = "a static layout's shape and stride must have the same nesting, e.g. StaticLayout<(U4, (U2, U2)), (U2, (U1, U8))>"
)]
pub trait Congruent<Other> {}

impl Congruent<UTerm> for UTerm {}
impl<U: Unsigned, B: Bit> Congruent<UInt<U, B>> for UTerm {}
impl<U: Unsigned, B: Bit> Congruent<UTerm> for UInt<U, B> {}
impl<U: Unsigned, B: Bit, V: Unsigned, C: Bit> Congruent<UInt<V, C>> for UInt<U, B> {}

macro_rules! static_tuple_impls {
    ($( ($($a:ident $b:ident),+) )+) => {$(
        impl<$($a: StaticIntTuple),+> StaticIntTuple for ($($a,)+) {
            const SIZE: usize = 1 $(* $a::SIZE)+;
            const RANK: usize = [$(stringify!($a)),+].len();
            fn value() -> IntTuple {
                IntTuple::Tuple(vec![$($a::value()),+])
            }
        }

        impl<$($a: Congruent<$b>, $b),+> Congruent<($($b,)+)> for ($($a,)+) {}
    )+};
}

static_tuple_impls! {
    (A0 B0)
    (A0 B0, A1 B1)
    (A0 B0, A1 B1, A2 B2)
    (A0 B0, A1 B1, A2 B2, A3 B3)
    (A0 B0, A1 B1, A2 B2, A3 B3, A4 B4)
    (A0 B0, A1 B1, A2 B2, A3 B3, A4 B4, A5 B5)
    (A0 B0, A1 B1, A2 B2, A3 B3, A4 B4, A5 B5, A6 B6)
    (A0 B0, A1 B1, A2 B2, A3 B3, A4 B4, A5 B5, A6 B6, A7 B7)
}
