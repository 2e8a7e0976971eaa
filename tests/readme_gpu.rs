//! The README's complete programs, run on a GPU as a reader would run
//! them: each `tests/readme/*.rs` is a README block word for word but for
//! `pub fn main` (`tests/doc_programs.rs` checks that), and each test
//! calls its `main`, which checks its own results. The quickstart needs
//! compute capability 8.0 or newer, the 8-bit programs 9.0; each test skips
//! with a printed reason where no driver or such GPU is found.

// The copies keep the README's layout, so rustfmt leaves them alone.
#[rustfmt::skip]
#[path = "readme/fp8_output.rs"]
mod fp8_output;
#[rustfmt::skip]
#[path = "readme/fp8_scales.rs"]
mod fp8_scales;
#[rustfmt::skip]
#[path = "readme/quantize_blocks.rs"]
mod quantize_blocks;
#[rustfmt::skip]
#[path = "readme/quantize_rows.rs"]
mod quantize_rows;
#[rustfmt::skip]
#[path = "readme/quickstart.rs"]
mod quickstart;

use cutlet_harness::{device_or_skip, sm90_or_skip};

type Program = fn() -> Result<(), Box<dyn std::error::Error>>;

fn run(test: &str, program: Program) {
    if let Err(e) = program() {
        panic!("{test}: the README's program failed: {e}");
    }
}

#[test]
fn readme_quickstart_runs() {
    let test = "readme_quickstart_runs";
    let Some(device) = device_or_skip(test) else {
        return;
    };
    if device.compute_capability() < (8, 0) {
        eprintln!("skipped {test}: the quickstart's SM80 GEMM needs compute capability 8.0");
        return;
    }
    run(test, quickstart::main);
}

#[test]
fn readme_fp8_gemm_with_row_and_column_scales_runs() {
    let test = "readme_fp8_gemm_with_row_and_column_scales_runs";
    if sm90_or_skip(test, "FP8 GEMMs").is_some() {
        run(test, fp8_scales::main);
    }
}

#[test]
fn readme_fp8_output_with_scale_and_amax_runs() {
    let test = "readme_fp8_output_with_scale_and_amax_runs";
    if sm90_or_skip(test, "FP8 GEMMs").is_some() {
        run(test, fp8_output::main);
    }
}

#[test]
fn readme_quantize_rows_then_fp8_gemm_runs() {
    let test = "readme_quantize_rows_then_fp8_gemm_runs";
    if sm90_or_skip(test, "FP8 GEMMs").is_some() {
        run(test, quantize_rows::main);
    }
}

#[test]
fn readme_quantize_blocks_then_block_scaled_gemm_runs() {
    let test = "readme_quantize_blocks_then_block_scaled_gemm_runs";
    if sm90_or_skip(test, "FP8 GEMMs").is_some() {
        run(test, quantize_blocks::main);
    }
}
