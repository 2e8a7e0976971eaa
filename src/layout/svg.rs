//! Layouts as SVG pictures (what CuTe's `print_latex` draws, and cute-viz).

use std::fmt::Write;

use super::error::LayoutError;
use super::int_tuple::IntTuple;
use super::layout::Layout;
use super::print::{check_cells, matrix_modes};

const CELL_W: i64 = 48;
const CELL_H: i64 = 32;
/// Room for the row and column numbers on the left and top edges.
const MARGIN: i64 = 32;

/// Cell colours of a plain layout, by index mod 8: greys, light to dark.
const GREYS: [&str; 8] = [
    "#ffffff", "#f0f0f0", "#e0e0e0", "#d0d0d0", "#c0c0c0", "#b0b0b0", "#a0a0a0", "#909090",
];

/// Cell colours of a TV layout, by thread id mod 8: distinct light hues.
const HUES: [&str; 8] = [
    "#afafff", "#afffaf", "#ffffaf", "#ffafaf", "#d2d2ff", "#d2ffd2", "#ffffd2", "#ffd2d2",
];

/// One cell of a picture: its place, fill and one or two lines of text.
pub(crate) struct Cell {
    /// Row in its grid.
    pub(crate) row: i64,
    /// Column in its grid.
    pub(crate) col: i64,
    /// Fill colour.
    pub(crate) fill: &'static str,
    /// Text lines, top to bottom.
    pub(crate) lines: Vec<String>,
}

impl Cell {
    /// A cell of a TV picture: `T{thread}` over `V{value}`, filled with a
    /// hue chosen by the thread id mod 8; white and empty where no thread
    /// reaches it.
    pub(crate) fn tv(row: i64, col: i64, owner: Option<(i64, i64)>) -> Cell {
        match owner {
            Some((t, v)) => Cell {
                row,
                col,
                fill: HUES[t.rem_euclid(8) as usize],
                lines: vec![format!("T{t}"), format!("V{v}")],
            },
            None => Cell {
                row,
                col,
                fill: "#ffffff",
                lines: Vec::new(),
            },
        }
    }
}

/// One grid of a picture: `rows x cols` cells with row numbers on the left
/// and column numbers on top, placed at `(x, y)`, with an optional title in
/// its top-left corner.
pub(crate) struct Panel {
    /// Left edge.
    pub(crate) x: i64,
    /// Top edge.
    pub(crate) y: i64,
    /// Rows of cells.
    pub(crate) rows: i64,
    /// Columns of cells.
    pub(crate) cols: i64,
    /// Text in the corner between the row and column numbers.
    pub(crate) title: Option<String>,
    /// The cells, each placed by its row and column.
    pub(crate) cells: Vec<Cell>,
}

impl Panel {
    /// (width, height) of a `rows x cols` grid with its numbers.
    pub(crate) fn size(rows: i64, cols: i64) -> (i64, i64) {
        (MARGIN + cols * CELL_W, MARGIN + rows * CELL_H)
    }

    /// Writes the panel's numbers, title and cells.
    fn write(&self, out: &mut String) {
        let (x0, y0) = (self.x, self.y);
        if let Some(title) = &self.title {
            let _ = writeln!(
                out,
                "<text x=\"{}\" y=\"{}\" font-weight=\"bold\">{title}</text>",
                x0 + MARGIN / 2,
                y0 + MARGIN / 2
            );
        }
        for r in 0..self.rows {
            let y = y0 + MARGIN + r * CELL_H + CELL_H / 2;
            let _ = writeln!(out, "<text x=\"{}\" y=\"{y}\">{r}</text>", x0 + MARGIN / 2);
        }
        for c in 0..self.cols {
            let x = x0 + MARGIN + c * CELL_W + CELL_W / 2;
            let _ = writeln!(out, "<text x=\"{x}\" y=\"{}\">{c}</text>", y0 + MARGIN / 2);
        }
        for cell in &self.cells {
            let x = x0 + MARGIN + cell.col * CELL_W;
            let y = y0 + MARGIN + cell.row * CELL_H;
            let _ = writeln!(
                out,
                "<rect x=\"{x}\" y=\"{y}\" width=\"{CELL_W}\" height=\"{CELL_H}\" fill=\"{}\" stroke=\"black\"/>",
                cell.fill
            );
            let cx = x + CELL_W / 2;
            let n_lines = cell.lines.len() as i64;
            for (i, line) in cell.lines.iter().enumerate() {
                let cy = y + CELL_H * (2 * i as i64 + 1) / (2 * n_lines);
                let _ = writeln!(out, "<text x=\"{cx}\" y=\"{cy}\">{line}</text>");
            }
        }
    }
}

/// One SVG of `width x height` holding `panels`.
pub(crate) fn draw_panels(width: i64, height: i64, panels: &[Panel]) -> String {
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" \
         width=\"{width}\" height=\"{height}\" font-family=\"monospace\" font-size=\"12\" \
         text-anchor=\"middle\" dominant-baseline=\"central\">\n"
    );
    for panel in panels {
        panel.write(&mut out);
    }
    out.push_str("</svg>\n");
    out
}

/// An `m x n` grid of cells with row numbers on the left and column numbers on top.
fn draw(m: i64, n: i64, cells: Vec<Cell>) -> String {
    let (width, height) = Panel::size(m, n);
    let panel = Panel {
        x: 0,
        y: 0,
        rows: m,
        cols: n,
        title: None,
        cells,
    };
    draw_panels(width, height, &[panel])
}

/// An SVG picture of a rank-2 layout (rank 1: one column): a grid whose cell
/// `(m, n)` shows the index `layout(m, n)`, filled with a grey chosen by the
/// index mod 8, with row and column numbers on the edges.
///
/// ```
/// use cutlet::layout::layout_svg;
/// let svg = layout_svg(&"(2,3):(3,1)".parse().unwrap()).unwrap();
/// assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
/// assert_eq!(svg.matches("<rect").count(), 6);
/// assert!(svg.contains(">5</text>"));
/// ```
///
/// # Errors
/// For a rank other than 1 or 2, or more than 65536 cells.
pub fn layout_svg(layout: &Layout) -> Result<String, LayoutError> {
    let (rows, cols) = matrix_modes(layout, "layout_svg")?;
    let (m, n) = (rows.size(), cols.size());
    let cells: Vec<Cell> = (0..m)
        .flat_map(|r| (0..n).map(move |c| (r, c)))
        .map(|(row, col)| {
            let idx = rows.at(row) + cols.at(col);
            Cell {
                row,
                col,
                fill: GREYS[idx.rem_euclid(8) as usize],
                lines: vec![idx.to_string()],
            }
        })
        .collect();
    Ok(draw(m, n, cells))
}

/// An SVG picture of a TV layout `(thread, value) -> index` over an `M x N`
/// tile (`tiler_mn = (M,N)`, nested modes multiplied out; the index of cell
/// `(m, n)` is `m + n*M`): each cell shows `T{thread}` and `V{value}` and is
/// filled with a hue chosen by the thread id mod 8. A plain rank-1 layout is
/// drawn as a TV layout with one value per thread. Cells no thread reaches
/// stay empty; a cell reached twice shows the last (thread, value) pair.
///
/// ```
/// use cutlet::layout::tv_layout_svg;
/// // 4 threads, 2 values each, over a 4 x 2 tile
/// let tv = "(4,2):(1,4)".parse().unwrap();
/// let svg = tv_layout_svg(&tv, &"(4,2)".parse().unwrap()).unwrap();
/// assert_eq!(svg.matches("<rect").count(), 8);
/// assert!(svg.contains(">T3</text>"));
/// assert!(svg.contains(">V1</text>"));
/// ```
///
/// # Errors
/// For a TV layout of rank other than 1 or 2, a tiler of rank other than 2,
/// an index outside the tile, or more than 65536 cells.
pub fn tv_layout_svg(tv: &Layout, tiler_mn: &IntTuple) -> Result<String, LayoutError> {
    let bad = |detail: String| LayoutError::Inadmissible {
        op: "tv_layout_svg",
        detail,
    };
    let mn = tiler_mn.product_each();
    let (m, n) = match mn.flatten()[..] {
        [m, n] if mn.rank() == 2 => (m, n),
        _ => {
            return Err(bad(format!(
                "tiler {tiler_mn} has rank {}; expected (M,N)",
                mn.rank()
            )))
        }
    };
    check_cells(m, n, "tv_layout_svg")?;
    let (threads, values) = matrix_modes(tv, "tv_layout_svg")?;
    check_cells(threads.size(), values.size(), "tv_layout_svg")?;
    let mut owner: Vec<Option<(i64, i64)>> = vec![None; (m * n) as usize];
    for t in 0..threads.size() {
        for v in 0..values.size() {
            let idx = threads.at(t) + values.at(v);
            if !(0..m * n).contains(&idx) {
                return Err(bad(format!(
                    "thread {t} value {v} maps to index {idx}, outside the {m} x {n} tile"
                )));
            }
            owner[idx as usize] = Some((t, v));
        }
    }
    let cells: Vec<Cell> = owner
        .iter()
        .enumerate()
        .map(|(idx, who)| Cell::tv(idx as i64 % m, idx as i64 / m, *who))
        .collect();
    Ok(draw(m, n, cells))
}
