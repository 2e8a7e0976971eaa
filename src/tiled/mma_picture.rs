//! [`MmaPicture`]: the thread/value layouts of an MMA atom or a tiled MMA
//! drawn as CuTe's `print_latex` draws them: A (M x K) left of C (M x N),
//! B (K x N) above C, each cell labelled `T{thread}` `V{value}` and
//! coloured by thread; and as text in `print_layout`'s style.

use std::fmt::Write;

use super::tiled_mma::{mode_of, Operand, TiledMma};
use crate::atom::MmaAtom;
use crate::layout::{draw_panels, print_grid, SvgCell, SvgPanel};
use crate::{Error, Result};

/// One operand's tile as a grid: `rows x cols` (M x K for A, N x K for B,
/// M x N for C), each cell the (thread, value) that holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MmaPanel {
    operand: Operand,
    rows: i64,
    cols: i64,
    /// Row-major: cell `(r, c)` at `r * cols + c`.
    owners: Vec<Option<(i64, i64)>>,
}

impl MmaPanel {
    /// The operand's grid from its TV layout `(thread, value) -> r + rows*c`.
    /// A cell held by several threads (A and B are shared by the warps along
    /// N and M) is labelled with the lowest thread, as CuTe's
    /// `right_inverse` of the TV layout picks it.
    fn new(operand: Operand, tv: &crate::layout::Layout, rows: i64, cols: i64) -> Result<Self> {
        MmaPanel::with_lanes(operand, tv, rows, cols, &|t| t)
    }

    /// As [`new`](Self::new), labelling logical thread `t` as `lane(t)`.
    fn with_lanes(
        operand: Operand,
        tv: &crate::layout::Layout,
        rows: i64,
        cols: i64,
        lane: &dyn Fn(i64) -> i64,
    ) -> Result<Self> {
        let (threads, values) = (mode_of(tv, 0)?, mode_of(tv, 1)?);
        let mut owners = vec![None; (rows * cols) as usize];
        for t in 0..threads.size() {
            for v in 0..values.size() {
                let idx = threads.at(t) + values.at(v);
                if !(0..rows * cols).contains(&idx) {
                    return Err(Error::invalid_argument(
                        format!("{operand:?} layout"),
                        tv,
                        format!("indices inside the {rows} x {cols} tile"),
                    ));
                }
                let (r, c) = (idx % rows, idx / rows);
                owners[(r * cols + c) as usize].get_or_insert((lane(t), v));
            }
        }
        Ok(MmaPanel {
            operand,
            rows,
            cols,
            owners,
        })
    }

    /// Which operand this is.
    pub fn operand(&self) -> Operand {
        self.operand
    }

    /// Rows: M for A and C, N for B.
    pub fn rows(&self) -> i64 {
        self.rows
    }

    /// Columns: K for A and B, N for C.
    pub fn cols(&self) -> i64 {
        self.cols
    }

    /// The (thread, value) that holds cell `(row, col)`; `None` outside the
    /// grid or where no thread holds it.
    pub fn at(&self, row: i64, col: i64) -> Option<(i64, i64)> {
        if !(0..self.rows).contains(&row) || !(0..self.cols).contains(&col) {
            return None;
        }
        self.owners[(row * self.cols + col) as usize]
    }

    /// The grid as text: `T{thread}V{value}` per cell, boxed as
    /// `print_layout` boxes a layout.
    pub fn to_text(&self) -> String {
        let labels: Vec<String> = self
            .owners
            .iter()
            .map(|o| o.map_or(String::new(), |(t, v)| format!("T{t}V{v}")))
            .collect();
        print_grid(self.rows, self.cols, 1, &labels)
    }

    /// The grid as an SVG panel at `(x, y)`, transposed when `transpose`.
    fn svg_panel(&self, x: i64, y: i64, transpose: bool, title: String) -> SvgPanel {
        let (rows, cols) = if transpose {
            (self.cols, self.rows)
        } else {
            (self.rows, self.cols)
        };
        let cells = (0..rows)
            .flat_map(|r| (0..cols).map(move |c| (r, c)))
            .map(|(r, c)| {
                let owner = if transpose {
                    self.at(c, r)
                } else {
                    self.at(r, c)
                };
                SvgCell::tv(r, c, owner)
            })
            .collect();
        SvgPanel {
            x,
            y,
            rows,
            cols,
            title: Some(title),
            cells,
        }
    }
}

/// The A, B and C thread/value grids of one step of a tiled MMA (an atom
/// is the tiled MMA over one warp), CuTe's `print_latex(tiled_mma)`.
///
/// ```
/// use cutlet::atom::SM80_16x8x16_F32BF16BF16F32_TN;
/// use cutlet::tiled::{MmaPicture, Operand};
///
/// let picture = MmaPicture::of_atom(SM80_16x8x16_F32BF16BF16F32_TN).unwrap();
/// // C (16 x 8): lane 5 is (t, g) = (1, 1); its value 0 is at m = g, n = 2*t.
/// assert_eq!(picture.panel(Operand::C).at(1, 2), Some((5, 0)));
/// let svg = picture.to_svg();
/// assert_eq!(svg.matches("<rect").count(), 16 * 16 + 8 * 16 + 16 * 8);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MmaPicture {
    title: String,
    threads: i64,
    panels: [MmaPanel; 3],
}

impl MmaPicture {
    /// The picture of one atom, from its own (thread, value) layouts, each
    /// logical thread labelled with its lane ([`MmaAtom::thr_id`]: lanes
    /// 0-3 and 16-19 for an SM70 quad pair, as CuTe's `print_latex` draws
    /// it).
    pub fn of_atom(atom: MmaAtom) -> Result<MmaPicture> {
        let [m, n, k] = atom.shape_mnk().map(i64::from);
        let thr_id = atom.thr_id();
        let lane = |t: i64| thr_id.at(t);
        Ok(MmaPicture {
            title: atom.name().to_string(),
            threads: thr_id.size(),
            panels: [
                MmaPanel::with_lanes(Operand::A, &atom.a_layout(), m, k, &lane)?,
                MmaPanel::with_lanes(Operand::B, &atom.b_layout(), n, k, &lane)?,
                MmaPanel::with_lanes(Operand::C, &atom.c_layout(), m, n, &lane)?,
            ],
        })
    }

    /// The picture of one step of `mma`: its [`tile_mnk`](TiledMma::tile_mnk).
    pub fn of_tiled(mma: &TiledMma) -> Result<MmaPicture> {
        let [m, n, k] = mma.tile_mnk();
        let panel =
            |op, rows, cols| MmaPanel::new(op, &mma.layout_tv(op, [rows, cols])?, rows, cols);
        let [wm, wn, wk] = mma.warps();
        Ok(MmaPicture {
            title: format!("{} over {wm}x{wn}x{wk}", mma.atom().name()),
            threads: mma.threads(),
            panels: [
                panel(Operand::A, m, k)?,
                panel(Operand::B, n, k)?,
                panel(Operand::C, m, n)?,
            ],
        })
    }

    /// The threads that take part.
    pub fn threads(&self) -> i64 {
        self.threads
    }

    /// One operand's grid.
    pub fn panel(&self, op: Operand) -> &MmaPanel {
        &self.panels[op as usize]
    }

    /// The three grids as text, A (M x K), B (N x K), C (M x N), each after
    /// a line naming it.
    pub fn to_text(&self) -> String {
        let mut out = format!("{} ({} threads)\n", self.title, self.threads);
        for (panel, dims) in self.panels.iter().zip(["M x K", "N x K", "M x N"]) {
            let _ = writeln!(
                out,
                "{:?} ({dims} = {} x {}):",
                panel.operand, panel.rows, panel.cols
            );
            out.push_str(&panel.to_text());
        }
        out
    }

    /// One SVG of the three grids placed as CuTe's `print_latex` places
    /// them: A (M x K) left of C (M x N), B drawn K x N above C.
    pub fn to_svg(&self) -> String {
        let [a, b, c] = &self.panels;
        let (a_w, _) = SvgPanel::size(a.rows, a.cols);
        let (_, b_h) = SvgPanel::size(b.cols, b.rows);
        let (c_w, c_h) = SvgPanel::size(c.rows, c.cols);
        let panels = [
            a.svg_panel(0, b_h, false, "A".into()),
            b.svg_panel(a_w, 0, true, "B".into()),
            c.svg_panel(a_w, b_h, false, "C".into()),
        ];
        draw_panels(a_w + c_w, b_h + c_h, &panels)
    }
}
