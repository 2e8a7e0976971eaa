//! Tiled MMAs the SM80 collective uses: every C element is owned by exactly
//! one (thread, value); every A (B) element exactly once per warp along N
//! (M); and each thread's values agree with the atom's own layouts.

use std::collections::HashMap;

use cutlet::atom::{
    MmaAtom, SM80_16x8x16_F16F16F16F16_TN, SM80_16x8x16_F32BF16BF16F32_TN,
    SM80_16x8x16_F32F16F16F32_TN, UniversalFMA, SM70_MMA,
};
use cutlet::layout::Layout;
use cutlet::tiled::{Operand, TiledMma};

const ATOMS: [MmaAtom; 3] = [
    SM80_16x8x16_F32F16F16F32_TN,
    SM80_16x8x16_F32BF16BF16F32_TN,
    SM80_16x8x16_F16F16F16F16_TN,
];
const WARPS: [[i64; 3]; 3] = [[2, 2, 1], [2, 4, 1], [4, 2, 1]];
const TILES: [[i64; 3]; 4] = [
    [128, 128, 32],
    [128, 256, 32],
    [256, 128, 32],
    [128, 128, 64],
];

/// (thread, value) -> index, checked against the atom layout: thread t =
/// (lane, wm, wn, wk), value (frg, r0, r1) must land at the atom's own
/// coordinate plus atom * (warp + W * rest) along each mode.
fn check_operand(mma: &TiledMma, op: Operand, tile: [i64; 2]) {
    let tv = mma.layout_tv(op, tile).unwrap();
    let atom = mma.atom();
    let [am, an, ak] = atom.shape_mnk();
    let [wm, wn, _] = mma.warps();
    let (atom_layout, a0, a1, w0, w1) = match op {
        Operand::A => (atom.a_layout(), am, ak, wm, 1),
        Operand::B => (atom.b_layout(), an, ak, wn, 1),
        Operand::C => (atom.c_layout(), am, an, wm, wn),
    };
    let frg = atom_layout.size() / 32;
    let r0 = tile[0] / (a0 * w0);
    let threads = mma.threads();
    assert_eq!(tv.size(), threads * frg * r0 * (tile[1] / (a1 * w1)));
    let mut owners: HashMap<(i64, i64), i64> = HashMap::new();
    for t in 0..threads {
        let (lane, warp) = (t % 32, t / 32);
        let (warp_m, warp_n) = (warp % wm, (warp / wm) % wn);
        let (c0, c1) = match op {
            Operand::A => (warp_m, 0),
            Operand::B => (warp_n, 0),
            Operand::C => (warp_m, warp_n),
        };
        for v in 0..tv.size() / threads {
            let (f, rest) = (v % frg, v / frg);
            let (rest0, rest1) = (rest % r0, rest / r0);
            let a = atom_layout.at(lane + 32 * f);
            let want0 = a % a0 + a0 * (c0 + w0 * rest0);
            let want1 = a / a0 + a1 * (c1 + w1 * rest1);
            let got = tv.at(t + threads * v);
            assert_eq!(
                (got % tile[0], got / tile[0]),
                (want0, want1),
                "{atom} {:?} {op:?} {tile:?}: thread {t} value {v}",
                mma.warps()
            );
            let sharing = match op {
                Operand::A => warp_n,
                Operand::B => warp_m,
                Operand::C => 0,
            };
            *owners.entry((got, sharing)).or_default() += 1;
        }
    }
    let sharers = match op {
        Operand::A => wn,
        Operand::B => wm,
        Operand::C => 1,
    };
    assert_eq!(
        owners.len() as i64,
        tile[0] * tile[1] * sharers,
        "{op:?} coverage"
    );
    assert!(
        owners.values().all(|&n| n == 1),
        "{op:?}: an element owned twice"
    );
}

#[test]
fn sm80_tiled_mmas_cover_every_cta_tile_exactly_once() {
    for atom in ATOMS {
        for warps in WARPS {
            let mma = TiledMma::new(atom, warps).unwrap();
            for [m, n, k] in TILES {
                check_operand(&mma, Operand::A, [m, k]);
                check_operand(&mma, Operand::B, [n, k]);
                check_operand(&mma, Operand::C, [m, n]);
            }
        }
    }
}

#[test]
fn partition_of_a_row_major_tile_splits_into_thread_and_value_parts() {
    let mma = TiledMma::new(SM80_16x8x16_F32BF16BF16F32_TN, [2, 2, 1]).unwrap();
    let tile = [128, 32];
    let memory: Layout = "(128,32):(32,1)".parse().unwrap();
    let p = mma.partition(Operand::A, tile, &memory).unwrap();
    let tv = mma.layout_tv(Operand::A, tile).unwrap();
    for t in 0..mma.threads() {
        for v in 0..p.values() as usize {
            let index = tv.at(t + mma.threads() * v as i64);
            let want = (index % 128) * 32 + index / 128;
            assert_eq!(p.thr().at(t) + p.val()[v], want, "thread {t} value {v}");
            assert_eq!(p.offset(t, v), want);
        }
    }
    assert_eq!(
        mma.fragment(Operand::A, tile).unwrap().to_string(),
        "(8,4,2)"
    );
}

#[test]
fn a_permutation_interleaves_warps() {
    // M permuted so that each warp's two atoms along M are adjacent.
    let perm: Layout = "(16,2,2):(1,32,16)".parse().unwrap();
    let mma = TiledMma::new(SM80_16x8x16_F32F16F16F32_TN, [2, 1, 1])
        .unwrap()
        .with_permutation([Some(perm.clone()), None, None])
        .unwrap();
    assert_eq!(mma.tile_mnk(), [64, 8, 16]);
    let tv = mma.layout_tv(Operand::C, [64, 8]).unwrap();
    let plain = TiledMma::new(SM80_16x8x16_F32F16F16F32_TN, [2, 1, 1])
        .unwrap()
        .layout_tv(Operand::C, [64, 8])
        .unwrap();
    let mut seen = std::collections::HashSet::new();
    for i in 0..tv.size() {
        let (got, lin) = (tv.at(i), plain.at(i));
        let m_lin = lin % 64;
        let want_m = perm.at(m_lin % 64);
        assert_eq!((got % 64, got / 64), (want_m, lin / 64), "index {i}");
        assert!(seen.insert(got));
    }
    let bad = TiledMma::new(SM80_16x8x16_F32F16F16F32_TN, [2, 1, 1])
        .unwrap()
        .with_permutation([Some("24:1".parse().unwrap()), None, None]);
    assert!(bad.unwrap_err().to_string().contains("multiple of 32"));
}

#[test]
fn bad_tiles_and_warps_are_named_errors() {
    let mma = TiledMma::new(SM80_16x8x16_F32F16F16F32_TN, [2, 2, 1]).unwrap();
    let err = mma.layout_tv(Operand::C, [48, 16]).unwrap_err().to_string();
    assert!(
        err.contains("48") && err.contains("multiple of 32"),
        "{err}"
    );
    let err = TiledMma::new(SM80_16x8x16_F32F16F16F32_TN, [0, 2, 1])
        .unwrap_err()
        .to_string();
    assert!(err.contains("warps"), "{err}");
}

/// An SM70 tiled MMA over `qps = [QM, QN, 1]` quad pairs: physical thread
/// `t` is lane `t % 32` of warp `t / 32`; its quad pair is
/// `(lane % 16) / 4 + 4 * warp` (column-major over QM, QN), its logical
/// thread in the pair `lane % 4 + 4 * (lane / 16)`. Each value must land at
/// the atom's own coordinate plus `atom * (qp + Q * rest)` along each mode,
/// every C element once, every A (B) element once per quad pair along N (M).
fn check_quad_pairs(mma: &TiledMma, op: Operand, tile: [i64; 2]) {
    let tv = mma.layout_tv(op, tile).unwrap();
    let atom = mma.atom();
    let [am, an, ak] = atom.shape_mnk();
    let [qm, qn, _] = mma.warps();
    let (atom_layout, a0, a1, q0, q1) = match op {
        Operand::A => (atom.a_layout(), am, ak, qm, 1),
        Operand::B => (atom.b_layout(), an, ak, qn, 1),
        Operand::C => (atom.c_layout(), am, an, qm, qn),
    };
    let frg = atom_layout.size() / 8;
    let r0 = tile[0] / (a0 * q0);
    let threads = mma.threads();
    assert_eq!(threads, 8 * qm * qn);
    assert_eq!(tv.size(), threads * frg * r0 * (tile[1] / (a1 * q1)));
    let mut owners: HashMap<(i64, i64), i64> = HashMap::new();
    for t in 0..threads {
        let (lane, warp) = (t % 32, t / 32);
        let qp = (lane % 16) / 4 + 4 * warp;
        let logical = lane % 4 + 4 * (lane / 16);
        let (pm, pn) = (qp % qm, qp / qm);
        let (c0, c1) = match op {
            Operand::A => (pm, 0),
            Operand::B => (pn, 0),
            Operand::C => (pm, pn),
        };
        for v in 0..tv.size() / threads {
            let (f, rest) = (v % frg, v / frg);
            let (rest0, rest1) = (rest % r0, rest / r0);
            let a = atom_layout.at(logical + 8 * f);
            let want0 = a % a0 + a0 * (c0 + q0 * rest0);
            let want1 = a / a0 + a1 * (c1 + q1 * rest1);
            let got = tv.at(t + threads * v);
            assert_eq!(
                (got % tile[0], got / tile[0]),
                (want0, want1),
                "{atom} {:?} {op:?} {tile:?}: thread {t} value {v}",
                mma.warps()
            );
            let sharing = match op {
                Operand::A => pn,
                Operand::B => pm,
                Operand::C => 0,
            };
            *owners.entry((got, sharing)).or_default() += 1;
        }
    }
    let sharers = match op {
        Operand::A => qn,
        Operand::B => qm,
        Operand::C => 1,
    };
    assert_eq!(
        owners.len() as i64,
        tile[0] * tile[1] * sharers,
        "{op:?} coverage"
    );
    assert!(
        owners.values().all(|&n| n == 1),
        "{op:?}: an element owned twice"
    );
}

#[test]
fn sm70_tiled_mmas_over_quad_pairs_cover_every_cta_tile_exactly_once() {
    for atom in SM70_MMA {
        for qps in [[2, 2, 1], [4, 4, 1], [4, 8, 1], [2, 8, 1], [8, 2, 1]] {
            let mma = TiledMma::new(atom, qps).unwrap();
            for [m, n, k] in [[64, 64, 32], [128, 128, 32], [128, 256, 64]] {
                check_quad_pairs(&mma, Operand::A, [m, k]);
                check_quad_pairs(&mma, Operand::B, [n, k]);
                check_quad_pairs(&mma, Operand::C, [m, n]);
            }
        }
    }
}

#[test]
fn quad_pairs_that_do_not_fill_whole_warps_are_named_errors() {
    for atom in SM70_MMA {
        for qps in [[1, 1, 1], [2, 1, 1], [3, 2, 1]] {
            let err = TiledMma::new(atom, qps).unwrap_err().to_string();
            assert!(
                err.contains(atom.name())
                    && err.contains("(4,2):(1,16)")
                    && err.contains("multiple of 4"),
                "{err}"
            );
        }
    }
}

#[test]
fn a_permuted_quad_pair_tiled_mma_still_covers_c_once() {
    // The SM70 mainloop's permutation: quad pair bit 0 to row bit 2.
    let perm: Layout = "((4,2),(2,2),(2,2)):((1,8),(4,32),(16,64))"
        .parse()
        .unwrap();
    let mma = TiledMma::new(SM70_MMA[0], [4, 4, 1])
        .unwrap()
        .with_permutation([Some(perm), None, None])
        .unwrap();
    let tv = mma.layout_tv(Operand::C, [128, 64]).unwrap();
    let mut seen = std::collections::HashSet::new();
    for i in 0..tv.size() {
        assert!(seen.insert(tv.at(i)));
    }
    assert_eq!(seen.len(), 128 * 64);
}

#[test]
fn universal_fma_tiles_over_threads() {
    let mma = TiledMma::new(UniversalFMA, [16, 16, 1]).unwrap();
    assert_eq!(mma.threads(), 256);
    let tv = mma.layout_tv(Operand::C, [64, 64]).unwrap();
    let mut seen = std::collections::HashSet::new();
    for i in 0..tv.size() {
        assert!(seen.insert(tv.at(i)));
    }
    assert_eq!(seen.len(), 64 * 64);
}
