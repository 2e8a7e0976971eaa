//! The atoms' thread/value layouts against the PTX ISA's fragment tables.
//!
//! Each oracle below is written from the ISA's text ("Matrix Fragments for
//! mma.m16n8k16 / mma.m16n8k8", "... for mma.m8n8k4 with .f16 floating
//! point type", "ldmatrix"), not from the layouts: for the SM80 shapes lane
//! `l` is `groupID = l / 4`, `threadID_in_group = l % 4`; fragment element
//! `i` is the ISA's `a_i`, `b_i`, `c_i` (register `i / per_reg`, low half
//! first).

use std::collections::HashSet;

use cutlet::arch::ArchKind;
use cutlet::atom::{
    CopyAtom, CopyTraits, MmaAtom, SM70_8x8x4_F32F16F16F32_NT, SM75_U16x4_LDSM_T,
    SM75_U16x8_LDSM_T, SM75_U32x2_LDSM_N, SM75_U32x4_LDSM_N, SM80_16x8x16_F16F16F16F16_TN,
    SM80_16x8x16_F32BF16BF16F32_TN, SM80_16x8x16_F32F16F16F32_TN, SM80_16x8x8_F32TF32TF32F32_TN,
    SM90_U16x8_STSM_T, SM90_U32x4_STSM_N, UniversalFMA, SM70_MMA,
};
use cutlet::layout::Layout;
use cutlet::numeric::ElementType;

/// (row, col) of element `i` of a fragment for lane `lane`.
type Oracle = fn(lane: i64, i: i64) -> (i64, i64);

/// m16n8k16 A (16x16, row = m, col = k).
fn isa_a_m16n8k16(lane: i64, i: i64) -> (i64, i64) {
    let (group, tig) = (lane / 4, lane % 4);
    let row = if matches!(i, 0 | 1 | 4 | 5) {
        group
    } else {
        group + 8
    };
    let col = tig * 2 + (i & 1) + if i >= 4 { 8 } else { 0 };
    (row, col)
}

/// m16n8k16 B (16x8, row = k, col = n).
fn isa_b_m16n8k16(lane: i64, i: i64) -> (i64, i64) {
    let (group, tig) = (lane / 4, lane % 4);
    let row = tig * 2 + (i & 1) + if i >= 2 { 8 } else { 0 };
    (row, group)
}

/// m16n8k16 and m16n8k8 C/D (16x8, row = m, col = n).
fn isa_c_m16n8(lane: i64, i: i64) -> (i64, i64) {
    let (group, tig) = (lane / 4, lane % 4);
    let row = if i < 2 { group } else { group + 8 };
    (row, tig * 2 + (i & 1))
}

/// m16n8k8 tf32 A (16x8, row = m, col = k).
fn isa_a_m16n8k8_tf32(lane: i64, i: i64) -> (i64, i64) {
    let (group, tig) = (lane / 4, lane % 4);
    let row = if i == 0 || i == 2 { group } else { group + 8 };
    let col = if i < 2 { tig } else { tig + 4 };
    (row, col)
}

/// m16n8k8 tf32 B (8x8, row = k, col = n).
fn isa_b_m16n8k8_tf32(lane: i64, i: i64) -> (i64, i64) {
    let (group, tig) = (lane / 4, lane % 4);
    (if i == 0 { tig } else { tig + 4 }, group)
}

/// Checks `layout` ((thread, value) -> column-major index of an
/// `rows_of x cols_of` tile in (first, second) coordinates) against `oracle`.
/// `swap` says the oracle's (row, col) is (second, first), as B's (k, n).
fn check_against_isa(what: &str, layout: &Layout, first_extent: i64, oracle: Oracle, swap: bool) {
    let threads = 32;
    let values = layout.size() / threads;
    for lane in 0..threads {
        for i in 0..values {
            let index = layout.at(lane + threads * i);
            let (first, second) = (index % first_extent, index / first_extent);
            let (row, col) = oracle(lane, i);
            let want = if swap { (col, row) } else { (row, col) };
            assert_eq!(
                (first, second),
                want,
                "{what}: lane {lane} value {i} is at {:?} by the layout, {want:?} by the ISA",
                (first, second)
            );
        }
    }
}

/// Every (thread, value) maps to a distinct index and all of `0..extent` is hit.
fn assert_bijection(what: &str, layout: &Layout, extent: i64) {
    assert_eq!(layout.size(), extent, "{what}: size");
    let hit: HashSet<i64> = (0..layout.size()).map(|i| layout.at(i)).collect();
    assert_eq!(hit.len() as i64, extent, "{what}: some element owned twice");
    assert!(
        hit.iter().all(|&i| (0..extent).contains(&i)),
        "{what}: outside the tile"
    );
}

fn check_m16n8k16(atom: MmaAtom) {
    assert_eq!(atom.shape_mnk(), [16, 8, 16]);
    assert_eq!(atom.thr_id().to_string(), "32:1");
    check_against_isa(atom.name(), &atom.a_layout(), 16, isa_a_m16n8k16, false);
    check_against_isa(atom.name(), &atom.b_layout(), 8, isa_b_m16n8k16, true);
    check_against_isa(atom.name(), &atom.c_layout(), 16, isa_c_m16n8, false);
}

#[test]
fn m16n8k16_f32_f16_layouts_match_the_isa() {
    check_m16n8k16(SM80_16x8x16_F32F16F16F32_TN);
}

#[test]
fn m16n8k16_f32_bf16_layouts_match_the_isa() {
    check_m16n8k16(SM80_16x8x16_F32BF16BF16F32_TN);
}

#[test]
fn m16n8k16_f16_accumulate_layouts_match_the_isa() {
    check_m16n8k16(SM80_16x8x16_F16F16F16F16_TN);
}

#[test]
fn m16n8k8_tf32_layouts_match_the_isa() {
    let atom = SM80_16x8x8_F32TF32TF32F32_TN;
    assert_eq!(atom.shape_mnk(), [16, 8, 8]);
    check_against_isa(atom.name(), &atom.a_layout(), 16, isa_a_m16n8k8_tf32, false);
    check_against_isa(atom.name(), &atom.b_layout(), 8, isa_b_m16n8k8_tf32, true);
    check_against_isa(atom.name(), &atom.c_layout(), 16, isa_c_m16n8, false);
}

#[test]
fn every_mma_layout_is_a_bijection_onto_its_tile() {
    for atom in MmaAtom::ALL {
        let [m, n, k] = atom.shape_mnk();
        assert_bijection(atom.name(), &atom.a_layout(), m * k);
        assert_bijection(atom.name(), &atom.b_layout(), n * k);
        assert_bijection(atom.name(), &atom.c_layout(), m * n);
        let threads = atom.thr_id().size();
        let regs = atom.regs();
        let per = |class_bits: u32, t: cutlet::numeric::ElementType| {
            (class_bits / t.size_bits()).max(1) as i64
        };
        let types = atom.types();
        let bits = regs.ab_class.bits();
        assert_eq!(
            m * k / threads,
            regs.a as i64 * per(bits, types.a),
            "{atom} a regs"
        );
        assert_eq!(
            n * k / threads,
            regs.b as i64 * per(bits, types.b),
            "{atom} b regs"
        );
        let cbits = regs.c_class.bits();
        assert_eq!(
            m * n / threads,
            regs.c as i64 * per(cbits, types.c),
            "{atom} c regs"
        );
    }
}

/// The PTX `.row`/`.col` of A and B that CuTe's two-letter suffix names:
/// A `T` is K-major (`.row`), `N` M-major (`.col`); B `N` is K-major
/// (`.col`), `T` N-major (`.row`).
fn ptx_majors(suffix: &str) -> (&'static str, &'static str) {
    let a = if suffix.starts_with('T') {
        "row"
    } else {
        "col"
    };
    let b = if suffix.ends_with('N') { "col" } else { "row" };
    (a, b)
}

#[test]
fn the_table_is_the_one_name_of_each_instruction() {
    assert_eq!(UniversalFMA.shape_mnk(), [1, 1, 1]);
    assert_eq!(UniversalFMA.thr_id().size(), 1);
    let mut names = HashSet::new();
    for atom in MmaAtom::ALL {
        assert_eq!(atom.to_string(), atom.name());
        assert!(names.insert(atom.name()), "{atom} listed twice");
        if atom == UniversalFMA {
            continue;
        }
        // The name spells the architecture, the shape, the D, A, B, C types
        // and the majors; the opcode spells the same shape, majors and types.
        let [m, n, k] = atom.shape_mnk();
        let types = atom.types();
        let spelled = [types.d, types.a, types.b, types.c]
            .map(|t| t.name().to_uppercase())
            .concat();
        let (major, minor) = atom.min_arch().compute_capability();
        let suffix = &atom.name()[atom.name().len() - 2..];
        assert_eq!(
            atom.name(),
            format!("SM{major}{minor}_{m}x{n}x{k}_{spelled}_{suffix}")
        );
        let (a, b) = ptx_majors(suffix);
        let dotted: String = [types.d, types.a, types.b, types.c]
            .map(|t| format!(".{}", t.name()))
            .concat();
        assert_eq!(
            atom.opcode(),
            format!("mma.sync.aligned.m{m}n{n}k{k}.{a}.{b}{dotted}"),
            "{atom}"
        );
    }
    for atom in cutlet::atom::SM80_MMA {
        let t = atom.types();
        assert_eq!(MmaAtom::for_types(t.a, t.b, t.c), Some(atom), "{atom}");
    }
}

#[test]
fn the_sm80_lookup_never_returns_an_sm70_atom() {
    let types = [
        ElementType::F16,
        ElementType::BF16,
        ElementType::TF32,
        ElementType::F32,
    ];
    for a in types {
        for b in types {
            for acc in types {
                if let Some(atom) = MmaAtom::for_types(a, b, acc) {
                    assert_eq!(atom.min_arch(), ArchKind::Sm80, "{a:?} {b:?} {acc:?}");
                    assert!(!SM70_MMA.contains(&atom), "{atom}");
                }
            }
        }
    }
}

/// m8n8k4 A (8x4, row = m, col = k), `.row`: one row per lane, a0..a3 along K.
fn isa_a_m8n8k4_row(lane: i64, i: i64) -> (i64, i64) {
    let row = if lane < 16 { lane % 4 } else { lane % 4 + 4 };
    (row, i)
}

/// m8n8k4 A `.col`: one K column per lane, a0..a3 along M.
fn isa_a_m8n8k4_col(lane: i64, i: i64) -> (i64, i64) {
    let row = if lane < 16 { i % 4 } else { i % 4 + 4 };
    (row, lane % 4)
}

/// m8n8k4 B (4x8, row = k, col = n), `.row`: one K row per lane, b0..b3
/// along N.
fn isa_b_m8n8k4_row(lane: i64, i: i64) -> (i64, i64) {
    let col = if lane < 16 { i } else { i + 4 };
    (lane % 4, col)
}

/// m8n8k4 B `.col`: one N column per lane, b0..b3 along K.
fn isa_b_m8n8k4_col(lane: i64, i: i64) -> (i64, i64) {
    let col = if lane < 16 { lane % 4 } else { lane % 4 + 4 };
    (i, col)
}

/// m8n8k4 C/D with `.ctype` `.f16` (8x8, row = m, col = n).
fn isa_c_m8n8k4_f16(lane: i64, i: i64) -> (i64, i64) {
    let row = if lane < 16 { lane % 4 } else { lane % 4 + 4 };
    (row, i)
}

/// m8n8k4 C/D with `.ctype` `.f32`.
fn isa_c_m8n8k4_f32(lane: i64, i: i64) -> (i64, i64) {
    let x = (lane & 0b1) + (i & 0b10);
    let row = if lane < 16 { x } else { x + 4 };
    (row, (i & 0b100) + (lane & 0b10) + (i & 0b1))
}

/// Checks a quad-pair layout ((logical thread, value) -> column-major index
/// of an 8-row tile) against `oracle`, through the lane `thr_id` gives each
/// logical thread. The ISA's formulas hold for every quad pair alike (they
/// read only `lane % 4` and `lane < 16`); this checks quad pair 0's lanes.
fn check_quad_pair_against_isa(
    what: &str,
    atom: MmaAtom,
    layout: &Layout,
    oracle: Oracle,
    swap: bool,
) {
    let thr_id = atom.thr_id();
    let threads = thr_id.size();
    let values = layout.size() / threads;
    for t in 0..threads {
        let lane = thr_id.at(t);
        for i in 0..values {
            let index = layout.at(t + threads * i);
            let got = (index % 8, index / 8);
            let (row, col) = oracle(lane, i);
            let want = if swap { (col, row) } else { (row, col) };
            assert_eq!(
                got, want,
                "{atom} {what}: thread {t} (lane {lane}) value {i} is at {got:?} by the layout, {want:?} by the ISA"
            );
            for q in 1..4 {
                assert_eq!(oracle(lane + 4 * q, i), oracle(lane, i), "quad pair {q}");
            }
        }
    }
}

#[test]
fn m8n8k4_layouts_match_the_isa() {
    for atom in SM70_MMA {
        assert_eq!(atom.shape_mnk(), [8, 8, 4], "{atom}");
        // Quad pair 0 of the ISA's table: lanes 0-3 (low) and 16-19 (high).
        let thr_id = atom.thr_id();
        let lanes: Vec<i64> = (0..thr_id.size()).map(|t| thr_id.at(t)).collect();
        assert_eq!(lanes, [0, 1, 2, 3, 16, 17, 18, 19], "{atom}");
        let (a_major, b_major) = ptx_majors(&atom.name()[atom.name().len() - 2..]);
        let a_oracle: Oracle = if a_major == "row" {
            isa_a_m8n8k4_row
        } else {
            isa_a_m8n8k4_col
        };
        let b_oracle: Oracle = if b_major == "row" {
            isa_b_m8n8k4_row
        } else {
            isa_b_m8n8k4_col
        };
        let c_oracle: Oracle = if atom.types().c == ElementType::F32 {
            isa_c_m8n8k4_f32
        } else {
            isa_c_m8n8k4_f16
        };
        check_quad_pair_against_isa("A", atom, &atom.a_layout(), a_oracle, false);
        check_quad_pair_against_isa("B", atom, &atom.b_layout(), b_oracle, true);
        check_quad_pair_against_isa("C", atom, &atom.c_layout(), c_oracle, false);
    }
}

/// CuTe's worked example (and `tests/layout_facts.rs`'s
/// `sm70_quadpair_tv_layout`, the same layout as a bare literal): in the
/// f32 accumulator, logical thread 2's value 0 is index 16, (m,n) = (0,2);
/// thread 0's value 5 is index 40, (0,5).
#[test]
fn m8n8k4_f32_accumulator_is_cutes_sm70_8x8_32b() {
    let c = SM70_8x8x4_F32F16F16F32_NT.c_layout();
    assert_eq!(c.to_string(), "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))");
    assert_eq!(c.at(2), 16);
    assert_eq!(c.at(5 * 8), 40);
}

/// The bit of the stored 4-matrix block that lane `lane` supplies as bit
/// `bit` of its row address: row `lane % 8` of matrix `lane / 8`.
fn isa_ldsm_source_bit(lane: i64, bit: i64) -> i64 {
    let (matrix, row) = (lane / 8, lane % 8);
    1024 * matrix + 128 * row + bit
}

/// The stored bit that lane `lane` receives as bit `q` of register `j`.
fn isa_ldsm_destination_bit(lane: i64, j: i64, q: i64, trans: bool) -> i64 {
    let half = q / 16;
    let (row, element) = if trans {
        (2 * (lane % 4) + half, lane / 4)
    } else {
        (lane / 4, 2 * (lane % 4) + half)
    };
    1024 * j + 128 * row + 16 * element + q % 16
}

/// `matrices`: 4 for `.x4`, 2 for `.x2` (lanes 16-31 then repeat lanes
/// 0-15's addresses, which the instruction ignores).
fn check_ldsm(atom: CopyAtom, trans: bool, matrices: i64) {
    let src = atom.src_layout();
    let dst = atom.dst_layout();
    let bits = 1024 * matrices;
    if matrices == 4 {
        assert_bijection(atom.name(), &src, bits);
    }
    assert_bijection(atom.name(), &dst, bits);
    for lane in 0..32 {
        for bit in 0..128 {
            assert_eq!(
                src.at(lane + 32 * bit),
                isa_ldsm_source_bit(lane % (8 * matrices), bit),
                "{atom} src lane {lane} bit {bit}"
            );
        }
        for j in 0..matrices {
            for q in 0..32 {
                assert_eq!(
                    dst.at(lane + 32 * (q + 32 * j)),
                    isa_ldsm_destination_bit(lane, j, q, trans),
                    "{atom} dst lane {lane} register {j} bit {q}"
                );
            }
        }
    }
}

#[test]
fn ldmatrix_layouts_match_the_isa() {
    check_ldsm(SM75_U32x4_LDSM_N::ATOM, false, 4);
    check_ldsm(SM75_U16x8_LDSM_T::ATOM, true, 4);
    check_ldsm(SM75_U32x2_LDSM_N::ATOM, false, 2);
    check_ldsm(SM75_U16x4_LDSM_T::ATOM, true, 2);
}

/// `stmatrix` is `ldmatrix` backwards: each lane supplies the registers the
/// load would give it and the row address the load would read.
#[test]
fn stmatrix_layouts_match_the_isa() {
    for (atom, trans) in [
        (SM90_U32x4_STSM_N::ATOM, false),
        (SM90_U16x8_STSM_T::ATOM, true),
    ] {
        let (src, dst) = (atom.src_layout(), atom.dst_layout());
        assert_bijection(atom.name(), &src, 4096);
        assert_bijection(atom.name(), &dst, 4096);
        assert_eq!(atom.ref_layout(), src, "{atom}");
        assert_eq!(atom.min_arch(), ArchKind::Sm90, "{atom}");
        for lane in 0..32 {
            for bit in 0..128 {
                assert_eq!(
                    dst.at(lane + 32 * bit),
                    isa_ldsm_source_bit(lane, bit),
                    "{atom} dst lane {lane} bit {bit}"
                );
            }
            for j in 0..4 {
                for q in 0..32 {
                    assert_eq!(
                        src.at(lane + 32 * (q + 32 * j)),
                        isa_ldsm_destination_bit(lane, j, q, trans),
                        "{atom} src lane {lane} register {j} bit {q}"
                    );
                }
            }
        }
    }
}

#[test]
fn single_thread_copies_move_their_bits_in_order() {
    for (atom, bits) in [
        (CopyAtom::Sm80CpAsyncCacheGlobalZfill, 128),
        (CopyAtom::Universal16, 16),
        (CopyAtom::Universal32, 32),
        (CopyAtom::Universal64, 64),
        (CopyAtom::Universal128, 128),
    ] {
        assert_eq!(atom.threads(), 1, "{atom}");
        assert_eq!(atom.bits_per_thread(), bits, "{atom}");
        for layout in [atom.src_layout(), atom.dst_layout(), atom.ref_layout()] {
            assert_bijection(atom.name(), &layout, bits);
            assert!((0..bits).all(|b| layout.at(b) == b), "{atom}: {layout}");
        }
    }
    assert_eq!(CopyAtom::ALL.len(), 11);
}
