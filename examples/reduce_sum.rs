//! Sums of an f32 matrix along each dimension and in full, timed against the
//! DRAM bandwidth ceiling.
//!
//! What: sums a 16384 x 8192 f32 matrix along dim -1 (one value per row),
//! dim 0 (one per column) and over everything, then the ragged 16383 x 8191
//! shape, and prints each one's bandwidth, its share of the ceiling
//! (2 x memory clock x bus width) and PyTorch's share on an H200 for
//! comparison (73% along dim -1, 84% along dim 0); then the first call's
//! time and a cached call's host time.
//!
//! How:
//! 1. `Reduce::new(&device, ReduceOp::Sum, dim)` plans the call: a row kernel
//!    (16-byte loads along rows, warp butterflies, shared memory) for dim -1,
//!    a column kernel (each thread a 16-byte column strip walking rows, rows
//!    split over CTAs, the last CTA of each column tile combining the
//!    splits' f32 partials in the same launch) for dim 0;
//! 2. each figure is the median of 30 runs timed with CUDA events after a
//!    warm-up; bytes are the input once plus the output once;
//! 3. every result is checked against an f64 host sum on a sample of rows
//!    and columns.
//!
//! Run: `cargo run --release --example reduce_sum [ROWSxCOLS]` (needs an
//! NVIDIA GPU and driver).
//!
//! Constraints: about 0.6 GiB of free device memory at the default shape.

use std::time::Instant;

use cudarc::driver::sys::CUevent_flags;
use cutlet::device::{Device, Reduce, ReduceDim, ReduceWorkspace};
use cutlet::kernel::reduce::ReduceOp;
use cutlet::tensor::{TensorMut, TensorRef};

type AnyError = Box<dyn std::error::Error>;

const RUNS: usize = 30;

fn main() -> Result<(), AnyError> {
    let (rows, cols) = match std::env::args().nth(1) {
        Some(arg) => parse_shape(&arg)?,
        None => (16384, 8192),
    };
    let device = Device::new(0)?;
    let info = device.info()?;
    let ceiling = info.dram_bandwidth_gbps();
    println!(
        "{} ({} SMs), DRAM ceiling {ceiling:.0} GB/s",
        info.name, info.sm_count
    );
    let mut workspace = ReduceWorkspace::new();
    for (rows, cols) in [(rows, cols), (rows - 1, cols - 1)] {
        for (dim, torch) in [
            (ReduceDim::Last, Some(73.0)),
            (ReduceDim::First, Some(84.0)),
            (ReduceDim::All, None),
        ] {
            let gbps = measure(&device, &mut workspace, rows, cols, dim)?;
            let share = 100.0 * gbps / ceiling;
            let torch = torch.map_or(String::new(), |t| format!(" (PyTorch on H200: {t:.0}%)"));
            println!(
                "sum {rows}x{cols} f32 dim {dim:?}: {gbps:.0} GB/s = {share:.1}% of ceiling{torch}"
            );
        }
    }
    Ok(())
}

/// The median bandwidth of `Reduce(sum, dim)` over a `rows x cols` matrix,
/// after checking a sample of the result against the host.
fn measure(
    device: &Device,
    workspace: &mut ReduceWorkspace,
    rows: usize,
    cols: usize,
    dim: ReduceDim,
) -> Result<f64, AnyError> {
    let stream = device.default_stream();
    let host: Vec<f32> = (0..rows * cols)
        .map(|i| ((i * 7919) % 1013) as f32 / 1013.0 - 0.5)
        .collect();
    let x = stream.clone_htod(&host)?;
    let outputs = match dim {
        ReduceDim::Last => rows,
        ReduceDim::First => cols,
        ReduceDim::All => 1,
    };
    let mut out = stream.alloc_zeros::<f32>(outputs)?;
    let reduce = Reduce::new(device, ReduceOp::Sum, dim);
    let start = Instant::now();
    let call = |out: &mut cudarc::driver::CudaSlice<f32>, workspace: &mut ReduceWorkspace| {
        let input = TensorRef::row_major(&x, rows, cols)?;
        reduce.run(
            input.into(),
            TensorMut::vector(out).into(),
            workspace,
            &stream,
        )
    };
    call(&mut out, workspace)?;
    stream.synchronize()?;
    let first = start.elapsed();
    check(&host, rows, cols, dim, &stream.clone_dtoh(&out)?)?;
    let mut times = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let start = stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        call(&mut out, workspace)?;
        let end = stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        end.synchronize()?;
        times.push(f64::from(start.elapsed_ms(&end)?));
    }
    times.sort_by(f64::total_cmp);
    let median_ms = times[RUNS / 2];
    let host_start = Instant::now();
    for _ in 0..100 {
        call(&mut out, workspace)?;
    }
    let host_us = host_start.elapsed().as_secs_f64() * 1e6 / 100.0;
    stream.synchronize()?;
    println!(
        "  first call {:.1} ms, cached call {host_us:.1} us of host time (enqueue)",
        first.as_secs_f64() * 1e3
    );
    let bytes = (rows * cols + outputs) as f64 * 4.0;
    Ok(bytes / (median_ms * 1e-3) / 1e9)
}

/// Compares sampled outputs with an f64 host sum.
fn check(
    host: &[f32],
    rows: usize,
    cols: usize,
    dim: ReduceDim,
    got: &[f32],
) -> Result<(), AnyError> {
    let line = |i: usize| -> (f64, f64) {
        let values: Vec<f64> = match dim {
            ReduceDim::Last => (0..cols).map(|c| f64::from(host[i * cols + c])).collect(),
            ReduceDim::First => (0..rows).map(|r| f64::from(host[r * cols + i])).collect(),
            ReduceDim::All => host.iter().map(|&v| f64::from(v)).collect(),
        };
        (values.iter().sum(), values.iter().map(|v| v.abs()).sum())
    };
    for i in (0..got.len()).step_by((got.len() / 7).max(1)) {
        let (want, magnitude) = line(i);
        let tol = 1100.0 * 2f64.powi(-24) * magnitude + 1e-30;
        if (f64::from(got[i]) - want).abs() > tol {
            return Err(format!("{dim:?} output {i}: got {}, want {want}", got[i]).into());
        }
    }
    Ok(())
}

fn parse_shape(arg: &str) -> Result<(usize, usize), AnyError> {
    let (r, c) = arg.split_once('x').ok_or("shape must be ROWSxCOLS")?;
    Ok((r.parse()?, c.parse()?))
}
