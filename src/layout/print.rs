//! Layouts as text tables (CuTe's `print_layout`).

use std::fmt::Write;

use super::error::LayoutError;
use super::layout::Layout;

/// The most cells a table or picture is drawn with.
pub(super) const MAX_CELLS: i64 = 1 << 16;

/// The rows and columns of a rank-1 or rank-2 layout seen as a matrix: a
/// rank-1 layout is one column. Fails for other ranks and for more than
/// [`MAX_CELLS`] cells.
pub(super) fn matrix_modes(
    layout: &Layout,
    op: &'static str,
) -> Result<(Layout, Layout), LayoutError> {
    let (rows, cols) = match layout.rank() {
        1 if layout.shape().is_int() => (layout.clone(), Layout::unit()),
        1 | 2 => (
            layout.mode(0).unwrap_or_else(Layout::unit),
            layout.mode(1).unwrap_or_else(Layout::unit),
        ),
        r => {
            return Err(LayoutError::Inadmissible {
                op,
                detail: format!("layout {layout} has rank {r}; expected rank 1 or 2"),
            })
        }
    };
    check_cells(rows.size(), cols.size(), op)?;
    Ok((rows, cols))
}

/// Fails unless an `m x n` grid is non-negative and at most [`MAX_CELLS`] cells.
pub(super) fn check_cells(m: i64, n: i64, op: &'static str) -> Result<(), LayoutError> {
    if m < 0 || n < 0 || m.saturating_mul(n) > MAX_CELLS {
        return Err(LayoutError::Inadmissible {
            op,
            detail: format!("a {m} x {n} grid; expected at most {MAX_CELLS} cells"),
        });
    }
    Ok(())
}

/// The table CuTe's `print_layout` prints for a rank-2 layout `(m,n) -> idx`:
/// the layout, a header of column numbers, then each row with its number and
/// the index of every cell, boxed by `+----+` lines. A rank-1 layout is
/// printed as one column.
///
/// ```
/// use cutlet::layout::print_layout;
/// let l = "(2,3):(3,1)".parse().unwrap();
/// let table = [
///     "(2,3):(3,1)",
///     "      0   1   2 ",
///     "    +---+---+---+",
///     " 0  | 0 | 1 | 2 |",
///     "    +---+---+---+",
///     " 1  | 3 | 4 | 5 |",
///     "    +---+---+---+",
/// ];
/// assert_eq!(print_layout(&l).unwrap(), table.join("\n") + "\n");
/// ```
///
/// # Errors
/// For a rank other than 1 or 2, or more than 65536 cells.
pub fn print_layout(layout: &Layout) -> Result<String, LayoutError> {
    let (rows, cols) = matrix_modes(layout, "print_layout")?;
    let (m, n) = (rows.size(), cols.size());
    let cells: Vec<i64> = (0..m)
        .flat_map(|r| (0..n).map(move |c| (r, c)))
        .map(|(r, c)| rows.at(r) + cols.at(c))
        .collect();
    let digits = |v: i64| v.to_string().len();
    // CuTe sizes every cell by the digits of the cosize; negative strides may
    // need more room.
    let width = digits(layout.cosize());
    let labels: Vec<String> = cells.iter().map(i64::to_string).collect();
    Ok(format!("{layout}\n{}", print_grid(m, n, width, &labels)))
}

/// An `m x n` grid as `print_layout` draws it, without its opening line: a
/// header of column numbers, then each row with its number and its cells
/// (`labels`, row-major) right-aligned in at least `min_width` characters,
/// boxed by `+----+` lines.
pub(crate) fn print_grid(m: i64, n: i64, min_width: usize, labels: &[String]) -> String {
    let width = labels
        .iter()
        .map(String::len)
        .max()
        .unwrap_or(1)
        .max(min_width);
    let rule = format!(
        "    {}+\n",
        format!("+{}", "-".repeat(width + 2)).repeat(n as usize)
    );
    let mut out = String::from("    ");
    for c in 0..n {
        let _ = write!(out, "  {c:>width$} ");
    }
    out.push('\n');
    for r in 0..m {
        out.push_str(&rule);
        let _ = write!(out, "{r:>2}  ");
        for c in 0..n {
            let _ = write!(out, "| {:>width$} ", labels[(r * n + c) as usize]);
        }
        out.push_str("|\n");
    }
    out.push_str(&rule);
    out
}
