//! The host side of TMA tensor maps, with no driver: `TmaTiled::from_layout`
//! and `validate` accept the maps a GEMM uses and refuse each broken rule of
//! `cuTensorMapEncodeTiled` with a message naming the value; `encode`
//! without a driver is `Error::NoDriver`, not a panic.

use cutlet::device::{driver_available, TmaSwizzle, TmaTiled};
use cutlet::layout::Layout;
use cutlet::numeric::ElementType;
use cutlet::{Error, ErrorKind};

/// A 256-byte aligned device address, as the driver's allocations are.
const ADDRESS: u64 = 0x7f12_3400_0000;

/// Row-major M x K matrix as a layout, innermost (K) first: `(K,M):(1,K)`.
fn row_major(m: u64, k: u64) -> Layout {
    format!("({k},{m}):(1,{k})").parse().unwrap()
}

/// The K-major bf16 A operand of a GEMM: M x K row-major, box 64 x 128, SW128.
fn a_operand(m: u64, k: u64) -> TmaTiled {
    TmaTiled::from_layout(
        ElementType::BF16,
        ADDRESS,
        &row_major(m, k),
        &[64, 128],
        TmaSwizzle::B128,
    )
    .unwrap()
}

/// `map` is refused with an invalid-argument error whose message holds
/// every fragment of `needles`.
fn assert_refused(map: &TmaTiled, needles: &[&str]) {
    let err = map.validate().unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    let text = err.to_string();
    for needle in needles {
        assert!(text.contains(needle), "`{needle}` not in: {text}");
    }
}

#[test]
fn k_major_bf16_a_with_sw128_box_is_accepted() {
    let map = a_operand(200, 96);
    assert_eq!(map.element, ElementType::BF16);
    assert_eq!(map.global_address, ADDRESS);
    assert_eq!(map.dims, [96, 200]);
    assert_eq!(map.strides_bytes, [192]);
    assert_eq!(map.box_dims, [64, 128]);
    assert_eq!(map.swizzle, TmaSwizzle::B128);
    assert!(map.oob_zero);
    assert_eq!(map.rank(), 2);
    assert_eq!(map.box_bytes(), 64 * 128 * 2);
    assert!(map.validate().is_ok());
}

#[test]
fn every_swizzle_accepts_an_inner_box_of_its_span_and_none_any_multiple_of_16() {
    for swizzle in TmaSwizzle::ALL {
        let span = swizzle.span_bytes().unwrap_or(512);
        let box0 = span / 2;
        let map = TmaTiled::from_layout(
            ElementType::F16,
            ADDRESS,
            &row_major(64, 1024),
            &[box0, 64],
            swizzle,
        )
        .unwrap_or_else(|e| panic!("{swizzle}: {e}"));
        assert_eq!(map.box_bytes(), u64::from(box0) * 64 * 2);
    }
    // A 5-D f32 tensor, with every element type's size in the strides.
    let layout: Layout = "(8,3,4,5,6):(1,8,24,96,480)".parse().unwrap();
    let map = TmaTiled::from_layout(
        ElementType::F32,
        ADDRESS,
        &layout,
        &[8, 3, 4, 5, 6],
        TmaSwizzle::B32,
    )
    .unwrap();
    assert_eq!(map.strides_bytes, [32, 96, 384, 1920]);
}

#[test]
fn broken_rules_are_refused_naming_the_value() {
    let good = a_operand(200, 96);

    let mut map = good.clone();
    map.global_address = ADDRESS + 8;
    assert_refused(
        &map,
        &["global_address", "0x7f1234000008", "16-byte aligned"],
    );

    // K = 100: a row of 200 bytes is not a multiple of 16.
    let err = TmaTiled::from_layout(
        ElementType::BF16,
        ADDRESS,
        &row_major(200, 100),
        &[64, 128],
        TmaSwizzle::B128,
    )
    .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("strides_bytes[0]") && text.contains("200 bytes"),
        "{text}"
    );
    assert!(text.contains("multiple of 16"), "{text}");

    let mut map = good.clone();
    map.strides_bytes = vec![1 << 40];
    assert_refused(
        &map,
        &["strides_bytes[0]", "1099511627776 bytes", "below 2^40"],
    );

    // 128 bf16 = 256 bytes, past the 128-byte span.
    let mut map = good.clone();
    map.box_dims = vec![128, 128];
    assert_refused(
        &map,
        &[
            "box_dims[0]",
            "128 (256 bytes of bf16)",
            "at most 128 bytes with the 128B swizzle",
        ],
    );

    let mut map = good.clone();
    map.swizzle = TmaSwizzle::B64;
    assert_refused(
        &map,
        &["box_dims[0]", "at most 64 bytes with the 64B swizzle"],
    );

    let mut map = good.clone();
    map.box_dims = vec![64, 257];
    assert_refused(&map, &["box_dims[1]", "= 257", "1 to 256"]);

    let mut map = good.clone();
    map.box_dims = vec![64, 0];
    assert_refused(&map, &["box_dims[1]", "= 0", "1 to 256"]);

    // 4 bf16 = 8 bytes: not a multiple of 16.
    let mut map = good.clone();
    map.box_dims = vec![4, 128];
    assert_refused(
        &map,
        &["box_dims[0]", "4 (8 bytes of bf16)", "multiple of 16 bytes"],
    );

    let mut map = good.clone();
    map.dims = vec![96, 0];
    assert_refused(&map, &["dims[1]", "= 0", "1 to 2^32"]);

    let mut map = good.clone();
    map.dims = vec![(1 << 32) + 1, 200];
    assert_refused(&map, &["dims[0]", "4294967297", "1 to 2^32"]);

    let mut map = good.clone();
    map.dims.clear();
    map.strides_bytes.clear();
    map.box_dims.clear();
    assert_refused(&map, &["rank", "0 dimensions", "1 to 5"]);

    let six: Layout = "(8,2,2,2,2,2):(1,8,16,32,64,128)".parse().unwrap();
    let err = TmaTiled::from_layout(ElementType::F32, ADDRESS, &six, &[8; 6], TmaSwizzle::None)
        .unwrap_err();
    assert!(err.to_string().contains("6 dimensions"), "{err}");

    let mut map = good.clone();
    map.box_dims = vec![64];
    assert_refused(&map, &["box_dims", "1 extents", "one per dimension: 2"]);

    let mut map = good.clone();
    map.strides_bytes = vec![192, 192];
    assert_refused(&map, &["strides_bytes", "2 strides", "after the first: 1"]);

    let mut map = TmaTiled::from_layout(
        ElementType::I8,
        ADDRESS,
        &row_major(64, 64),
        &[64, 64],
        TmaSwizzle::None,
    )
    .unwrap();
    map.oob_zero = false;
    assert_refused(&map, &["oob_zero", "NaN", "i8"]);
}

#[test]
fn layouts_tma_cannot_read_are_refused_by_mode() {
    let cases = [
        // column-major M x K: mode 0 (K) is strided
        ("(96,200):(200,1)", "layout mode 0", "stride 1"),
        ("((8,12),200):((1,8),96)", "layout mode 0", "single extent"),
        ("(96,200):(1,-96)", "layout mode 1", "non-negative stride"),
    ];
    for (layout, name, expected) in cases {
        let layout: Layout = layout.parse().unwrap();
        let err = TmaTiled::from_layout(
            ElementType::BF16,
            ADDRESS,
            &layout,
            &[64, 128],
            TmaSwizzle::B128,
        )
        .unwrap_err();
        assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
        let text = err.to_string();
        assert!(
            text.contains(name) && text.contains(expected),
            "{layout}: {text}"
        );
    }
}

#[test]
fn swizzles_know_their_span_and_shared_alignment() {
    let facts: Vec<_> = TmaSwizzle::ALL
        .iter()
        .map(|s| (s.to_string(), s.span_bytes(), s.shared_alignment()))
        .collect();
    assert_eq!(
        facts,
        [
            ("none".to_string(), None, 128),
            ("32B".to_string(), Some(32), 256),
            ("64B".to_string(), Some(64), 512),
            ("128B".to_string(), Some(128), 1024),
        ]
    );
}

#[test]
fn encoding_without_a_driver_is_an_error_not_a_panic() {
    let map = a_operand(200, 96);
    if driver_available() {
        // With a driver the encoding may succeed; an invalid map is still
        // refused before any driver call.
        let mut bad = map;
        bad.global_address += 4;
        assert!(matches!(bad.encode(), Err(Error::InvalidArgument { .. })));
        return;
    }
    let err = map.encode().unwrap_err();
    assert!(matches!(err, Error::NoDriver), "{err}");
    assert_eq!(err.kind(), ErrorKind::Unavailable);
}
