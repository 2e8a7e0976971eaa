//! What a new GEMM configuration costs a process that runs it once.
//!
//! What: builds the default bf16 GEMM for M x N x K (K-major A and B,
//! row-major bf16 D, f32 accumulation), runs it once and waits for the
//! result, and prints the wall time of that first run (PTX generation,
//! the driver's quick JIT, the launch and the GEMM itself) with its parts.
//! Then, unless `--exit-early` is given, it waits for the optimized kernel
//! that the background JIT compiles and prints when it was ready. With
//! `--exit-early` the process returns right after the first run, while the
//! background compile is still running: the exit must be clean (status 0).
//!
//! Run with the driver's disk cache off, so that the configuration is new:
//! `CUDA_CACHE_DISABLE=1 cargo run --release --example gemm_first_run -- [MxNxK] [--exit-early]`
//! (default 4096x4096x4096).
//!
//! Constraints: needs a GPU; the data is zeros (the first run's time does
//! not depend on it).

#[allow(dead_code)] // this example uses only `open_device` of the shared helpers
mod common;

use std::time::Instant;

use common::{open_device, AnyError};
use cutlet::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand};
use cutlet::half::bf16;
use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
use cutlet::numeric::ElementType;

fn main() -> Result<(), AnyError> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let exit_early = args.iter().any(|a| a == "--exit-early");
    let shape = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map_or("4096x4096x4096", String::as_str);
    let dims: Vec<usize> = shape
        .split('x')
        .map(str::parse)
        .collect::<Result<_, _>>()
        .map_err(|_| format!("invalid shape `{shape}`: expected MxNxK"))?;
    let [m, n, k] = dims[..] else {
        return Err(format!("invalid shape `{shape}`: expected MxNxK").into());
    };
    let (device, info, _) = open_device()?;
    let stream = device.default_stream();
    let a = stream.alloc_zeros::<bf16>(m * k)?;
    let b = stream.alloc_zeros::<bf16>(n * k)?;
    let mut d = stream.alloc_zeros::<bf16>(m * n)?;

    let start = Instant::now();
    let gemm = Gemm::builder()
        .a(ElementType::BF16, OperandMajor::K)
        .b(ElementType::BF16, OperandMajor::K)
        .d(ElementType::BF16, OutputMajor::N)
        .build(&device)?;
    let mut args = Arguments::product(
        GemmShape::new(m, n, k, 1),
        Operand::new(a.as_view(), k, 0),
        Operand::new(b.as_view(), k, 0),
        OutputOperand::new(d.as_view_mut(), n, 0),
        1.0,
    );
    gemm.run(&mut args, &stream)?;
    stream.synchronize()?;
    let first_run = start.elapsed();
    // Compiled already: this returns the kernel the run loaded.
    let kernel = gemm.initialize(&args, None)?;
    println!(
        "{}: first run of {} ({m}x{n}x{k}): {:.1} ms (generate {:.1} ms, jit {:.1} ms, used the {:?} kernel)",
        info.name,
        gemm.spec().kernel_name(),
        first_run.as_secs_f64() * 1e3,
        kernel.generate_time().as_secs_f64() * 1e3,
        kernel.compile_time().as_secs_f64() * 1e3,
        kernel.tier(),
    );
    if exit_early {
        println!(
            "exiting with the optimized compile still running: {:?} tier now",
            kernel.tier()
        );
        return Ok(());
    }
    kernel.wait_optimized()?;
    match kernel.optimized_after() {
        Some(after) => println!(
            "optimized kernel ready {:.1} ms after the first compile began",
            after.as_secs_f64() * 1e3
        ),
        None => println!("compiled in one tier (tiering off)"),
    }
    Ok(())
}
