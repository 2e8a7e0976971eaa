//! One row per shape of a profile, and the files it writes: CSV, JSON and
//! the summary it prints (geometric mean, minimum, every shape below 1.0).

use std::fmt::Write as _;

use super::shapes::Shape;

/// What one shape measured.
#[derive(Clone, Debug)]
pub struct Row {
    pub shape: Shape,
    /// The element type of A and B (and D), e.g. `bf16`.
    pub dtype: String,
    /// The kernel cutlet picked, or the error that stopped the shape.
    pub kernel: String,
    pub outcome: Outcome,
}

/// A measured shape, or why it was not measured.
#[derive(Clone, Debug)]
pub enum Outcome {
    Measured(Measured),
    Failed(String),
}

/// The figures of a measured shape.
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    /// Median times in microseconds.
    pub cutlet_us: f64,
    pub cublas_us: Option<f64>,
    /// Bytes of A, B and D (C is not read: beta = 0).
    pub bytes: f64,
    /// Bytes over the DRAM ceiling, in microseconds.
    pub floor_us: f64,
    /// The result check: its reference, error and tolerance (None: skipped).
    pub check: Option<(&'static str, f64, f64)>,
}

impl Measured {
    /// cuBLASLt's time over cutlet's: above 1, cutlet is faster.
    pub fn ratio(&self) -> Option<f64> {
        self.cublas_us.map(|c| c / self.cutlet_us)
    }

    /// Whether the check passed (or was skipped).
    pub fn passed(&self) -> bool {
        self.check.is_none_or(|(_, error, tol)| error <= tol)
    }
}

impl Row {
    fn flops(&self) -> f64 {
        2.0 * self.shape.m as f64 * self.shape.n as f64 * self.shape.k as f64
    }

    /// The measured figures, if the shape ran.
    pub fn measured(&self) -> Option<&Measured> {
        match &self.outcome {
            Outcome::Measured(m) => Some(m),
            Outcome::Failed(_) => None,
        }
    }

    /// `MxNxK` with the name, if any.
    pub fn label(&self) -> String {
        let Shape { name, m, n, k } = &self.shape;
        if name.is_empty() {
            format!("{m}x{n}x{k}")
        } else {
            format!("{m}x{n}x{k} ({name})")
        }
    }
}

/// The CSV header and one line per row.
pub const CSV_HEADER: &str = "name,m,n,k,dtype,kernel,cutlet_us,cublaslt_us,ratio,cutlet_tflops,cublaslt_tflops,cutlet_gbps,floor_us,floor_share,check,error";

/// The CSV text of `rows`.
pub fn csv(rows: &[Row]) -> String {
    let mut out = String::from(CSV_HEADER);
    out.push('\n');
    let opt = |x: Option<f64>, digits: usize| x.map_or(String::new(), |v| format!("{v:.digits$}"));
    for row in rows {
        let Shape { name, m, n, k } = &row.shape;
        let quoted = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
        let _ = write!(
            out,
            "{},{m},{n},{k},{},{},",
            quoted(name),
            row.dtype,
            quoted(&row.kernel)
        );
        match &row.outcome {
            Outcome::Measured(x) => {
                let tflops = |us: f64| row.flops() / (us * 1e-6) / 1e12;
                let _ = writeln!(
                    out,
                    "{:.3},{},{},{:.1},{},{:.1},{:.3},{:.3},{},",
                    x.cutlet_us,
                    opt(x.cublas_us, 3),
                    opt(x.ratio(), 4),
                    tflops(x.cutlet_us),
                    opt(x.cublas_us.map(tflops), 1),
                    x.bytes / (x.cutlet_us * 1e-6) / 1e9,
                    x.floor_us,
                    x.floor_us / x.cutlet_us,
                    check_text(x),
                );
            }
            Outcome::Failed(why) => {
                let _ = writeln!(out, ",,,,,,,,error,{}", quoted(why));
            }
        }
    }
    out
}

fn check_text(x: &Measured) -> String {
    match x.check {
        None => "skipped".to_string(),
        Some((reference, error, tol)) if error <= tol => {
            format!("pass vs {reference} ({error:.2e})")
        }
        Some((reference, error, tol)) => {
            format!("FAIL vs {reference} ({error:.2e} > {tol:.1e})")
        }
    }
}

/// A JSON string literal.
fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON number, or `null` for none (or a value JSON cannot hold).
fn json_number(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v}"),
        _ => "null".to_string(),
    }
}

/// The JSON text of `rows` and the device they ran on: `{"device": ..,
/// "dram_gbps": .., "rows": [{..}, ..]}`, one object per shape with the
/// CSV's fields.
pub fn json(rows: &[Row], device: &str, dram_gbps: f64) -> String {
    let mut out = format!(
        "{{\n  \"device\": {},\n  \"dram_gbps\": {},\n  \"rows\": [\n",
        json_string(device),
        json_number(Some(dram_gbps))
    );
    for (i, row) in rows.iter().enumerate() {
        let Shape { name, m, n, k } = &row.shape;
        let _ = write!(
            out,
            "    {{\"name\": {}, \"m\": {m}, \"n\": {n}, \"k\": {k}, \"dtype\": {}, \"kernel\": {}",
            json_string(name),
            json_string(&row.dtype),
            json_string(&row.kernel)
        );
        match &row.outcome {
            Outcome::Measured(x) => {
                let tflops = |us: f64| row.flops() / (us * 1e-6) / 1e12;
                let _ = write!(
                    out,
                    ", \"cutlet_us\": {}, \"cublaslt_us\": {}, \"ratio\": {}, \"cutlet_tflops\": {}, \"cublaslt_tflops\": {}, \"cutlet_gbps\": {}, \"floor_us\": {}, \"floor_share\": {}, \"check\": {}",
                    json_number(Some(x.cutlet_us)),
                    json_number(x.cublas_us),
                    json_number(x.ratio()),
                    json_number(Some(tflops(x.cutlet_us))),
                    json_number(x.cublas_us.map(tflops)),
                    json_number(Some(x.bytes / (x.cutlet_us * 1e-6) / 1e9)),
                    json_number(Some(x.floor_us)),
                    json_number(Some(x.floor_us / x.cutlet_us)),
                    json_string(&check_text(x)),
                );
            }
            Outcome::Failed(why) => {
                let _ = write!(out, ", \"error\": {}", json_string(why));
            }
        }
        out.push('}');
        out.push_str(if i + 1 < rows.len() { ",\n" } else { "\n" });
    }
    out.push_str("  ]\n}\n");
    out
}

/// The geometric mean of the ratios of `rows` that have one.
pub fn geometric_mean<'r>(rows: impl IntoIterator<Item = &'r Row>) -> Option<(f64, usize)> {
    let logs: Vec<f64> = rows
        .into_iter()
        .filter_map(|r| r.measured().and_then(Measured::ratio))
        .map(f64::ln)
        .collect();
    (!logs.is_empty()).then(|| {
        let mean = logs.iter().sum::<f64>() / logs.len() as f64;
        (mean.exp(), logs.len())
    })
}

/// The printed summary: shapes measured and failed, the geometric mean
/// (all shapes, and M <= 256), the minimum, and every shape below 1.0.
pub fn summary(rows: &[Row]) -> String {
    let mut out = String::new();
    let measured = rows.iter().filter(|r| r.measured().is_some()).count();
    let _ = writeln!(
        out,
        "shapes: {} measured, {} failed",
        measured,
        rows.len() - measured
    );
    if let Some((mean, count)) = geometric_mean(rows) {
        let _ = writeln!(
            out,
            "geometric mean of cutlet / cuBLASLt: {mean:.3} over {count} shapes"
        );
    }
    if let Some((mean, count)) = geometric_mean(rows.iter().filter(|r| r.shape.m <= 256)) {
        let _ = writeln!(
            out,
            "geometric mean over M <= 256: {mean:.3} over {count} shapes"
        );
    }
    let ratio = |r: &Row| r.measured().and_then(Measured::ratio);
    if let Some(min) = rows.iter().filter(|r| ratio(r).is_some()).min_by(|a, b| {
        ratio(a)
            .partial_cmp(&ratio(b))
            .unwrap_or(std::cmp::Ordering::Equal)
    }) {
        let _ = writeln!(
            out,
            "minimum: {:.3} at {}",
            ratio(min).unwrap_or(0.0),
            min.label()
        );
    }
    let below: Vec<&Row> = rows
        .iter()
        .filter(|r| ratio(r).is_some_and(|x| x < 1.0))
        .collect();
    let _ = writeln!(out, "below 1.0: {} shapes", below.len());
    for row in below {
        if let Some(x) = row.measured() {
            let _ = writeln!(
                out,
                "  {:<44} {:.3}  cutlet {:.1} us, cuBLASLt {:.1} us, {:.0}% of the DRAM floor  {}",
                row.label(),
                x.ratio().unwrap_or(0.0),
                x.cutlet_us,
                x.cublas_us.unwrap_or(0.0),
                100.0 * x.floor_us / x.cutlet_us,
                row.kernel
            );
        }
    }
    let failed_checks: Vec<&Row> = rows
        .iter()
        .filter(|r| r.measured().is_some_and(|x| !x.passed()))
        .collect();
    for row in failed_checks {
        let _ = writeln!(out, "CHECK FAILED: {} ({})", row.label(), row.kernel);
    }
    for row in rows {
        if let Outcome::Failed(why) = &row.outcome {
            let _ = writeln!(out, "error: {}: {why}", row.label());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(m: usize, cutlet: f64, cublas: f64) -> Row {
        Row {
            shape: Shape {
                name: String::new(),
                m,
                n: 4096,
                k: 4096,
            },
            dtype: "bf16".into(),
            kernel: "k".into(),
            outcome: Outcome::Measured(Measured {
                cutlet_us: cutlet,
                cublas_us: Some(cublas),
                bytes: 1e6,
                floor_us: 1.0,
                check: Some(("host f64", 1e-3, 1e-2)),
            }),
        }
    }

    #[test]
    fn the_summary_names_the_shapes_below_one() {
        let rows = vec![row(16, 20.0, 10.0), row(4096, 10.0, 40.0)];
        let (mean, count) = geometric_mean(&rows).unwrap();
        assert_eq!(count, 2);
        assert!((mean - 2f64.sqrt()).abs() < 1e-12);
        let text = summary(&rows);
        assert!(text.contains("below 1.0: 1 shapes"), "{text}");
        assert!(text.contains("16x4096x4096"), "{text}");
        assert!(text.contains("minimum: 0.500"), "{text}");
    }

    #[test]
    fn csv_and_json_hold_one_record_per_shape() {
        let mut rows = vec![row(16, 20.0, 10.0)];
        rows.push(Row {
            outcome: Outcome::Failed("no \"GPU\"".into()),
            ..row(1, 1.0, 1.0)
        });
        let text = csv(&rows);
        assert_eq!(text.lines().count(), 3);
        assert!(text.lines().nth(1).unwrap().contains(",0.5000,"), "{text}");
        let j = json(&rows, "H200", 4800.0);
        assert!(j.contains("\"ratio\": 0.5"), "{j}");
        assert!(j.contains("\"error\": \"no \\\"GPU\\\"\""), "{j}");
    }
}
