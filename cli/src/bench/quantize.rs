//! `cutlet bench quantize`: one quantization (bf16, f16 or f32 into e4m3,
//! e5m2 or s8 with scales from the data), timed with CUDA events, reported
//! as GB/s (input once, output once, scales) and share of the DRAM ceiling.

use clap::Args;
use cudarc::driver::{CudaSlice, DeviceRepr, ValidAsZeroBits};
use cutlet::device::{quantize, quantize_with_scale, Device};
use cutlet::float8::{F8E4M3, F8E5M2};
use cutlet::kernel::quantize::QuantizeScale;
use cutlet::numeric::{Element, ElementType};
use cutlet::{Error, Result};

use super::{check_runs, open_device, parse_shape, random_on_device, Timings};

/// Arguments of `cutlet bench quantize`.
#[derive(Args, Debug)]
pub struct QuantizeArgs {
    /// ROWSxCOLS of the input (row-major; COLS a multiple of 16, of 128
    /// for block scales).
    #[arg(long, default_value = "16384x8192")]
    shape: String,
    /// Input element type: bf16, f16 or f32.
    #[arg(long, default_value = "bf16")]
    dtype: String,
    /// Output element type: e4m3, e5m2 or s8.
    #[arg(long, default_value = "e4m3")]
    to: String,
    /// Scales: row, tensor, 1x128 or 128x128 (computed from the data), or
    /// given (one tensor scale the caller gives, the amax recorded:
    /// `quantize_with_scale`).
    #[arg(long, default_value = "row")]
    scale: String,
    /// Timed runs (the median is reported), after two warm-ups.
    #[arg(long, default_value_t = 30)]
    runs: usize,
    /// Launches timed back to back between one event pair (the batch
    /// figure; 0 skips it).
    #[arg(long, default_value_t = 10)]
    batch: usize,
}

/// The scales `--scale` names: computed from the data, or a given tensor
/// scale (`None`).
fn parse_scale(scale: &str) -> Result<Option<QuantizeScale>> {
    match scale {
        "row" => Ok(Some(QuantizeScale::Row)),
        "tensor" => Ok(Some(QuantizeScale::Tensor)),
        "1x128" => Ok(Some(QuantizeScale::Block1x128)),
        "128x128" => Ok(Some(QuantizeScale::Block128x128)),
        "given" => Ok(None),
        other => Err(Error::invalid_argument(
            "--scale",
            format!("`{other}`"),
            "row, tensor, 1x128, 128x128 or given",
        )),
    }
}

/// Runs the benchmark; its error is the one line to print.
pub fn run(args: &QuantizeArgs) -> Result<()> {
    let (rows, cols) = parse_shape(&args.shape)?;
    let input: ElementType = args.dtype.parse()?;
    let scale = parse_scale(&args.scale)?;
    check_runs(args.runs)?;
    let output = match args.to.as_str() {
        "e4m3" => ElementType::F8E4M3,
        "e5m2" => ElementType::F8E5M2,
        "s8" | "i8" => ElementType::I8,
        other => {
            return Err(Error::invalid_argument(
                "--to",
                format!("`{other}`"),
                "e4m3, e5m2 or s8",
            ))
        }
    };
    let device = open_device()?;
    let setup = Setup {
        device: &device,
        rows,
        cols,
        scale,
        runs: args.runs,
        batch: args.batch,
    };
    match input {
        ElementType::BF16 => with_input::<half::bf16>(&setup, output),
        ElementType::F16 => with_input::<half::f16>(&setup, output),
        ElementType::F32 => with_input::<f32>(&setup, output),
        other => Err(Error::invalid_argument(
            "--dtype",
            other,
            "bf16, f16 or f32",
        )),
    }
}

/// What one benchmark run needs.
struct Setup<'a> {
    device: &'a Device,
    rows: usize,
    cols: usize,
    /// Computed scales, or `None`: a given tensor scale.
    scale: Option<QuantizeScale>,
    runs: usize,
    batch: usize,
}

fn with_input<I: Element + DeviceRepr + bytemuck::Pod>(
    setup: &Setup<'_>,
    output: ElementType,
) -> Result<()> {
    match output {
        ElementType::F8E4M3 => bench::<I, F8E4M3>(setup),
        ElementType::F8E5M2 => bench::<I, F8E5M2>(setup),
        _ => bench::<I, i8>(setup),
    }
}

fn bench<I, O>(setup: &Setup<'_>) -> Result<()>
where
    I: Element + DeviceRepr + bytemuck::Pod,
    O: Element + DeviceRepr + ValidAsZeroBits,
{
    let Setup {
        device,
        rows,
        cols,
        scale,
        runs,
        batch,
    } = *setup;
    let info = device.info()?;
    let ceiling = info.dram_bandwidth_gbps();
    let stream = device.default_stream();
    // parse_shape checked that the count fits.
    let n = rows * cols;
    let input: CudaSlice<I> = random_on_device(&stream, n, 0x9E37_79B9, "the input")?;
    let mut output = stream
        .alloc_zeros::<O>(n)
        .map_err(|e| Error::driver("allocating the output", e))?;
    // A given scale reads one f32 and records the amax in another.
    let scale_count = scale.map_or(2, |s| s.scale_count([rows, cols]));
    let mut scales = stream
        .alloc_zeros::<f32>(scale_count.max(1))
        .map_err(|e| Error::driver("allocating the scales", e))?;
    let given = stream
        .clone_htod(&[1.0f32 / 448.0])
        .map_err(|e| Error::driver("copying the given scale", e))?;
    let mut launch = || -> Result<()> {
        match scale {
            Some(scale) => quantize(
                device,
                &input,
                [rows, cols],
                &mut output,
                &mut scales,
                scale,
                &stream,
            ),
            None => quantize_with_scale(
                device,
                &input,
                [rows, cols],
                &mut output,
                &given,
                Some(&mut scales),
                &stream,
            ),
        }
    };
    let label = format!("quantize {rows}x{cols} {}", I::TYPE);
    let timings = Timings::measure(device, &stream, runs, batch, &label, &mut launch)?;
    let bytes = n as f64 * f64::from(I::TYPE.size_bytes() + O::TYPE.size_bytes())
        + 4.0 * scale_count as f64;
    let (what, passes) = match scale {
        Some(QuantizeScale::Tensor) => (
            "Tensor scales".to_string(),
            "two passes: the amax, then the conversion",
        ),
        Some(scale) => (format!("{scale:?} scales"), "one pass"),
        None => (
            "a given tensor scale".to_string(),
            "one pass, the amax recorded",
        ),
    };
    crate::out::outln!(
        "{}: quantize {} [{rows} x {cols}] into {} with {what} ({passes}; bytes: input, output and scales once each):",
        info.name,
        I::TYPE,
        O::TYPE,
    );
    timings.print_shares(bytes, ceiling, batch, "call");
    Ok(())
}
