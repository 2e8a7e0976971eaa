//! `cutlet gemm`: CuTe DSL `dense_gemm.py`'s options on cutlet's GEMM (SM90
//! warp-specialized on an H100/H200 by default, SM80 with `--arch sm80`, SM70
//! with `--arch sm70`), timed against cuBLAS in the same process (cuBLASLt
//! with its heuristic's best algorithm and a 32 MiB workspace, else
//! cublasGemmEx; the two timed alternately, run by run, taking turns to go
//! first; `--use_cold_l2`
//! rotates operand buffers past the L2); `--emit-ptx` prints the generated
//! kernel without a GPU.

use std::process::ExitCode;

use cutlet::device::Device;
use cutlet_harness::{run_dense_gemm, DenseGemmArgs, Result};

/// The options of `cutlet gemm`.
#[derive(clap::Args, Debug)]
pub struct GemmArgs {
    #[command(flatten)]
    dense: DenseGemmArgs,
    /// Print the generated PTX of the selected kernel and exit (no GPU needed;
    /// without --tile_shape_mnk, the default tile, which a run may replace by
    /// 256x128 for the problem and the GPU's SM count; an SM90 kernel as run
    /// for --beta: the one for beta = 0 unless it is given).
    #[arg(long = "emit-ptx")]
    emit_ptx: bool,
}

/// Runs `cutlet gemm`: exit 0 on success, 1 when the result check fails, 2
/// with one `error: ...` line for a bad configuration, no driver or no GPU.
pub fn run(args: &GemmArgs) -> ExitCode {
    match report(args) {
        Ok((text, passed)) => {
            crate::out::outln!("{text}");
            if passed {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}

/// The run's report and whether its check passed, or the PTX with
/// `--emit-ptx`; errors are those of the configuration, the device and the run.
fn report(args: &GemmArgs) -> Result<(String, bool)> {
    if args.emit_ptx {
        let spec = args.dense.spec()?;
        let read = cutlet::collective::SourceRead::for_beta(args.dense.beta);
        return Ok((spec.ptx_for(read).map_err(cutlet::Error::from)?, true));
    }
    // The run picks its kernel for the GPU (an SM90 one on an H100); without
    // a GPU, a configuration no architecture's default rules take is
    // reported before the missing driver.
    let device = match Device::new(0) {
        Ok(device) => device,
        Err(e) => {
            args.dense.spec()?;
            return Err(e.into());
        }
    };
    let report = run_dense_gemm(&args.dense, &device)?;
    let passed = report.passed();
    Ok((report.to_string(), passed))
}
