//! `cutlet layout EXPR` (to be written).

use std::process::ExitCode;

/// Arguments of `cutlet layout`.
#[derive(clap::Args, Debug)]
pub struct LayoutArgs {
    /// The expression, or '-' to read one expression per line from standard input.
    pub expr: String,
    /// Also print the layout as a table (rank-2 layouts).
    #[arg(long)]
    pub table: bool,
    /// Write an SVG picture of the result to FILE.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<std::path::PathBuf>,
}

/// Runs `cutlet layout`.
pub fn run(args: &LayoutArgs) -> ExitCode {
    let _ = args;
    ExitCode::from(2)
}
