//! Dense GEMM on the tensor cores: D = A · B (L batches), with the options of
//! CuTe DSL's `dense_gemm.py`; the same run as `cutlet gemm`.
//!
//! What: the GEMM `Gemm::builder()` builds for the GPU on random data, timed
//! against cuBLAS in the same process, the result checked. On an H100 or
//! H200 (compute capability 9.0) that is the SM90 warp-specialized kernel
//! (TMA, wgmma, the persistent tile scheduler) picked for the problem; on
//! other GPUs of compute capability 8.0 or newer the SM80 `GemmUniversal`
//! (mma.sync, cp.async multistage mainloop, shared-memory-staged epilogue);
//! `--arch sm70` the Volta kernel.
//!
//! How:
//! 1. The options select a kernel spec through `Gemm::builder()` (unset
//!    tile, warps, stages, schedule and cluster come from the
//!    architecture's collective builder, or the SM90 per-problem pick).
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
//! - `--tile_shape_mnk` follows the rules of `GemmBuilder::tile`: for the
//!   SM80 kernel BM and BN multiples of 16 and 8 per warp and BK a row of
//!   32, 64 or a multiple of 128 bytes; for SM90 BK a 64- or 128-byte row
//!   (32 or 64 for 16-bit types), BM 128 or 256 (cooperative) or 64 or 128
//!   (ping-pong).
//! - Leading dimensions are padded to 16 bytes, so any M, N, K runs.
//! - Needs an NVIDIA GPU of compute capability 8.0 or newer (7.0 with
//!   `--arch sm70`); cuBLAS (libcublas) for the ratio, found on the library
//!   path.

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
