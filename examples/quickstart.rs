//! The README's "Using it from Rust" program on random data, with each
//! result checked against the host (the README's own copy is compiled by
//! `cargo test` as a doctest).
//!
//! What it does: one GEMM through the typed adapter, one fused elementwise
//! kernel built from a closure, one row reduction of a mapped input.
//!
//! How: `GemmUniversalAdapter::<DefaultBf16Sm80>` (D = A·B, bf16 in, f32
//! accumulation), `Elementwise` over `gelu(x * w + bias_row)`, and
//! `Reduce::along(&device, Sum, -1)` of `x²`; each kernel is generated and
//! JIT-compiled on first use.
//!
//! Run: `cargo run --release --example quickstart` (needs an NVIDIA GPU of
//! compute capability 8.0 or newer and its driver).
//!
//! Constraints: sizes are small and fixed; the checks use tolerances for bf16
//! and f32 arithmetic.

use cutlet::device::gemm::{
    Arguments, DefaultBf16Sm80, GemmShape, GemmUniversalAdapter, Operand, OutputOperand,
};
use cutlet::device::{Device, Elementwise, Reduce, ReduceWorkspace};
use cutlet::fusion::{Expr, Expression};
use cutlet::half::bf16;
use cutlet::kernel::reduce::ReduceOp;
use cutlet::tensor::{TensorMut, TensorRef};
use rand::{Rng, SeedableRng};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::new(0)?;
    let stream = device.default_stream();
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);

    // D = A * B, bf16 in, f32 accumulate, bf16 out; A row-major M x K, B column-major K x N.
    let (m, n, k) = (256, 384, 128);
    let a_host: Vec<bf16> = (0..m * k)
        .map(|_| bf16::from_f32(rng.random_range(-1.0..1.0)))
        .collect();
    let b_host: Vec<bf16> = (0..n * k)
        .map(|_| bf16::from_f32(rng.random_range(-1.0..1.0)))
        .collect();
    let a = stream.clone_htod(&a_host)?;
    let b = stream.clone_htod(&b_host)?;
    let mut d = stream.alloc_zeros::<bf16>(m * n)?;
    let gemm = GemmUniversalAdapter::<DefaultBf16Sm80>::new(&device);
    let mut args = Arguments::product(
        GemmShape::new(m, n, k, 1),
        Operand::new(a.as_view(), k, 0),           // A: ld = K
        Operand::new(b.as_view(), k, 0),           // B: ld = K
        OutputOperand::new(d.as_view_mut(), n, 0), // D: ld = N
        1.0,                                       // alpha
    );
    gemm.run(&mut args, &stream)?;
    drop(args);
    let d_host = stream.clone_dtoh(&d)?;
    let mut worst = 0.0f64;
    for i in 0..m {
        for j in 0..n {
            let exact: f64 = (0..k)
                .map(|p| {
                    f64::from(a_host[i * k + p].to_f32()) * f64::from(b_host[j * k + p].to_f32())
                })
                .sum();
            worst = worst
                .max((f64::from(d_host[i * n + j].to_f32()) - exact).abs() / (1.0 + exact.abs()));
        }
    }
    println!("gemm {m}x{n}x{k} bf16: max relative error {worst:.2e}");
    assert!(worst < 1e-2, "gemm result off by {worst}");

    // y = gelu(x * w + bias_row), one kernel, generated and JIT-compiled on first use.
    let (rows, cols) = (1000, 1027);
    let x_host: Vec<f32> = (0..rows * cols)
        .map(|_| rng.random_range(-2.0..2.0))
        .collect();
    let w_host: Vec<f32> = (0..rows * cols)
        .map(|_| rng.random_range(-2.0..2.0))
        .collect();
    let bias_host: Vec<f32> = (0..cols).map(|_| rng.random_range(-1.0..1.0)).collect();
    let (x, w, bias) = (
        stream.clone_htod(&x_host)?,
        stream.clone_htod(&w_host)?,
        stream.clone_htod(&bias_host)?,
    );
    let mut y = stream.alloc_zeros::<f32>(rows * cols)?;
    let expr = Expression::from_fn(|x: Expr, w: Expr, b: Expr| (x * w + b).gelu());
    let op = Elementwise::new(&device, expr.clone());
    op.run(
        &[
            TensorRef::row_major(&x, rows, cols)?.into(),
            TensorRef::row_major(&w, rows, cols)?.into(),
            TensorRef::broadcast_row(&bias, rows, cols)?.into(),
        ],
        TensorMut::row_major(&mut y, rows, cols)?.into(),
        &[],
        &stream,
    )?;
    let y_host = stream.clone_dtoh(&y)?;
    let worst = (0..rows * cols)
        .map(|i| {
            let exact = expr.eval(
                &[
                    f64::from(x_host[i]),
                    f64::from(w_host[i]),
                    f64::from(bias_host[i % cols]),
                ],
                &[],
            );
            (f64::from(y_host[i]) - exact).abs() / (1.0 + exact.abs())
        })
        .fold(0.0, f64::max);
    // tanh.approx.f32 (relative error about 2^-11) sets the tolerance.
    println!("elementwise gelu(x*w+b) {rows}x{cols} f32: max relative error {worst:.2e}");
    assert!(worst < 4e-3, "elementwise result off by {worst}");

    // Sum of squares of each row, f32 accumulation.
    let mut row_sums = stream.alloc_zeros::<f32>(rows)?;
    let mut workspace = ReduceWorkspace::new();
    Reduce::along(&device, ReduceOp::Sum, -1)?
        .map(Expression::from_fn(|x: Expr| &x * &x), &[])
        .run(
            TensorRef::row_major(&x, rows, cols)?.into(),
            TensorMut::vector(&mut row_sums).into(),
            &mut workspace,
            &stream,
        )?;
    let sums = stream.clone_dtoh(&row_sums)?;
    let worst = (0..rows)
        .map(|r| {
            let exact: f64 = x_host[r * cols..(r + 1) * cols]
                .iter()
                .map(|&v| f64::from(v) * f64::from(v))
                .sum();
            (f64::from(sums[r]) - exact).abs() / exact
        })
        .fold(0.0, f64::max);
    println!("reduce sum(x^2) along dim -1, {rows} rows: max relative error {worst:.2e}");
    assert!(worst < 1e-5, "reduction result off by {worst}");
    println!("quickstart: all three checks passed");
    Ok(())
}
