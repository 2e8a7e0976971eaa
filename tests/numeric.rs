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
    let names = ["f16", "bf16", "f32", "tf32", "f64", "i8", "u8", "i32"];
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
            format!("unknown element type `{bad}`: expected one of f16, bf16, f32, tf32, f64, i8, u8, i32")
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
            ElementType::F64
        ]
    );
}
