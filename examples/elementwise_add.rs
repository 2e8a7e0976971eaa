//! The CuTe DSL elementwise tutorial, step by step, with cutlet: `c = a + b`
//! on fp16 matrices, timed against the DRAM bandwidth ceiling.
//!
//! What: adds two 16384 x 8192 f16 matrices four ways and prints each way's
//! bandwidth and its share of the ceiling (2 x memory clock x bus width),
//! then `(a * b + c).gelu()` in bf16, a ragged 16383 x 8191 add, the first
//! call's time and a cached call's host time.
//!
//! How (each step is the same kernel family with a different tiling):
//! 1. naive: threads `(8,32)`, one value each: one 2-byte access per element;
//! 2. vectorized: one 16-byte vector per thread (values `(1,8)`);
//! 3. TV layout: values `(4,8)`, four 16-byte loads per input in flight per
//!    thread, `make_layout_tv` tiling, as the tutorial's final kernel;
//! 4. closure: `|a, b| a + b` traced to an expression on every call (the
//!    tutorial's lambda), default TV tiling.
//!
//! Bytes are counted once per element read and written; each figure is the
//! median of 30 runs timed with CUDA events, after a warm-up.
//!
//! Run: `cargo run --release --example elementwise_add [ROWSxCOLS]`
//! (needs an NVIDIA GPU and driver).
//!
//! Constraints: about 1.5 GiB of free device memory at the default shape;
//! every step is checked against the host on a sample of elements.

mod common;

use std::time::Instant;

use common::{median_ms, open_device, shape_arg, AnyError};
use cudarc::driver::CudaSlice;
use cutlet::device::Elementwise;
use cutlet::fusion::{Expr, Expression};
use cutlet::layout::Layout;
use cutlet::tensor::{TensorArg, TensorMut, TensorRef};
use half::{bf16, f16};

fn main() -> Result<(), AnyError> {
    let (rows, cols) = shape_arg()?;
    let (device, info, ceiling) = open_device()?;
    println!(
        "{} (cc {}.{}), DRAM ceiling {ceiling:.0} GB/s",
        info.name, info.compute_capability.0, info.compute_capability.1
    );
    let stream = device.default_stream();
    let n = rows * cols;
    let a_host: Vec<f16> = (0..n)
        .map(|i| f16::from_f32((i % 1000) as f32 * 0.01))
        .collect();
    let b_host: Vec<f16> = (0..n)
        .map(|i| f16::from_f32((i % 37) as f32 * 0.5))
        .collect();
    let a = stream.clone_htod(&a_host)?;
    let b = stream.clone_htod(&b_host)?;
    let mut c = stream.alloc_zeros::<f16>(n)?;
    let add = Expression::from_fn(|a: Expr, b: Expr| a + b);
    let layout = |s: &str| -> Result<Layout, AnyError> { Ok(s.parse()?) };

    let t = Instant::now();
    let first = Elementwise::new(&device, add.clone());
    run(&first, &a, &b, &mut c, rows, cols)?;
    stream.synchronize()?;
    println!(
        "first call (trace, generate, JIT, launch): {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );

    let bytes = 3.0 * n as f64 * 2.0;
    let steps: Vec<(&str, Elementwise)> = vec![
        (
            "1 naive (1 element/thread)",
            Elementwise::new(&device, add.clone())
                .with_layouts(layout("(8,32):(32,1)")?, layout("(1,1):(1,1)")?)?,
        ),
        (
            "2 vectorized (16 B/thread)",
            Elementwise::new(&device, add.clone())
                .with_layouts(layout("(8,32):(32,1)")?, layout("(1,8):(8,1)")?)?,
        ),
        (
            "3 TV layout (4x16 B/thread)",
            Elementwise::new(&device, add.clone())
                .with_layouts(layout("(8,32):(32,1)")?, layout("(4,8):(8,1)")?)?,
        ),
    ];
    for (name, op) in &steps {
        let ms = median_ms(&stream, 2, |_| run(op, &a, &b, &mut c, rows, cols))?;
        report(name, bytes, ms, ceiling);
        check(&stream.clone_dtoh(&c)?, &a_host, &b_host)?;
    }
    let ms = median_ms(&stream, 2, |_| {
        let traced = Elementwise::new(&device, Expression::from_fn(|a: Expr, b: Expr| a + b));
        run(&traced, &a, &b, &mut c, rows, cols)
    })?;
    report("4 closure |a, b| a + b", bytes, ms, ceiling);
    check(&stream.clone_dtoh(&c)?, &a_host, &b_host)?;

    // Ragged: one row and one column fewer, the same buffers.
    let (rr, rc) = (rows - 1, cols - 1);
    let op = Elementwise::new(&device, add.clone());
    let ms = median_ms(&stream, 2, |_| run(&op, &a, &b, &mut c, rr, rc))?;
    report(
        &format!("ragged {rr}x{rc} add"),
        3.0 * (rr * rc) as f64 * 2.0,
        ms,
        ceiling,
    );

    // (a * b + c).gelu() in bf16, three inputs.
    let x: CudaSlice<bf16> = stream.clone_htod(&vec![bf16::from_f32(0.5); n])?;
    let y: CudaSlice<bf16> = stream.clone_htod(&vec![bf16::from_f32(-1.25); n])?;
    let z: CudaSlice<bf16> = stream.clone_htod(&vec![bf16::from_f32(2.0); n])?;
    let mut out = stream.alloc_zeros::<bf16>(n)?;
    let gelu = Elementwise::new(
        &device,
        Expression::from_fn(|a: Expr, b: Expr, c: Expr| (a * b + c).gelu()),
    );
    let ms = median_ms(&stream, 2, |_| {
        let inputs: [TensorArg; 3] = [
            TensorRef::row_major(&x, rows, cols)?.into(),
            TensorRef::row_major(&y, rows, cols)?.into(),
            TensorRef::row_major(&z, rows, cols)?.into(),
        ];
        gelu.run(
            &inputs,
            TensorMut::row_major(&mut out, rows, cols)?.into(),
            &[],
            &stream,
        )
    })?;
    report("bf16 (a*b+c).gelu()", 4.0 * n as f64 * 2.0, ms, ceiling);
    let sample = stream.clone_dtoh(&out)?[n / 2].to_f64();
    let want = Expression::from_fn(|a: Expr, b: Expr, c: Expr| (a * b + c).gelu())
        .eval(&[0.5, -1.25, 2.0], &[]);
    if (sample - want).abs() > 2e-2 {
        return Err(format!("gelu check: got {sample}, want {want}").into());
    }

    // Cached call: host time of back-to-back calls on a tiny tensor.
    let small_a = stream.clone_htod(&[f16::ONE; 8])?;
    let small_b = stream.clone_htod(&[f16::ONE; 8])?;
    let mut small_c = stream.alloc_zeros::<f16>(8)?;
    let calls = 2000;
    run(&op, &small_a, &small_b, &mut small_c, 1, 8)?;
    stream.synchronize()?;
    let t = Instant::now();
    for _ in 0..calls {
        run(&op, &small_a, &small_b, &mut small_c, 1, 8)?;
    }
    let per_call = t.elapsed().as_secs_f64() * 1e6 / calls as f64;
    stream.synchronize()?;
    println!("cached call, host time including the launch: {per_call:.2} us/call");
    println!("correctness: ok");
    Ok(())
}

/// `c = op(a, b)` over `rows x cols` row-major views.
fn run(
    op: &Elementwise,
    a: &CudaSlice<f16>,
    b: &CudaSlice<f16>,
    c: &mut CudaSlice<f16>,
    rows: usize,
    cols: usize,
) -> cutlet::Result<()> {
    let stream = op.device().default_stream();
    let inputs: [TensorArg; 2] = [
        TensorRef::row_major(a, rows, cols)?.into(),
        TensorRef::row_major(b, rows, cols)?.into(),
    ];
    op.run(
        &inputs,
        TensorMut::row_major(c, rows, cols)?.into(),
        &[],
        &stream,
    )
}

fn report(name: &str, bytes: f64, ms: f64, ceiling: f64) {
    let gbps = bytes / (ms * 1e-3) / 1e9;
    println!(
        "{name:<32} {ms:8.3} ms {gbps:8.0} GB/s {:6.1}% of ceiling",
        100.0 * gbps / ceiling
    );
}

/// Every 997th element of `c` equals `a + b` rounded to f16.
fn check(c: &[f16], a: &[f16], b: &[f16]) -> Result<(), AnyError> {
    for i in (0..c.len()).step_by(997) {
        let want = f16::from_f32(a[i].to_f32() + b[i].to_f32());
        if c[i] != want {
            return Err(format!("element {i}: got {}, want {want}", c[i]).into());
        }
    }
    Ok(())
}
