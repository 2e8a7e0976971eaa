//! Exact results the layout algebra must reproduce: CuTe's documentation
//! examples (`media/docs/cpp/cute/02_layout_algebra.md`) and facts the
//! kernels rely on. Every comparison is on the CuTe notation string.

use cutlet::layout::{
    blocked_product, coalesce, coalesce_by_mode, complement, composition, logical_divide,
    logical_product, make_layout_tv, raked_product, tiled_divide, zipped_divide, IntTuple, Layout,
    Tiler,
};

fn l(s: &str) -> Layout {
    s.parse().unwrap()
}

fn shape(s: &str) -> Tiler {
    Tiler::from_shape(&s.parse::<IntTuple>().unwrap())
}

fn by_mode(parts: &[&str]) -> Tiler {
    Tiler::ByMode(parts.iter().map(|p| l(p).into()).collect())
}

#[test]
fn zipped_divide_by_a_bare_shape_is_by_mode() {
    let r = zipped_divide(&l("(2048,2048):(2048,1)"), &shape("(1,8)")).unwrap();
    assert_eq!(r.to_string(), "((1,8),(2048,256)):((0,1),(2048,8))");
}

#[test]
fn zipped_divide_by_tv_tilers() {
    let a = l("(64,32):(32,1)");
    let (tiler, _) = make_layout_tv(&l("(4,8):(8,1)"), &l("1:1")).unwrap();
    let r = zipped_divide(&a, &Tiler::from_shape(&tiler)).unwrap();
    assert_eq!(r.to_string(), "((4,8),(16,4)):((32,1),(128,8))");

    let (tiler, _) = make_layout_tv(&l("((2,4),8):((32,8),1)"), &l("1:1")).unwrap();
    let r = zipped_divide(&a, &Tiler::from_shape(&tiler)).unwrap();
    assert_eq!(r.to_string(), "((8,8),(8,4)):((32,1),(256,8))");
}

#[test]
fn make_layout_tv_tiler_and_composition() {
    let (tiler, _) = make_layout_tv(&l("(4,64):(64,1)"), &l("(16,8):(8,1)")).unwrap();
    assert_eq!(tiler.to_string(), "(64,512)");
    let r = composition(
        &l("(16,256):(512,1)"),
        &l("((32,4),(8,4)):((128,4),(16,1))").into(),
    )
    .unwrap();
    assert_eq!(r.to_string(), "((32,4),(8,4)):((8,2048),(1,512))");
}

#[test]
fn make_layout_tv_dsl_example() {
    let (tiler, tv) = make_layout_tv(&l("(2,3):(3,1)"), &l("(2,2):(2,1)")).unwrap();
    assert_eq!(tiler.to_string(), "(4,6)");
    assert_eq!(tv.to_string(), "((3,2),(2,2)):((8,2),(4,1))");
}

#[test]
fn sm70_quadpair_tv_layout() {
    let tv = l("((2,2,2),(2,2,2)):((1,16,4),(8,2,32))");
    let at = |t: i64, v: i64| tv.at_coord(&IntTuple::ints(&[t, v]));
    assert_eq!(at(2, 0), 16);
    assert_eq!(at(0, 5), 40);
}

#[test]
fn doc_coalesce() {
    let a = l("(2,(1,6)):(1,(6,2))");
    assert_eq!(coalesce(&a).to_string(), "12:1");
    let by_mode = coalesce_by_mode(&a, &"(1,1)".parse().unwrap()).unwrap();
    assert_eq!(by_mode.to_string(), "(2,6):(1,2)");
}

#[test]
fn doc_composition() {
    let c = |a: &str, b: &str| composition(&l(a), &l(b).into()).unwrap().to_string();
    assert_eq!(c("20:2", "(5,4):(4,1)"), "(5,4):(8,2)");
    assert_eq!(c("(10,2):(16,4)", "(5,4):(1,5)"), "(5,(2,2)):(16,(80,4))");
    assert_eq!(c("(6,2):(8,2)", "4:3"), "(2,2):(24,2)");
    assert_eq!(c("(6,2):(8,2)", "3:1"), "3:8");
}

#[test]
fn doc_composition_by_mode() {
    let a = l("(12,(4,8)):(59,(13,1))");
    let r = composition(&a, &by_mode(&["3:4", "8:2"])).unwrap();
    assert_eq!(r.to_string(), "(3,(2,4)):(236,(26,1))");
    let r = composition(&a, &shape("(3,8)")).unwrap();
    assert_eq!(r.to_string(), "(3,(4,2)):(59,(13,1))");
}

#[test]
fn doc_complement() {
    let c = |a: &str, m| complement(&l(a), m).unwrap().to_string();
    assert_eq!(c("4:1", 24), "6:4");
    assert_eq!(c("6:4", 24), "4:1");
    assert_eq!(c("(4,6):(1,4)", 24), "1:0");
    assert_eq!(c("4:2", 24), "(2,3):(1,8)");
    assert_eq!(c("(2,4):(1,6)", 24), "3:2");
    assert_eq!(c("(2,2):(1,6)", 24), "(3,2):(2,12)");
}

#[test]
fn doc_logical_divide_1d() {
    let r = logical_divide(&l("(4,2,3):(2,1,8)"), &l("4:2").into()).unwrap();
    assert_eq!(r.to_string(), "((2,2),(2,3)):((4,1),(2,8))");
}

#[test]
fn doc_divides_2d() {
    let a = l("(9,(4,8)):(59,(13,1))");
    let t = by_mode(&["3:3", "(2,4):(1,8)"]);
    let ld = logical_divide(&a, &t).unwrap();
    assert_eq!(
        ld.to_string(),
        "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))"
    );
    assert_eq!(ld.shape().product_each().to_string(), "(9,32)");
    let zd = zipped_divide(&a, &t).unwrap();
    assert_eq!(
        zd.to_string(),
        "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))"
    );
    // The tile mode is the composition, as the docs state.
    let tile = composition(&a, &t).unwrap();
    assert_eq!(zd.mode(0).unwrap(), tile);
    assert_eq!(tile.to_string(), "(3,(2,4)):(177,(13,2))");
    let td = tiled_divide(&a, &t).unwrap();
    assert_eq!(
        td.to_string(),
        "((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))"
    );
}

#[test]
fn doc_logical_product() {
    let a = l("(2,2):(4,1)");
    let r = logical_product(&a, &l("6:1").into()).unwrap();
    assert_eq!(r.to_string(), "((2,2),(2,3)):((4,1),(2,8))");
    let r = logical_product(&a, &l("(4,2):(2,1)").into()).unwrap();
    assert_eq!(r.to_string(), "((2,2),(4,2)):((4,1),(8,2))");
}

#[test]
fn doc_logical_product_2d_by_mode() {
    // A 2x5 row-major block over a 3x4 column-major arrangement, by mode.
    let r = logical_product(&l("(2,5):(5,1)"), &by_mode(&["3:5", "4:6"])).unwrap();
    assert_eq!(r.to_string(), "((2,3),(5,4)):((5,10),(1,30))");
}

#[test]
fn doc_blocked_and_raked_products() {
    let a = l("(2,5):(5,1)");
    let b = l("(3,4):(1,3)");
    let blocked = blocked_product(&a, &b).unwrap();
    assert_eq!(blocked.to_string(), "((2,3),(5,4)):((5,10),(1,30))");
    let raked = raked_product(&a, &b).unwrap();
    assert_eq!(raked.to_string(), "((3,2),(4,5)):((10,5),(30,1))");
}

/// CuTe's `cosize` is `1 + sum((s-1)*|d|)` (C++ `size(coshape(layout))`),
/// not `layout(size-1) + 1`: for `(4,2):(-1,4)` that is 1 + 3 + 4 = 8.
#[test]
fn cosize_counts_negative_strides_by_magnitude() {
    let l = cutlet::layout::Layout::new(
        cutlet::layout::IntTuple::ints(&[4, 2]),
        cutlet::layout::IntTuple::ints(&[-1, 4]),
    )
    .unwrap();
    assert_eq!(l.cosize(), 8);
}
