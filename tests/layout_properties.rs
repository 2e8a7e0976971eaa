//! Properties CuTe guarantees, checked on random small layouts.

use std::collections::HashSet;

use cutlet::layout::{
    coalesce, complement, composition, filter, left_inverse, logical_divide, logical_product,
    right_inverse, IntTuple, Layout,
};
use proptest::prelude::*;

/// A random layout of depth at most 2 with extents 1..=4 and strides 0..=12.
fn layout() -> impl Strategy<Value = Layout> {
    let leaf = (1i64..=4, 0i64..=12).prop_map(|(s, d)| (IntTuple::Int(s), IntTuple::Int(d)));
    let mode = prop_oneof![
        leaf.clone(),
        prop::collection::vec(leaf.clone(), 1..=2).prop_map(|v| {
            let (s, d): (Vec<_>, Vec<_>) = v.into_iter().unzip();
            (IntTuple::Tuple(s), IntTuple::Tuple(d))
        }),
    ];
    prop_oneof![
        leaf.prop_map(|(s, d)| Layout::from_parts(s, d)),
        prop::collection::vec(mode, 1..=3).prop_map(|v| {
            let (s, d): (Vec<_>, Vec<_>) = v.into_iter().unzip();
            Layout::from_parts(IntTuple::Tuple(s), IntTuple::Tuple(d))
        }),
    ]
}

/// A layout whose modes cannot overlap: a compact layout or a single mode.
fn composable_layout() -> impl Strategy<Value = Layout> {
    prop_oneof![
        compact_layout(),
        (1i64..=8, 0i64..=6)
            .prop_map(|(s, d)| Layout::from_parts(IntTuple::Int(s), IntTuple::Int(d))),
    ]
}

/// A random compact layout: a permutation of the column-major strides of a shape.
fn compact_layout() -> impl Strategy<Value = Layout> {
    prop::collection::vec(1i64..=4, 1..=3)
        .prop_flat_map(|shape| {
            let n = shape.len();
            (Just(shape), Just((0..n).collect::<Vec<_>>()).prop_shuffle())
        })
        .prop_map(|(shape, order)| {
            let mut stride = vec![0; shape.len()];
            let mut acc = 1;
            for &i in &order {
                stride[i] = acc;
                acc *= shape[i];
            }
            Layout::from_parts(IntTuple::ints(&shape), IntTuple::ints(&stride))
        })
}

/// True when every stride of `b` and every extent of `a` but the last that it
/// meets divide one another (CuTe's strong divisibility condition, on the
/// flattened `a`): then the composition is exact. CuTe checks only a weaker
/// condition, and where only that holds its result may differ from `a(b(i))`.
fn strongly_admissible(a: &Layout, b: &Layout) -> bool {
    let a_shape = a.shape().flatten();
    let inner: Vec<i64> = a_shape[..a_shape.len() - 1]
        .iter()
        .copied()
        .filter(|&s| s != 1)
        .collect();
    let shapes = b.shape().flatten();
    let strides = b.stride().flatten();
    shapes.iter().zip(&strides).all(|(&s, &d)| {
        let (mut rest_shape, mut rest_stride) = (s, d);
        if d == 0 {
            return true;
        }
        for &ai in &inner {
            if rest_shape == 1 {
                break;
            }
            if rest_stride % ai == 0 {
                rest_stride /= ai;
            } else if ai % rest_stride == 0 {
                let take = (ai / rest_stride).min(rest_shape);
                if rest_shape % take != 0 {
                    return false;
                }
                rest_shape /= take;
                rest_stride = 1;
            } else {
                return false;
            }
        }
        true
    })
}

fn image(l: &Layout) -> Vec<i64> {
    (0..l.size()).map(|i| l.at(i)).collect()
}

fn injective(l: &Layout) -> bool {
    let img = image(l);
    img.iter().collect::<HashSet<_>>().len() == img.len()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn coalesce_preserves_the_function(l in layout()) {
        let c = coalesce(&l);
        prop_assert_eq!(c.size(), l.size());
        prop_assert!(c.depth() <= 1);
        prop_assert_eq!(image(&c), image(&l));
    }

    #[test]
    fn filter_keeps_the_image_set(l in layout()) {
        let f = filter(&l);
        let a: HashSet<i64> = image(&l).into_iter().collect();
        let b: HashSet<i64> = image(&f).into_iter().collect();
        prop_assert_eq!(a, b);
    }

    #[test]
    fn composition_keeps_the_size_of_b(a in layout(), b in layout()) {
        // Inadmissible pairs are reported as errors; admissible ones keep b's size.
        if let Ok(r) = composition(&a, &b.clone().into()) {
            prop_assert_eq!(r.size(), b.size());
        }
    }

    #[test]
    fn composition_is_function_composition(a in layout(), b in composable_layout()) {
        // CuTe distributes composition over b's modes, which equals a(b(i)) when
        // b's modes reach disjoint parts of a (b compact, or of one mode) and the
        // strong divisibility condition holds.
        if let Ok(r) = composition(&a, &b.clone().into()) {
            prop_assert_eq!(r.size(), b.size());
            // Beyond a's domain a layout is only extrapolated, and coalescing
            // changes the extrapolation, so compare where b stays inside it.
            if !strongly_admissible(&a, &b) || b.cosize() > a.size() {
                return Ok(());
            }
            for i in 0..b.size() {
                prop_assert_eq!(r.at(i), a.at(b.at(i)), "at {} for {} o {} = {}", i, a, b, r);
            }
        }
    }

    #[test]
    fn complement_of_a_compact_layout_completes_it(l in compact_layout(), k in 1i64..=4) {
        // CuTe's guarantee: for an injective A whose sorted strides each divide
        // the span of the smaller ones (here: compact A), (A, complement(A, M))
        // is a bijection onto [0, size(A)*size(R)), and size(A)*size(R) >= M.
        let m = l.size() * k;
        let r = complement(&l, m).unwrap();
        let both = Layout::from_modes([l.clone(), r.clone()]);
        let img: HashSet<i64> = image(&both).into_iter().collect();
        prop_assert_eq!(img.len() as i64, both.size());
        prop_assert_eq!(img, (0..both.size()).collect::<HashSet<_>>());
        prop_assert!(both.size() >= m);
        // R is ordered: strictly increasing.
        let ri = image(&r);
        prop_assert!(ri.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn complement_avoids_the_image(l in layout(), m in 1i64..=64) {
        // Where CuTe accepts the layout, R(i) for i >= 1 never hits A's image
        // and R is strictly increasing.
        if let Ok(r) = complement(&l, m) {
            let a: HashSet<i64> = image(&l).into_iter().collect();
            let ri = image(&r);
            prop_assert!(ri.windows(2).all(|w| w[0] < w[1]), "{} vs {}", l, r);
            if injective(&l) {
                prop_assert!(ri.iter().skip(1).all(|x| !a.contains(x)), "{} vs {}", l, r);
            }
        }
    }

    #[test]
    fn right_inverse_inverts_on_the_image(l in layout()) {
        let r = right_inverse(&l);
        for i in 0..r.size() {
            prop_assert_eq!(l.at(r.at(i)), i, "{} with right inverse {}", l, r);
        }
    }

    #[test]
    fn left_inverse_inverts_injective_layouts(l in layout()) {
        prop_assume!(injective(&l));
        if let Ok(li) = left_inverse(&l) {
            for i in 0..l.size() {
                prop_assert_eq!(li.at(l.at(i)), i, "{} with left inverse {}", l, li);
            }
        }
    }

    #[test]
    fn left_inverse_of_compact_layouts_exists(l in compact_layout()) {
        let li = left_inverse(&l).unwrap();
        for i in 0..l.size() {
            prop_assert_eq!(li.at(l.at(i)), i);
        }
    }

    #[test]
    fn divide_then_product_round_trips_sizes(
        (t, extra) in (compact_layout(), prop::collection::vec(1i64..=4, 0..=2)),
    ) {
        // A compact tile whose size divides a column-major layout's: the tile
        // and rest sizes give back the layout's size, and so does the product.
        // (CuTe divides the shape of coalesce(a) mode by mode, so for a layout
        // that does not coalesce to one mode the rest can be larger.)
        let mut a_shape = t.shape().flatten();
        a_shape.extend(extra);
        let a = Layout::col_major(IntTuple::ints(&a_shape));
        prop_assert_eq!(a.size() % t.size(), 0);
        if let Ok(d) = logical_divide(&a, &t.clone().into()) {
            let tile = d.mode(0).unwrap();
            let rest = d.mode(1).unwrap();
            prop_assert_eq!(tile.size(), t.size());
            prop_assert_eq!(tile.size() * rest.size(), a.size());
            let p = logical_product(&tile, &rest.clone().into()).unwrap();
            prop_assert_eq!(p.size(), a.size());
            prop_assert_eq!(p.mode(0).unwrap(), tile);
        }
    }
}
