//! The proving kernel, `c = a + b`, timed against the DRAM bandwidth ceiling.
//!
//! What: adds two vectors of 2^28 elements (f32 and f16) with cutlet's
//! `vector_add`, a kernel assembled from PTX snippets and compiled by the
//! driver JIT, and reports the bandwidth it reaches.
//!
//! How:
//! 1. The first call generates the PTX, JIT-compiles it and launches; its
//!    wall time is printed (the module cache serves every later call).
//! 2. The result is checked against the host on every element.
//! 3. After warm-up, 50 launches are timed with CUDA events and the median is
//!    turned into GB/s (bytes counted once: two reads and one write per
//!    element), beside the ceiling 2 x memory clock x bus width.
//!
//! Run: `cargo run --release --example vector_add` (needs an NVIDIA GPU and driver).
//!
//! Constraints: about 3 GiB of free device memory per element type at f32.

use std::time::Instant;

use cudarc::driver::sys::CUevent_flags;
use cutlet::device::{vector_add, Device};
use cutlet::numeric::Element;
use half::f16;

const N: usize = 1 << 28;
const RUNS: usize = 50;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::new(0)?;
    let info = device.info()?;
    let ceiling = info.dram_bandwidth_gbps();
    println!(
        "{} (cc {}.{}), DRAM ceiling {ceiling:.0} GB/s",
        info.name, info.compute_capability.0, info.compute_capability.1
    );
    run::<f32>(&device, ceiling, |i| (i % 1000) as f32 * 0.5, |x| x)?;
    run::<f16>(
        &device,
        ceiling,
        |i| f16::from_f32((i % 100) as f32 * 0.25),
        f16::to_f32,
    )?;
    Ok(())
}

fn run<T: Element + cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(
    device: &Device,
    ceiling: f64,
    value: impl Fn(usize) -> T,
    to_f32: impl Fn(T) -> f32,
) -> Result<(), Box<dyn std::error::Error>> {
    let stream = device.default_stream();
    let a: Vec<T> = (0..N).map(&value).collect();
    let b: Vec<T> = (0..N).map(|i| value(i + 7)).collect();
    let da = stream.clone_htod(&a)?;
    let db = stream.clone_htod(&b)?;
    let mut dc = stream.alloc_zeros::<T>(N)?;

    let start = Instant::now();
    vector_add(device, &da, &db, &mut dc, &stream)?;
    stream.synchronize()?;
    let first_call = start.elapsed();

    let c = stream.clone_dtoh(&dc)?;
    let wrong = (0..N)
        .filter(|&i| to_f32(c[i]) != to_f32(a[i]) + to_f32(b[i]))
        .count();

    for _ in 0..5 {
        vector_add(device, &da, &db, &mut dc, &stream)?;
    }
    let mut times = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let begin = stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        vector_add(device, &da, &db, &mut dc, &stream)?;
        let end = stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        times.push(begin.elapsed_ms(&end)?);
    }
    times.sort_by(f32::total_cmp);
    let median_ms = f64::from(times[RUNS / 2]);
    let bytes = 3.0 * (N * std::mem::size_of::<T>()) as f64;
    let gbps = bytes / (median_ms * 1e-3) / 1e9;
    println!(
        "vector_add {:>4}: n = 2^28, first call {:>6.1} ms, median {median_ms:.3} ms, {gbps:.0} GB/s = {:.1}% of the ceiling, {wrong} wrong elements",
        T::TYPE.to_string(),
        first_call.as_secs_f64() * 1e3,
        100.0 * gbps / ceiling
    );
    if wrong != 0 {
        return Err(format!("{wrong} elements differ from the host sum").into());
    }
    Ok(())
}
