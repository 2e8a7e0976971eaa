//! `cutlet bench`: bandwidth benchmarks of cutlet's kernels against the
//! device's DRAM ceiling, with a progress line.

mod elementwise;
mod quantize;
mod reduce;

use std::io::Write as _;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use cudarc::driver::sys::CUevent_flags;
use cutlet::numeric::{Element, ElementType};
use cutlet::{Error, Result};

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
    /// A quantization into 8-bit values with scales from the data, e.g. `--dtype bf16 --to e4m3 --scale row`.
    Quantize(quantize::QuantizeArgs),
}

/// Runs `cutlet bench ...`: prints the figures, or one `error: ...` line on
/// standard error and exits with code 2 (no GPU, bad arguments, a failed run).
pub fn run(args: &BenchArgs) -> ExitCode {
    let result = match &args.kernel {
        BenchKernel::Elementwise(a) => elementwise::run(a),
        BenchKernel::Reduce(a) => reduce::run(a),
        BenchKernel::Quantize(a) => quantize::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}

/// `ROWSxCOLS`, e.g. `16384x8192`, whose element count fits in `usize`.
pub(crate) fn parse_shape(shape: &str) -> Result<(usize, usize)> {
    let bad = || {
        Error::invalid_argument(
            "--shape",
            format!("`{shape}`"),
            "ROWSxCOLS with at most usize::MAX elements, e.g. 16384x8192",
        )
    };
    let (r, c) = shape.split_once('x').ok_or_else(bad)?;
    let (r, c): (usize, usize) = (r.parse().map_err(|_| bad())?, c.parse().map_err(|_| bad())?);
    r.checked_mul(c).ok_or_else(bad)?;
    Ok((r, c))
}

/// `--runs`, which must be at least 1.
pub(crate) fn check_runs(runs: usize) -> Result<()> {
    if runs == 0 {
        return Err(Error::invalid_argument("--runs", runs, "at least 1"));
    }
    Ok(())
}

/// Device 0 ([`Error::NoDriver`] or [`Error::NoDevice`] where there is none).
pub(crate) fn open_device() -> Result<cutlet::device::Device> {
    if !cutlet::device::driver_available() {
        return Err(Error::NoDriver);
    }
    cutlet::device::Device::new(0)
}

/// A timing event recorded on `stream`.
fn record(stream: &cudarc::driver::CudaStream, what: &str) -> Result<cudarc::driver::CudaEvent> {
    stream
        .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .map_err(|e| Error::driver(format!("recording the {what} timing event"), e))
}

/// Milliseconds from `start` to `end`, once `end` has completed.
fn elapsed_ms(start: &cudarc::driver::CudaEvent, end: &cudarc::driver::CudaEvent) -> Result<f64> {
    end.synchronize()
        .map_err(|e| Error::driver("waiting for the end timing event", e))?;
    start
        .elapsed_ms(end)
        .map(f64::from)
        .map_err(|e| Error::driver("reading the time between timing events", e))
}

/// Values in [1, 2) of any float type, as bits: the bench never times zeros.
fn random_bits<T: Element + bytemuck::Pod>(n: usize, seed: u64) -> Vec<T> {
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

/// `n` values of [`random_bits`] from `seed`, copied to `stream`'s device;
/// `what` names them in the error.
pub(crate) fn random_on_device<T: Element + bytemuck::Pod + cudarc::driver::DeviceRepr>(
    stream: &std::sync::Arc<cudarc::driver::CudaStream>,
    n: usize,
    seed: u64,
    what: &str,
) -> Result<cudarc::driver::CudaSlice<T>> {
    stream
        .clone_htod(&random_bits::<T>(n, seed))
        .map_err(|e| Error::driver(format!("copying {what} to the device"), e))
}

/// Median of `runs` event-timed windows of `count` calls of `f`, per call, in ms.
pub(crate) fn time_per_call(
    stream: &cudarc::driver::CudaStream,
    runs: usize,
    count: usize,
    progress: &str,
    mut f: impl FnMut() -> Result<()>,
) -> Result<f64> {
    let mut times = Vec::with_capacity(runs);
    for i in 0..runs {
        eprint!("\r{progress}: run {}/{runs}   ", i + 1);
        let _ = std::io::stderr().flush();
        let start = record(stream, "start")?;
        for _ in 0..count {
            f()?;
        }
        let end = record(stream, "end")?;
        times.push(elapsed_ms(&start, &end)? / count as f64);
    }
    times.sort_by(f64::total_cmp);
    Ok(times[runs / 2])
}

/// A one-thread kernel that spins for `ns` nanoseconds of `%globaltimer`.
const SPIN_PTX: &str = "\
.version 7.0
.target sm_70
.address_size 64

.visible .entry cutlet_bench_spin(.param .u64 ns)
{
\t.reg .pred %p;
\t.reg .b64 %start, %now, %elapsed, %limit;
\tld.param.u64 %limit, [ns];
\tmov.u64 %start, %globaltimer;
SPIN:
\tmov.u64 %now, %globaltimer;
\tsub.u64 %elapsed, %now, %start;
\tsetp.lt.u64 %p, %elapsed, %limit;
\t@%p bra SPIN;
\tret;
}
";

/// How long the spin kernel keeps the stream busy ahead of a timed launch:
/// far longer than the host needs to enqueue the launch and its events.
const SPIN_NS: u64 = 200_000;

/// Queues a one-thread kernel on `stream` that keeps it busy for `ns`
/// nanoseconds: work queued behind it starts when it ends, with its
/// launches already made.
pub(crate) fn launch_spin(
    device: &cutlet::device::Device,
    stream: &std::sync::Arc<cudarc::driver::CudaStream>,
    ns: u64,
) -> Result<()> {
    use cutlet::device::{get_or_load, KernelArgs, LaunchConfig};
    let spin = get_or_load(
        device,
        &"cutlet_bench_spin",
        || "cutlet_bench_spin".into(),
        || Ok(SPIN_PTX.to_string()),
    )?;
    let config = LaunchConfig {
        grid: (1, 1, 1),
        block: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut args = KernelArgs::new(stream);
    args.scalar(ns);
    // SAFETY: `cutlet_bench_spin(.u64 ns)` takes one u64 and touches no
    // memory; one thread in one block.
    unsafe { spin.function().launch(&config, args) }
}

/// Median of `runs` event-timed single calls of `f`, in ms, each enqueued
/// behind a 200 us spin kernel: the start event fires when the spin ends,
/// with `f`'s launch already queued, so the figure is the GPU's time for
/// the call without the host's launch latency (nvbench's "GPU time"; the
/// spin leaves no dirty lines in L2, unlike a previous call).
fn time_launch_hidden(
    device: &cutlet::device::Device,
    stream: &std::sync::Arc<cudarc::driver::CudaStream>,
    runs: usize,
    progress: &str,
    mut f: impl FnMut() -> Result<()>,
) -> Result<f64> {
    let mut times = Vec::with_capacity(runs);
    for i in 0..runs {
        eprint!("\r{progress} (launch hidden): run {}/{runs}   ", i + 1);
        let _ = std::io::stderr().flush();
        launch_spin(device, stream, SPIN_NS)?;
        let start = record(stream, "start")?;
        f()?;
        let end = record(stream, "end")?;
        times.push(elapsed_ms(&start, &end)?);
    }
    times.sort_by(f64::total_cmp);
    Ok(times[runs / 2])
}

/// The three timings of one launch, in ms: per launch on an idle stream,
/// with the launch latency hidden behind a spin kernel, and per launch of
/// a batch of `batch` back to back (`None` where `batch` is 0).
pub(crate) struct Timings {
    pub(crate) per_launch: f64,
    pub(crate) hidden: f64,
    pub(crate) batch: Option<f64>,
}

impl Timings {
    /// Times `launch` three ways (after two warm-up calls), each the median
    /// of `runs`, with `label` on the progress line.
    pub(crate) fn measure(
        device: &cutlet::device::Device,
        stream: &std::sync::Arc<cudarc::driver::CudaStream>,
        runs: usize,
        batch: usize,
        label: &str,
        mut launch: impl FnMut() -> Result<()>,
    ) -> Result<Timings> {
        launch()?;
        launch()?;
        let per_launch = time_per_call(stream, runs, 1, label, &mut launch)?;
        let batch = match batch {
            0 => None,
            b => Some(time_per_call(stream, runs, b, label, &mut launch)?),
        };
        let hidden = time_launch_hidden(device, stream, runs, label, &mut launch)?;
        eprintln!();
        Ok(Timings {
            per_launch,
            hidden,
            batch,
        })
    }

    /// Prints the three as time, GB/s over `bytes` and share of the
    /// `ceiling` (GB/s), one line each, calling one timed run a `noun`
    /// ("launch", or "call" where a call may launch more than one kernel).
    pub(crate) fn print_shares(&self, bytes: f64, ceiling: f64, batch: usize, noun: &str) {
        let share = |ms: f64| {
            let gbps = bytes / (ms * 1e-3) / 1e9;
            format!(
                "{ms:.4} ms, {gbps:.0} GB/s, {:.1}% of the {ceiling:.0} GB/s DRAM ceiling",
                100.0 * gbps / ceiling
            )
        };
        crate::out::outln!("  per {noun} (median): {}", share(self.per_launch));
        crate::out::outln!(
            "  per {noun}, launch latency hidden behind a spin kernel (median): {}",
            share(self.hidden)
        );
        if let Some(b) = self.batch {
            crate::out::outln!("  batch of {batch} (median per {noun}): {}", share(b));
        }
    }
}
