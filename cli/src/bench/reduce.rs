//! `cutlet bench reduce`: one reduction, timed with CUDA events, reported as
//! GB/s (input once plus output once) and share of the DRAM ceiling.

use clap::Args;
use cudarc::driver::{CudaSlice, DeviceRepr, ValidAsZeroBits};
use cutlet::device::{Device, Reduce, ReduceDim, ReduceWorkspace};
use cutlet::fusion::{Expr, Expression};
use cutlet::kernel::reduce::{Plan, ReduceOp};
use cutlet::numeric::{Element, ElementType};
use cutlet::tensor::{TensorMut, TensorRef};
use cutlet::{Error, Result};

use super::{check_runs, open_device, parse_shape, random_on_device, Timings};

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

fn parse_op(op: &str) -> Result<ReduceOp> {
    ReduceOp::ALL
        .into_iter()
        .find(|o| o.name() == op)
        .ok_or_else(|| Error::invalid_argument("--op", format!("`{op}`"), "sum, mean, max or min"))
}

fn parse_dim(dim: &str) -> Result<ReduceDim> {
    if dim == "all" {
        return Ok(ReduceDim::All);
    }
    dim.parse::<i64>()
        .ok()
        .and_then(ReduceDim::from_index)
        .ok_or_else(|| Error::invalid_argument("--dim", format!("`{dim}`"), "-1, 0, 1 or all"))
}

/// The map `--map` names: none, or square (x * x).
fn map(name: &str) -> Result<Option<Expression>> {
    match name {
        "none" => Ok(None),
        "square" => Ok(Some(Expression::from_fn(|x: Expr| &x * &x))),
        other => Err(Error::invalid_argument(
            "--map",
            format!("`{other}`"),
            "none or square",
        )),
    }
}

/// Runs the benchmark; its error is the one line to print.
pub fn run(args: &ReduceArgs) -> Result<()> {
    let op = parse_op(&args.op)?;
    let dim = parse_dim(&args.dim)?;
    let map = map(&args.map)?;
    let (rows, cols) = parse_shape(&args.shape)?;
    let dtype: ElementType = args.dtype.parse()?;
    check_runs(args.runs)?;
    let device = open_device()?;
    let mut reduce = Reduce::new(&device, op, dim);
    if let Some(map) = map {
        reduce = reduce.map(map, &[]);
    }
    let setup = Setup {
        device: &device,
        reduce: &reduce,
        map_name: &args.map,
        rows,
        cols,
        runs: args.runs,
        batch: args.batch,
    };
    match dtype {
        ElementType::F32 => bench::<f32>(&setup),
        ElementType::F16 => bench::<half::f16>(&setup),
        ElementType::BF16 => bench::<half::bf16>(&setup),
        other => Err(Error::invalid_argument(
            "--dtype",
            other,
            "f32, f16 or bf16",
        )),
    }
}

/// What one benchmark run needs.
struct Setup<'a> {
    device: &'a Device,
    reduce: &'a Reduce,
    map_name: &'a str,
    rows: usize,
    cols: usize,
    runs: usize,
    batch: usize,
}

/// `sum over dim -1 of f32 [16384 x 8192] into f32`, with the map where
/// there is one.
fn describe(setup: &Setup<'_>, input: ElementType) -> String {
    let reduce = setup.reduce;
    let over = match reduce.dim() {
        ReduceDim::Last => "over dim -1 (each row)".to_string(),
        ReduceDim::First => "over dim 0 (each column)".to_string(),
        ReduceDim::All => "over all elements".to_string(),
    };
    let of = match reduce.map_expression() {
        Some(_) if setup.map_name == "square" => "the squares of",
        Some(_) => "a map of",
        None => "",
    };
    format!(
        "{} {over} of {of}{}{input} [{} x {}] into {input}",
        reduce.op(),
        if of.is_empty() { "" } else { " " },
        setup.rows,
        setup.cols
    )
}

/// The plan's launches, e.g. `1 launch: row kernel, 16-byte loads, grid
/// 16384 x 1` (a grid's second extent is the split count).
fn describe_plan(plan: &Plan) -> String {
    let launches: Vec<String> = plan
        .launches
        .iter()
        .map(|launch| {
            let (x, y) = launch.shape.grid;
            let splits = if y > 1 {
                format!(" ({y} splits of the reduced dimension)")
            } else {
                String::new()
            };
            format!("{}, grid {x} x {y}{splits}", launch.spec.layout)
        })
        .collect();
    let count = launches.len();
    format!(
        "{count} launch{}: {}",
        if count == 1 { "" } else { "es" },
        launches.join("; then ")
    )
}

fn bench<T: Element + DeviceRepr + ValidAsZeroBits + bytemuck::Pod>(
    setup: &Setup<'_>,
) -> Result<()> {
    let Setup {
        device,
        reduce,
        rows,
        cols,
        runs,
        batch,
        ..
    } = *setup;
    let info = device.info()?;
    let ceiling = info.dram_bandwidth_gbps();
    let stream = device.default_stream();
    // parse_shape checked that the count fits.
    let n = rows * cols;
    let input: CudaSlice<T> = random_on_device(&stream, n, 0x9E37_79B9, "the input")?;
    let outputs = match reduce.dim() {
        ReduceDim::Last => rows,
        ReduceDim::First => cols,
        ReduceDim::All => 1,
    };
    let mut output = stream
        .alloc_zeros::<T>(outputs)
        .map_err(|e| Error::driver("allocating the output", e))?;
    let view = || TensorRef::row_major(&input, rows, cols);
    let plan = reduce.plan_for(view()?.into(), T::TYPE, &stream)?;
    let mut workspace = ReduceWorkspace::new();
    let mut launch = || -> Result<()> {
        let out = TensorMut::vector(&mut output);
        reduce.run(view()?.into(), out.into(), &mut workspace, &stream)
    };
    let label = format!("reduce {rows}x{cols} {}", T::TYPE);
    let timings = Timings::measure(device, &stream, runs, batch, &label, &mut launch)?;
    let bytes = (n + outputs) as f64 * f64::from(T::TYPE.size_bytes());
    crate::out::outln!(
        "{}: {}, {}:",
        info.name,
        describe(setup, T::TYPE),
        describe_plan(&plan)
    );
    timings.print_shares(bytes, ceiling, batch, "launch");
    Ok(())
}
