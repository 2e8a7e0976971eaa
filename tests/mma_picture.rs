//! Pictures of MMA atoms and tiled MMAs: every cell labelled once, with the
//! (thread, value) the atom's layouts give it.

use std::collections::HashSet;

use cutlet::atom::{MmaAtom, SM80_16x8x16_F32BF16BF16F32_TN};
use cutlet::layout::Layout;
use cutlet::tiled::{MmaPanel, MmaPicture, Operand, TiledMma};

const OPERANDS: [Operand; 3] = [Operand::A, Operand::B, Operand::C];

/// `(thread, value) -> index` of a rank-2 TV layout.
fn index(tv: &Layout, (t, v): (i64, i64)) -> i64 {
    tv.mode(0).unwrap().at(t) + tv.mode(1).unwrap().at(v)
}

/// Every cell of `panel` holds a (lane, value) whose logical thread (the
/// `t` with `thr_id(t) = lane`) and value `tv` maps back to it.
fn assert_panel_follows(panel: &MmaPanel, tv: &Layout, thr_id: &Layout, what: &str) {
    for r in 0..panel.rows() {
        for c in 0..panel.cols() {
            let (lane, v) = panel
                .at(r, c)
                .unwrap_or_else(|| panic!("{what}: cell ({r},{c}) has no label"));
            let t = (0..thr_id.size())
                .find(|&t| thr_id.at(t) == lane)
                .unwrap_or_else(|| panic!("{what}: lane {lane} is none of the atom's threads"));
            assert_eq!(index(tv, (t, v)), r + panel.rows() * c, "{what} ({r},{c})");
        }
    }
}

/// The labels of `panel`, each (thread, value) pair at most once.
fn distinct_labels(panel: &MmaPanel, what: &str) -> HashSet<(i64, i64)> {
    let mut seen = HashSet::new();
    for r in 0..panel.rows() {
        for c in 0..panel.cols() {
            let owner = panel.at(r, c).unwrap();
            assert!(seen.insert(owner), "{what}: {owner:?} labels two cells");
        }
    }
    seen
}

#[test]
fn every_atom_cell_is_labelled_once_as_its_layouts_say() {
    for atom in MmaAtom::ALL {
        let picture = MmaPicture::of_atom(atom).unwrap();
        let [m, n, k] = atom.shape_mnk();
        let tvs = [atom.a_layout(), atom.b_layout(), atom.c_layout()];
        for ((op, tv), (rows, cols)) in OPERANDS.iter().zip(&tvs).zip([(m, k), (n, k), (m, n)]) {
            let panel = picture.panel(*op);
            let what = format!("{atom} {op:?}");
            assert_eq!((panel.rows(), panel.cols()), (rows, cols), "{what}");
            assert_panel_follows(panel, tv, &atom.thr_id(), &what);
            // An atom's layouts are bijections: each pair labels one cell.
            assert_eq!(
                distinct_labels(panel, &what).len() as i64,
                tv.size(),
                "{what}"
            );
        }
    }
}

/// Cells worked out by hand from the PTX ISA's m16n8k16 fragment figures
/// (CuTe's `SM80_16x8x16_F32BF16BF16F32_TN` traits): lane = 4*groupID +
/// threadID_in_group.
#[test]
fn sm80_16x8x16_cells_by_hand() {
    let picture = MmaPicture::of_atom(SM80_16x8x16_F32BF16BF16F32_TN).unwrap();
    let (a, b, c) = (
        picture.panel(Operand::A),
        picture.panel(Operand::B),
        picture.panel(Operand::C),
    );
    // A (m,k): a0,a1 at (g, 2t+i); a2,a3 at row g+8; a4..a7 at k+8.
    assert_eq!(a.at(0, 0), Some((0, 0)));
    assert_eq!(a.at(0, 1), Some((0, 1)));
    assert_eq!(a.at(9, 11), Some((5, 7))); // g=1 (+8), k=8+2*1+1
    assert_eq!(a.at(15, 15), Some((31, 7)));
    assert_eq!(a.at(8, 2), Some((1, 2))); // g=0 (+8), t=1
                                          // B (n,k): b0,b1 at (g, 2t+i); b2,b3 at k+8.
    assert_eq!(b.at(3, 10), Some((13, 2))); // g=3, k=8+2*1
    assert_eq!(b.at(7, 7), Some((31, 1)));
    // C (m,n): c0,c1 at (g, 2t+i); c2,c3 at row g+8.
    assert_eq!(c.at(10, 7), Some((11, 3))); // g=2 (+8), n=2*3+1
    assert_eq!(c.at(0, 0), Some((0, 0)));
    assert_eq!(c.at(15, 6), Some((31, 2)));
}

/// CuTe's picture of `SM70_8x8x4_F32F16F16F32_NT`: the quad pair's lanes
/// 0-3 and 16-19, and in C, logical thread 2 (lane 2) value 0 at index 16,
/// that is row 0, column 2.
#[test]
fn sm70_quad_pair_is_drawn_with_its_lanes() {
    let atom = MmaAtom::named("SM70_8x8x4_F32F16F16F32_NT").expect("the SM70 atom is listed");
    let picture = MmaPicture::of_atom(atom).unwrap();
    assert_eq!(picture.threads(), 8);
    let c = picture.panel(Operand::C);
    assert_eq!(c.at(0, 2), Some((2, 0)));
    let mut lanes: Vec<i64> = (0..c.rows())
        .flat_map(|r| (0..c.cols()).map(move |col| (r, col)))
        .map(|(r, col)| c.at(r, col).unwrap().0)
        .collect();
    lanes.sort();
    lanes.dedup();
    assert_eq!(lanes, [0, 1, 2, 3, 16, 17, 18, 19]);
}

#[test]
fn tiled_mma_labels_every_cell_with_its_threads() {
    let mma = TiledMma::new(SM80_16x8x16_F32BF16BF16F32_TN, [2, 2, 1]).unwrap();
    let picture = MmaPicture::of_tiled(&mma).unwrap();
    assert_eq!(picture.threads(), 128);
    let [m, n, k] = mma.tile_mnk();
    let extents = [[m, k], [n, k], [m, n]];
    for (op, tile) in OPERANDS.into_iter().zip(extents) {
        let tv = mma.layout_tv(op, tile).unwrap();
        let lanes = Layout::from_parts(128.into(), 1.into());
        assert_panel_follows(picture.panel(op), &tv, &lanes, &format!("{op:?}"));
    }
    // C is owned once per (thread, value); A and B are shared by the warps
    // along N and M, and each cell shows the lowest thread that holds it.
    assert_eq!(
        distinct_labels(picture.panel(Operand::C), "C").len(),
        128 * 4
    );
    assert_eq!(picture.panel(Operand::A).at(16, 0), Some((32, 0)));
    assert_eq!(picture.panel(Operand::B).at(8, 0), Some((64, 0)));
    assert_eq!(picture.panel(Operand::C).at(16, 8), Some((96, 0)));
}

#[test]
fn svg_places_a_left_of_c_and_b_above_c() {
    let picture = MmaPicture::of_atom(SM80_16x8x16_F32BF16BF16F32_TN).unwrap();
    let svg = picture.to_svg();
    assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
    let cells = 16 * 16 + 8 * 16 + 16 * 8;
    assert_eq!(svg.matches("<rect").count(), cells);
    // Two lines a cell, row and column numbers (A 16+16, B 16+8, C 16+8)
    // and the three titles.
    assert_eq!(svg.matches("<text").count(), 2 * cells + 80 + 3);
    assert_eq!(svg.matches(">T31</text>").count(), 8 + 4 + 4);
    // A is 32 + 16*48 = 800 wide and B (K x N) 32 + 16*32 = 544 high: C's
    // first cell sits at (800 + 32, 544 + 32), A's at (32, 544 + 32).
    assert!(svg.contains("<rect x=\"832\" y=\"576\""), "C's corner");
    assert!(svg.contains("<rect x=\"32\" y=\"576\""), "A's corner");
    assert!(svg.contains("<rect x=\"832\" y=\"32\""), "B's corner");
    assert!(!svg.contains("<rect x=\"32\" y=\"32\""), "nothing above A");
}

#[test]
fn text_names_each_grid() {
    let text = MmaPicture::of_atom(SM80_16x8x16_F32BF16BF16F32_TN)
        .unwrap()
        .to_text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[1], "A (M x K = 16 x 16):");
    assert!(lines[4].starts_with(" 0  |  T0V0 |  T0V1 |  T1V0 |  T1V1 |"));
    assert!(text.contains("B (N x K = 8 x 16):"));
    assert!(text.contains("C (M x N = 16 x 8):"));
}
