//! The tensor-parallel operations (`cutlet::distributed`) on 2 and 4 GPUs
//! of one machine, one thread per rank: every operation, bf16 and f16,
//! sequential and overlapped with 1 to 8 chunks, M ragged (not a multiple
//! of the ranks or the chunks), against the exact host result (small
//! integers: every order of the sums gives the same value, and the
//! partial sums fit the element type exactly). A rank called with another
//! shape than the others is an error on every rank, before any collective
//! moves data.
//!
//! They skip, saying why, where fewer GPUs than they need are found or
//! NCCL does not load; `CUTLET_REQUIRE_GPUS=N` makes that a failure for
//! the tests that need at most N GPUs.

mod common;

use std::sync::{Arc, RwLock, RwLockReadGuard};

use common::exact::{self, integers};
use cudarc::driver::{CudaSlice, CudaStream};
use cutlet::device::gemm::{Gemm, GemmShape, Operand, OutputOperand};
use cutlet::device::Device;
use cutlet::distributed::{RowSplit, TpConfig, TpElement, TpOptions, TpRank};
use cutlet::Error;
use cutlet_harness::devices_or_skip;
use half::{bf16, f16};

/// The GPUs, as the tests share them: the tests whose every collective
/// compares the ranks' calls on the host first run side by side (read);
/// one that lets GEMM + all-reduce's ranks meet on the GPUs alone
/// (`check_shapes` off, whose waits hold SMs) runs by itself (write), as
/// NCCL's contract asks of groups that share GPUs.
static GPUS: RwLock<()> = RwLock::new(());

/// The GPUs shared with the other checked tests.
fn shared_gpus() -> RwLockReadGuard<'static, ()> {
    GPUS.read().unwrap_or_else(|e| e.into_inner())
}

/// What the tests need of an element type: the exact-integer bed's host
/// element (rounding, bits) that NCCL also sums.
trait Host: exact::Host + TpElement {}
impl Host for bf16 {}
impl Host for f16 {}

fn upload<T: Host>(stream: &Arc<CudaStream>, values: &[f64]) -> CudaSlice<T> {
    let encoded: Vec<T> = values.iter().map(|&v| T::from_f64(v)).collect();
    stream.clone_htod(&encoded).unwrap()
}

/// The GEMM each rank runs: K-major A and B, row-major D of `T`.
fn gemm_of<T: Host>(device: &Device) -> Gemm {
    Gemm::builder()
        .a(T::TYPE, cutlet::kernel::gemm::OperandMajor::K)
        .b(T::TYPE, cutlet::kernel::gemm::OperandMajor::K)
        .d(T::TYPE, cutlet::kernel::gemm::OutputMajor::N)
        .build(device)
        .unwrap()
}

/// `a` (M x K, row-major) times `b` (N x K, row-major), transposed: D = A B^T.
fn host_gemm(a: &[f64], b: &[f64], m: usize, n: usize, k: usize, alpha: f64) -> Vec<f64> {
    let mut d = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let acc: f64 = (0..k).map(|kk| a[i * k + kk] * b[j * k + kk]).sum();
            d[i * n + j] = alpha * acc;
        }
    }
    d
}

/// The first index where `got` and `want` differ, with both values.
fn first_difference(got: &[u32], want: &[u32]) -> Option<(usize, u32, u32)> {
    got.iter()
        .zip(want)
        .position(|(g, w)| g != w)
        .map(|i| (i, got[i], want[i]))
}

/// Runs `body` once per rank, each on a thread of its own; gives the
/// ranks back with the results.
fn on_every_rank<R: Send>(
    ranks: Vec<TpRank>,
    body: impl Fn(&TpRank) -> R + Sync,
) -> (Vec<R>, Vec<TpRank>) {
    std::thread::scope(|scope| {
        let handles: Vec<_> = ranks
            .into_iter()
            .map(|rank| {
                let body = &body;
                scope.spawn(move || (body(&rank), rank))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).unzip()
    })
}

/// All-gather + GEMM on `devices`: each rank's D (all M rows of its N
/// columns) equals the host product of the gathered A and its B, bit for
/// bit.
fn all_gather_gemm_is_exact<T: Host>(
    ranks: Vec<TpRank>,
    m: usize,
    options: TpOptions,
) -> Vec<TpRank> {
    let w = ranks.len();
    let (n_rank, k) = (72, 96);
    let a_full = integers(1, m * k, 2);
    let split = RowSplit::new(m, w, options.chunks);
    let (failures, ranks) = on_every_rank(ranks, |rank| {
        let r = rank.rank();
        let stream = rank.device().default_stream();
        let gemm = gemm_of::<T>(rank.device());
        let first = split.first_row(r);
        let rows = split.rows_of(r);
        // One element past the shard, so that an empty shard is a buffer.
        let mut shard_host = a_full[first * k..(first + rows) * k].to_vec();
        shard_host.push(0.0);
        let shard = upload::<T>(&stream, &shard_host);
        let b_host = integers(10 + r as u64, n_rank * k, 2);
        let b = upload::<T>(&stream, &b_host);
        let mut d = upload::<T>(&stream, &vec![f64::NAN; m * n_rank]);
        let shape = GemmShape::new(m, n_rank, k, 1);
        rank.all_gather_gemm(
            &gemm,
            shape,
            &shard.slice(0..rows * k),
            &Operand::new(b.as_view(), k, 0),
            &mut OutputOperand::new(d.as_view_mut(), n_rank, 0),
            2.0,
            &options,
            &stream,
        )
        .unwrap();
        let got: Vec<u32> = stream
            .clone_dtoh(&d)
            .unwrap()
            .into_iter()
            .map(T::bits)
            .collect();
        let want: Vec<u32> = host_gemm(&a_full, &b_host, m, n_rank, k, 2.0)
            .into_iter()
            .map(|v| T::from_f64(v).bits())
            .collect();
        first_difference(&got, &want).map(|(i, g, w)| {
            format!(
                "rank {r}, M = {m}, {options:?}: D[{}][{}] = {g:#x}, expected {w:#x}",
                i / n_rank,
                i % n_rank,
            )
        })
    });
    let failures: Vec<String> = failures.into_iter().flatten().collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    ranks
}

/// GEMM + reduce-scatter (`all_reduce` false) or GEMM + all-reduce on
/// `devices`: each rank holds a K slice; D (its shard of rows, or all of
/// them) equals the host product over the whole of K.
fn reducing_gemm_is_exact<T: Host>(
    ranks: Vec<TpRank>,
    m: usize,
    all_reduce: bool,
    options: TpOptions,
) -> Vec<TpRank> {
    let w = ranks.len();
    let (n, k_rank) = (64, 16);
    let k = k_rank * w;
    let a_full = integers(3, m * k, 1);
    let b_full = integers(4, n * k, 1);
    let want: Vec<f64> = host_gemm(&a_full, &b_full, m, n, k, 1.0);
    let split = RowSplit::new(m, w, options.chunks);
    let (failures, ranks) = on_every_rank(ranks, |rank| {
        let r = rank.rank();
        let stream = rank.device().default_stream();
        let gemm = gemm_of::<T>(rank.device());
        // This rank's K slice of A and B.
        let slice = |full: &[f64], rows: usize| -> Vec<f64> {
            (0..rows)
                .flat_map(|i| full[i * k + r * k_rank..i * k + (r + 1) * k_rank].to_vec())
                .collect()
        };
        let a = upload::<T>(&stream, &slice(&a_full, m));
        let b = upload::<T>(&stream, &slice(&b_full, n));
        let shape = GemmShape::new(m, n, k_rank, 1);
        let (a_op, b_op) = (
            Operand::new(a.as_view(), k_rank, 0),
            Operand::new(b.as_view(), k_rank, 0),
        );
        let (first, rows) = if all_reduce {
            (0, m)
        } else {
            (split.first_row(r), split.rows_of(r))
        };
        let mut d = upload::<T>(&stream, &vec![f64::NAN; rows * n + 1]);
        let result = if all_reduce {
            rank.gemm_all_reduce(
                &gemm,
                shape,
                &a_op,
                &b_op,
                &mut d.slice_mut(0..rows * n),
                1.0,
                &options,
                &stream,
            )
        } else {
            rank.gemm_reduce_scatter(
                &gemm,
                shape,
                &a_op,
                &b_op,
                &mut d.slice_mut(0..rows * n),
                1.0,
                &options,
                &stream,
            )
        };
        result.unwrap();
        let got: Vec<u32> = stream
            .clone_dtoh(&d)
            .unwrap()
            .into_iter()
            .map(T::bits)
            .collect();
        if got[rows * n] != T::nan().bits() {
            return Some(format!("rank {r}: the element past D was written"));
        }
        let want: Vec<u32> = want[first * n..(first + rows) * n]
            .iter()
            .map(|&v| T::from_f64(v).bits())
            .collect();
        first_difference(&got[..rows * n], &want).map(|(i, g, w)| {
            format!(
                "rank {r}, M = {m}, all-reduce {all_reduce}, {options:?}: row {} col {} = {g:#x}, expected {w:#x}",
                first + i / n,
                i % n,
            )
        })
    });
    let failures: Vec<String> = failures.into_iter().flatten().collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    ranks
}

/// Every operation on `count` GPUs: ragged M, 1 to 8 chunks, both forms,
/// the overlapped one over peer copies and over NCCL.
fn every_operation_on(test: &str, count: usize) {
    let _gpus = shared_gpus();
    let Some(devices) = devices_or_skip(test, count) else {
        return;
    };
    for peer_copies in [true, false] {
        let config = TpConfig {
            peer_copies,
            collective_sms: 8,
        };
        let mut ranks = TpRank::from_devices_with(&devices, config).unwrap();
        assert_eq!(ranks[0].uses_peer_copies(), peer_copies && count > 1);
        for m in [517, 64, 3] {
            for (chunks, overlap) in [(1, false), (1, true), (3, true), (8, true)] {
                if peer_copies && !overlap {
                    continue; // the sequential form is NCCL's either way
                }
                let options = TpOptions {
                    chunks,
                    overlap,
                    check_shapes: true,
                };
                ranks = all_gather_gemm_is_exact::<bf16>(ranks, m, options);
                ranks = all_gather_gemm_is_exact::<f16>(ranks, m, options);
                ranks = reducing_gemm_is_exact::<bf16>(ranks, m, false, options);
                ranks = reducing_gemm_is_exact::<f16>(ranks, m, false, options);
                ranks = reducing_gemm_is_exact::<bf16>(ranks, m, true, options);
                ranks = reducing_gemm_is_exact::<f16>(ranks, m, true, options);
            }
        }
    }
}

#[test]
fn every_operation_is_exact_on_2_gpus() {
    every_operation_on("every_operation_is_exact_on_2_gpus", 2);
}

#[test]
fn every_operation_is_exact_on_4_gpus() {
    every_operation_on("every_operation_is_exact_on_4_gpus", 4);
}

/// Rank 1 asks for another M: both ranks get an `InvalidArgument` naming
/// the rank that differs, and nothing hangs.
#[test]
fn a_rank_with_another_shape_is_an_error_on_every_rank() {
    const NAME: &str = "a_rank_with_another_shape_is_an_error_on_every_rank";
    let _gpus = shared_gpus();
    let Some(devices) = devices_or_skip(NAME, 2) else {
        return;
    };
    let ranks = TpRank::from_devices(&devices).unwrap();
    let (errors, _) = on_every_rank(ranks, |rank| {
        let stream = rank.device().default_stream();
        let gemm = gemm_of::<bf16>(rank.device());
        let m = if rank.rank() == 1 { 130 } else { 128 };
        let k = 64;
        let a = stream.alloc_zeros::<bf16>(m * k).unwrap();
        let b = stream.alloc_zeros::<bf16>(64 * k).unwrap();
        let mut d = stream.alloc_zeros::<bf16>(m * 64).unwrap();
        rank.gemm_all_reduce(
            &gemm,
            GemmShape::new(m, 64, k, 1),
            &Operand::new(a.as_view(), k, 0),
            &Operand::new(b.as_view(), k, 0),
            &mut d.as_view_mut(),
            1.0,
            &TpOptions::default(),
            &stream,
        )
        .unwrap_err()
    });
    for error in errors {
        assert!(matches!(error, Error::InvalidArgument { .. }), "{error}");
        let text = error.to_string();
        assert!(
            text.contains("M = 130") && text.contains("M = 128"),
            "{text}"
        );
    }
}

/// On the peer path, rank 1 passes a D too short for its rows: it gets
/// the InvalidArgument naming `d.len()`, rank 0 an error naming rank 1,
/// and neither hangs; the group then still runs an operation (the check
/// comes before anything moves).
#[test]
fn a_rank_with_a_bad_buffer_is_an_error_on_every_rank() {
    const NAME: &str = "a_rank_with_a_bad_buffer_is_an_error_on_every_rank";
    let _gpus = shared_gpus();
    let Some(devices) = devices_or_skip(NAME, 2) else {
        return;
    };
    let ranks = TpRank::from_devices(&devices[..2]).unwrap();
    let (errors, ranks) = on_every_rank(ranks, |rank| {
        let stream = rank.device().default_stream();
        let gemm = gemm_of::<bf16>(rank.device());
        let (m, n, k) = (128, 64, 64);
        let a = stream.alloc_zeros::<bf16>(m * k).unwrap();
        let b = stream.alloc_zeros::<bf16>(n * k).unwrap();
        let len = if rank.rank() == 1 { m * n - 1 } else { m * n };
        let mut d = stream.alloc_zeros::<bf16>(len).unwrap();
        rank.gemm_all_reduce(
            &gemm,
            GemmShape::new(m, n, k, 1),
            &Operand::new(a.as_view(), k, 0),
            &Operand::new(b.as_view(), k, 0),
            &mut d.as_view_mut(),
            1.0,
            &TpOptions::default(),
            &stream,
        )
        .unwrap_err()
    });
    for (rank, error) in errors.iter().enumerate() {
        assert!(matches!(error, Error::InvalidArgument { .. }), "{error}");
        let text = error.to_string();
        let named = if rank == 1 { "d.len()" } else { "rank 1" };
        assert!(text.contains(named), "rank {rank}: {text}");
    }
    // Nothing moved: the group still works.
    reducing_gemm_is_exact::<bf16>(ranks, 64, true, TpOptions::default());
}

/// One call of [`gemm_all_reduce_repeats_without_waiting_on`]: its inputs,
/// its D (one element past it, and one before it where `offset` is 1, so
/// that D is not 16-byte aligned) and the expected bits.
struct Call<T> {
    a: CudaSlice<T>,
    b: CudaSlice<T>,
    d: CudaSlice<T>,
    offset: usize,
    shape: GemmShape,
    want: Vec<u32>,
}

/// Rank `r`'s calls of type `T`: those of `plan` whose index is `parity`
/// modulo 2, each with seeds of its own (so that a sum that read another
/// call's partials would differ).
fn calls_of<T: Host>(
    stream: &Arc<CudaStream>,
    plan: &[(usize, usize)],
    parity: usize,
    (r, w): (usize, usize),
) -> Vec<(usize, Call<T>)> {
    let k_rank = 16;
    let k = k_rank * w;
    plan.iter()
        .enumerate()
        .filter(|(i, _)| i % 2 == parity)
        .map(|(i, &(m, n))| {
            let seed = 100 + 2 * i as u64;
            let (a_full, b_full) = (integers(seed, m * k, 1), integers(seed + 1, n * k, 1));
            let want = host_gemm(&a_full, &b_full, m, n, k, 1.0)
                .into_iter()
                .map(|v| T::from_f64(v).bits())
                .collect();
            let slice = |full: &[f64], rows: usize| -> Vec<f64> {
                (0..rows)
                    .flat_map(|row| full[row * k + r * k_rank..row * k + (r + 1) * k_rank].to_vec())
                    .collect()
            };
            let offset = (i / 2) % 2;
            let call = Call {
                a: upload::<T>(stream, &slice(&a_full, m)),
                b: upload::<T>(stream, &slice(&b_full, n)),
                d: upload::<T>(stream, &vec![f64::NAN; offset + m * n + 1]),
                offset,
                shape: GemmShape::new(m, n, k_rank, 1),
                want,
            };
            (i, call)
        })
        .collect()
}

/// Enqueues `call` on `stream` (nothing waits for it here), with the
/// ranks' shapes compared first where `check_shapes`.
fn enqueue<T: Host>(
    rank: &TpRank,
    gemm: &Gemm,
    call: &mut Call<T>,
    check_shapes: bool,
    stream: &Arc<CudaStream>,
) {
    let GemmShape { m, n, k, .. } = call.shape;
    rank.gemm_all_reduce(
        gemm,
        call.shape,
        &Operand::new(call.a.as_view(), k, 0),
        &Operand::new(call.b.as_view(), k, 0),
        &mut call.d.slice_mut(call.offset..call.offset + m * n),
        1.0,
        &TpOptions {
            check_shapes,
            ..TpOptions::default()
        },
        stream,
    )
    .unwrap();
}

/// What differs between `call`'s D and the host's sum, if anything.
fn check_call<T: Host>(
    r: usize,
    i: usize,
    call: &Call<T>,
    stream: &Arc<CudaStream>,
) -> Option<String> {
    let GemmShape { m, n, .. } = call.shape;
    let got: Vec<u32> = stream
        .clone_dtoh(&call.d)
        .unwrap()
        .into_iter()
        .map(T::bits)
        .collect();
    let nan = T::nan().bits();
    if got[call.offset + m * n] != nan || (call.offset == 1 && got[0] != nan) {
        return Some(format!(
            "rank {r}, call {i}: an element beside D was written"
        ));
    }
    first_difference(&got[call.offset..call.offset + m * n], &call.want).map(|(e, g, w)| {
        format!(
            "rank {r}, call {i} ({m} x {n}, D at element {}): row {} col {} = {g:#x}, expected {w:#x}",
            call.offset,
            e / n,
            e % n
        )
    })
}

/// GEMM + all-reduce over peer memory, called many times in a row with no
/// wait in between (with `check_shapes` off the ranks meet on the GPUs,
/// through flags and the two halves of each rank's buffer; on, through
/// events and the host's exchanges): every call's D equals the host sum,
/// through many epochs, a buffer that grows, bf16 and f16 calls on one
/// group, D not 16-byte aligned, sizes that are no multiple of a 16-byte
/// vector, and calls with and without the ranks' exchange on the host
/// (`check_shapes`), each rank on a stream of its own.
fn gemm_all_reduce_repeats_without_waiting_on(test: &str, count: usize) {
    let _alone = GPUS.write().unwrap_or_else(|e| e.into_inner());
    let Some(devices) = devices_or_skip(test, count) else {
        return;
    };
    let ranks = TpRank::from_devices(&devices).unwrap();
    assert!(ranks[0].uses_peer_copies());
    let plan: Vec<(usize, usize)> = [(3, 64), (16, 64), (1, 8), (40, 128), (5, 24), (16, 64)]
        .into_iter()
        .cycle()
        .take(30)
        .chain([(130, 256), (2, 16), (130, 256)])
        .collect();
    let (failures, _) = on_every_rank(ranks, |rank| {
        let (r, w) = (rank.rank(), rank.world_size());
        let stream = rank.device().context().new_stream().unwrap();
        let (g16, gb16) = (
            gemm_of::<f16>(rank.device()),
            gemm_of::<bf16>(rank.device()),
        );
        let mut bf = calls_of::<bf16>(&stream, &plan, 0, (r, w));
        let mut hf = calls_of::<f16>(&stream, &plan, 1, (r, w));
        stream.synchronize().unwrap();
        for i in 0..plan.len() {
            let check_shapes = i % 3 == 0;
            if i % 2 == 0 {
                enqueue(rank, &gb16, &mut bf[i / 2].1, check_shapes, &stream);
            } else {
                enqueue(rank, &g16, &mut hf[i / 2].1, check_shapes, &stream);
            }
        }
        let mut failures: Vec<String> = bf
            .iter()
            .filter_map(|(i, call)| check_call(r, *i, call, &stream))
            .collect();
        failures.extend(
            hf.iter()
                .filter_map(|(i, call)| check_call(r, *i, call, &stream)),
        );
        failures
    });
    let failures: Vec<String> = failures.into_iter().flatten().collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn gemm_all_reduce_repeats_without_waiting_on_2_gpus() {
    gemm_all_reduce_repeats_without_waiting_on(
        "gemm_all_reduce_repeats_without_waiting_on_2_gpus",
        2,
    );
}

#[test]
fn gemm_all_reduce_repeats_without_waiting_on_4_gpus() {
    gemm_all_reduce_repeats_without_waiting_on(
        "gemm_all_reduce_repeats_without_waiting_on_4_gpus",
        4,
    );
}
