//! The SM90 8-bit wgmma atoms (`SM90_GMMA_F8`, `SM90_GMMA_I8`) against the
//! PTX ISA: every type pair, accumulator, width and source once, CuTe's
//! names, the accumulator fragment (the 16-bit atoms'), the `_RS` A
//! fragment (the m16n8k32 8-bit A fragment of each warp, rows + 16w), the
//! whole-tile `_SS` layouts, the lookups, and the emitter's refusals.

use cutlet::atom::{gmma_atom, GmmaA, MmaAtom, MmaSource, ScaleD, SM90_GMMA_F8, SM90_GMMA_I8};
use cutlet::layout::{IntTuple, Layout};
use cutlet::numeric::ElementType::{self, BF16, F16, F32, F8E4M3, F8E5M2, I32, I8, U8};
use cutlet::ptx::{Kernel, RegClass};

fn at(layout: &Layout, thread: i64, value: i64) -> i64 {
    layout.at_coord(&IntTuple::ints(&[thread, value]))
}

/// The widths ptxas 12.9 takes for integer wgmma: 8, 16, 24, then every 16.
fn integer_widths() -> Vec<u32> {
    [8, 16, 24]
        .into_iter()
        .chain((32..=256).step_by(16))
        .collect()
}

fn spelled(t: ElementType) -> (&'static str, &'static str) {
    match t {
        F8E4M3 => ("E4M3", "e4m3"),
        F8E5M2 => ("E5M2", "e5m2"),
        I8 => ("S8", "s8"),
        U8 => ("U8", "u8"),
        F32 => ("F32", "f32"),
        F16 => ("F16", "f16"),
        I32 => ("S32", "s32"),
        other => panic!("no 8-bit wgmma spelling for {other}"),
    }
}

#[test]
fn the_tables_have_every_pair_accumulator_width_and_source_once() {
    let mut cases = Vec::new();
    for n in (8..=256).step_by(8) {
        for acc in [F32, F16] {
            for a in [F8E4M3, F8E5M2] {
                for b in [F8E4M3, F8E5M2] {
                    cases.push((n, acc, a, b));
                }
            }
        }
    }
    for n in integer_widths() {
        for a in [I8, U8] {
            for b in [I8, U8] {
                cases.push((n, I32, a, b));
            }
        }
    }
    assert_eq!(cases.len() * 2, SM90_GMMA_F8.len() + SM90_GMMA_I8.len());
    let mut names: Vec<&str> = SM90_GMMA_F8
        .iter()
        .chain(SM90_GMMA_I8.iter())
        .map(|atom| atom.name())
        .collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), cases.len() * 2);
    for (n, acc, a, b) in cases {
        for (source, suffix) in [
            (MmaSource::SharedShared, "SS"),
            (MmaSource::RegisterShared, "RS"),
        ] {
            let atom = gmma_atom(a, b, acc, n, source).unwrap();
            let (acc_name, acc_ptx) = spelled(acc);
            let ((a_name, a_ptx), (b_name, b_ptx)) = (spelled(a), spelled(b));
            let name = format!("SM90_64x{n}x32_{acc_name}{a_name}{b_name}_{suffix}_TN");
            assert_eq!(atom.name(), name);
            assert_eq!(MmaAtom::named(&name), Some(atom));
            assert_eq!(MmaAtom::lookup(&name.to_lowercase()).unwrap(), atom);
            assert_eq!(
                atom.opcode(),
                format!("wgmma.mma_async.sync.aligned.m64n{n}k32.{acc_ptx}.{a_ptx}.{b_ptx}")
            );
            assert_eq!(atom.shape_mnk(), [64, i64::from(n), 32]);
            assert_eq!(atom.source(), source);
            assert_eq!(atom.min_arch(), cutlet::arch::ArchKind::Sm90);
            assert!(atom.is_wgmma());
            let t = atom.types();
            assert_eq!((t.d, t.a, t.b, t.c), (acc, a, b, acc));
        }
    }
}

#[test]
fn widths_and_type_pairs_without_an_instruction_have_no_atom() {
    let ss = MmaSource::SharedShared;
    for n in [40, 56, 72, 88, 248] {
        assert_eq!(gmma_atom(I8, I8, I32, n, ss), None, "n = {n}");
        assert!(gmma_atom(F8E4M3, F8E4M3, F32, n, ss).is_some(), "n = {n}");
    }
    for n in [0, 4, 12, 264] {
        assert_eq!(gmma_atom(F8E4M3, F8E4M3, F32, n, ss), None, "n = {n}");
    }
    // Mixed families, and accumulators the instruction does not have.
    assert_eq!(gmma_atom(F8E4M3, I8, F32, 64, ss), None);
    assert_eq!(gmma_atom(F8E4M3, F8E5M2, I32, 64, ss), None);
    assert_eq!(gmma_atom(I8, U8, F32, 64, ss), None);
    assert_eq!(gmma_atom(F8E4M3, BF16, F32, 64, ss), None);
    assert_eq!(gmma_atom(F8E4M3, F8E4M3, BF16, 64, ss), None);
    assert_eq!(
        gmma_atom(F8E4M3, F8E4M3, F32, 64, MmaSource::Registers),
        None
    );
    assert_eq!(MmaAtom::named("SM90_64x40x32_S32S8S8_SS_TN"), None);
    let e = MmaAtom::lookup("SM90_64x40x32_S32S8S8_SS_TN")
        .unwrap_err()
        .to_string();
    assert!(e.contains("SM90_64xNx32_S32") && e.contains("48"), "{e}");
}

/// The accumulator: the wgmma D fragment, as for the 16-bit atoms (value
/// `i` of thread `T` at row `16w + g + 8((i>>1)&1)`, column
/// `8(i>>2) + 2t + (i&1)`); f16 accumulators two to a register, f32 and s32
/// one.
#[test]
fn accumulators_follow_the_wgmma_d_fragment() {
    for atom in SM90_GMMA_F8.iter().chain(SM90_GMMA_I8.iter()) {
        let n = atom.shape_mnk()[1];
        let c = atom.c_layout();
        assert_eq!(atom.thr_id().to_string(), "128:1", "{atom}");
        for thread in [0, 5, 37, 127] {
            let (t, g, w) = (thread % 4, (thread % 32) / 4, thread / 32);
            for i in 0..n / 2 {
                let row = 16 * w + g + 8 * ((i >> 1) & 1);
                let col = 8 * (i >> 2) + 2 * t + (i & 1);
                assert_eq!(at(&c, thread, i), row + 64 * col, "{atom} T{thread} V{i}");
            }
        }
        let regs = atom.regs();
        let (per_reg, class) = match atom.types().c {
            F16 => (2, RegClass::B32),
            F32 => (1, RegClass::F32),
            _ => (1, RegClass::B32),
        };
        assert_eq!(regs.c as i64 * per_reg, n / 2, "{atom}");
        assert_eq!(regs.c_class, class, "{atom}");
        assert_eq!(regs.b, 0, "{atom}");
    }
}

/// `_RS` A: byte `i` of register `r` of thread `(t, g, w)` holds the
/// m16n8k32 8-bit A element of warp `w`: a0 (g, 4t+i), a1 (g+8, 4t+i), a2
/// (g, 4t+16+i), a3 (g+8, 4t+16+i), rows + 16w [PTX ISA 9.7.14.5.8]. `_SS`
/// A and B: the whole 64 x 32 and N x 32 tiles for every thread.
#[test]
fn a_and_b_layouts_match_the_fragment_figures() {
    for atom in SM90_GMMA_F8.iter().chain(SM90_GMMA_I8.iter()) {
        let n = atom.shape_mnk()[1];
        let a = atom.a_layout();
        match atom.source() {
            MmaSource::RegisterShared => {
                assert_eq!((atom.regs().a, atom.regs().ab_class), (4, RegClass::B32));
                assert_eq!(a.size(), 128 * 16, "{atom}");
                let mut seen = vec![false; 64 * 32];
                for thread in 0..128 {
                    let (t, g, w) = (thread % 4, (thread % 32) / 4, thread / 32);
                    for v in 0..16 {
                        // Value v is byte v % 4 of register v / 4.
                        let (reg, byte) = (v / 4, v % 4);
                        let row = 16 * w + g + 8 * (reg & 1);
                        let col = 4 * t + byte + 16 * (reg >> 1);
                        // CuTe's value order: (byte, row half, k half).
                        let cute_v = byte + 4 * (reg & 1) + 8 * (reg >> 1);
                        let idx = at(&a, thread, cute_v);
                        assert_eq!(
                            idx,
                            row + 64 * col,
                            "{atom} T{thread} reg {reg} byte {byte}"
                        );
                        assert!(!std::mem::replace(&mut seen[idx as usize], true));
                    }
                }
            }
            _ => {
                assert_eq!(atom.regs().a, 0, "{atom}");
                assert_eq!(a.to_string(), "(128,(64,32)):(0,(1,64))", "{atom}");
            }
        }
        assert_eq!(
            atom.b_layout().to_string(),
            format!("(128,({n},32)):(0,(1,{n}))"),
            "{atom}"
        );
    }
}

#[test]
fn emit_writes_the_forms_ptx_takes_and_refuses_a_transpose() {
    let mut k = Kernel::new("demo").unwrap();
    let (da, db) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
    let fp8 = gmma_atom(F8E4M3, F8E5M2, F32, 16, MmaSource::SharedShared).unwrap();
    let acc = k.regs(RegClass::F32, 8);
    fp8.emit_wgmma(&mut k, &acc, GmmaA::Desc(da), db, ScaleD::One, false, false)
        .unwrap();
    let int8 = gmma_atom(U8, I8, I32, 16, MmaSource::RegisterShared).unwrap();
    let acc_i = k.regs(RegClass::B32, 8);
    let a = k.regs(RegClass::B32, 4);
    int8.emit_wgmma(
        &mut k,
        &acc_i,
        GmmaA::Regs(&a),
        db,
        ScaleD::Zero,
        false,
        false,
    )
    .unwrap();
    let ptx = k.emit().unwrap();
    assert!(
        ptx.contains(&format!(
            "wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e5m2 {{{}}}, {da}, {db}, 1, 1, 1;",
            acc.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )),
        "{ptx}"
    );
    assert!(
        ptx.contains(&format!(
            "wgmma.mma_async.sync.aligned.m64n16k32.s32.u8.s8 {{{}}}, {{{}}}, {db}, 0;",
            acc_i
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            a.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )),
        "{ptx}"
    );
    let e = fp8
        .emit_wgmma(&mut k, &acc, GmmaA::Desc(da), db, ScaleD::One, false, true)
        .unwrap_err()
        .to_string();
    assert!(e.contains("8-bit operands must be K-major"), "{e}");
}
