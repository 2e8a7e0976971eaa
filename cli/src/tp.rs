//! `cutlet tp`: a tensor-parallel GEMM on N GPUs of this machine (one
//! thread per rank), timed overlapped and sequential in the same process,
//! beside the GEMM alone and the collective alone (with NCCL's bus
//! bandwidth), and checked against one GPU's GEMM on the gathered inputs.

use std::process::ExitCode;
use std::sync::{Arc, Barrier};

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaSlice, CudaStream};
use cutlet::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand};
use cutlet::device::Device;
use cutlet::distributed::{RowSplit, TpConfig, TpElement, TpOptions, TpRank};
use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
use cutlet::numeric::ElementType;
use cutlet::{Error, Result};
use cutlet_harness::HostValue;
use half::{bf16, f16};

use crate::out::outln;

/// Which operation `cutlet tp` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TpOp {
    /// All-gather + GEMM (column-parallel).
    AgGemm,
    /// GEMM + reduce-scatter (row-parallel).
    GemmRs,
    /// GEMM + all-reduce (row-parallel, decode).
    GemmAr,
}

fn parse_op(text: &str) -> Result<TpOp> {
    match text {
        "ag-gemm" => Ok(TpOp::AgGemm),
        "gemm-rs" => Ok(TpOp::GemmRs),
        "gemm-ar" => Ok(TpOp::GemmAr),
        other => Err(Error::invalid_argument(
            "op",
            format!("`{other}`"),
            "ag-gemm, gemm-rs or gemm-ar",
        )),
    }
}

fn parse_mnk(text: &str) -> Result<[usize; 3]> {
    let values: Vec<usize> = text
        .split(',')
        .map(|v| v.trim().parse::<usize>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| Error::invalid_argument("mnk", format!("`{text}`"), "M,N,K"))?;
    <[usize; 3]>::try_from(values)
        .map_err(|_| Error::invalid_argument("mnk", format!("`{text}`"), "three sizes, M,N,K"))
}

fn parse_element(text: &str) -> Result<ElementType> {
    match text {
        "bf16" | "BFloat16" => Ok(ElementType::BF16),
        "f16" | "Float16" => Ok(ElementType::F16),
        other => Err(Error::invalid_argument(
            "dtype",
            format!("`{other}`"),
            "bf16 or f16",
        )),
    }
}

/// The options of `cutlet tp`.
#[derive(clap::Args, Debug)]
pub struct TpArgs {
    /// GPUs (ranks): the first N devices, one thread each.
    #[arg(long, default_value_t = 2)]
    pub gpus: usize,
    /// ag-gemm (all-gather + GEMM), gemm-rs (GEMM + reduce-scatter) or
    /// gemm-ar (GEMM + all-reduce).
    #[arg(long, value_parser = parse_op, default_value = "ag-gemm")]
    pub op: TpOp,
    /// M,N,K of the whole layer. ag-gemm: tokens, N over all ranks (each
    /// has N / gpus), K; gemm-rs and gemm-ar: tokens, N, K over all ranks
    /// (each has K / gpus). Default: the Llama-3-70B MLP's, 8192,28672,8192
    /// for ag-gemm and 8192,8192,28672 for the others.
    #[arg(long, value_parser = parse_mnk)]
    pub mnk: Option<[usize; 3]>,
    /// Chunks of each shard's rows in the overlapped form (1 to 64).
    #[arg(long, default_value_t = 4)]
    pub chunks: usize,
    /// How the overlapped form moves data: `peer` (copy engines, where the
    /// GPUs reach each other's memory; else NCCL) or `nccl`.
    #[arg(long, value_parser = ["peer", "nccl"], default_value = "peer")]
    pub transport: String,
    /// SMs each collective of the overlapped form takes over NCCL (NCCL's
    /// maxCTAs); its GEMMs run on the others.
    #[arg(long = "collective_sms", default_value_t = cutlet::distributed::TpConfig::default().collective_sms)]
    pub collective_sms: u32,
    /// Element type of A, B and D: bf16 or f16.
    #[arg(long, value_parser = parse_element, default_value = "bf16")]
    pub dtype: ElementType,
    /// Untimed runs of each form first.
    #[arg(long = "warmup_iterations", default_value_t = 5)]
    pub warmup_iterations: usize,
    /// Timed runs of each form, alternating (the median is reported).
    #[arg(long, default_value_t = 20)]
    pub iterations: usize,
    /// Skip checking the result against one GPU's GEMM.
    #[arg(long = "skip_ref_check")]
    pub skip_ref_check: bool,
    /// Queue each timed run behind a 1 ms spin kernel on every rank's
    /// stream, so that the figures are the GPUs' time without the host's
    /// latency to the first launch (as `cutlet gemm` times); without it a
    /// run's time includes that latency, as a caller's does.
    #[arg(long = "launch_hidden")]
    pub launch_hidden: bool,
}

/// How long `--launch_hidden`'s spin kernel holds each rank's stream:
/// longer than the host takes to queue the slowest form's launches.
const TP_SPIN_NS: u64 = 1_000_000;

/// Runs `cutlet tp`.
pub fn run(args: &TpArgs) -> ExitCode {
    let result = match args.dtype {
        ElementType::F16 => run_typed::<f16>(args),
        _ => run_typed::<bf16>(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// What one rank measured: the medians (ms) of the overlapped form, the
/// sequential form, the GEMM alone and the collective alone, and the
/// check's outcome (rank 0 only).
struct Measured {
    overlapped: f64,
    sequential: f64,
    gemm: f64,
    collective: f64,
    check: Option<String>,
}

/// The problem one rank runs and its buffers.
struct RankProblem<T: TpElement> {
    shape: GemmShape,
    a: CudaSlice<T>,
    b: CudaSlice<T>,
    d: CudaSlice<T>,
    /// The collective alone: its input and output.
    send: CudaSlice<T>,
    recv: CudaSlice<T>,
}

/// A seeded draw (the same on every rank for the same seed), so that a
/// rank can rebuild another's inputs.
fn values<T: HostValue>(seed: u64, len: usize) -> Vec<T> {
    cutlet_harness::random_values::<T>(len, seed)
}

fn upload<T: TpElement + HostValue>(stream: &Arc<CudaStream>, host: &[T]) -> Result<CudaSlice<T>> {
    stream
        .clone_htod(host)
        .map_err(|e| Error::driver("copying inputs to the GPU", e))
}

fn zeros<T: TpElement + HostValue>(stream: &Arc<CudaStream>, len: usize) -> Result<CudaSlice<T>> {
    stream
        .alloc_zeros::<T>(len.max(1))
        .map_err(|e| Error::driver("allocating a buffer", e))
}

fn run_typed<T: TpElement + HostValue>(args: &TpArgs) -> Result<()> {
    let w = args.gpus;
    if w == 0 {
        return Err(Error::invalid_argument("gpus", 0, "at least 1"));
    }
    let [m, n, k] = args.mnk.unwrap_or(match args.op {
        TpOp::AgGemm => [8192, 28672, 8192],
        _ => [8192, 8192, 28672],
    });
    let split_dim = if args.op == TpOp::AgGemm { n } else { k };
    if split_dim % w != 0 {
        return Err(Error::invalid_argument(
            "mnk",
            format!(
                "{} = {split_dim}",
                if args.op == TpOp::AgGemm { "N" } else { "K" }
            ),
            format!("a multiple of --gpus {w} (each rank holds an equal slice)"),
        ));
    }
    let devices = (0..w).map(Device::new).collect::<Result<Vec<_>>>()?;
    let ranks = TpRank::from_devices_with(
        &devices,
        TpConfig {
            peer_copies: args.transport == "peer",
            collective_sms: args.collective_sms,
        },
    )?;
    let transport = if ranks.first().is_some_and(TpRank::uses_peer_copies) {
        if args.op == TpOp::GemmAr {
            // The timed runs leave `check_shapes` off: the ranks' sums
            // meet on the GPUs.
            "peer memory, the ranks meeting on the GPUs".to_string()
        } else {
            "peer copies".to_string()
        }
    } else {
        format!("NCCL on {} SMs", args.collective_sms)
    };
    let barrier = Barrier::new(w);
    let measured: Vec<Result<Measured>> = std::thread::scope(|scope| {
        let handles: Vec<_> = ranks
            .into_iter()
            .map(|rank| {
                let barrier = &barrier;
                scope.spawn(move || rank_run::<T>(args, &rank, [m, n, k], barrier))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(Error::invalid_argument(
                        "rank thread",
                        "panicked",
                        "a rank that returns",
                    ))
                })
            })
            .collect()
    });
    let measured = measured.into_iter().collect::<Result<Vec<_>>>()?;
    let slowest = |f: fn(&Measured) -> f64| measured.iter().map(f).fold(0.0, f64::max);
    let (overlapped, sequential) = (slowest(|x| x.overlapped), slowest(|x| x.sequential));
    let (gemm, collective) = (slowest(|x| x.gemm), slowest(|x| x.collective));
    let elem = T::TYPE.size_bytes() as f64;
    let (name, moved, factor) = match args.op {
        TpOp::AgGemm => (
            "all-gather",
            (m * k) as f64 * elem,
            (w as f64 - 1.0) / w as f64,
        ),
        TpOp::GemmRs => (
            "reduce-scatter",
            (m * n) as f64 * elem,
            (w as f64 - 1.0) / w as f64,
        ),
        TpOp::GemmAr => (
            "all-reduce",
            (m * n) as f64 * elem,
            2.0 * (w as f64 - 1.0) / w as f64,
        ),
    };
    let bus_gbps = moved * factor / (collective * 1e-3) / 1e9;
    outln!(
        "op: {:?} on {w} GPUs, {} {m}x{n}x{k} (each rank {}), overlapped over {transport} ({} chunks over NCCL), slowest rank's median of {} runs{}",
        args.op,
        T::TYPE,
        if args.op == TpOp::AgGemm { format!("N = {}", n / w) } else { format!("K = {}", k / w) },
        args.chunks,
        args.iterations,
        if args.launch_hidden { ", launch latency hidden behind a spin kernel" } else { "" }
    );
    outln!("overlapped:  {:.1} us", overlapped * 1e3);
    outln!(
        "sequential:  {:.1} us  (overlapped / sequential speed-up {:.3}x)",
        sequential * 1e3,
        sequential / overlapped
    );
    outln!(
        "gemm alone:  {:.1} us  (exposed communication {:.1} us)",
        gemm * 1e3,
        (overlapped - gemm).max(0.0) * 1e3
    );
    outln!(
        "{name} alone: {:.1} us  (NCCL bus bandwidth {bus_gbps:.0} GB/s)",
        collective * 1e3
    );
    if let Some(check) = measured.first().and_then(|x| x.check.clone()) {
        outln!("check: {check}");
        if check.starts_with("FAIL") {
            return Err(Error::invalid_argument(
                "result",
                check,
                "the single-GPU GEMM's",
            ));
        }
    }
    Ok(())
}

/// One rank's part: its inputs, the timing rounds (every rank in step
/// through `barrier`), and on rank 0 the check.
fn rank_run<T: TpElement + HostValue>(
    args: &TpArgs,
    rank: &TpRank,
    [m, n, k]: [usize; 3],
    barrier: &Barrier,
) -> Result<Measured> {
    let (w, r) = (rank.world_size(), rank.rank());
    let device = rank.device();
    let stream = device
        .context()
        .new_stream()
        .map_err(|e| Error::driver("creating the rank's stream", e))?;
    let gemm = Gemm::builder()
        .a(T::TYPE, OperandMajor::K)
        .b(T::TYPE, OperandMajor::K)
        .d(T::TYPE, OutputMajor::N)
        .build(device)?;
    let split = RowSplit::new(m, w, args.chunks);
    let mut p = problem::<T>(args.op, &stream, &split, r, w, [m, n, k])?;
    let options = |overlap| TpOptions {
        chunks: args.chunks,
        overlap,
        check_shapes: false,
    };
    // The form timed: 0 overlapped, 1 sequential, 2 the GEMM alone, 3 the
    // collective alone.
    let once = |form: usize, p: &mut RankProblem<T>| -> Result<()> {
        let RankProblem {
            shape,
            a,
            b,
            d,
            send,
            recv,
        } = p;
        let ops = &options(form == 0);
        match (args.op, form) {
            (_, 3) => match args.op {
                TpOp::AgGemm => rank.all_gather(&send.slice(..), &mut recv.slice_mut(..), &stream),
                TpOp::GemmRs => {
                    rank.reduce_scatter(&send.slice(..), &mut recv.slice_mut(..), &stream)
                }
                TpOp::GemmAr => rank.all_reduce(&send.slice(..), &mut recv.slice_mut(..), &stream),
            },
            (TpOp::AgGemm, 2) => {
                // The GEMM on the gathered A (the whole of M).
                let mut args = Arguments::product(
                    *shape,
                    Operand::new(recv.slice(..), k, 0),
                    Operand::new(b.slice(..), k, 0),
                    OutputOperand::new(d.slice_mut(..), shape.n, 0),
                    1.0,
                );
                gemm.run(&mut args, &stream)
            }
            (_, 2) => {
                // This rank's partial product over its K slice, into D.
                let mut args = Arguments::product(
                    *shape,
                    Operand::new(a.slice(..), shape.k, 0),
                    Operand::new(b.slice(..), shape.k, 0),
                    OutputOperand::new(d.slice_mut(..), shape.n, 0),
                    1.0,
                );
                gemm.run(&mut args, &stream)
            }
            (TpOp::AgGemm, _) => {
                let rows = split.rows_of(r);
                rank.all_gather_gemm(
                    &gemm,
                    *shape,
                    &a.slice(0..rows * k),
                    &Operand::new(b.slice(..), k, 0),
                    &mut OutputOperand::new(d.slice_mut(..), shape.n, 0),
                    1.0,
                    ops,
                    &stream,
                )
            }
            (TpOp::GemmRs, _) => {
                let rows = split.rows_of(r);
                rank.gemm_reduce_scatter(
                    &gemm,
                    *shape,
                    &Operand::new(a.slice(..), shape.k, 0),
                    &Operand::new(b.slice(..), shape.k, 0),
                    &mut d.slice_mut(0..rows * shape.n),
                    1.0,
                    ops,
                    &stream,
                )
            }
            (TpOp::GemmAr, _) => rank.gemm_all_reduce(
                &gemm,
                *shape,
                &Operand::new(a.slice(..), shape.k, 0),
                &Operand::new(b.slice(..), shape.k, 0),
                &mut d.slice_mut(0..shape.m * shape.n),
                1.0,
                ops,
                &stream,
            ),
        }
    };
    // One checked run of each operation form first (compiles every kernel).
    once(1, &mut p)?;
    let check = if r == 0 && !args.skip_ref_check {
        Some(check_rank0::<T>(
            args.op,
            &gemm,
            &stream,
            &p,
            &split,
            w,
            [m, n, k],
        )?)
    } else {
        None
    };
    let event = || {
        device
            .context()
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(|e| Error::driver("creating a timing event", e))
    };
    let mut times: [Vec<f64>; 4] = Default::default();
    for iteration in 0..args.warmup_iterations + args.iterations {
        for turn in 0..4 {
            // Alternate which form goes first, so that drift hits all.
            let form = (turn + iteration) % 4;
            barrier.wait();
            let (start, end) = (event()?, event()?);
            if args.launch_hidden {
                crate::bench::launch_spin(device, &stream, TP_SPIN_NS)?;
            }
            start
                .record(&stream)
                .map_err(|e| Error::driver("recording a start event", e))?;
            once(form, &mut p)?;
            end.record(&stream)
                .map_err(|e| Error::driver("recording an end event", e))?;
            end.synchronize()
                .map_err(|e| Error::driver("waiting for a run", e))?;
            if iteration >= args.warmup_iterations {
                let ms = start
                    .elapsed_ms(&end)
                    .map_err(|e| Error::driver("reading an elapsed time", e))?;
                times[form].push(f64::from(ms));
            }
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    let [o, s, g, c] = &mut times;
    Ok(Measured {
        overlapped: median(o),
        sequential: median(s),
        gemm: median(g),
        collective: median(c),
        check,
    })
}

/// Rank `r`'s inputs (seeded by rank, so that rank 0 can rebuild all of
/// them for the check) and buffers.
fn problem<T: TpElement + HostValue>(
    op: TpOp,
    stream: &Arc<CudaStream>,
    split: &RowSplit,
    r: usize,
    w: usize,
    [m, n, k]: [usize; 3],
) -> Result<RankProblem<T>> {
    match op {
        TpOp::AgGemm => {
            let (rows, n_r) = (split.rows_of(r), n / w);
            let a = upload(
                stream,
                &[
                    values::<T>(100 + r as u64, rows * k),
                    vec![T::from_f64(0.0)],
                ]
                .concat(),
            )?;
            Ok(RankProblem {
                shape: GemmShape::new(m, n_r, k, 1),
                send: upload(stream, &values::<T>(100 + r as u64, split.shard_rows() * k))?,
                recv: zeros(stream, w * split.shard_rows() * k)?,
                a,
                b: upload(stream, &values::<T>(200 + r as u64, n_r * k))?,
                d: zeros(stream, m * n_r)?,
            })
        }
        TpOp::GemmRs | TpOp::GemmAr => {
            let k_r = k / w;
            let recv_len = if op == TpOp::GemmRs {
                split.shard_rows() * n
            } else {
                m * n
            };
            Ok(RankProblem {
                shape: GemmShape::new(m, n, k_r, 1),
                a: upload(stream, &values::<T>(300 + r as u64, m * k_r))?,
                b: upload(stream, &values::<T>(400 + r as u64, n * k_r))?,
                d: zeros(stream, m * n)?,
                send: zeros(
                    stream,
                    if op == TpOp::GemmRs {
                        w * split.shard_rows() * n
                    } else {
                        m * n
                    },
                )?,
                recv: zeros(stream, recv_len)?,
            })
        }
    }
}

/// Rank 0's result against one GPU's GEMM on the gathered inputs (rebuilt
/// from every rank's seeds): the same bits for ag-gemm; for the reducing
/// forms the largest difference relative to the largest value, within 4
/// units of rounding of the element type per rank summed.
#[allow(clippy::too_many_arguments)]
fn check_rank0<T: TpElement + HostValue>(
    op: TpOp,
    gemm: &Gemm,
    stream: &Arc<CudaStream>,
    p: &RankProblem<T>,
    split: &RowSplit,
    w: usize,
    [m, n, k]: [usize; 3],
) -> Result<String> {
    let got: Vec<T> = stream
        .clone_dtoh(&p.d)
        .map_err(|e| Error::driver("reading D", e))?;
    let (a_full, b_full, shape, rows) = match op {
        TpOp::AgGemm => {
            let a: Vec<T> = (0..w)
                .flat_map(|s| values::<T>(100 + s as u64, split.rows_of(s) * k))
                .collect();
            (
                a,
                values::<T>(200, (n / w) * k),
                GemmShape::new(m, n / w, k, 1),
                m,
            )
        }
        _ => {
            let k_r = k / w;
            // Row i of the whole: every rank's K slice of row i, in rank order.
            let gather = |seed: u64, rows: usize| -> Vec<T> {
                let slices: Vec<Vec<T>> = (0..w)
                    .map(|s| values::<T>(seed + s as u64, rows * k_r))
                    .collect();
                let mut whole = Vec::with_capacity(rows * k);
                for i in 0..rows {
                    for slice in &slices {
                        whole.extend_from_slice(&slice[i * k_r..(i + 1) * k_r]);
                    }
                }
                whole
            };
            let rows = if op == TpOp::GemmRs {
                split.rows_of(0)
            } else {
                m
            };
            (
                gather(300, m),
                gather(400, n),
                GemmShape::new(m, n, k, 1),
                rows,
            )
        }
    };
    let a = upload(stream, &a_full)?;
    let b = upload(stream, &b_full)?;
    let mut d = zeros::<T>(stream, shape.m * shape.n)?;
    let mut args = Arguments::product(
        shape,
        Operand::new(a.slice(..), shape.k, 0),
        Operand::new(b.slice(..), shape.k, 0),
        OutputOperand::new(d.slice_mut(..), shape.n, 0),
        1.0,
    );
    gemm.run(&mut args, stream)?;
    drop(args);
    let want: Vec<T> = stream
        .clone_dtoh(&d)
        .map_err(|e| Error::driver("reading the reference", e))?;
    let count = rows * shape.n;
    if op == TpOp::AgGemm {
        return Ok(
            match got[..count]
                .iter()
                .zip(&want[..count])
                .position(|(g, w)| g.to_f64().to_bits() != w.to_f64().to_bits())
            {
                None => "PASS: the same bits as one GPU's GEMM on the gathered A".to_string(),
                Some(i) => format!(
                    "FAIL: D[{}][{}] = {}, one GPU's GEMM gives {}",
                    i / shape.n,
                    i % shape.n,
                    got[i].to_f64(),
                    want[i].to_f64()
                ),
            },
        );
    }
    let largest = want[..count]
        .iter()
        .map(|x| x.to_f64().abs())
        .fold(0.0, f64::max)
        .max(1e-30);
    let error = got[..count]
        .iter()
        .zip(&want[..count])
        .map(|(g, w)| (g.to_f64() - w.to_f64()).abs())
        .fold(0.0, f64::max)
        / largest;
    let eps = if T::TYPE == ElementType::F16 {
        2f64.powi(-11)
    } else {
        2f64.powi(-8)
    };
    let bound = 4.0 * eps * w as f64;
    Ok(format!(
        "{}: max error {error:.3e} of the largest |value| against one GPU's GEMM over the whole of K (bound {bound:.1e}: {w} partial sums rounded to {})",
        if error <= bound { "PASS" } else { "FAIL" },
        T::TYPE
    ))
}
