//! `cutlet bench elementwise`: one elementwise expression, timed with CUDA
//! events, reported as GB/s and share of the DRAM ceiling.

use clap::Args;
use cudarc::driver::{CudaSlice, DeviceRepr, ValidAsZeroBits};
use cutlet::device::{Device, Elementwise};
use cutlet::fusion::{Expr, Expression};
use cutlet::kernel::elementwise::{BulkCopy, BulkStore, Prefetch, Schedule, StoreHint};
use cutlet::layout::Layout;
use cutlet::numeric::{Element, ElementType};
use cutlet::tensor::{TensorArg, TensorMut, TensorRef};
use cutlet::{Error, Result};

use super::{check_runs, open_device, parse_shape, random_on_device, time_per_call, Timings};

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
    /// Launches timed back to back between one event pair (the batch
    /// figure; 0 skips it).
    #[arg(long, default_value_t = 20)]
    batch: usize,
    /// Persistent grid: blocks per SM walking the tiles (0: one tile per block).
    #[arg(long, default_value_t = 0)]
    persistent: u32,
    /// L2 prefetch size of the loads: none, 64, 128 or 256.
    #[arg(long, default_value = "none")]
    prefetch: String,
    /// Loads carry `.L1::no_allocate`.
    #[arg(long)]
    l1_no_allocate: bool,
    /// Store cache operator: cs (streaming), wb (plain) or no-allocate.
    #[arg(long, default_value = "cs")]
    store: String,
    /// `.minnctapersm` of the kernel (0: none).
    #[arg(long, default_value_t = 0)]
    min_blocks: u32,
    /// sm_90a bulk-copy schedule: stream the inputs through a shared-memory
    /// ring with `cp.async.bulk` (with --persistent K > 0, a persistent ring).
    #[arg(long)]
    bulk: bool,
    /// Bulk copy: shared-memory stages (1 to 8; at least 2 when persistent).
    #[arg(long, default_value_t = 3, requires = "bulk")]
    bulk_stages: u32,
    /// Bulk copy: tiles per stage (1 to 16).
    #[arg(long, default_value_t = 2, requires = "bulk")]
    bulk_tiles: u32,
    /// Bulk copy: how the output is written: regs (st.global from registers)
    /// or bulk (shared memory, then cp.async.bulk).
    #[arg(long, default_value = "regs", requires = "bulk")]
    bulk_store: String,
    /// Thread layout in CuTe notation, e.g. `(8,32):(32,1)` (with --val; default: cutlet's tiling).
    #[arg(long, requires = "val")]
    thr: Option<String>,
    /// Value layout in CuTe notation, e.g. `(4,8):(8,1)` (with --thr).
    #[arg(long, requires = "thr")]
    val: Option<String>,
}

/// The expression named `op`.
fn expression(op: &str) -> Result<Expression> {
    Ok(match op {
        "add" => Expression::from_fn(|a: Expr, b: Expr| a + b),
        "mul" => Expression::from_fn(|a: Expr, b: Expr| a * b),
        "relu" => Expression::from_fn(|a: Expr| a.relu()),
        "silu" => Expression::from_fn(|a: Expr| a.silu()),
        "gelu3" => Expression::from_fn(|a: Expr, b: Expr, c: Expr| (a * b + c).gelu()),
        "copy" => Expression::from_fn(|a: Expr| a),
        other => {
            return Err(Error::invalid_argument(
                "--op",
                format!("`{other}`"),
                "add, mul, relu, silu, gelu3 or copy",
            ))
        }
    })
}

/// The schedule the flags name.
fn schedule(args: &ElementwiseArgs) -> Result<Schedule> {
    let prefetch = match args.prefetch.as_str() {
        "none" => Prefetch::None,
        "64" => Prefetch::B64,
        "128" => Prefetch::B128,
        "256" => Prefetch::B256,
        other => {
            return Err(Error::invalid_argument(
                "--prefetch",
                format!("`{other}`"),
                "none, 64, 128 or 256",
            ))
        }
    };
    let store = match args.store.as_str() {
        "cs" => StoreHint::Streaming,
        "wb" => StoreHint::WriteBack,
        "no-allocate" => StoreHint::NoAllocate,
        other => {
            return Err(Error::invalid_argument(
                "--store",
                format!("`{other}`"),
                "cs, wb or no-allocate",
            ))
        }
    };
    let bulk = if args.bulk {
        let store = match args.bulk_store.as_str() {
            "regs" => BulkStore::Registers,
            "bulk" => BulkStore::Bulk,
            other => {
                return Err(Error::invalid_argument(
                    "--bulk-store",
                    format!("`{other}`"),
                    "regs or bulk",
                ))
            }
        };
        let bulk = BulkCopy {
            stages: args.bulk_stages,
            tiles_per_stage: args.bulk_tiles,
            store,
        };
        bulk.validate(args.persistent > 0)?;
        Some(bulk)
    } else {
        None
    };
    Ok(Schedule {
        bulk,
        persistent: args.persistent,
        l1_no_allocate: args.l1_no_allocate,
        prefetch,
        store,
        min_blocks_per_sm: args.min_blocks,
    })
}

/// Runs the benchmark; its error is the one line to print.
pub fn run(args: &ElementwiseArgs) -> Result<()> {
    let expression = expression(&args.op)?;
    let (rows, cols) = parse_shape(&args.shape)?;
    let dtype: ElementType = args.dtype.parse()?;
    check_runs(args.runs)?;
    let schedule = schedule(args)?;
    let parse = |name: &str, text: &str| {
        text.parse::<Layout>().map_err(|e| {
            Error::invalid_argument(
                name,
                format!("`{text}`"),
                format!("a layout in CuTe notation ({e})"),
            )
        })
    };
    let layouts = match (&args.thr, &args.val) {
        (Some(thr), Some(val)) => Some((parse("--thr", thr)?, parse("--val", val)?)),
        _ => None,
    };
    let device = open_device()?;
    let mut op = Elementwise::new(&device, expression).schedule(schedule);
    if let Some((thr, val)) = layouts {
        op = op.with_layouts(thr, val)?;
    }
    match dtype {
        ElementType::F16 => bench::<half::f16>(&device, op, rows, cols, args),
        ElementType::BF16 => bench::<half::bf16>(&device, op, rows, cols, args),
        ElementType::F32 => bench::<f32>(&device, op, rows, cols, args),
        ElementType::F64 => bench::<f64>(&device, op, rows, cols, args),
        other => Err(Error::invalid_argument(
            "--dtype",
            other,
            "f16, bf16, f32 or f64",
        )),
    }
}

fn bench<T: Element + DeviceRepr + ValidAsZeroBits + bytemuck::Pod>(
    device: &Device,
    op: Elementwise,
    rows: usize,
    cols: usize,
    args: &ElementwiseArgs,
) -> Result<()> {
    let info = device.info()?;
    let ceiling = info.dram_bandwidth_gbps();
    let stream = device.default_stream();
    // parse_shape checked that the count fits.
    let n = rows * cols;
    let arity = op.expression().arity();
    let inputs: Vec<CudaSlice<T>> = (0..arity)
        .map(|i| random_on_device(&stream, n, 0x9E37_79B9 + i as u64, "the inputs"))
        .collect::<Result<_>>()?;
    let mut output = stream
        .alloc_zeros::<T>(n)
        .map_err(|e| Error::driver("allocating the output", e))?;
    let mut launch = || -> Result<()> {
        let views = inputs
            .iter()
            .map(|b| TensorRef::row_major(b, rows, cols).map(TensorArg::from))
            .collect::<Result<Vec<_>>>()?;
        let out = TensorMut::row_major(&mut output, rows, cols)?;
        op.run(&views, out.into(), &[], &stream)
    };
    let label = format!("{} {rows}x{cols} {}", op.expression(), T::TYPE);
    let bytes = ((arity + 1) * n) as f64 * f64::from(T::TYPE.size_bytes());
    let Timings {
        per_launch: ms,
        hidden: hidden_ms,
        batch: batch_ms,
    } = Timings::measure(device, &stream, args.runs, args.batch, &label, &mut launch)?;
    // The driver's device-to-device copy of the same byte count (half read,
    // half written): the practical ceiling of a streaming kernel.
    let half = (bytes / 2.0) as usize;
    let src: CudaSlice<half::f16> =
        random_on_device(&stream, half / 2, 7, "the copy benchmark's source")?;
    let mut dst = stream
        .alloc_zeros::<half::f16>(half / 2)
        .map_err(|e| Error::driver("allocating the copy benchmark's destination", e))?;
    let mut copy = || {
        stream
            .memcpy_dtod(&src, &mut dst)
            .map_err(|e| Error::driver("copying device to device", e))
    };
    copy()?;
    let copy_ms = time_per_call(&stream, args.runs, 1, "cuMemcpyDtoDAsync", &mut copy)?;
    let copy_batch_ms = match args.batch {
        0 => None,
        b => Some(time_per_call(
            &stream,
            args.runs,
            b,
            "cuMemcpyDtoDAsync",
            &mut copy,
        )?),
    };
    eprintln!();
    let gbps = |ms: f64| bytes / (ms * 1e-3) / 1e9;
    let line = |what: &str, ms: f64, copy_ms: f64| {
        crate::out::outln!(
            "  {what}: {ms:.4} ms, {:.0} GB/s, {:.1}% of the ceiling, {:.1}% of the copy ({:.0} GB/s, {:.1}%)",
            gbps(ms),
            100.0 * gbps(ms) / ceiling,
            100.0 * copy_ms / ms,
            gbps(copy_ms),
            100.0 * gbps(copy_ms) / ceiling
        );
    };
    crate::out::outln!(
        "{}: {} on {T} [{rows} x {cols}] ({} input{}, {}), {}, {:.0} MB moved, ceiling {ceiling:.0} GB/s:",
        info.name,
        args.op,
        arity,
        if arity == 1 { "" } else { "s" },
        op.expression(),
        op.schedule_in_use(),
        bytes / 1e6,
        T = T::TYPE,
    );
    line("per launch (median)", ms, copy_ms);
    crate::out::outln!(
        "  per launch, launch latency hidden behind a spin kernel (median): {hidden_ms:.4} ms, {:.0} GB/s, {:.1}% of the ceiling",
        gbps(hidden_ms),
        100.0 * gbps(hidden_ms) / ceiling
    );
    if let (Some(b), Some(c)) = (batch_ms, copy_batch_ms) {
        line(
            &format!("batch of {} (median per launch)", args.batch),
            b,
            c,
        );
    }
    Ok(())
}
