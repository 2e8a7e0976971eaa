//! The `cutlet` command line: a GEMM run timed against cuBLAS, a layout
//! calculator, pictures of MMA layouts, a device report, bandwidth
//! benchmarks, a shape-grid profile against cuBLASLt and tensor-parallel
//! GEMMs over NCCL, one subcommand each.

mod out;

mod bench;
mod gemm;
mod info;
mod layout;
mod mma;
mod profile;
mod tp;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// cutlet: GEMM and tensor kernels for NVIDIA GPUs, and the CuTe layout algebra.
#[derive(Parser, Debug)]
#[command(name = "cutlet", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a GEMM with CuTe DSL dense_gemm.py's options (--mnkl, --a_dtype, ...), timed against cuBLAS; --emit-ptx prints the kernel.
    Gemm(gemm::GemmArgs),
    /// Evaluate a layout expression in CuTe notation, e.g. 'zipped_divide((8,8):(8,1), [2:1, 4:1])'.
    Layout(layout::LayoutArgs),
    /// Draw an MMA atom's (or tiled MMA's) A, B and C thread/value layouts, e.g. `cutlet mma SM80_16x8x16_F32BF16BF16F32_TN --svg mma.svg`.
    Mma(mma::MmaArgs),
    /// Print the CUDA driver version and each GPU's compute capability, SM count and memory.
    Info,
    /// Benchmark a kernel against the DRAM bandwidth ceiling, e.g. `cutlet bench elementwise --op add`.
    Bench(bench::BenchArgs),
    /// Run cutlet's GEMM against cuBLASLt over a grid of shapes (default: M 1..8192 x N x K, plus LLM shapes); writes CSV, JSON and an SVG heatmap and prints every shape below 1.0.
    Profile(profile::ProfileArgs),
    /// Run a tensor-parallel GEMM on N GPUs (all-gather + GEMM, GEMM + reduce-scatter or GEMM + all-reduce over NCCL), overlapped against sequential, checked against one GPU.
    Tp(tp::TpArgs),
}

/// Parses the command line and runs the subcommand. Usage errors and
/// failures exit with code 2 after one line on standard error.
fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.command {
        Command::Gemm(args) => gemm::run(&args),
        Command::Layout(args) => layout::run(&args),
        Command::Mma(args) => mma::run(&args),
        Command::Info => info::run(),
        Command::Bench(args) => bench::run(&args),
        Command::Profile(args) => profile::run(&args),
        Command::Tp(args) => tp::run(&args),
    }
}
