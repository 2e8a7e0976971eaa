//! `cutlet bench`: bandwidth benchmarks of cutlet's kernels against the
//! device's DRAM ceiling, with a progress line.

mod elementwise;
mod reduce;

use std::io::Write as _;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use cudarc::driver::sys::CUevent_flags;
use cutlet::numeric::{Element, ElementType};

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

/// Values in [1, 2) of any float type, as bits: the bench never times zeros.
pub(crate) fn random_bits<T: Element + bytemuck::Pod>(n: usize, seed: u64) -> Vec<T> {
    let size = T::TYPE.size_bytes() as usize;
    let mut state = seed | 1;
    let mut bytes = vec![0u8; n * size];
    for chunk in bytes.chunks_exact_mut(size) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let bits = match T::TYPE {
            ElementType::F16 => 0x3C00 | (state & 0x03FF),
            ElementType::BF16 => 0x3F80 | (state & 0x7F),
            ElementType::F32 => 0x3F80_0000 | (state & 0x7F_FFFF),
            _ => 0x3FF0_0000_0000_0000 | (state & 0xF_FFFF_FFFF_FFFF),
        };
        chunk.copy_from_slice(&bits.to_le_bytes()[..size]);
    }
    bytemuck::cast_slice(&bytes).to_vec()
}

/// Median of `runs` event-timed windows of `count` calls of `f`, per call, in ms.
pub(crate) fn time_per_call(
    stream: &cudarc::driver::CudaStream,
    runs: usize,
    count: usize,
    progress: &str,
    mut f: impl FnMut() -> Result<(), String>,
) -> Result<f64, String> {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let mut times = Vec::with_capacity(runs);
    for i in 0..runs {
        eprint!("\r{progress}: run {}/{runs}   ", i + 1);
        let _ = std::io::stderr().flush();
        let start = stream
            .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(|e| err(&e))?;
        for _ in 0..count {
            f()?;
        }
        let end = stream
            .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(|e| err(&e))?;
        end.synchronize().map_err(|e| err(&e))?;
        times.push(f64::from(start.elapsed_ms(&end).map_err(|e| err(&e))?) / count as f64);
    }
    times.sort_by(f64::total_cmp);
    Ok(times[runs / 2])
}
