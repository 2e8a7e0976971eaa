//! `cutlet bench reduce`: one reduction, timed with CUDA events, reported as
//! GB/s (input once plus output once) and share of the DRAM ceiling.

use clap::Args;
use cudarc::driver::{CudaSlice, DeviceRepr, ValidAsZeroBits};
use cutlet::device::{Device, Reduce, ReduceDim, ReduceWorkspace};
use cutlet::fusion::{Expr, Expression};
use cutlet::kernel::reduce::ReduceOp;
use cutlet::numeric::{Element, ElementType};
use cutlet::tensor::{TensorMut, TensorRef};

use super::{open_device, parse_shape, random_bits, time_launch_hidden, time_per_call};

/// Arguments of `cutlet bench reduce`.
#[derive(Args, Debug)]
pub struct ReduceArgs {
    /// The operator: sum, mean, max or min.
    #[arg(long, default_value = "sum")]
    op: String,
    /// The dimension: -1 or 1 (each row), 0 (each column), or all.
    #[arg(long, default_value = "-1", allow_hyphen_values = true)]
    dim: String,
    /// ROWSxCOLS of the input (row-major).
    #[arg(long, default_value = "16384x8192")]
    shape: String,
    /// Input element type: f32, f16 or bf16 (the output has the same type).
    #[arg(long, default_value = "f32")]
    dtype: String,
    /// A map applied before reducing: none or square (x * x).
    #[arg(long, default_value = "none")]
    map: String,
    /// Timed runs (the median is reported), after two warm-ups.
    #[arg(long, default_value_t = 30)]
    runs: usize,
    /// Launches timed back to back between one event pair (the batch
    /// figure; 0 skips it).
    #[arg(long, default_value_t = 10)]
    batch: usize,
}

fn parse_op(op: &str) -> Result<ReduceOp, String> {
    ReduceOp::ALL
        .into_iter()
        .find(|o| o.name() == op)
        .ok_or_else(|| format!("unknown --op `{op}`: expected sum, mean, max or min"))
}

fn parse_dim(dim: &str) -> Result<ReduceDim, String> {
    if dim == "all" {
        return Ok(ReduceDim::All);
    }
    dim.parse::<i64>()
        .ok()
        .and_then(ReduceDim::from_index)
        .ok_or_else(|| format!("invalid --dim `{dim}`: expected -1, 0, 1 or all"))
}

/// Runs the benchmark; `Err` is the one line to print.
pub fn run(args: &ReduceArgs) -> Result<(), String> {
    let mut reduce = Reduce::new(parse_op(&args.op)?, parse_dim(&args.dim)?);
    match args.map.as_str() {
        "none" => {}
        "square" => reduce = reduce.map(Expression::from_fn(|x: Expr| &x * &x), &[]),
        other => return Err(format!("unknown --map `{other}`: expected none or square")),
    }
    let (rows, cols) = parse_shape(&args.shape)?;
    let dtype: ElementType = args.dtype.parse().map_err(|e| format!("{e}"))?;
    if args.runs == 0 {
        return Err("--runs must be at least 1".into());
    }
    let device = open_device()?;
    let setup = Setup {
        device: &device,
        reduce: &reduce,
        rows,
        cols,
        runs: args.runs,
        batch: args.batch,
    };
    match dtype {
        ElementType::F32 => bench::<f32>(&setup),
        ElementType::F16 => bench::<half::f16>(&setup),
        ElementType::BF16 => bench::<half::bf16>(&setup),
        other => Err(format!(
            "unsupported --dtype {other}: expected f32, f16 or bf16"
        )),
    }
}

/// What one benchmark run needs.
struct Setup<'a> {
    device: &'a Device,
    reduce: &'a Reduce,
    rows: usize,
    cols: usize,
    runs: usize,
    batch: usize,
}

fn bench<T: Element + DeviceRepr + ValidAsZeroBits + bytemuck::Pod>(
    setup: &Setup<'_>,
) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let Setup {
        device,
        reduce,
        rows,
        cols,
        runs,
        batch,
    } = *setup;
    let info = device.info().map_err(|e| err(&e))?;
    let ceiling = info.dram_bandwidth_gbps();
    let stream = device.default_stream();
    let n = rows.checked_mul(cols).ok_or("shape overflows")?;
    let input: CudaSlice<T> = stream
        .clone_htod(&random_bits::<T>(n, 0x9E37_79B9))
        .map_err(|e| err(&e))?;
    let outputs = match reduce.dim() {
        ReduceDim::Last => rows,
        ReduceDim::First => cols,
        ReduceDim::All => 1,
    };
    let mut output = stream.alloc_zeros::<T>(outputs).map_err(|e| err(&e))?;
    let mut workspace = ReduceWorkspace::new();
    let mut launch = || -> Result<(), String> {
        let view = TensorRef::row_major(&input, rows, cols).map_err(|e| err(&e))?;
        let out = TensorMut::vector(&mut output);
        reduce
            .run(device, &stream, view.into(), out.into(), &mut workspace)
            .map_err(|e| err(&e))
    };
    launch()?;
    launch()?;
    let label = format!("reduce {rows}x{cols} {}", T::TYPE);
    let ms = time_per_call(&stream, runs, 1, &label, &mut launch)?;
    let batch_ms = match batch {
        0 => None,
        b => Some(time_per_call(&stream, runs, b, &label, &mut launch)?),
    };
    let hidden_ms = time_launch_hidden(device, &stream, runs, &label, &mut launch)?;
    eprintln!();
    let bytes = (n + outputs) as f64 * f64::from(T::TYPE.size_bytes());
    let share = |ms: f64| {
        let gbps = bytes / (ms * 1e-3) / 1e9;
        format!(
            "{ms:.4} ms, {gbps:.0} GB/s, {:.1}% of the {ceiling:.0} GB/s DRAM ceiling",
            100.0 * gbps / ceiling
        )
    };
    println!(
        "{}: {reduce:?} {rows}x{cols} {}: per launch (median) {}",
        info.name,
        T::TYPE,
        share(ms)
    );
    println!(
        "  per launch, launch latency hidden behind a spin kernel (median): {}",
        share(hidden_ms)
    );
    if let Some(b) = batch_ms {
        println!("  batch of {batch} (median per launch): {}", share(b));
    }
    Ok(())
}
