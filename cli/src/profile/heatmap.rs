//! The SVG heatmap of a profile: for each K a panel of M (rows) x N
//! (columns), each cell cutlet / cuBLASLt, red below 1, white at 1, blue
//! above (a log scale, saturating at 1/4 and 4), the ratio written in it.

use std::fmt::Write as _;

use super::table::{Measured, Row};

const CELL_W: usize = 64;
const CELL_H: usize = 22;
const LABEL_W: usize = 56;
const HEADER_H: usize = 44;
const GAP: usize = 28;

/// The fill of a ratio: log2 of it over [-2, 2] to red (below 1) or blue
/// (above), white at 1; grey where there is none.
fn fill(ratio: Option<f64>) -> String {
    let Some(r) = ratio.filter(|r| r.is_finite() && *r > 0.0) else {
        return "#d0d0d0".to_string();
    };
    let t = (r.log2() / 2.0).clamp(-1.0, 1.0);
    let fade = |full: f64| (255.0 - (255.0 - full) * t.abs()).round() as u8;
    let (red, green, blue) = if t < 0.0 {
        (255, fade(60.0), fade(50.0))
    } else {
        (fade(40.0), fade(110.0), 255)
    };
    format!("#{red:02x}{green:02x}{blue:02x}")
}

/// The heatmap of the grid rows of `rows` (named shapes are left out: they
/// are not on the grid), titled `title`; `None` where no row has a ratio.
pub fn svg(rows: &[Row], title: &str) -> Option<String> {
    let grid: Vec<&Row> = rows.iter().filter(|r| r.shape.name.is_empty()).collect();
    let sorted = |mut v: Vec<usize>| {
        v.sort_unstable();
        v.dedup();
        v
    };
    let ms = sorted(grid.iter().map(|r| r.shape.m).collect());
    let ns = sorted(grid.iter().map(|r| r.shape.n).collect());
    let ks = sorted(grid.iter().map(|r| r.shape.k).collect());
    if grid
        .iter()
        .all(|r| r.measured().and_then(Measured::ratio).is_none())
    {
        return None;
    }
    let panel_w = LABEL_W + CELL_W * ns.len();
    let width = GAP + ks.len() * (panel_w + GAP);
    let height = HEADER_H + 40 + CELL_H * (ms.len() + 1) + 60;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">"##
    );
    let _ = writeln!(
        out,
        r##"<rect width="{width}" height="{height}" fill="white"/>"##
    );
    let _ = writeln!(
        out,
        r##"<text x="{GAP}" y="22" font-size="15" font-weight="bold">{}</text>"##,
        escape(title)
    );
    for (p, &k) in ks.iter().enumerate() {
        let x0 = GAP + p * (panel_w + GAP);
        let y0 = HEADER_H + 20;
        let _ = writeln!(
            out,
            r##"<text x="{}" y="{}" font-weight="bold">K = {k}</text>"##,
            x0 + LABEL_W,
            y0 - 8
        );
        let _ = writeln!(
            out,
            r##"<text x="{x0}" y="{}" fill="#555">M \ N</text>"##,
            y0 + CELL_H - 7
        );
        for (j, &n) in ns.iter().enumerate() {
            let _ = writeln!(
                out,
                r##"<text x="{}" y="{}" text-anchor="middle" fill="#555">{n}</text>"##,
                x0 + LABEL_W + j * CELL_W + CELL_W / 2,
                y0 + CELL_H - 7
            );
        }
        for (i, &m) in ms.iter().enumerate() {
            let y = y0 + CELL_H * (i + 1);
            let _ = writeln!(
                out,
                r##"<text x="{}" y="{}" text-anchor="end" fill="#555">{m}</text>"##,
                x0 + LABEL_W - 6,
                y + CELL_H - 7
            );
            for (j, &n) in ns.iter().enumerate() {
                let row = grid
                    .iter()
                    .find(|r| (r.shape.m, r.shape.n, r.shape.k) == (m, n, k));
                let ratio = row.and_then(|r| r.measured()).and_then(Measured::ratio);
                let x = x0 + LABEL_W + j * CELL_W;
                let _ = writeln!(
                    out,
                    r##"<rect x="{x}" y="{y}" width="{CELL_W}" height="{CELL_H}" fill="{}" stroke="white"/>"##,
                    fill(ratio)
                );
                let text = match (row, ratio) {
                    (_, Some(r)) => format!("{r:.2}"),
                    (Some(_), None) => "err".to_string(),
                    (None, None) => String::new(),
                };
                let _ = writeln!(
                    out,
                    r##"<text x="{}" y="{}" text-anchor="middle">{text}</text>"##,
                    x + CELL_W / 2,
                    y + CELL_H - 7
                );
            }
        }
    }
    // The legend: the scale from 1/4 to 4.
    let ly = height - 34;
    let steps = [0.25, 0.5, 0.75, 0.9, 1.0, 1.1, 1.25, 1.5, 2.0, 4.0];
    let _ = writeln!(
        out,
        r##"<text x="{GAP}" y="{}" fill="#555">cutlet / cuBLASLt (same process, cold L2; above 1: cutlet faster)</text>"##,
        ly - 6
    );
    for (i, s) in steps.iter().enumerate() {
        let x = GAP + i * 48;
        let _ = writeln!(
            out,
            r##"<rect x="{x}" y="{ly}" width="48" height="16" fill="{}"/><text x="{}" y="{}" text-anchor="middle" font-size="10">{s}</text>"##,
            fill(Some(*s)),
            x + 24,
            ly + 12
        );
    }
    out.push_str("</svg>\n");
    Some(out)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::super::shapes::Shape;
    use super::super::table::{Measured, Outcome, Row};
    use super::*;

    #[test]
    fn the_heatmap_draws_one_cell_per_grid_shape_and_colours_by_ratio() {
        let rows: Vec<Row> = [(1, 1024, 0.5), (16, 1024, 2.0), (1, 4096, 1.0)]
            .into_iter()
            .map(|(m, n, ratio)| Row {
                shape: Shape {
                    name: String::new(),
                    m,
                    n,
                    k: 4096,
                },
                dtype: "bf16".into(),
                kernel: "k".into(),
                outcome: Outcome::Measured(Measured {
                    cutlet_us: 10.0,
                    cublas_us: Some(10.0 * ratio),
                    bytes: 1.0,
                    floor_us: 1.0,
                    check: None,
                }),
            })
            .collect();
        let text = svg(&rows, "test").unwrap();
        assert!(text.starts_with("<svg"));
        assert!(text.contains(">0.50<") && text.contains(">2.00<") && text.contains(">1.00<"));
        // 4 cells (one without a shape) + 10 legend swatches + the background.
        assert_eq!(text.matches("<rect").count(), 4 + 10 + 1);
        assert_eq!(fill(Some(1.0)), "#ffffff");
        assert!(fill(Some(0.25)).starts_with("#ff"));
        assert!(fill(Some(4.0)).ends_with("ff"));
    }
}
