//! Every GEMM configuration the rules accept runs and computes exactly on
//! the GPU: the sweep of `common/sweep.rs` (tiles, BK, warps, types,
//! majors), each accepted combination run on a problem that is ragged in
//! M, N and K for every tile (M = 300, N = 291, K = 203, two batches),
//! against a host reference.
//!
//! The data are small integers (A and B in -2..=2, C in -3..=3; alpha = 2,
//! beta = -1), so every product and sum is exact in f32 and f16
//! accumulation alike and D must equal the reference rounded to D's type,
//! bit for bit. D starts poisoned (NaN) and its padding beyond each row
//! must stay so.
//!
//! The configurations are shared among child processes (this test binary
//! started again, one CUDA context each), as compiling them is most of the
//! time. By default a fixed sample (every 37th accepted configuration) runs
//! with the JIT as a user gets it; `CUTLET_GEMM_SWEEP=N` runs every N-th;
//! `CUTLET_GEMM_SWEEP=full` runs all of them (26,672), each compiled once at
//! the quick tier's level (`CUTLET_JIT_OPT_LEVEL=1`) to fit a few minutes.
//! Tiles and warps off the powers of two (`uneven_combos`: every 4th by
//! default, all with `full` or `uneven`) run beside them.

mod common;

use std::process::Command;

use common::exact::{integers, min_ld, Host};
use common::sweep::{combos, uneven_combos, Combo, TYPES};
use cudarc::driver::CudaSlice;
use cutlet::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand};
use cutlet::device::Device;
use cutlet::kernel::gemm::{GemmSpec, OperandMajor, OutputMajor};
use cutlet::numeric::ElementType;
use cutlet_harness::device_or_skip;
use half::{bf16, f16};

const SHARD_ENV: &str = "CUTLET_GEMM_SWEEP_SHARD";
const MODE_ENV: &str = "CUTLET_GEMM_SWEEP";
const TEST: &str = "every_accepted_configuration_runs_exactly";

/// The problem every configuration runs: ragged for every tile.
const M: usize = 300;
const N: usize = 291;
const K: usize = 203;
const L: usize = 2;
const ALPHA: f64 = 2.0;
const BETA: f64 = -1.0;

/// One (types, majors) group's problem on the device and its reference.
struct Problem<I, O> {
    a: CudaSlice<I>,
    b: CudaSlice<I>,
    c: CudaSlice<O>,
    lda: usize,
    ldb: usize,
    ldd: usize,
    /// D's elements per batch (outer x ldd).
    batch_d: usize,
    /// The expected bits of D, padding included (poison there).
    expected: Vec<u32>,
}

fn problem<I: Host, O: Host>(device: &Device, combo: &Combo) -> Problem<I, O> {
    let stream = device.default_stream();
    let seed = 1000 + combo.group() as u64 * 10;
    let (it, ot) = (I::TYPE, O::TYPE);
    // (outer, inner, ld) of each operand per batch.
    let layout = |mn: usize, major| match major {
        OperandMajor::K => (mn, K, min_ld(K, it)),
        OperandMajor::MN => (K, mn, min_ld(mn, it)),
    };
    let (a_outer, _, lda) = layout(M, combo.a_major);
    let (b_outer, _, ldb) = layout(N, combo.b_major);
    let (d_outer, d_inner) = match combo.d_major {
        OutputMajor::N => (M, N),
        OutputMajor::M => (N, M),
    };
    let ldd = min_ld(d_inner, ot);
    let a = integers(seed, L * a_outer * lda, 2);
    let b = integers(seed + 1, L * b_outer * ldb, 2);
    let c = integers(seed + 2, L * d_outer * ldd, 3);
    let at = |values: &[f64], ld: usize, outer: usize, batch: usize, mn: usize, k: usize, major| {
        let base = batch * outer * ld;
        match major {
            OperandMajor::K => values[base + mn * ld + k],
            OperandMajor::MN => values[base + k * ld + mn],
        }
    };
    let mut expected = vec![O::nan().bits(); L * d_outer * ldd];
    for batch in 0..L {
        for m in 0..M {
            for n in 0..N {
                let acc: f64 = (0..K)
                    .map(|k| {
                        at(&a, lda, a_outer, batch, m, k, combo.a_major)
                            * at(&b, ldb, b_outer, batch, n, k, combo.b_major)
                    })
                    .sum();
                let at_d = match combo.d_major {
                    OutputMajor::N => batch * d_outer * ldd + m * ldd + n,
                    OutputMajor::M => batch * d_outer * ldd + n * ldd + m,
                };
                let value = ALPHA * acc + BETA * c[at_d];
                expected[at_d] = O::from_f64(value).bits();
            }
        }
    }
    let encode_i = |v: &[f64]| v.iter().map(|&x| I::from_f64(x)).collect::<Vec<I>>();
    let encode_o = |v: &[f64]| v.iter().map(|&x| O::from_f64(x)).collect::<Vec<O>>();
    Problem {
        a: stream.clone_htod(&encode_i(&a)).unwrap(),
        b: stream.clone_htod(&encode_i(&b)).unwrap(),
        c: stream.clone_htod(&encode_o(&c)).unwrap(),
        lda,
        ldb,
        ldd,
        batch_d: d_outer * ldd,
        expected,
    }
}

/// Runs `spec` on `p`; the first element that differs, if any.
fn run_one<I: Host, O: Host>(
    device: &Device,
    spec: GemmSpec,
    p: &Problem<I, O>,
    combo: &Combo,
) -> Result<(), String> {
    let stream = device.default_stream();
    let gemm = Gemm::from_spec(device, spec);
    let mut d = stream
        .clone_htod(&vec![O::nan(); p.expected.len()])
        .map_err(|e| e.to_string())?;
    let batch = |outer: usize, ld: usize| outer * ld;
    let a_outer = if combo.a_major == OperandMajor::K {
        M
    } else {
        K
    };
    let b_outer = if combo.b_major == OperandMajor::K {
        N
    } else {
        K
    };
    let mut args = Arguments::new(
        GemmShape::new(M, N, K, L),
        Operand::new(p.a.as_view(), p.lda, batch(a_outer, p.lda)),
        Operand::new(p.b.as_view(), p.ldb, batch(b_outer, p.ldb)),
        Operand::new(p.c.as_view(), p.ldd, p.batch_d),
        OutputOperand::new(d.as_view_mut(), p.ldd, p.batch_d),
        ALPHA,
        BETA,
    );
    gemm.run(&mut args, &stream).map_err(|e| e.to_string())?;
    let got = stream.clone_dtoh(&d).map_err(|e| e.to_string())?;
    match got
        .iter()
        .zip(&p.expected)
        .position(|(g, &w)| g.bits() != w)
    {
        None => Ok(()),
        Some(i) => Err(format!(
            "element {i} of D (batch {}, offset {}): bits {:#x}, expected {:#x}",
            i / p.batch_d,
            i % p.batch_d,
            got[i].bits(),
            p.expected[i]
        )),
    }
}

/// Runs `combos` (all of one group) with element types `I` and `O`.
fn run_group<I: Host, O: Host>(
    device: &Device,
    combos: &[(Combo, GemmSpec)],
    failures: &mut Vec<String>,
) {
    let p = problem::<I, O>(device, &combos[0].0);
    for (combo, spec) in combos {
        let name = spec.kernel_name();
        if let Err(why) = run_one(device, spec.clone(), &p, combo) {
            failures.push(format!("{name}: {why}"));
        }
    }
}

/// A child process: runs shard `index` of `count` of the accepted combinations.
fn run_shard(index: usize, count: usize, stride: usize, uneven_stride: usize) {
    let device = Device::new(0).expect("the parent test found a GPU");
    let accept = |c: Combo| c.builder().spec().ok().map(|s| (c, s));
    // A stride of 0 takes none of them.
    let regular = combos()
        .into_iter()
        .filter_map(accept)
        .step_by(stride.max(1))
        .take(if stride == 0 { 0 } else { usize::MAX });
    let uneven = uneven_combos()
        .into_iter()
        .filter_map(accept)
        .step_by(uneven_stride);
    let accepted: Vec<(Combo, GemmSpec)> = regular
        .chain(uneven)
        .enumerate()
        .filter(|(i, _)| i % count == index)
        .map(|(_, x)| x)
        .collect();
    let mut failures = Vec::new();
    for group in 0..TYPES.len() * 8 {
        let members: Vec<(Combo, GemmSpec)> = accepted
            .iter()
            .filter(|(c, _)| c.group() == group)
            .cloned()
            .collect();
        let Some((first, _)) = members.first() else {
            continue;
        };
        match (first.ab, first.d) {
            (ElementType::BF16, ElementType::BF16) => {
                run_group::<bf16, bf16>(&device, &members, &mut failures)
            }
            (ElementType::BF16, _) => run_group::<bf16, f32>(&device, &members, &mut failures),
            (ElementType::F16, ElementType::F16) => {
                run_group::<f16, f16>(&device, &members, &mut failures)
            }
            (ElementType::F16, _) => run_group::<f16, f32>(&device, &members, &mut failures),
            _ => run_group::<f32, f32>(&device, &members, &mut failures),
        }
    }
    println!(
        "sweep-shard {index}/{count}: {} ran, {} failed",
        accepted.len(),
        failures.len()
    );
    for failure in &failures {
        println!("FAILED {failure}");
    }
    assert!(
        failures.is_empty(),
        "{} of {} configurations failed",
        failures.len(),
        accepted.len()
    );
}

#[test]
fn every_accepted_configuration_runs_exactly() {
    // `full`: every accepted configuration; `uneven`: every one of
    // uneven_combos() alone; a number n: every n-th; else every 37th (and
    // every 4th uneven one).
    let mode = std::env::var(MODE_ENV).unwrap_or_default();
    let full = mode == "full" || mode == "uneven";
    let (stride, uneven_stride) = match mode.as_str() {
        "full" => (1, 1),
        "uneven" => (0, 1),
        n => (n.parse().unwrap_or(37), 4),
    };
    if let Ok(shard) = std::env::var(SHARD_ENV) {
        let (index, count) = shard.split_once('/').expect("SHARD_ENV is i/n");
        run_shard(
            index.parse().unwrap(),
            count.parse().unwrap(),
            stride,
            uneven_stride,
        );
        return;
    }
    let Some(device) = device_or_skip(TEST) else {
        return;
    };
    drop(device);
    let cores = std::thread::available_parallelism().map_or(4, |n| n.get());
    let count = if full { cores } else { cores.min(8) };
    let me = std::env::current_exe().expect("the test binary's path");
    let children: Vec<_> = (0..count)
        .map(|index| {
            let mut command = Command::new(&me);
            command
                .args([TEST, "--exact", "--nocapture", "--test-threads=1"])
                .env(SHARD_ENV, format!("{index}/{count}"));
            if full {
                command
                    .env("CUTLET_JIT_TIERED", "0")
                    .env("CUTLET_JIT_OPT_LEVEL", "1");
            }
            command.spawn().expect("a shard process starts")
        })
        .collect();
    // The shards print their own counts and failures; each exits non-zero
    // if one of its configurations failed.
    let mut bad = Vec::new();
    for (index, child) in children.into_iter().enumerate() {
        let status = child.wait_with_output().expect("the shard ran").status;
        if !status.success() {
            bad.push(format!("shard {index}: {status}"));
        }
    }
    assert!(
        bad.is_empty(),
        "failed shards (their output above): {}",
        bad.join(", ")
    );
}
