//! Column reductions (dim 0) of an f32 matrix under each column-kernel
//! tuning, aligned and ragged, timed against the DRAM bandwidth ceiling.
//!
//! What: for 16384 x 8192 and 16383 x 8191 (rows not 16-byte aligned), the
//! sum along dim 0 with each [`ColumnTuning`] below (bytes in flight per
//! thread; for unaligned rows shifted 16-byte vectors, or narrow or wide
//! strips; waves of row splits; L2 prefetch hints), printed as GB/s and %
//! of the ceiling, one line per variant, then a table.
//!
//! How: each figure is the median of 30 runs timed with CUDA events after a
//! warm-up, over two input buffers in turn (so no run reads what the
//! previous one left in L2); bytes are the input once plus the output once;
//! every variant's result is first compared with an f64 host sum on a
//! sample of columns.
//!
//! Run: `cargo run --release --example reduce_sweep [ROWSxCOLS]`.

mod common;

use common::{median_ms, open_device, shape_arg, AnyError};
use cutlet::device::{Device, Reduce, ReduceDim, ReduceWorkspace};
use cutlet::kernel::reduce::{ColumnTuning, ReduceOp};
use cutlet::tensor::{TensorMut, TensorRef};

/// The variants (as `tests/reduce/mod.rs`'s `TUNINGS`, which the ptxas and
/// GPU tests check): name, (bytes in flight, wide strips, waves, shifted,
/// prefetch); 0 and `None` are the plan's defaults.
type Variant = (&'static str, (u32, Option<bool>, u32, Option<bool>, bool));
const TUNINGS: [Variant; 10] = [
    ("default", (0, None, 0, None, false)),
    ("narrow", (0, None, 0, Some(false), false)),
    ("wide", (0, Some(true), 0, Some(false), false)),
    ("prefetch", (0, None, 0, None, true)),
    ("2waves", (0, None, 2, None, false)),
    ("2waves_prefetch", (0, None, 2, None, true)),
    ("128B", (128, None, 0, None, false)),
    ("128B_prefetch", (128, None, 0, None, true)),
    ("32B", (32, None, 0, None, false)),
    ("64B", (64, None, 0, None, false)),
];

fn main() -> Result<(), AnyError> {
    let (rows, cols) = shape_arg()?;
    let (device, info, ceiling) = open_device()?;
    println!(
        "{} ({} SMs), ceiling {ceiling:.0} GB/s",
        info.name, info.sm_count
    );
    let mut table = Vec::new();
    for (rows, cols) in [(rows, cols), (rows - 1, cols - 1)] {
        for (name, (bytes, wide, waves, shifted, prefetch)) in TUNINGS {
            if cols % 4 == 0 && matches!(name, "narrow" | "wide") {
                continue; // aligned rows: the same kernel as the default
            }
            let tuning = ColumnTuning {
                bytes_in_flight: bytes,
                wide,
                waves,
                shifted,
                prefetch,
            };
            let gbps = measure(&device, rows, cols, tuning)?;
            let share = 100.0 * gbps / ceiling;
            let line =
                format!("{rows}x{cols} {name:>15}: {gbps:6.0} GB/s {share:5.1}% of the ceiling");
            println!("{line}");
            table.push(line);
        }
    }
    println!("--- dim 0 sweep ---");
    for line in table {
        println!("{line}");
    }
    Ok(())
}

/// Median bandwidth of the dim-0 sum of a `rows x cols` matrix with
/// `tuning`, after checking sampled columns against the host.
fn measure(
    device: &Device,
    rows: usize,
    cols: usize,
    tuning: ColumnTuning,
) -> Result<f64, AnyError> {
    let stream = device.default_stream();
    let host: Vec<f32> = (0..rows * cols)
        .map(|i| ((i * 7919) % 1013) as f32 / 1013.0 - 0.5)
        .collect();
    let inputs = [stream.clone_htod(&host)?, stream.clone_htod(&host)?];
    let mut out = stream.clone_htod(&vec![f32::NAN; cols])?;
    let mut workspace = ReduceWorkspace::new();
    let reduce = Reduce::new(device, ReduceOp::Sum, ReduceDim::First).tuning(tuning);
    let mut call = |i: usize, out: &mut cudarc::driver::CudaSlice<f32>| -> Result<(), AnyError> {
        let input = TensorRef::row_major(&inputs[i % 2], rows, cols)?;
        reduce.run(
            input.into(),
            TensorMut::vector(out).into(),
            &mut workspace,
            &stream,
        )?;
        Ok(())
    };
    call(0, &mut out)?;
    stream.synchronize()?;
    let got = stream.clone_dtoh(&out)?;
    for c in (0..cols).step_by(cols / 13 + 1).chain([cols - 1]) {
        let (want, magnitude) = (0..rows).fold((0f64, 0f64), |(s, m), r| {
            let x = f64::from(host[r * cols + c]);
            (s + x, m + x.abs())
        });
        let tol = 1100.0 * 2f64.powi(-24) * magnitude + 1e-30;
        if (f64::from(got[c]) - want).abs() > tol || got[c].is_nan() {
            return Err(format!("{tuning:?} column {c}: got {}, want {want}", got[c]).into());
        }
    }
    let ms = median_ms(&stream, 5, |i| call(i, &mut out))?;
    let bytes = (rows * cols + cols) as f64 * 4.0;
    Ok(bytes / (ms * 1e-3) / 1e9)
}
