//! Static (type-level) layouts lower to the same values as parsed ones.

use cutlet::layout::{Layout, StaticIntTuple, StaticLayout, StaticSwizzle, Swizzle};
use typenum::{N3, P3, U0, U1, U128, U16, U2, U3, U4, U5, U6, U7, U8};

#[test]
fn static_layout_matches_notation() {
    type L = StaticLayout<(U4, (U2, U2)), (U2, (U1, U8))>;
    let parsed: Layout = "(4,(2,2)):(2,(1,8))".parse().unwrap();
    assert_eq!(L::layout(), parsed);
    assert_eq!(L::SIZE, 16);
    assert_eq!(L::RANK, 2);
}

#[test]
fn rank_one_and_zero_strides() {
    type L = StaticLayout<U128, U0>;
    assert_eq!(L::layout().to_string(), "128:0");
    assert_eq!(L::SIZE, 128);
}

#[test]
fn arity_eight_tuples() {
    type S = (U1, U2, U3, U4, U5, U6, U7, U8);
    assert_eq!(S::value().to_string(), "(1,2,3,4,5,6,7,8)");
    assert_eq!(<S as StaticIntTuple>::SIZE, 40320);
    assert_eq!(<S as StaticIntTuple>::RANK, 8);
    type L = StaticLayout<S, S>;
    assert_eq!(L::layout().stride().to_string(), "(1,2,3,4,5,6,7,8)");
}

#[test]
fn static_swizzle_lowers_to_its_value() {
    assert_eq!(
        StaticSwizzle::<U3, U3, P3>::value(),
        Swizzle::new(3, 3, 3).unwrap()
    );
    assert_eq!(
        StaticSwizzle::<U2, U4, N3>::value().to_string(),
        "Sw<2,4,-3>"
    );
    assert_eq!(
        StaticSwizzle::<U0, U16, P3>::value().to_string(),
        "Sw<0,16,3>"
    );
}
