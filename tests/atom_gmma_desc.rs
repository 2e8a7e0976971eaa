//! The wgmma shared-memory descriptors derived from stage layouts: the
//! documented cases, every swizzle of both majors against the geometry of
//! the canonical layouts, refusals of non-canonical layouts, and the
//! agreement of the K-major 128B-swizzled stage with what TMA writes.

use cutlet::atom::{gmma_smem_atom, gmma_smem_layout, GmmaDescriptor, GmmaSwizzle};
use cutlet::gemm::OperandMajor::{self, K, MN};
use cutlet::layout::{ComposedLayout, IntTuple, Swizzle};
use cutlet::numeric::ElementType::{self, BF16, F16, TF32};
use cutlet::ptx::{Kernel, RegClass};

/// The descriptor of the slice `shape` at `block` of an `mn x k` stage.
fn desc_of(
    major: OperandMajor,
    element: ElementType,
    swizzle: GmmaSwizzle,
    [mn, k]: [u32; 2],
    shape: [u32; 2],
    block: [u32; 2],
) -> GmmaDescriptor {
    let stage = gmma_smem_layout(major, element, swizzle, mn, k).unwrap();
    let slice = GmmaDescriptor::slice(&stage, shape, block).unwrap();
    GmmaDescriptor::from_layout(major, element, &slice).unwrap()
}

#[test]
fn k_major_sw128_bf16_bk64_is_the_ptx_notes_example() {
    let stage = gmma_smem_layout(K, BF16, GmmaSwizzle::B128, 128, 64).unwrap();
    for block in [[0, 0], [1, 0], [0, 3], [1, 2]] {
        let slice = GmmaDescriptor::slice(&stage, [64, 16], block).unwrap();
        let desc = GmmaDescriptor::from_layout(K, BF16, &slice).unwrap();
        assert_eq!(
            desc,
            GmmaDescriptor {
                lbo_bytes: 16,
                sbo_bytes: 1024,
                swizzle: GmmaSwizzle::B128
            }
        );
        // The 2nd m64 half adds 64 rows of 128 bytes; a k16 step 32 bytes.
        let offset = GmmaDescriptor::slice_offset_bytes(&stage, BF16, [64, 16], block).unwrap();
        assert_eq!(offset, block[0] * 64 * 128 + block[1] * 32);
        let addr = 0x2400 + offset;
        let enc = |x: u32| u64::from((x & 0x3FFFF) >> 4);
        assert_eq!(
            desc.bits(addr),
            enc(addr) | 1 << 16 | (1024 >> 4) << 32 | 1 << 62
        );
    }
}

#[test]
fn mn_major_sw128_bf16_lbo_spans_the_mn_atoms() {
    // B of a 128-wide wgmma over an MN-major 128 x 64 stage: two 64-element
    // MN atoms, each all 64 K rows of 128 bytes (8192 bytes) apart; 8-deep K
    // groups 1024 bytes apart.
    let stage = gmma_smem_layout(MN, BF16, GmmaSwizzle::B128, 128, 64).unwrap();
    let inner = stage.layout();
    let elem = |mn: i64, k: i64| inner.at_coord(&IntTuple::ints(&[mn, k])) * 2;
    let desc = desc_of(MN, BF16, GmmaSwizzle::B128, [128, 64], [128, 16], [0, 1]);
    assert_eq!(desc.lbo_bytes as i64, elem(64, 0) - elem(0, 0));
    assert_eq!(desc.lbo_bytes, 8192);
    assert_eq!(desc.sbo_bytes, 1024);
    assert_eq!(desc.sbo_bytes as i64, elem(0, 8) - elem(0, 0));
    assert_eq!(desc.bits(0) >> 62, 1);
    // A's 64-row slices of the same stage: one MN atom each.
    let second = GmmaDescriptor::slice_offset_bytes(&stage, BF16, [64, 16], [1, 2]).unwrap();
    assert_eq!(second, 8192 + 2 * 16 * 128);
}

/// Every swizzle and both majors for bf16 and f16 (K16), K-major for tf32
/// (K8), over a 128 x 64 (tf32: 128 x 32) stage, against the geometry of
/// the PTX ISA's canonical layouts: `span` bytes per swizzle row, `e` bytes
/// per element.
#[test]
fn every_swizzle_and_major_matches_the_canonical_geometry() {
    let cases = [(BF16, K), (BF16, MN), (F16, K), (F16, MN), (TF32, K)];
    for (element, major) in cases {
        let e = element.size_bytes();
        let k_inst = 32 / e; // 16 for 16-bit, 8 for tf32
        let (mn, bk) = (128u32, 128 / e);
        for swizzle in GmmaSwizzle::ALL {
            let span = swizzle.span_bytes();
            for mn_slice in [64, 128] {
                let desc = desc_of(
                    major,
                    element,
                    swizzle,
                    [mn, bk],
                    [mn_slice, k_inst],
                    [0, 1],
                );
                let (lbo, sbo) = match (major, swizzle) {
                    // Core matrices (8 rows of 16 bytes) down MN every 128
                    // bytes; the two along K one column of core matrices
                    // (mn rows of 16 bytes) apart.
                    (K, GmmaSwizzle::Interleave) => (mn * 16, 128),
                    // Rows of one span; 8-row groups 8 spans apart.
                    (K, _) => (16, 8 * span),
                    // Core matrices of 16 bytes of MN by 8 K rows, all of K
                    // first: K groups 128 bytes apart (make_gmma_desc's LBO
                    // in this form), MN core matrices after all bk / 8 of
                    // them (its SBO).
                    (MN, GmmaSwizzle::Interleave) => (128, bk / 8 * 128),
                    // Atoms of span bytes of MN by 8 K rows; all K first, so
                    // MN atoms bk rows of one span apart, K groups 8 spans.
                    // A slice one atom wide has no next atom: LBO unused, 0.
                    (MN, _) if mn_slice * e <= span => (0, 8 * span),
                    (MN, _) => (bk * span, 8 * span),
                };
                let expected = GmmaDescriptor {
                    lbo_bytes: lbo,
                    sbo_bytes: sbo,
                    swizzle,
                };
                assert_eq!(
                    desc, expected,
                    "{element} {major:?} {swizzle:?} slice {mn_slice}"
                );
                assert_eq!(desc.bits(0) >> 62, swizzle.descriptor_code());
            }
        }
    }
}

#[test]
fn swizzle_facts() {
    let facts = [
        (GmmaSwizzle::Interleave, 16, 0, 16, "Sw<0,4,3>"),
        (GmmaSwizzle::B32, 32, 3, 256, "Sw<1,4,3>"),
        (GmmaSwizzle::B64, 64, 2, 512, "Sw<2,4,3>"),
        (GmmaSwizzle::B128, 128, 1, 1024, "Sw<3,4,3>"),
    ];
    for (sw, span, code, align, text) in facts {
        assert_eq!(sw.span_bytes(), span);
        assert_eq!(sw.descriptor_code(), code);
        assert_eq!(sw.base_alignment(), align);
        assert_eq!(sw.swizzle().to_string(), text);
    }
    // The element-unit atom is the byte swizzle on bf16 element offsets.
    let atom = gmma_smem_atom(K, BF16, GmmaSwizzle::B128);
    let bytes = GmmaSwizzle::B128.swizzle();
    for i in 0..atom.size() {
        assert_eq!(atom.at(i) * 2, bytes.apply(atom.layout().at(i) * 2));
    }
}

#[test]
fn non_canonical_layouts_are_refused() {
    let sw = |b, m| Swizzle::new(b, m, 3).unwrap();
    let parse = |t: &str| t.parse().unwrap();
    let refused = |major, element, layout: ComposedLayout, needle: &str| {
        let e = GmmaDescriptor::from_layout(major, element, &layout)
            .unwrap_err()
            .to_string();
        assert!(e.contains("canonical") && e.contains(needle), "{e}");
    };
    // Rows of 16 elements under a 128-byte swizzle: rows are not a span apart.
    refused(
        K,
        BF16,
        ComposedLayout::new(sw(3, 3), 0, parse("(64,16):(16,1)")),
        "row stride 2",
    );
    // A byte-unit swizzle on bf16 elements.
    refused(
        K,
        BF16,
        ComposedLayout::new(sw(3, 4), 0, parse("(64,16):(64,1)")),
        "Sw<3,4,3>",
    );
    // Two instructions' K.
    refused(
        K,
        BF16,
        ComposedLayout::new(sw(3, 3), 0, parse("(64,32):(64,1)")),
        "64 x 4",
    );
    // Rank 3.
    refused(
        K,
        BF16,
        ComposedLayout::new(sw(3, 3), 0, parse("(64,16,2):(64,1,4096)")),
        "rank 3",
    );
    // MN-major with K contiguous.
    refused(
        MN,
        BF16,
        ComposedLayout::new(sw(3, 3), 0, parse("(64,16):(64,1)")),
        "MN-major",
    );
    // Offsets beyond the 14-bit fields.
    refused(
        K,
        BF16,
        ComposedLayout::new(sw(3, 3), 0, parse("((8,8),16):((64,262144),1)")),
        "stride byte offset",
    );
    // Slices that do not divide the stage, or lie outside it.
    let stage = gmma_smem_layout(K, BF16, GmmaSwizzle::B128, 128, 64).unwrap();
    assert!(GmmaDescriptor::slice(&stage, [48, 16], [0, 0]).is_err());
    let e = GmmaDescriptor::slice(&stage, [64, 16], [2, 0])
        .unwrap_err()
        .to_string();
    assert!(e.contains("[2, 0]"), "{e}");
    assert!(gmma_smem_layout(MN, BF16, GmmaSwizzle::B128, 96, 64).is_err());
}

#[test]
fn emit_packs_the_descriptor_words() {
    let desc = desc_of(K, BF16, GmmaSwizzle::B64, [128, 32], [64, 16], [0, 0]);
    let mut k = Kernel::new("desc").unwrap();
    let start = k.reg(RegClass::B32);
    let d = desc.emit(&mut k, start).unwrap();
    assert_eq!(d.class(), RegClass::B64);
    let ptx = k.emit().unwrap();
    let bits = desc.bits(0);
    assert!(
        ptx.contains(&format!("or.b32 lo, lo, {};", bits & 0xFFFF_FFFF)),
        "{ptx}"
    );
    assert!(
        ptx.contains(&format!("mov.b32 hi, {};", bits >> 32)),
        "{ptx}"
    );
    assert!(ptx.contains(&format!("mov.b64 {d}, {{lo, hi}};")), "{ptx}");
    let e = desc.emit(&mut k, d).unwrap_err().to_string();
    assert!(e.contains(".b32"), "{e}");
}

/// The K-major 128B-swizzled stage puts element (m, k) where TMA's 128B
/// swizzle writes it: box j (64 elements of K) of BM rows of 128 bytes,
/// 16-byte chunk c of row m at chunk c ^ (m % 8).
#[test]
fn k_major_sw128_stage_agrees_with_tma() {
    for (bm, bk) in [(64u32, 64u32), (128, 64), (128, 128), (256, 192)] {
        let stage = gmma_smem_layout(K, BF16, GmmaSwizzle::B128, bm, bk).unwrap();
        for m in 0..i64::from(bm) {
            for k in 0..i64::from(bk) {
                let ours = stage.at_coord(&IntTuple::ints(&[m, k])).unwrap() * 2;
                let (box_j, kin) = (k / 64, k % 64);
                let (chunk, byte) = ((kin * 2) / 16, (kin * 2) % 16);
                let tma = box_j * i64::from(bm) * 128 + m * 128 + ((chunk ^ (m % 8)) * 16) + byte;
                assert_eq!(ours, tma, "bm {bm} bk {bk} element ({m}, {k})");
            }
        }
    }
}
