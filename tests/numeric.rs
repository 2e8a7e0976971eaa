//! Element types: sizes, PTX names, register facts, names and `Element` impls.

use cutlet::numeric::{Element, ElementType, Tf32};

#[test]
fn sizes_and_ptx_facts_per_type() {
    // (type, bits, ptx type, register type, elements per .b32)
    let table = [
        (ElementType::F16, 16, ".f16", ".b16", 2),
        (ElementType::BF16, 16, ".bf16", ".b16", 2),
        (ElementType::F32, 32, ".f32", ".f32", 1),
        (ElementType::TF32, 32, ".tf32", ".b32", 1),
        (ElementType::F64, 64, ".f64", ".f64", 1),
        (ElementType::I8, 8, ".s8", ".b32", 4),
        (ElementType::U8, 8, ".u8", ".b32", 4),
        (ElementType::I32, 32, ".s32", ".b32", 1),
        (ElementType::F8E4M3, 8, ".e4m3", ".b32", 4),
        (ElementType::F8E5M2, 8, ".e5m2", ".b32", 4),
    ];
    assert_eq!(table.len(), ElementType::ALL.len());
    for (t, bits, ptx, reg, packing) in table {
        assert_eq!(t.size_bits(), bits, "{t}");
        assert_eq!(t.size_bytes() * 8, bits, "{t}");
        assert_eq!(t.ptx_type(), ptx, "{t}");
        assert_eq!(t.register_type(), reg, "{t}");
        assert_eq!(t.elements_per_b32(), packing, "{t}");
    }
}

#[test]
fn names_round_trip() {
    let names = [
        "f16", "bf16", "f32", "tf32", "f64", "i8", "u8", "i32", "e4m3", "e5m2",
    ];
    assert_eq!(names.len(), ElementType::ALL.len());
    for (t, name) in ElementType::ALL.into_iter().zip(names) {
        assert_eq!(t.to_string(), name);
        assert_eq!(name.parse::<ElementType>().unwrap(), t);
    }
}

#[test]
fn unknown_name_lists_the_valid_ones() {
    for bad in ["F16", "fp16", "", "s8"] {
        let err = bad.parse::<ElementType>().unwrap_err();
        assert_eq!(err.value, bad);
        assert_eq!(
            err.to_string(),
            format!("unknown element type `{bad}`: expected one of f16, bf16, f32, tf32, f64, i8, u8, i32, e4m3, e5m2")
        );
    }
}

fn type_and_size<T: Element>() -> (ElementType, usize) {
    (T::TYPE, std::mem::size_of::<T>())
}

#[test]
fn rust_types_map_to_element_types_of_their_size() {
    let cases = [
        type_and_size::<half::f16>(),
        type_and_size::<half::bf16>(),
        type_and_size::<f32>(),
        type_and_size::<Tf32>(),
        type_and_size::<f64>(),
        type_and_size::<i8>(),
        type_and_size::<u8>(),
        type_and_size::<i32>(),
        type_and_size::<cutlet::float8::F8E4M3>(),
        type_and_size::<cutlet::float8::F8E5M2>(),
    ];
    let types: Vec<ElementType> = cases.iter().map(|(t, _)| *t).collect();
    assert_eq!(types, ElementType::ALL);
    for (t, size) in cases {
        assert_eq!(t.size_bytes() as usize, size, "{t}");
    }
}

#[test]
fn tf32_is_stored_as_f32_bits() {
    let values = [Tf32(1.5), Tf32::from(-2.0)];
    let bytes: &[u8] = bytemuck::cast_slice(&values);
    assert_eq!(&bytes[..4], &1.5f32.to_ne_bytes());
    assert_eq!(f32::from(values[1]), -2.0);
}

#[test]
fn float_and_integer_types() {
    let floats: Vec<ElementType> = ElementType::ALL
        .into_iter()
        .filter(|t| t.is_float())
        .collect();
    assert_eq!(
        floats,
        [
            ElementType::F16,
            ElementType::BF16,
            ElementType::F32,
            ElementType::TF32,
            ElementType::F64,
            ElementType::F8E4M3,
            ElementType::F8E5M2
        ]
    );
}

/// The FP8 host types hold OCP FP8 bits, as `cvt.rn.satfinite.e4m3x2.f32`
/// and `.e5m2x2` write them: e4m3 has no infinities (0x7f is NaN, 448 the
/// largest finite value), e5m2 has (0x7c is +inf, 57344 the largest finite
/// value); the host reference rounds to the same values.
#[test]
fn fp8_host_types_hold_ocp_bits() {
    use cutlet::float8::{F8E4M3, F8E5M2};
    use cutlet::fusion::host::round_to;
    assert_eq!(F8E4M3::from_f32(1.0).to_bits(), 0x38);
    assert_eq!(F8E4M3::from_f32(448.0).to_bits(), 0x7e);
    assert!(F8E4M3::from_bits(0x7f).to_f32().is_nan());
    assert_eq!(F8E4M3::from_bits(0x01).to_f32(), 2f32.powi(-9));
    assert_eq!(F8E5M2::from_f32(1.0).to_bits(), 0x3c);
    assert_eq!(F8E5M2::from_f32(57344.0).to_bits(), 0x7b);
    assert!(F8E5M2::from_bits(0x7c).to_f32().is_infinite());
    // Every finite e4m3 and e5m2 value rounds to itself, and halfway
    // between two neighbours to the even one, as the host reference says.
    for bits in 0u8..=255 {
        for (value, ty) in [
            (F8E4M3::from_bits(bits).to_f64(), ElementType::F8E4M3),
            (F8E5M2::from_bits(bits).to_f64(), ElementType::F8E5M2),
        ] {
            if value.is_finite() {
                assert_eq!(round_to(ty, value), value, "{ty} {bits:#04x}");
            }
        }
    }
    for bits in 0x38u8..0x7e {
        let (lo, hi) = (
            F8E4M3::from_bits(bits).to_f64(),
            F8E4M3::from_bits(bits + 1).to_f64(),
        );
        let even = if bits % 2 == 0 { lo } else { hi };
        assert_eq!(
            round_to(ElementType::F8E4M3, (lo + hi) / 2.0),
            even,
            "{bits:#04x}"
        );
        assert_eq!(
            F8E4M3::from_f64((lo + hi) / 2.0).to_f64(),
            even,
            "{bits:#04x}"
        );
    }
}
