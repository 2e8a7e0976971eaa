//! Dense GEMM on the tensor cores: D = A · B (L batches), with the options of
//! CuTe DSL's `dense_gemm.py`.
//!
//! What: cutlet's SM80 `GemmUniversal` (mma.sync, cp.async multistage
//! mainloop, shared-memory-staged epilogue) on random data, timed against
//! cuBLAS in the same process, the result checked.
//!
//! How:
//! 1. The options select a kernel spec through `Gemm::builder()` (unset tile,
//!    warps and stages come from the SM80 collective builder).
//! 2. The kernel is generated as PTX and JIT-compiled once (the first-call
//!    time is printed), then timed with CUDA events: median of
//!    `--iterations` runs after `--warmup_iterations`; cuBLAS the same way.
//! 3. The result is checked against a host f64 reference (small problems)
//!    or cuBLAS (large ones), unless `--skip_ref_check`.
//!
//! Run:
//! ```text
//! cargo run --release --example dense_gemm -- --mnkl 4096,4096,4096,1 \
//!     --a_dtype BFloat16 --b_dtype BFloat16 --c_dtype BFloat16 --acc_dtype Float32 \
//!     --a_major k --b_major k --c_major n --warmup_iterations 5 --iterations 20
//! ```
//!
//! Constraints:
//! - A and B of one type: Float16, BFloat16, or Float32/TFloat32 (tf32 MMA);
//!   every type with all four majors of A and B (`--a_major k|m`,
//!   `--b_major k|n`); C of Float16, BFloat16 or Float32; accumulator
//!   Float32, or Float16 with Float16 inputs.
//! - `--tile_shape_mnk`: BK fills one 128-byte row (64 for 16-bit types, 32
//!   for tf32); BM and BN multiples of 16 per warp.
//! - Leading dimensions are padded to 16 bytes, so any M, N, K runs.
//! - Needs an NVIDIA GPU of compute capability 8.0 or newer; cuBLAS
//!   (libcublas) for the ratio, found on the library path.

use std::process::ExitCode;

use clap::Parser;
use cutlet::device::Device;
use cutlet_harness::{run_dense_gemm, DenseGemmArgs};

#[derive(Parser, Debug)]
#[command(about = "Dense GEMM with CuTe DSL dense_gemm.py's options, timed against cuBLAS")]
struct Cli {
    #[command(flatten)]
    gemm: DenseGemmArgs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let report = Device::new(0)
        .map_err(cutlet_harness::Error::from)
        .and_then(|device| run_dense_gemm(&cli.gemm, &device));
    match report {
        Ok(report) => {
            println!("{report}");
            if report.passed() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
