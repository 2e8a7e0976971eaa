//! Writes the PTX of every default SM80 GEMM configuration into a folder,
//! one file per kernel, so that two versions of the generator can be
//! compared with `diff -r` (no GPU needed).
//!
//! What: `sm80_default_spec` for every dtype combination x A/B major x
//! output major, the 256x128 variant `sm80_spec_for_problem` picks for a
//! 4095 x 4097 problem on 132 SMs, and three fused epilogues (row bias +
//! relu, column bias + gelu, both biases + select) on bf16 and f16 specs.
//!
//! Run: `cargo run --example gemm_ptx_dump -- OUT_DIR`; it prints the
//! number of kernels and their total PTX lines.

use cutlet::fusion::{scalar, Expr, Expression};
use cutlet::kernel::gemm::{sm80_default_spec, sm80_default_specs};
use cutlet::kernel::gemm::{BiasAxis, Epilogue, GemmSpec, OperandMajor, OutputMajor};
use cutlet::numeric::ElementType::{BF16, F16, F32};
use std::path::PathBuf;

/// Every default spec, its 256x128 variant where different, and the fused ones.
fn specs() -> Vec<GemmSpec> {
    let mut out = sm80_default_specs();
    let relu_row = Expression::from_fn(|acc: Expr, c: Expr, bias: Expr| {
        (acc * scalar(0) + c * scalar(1) + bias).relu()
    });
    let gelu_col =
        Expression::from_fn(|acc: Expr, _c: Expr, bias: Expr| (acc * scalar(0) + bias).gelu());
    let custom = Expression::from_fn(|acc: Expr, c: Expr, row: Expr, col: Expr| {
        let x = acc * scalar(0) + c * scalar(1) + row * col;
        x.gt(scalar(2)).select(x.clone() * scalar(3), x.sigmoid())
    });
    let fused = [
        Epilogue::new(relu_row, &[BiasAxis::Row]).expect("one row bias"),
        Epilogue::new(gelu_col, &[BiasAxis::Column]).expect("one column bias"),
        Epilogue::new(custom, &[BiasAxis::Row, BiasAxis::Column]).expect("two biases"),
    ];
    for (ab, d, a_major, d_major) in [
        (BF16, BF16, OperandMajor::K, OutputMajor::N),
        (F16, F32, OperandMajor::MN, OutputMajor::M),
    ] {
        for epilogue in &fused {
            let mut spec = sm80_default_spec(ab, ab, d, F32, a_major, OperandMajor::K, d_major)
                .expect("a default configuration");
            spec.epilogue.fusion = epilogue.clone();
            out.push(spec);
        }
    }
    out
}

fn main() {
    let Some(dir) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: gemm_ptx_dump OUT_DIR");
        std::process::exit(2);
    };
    std::fs::create_dir_all(&dir).expect("the output folder can be created");
    let (mut kernels, mut lines) = (0, 0);
    for spec in specs() {
        let ptx = spec.ptx().expect("default configurations generate");
        let name = spec.kernel_name();
        std::fs::write(dir.join(format!("{name}.ptx")), &ptx).expect("the file can be written");
        kernels += 1;
        lines += ptx.lines().count();
    }
    println!("{kernels} kernels, {lines} PTX lines in {}", dir.display());
}
