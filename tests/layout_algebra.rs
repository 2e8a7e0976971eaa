//! Inadmissible arguments: each is a typed error naming the values, never a panic.

use cutlet::layout::{
    blocked_product, coalesce_by_mode, complement, composition, downcast, left_inverse,
    logical_divide, make_ordered_layout, upcast, zipped_divide, IntTuple, Layout, LayoutError,
    Tiler,
};

fn l(s: &str) -> Layout {
    s.parse().unwrap()
}

fn t(s: &str) -> IntTuple {
    s.parse().unwrap()
}

/// Asserts an `Inadmissible` error of `op` whose message contains every `needle`.
fn assert_inadmissible(r: Result<Layout, LayoutError>, op: &str, needles: &[&str]) {
    let err = r.expect_err("expected an inadmissible error");
    let LayoutError::Inadmissible { op: got, .. } = &err else {
        panic!("expected Inadmissible, got {err:?}");
    };
    assert_eq!(*got, op);
    let msg = err.to_string();
    for n in needles {
        assert!(msg.contains(n), "message {msg:?} does not name {n:?}");
    }
    assert_eq!(msg, msg.to_lowercase(), "messages are lowercase");
}

#[test]
fn composition_stride_divisibility() {
    let r = composition(&l("(3,5):(1,4)"), &l("2:4").into());
    assert_inadmissible(r, "composition", &["stride 4", "extent 3"]);
}

#[test]
fn composition_shape_divisibility() {
    let r = composition(&l("(4,6):(1,5)"), &l("6:1").into());
    assert_inadmissible(r, "composition", &["extent 6", "multiple of 4"]);
}

#[test]
fn by_mode_tiler_with_too_many_modes() {
    let tiler = Tiler::from_shape(&t("(2,2,2)"));
    assert_inadmissible(
        logical_divide(&l("(4,4):(1,4)"), &tiler),
        "logical_divide",
        &["rank 2", "3 modes"],
    );
    assert_inadmissible(composition(&l("8:1"), &tiler), "composition", &["rank 1"]);
}

#[test]
fn complement_of_a_non_injective_layout() {
    assert_inadmissible(
        complement(&l("(2,2):(1,1)"), 8),
        "complement",
        &["(2,2):(1,1)", "not injective"],
    );
    assert_inadmissible(complement(&l("4:-1"), 8), "complement", &["-1"]);
    assert_inadmissible(complement(&l("4:1"), 0), "complement", &["0"]);
}

#[test]
fn non_positive_shapes() {
    assert_inadmissible(
        composition(&l("(4,0):(1,4)"), &l("2:1").into()),
        "composition",
        &["(4,0)", "0"],
    );
    assert_inadmissible(
        zipped_divide(&l("8:1"), &l("-2:1").into()),
        "logical_divide",
        &["-2"],
    );
    assert_inadmissible(
        make_ordered_layout(&t("(2,0)"), &t("(0,1)")),
        "make_ordered_layout",
        &["0"],
    );
}

#[test]
fn other_preconditions() {
    assert_inadmissible(left_inverse(&l("(2,4):(3,4)")), "left_inverse", &["4", "3"]);
    assert_inadmissible(upcast(&l("4:3"), 2), "upcast", &["3", "2"]);
    assert_inadmissible(downcast(&l("4:2"), 2), "downcast", &["4:2"]);
    assert_inadmissible(
        coalesce_by_mode(&l("8:1"), &t("(1,1)")),
        "coalesce",
        &["(1,1)", "8:1"],
    );
    assert_inadmissible(
        make_ordered_layout(&t("8"), &t("(0,1)")),
        "make_ordered_layout",
        &["(0,1)"],
    );
    assert_inadmissible(
        blocked_product(&l("(2,2):(1,1)"), &l("2:1")),
        "complement",
        &["not injective"],
    );
}

#[test]
fn degenerate_inputs_do_not_panic() {
    for s in [
        "1:0",
        "1:5",
        "(1,1):(0,0)",
        "():()",
        "(8,1):(0,0)",
        "((),4):((),1)",
    ] {
        let a = l(s);
        for b in ["1:0", "2:0", "():()", "4:1"] {
            let _ = composition(&a, &l(b).into());
            let _ = logical_divide(&a, &l(b).into());
            let _ = zipped_divide(&a, &l(b).into());
            let _ = blocked_product(&a, &l(b));
        }
        let _ = complement(&a, 1);
        let _ = left_inverse(&a);
    }
}
