//! `cutlet bench`: bandwidth benchmarks of cutlet's kernels against the
//! device's DRAM ceiling, with a progress line.

mod elementwise;
mod reduce;

use std::process::ExitCode;

use clap::{Args, Subcommand};

/// Arguments of `cutlet bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    kernel: BenchKernel,
}

#[derive(Subcommand, Debug)]
enum BenchKernel {
    /// An elementwise expression over 2-D tensors, e.g. `--op add --shape 16384x8192 --dtype f16`.
    Elementwise(elementwise::ElementwiseArgs),
    /// A reduction of a 2-D tensor, e.g. `--op sum --dim 0 --shape 16384x8192 --dtype f32`.
    Reduce(reduce::ReduceArgs),
}

/// Runs `cutlet bench ...`: prints the figures, or one `error: ...` line on
/// standard error and exits with code 2 (no GPU, bad arguments, a failed run).
pub fn run(args: &BenchArgs) -> ExitCode {
    let result = match &args.kernel {
        BenchKernel::Elementwise(a) => elementwise::run(a),
        BenchKernel::Reduce(a) => reduce::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}
