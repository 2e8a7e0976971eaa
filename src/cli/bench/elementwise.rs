//! `cutlet bench elementwise`: one elementwise expression, timed with CUDA
//! events, reported as GB/s and share of the DRAM ceiling.

use std::io::Write as _;

use clap::Args;
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaSlice, DeviceRepr, ValidAsZeroBits};
use cutlet::device::{driver_available, Device, Elementwise};
use cutlet::fusion::{Expr, Expression};
use cutlet::layout::Layout;
use cutlet::numeric::{Element, ElementType};
use cutlet::tensor::{TensorArg, TensorMut, TensorRef};

/// Arguments of `cutlet bench elementwise`.
#[derive(Args, Debug)]
pub struct ElementwiseArgs {
    /// The expression: add (a+b), mul (a*b), relu (a.relu()), silu (a.silu()),
    /// gelu3 ((a*b+c).gelu()), copy (a).
    #[arg(long, default_value = "add")]
    op: String,
    /// ROWSxCOLS of every tensor (row-major).
    #[arg(long, default_value = "16384x8192")]
    shape: String,
    /// Element type of every tensor: f16, bf16, f32 or f64.
    #[arg(long, default_value = "f16")]
    dtype: String,
    /// Timed runs (the median is reported), after two warm-ups.
    #[arg(long, default_value_t = 30)]
    runs: usize,
    /// Thread layout in CuTe notation, e.g. `(8,32):(32,1)` (with --val; default: cutlet's tiling).
    #[arg(long, requires = "val")]
    thr: Option<String>,
    /// Value layout in CuTe notation, e.g. `(4,8):(8,1)` (with --thr).
    #[arg(long, requires = "thr")]
    val: Option<String>,
}

/// The expression named `op`, or the list of names.
fn expression(op: &str) -> Result<Expression, String> {
    Ok(match op {
        "add" => Expression::from_fn(|a: Expr, b: Expr| a + b),
        "mul" => Expression::from_fn(|a: Expr, b: Expr| a * b),
        "relu" => Expression::from_fn(|a: Expr| a.relu()),
        "silu" => Expression::from_fn(|a: Expr| a.silu()),
        "gelu3" => Expression::from_fn(|a: Expr, b: Expr, c: Expr| (a * b + c).gelu()),
        "copy" => Expression::from_fn(|a: Expr| a),
        other => {
            return Err(format!(
                "unknown --op `{other}`: expected add, mul, relu, silu, gelu3 or copy"
            ))
        }
    })
}

fn parse_shape(shape: &str) -> Result<(usize, usize), String> {
    let bad = || format!("invalid --shape `{shape}`: expected ROWSxCOLS, e.g. 16384x8192");
    let (r, c) = shape.split_once('x').ok_or_else(bad)?;
    Ok((r.parse().map_err(|_| bad())?, c.parse().map_err(|_| bad())?))
}

/// Runs the benchmark; `Err` is the one line to print.
pub fn run(args: &ElementwiseArgs) -> Result<(), String> {
    let expression = expression(&args.op)?;
    let (rows, cols) = parse_shape(&args.shape)?;
    let dtype: ElementType = args.dtype.parse().map_err(|e| format!("{e}"))?;
    if args.runs == 0 {
        return Err("--runs must be at least 1".into());
    }
    if !driver_available() {
        return Err("no CUDA driver found: `cutlet bench` needs an NVIDIA GPU".into());
    }
    let mut op = Elementwise::new(expression);
    if let (Some(thr), Some(val)) = (&args.thr, &args.val) {
        let parse = |s: &str| {
            s.parse::<Layout>()
                .map_err(|e| format!("invalid layout `{s}`: {e}"))
        };
        op = op
            .with_layouts(parse(thr)?, parse(val)?)
            .map_err(|e| e.to_string())?;
    }
    let device = Device::new(0).map_err(|e| e.to_string())?;
    match dtype {
        ElementType::F16 => bench::<half::f16>(&device, op, rows, cols, args.runs),
        ElementType::BF16 => bench::<half::bf16>(&device, op, rows, cols, args.runs),
        ElementType::F32 => bench::<f32>(&device, op, rows, cols, args.runs),
        ElementType::F64 => bench::<f64>(&device, op, rows, cols, args.runs),
        other => Err(format!(
            "unsupported --dtype {other}: expected f16, bf16, f32 or f64"
        )),
    }
}

fn bench<T: Element + DeviceRepr + ValidAsZeroBits>(
    device: &Device,
    op: Elementwise,
    rows: usize,
    cols: usize,
    runs: usize,
) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let info = device.info().map_err(|e| err(&e))?;
    let ceiling = info.dram_bandwidth_gbps();
    let stream = device.default_stream();
    let n = rows.checked_mul(cols).ok_or("shape overflows")?;
    let arity = op.expression().arity();
    let inputs: Vec<CudaSlice<T>> = (0..arity)
        .map(|_| stream.alloc_zeros::<T>(n))
        .collect::<Result<_, _>>()
        .map_err(|e| err(&e))?;
    let mut output = stream.alloc_zeros::<T>(n).map_err(|e| err(&e))?;
    let mut launch = || -> Result<(), String> {
        let views = inputs
            .iter()
            .map(|b| TensorRef::row_major(b, rows, cols).map(TensorArg::from))
            .collect::<cutlet::Result<Vec<_>>>()
            .map_err(|e| err(&e))?;
        let out = TensorMut::row_major(&mut output, rows, cols).map_err(|e| err(&e))?;
        op.run(device, &stream, &views, out.into(), &[])
            .map_err(|e| err(&e))
    };
    launch()?;
    launch()?;
    let mut times = Vec::with_capacity(runs);
    for i in 0..runs {
        eprint!(
            "\r{} {rows}x{cols} {}: run {}/{runs}",
            op.expression(),
            T::TYPE,
            i + 1
        );
        let _ = std::io::stderr().flush();
        let start = stream
            .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(|e| err(&e))?;
        launch()?;
        let end = stream
            .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(|e| err(&e))?;
        end.synchronize().map_err(|e| err(&e))?;
        times.push(f64::from(start.elapsed_ms(&end).map_err(|e| err(&e))?));
    }
    eprintln!();
    times.sort_by(f64::total_cmp);
    let ms = times[runs / 2];
    let bytes = ((arity + 1) * n) as f64 * f64::from(T::TYPE.size_bytes());
    let gbps = bytes / (ms * 1e-3) / 1e9;
    println!(
        "{}: {} {rows}x{cols} {}: {ms:.3} ms, {gbps:.0} GB/s, {:.1}% of the {ceiling:.0} GB/s DRAM ceiling",
        info.name,
        op.expression(),
        T::TYPE,
        100.0 * gbps / ceiling
    );
    Ok(())
}
