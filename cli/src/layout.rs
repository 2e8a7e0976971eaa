//! `cutlet layout EXPR`: the layout algebra as a calculator.

use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

use cutlet::layout::{layout_svg, print_layout, tv_layout_svg, LayoutError};

mod eval;
mod expr;

use eval::{evaluate, Value};

/// Arguments of `cutlet layout`.
#[derive(clap::Args, Debug)]
#[command(after_long_help = EXPR_HELP)]
pub struct LayoutArgs {
    /// The expression, or '-' to read one expression per line from standard input.
    ///
    /// Prints the result in CuTe notation on one line; for make_layout_tv, the
    /// tile and the TV layout, one space between: `TILER TV`.
    pub expr: String,
    /// Also print the layout as a table (rank-2 layouts).
    #[arg(long)]
    pub table: bool,
    /// Write an SVG picture of the result to FILE (the TV picture for make_layout_tv).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<std::path::PathBuf>,
}

const EXPR_HELP: &str = "\
EXPR is a layout in CuTe notation, a bare shape (its compact column-major
layout; in a tiler position a by-mode tiler, as in CuTe), a by-mode tiler
[T0, T1, ...], or a call; calls nest:

  composition(A, B)        complement(A, M)   complement(A)  (M = cosize(A))
  coalesce(A)  filter(A)   right_inverse(A)   left_inverse(A)
  logical_divide(A, T)  zipped_divide(A, T)  tiled_divide(A, T)  flat_divide(A, T)
  logical_product(A, T) zipped_product(A, T) tiled_product(A, T) flat_product(A, T)
  blocked_product(A, B)    raked_product(A, B)
  make_layout_tv(THR, VAL) -> prints `TILER TV`, e.g. `(4,8) ((8,4),1):((4,1),0)`
  upcast(A, n)             downcast(A, n)

Examples:
  cutlet layout '(4,(2,2)):(2,(1,8))'
  cutlet layout 'zipped_divide((8,8):(8,1), [2:1, 4:1])' --table
  cutlet layout 'make_layout_tv((4,8):(8,1), 1:1)' --svg tv.svg
  cutlet layout - < exprs.txt    (one result per line; a bad line prints
                                  'error: line N: ...' and the exit code is 2)

Integers must lie within [-2^31, 2^31], shapes be positive, and every layout's
size and cosize be at most 2^31.";

/// Runs `cutlet layout`.
pub fn run(args: &LayoutArgs) -> ExitCode {
    if args.expr == "-" {
        if args.svg.is_some() {
            eprintln!("error: --svg draws one result; give one EXPR instead of '-'");
            return ExitCode::from(2);
        }
        return run_lines(args.table);
    }
    let value = match evaluate(&args.expr) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let _ = write_value(&mut out, &value, args.table);
    let _ = out.flush();
    if let Some(path) = &args.svg {
        if let Err(e) = write_svg(path, &value) {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}

/// Why `--svg` wrote no picture.
#[derive(Debug, thiserror::Error)]
enum SvgError {
    /// The result is a by-mode tiler, which has no picture.
    #[error("no picture of the by-mode tiler {0}; give a layout")]
    Tiler(String),
    /// The layout cannot be drawn.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// The file cannot be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file, as given.
        path: String,
        /// The operating system's error.
        source: io::Error,
    },
}

/// Draws `value` into the SVG file `path`.
fn write_svg(path: &std::path::Path, value: &Value) -> Result<(), SvgError> {
    let svg = match value {
        Value::Tv(tile, tv) => tv_layout_svg(tv, tile)?,
        Value::Layout(l) => layout_svg(l)?,
        Value::Tiler(t) => return Err(SvgError::Tiler(t.to_string())),
    };
    std::fs::write(path, svg).map_err(|source| SvgError::Write {
        path: path.display().to_string(),
        source,
    })
}

/// The result line, then the table when asked for (a one-line note where
/// there is none). `print_layout` opens with the layout itself, as CuTe's
/// does; where that repeats the result line it is left out.
fn write_value(out: &mut impl Write, value: &Value, table: bool) -> io::Result<()> {
    let line = format!("{value}\n");
    out.write_all(line.as_bytes())?;
    if table {
        match value.layout().map(print_layout) {
            Some(Ok(text)) => {
                out.write_all(text.strip_prefix(line.as_str()).unwrap_or(&text).as_bytes())?
            }
            Some(Err(e)) => writeln!(out, "note: no table: {e}")?,
            None => writeln!(out, "note: no table of a by-mode tiler")?,
        }
    }
    Ok(())
}

/// One expression per line of standard input, one result per line of
/// standard output; blank lines are skipped.
fn run_lines(table: bool) -> ExitCode {
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut failed = false;
    for (n, line) in stdin.lock().split(b'\n').enumerate() {
        let line = match line {
            Ok(bytes) => bytes,
            Err(e) => {
                let _ = out.flush();
                eprintln!("error: cannot read standard input: {e}");
                return ExitCode::from(2);
            }
        };
        let written = match std::str::from_utf8(&line) {
            Ok(text) if text.trim().is_empty() => continue,
            Ok(text) => match evaluate(text) {
                Ok(value) => write_value(&mut out, &value, table),
                Err(e) => {
                    failed = true;
                    writeln!(out, "error: line {}: {e}", n + 1)
                }
            },
            Err(e) => {
                failed = true;
                writeln!(out, "error: line {}: not UTF-8 text: {e}", n + 1)
            }
        };
        if written.is_err() {
            return ExitCode::from(2);
        }
    }
    if out.flush().is_err() || failed {
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}
