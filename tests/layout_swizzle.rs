//! Swizzles and the shared-memory swizzle atoms.

use cutlet::layout::{ComposedLayout, SmemSwizzle, Swizzle};

/// Every swizzle permutes each block of `2^(M+|S|+B)` consecutive, aligned offsets.
#[test]
fn swizzle_permutes_each_aligned_block() {
    for bits in 0..=3 {
        for base in 0..=4 {
            for shift in [-5, -4, -3, 3, 4, 5] {
                let Ok(sw) = Swizzle::new(bits, base, shift) else {
                    continue;
                };
                let period = sw.period();
                for block in 0..3 {
                    let lo = block * period;
                    let mut seen: Vec<i64> = (lo..lo + period).map(|x| sw.apply(x)).collect();
                    seen.sort_unstable();
                    let expected: Vec<i64> = (lo..lo + period).collect();
                    assert_eq!(seen, expected, "{sw} on block {block}");
                }
            }
        }
    }
}

#[test]
fn swizzle_is_an_involution() {
    let sw = Swizzle::new(3, 3, 3).unwrap();
    for x in 0..4096 {
        assert_eq!(sw.apply(sw.apply(x)), x);
    }
}

/// Returns the 16-byte chunk (of a row of `row_elems` 16-bit elements) that
/// element `(r, 8*c)` of `atom` lands in, and its row.
fn landing(atom: &ComposedLayout, r: i64, c: i64, row_elems: i64) -> (i64, i64) {
    let crd = cutlet::layout::IntTuple::ints(&[r, 8 * c]);
    let idx = atom.at_coord(&crd).unwrap();
    (idx / row_elems, (idx % row_elems) / 8)
}

#[test]
fn sw128_moves_chunk_c_of_row_r_to_c_xor_r() {
    let atom = ComposedLayout::smem_atom_k_major(SmemSwizzle::B128, 16).unwrap();
    assert_eq!(atom.to_string(), "Sw<3,3,3> o 0 o (8,64):(64,1)");
    assert_eq!(atom.size(), 512);
    assert_eq!(atom.cosize(), 512);
    for r in 0..8 {
        for c in 0..8 {
            assert_eq!(
                landing(&atom, r, c, 64),
                (r, c ^ (r & 7)),
                "row {r} chunk {c}"
            );
        }
    }
}

#[test]
fn sw64_and_sw32_rows() {
    let atom = ComposedLayout::smem_atom_k_major(SmemSwizzle::B64, 16).unwrap();
    assert_eq!(atom.to_string(), "Sw<2,3,3> o 0 o (8,32):(32,1)");
    for r in 0..8 {
        for c in 0..4 {
            assert_eq!(landing(&atom, r, c, 32), (r, c ^ ((r >> 1) & 3)));
        }
    }
    let atom = ComposedLayout::smem_atom_k_major(SmemSwizzle::B32, 16).unwrap();
    assert_eq!(atom.to_string(), "Sw<1,3,3> o 0 o (8,16):(16,1)");
    for r in 0..8 {
        for c in 0..2 {
            assert_eq!(landing(&atom, r, c, 16), (r, c ^ ((r >> 2) & 1)));
        }
    }
}

/// The eight 16-byte chunks of one column of a 128B atom fall in eight
/// different bank groups: no bank conflict for `ldmatrix`.
#[test]
fn sw128_column_is_conflict_free() {
    let atom = ComposedLayout::smem_atom_k_major(SmemSwizzle::B128, 16).unwrap();
    for c in 0..8 {
        let mut groups: Vec<i64> = (0..8).map(|r| landing(&atom, r, c, 64).1).collect();
        groups.sort_unstable();
        assert_eq!(groups, (0..8).collect::<Vec<_>>());
    }
}

#[test]
fn atom_is_a_bijection_onto_its_cosize() {
    for width in [
        SmemSwizzle::Interleave,
        SmemSwizzle::B32,
        SmemSwizzle::B64,
        SmemSwizzle::B128,
    ] {
        for bits in [8, 16, 32] {
            for atom in [
                ComposedLayout::smem_atom_k_major(width, bits).unwrap(),
                ComposedLayout::smem_atom_mn_major(width, bits).unwrap(),
            ] {
                let mut image: Vec<i64> = (0..atom.size()).map(|i| atom.at(i)).collect();
                image.sort_unstable();
                assert_eq!(image, (0..atom.cosize()).collect::<Vec<_>>(), "{atom}");
            }
        }
    }
}

#[test]
fn bad_parameters_are_errors() {
    assert!(ComposedLayout::smem_atom_k_major(SmemSwizzle::B128, 12).is_err());
    assert!(ComposedLayout::smem_atom_k_major(SmemSwizzle::B128, 256).is_err());
    let atom = ComposedLayout::smem_atom_k_major(SmemSwizzle::B128, 16).unwrap();
    let e = atom.at_coord(&"(1,(2,3))".parse().unwrap()).unwrap_err();
    assert!(e.to_string().contains("(1,(2,3))"), "{e}");
}

#[test]
fn offset_is_added_before_the_swizzle() {
    let sw = Swizzle::new(1, 0, 1).unwrap();
    let c = ComposedLayout::new(sw, 2, "4:1".parse().unwrap());
    assert_eq!(c.to_string(), "Sw<1,0,1> o 2 o 4:1");
    // 2 -> 3, 3 -> 2, 4 -> 4, 5 -> 5
    assert_eq!((0..4).map(|i| c.at(i)).collect::<Vec<_>>(), [3, 2, 4, 5]);
}
