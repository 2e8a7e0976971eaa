//! The SM90 wgmma atoms against the PTX ISA's fragment rules: the
//! accumulator of every N (f32 and f16), the `_RS` A fragments (m64nNk16 and
//! m64nNk8), the whole-tile `_SS` layouts; the table's lookups; and the
//! emitter's refusals.

use cutlet::atom::{
    gmma_atom, GmmaA, MmaAtom, MmaSource, SM80_16x8x16_F32BF16BF16F32_TN, ScaleD, SM90_GMMA,
};
use cutlet::layout::{IntTuple, Layout};
use cutlet::numeric::ElementType::{self, BF16, F16, F32, TF32};
use cutlet::ptx::{Kernel, RegClass};

fn at(layout: &Layout, thread: i64, value: i64) -> i64 {
    layout.at_coord(&IntTuple::ints(&[thread, value]))
}

/// Thread `T` of the warpgroup as `(t, g, w)`: lane % 4, lane / 4, warp.
fn tgw(thread: i64) -> (i64, i64, i64) {
    (thread % 4, (thread % 32) / 4, thread / 32)
}

#[test]
fn the_table_has_every_family_width_and_source_once() {
    assert_eq!(SM90_GMMA.len(), 256);
    let mut names: Vec<&str> = SM90_GMMA.iter().map(|a| a.name()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 256);
    let families: [(ElementType, ElementType, i64, &str, &str); 4] = [
        (BF16, F32, 16, "F32BF16BF16", "f32.bf16.bf16"),
        (F16, F32, 16, "F32F16F16", "f32.f16.f16"),
        (F16, F16, 16, "F16F16F16", "f16.f16.f16"),
        (TF32, F32, 8, "F32TF32TF32", "f32.tf32.tf32"),
    ];
    for n in (8..=256).step_by(8) {
        for (ab, acc, k, types, ptx) in families {
            for (source, suffix) in [
                (MmaSource::SharedShared, "SS"),
                (MmaSource::RegisterShared, "RS"),
            ] {
                let atom = gmma_atom(ab, ab, acc, n, source).unwrap();
                let name = format!("SM90_64x{n}x{k}_{types}_{suffix}");
                assert_eq!(atom.name(), name);
                assert_eq!(MmaAtom::named(&name), Some(atom));
                assert_eq!(MmaAtom::lookup(&name.to_lowercase()).unwrap(), atom);
                assert_eq!(
                    atom.opcode(),
                    format!("wgmma.mma_async.sync.aligned.m64n{n}k{k}.{ptx}")
                );
                assert_eq!(atom.shape_mnk(), [64, i64::from(n), k]);
                assert_eq!(atom.source(), source);
                assert_eq!(atom.snippet().family, "sm90/wgmma");
                assert_eq!(atom.min_arch(), cutlet::arch::ArchKind::Sm90);
                assert!(atom.is_wgmma());
                let t = atom.types();
                assert_eq!((t.d, t.a, t.b, t.c), (acc, ab, ab, acc));
            }
        }
    }
    assert!(!SM80_16x8x16_F32BF16BF16F32_TN.is_wgmma());
}

#[test]
fn unknown_names_and_shapes_are_refused() {
    assert_eq!(MmaAtom::named("SM90_64x12x16_F32BF16BF16_SS"), None);
    assert_eq!(MmaAtom::named("SM90_64x264x16_F32BF16BF16_SS"), None);
    let e = MmaAtom::lookup("SM90_64x12x16_F32BF16BF16_SS")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("SM90_64x12x16_F32BF16BF16_SS") && e.contains("N = 8, 16, .., 256"),
        "{e}"
    );
    assert_eq!(gmma_atom(BF16, BF16, F32, 0, MmaSource::SharedShared), None);
    assert_eq!(
        gmma_atom(BF16, BF16, F32, 264, MmaSource::SharedShared),
        None
    );
    assert_eq!(gmma_atom(BF16, F16, F32, 64, MmaSource::SharedShared), None);
    assert_eq!(
        gmma_atom(BF16, BF16, F16, 64, MmaSource::SharedShared),
        None
    );
    assert_eq!(
        gmma_atom(TF32, TF32, F16, 64, MmaSource::SharedShared),
        None
    );
}

/// PTX ISA wgmma D fragment (ptx-notes 4.4): value `i` of thread `T` is at
/// row `16w + g + 8((i>>1)&1)`, column `8(i>>2) + 2t + (i&1)`; f16
/// accumulators pack values `2j`, `2j+1` into register `j`.
#[test]
fn accumulators_follow_the_wgmma_d_fragment_for_every_n() {
    for atom in SM90_GMMA {
        let n = atom.shape_mnk()[1];
        let c = atom.c_layout();
        assert_eq!(atom.thr_id().to_string(), "128:1", "{atom}");
        assert_eq!(c.size(), 64 * n, "{atom}");
        let mut seen = vec![false; (64 * n) as usize];
        for thread in 0..128 {
            let (t, g, w) = tgw(thread);
            for i in 0..n / 2 {
                let row = 16 * w + g + 8 * ((i >> 1) & 1);
                let col = 8 * (i >> 2) + 2 * t + (i & 1);
                let idx = at(&c, thread, i);
                assert_eq!(idx, row + 64 * col, "{atom} thread {thread} value {i}");
                assert!(!std::mem::replace(&mut seen[idx as usize], true));
            }
        }
        let regs = atom.regs();
        let per_reg = if atom.types().c == F16 { 2 } else { 1 };
        assert_eq!(regs.c as i64 * per_reg, n / 2, "{atom}");
        let class = if per_reg == 2 {
            RegClass::B32
        } else {
            RegClass::F32
        };
        assert_eq!(regs.c_class, class, "{atom}");
        assert_eq!(regs.b, 0, "{atom}");
    }
}

/// `_RS` A: the m16n8k16 A fragment (a0..a7) of warp `w`, rows + 16w; for
/// tf32 the m16n8k8 A fragment (a0..a3). `_SS` A and B: the whole tile for
/// every thread (CuTe's `ABLayout`).
#[test]
fn a_and_b_layouts_match_the_fragment_figures() {
    for atom in SM90_GMMA {
        let [_, n, k] = atom.shape_mnk();
        let a = atom.a_layout();
        match atom.source() {
            MmaSource::RegisterShared => {
                assert_eq!(atom.regs().a, 4, "{atom}");
                let values = if k == 16 { 8 } else { 4 };
                assert_eq!(a.size(), 128 * values, "{atom}");
                for thread in 0..128 {
                    let (t, g, w) = tgw(thread);
                    for v in 0..values {
                        let (row, col) = if k == 16 {
                            // a0,a1 (g, 2t..); a2,a3 (g+8, 2t..); a4,a5 (g, 2t+8..); a6,a7 (g+8, 2t+8..)
                            (g + 8 * ((v >> 1) & 1), 2 * t + (v & 1) + 8 * (v >> 2))
                        } else {
                            // a0 (g, t); a1 (g+8, t); a2 (g, t+4); a3 (g+8, t+4)
                            (g + 8 * (v & 1), t + 4 * (v >> 1))
                        };
                        assert_eq!(
                            at(&a, thread, v),
                            16 * w + row + 64 * col,
                            "{atom} T{thread} V{v}"
                        );
                    }
                }
            }
            _ => {
                assert_eq!(atom.regs().a, 0, "{atom}");
                assert_eq!(
                    a.to_string(),
                    format!("(128,(64,{k})):(0,(1,64))"),
                    "{atom}"
                );
                for thread in [0, 77, 127] {
                    for v in [0, 1, 63, 64, 64 * k - 1] {
                        assert_eq!(at(&a, thread, v), v);
                    }
                }
            }
        }
        let b = atom.b_layout();
        assert_eq!(
            b.to_string(),
            format!("(128,({n},{k})):(0,(1,{n}))"),
            "{atom}"
        );
    }
}

#[test]
fn emit_wgmma_writes_each_operand_form() {
    let mut k = Kernel::new("forms").unwrap();
    let rs = gmma_atom(F16, F16, F16, 32, MmaSource::RegisterShared).unwrap();
    let acc = k.regs(RegClass::B32, 8);
    let a = k.regs(RegClass::B32, 4);
    let desc_b = k.reg(RegClass::B64);
    let p = k.reg(RegClass::Pred);
    rs.emit_wgmma(
        &mut k,
        &acc,
        GmmaA::Regs(&a),
        desc_b,
        ScaleD::Pred(p),
        false,
        true,
    )
    .unwrap();
    let tf32 = gmma_atom(TF32, TF32, F32, 8, MmaSource::SharedShared).unwrap();
    let facc = k.regs(RegClass::F32, 4);
    let desc_a = k.reg(RegClass::B64);
    tf32.emit_wgmma(
        &mut k,
        &facc,
        GmmaA::Desc(desc_a),
        desc_b,
        ScaleD::One,
        false,
        false,
    )
    .unwrap();
    let ptx = k.emit().unwrap();
    assert!(ptx.contains(
        "wgmma.mma_async.sync.aligned.m64n32k16.f16.f16.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, {%r8, %r9, %r10, %r11}, %rd0, %p0, 1, 1, 1;"
    ), "{ptx}");
    assert!(ptx.contains(
        "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%f0, %f1, %f2, %f3}, %rd1, %rd0, 1, 1, 1;"
    ), "{ptx}");
}

#[test]
fn emit_wgmma_refuses_what_the_instruction_cannot_take() {
    let mut k = Kernel::new("refusals").unwrap();
    let ss = gmma_atom(BF16, BF16, F32, 8, MmaSource::SharedShared).unwrap();
    let rs = gmma_atom(BF16, BF16, F32, 8, MmaSource::RegisterShared).unwrap();
    let tf32 = gmma_atom(TF32, TF32, F32, 8, MmaSource::SharedShared).unwrap();
    let acc = k.regs(RegClass::F32, 4);
    let a = k.regs(RegClass::B32, 4);
    let d = k.reg(RegClass::B64);
    let r32 = k.reg(RegClass::B32);
    let err = |r: cutlet::Result<()>| r.unwrap_err().to_string();

    let e = err(SM80_16x8x16_F32BF16BF16F32_TN.emit_wgmma(
        &mut k,
        &acc,
        GmmaA::Desc(d),
        d,
        ScaleD::One,
        false,
        false,
    ));
    assert!(
        e.contains("SM80_16x8x16_F32BF16BF16F32_TN") && e.contains("wgmma"),
        "{e}"
    );
    let e = err(ss.emit_wgmma(
        &mut k,
        &acc[..3],
        GmmaA::Desc(d),
        d,
        ScaleD::One,
        false,
        false,
    ));
    assert!(
        e.contains("wgmma acc") && e.contains("3 registers") && e.contains("4 .f32"),
        "{e}"
    );
    let e = err(ss.emit_wgmma(&mut k, &a, GmmaA::Desc(d), d, ScaleD::One, false, false));
    assert!(e.contains("wgmma acc") && e.contains(".b32"), "{e}");
    let e = err(ss.emit_wgmma(&mut k, &acc, GmmaA::Regs(&a), d, ScaleD::One, false, false));
    assert!(e.contains("GmmaA::Desc"), "{e}");
    let e = err(rs.emit_wgmma(&mut k, &acc, GmmaA::Desc(d), d, ScaleD::One, false, false));
    assert!(e.contains("GmmaA::Regs"), "{e}");
    let e = err(rs.emit_wgmma(
        &mut k,
        &acc,
        GmmaA::Regs(&a[..2]),
        d,
        ScaleD::One,
        false,
        false,
    ));
    assert!(e.contains("wgmma a") && e.contains("2 registers"), "{e}");
    let e = err(rs.emit_wgmma(&mut k, &acc, GmmaA::Regs(&a), d, ScaleD::One, true, false));
    assert!(e.contains("trans_a"), "{e}");
    let e = err(ss.emit_wgmma(&mut k, &acc, GmmaA::Desc(r32), d, ScaleD::One, false, false));
    assert!(e.contains("desc_a"), "{e}");
    let e = err(ss.emit_wgmma(&mut k, &acc, GmmaA::Desc(d), r32, ScaleD::One, false, false));
    assert!(e.contains("desc_b"), "{e}");
    let e = err(ss.emit_wgmma(
        &mut k,
        &acc,
        GmmaA::Desc(d),
        d,
        ScaleD::Pred(r32),
        false,
        false,
    ));
    assert!(e.contains("scale_d") && e.contains(".pred"), "{e}");
    for (ta, tb) in [(true, false), (false, true)] {
        let e = err(tf32.emit_wgmma(&mut k, &acc, GmmaA::Desc(d), d, ScaleD::One, ta, tb));
        assert!(e.contains("tf32") && e.contains("K-major"), "{e}");
    }
    // The register-operand emitter refuses wgmma atoms.
    let e = err(ss.emit(&mut k, &acc, &[], &[], &acc));
    assert!(e.contains("emit_wgmma"), "{e}");
    // Nothing was written by the refused calls.
    assert!(!k.emit().unwrap().contains("wgmma"));
}
