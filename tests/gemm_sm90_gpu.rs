//! Every default SM90 kernel (`sm90_default_specs`: the cooperative 128x256
//! kernel in a 2x1 cluster, the ping-pong 128x128 kernels without and with
//! a 2x1 cluster, the cooperative 256x128 kernel in a 1x2 cluster and, for
//! 16-bit inputs with a K-major B, the cooperative 256x160 kernel of
//! half-depth k-tiles (64-byte rows) in a 1x2 cluster, for every type
//! combination and major, with the TMA epilogue) computes exactly on an H100/H200, plus the register-store
//! epilogue on every 5th of them and the schedules and clusters the
//! defaults leave out (1x2 and 2x2 clusters, the cooperative kernel
//! without one).
//!
//! Each kernel runs two problems, ragged in M, N and K for its tiles:
//! - M = 300, N = 291, K = 203, L = 3 batches, alpha = 2, beta = -1, C a
//!   buffer of its own;
//! - M = 129, N = 77, K = 64, L = 1, in place (C is D), alpha = 1,
//!   beta = 0.5.
//!
//! With the TMA-store epilogue D's contiguous extent is rounded up to whole
//! 16-byte chunks (296 for 291 bf16 columns); `ragged_rows_of_d_...` checks
//! the rest: such a D is refused by the TMA kernel by name and taken by the
//! register-store kernel behind it.
//!
//! The data are small integers (A and B in -2..=2, C in -3..=3), so every
//! product and sum is exact in f32 and f16 accumulation alike and D must
//! equal the reference rounded to D's type, bit for bit. D starts poisoned
//! (NaN) and its padding beyond each row must stay so.
//!
//! The kernels are shared among child processes (this test binary started
//! again, one CUDA context each), as compiling them is most of the time.
//! `CUTLET_SM90_STRIDE=n` runs every n-th kernel and `CUTLET_SM90_INPROCESS=1`
//! runs them in this process (for compute-sanitizer).

mod common;

use std::process::Command;

use common::exact::{integers, min_ld, Host};
use cudarc::driver::CudaSlice;
use cutlet::arch::ArchKind;
use cutlet::collective::EpiloguePolicy;
use cutlet::device::gemm::{
    Arguments, Gemm, GemmShape, Operand, OutputOperand, RasterOrder, SchedulerArgs,
};
use cutlet::device::Device;
use cutlet::gemm::{GemmMajors, GemmTypes};
use cutlet::kernel::gemm::{
    sm90_default_specs, sm90_spec, sm90_spec_for_problem, GemmSpec, KernelSchedule, OperandMajor,
    OutputMajor,
};
use cutlet::numeric::ElementType;
use cutlet_harness::device_or_skip;
use half::{bf16, f16};

const SHARD_ENV: &str = "CUTLET_SM90_SHARD";
const TEST: &str = "every_sm90_kernel_computes_exactly";

/// Device 0 where it has compute capability 9.0; else `None`, with the
/// reason printed (no driver or GPU: [`device_or_skip`]).
fn sm90_device_or_skip(test: &str) -> Option<Device> {
    let device = device_or_skip(test)?;
    if device.compute_capability() != (9, 0) {
        println!(
            "skipped {test}: the SM90 kernels need compute capability 9.0, this GPU has {:?}",
            device.compute_capability()
        );
        return None;
    }
    Some(device)
}

/// One problem: its shape, scalars, whether C is D, and the elements C's
/// leading dimension has beyond D's (a C buffer of its own).
#[derive(Clone, Copy, Debug)]
struct Case {
    m: usize,
    n: usize,
    k: usize,
    l: usize,
    alpha: f64,
    beta: f64,
    in_place: bool,
    c_pad: usize,
}

const CASES: [Case; 3] = [
    Case {
        m: 300,
        n: 291,
        k: 203,
        l: 3,
        alpha: 2.0,
        beta: -1.0,
        in_place: false,
        c_pad: 0,
    },
    Case {
        m: 129,
        n: 77,
        k: 64,
        l: 1,
        alpha: 1.0,
        beta: 0.5,
        in_place: true,
        c_pad: 0,
    },
    // beta = 0: C holds NaN, which must not reach D (C is not read).
    Case {
        m: 200,
        n: 150,
        k: 100,
        l: 2,
        alpha: 3.0,
        beta: 0.0,
        in_place: false,
        c_pad: 0,
    },
];

/// Runs `spec` on `case`; the first element that differs, if any.
fn run_case<I: Host, O: Host>(device: &Device, spec: &GemmSpec, case: Case) -> Result<(), String> {
    run_case_with::<I, O>(device, spec, case, None, SchedulerArgs::default())
}

/// [`run_case`] on `gemm` where given (else a `Gemm` of `spec` alone),
/// walking the tiles as `scheduler` says.
fn run_case_with<I: Host, O: Host>(
    device: &Device,
    spec: &GemmSpec,
    case: Case,
    gemm: Option<&Gemm>,
    scheduler: SchedulerArgs,
) -> Result<(), String> {
    let stream = device.default_stream();
    let Case { m, n, k, l, .. } = case;
    let (it, ot) = (I::TYPE, O::TYPE);
    let layout = |mn: usize, major| match major {
        OperandMajor::K => (mn, min_ld(k, it)),
        OperandMajor::MN => (k, min_ld(mn, it)),
    };
    let (a_outer, lda) = layout(m, spec.majors.a);
    let (b_outer, ldb) = layout(n, spec.majors.b);
    let (d_outer, d_inner) = match spec.majors.d {
        OutputMajor::N => (m, n),
        OutputMajor::M => (n, m),
    };
    let ldd = min_ld(d_inner, ot);
    let seed = (m * 7 + l) as u64;
    let a = integers(seed, l * a_outer * lda, 2);
    let b = integers(seed + 1, l * b_outer * ldb, 2);
    // C's leading dimension: D's, or more for a C buffer of its own.
    let ldc = if case.in_place { ldd } else { ldd + case.c_pad };
    let c = integers(seed + 2, l * d_outer * ldc, 3);
    let at = |v: &[f64], ld: usize, outer: usize, batch: usize, mn: usize, kk: usize, major| {
        let base = batch * outer * ld;
        match major {
            OperandMajor::K => v[base + mn * ld + kk],
            OperandMajor::MN => v[base + kk * ld + mn],
        }
    };
    let mut expected = vec![O::nan().bits(); l * d_outer * ldd];
    for batch in 0..l {
        for i in 0..m {
            for j in 0..n {
                let acc: f64 = (0..k)
                    .map(|kk| {
                        at(&a, lda, a_outer, batch, i, kk, spec.majors.a)
                            * at(&b, ldb, b_outer, batch, j, kk, spec.majors.b)
                    })
                    .sum();
                let idx = match spec.majors.d {
                    OutputMajor::N => batch * d_outer * ldd + i * ldd + j,
                    OutputMajor::M => batch * d_outer * ldd + j * ldd + i,
                };
                let c_idx = match spec.majors.d {
                    OutputMajor::N => batch * d_outer * ldc + i * ldc + j,
                    OutputMajor::M => batch * d_outer * ldc + j * ldc + i,
                };
                expected[idx] = O::from_f64(case.alpha * acc + case.beta * c[c_idx]).bits();
            }
        }
    }
    let enc_i = |v: &[f64]| v.iter().map(|&x| I::from_f64(x)).collect::<Vec<I>>();
    let enc_o = |v: &[f64]| v.iter().map(|&x| O::from_f64(x)).collect::<Vec<O>>();
    let da: CudaSlice<I> = stream.clone_htod(&enc_i(&a)).map_err(|e| e.to_string())?;
    let db: CudaSlice<I> = stream.clone_htod(&enc_i(&b)).map_err(|e| e.to_string())?;
    let c_values = if case.beta == 0.0 {
        vec![O::nan(); c.len()]
    } else {
        enc_o(&c)
    };
    let dc: CudaSlice<O> = stream.clone_htod(&c_values).map_err(|e| e.to_string())?;
    // In place, D starts as C inside each row (poison in the padding).
    let d_init: Vec<O> = if case.in_place {
        (0..expected.len())
            .map(|i| {
                if i % ldd < d_inner {
                    O::from_f64(c[i])
                } else {
                    O::nan()
                }
            })
            .collect()
    } else {
        vec![O::nan(); expected.len()]
    };
    let mut dd: CudaSlice<O> = stream.clone_htod(&d_init).map_err(|e| e.to_string())?;
    let own;
    let gemm = match gemm {
        Some(gemm) => gemm,
        None => {
            own = Gemm::from_spec(device, spec.clone());
            &own
        }
    };
    let shape = GemmShape::new(m, n, k, l);
    let a_op = Operand::new(da.as_view(), lda, a_outer * lda);
    let b_op = Operand::new(db.as_view(), ldb, b_outer * ldb);
    let d_op = OutputOperand::new(dd.as_view_mut(), ldd, d_outer * ldd);
    let args = if case.in_place {
        Arguments::in_place(shape, a_op, b_op, d_op, case.alpha, case.beta)
    } else {
        Arguments::new(
            shape,
            a_op,
            b_op,
            Operand::new(dc.as_view(), ldc, d_outer * ldc),
            d_op,
            case.alpha,
            case.beta,
        )
    };
    let mut args = args.with_scheduler(scheduler);
    gemm.run(&mut args, &stream).map_err(|e| e.to_string())?;
    drop(args);
    let got = stream.clone_dtoh(&dd).map_err(|e| e.to_string())?;
    match got.iter().zip(&expected).position(|(g, &w)| g.bits() != w) {
        None => Ok(()),
        Some(i) => Err(format!(
            "{case:?}: element {i} of D (batch {}, offset {}): bits {:#x}, expected {:#x}",
            i / (d_outer * ldd),
            i % (d_outer * ldd),
            got[i].bits(),
            expected[i]
        )),
    }
}

fn run_spec(device: &Device, spec: &GemmSpec) -> Result<(), String> {
    for mut case in CASES {
        // The TMA-store epilogue takes a column-major D of whole 16-byte
        // chunks: M rounded up (still ragged for every tile). A row-major
        // D's ragged N runs as it is (the epilogue writes each row's last
        // partial chunk itself).
        if spec.epilogue.policy == EpiloguePolicy::Sm90TmaWarpSpecialized
            && spec.majors.d == OutputMajor::M
        {
            let chunk = 16 / spec.types.d.size_bytes() as usize;
            case.m = case.m.next_multiple_of(chunk);
        }
        match (spec.types.a, spec.types.d) {
            (ElementType::BF16, ElementType::BF16) => run_case::<bf16, bf16>(device, spec, case)?,
            (ElementType::BF16, _) => run_case::<bf16, f32>(device, spec, case)?,
            (ElementType::F16, ElementType::F16) => run_case::<f16, f16>(device, spec, case)?,
            (ElementType::F16, _) => run_case::<f16, f32>(device, spec, case)?,
            _ => run_case::<f32, f32>(device, spec, case)?,
        }
    }
    Ok(())
}

/// The kernels under test: the defaults, then the clusters and schedules
/// they leave out, for bf16 and f16 with K-major and MN-major operands.
fn kernels() -> Vec<GemmSpec> {
    use ElementType::{BF16, F16, F32};
    let mut specs = sm90_default_specs();
    // The register-store epilogue on every 5th default (each schedule,
    // type and major among them).
    let direct: Vec<GemmSpec> = specs
        .iter()
        .step_by(5)
        .map(|s| {
            s.clone()
                .with_sm90_epilogue(EpiloguePolicy::Sm90NoSmem)
                .unwrap()
        })
        .collect();
    specs.extend(direct);
    let extra = [
        (
            KernelSchedule::TmaWarpSpecializedCooperative,
            [128, 256, 64],
            [1, 1],
        ),
        (
            KernelSchedule::TmaWarpSpecializedCooperative,
            [128, 256, 64],
            [1, 2],
        ),
        (
            KernelSchedule::TmaWarpSpecializedCooperative,
            [128, 128, 64],
            [2, 2],
        ),
        (
            KernelSchedule::TmaWarpSpecializedCooperative,
            [256, 128, 64],
            [2, 1],
        ),
        (
            KernelSchedule::TmaWarpSpecializedPingpong,
            [64, 128, 64],
            [1, 2],
        ),
        (
            KernelSchedule::TmaWarpSpecializedPingpong,
            [128, 128, 64],
            [2, 2],
        ),
        (
            KernelSchedule::TmaWarpSpecializedPingpong,
            [64, 256, 64],
            [1, 1],
        ),
    ];
    for (schedule, tile, cluster) in extra {
        for (ab, d, a_major, b_major) in [
            (BF16, BF16, OperandMajor::K, OperandMajor::K),
            (F16, F32, OperandMajor::MN, OperandMajor::MN),
        ] {
            match sm90_spec(
                GemmTypes::new(ab, ab, d, d, F32),
                GemmMajors::new(a_major, b_major, OutputMajor::N),
                schedule,
                tile,
                cluster,
            ) {
                Ok(spec) => specs.push(spec),
                // Every shape takes K-major operands; an MN-major tile of
                // 64 cannot be split between two CTAs.
                Err(e) => assert!(
                    a_major == OperandMajor::MN,
                    "{schedule:?} {tile:?} {cluster:?}: {e}"
                ),
            }
        }
    }
    // tf32 with an M-major A (A through registers) in the shapes the
    // defaults leave out: two 64-row blocks per warpgroup, A's boxes split
    // between the CTAs of a 1x2 cluster, 64-row ping-pong.
    for (schedule, tile, cluster) in [
        (
            KernelSchedule::TmaWarpSpecializedCooperative,
            [256, 128, 32],
            [2, 1],
        ),
        (
            KernelSchedule::TmaWarpSpecializedCooperative,
            [128, 128, 32],
            [1, 2],
        ),
        (
            KernelSchedule::TmaWarpSpecializedPingpong,
            [64, 128, 32],
            [2, 2],
        ),
    ] {
        specs.push(
            sm90_spec(
                GemmTypes::new(ElementType::TF32, ElementType::TF32, F32, F32, F32),
                GemmMajors::new(OperandMajor::MN, OperandMajor::K, OutputMajor::N),
                schedule,
                tile,
                cluster,
            )
            .unwrap_or_else(|e| panic!("tf32 {schedule:?} {tile:?} {cluster:?}: {e}")),
        );
    }
    // The automatic pick for a ragged 4095x4097x4093: 256x128 cooperative
    // tiles (fewer waves than 128x256), the TMA store with its tail columns.
    specs.push(
        sm90_spec_for_problem(
            GemmTypes::new(BF16, BF16, BF16, BF16, F32),
            GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N),
            [4095, 4097, 4093, 1],
            132,
        )
        .unwrap(),
    );
    specs
}

fn run_shard(index: usize, count: usize) {
    let device = Device::new(0).expect("the parent test found a GPU");
    // `CUTLET_SM90_STRIDE=n` runs every n-th kernel (compute-sanitizer runs).
    let stride = std::env::var("CUTLET_SM90_STRIDE")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1);
    // `CUTLET_SM90_FILTER=text` keeps the kernels whose name holds it.
    let filter = std::env::var("CUTLET_SM90_FILTER").unwrap_or_default();
    let specs: Vec<GemmSpec> = kernels()
        .into_iter()
        .filter(|s| s.kernel_name().contains(&filter))
        .step_by(stride)
        .enumerate()
        .filter(|(i, _)| i % count == index)
        .map(|(_, s)| s)
        .collect();
    let mut failures = Vec::new();
    for spec in &specs {
        if let Err(why) = run_spec(&device, spec) {
            failures.push(format!("{}: {why}", spec.kernel_name()));
        }
    }
    println!(
        "sm90-shard {index}/{count}: {} ran, {} failed",
        specs.len(),
        failures.len()
    );
    for failure in &failures {
        println!("FAILED {failure}");
    }
    assert!(
        failures.is_empty(),
        "{} of {} kernels failed",
        failures.len(),
        specs.len()
    );
}

#[test]
fn every_sm90_kernel_computes_exactly() {
    if let Ok(shard) = std::env::var(SHARD_ENV) {
        let (index, count) = shard.split_once('/').expect("SHARD_ENV is i/n");
        run_shard(index.parse().unwrap(), count.parse().unwrap());
        return;
    }
    let Some(device) = sm90_device_or_skip(TEST) else {
        return;
    };
    drop(device);
    if std::env::var("CUTLET_SM90_INPROCESS").as_deref() == Ok("1") {
        run_shard(0, 1);
        return;
    }
    let count = std::thread::available_parallelism()
        .map_or(4, |n| n.get())
        .min(8);
    let me = std::env::current_exe().expect("the test binary's path");
    let children: Vec<_> = (0..count)
        .map(|index| {
            Command::new(&me)
                .args([TEST, "--exact", "--nocapture", "--test-threads=1"])
                .env(SHARD_ENV, format!("{index}/{count}"))
                .spawn()
                .expect("a shard process starts")
        })
        .collect();
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

/// A column-major D whose M is not whole 16-byte chunks (300 bf16 rows):
/// the TMA-store kernel refuses it naming M, and `Gemm::builder().build()`
/// runs it exactly on the register-store kernel behind, leaving D's
/// padding as it was. (A row-major D of any N stays on the TMA store: the
/// sweep's 291-, 77- and 150-column problems.)
#[test]
fn ragged_rows_of_d_take_the_register_store_epilogue() {
    const NAME: &str = "ragged_rows_of_d_take_the_register_store_epilogue";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    let spec = cutlet::kernel::gemm::sm90_default_spec(
        ElementType::BF16,
        ElementType::BF16,
        ElementType::BF16,
        ElementType::F32,
        OperandMajor::K,
        OperandMajor::K,
        OutputMajor::M,
    )
    .unwrap();
    let case = CASES[0];
    let err = run_case::<bf16, bf16>(&device, &spec, case).unwrap_err();
    assert!(
        err.contains("M of a D stored with TMA") && err.contains("300"),
        "{err}"
    );
    // The builder's pick on CC 9.0: the same call runs (on the register-store kernel).
    let auto = Gemm::builder()
        .d(ElementType::BF16, OutputMajor::M)
        .build(&device)
        .unwrap();
    assert_eq!(auto.spec(), &spec);
    run_case_with::<bf16, bf16>(&device, &spec, case, Some(&auto), SchedulerArgs::default())
        .unwrap();
}

/// 1100 x 1000 x 72 in 2 batches, beta 0: ragged in every dimension and
/// more tiles than the persistent grid for every tile tested with it, so
/// each CTA takes several tiles.
const MANY_TILES: Case = Case {
    m: 1100,
    n: 1000,
    k: 72,
    l: 2,
    alpha: 1.0,
    beta: 0.0,
    in_place: false,
    c_pad: 0,
};

/// The SM90 kernel of `schedule`, `tile` and `cluster` for bf16 K-major A
/// and B, a row-major bf16 D and f32 accumulation.
fn bf16_sm90_spec(schedule: KernelSchedule, tile: [u32; 3], cluster: [u32; 2]) -> GemmSpec {
    let (i, f) = (ElementType::BF16, ElementType::F32);
    let (k, n) = (OperandMajor::K, OutputMajor::N);
    sm90_spec(
        GemmTypes::new(i, i, i, i, f),
        GemmMajors::new(k, k, n),
        schedule,
        tile,
        cluster,
    )
    .unwrap()
}

/// Tiles of an odd number of 32-column subtiles (ping-pong 128x96: 3;
/// cooperative 128x160: 5), several tiles per CTA: the next tile's first
/// subtile reuses buffer 0, which the last store of the tile before still
/// reads unless the epilogue waits for it. 1100 x 1000 in 128x96 tiles is
/// 9 x 11 x 2 batches = 198 tiles on at most 132 CTAs (and 144 in 128x160),
/// ragged in every dimension.
#[test]
fn odd_subtile_counts_run_exactly_across_persistent_tiles() {
    const NAME: &str = "odd_subtile_counts_run_exactly_across_persistent_tiles";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    for (schedule, tile) in [
        (KernelSchedule::TmaWarpSpecializedPingpong, [128, 96, 64]),
        (
            KernelSchedule::TmaWarpSpecializedCooperative,
            [128, 160, 64],
        ),
    ] {
        let spec = bf16_sm90_spec(schedule, tile, [1, 1]);
        run_case::<bf16, bf16>(&device, &spec, MANY_TILES)
            .unwrap_or_else(|e| panic!("{}: {e}", spec.kernel_name()));
    }
}

/// Fewer rows of A than the tile (M of 1 to 120 under 128-row tiles, 40
/// under 64-row ones): A's box stops at M's rows, rounded up to 8
/// (`TensorMapRequest::clip_rows`), the rest of the stage's A tile holds
/// whatever an earlier stage left, and D's rows past M stay unwritten.
/// Cooperative, ping-pong and sliced-K kernels, split-K (the TMA-store and
/// register-store epilogues), a 2x1 cluster (A clipped, B multicast) and a
/// 1x2 one (A multicast: not clipped); batched, alpha and beta not 0 or 1,
/// C of its own and in place; exactly.
#[test]
fn a_of_fewer_rows_than_the_tile_computes_exactly() {
    const NAME: &str = "a_of_fewer_rows_than_the_tile_computes_exactly";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    let cooperative = KernelSchedule::TmaWarpSpecializedCooperative;
    let pingpong = KernelSchedule::TmaWarpSpecializedPingpong;
    let sliced = KernelSchedule::TmaWarpSpecializedSlicedK;
    let case = |m, in_place| Case {
        m,
        n: 150,
        k: 520,
        l: 2,
        alpha: 1.5,
        beta: if in_place { 0.5 } else { -2.0 },
        in_place,
        c_pad: if in_place { 0 } else { 8 },
    };
    let whole = [
        (cooperative, [128, 128, 64], [1, 1]),
        (pingpong, [128, 64, 64], [1, 1]),
        (cooperative, [128, 128, 64], [2, 1]),
        (cooperative, [128, 128, 64], [1, 2]),
        (pingpong, [64, 64, 64], [1, 1]),
        (sliced, [64, 128, 64], [1, 1]),
    ];
    for (schedule, tile, cluster) in whole {
        let spec = bf16_sm90_spec(schedule, tile, cluster);
        for m in [1, 40, 77, 120] {
            for in_place in [false, true] {
                run_case::<bf16, bf16>(&device, &spec, case(m, in_place))
                    .unwrap_or_else(|e| panic!("{} at M = {m}: {e}", spec.kernel_name()));
            }
        }
    }
    let bf = ElementType::BF16;
    for (tile, splits) in [([128, 64, 64], 4), ([128, 48, 64], 6)] {
        let spec = split_k_spec(bf, bf, OutputMajor::N, tile, splits);
        for m in [1, 77, 120] {
            run_split_case::<bf16, bf16>(&device, &spec, case(m, false))
                .unwrap_or_else(|e| panic!("{} at M = {m}: {e}", spec.kernel_name()));
        }
    }
}

/// The sliced-K schedule (both consumer warpgroups on one tile, each on
/// every other k-tile, the second's partial tile added through shared
/// memory): 64-row tiles 64 to 192 wide, bf16 and f16 with K-major and MN-major
/// operands, a row- and a column-major D, f32 and 16-bit D, both epilogues,
/// on the three problems every kernel runs (4, 1 and 2 k-tiles: the
/// second warpgroup has none at K = 64), an odd count of k-tiles (K = 203
/// of 32: 7) and many tiles per block (1100 x 1000 in 64x64 tiles: 612
/// tiles, batches of 2), exactly.
#[test]
fn sliced_k_computes_exactly() {
    const NAME: &str = "sliced_k_computes_exactly";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    use ElementType::{BF16, F16, F32};
    let (k, mn) = (OperandMajor::K, OperandMajor::MN);
    let sliced = KernelSchedule::TmaWarpSpecializedSlicedK;
    let spec = |a, d, majors: [OperandMajor; 2], d_major, tile: [u32; 3]| {
        sm90_spec(
            GemmTypes::new(a, a, d, d, F32),
            GemmMajors::new(majors[0], majors[1], d_major),
            sliced,
            tile,
            [1, 1],
        )
        .unwrap()
    };
    let mut specs = vec![
        spec(BF16, BF16, [k, k], OutputMajor::N, [64, 128, 64]),
        spec(BF16, BF16, [k, k], OutputMajor::N, [64, 64, 64]),
        spec(F16, F32, [mn, mn], OutputMajor::M, [64, 128, 64]),
        spec(BF16, BF16, [k, mn], OutputMajor::N, [64, 128, 64]),
        spec(F16, F16, [mn, k], OutputMajor::M, [64, 192, 64]),
        // Half-depth k-tiles: K = 203 is 7 of them.
        spec(BF16, BF16, [k, k], OutputMajor::N, [64, 128, 32]),
    ];
    specs.push(
        specs[0]
            .clone()
            .with_sm90_epilogue(EpiloguePolicy::Sm90NoSmem)
            .unwrap(),
    );
    for spec in &specs {
        assert!(spec.kernel_name().contains("_slicedk_"));
        run_spec(&device, spec).unwrap_or_else(|e| panic!("{}: {e}", spec.kernel_name()));
    }
    let many = spec(BF16, BF16, [k, k], OutputMajor::N, [64, 64, 64]);
    run_case::<bf16, bf16>(&device, &many, MANY_TILES)
        .unwrap_or_else(|e| panic!("{}: {e}", many.kernel_name()));
    let beta = Case {
        beta: -1.0,
        k: 203,
        ..MANY_TILES
    };
    run_case::<bf16, bf16>(&device, &many, beta)
        .unwrap_or_else(|e| panic!("{}: {e}", many.kernel_name()));
}

/// C loaded with TMA across persistent tiles: tiles of odd subtile counts
/// (ping-pong 128x96: 3, cooperative 128x160: 5) and the defaults' tiles,
/// several tiles per CTA, N ragged so that the last column of tiles stops
/// early (C's later subtiles there are never requested), beta -1 with C a
/// buffer of its own (its leading dimension 8 elements more than D's) and
/// 0.5 in place. Each C barrier's phase must follow
/// the subtiles every tile read.
#[test]
fn c_loaded_with_tma_follows_every_tile() {
    const NAME: &str = "c_loaded_with_tma_follows_every_tile";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    let (cooperative, pingpong) = (
        KernelSchedule::TmaWarpSpecializedCooperative,
        KernelSchedule::TmaWarpSpecializedPingpong,
    );
    for (schedule, tile, cluster) in [
        (pingpong, [128, 96, 64], [1, 1]),
        (cooperative, [128, 160, 64], [1, 1]),
        (cooperative, [128, 256, 64], [2, 1]),
        (pingpong, [128, 128, 64], [1, 1]),
    ] {
        let spec = bf16_sm90_spec(schedule, tile, cluster);
        for case in [
            Case {
                alpha: 2.0,
                beta: -1.0,
                c_pad: 8,
                ..MANY_TILES
            },
            Case {
                beta: 0.5,
                in_place: true,
                ..MANY_TILES
            },
        ] {
            run_case::<bf16, bf16>(&device, &spec, case)
                .unwrap_or_else(|e| panic!("{}: {e}", spec.kernel_name()));
        }
    }
}

/// One `Gemm` runs a kernel generated for beta = 0 and another for any
/// other beta (`SourceRead`): calls that switch between them, on the same
/// object and the same problem, each give the exact D, and the kernel that
/// never reads C leaves a NaN C out of D.
#[test]
fn one_gemm_switches_between_its_beta_kernels() {
    const NAME: &str = "one_gemm_switches_between_its_beta_kernels";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    for (schedule, tile, cluster) in [
        (
            KernelSchedule::TmaWarpSpecializedCooperative,
            [128, 256, 64],
            [2, 1],
        ),
        (
            KernelSchedule::TmaWarpSpecializedPingpong,
            [128, 128, 64],
            [1, 1],
        ),
    ] {
        let spec = bf16_sm90_spec(schedule, tile, cluster);
        let gemm = Gemm::from_spec(&device, spec.clone());
        for (beta, in_place) in [(0.0, false), (-1.0, false), (0.0, false), (0.5, true)] {
            let case = Case {
                beta,
                in_place,
                ..MANY_TILES
            };
            run_case_with::<bf16, bf16>(
                &device,
                &spec,
                case,
                Some(&gemm),
                SchedulerArgs::default(),
            )
            .unwrap_or_else(|e| panic!("{} beta {beta}: {e}", spec.kernel_name()));
        }
    }
}

/// Every raster order and swizzle size walks every tile once: the same
/// exact D for the cooperative kernel in 2x1 and 1x2 clusters, the
/// ping-pong kernel without one, and the SM80 and SM70 kernels (the
/// data-parallel walk).
/// 1100 x 1000 x 2 batches is 9 x 4 (or 9 x 8) tiles a batch, more than
/// the grid for the persistent kernels, so their walks wrap.
#[test]
fn every_raster_order_and_swizzle_computes_exactly() {
    const NAME: &str = "every_raster_order_and_swizzle_computes_exactly";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    let case = Case {
        beta: 0.5,
        ..MANY_TILES
    };
    let cooperative = KernelSchedule::TmaWarpSpecializedCooperative;
    let sm80 = Gemm::builder()
        .arch(ArchKind::Sm80)
        .a(ElementType::BF16, OperandMajor::K)
        .b(ElementType::BF16, OperandMajor::K)
        .d(ElementType::BF16, OutputMajor::N)
        .spec()
        .unwrap();
    let specs = [
        bf16_sm90_spec(cooperative, [128, 256, 64], [2, 1]),
        bf16_sm90_spec(cooperative, [128, 256, 64], [1, 2]),
        bf16_sm90_spec(
            KernelSchedule::TmaWarpSpecializedPingpong,
            [128, 128, 64],
            [1, 1],
        ),
        sm80,
    ];
    let sm70 = Gemm::builder()
        .arch(ArchKind::Sm70)
        .a(ElementType::F16, OperandMajor::K)
        .b(ElementType::F16, OperandMajor::K)
        .d(ElementType::F16, OutputMajor::N)
        .spec()
        .unwrap();
    for spec in specs.iter().chain([&sm70]) {
        let gemm = Gemm::from_spec(&device, spec.clone());
        for raster_order in [
            RasterOrder::Auto,
            RasterOrder::AlongM,
            RasterOrder::AlongN,
            RasterOrder::Heuristic,
        ] {
            for swizzle_size in [None, Some(1), Some(2), Some(16)] {
                let walk = SchedulerArgs {
                    raster_order,
                    swizzle_size,
                };
                let result = if spec.types.a == ElementType::F16 {
                    run_case_with::<f16, f16>(&device, spec, case, Some(&gemm), walk)
                } else {
                    run_case_with::<bf16, bf16>(&device, spec, case, Some(&gemm), walk)
                };
                result.unwrap_or_else(|e| panic!("{} {walk:?}: {e}", spec.kernel_name()));
            }
        }
    }
    // A swizzle size that is not a power of two is refused by name.
    let spec = &specs[0];
    let walk = SchedulerArgs {
        swizzle_size: Some(6),
        ..SchedulerArgs::default()
    };
    let gemm = Gemm::from_spec(&device, spec.clone());
    let error = run_case_with::<bf16, bf16>(&device, spec, case, Some(&gemm), walk).unwrap_err();
    assert!(error.contains("swizzle_size"), "{error}");
}

/// The SM90 kernels launch as programmatic dependent launches: each may
/// start while the GEMM ahead of it on the stream still runs, and must
/// wait for it before touching memory. A chain queued back to back on one
/// stream, with no synchronization between, computes what the host does:
/// `Y = X·P` then `X = Y·Q`, six times, where each GEMM reads what the one
/// before wrote (Y, then X) and overwrites what the one before read (X).
/// P and Q are permutations (`Y[i][n] = X[i][σ(n)]`), so every value stays
/// an exact small integer. 2048 x 1024 x 1024 is fewer tiles than a
/// persistent grid has blocks: blocks without a tile exit at once, so the
/// next GEMM's blocks start beside the running one's.
#[test]
fn back_to_back_gemms_wait_for_the_gemm_ahead() {
    const NAME: &str = "back_to_back_gemms_wait_for_the_gemm_ahead";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    let stream = device.default_stream();
    let (m, k) = (2048, 1024);
    // B is K-major: column n of the K x K matrix is row n of the buffer.
    let permutation = |sigma: &dyn Fn(usize) -> usize| {
        let mut b = vec![bf16::ZERO; k * k];
        for n in 0..k {
            b[n * k + sigma(n)] = bf16::ONE;
        }
        b
    };
    let sigma = |n: usize| (n * 7 + 3) % k;
    let tau = |n: usize| (n * 5 + 1) % k;
    let x0: Vec<bf16> = integers(11, m * k, 2)
        .into_iter()
        .map(bf16::from_f64)
        .collect();
    let mut x = stream.clone_htod(&x0).unwrap();
    let mut y = stream.alloc_zeros::<bf16>(m * k).unwrap();
    let p = stream.clone_htod(&permutation(&sigma)).unwrap();
    let q = stream.clone_htod(&permutation(&tau)).unwrap();
    let gemm = Gemm::builder()
        .a(ElementType::BF16, OperandMajor::K)
        .b(ElementType::BF16, OperandMajor::K)
        .d(ElementType::BF16, OutputMajor::N)
        .build(&device)
        .unwrap();
    let shape = GemmShape::new(m, k, k, 1);
    for _ in 0..6 {
        let mut forward = Arguments::product(
            shape,
            Operand::new(x.as_view(), k, 0),
            Operand::new(p.as_view(), k, 0),
            OutputOperand::new(y.as_view_mut(), k, 0),
            1.0,
        );
        gemm.run(&mut forward, &stream).unwrap();
        drop(forward);
        let mut back = Arguments::product(
            shape,
            Operand::new(y.as_view(), k, 0),
            Operand::new(q.as_view(), k, 0),
            OutputOperand::new(x.as_view_mut(), k, 0),
            1.0,
        );
        gemm.run(&mut back, &stream).unwrap();
    }
    let (mut x_host, mut y_host) = (x0, vec![bf16::ZERO; m * k]);
    for _ in 0..6 {
        for i in 0..m {
            for n in 0..k {
                y_host[i * k + n] = x_host[i * k + sigma(n)];
            }
        }
        for i in 0..m {
            for n in 0..k {
                x_host[i * k + n] = y_host[i * k + tau(n)];
            }
        }
    }
    for (what, device_buffer, host) in [("Y", &y, &y_host), ("X", &x, &x_host)] {
        let got = stream.clone_dtoh(device_buffer).unwrap();
        let wrong = got
            .iter()
            .zip(host)
            .position(|(g, h)| g.to_bits() != h.to_bits());
        if let Some(at) = wrong {
            panic!(
                "{what}[{}][{}] = {} after the chain, expected {}",
                at / k,
                at % k,
                got[at],
                host[at]
            );
        }
    }
}

/// `Gemm::builder().build(..)` on compute capability 9.0 picks the kernel
/// for each call's problem, as `sm90_spec_for_problem` does: one `Gemm`
/// runs a small problem on the ping-pong kernel, a short-K one on ping-pong
/// too and a large one on the cooperative kernel, each result exact (every
/// element of the small one, 4096 sampled elements of the large ones,
/// which must also equal the pinned default kernel's output bit for bit:
/// every SM90 kernel adds in the same order). A D that TMA cannot store
/// runs on the picked kernel's register-store form, and turning the scalar
/// check off reaches the kernels already picked.
#[test]
fn build_picks_the_kernel_for_each_problem() {
    const NAME: &str = "build_picks_the_kernel_for_each_problem";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    let stream = device.default_stream();
    let sm_count = device.limits().sm_count;
    let gemm = Gemm::builder()
        .a(ElementType::BF16, OperandMajor::K)
        .b(ElementType::BF16, OperandMajor::K)
        .d(ElementType::BF16, OutputMajor::N)
        .build(&device)
        .unwrap();
    // The pinned default kernel, TMA store and register store.
    let default = bf16_sm90_spec(
        KernelSchedule::TmaWarpSpecializedCooperative,
        [128, 256, 64],
        [2, 1],
    );
    let pinned = [
        Gemm::from_spec(&device, default.clone()),
        Gemm::from_spec(
            &device,
            default
                .with_sm90_epilogue(EpiloguePolicy::Sm90NoSmem)
                .unwrap(),
        ),
    ];
    // (m, n, k, extra columns in D's leading dimension)
    let problems = [
        (300, 200, 136, 0),
        (2048, 4096, 512, 0),
        (3072, 3072, 1088, 0),
        // A leading dimension TMA cannot take (6148 bytes), pairs aligned.
        (3072, 3072, 1088, 2),
        // 256x160 tiles of half-depth k-tiles on 132 SMs: 11 x 32 = 352
        // tiles, 3 rounds, against 4 rounds of 11 x 40 256x128 ones.
        (2816, 5120, 1088, 0),
    ];
    let mut schedules = Vec::new();
    let mut tiles = Vec::new();
    for (m, n, k, pad) in problems {
        let a_host = integers(21, m * k, 2);
        let b_host = integers(22, n * k, 2);
        let to_bf16 = |v: &[f64]| v.iter().map(|&x| bf16::from_f64(x)).collect::<Vec<_>>();
        let a = stream.clone_htod(&to_bf16(&a_host)).unwrap();
        let b = stream.clone_htod(&to_bf16(&b_host)).unwrap();
        let ldd = n + pad;
        let mut outputs = Vec::new();
        for which in [&gemm, &pinned[usize::from(pad != 0)]] {
            let mut d = stream.clone_htod(&vec![bf16::NAN; m * ldd]).unwrap();
            let mut args = Arguments::product(
                GemmShape::new(m, n, k, 1),
                Operand::new(a.as_view(), k, 0),
                Operand::new(b.as_view(), k, 0),
                OutputOperand::new(d.as_view_mut(), ldd, 0),
                1.0,
            );
            if std::ptr::eq(which, &gemm) {
                let spec = gemm.spec_for(&args).clone();
                let expected = sm90_spec_for_problem(
                    GemmTypes::new(
                        ElementType::BF16,
                        ElementType::BF16,
                        ElementType::BF16,
                        ElementType::BF16,
                        ElementType::F32,
                    ),
                    GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N),
                    [m, n, k, 1].map(|x| x as u32),
                    sm_count,
                )
                .unwrap();
                let label = format!("{m}x{n}x{k}, ldd {ldd}");
                assert_eq!(
                    (spec.schedule, spec.tile, spec.cluster),
                    (expected.schedule, expected.tile, expected.cluster),
                    "{label}: spec_for names {}",
                    spec.kernel_name()
                );
                let policy = if pad == 0 {
                    EpiloguePolicy::Sm90TmaWarpSpecialized
                } else {
                    EpiloguePolicy::Sm90NoSmem
                };
                assert_eq!(spec.epilogue.policy, policy, "{label}");
                schedules.push(spec.schedule);
                tiles.push(spec.tile);
            }
            which.run(&mut args, &stream).unwrap();
            drop(args);
            outputs.push(stream.clone_dtoh(&d).unwrap());
        }
        let (got, default) = (&outputs[0], &outputs[1]);
        let expect = |i: usize, j: usize| {
            let dot: f64 = (0..k).map(|p| a_host[i * k + p] * b_host[j * k + p]).sum();
            bf16::from_f64(dot)
        };
        let everything = m * n <= 300 * 200;
        let picks: Vec<(usize, usize)> = if everything {
            (0..m).flat_map(|i| (0..n).map(move |j| (i, j))).collect()
        } else {
            (0..4096)
                .map(|s| ((s * 7919) % m, (s * 104_729) % n))
                .collect()
        };
        for (i, j) in picks {
            let at = i * ldd + j;
            assert_eq!(
                got[at].to_bits(),
                expect(i, j).to_bits(),
                "{m}x{n}x{k}: D[{i}][{j}] = {}, expected {}",
                got[at],
                expect(i, j)
            );
        }
        for i in 0..m {
            for j in 0..ldd {
                let at = i * ldd + j;
                if j >= n {
                    assert!(got[at].is_nan(), "{m}x{n}x{k}: padding D[{i}][{j}] written");
                } else {
                    assert_eq!(
                        got[at].to_bits(),
                        default[at].to_bits(),
                        "{m}x{n}x{k}: D[{i}][{j}] differs from the default kernel's"
                    );
                }
            }
        }
    }
    assert!(
        schedules.contains(&KernelSchedule::TmaWarpSpecializedPingpong)
            && schedules.contains(&KernelSchedule::TmaWarpSpecializedCooperative),
        "one Gemm ran {schedules:?}"
    );
    if sm_count == 132 {
        assert!(tiles.contains(&[256, 160, 32]), "one Gemm ran {tiles:?}");
    }
    gemm.wait_optimized().unwrap();
    // A scalar that is not finite in f32: refused, then taken once the check
    // is off (by the kernel picked before).
    let (m, n, k) = (3072, 3072, 1088);
    let a = stream.alloc_zeros::<bf16>(m * k).unwrap();
    let b = stream.alloc_zeros::<bf16>(n * k).unwrap();
    let mut d = stream.alloc_zeros::<bf16>(m * n).unwrap();
    let mut args = Arguments::product(
        GemmShape::new(m, n, k, 1),
        Operand::new(a.as_view(), k, 0),
        Operand::new(b.as_view(), k, 0),
        OutputOperand::new(d.as_view_mut(), n, 0),
        1e300,
    );
    let refused = gemm.run(&mut args, &stream).unwrap_err().to_string();
    assert!(refused.contains("alpha"), "{refused}");
    let gemm = gemm.check_scalars(false);
    gemm.run(&mut args, &stream).unwrap();
    stream.synchronize().unwrap();
}

/// K = 0 reads no element of A or B, so their leading dimensions may be
/// anything `ld >= K` allows, 0 and 1 included: the pinned SM90 kernel
/// (TMA maps for A and B) takes them and writes D = beta · C, in one and
/// in two batches.
#[test]
fn k_zero_takes_any_leading_dimension_of_a_and_b() {
    const NAME: &str = "k_zero_takes_any_leading_dimension_of_a_and_b";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    let stream = device.default_stream();
    let spec = bf16_sm90_spec(
        KernelSchedule::TmaWarpSpecializedCooperative,
        [256, 128, 64],
        [1, 2],
    );
    let gemm = Gemm::from_spec(&device, spec);
    let (m, n) = (300, 136);
    let a = stream.alloc_zeros::<bf16>(8).unwrap();
    let b = stream.alloc_zeros::<bf16>(8).unwrap();
    for (l, ld) in [(1, 0), (1, 1), (2, 0), (2, 1)] {
        let c_host: Vec<bf16> = integers(31, m * n * l, 3)
            .into_iter()
            .map(bf16::from_f64)
            .collect();
        let c = stream.clone_htod(&c_host).unwrap();
        let mut d = stream.clone_htod(&vec![bf16::NAN; m * n * l]).unwrap();
        let mut args = Arguments::new(
            GemmShape::new(m, n, 0, l),
            Operand::new(a.as_view(), ld, 0),
            Operand::new(b.as_view(), ld, 0),
            Operand::new(c.as_view(), n, m * n),
            OutputOperand::new(d.as_view_mut(), n, m * n),
            1.0,
            -2.0,
        );
        gemm.run(&mut args, &stream)
            .unwrap_or_else(|e| panic!("L = {l}, ld {ld}: {e}"));
        drop(args);
        let got = stream.clone_dtoh(&d).unwrap();
        for (i, (g, c)) in got.iter().zip(&c_host).enumerate() {
            // alpha · acc (+0) + beta · c, as the kernel adds them: +0 for a zero c.
            let product = 0.0_f64;
            let want = bf16::from_f64(product + -2.0 * c.to_f64());
            assert_eq!(g.to_bits(), want.to_bits(), "L = {l}, ld {ld}: D[{i}]");
        }
    }
}

/// `.arch(Sm90)` alone (the per-problem pick) and `.arch(Sm90)` with the
/// schedule and cluster set run what the register-store epilogue takes and
/// TMA cannot write: a column-major D whose M is not whole 16-byte chunks
/// (M = 1, 4, 65, 133 of bf16) and a row-major D narrower than one chunk
/// (N = 1, 4, 7), exactly, as the unpinned builder does (before, these
/// were refused with TMA's rule).
#[test]
fn pinned_sm90_runs_a_d_that_tma_cannot_write() {
    const NAME: &str = "pinned_sm90_runs_a_d_that_tma_cannot_write";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    let builders = [
        Gemm::builder().arch(ArchKind::Sm90),
        Gemm::builder()
            .arch(ArchKind::Sm90)
            .schedule(KernelSchedule::TmaWarpSpecializedPingpong)
            .cluster([1, 1]),
    ];
    let case = |m, n| Case {
        m,
        n,
        k: 72,
        l: 2,
        alpha: 2.0,
        beta: 0.5,
        in_place: false,
        c_pad: 0,
    };
    for builder in builders {
        let column = builder
            .clone()
            .d(ElementType::BF16, OutputMajor::M)
            .build(&device)
            .unwrap();
        for m in [1, 4, 65, 133] {
            run_case_with::<bf16, bf16>(
                &device,
                column.spec(),
                case(m, 100),
                Some(&column),
                SchedulerArgs::default(),
            )
            .unwrap_or_else(|e| panic!("{:?}, column-major D, M = {m}: {e}", builder));
        }
        let row = builder.clone().build(&device).unwrap();
        for n in [1, 4, 7] {
            run_case_with::<bf16, bf16>(
                &device,
                row.spec(),
                case(150, n),
                Some(&row),
                SchedulerArgs::default(),
            )
            .unwrap_or_else(|e| panic!("{:?}, row-major D, N = {n}: {e}", builder));
        }
    }
}

/// A zero M, N or L is a no-op on the SM90 kernel, typed and pinned (N = 0
/// was refused as "N of a D stored with TMA = 0"): `run` returns `Ok` and
/// D is not written.
#[test]
fn empty_outputs_are_no_ops_on_the_sm90_kernel() {
    use cutlet::device::gemm::{DefaultBf16Sm90, GemmUniversalAdapter};
    const NAME: &str = "empty_outputs_are_no_ops_on_the_sm90_kernel";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    let stream = device.default_stream();
    let typed = GemmUniversalAdapter::<DefaultBf16Sm90>::new(&device);
    let pinned = Gemm::builder().arch(ArchKind::Sm90).build(&device).unwrap();
    let a = stream.alloc_zeros::<bf16>(64 * 64).unwrap();
    let b = stream.alloc_zeros::<bf16>(64 * 64).unwrap();
    for (m, n, l) in [(64, 0, 1), (0, 64, 1), (64, 64, 0), (0, 0, 1)] {
        let mut d = stream.clone_htod(&vec![bf16::NAN; 64 * 64]).unwrap();
        for door in ["typed", "pinned"] {
            let mut args = Arguments::product(
                GemmShape::new(m, n, 64, l),
                Operand::new(a.as_view(), 64, 0),
                Operand::new(b.as_view(), 64, 0),
                OutputOperand::new(d.as_view_mut(), n.max(8), 0),
                1.0,
            );
            let done = match door {
                "typed" => typed.run(&mut args, &stream),
                _ => pinned.run(&mut args, &stream),
            };
            done.unwrap_or_else(|e| panic!("{door}, M = {m}, N = {n}, L = {l}: {e}"));
        }
        let got = stream.clone_dtoh(&d).unwrap();
        assert!(
            got.iter().all(|x| x.is_nan()),
            "M = {m}, N = {n}, L = {l}: D was written"
        );
    }
}

/// The typed SM90 default runs a row-major D narrower than one 16-byte
/// chunk (N = 4) on the register-store form of its kernel, and `spec_for`
/// names that form; N = 64 stays on the TMA store.
#[test]
fn typed_sm90_config_runs_a_d_that_tma_cannot_write() {
    use cutlet::device::gemm::{Config, DefaultBf16Sm90, GemmUniversalAdapter};
    const NAME: &str = "typed_sm90_config_runs_a_d_that_tma_cannot_write";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    let stream = device.default_stream();
    let gemm = GemmUniversalAdapter::<DefaultBf16Sm90>::new(&device);
    let (m, k) = (300, 72);
    let a_host = integers(5, m * k, 2);
    let a = stream
        .clone_htod(
            &a_host
                .iter()
                .map(|&x| bf16::from_f64(x))
                .collect::<Vec<_>>(),
        )
        .unwrap();
    for n in [4usize, 64] {
        let b_host = integers(6, n * k, 2);
        let b = stream
            .clone_htod(
                &b_host
                    .iter()
                    .map(|&x| bf16::from_f64(x))
                    .collect::<Vec<_>>(),
            )
            .unwrap();
        let ldd = 8.max(n);
        let mut d = stream.clone_htod(&vec![bf16::NAN; m * ldd]).unwrap();
        let mut args = Arguments::product(
            GemmShape::new(m, n, k, 1),
            Operand::new(a.as_view(), k, 0),
            Operand::new(b.as_view(), k, 0),
            OutputOperand::new(d.as_view_mut(), ldd, 0),
            1.0,
        );
        let policy = gemm.spec_for(&args).epilogue.policy;
        let expected_policy = if n == 4 {
            EpiloguePolicy::Sm90NoSmem
        } else {
            DefaultBf16Sm90::spec().epilogue.policy
        };
        assert_eq!(policy, expected_policy, "N = {n}");
        gemm.run(&mut args, &stream)
            .unwrap_or_else(|e| panic!("N = {n}: {e}"));
        drop(args);
        let got = stream.clone_dtoh(&d).unwrap();
        for i in 0..m {
            for j in 0..ldd {
                let g = got[i * ldd + j];
                if j >= n {
                    assert!(g.is_nan(), "N = {n}: padding D[{i}][{j}] written");
                    continue;
                }
                let want: f64 = (0..k).map(|p| a_host[i * k + p] * b_host[j * k + p]).sum();
                assert_eq!(
                    g.to_bits(),
                    bf16::from_f64(want).to_bits(),
                    "N = {n}: D[{i}][{j}]"
                );
            }
        }
    }
}

/// The SM90 kernel composed with a tile scheduler written outside the
/// crate (`common::walk::ColumnWalk`: tiles in column-major order, a grid
/// stride, no cluster) computes every case exactly through
/// `Gemm::from_kernel`, cooperative and ping-pong (whose consumers take
/// every other tile of the walk and skip the other's k-tiles).
#[test]
fn a_tile_scheduler_from_outside_runs_the_sm90_kernel_exactly() {
    const NAME: &str = "a_tile_scheduler_from_outside_runs_the_sm90_kernel_exactly";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    for (schedule, tile) in [
        (
            KernelSchedule::TmaWarpSpecializedCooperative,
            [256, 128, 64],
        ),
        (KernelSchedule::TmaWarpSpecializedPingpong, [128, 128, 64]),
    ] {
        let spec = bf16_sm90_spec(schedule, tile, [1, 1]);
        let name = format!("gemm_sm90_column_walk_{}", schedule.name());
        let kernel = common::walk::sm90_with_column_walk(&spec, &name);
        let gemm = Gemm::from_kernel(&device, spec.clone(), Box::new(kernel)).unwrap();
        for case in CASES.into_iter().chain([MANY_TILES]) {
            run_case_with::<bf16, bf16>(
                &device,
                &spec,
                case,
                Some(&gemm),
                SchedulerArgs::default(),
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}

/// A K-splitting spec's case on both SM90 epilogues: the spec's own (the
/// TMA store for tiles up to 128x128) where TMA can write D (rows of D
/// along its major of whole 16-byte chunks; a pinned spec refuses the
/// rest, naming the register-store epilogue), and the register-store one.
fn run_split_case<I: Host, O: Host>(
    device: &Device,
    spec: &GemmSpec,
    case: Case,
) -> Result<(), String> {
    let extent = match spec.majors.d {
        OutputMajor::N => case.n,
        OutputMajor::M => case.m,
    };
    let chunk = 16 / O::TYPE.size_bytes() as usize;
    if spec.epilogue.policy != EpiloguePolicy::Sm90TmaWarpSpecialized || extent % chunk == 0 {
        run_case::<I, O>(device, spec, case).map_err(|e| format!("{}: {e}", spec.kernel_name()))?;
    }
    let direct = spec
        .clone()
        .with_sm90_epilogue(EpiloguePolicy::Sm90NoSmem)
        .map_err(|e| e.to_string())?;
    run_case::<I, O>(device, &direct, case).map_err(|e| format!("{}: {e}", direct.kernel_name()))
}

/// A split-K spec as a user pins one: `tile`, `splits` units per tile, K-major
/// `input` A and B, D of type `d` and major `major`.
fn split_k_spec(
    input: ElementType,
    d: ElementType,
    major: OutputMajor,
    tile: [u32; 3],
    splits: u32,
) -> GemmSpec {
    split_k_spec_in(input, d, major, tile, splits, [1, 1])
}

/// [`split_k_spec`] in a cluster of `cluster` CTAs (M, N).
fn split_k_spec_in(
    input: ElementType,
    d: ElementType,
    major: OutputMajor,
    tile: [u32; 3],
    splits: u32,
    cluster: [u32; 2],
) -> GemmSpec {
    Gemm::builder()
        .a(input, OperandMajor::K)
        .b(input, OperandMajor::K)
        .d(d, major)
        .tile(tile)
        .cluster(cluster)
        .decomposition(cutlet::device::gemm::Decomposition::SplitK(splits))
        .spec()
        .unwrap()
}

/// A split tile's case of 2 k-tiles: most splits run none.
const SHORT_K: Case = Case {
    m: 260,
    n: 130,
    k: 100,
    l: 2,
    alpha: 1.5,
    beta: 2.0,
    in_place: false,
    c_pad: 8,
};

/// A split tile's case of 47 k-tiles over a ragged M and N.
const LONG_K: Case = Case {
    m: 129,
    n: 200,
    k: 3000,
    l: 1,
    alpha: 1.0,
    beta: 0.0,
    in_place: false,
    c_pad: 0,
};

/// Split-K, without and in 2x1, 1x2 and 2x2 clusters, against the exact
/// host result (small integers: every order of the sums gives the same
/// bits): L = 3, alpha and beta not 0 or 1, C a
/// buffer of its own and C in place in D, beta = 0 with C all NaN, ragged
/// M, N and K, K shorter than one k-tile per split (most splits run no
/// k-tile: 100 of K in 64-deep k-tiles is 2 k-tiles for 4 or 16 splits),
/// many tiles per block, both majors of D, f32 and 16-bit D. D starts
/// poisoned (NaN) outside what the kernel writes.
#[test]
fn split_k_computes_exactly() {
    const NAME: &str = "split_k_computes_exactly";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    let (bf, f32t) = (ElementType::BF16, ElementType::F32);
    for (tile, splits, cluster) in [
        ([128, 128, 64], 4, [1, 1]),
        ([128, 64, 64], 3, [1, 1]),
        ([128, 256, 64], 2, [1, 1]),
        ([128, 128, 64], 16, [1, 1]),
        // The pick's tiles for one row of a wide N: 128x32 in 4, 128x48
        // (the register-store epilogue: 48 is not whole 32-column
        // subtiles) in 6.
        ([128, 32, 64], 4, [1, 1]),
        ([128, 48, 64], 6, [1, 1]),
        // Clusters: the CTAs of one share each unit's k-tiles (multicast);
        // 8 splits of 128x128 sum spread over the splits.
        ([128, 128, 64], 8, [2, 1]),
        ([128, 64, 64], 4, [1, 2]),
        ([128, 128, 64], 3, [2, 2]),
    ] {
        for major in [OutputMajor::N, OutputMajor::M] {
            let spec = split_k_spec_in(bf, bf, major, tile, splits, cluster);
            let mut cases: Vec<Case> = CASES.to_vec();
            cases.extend([SHORT_K, LONG_K, MANY_TILES]);
            for case in cases {
                run_split_case::<bf16, bf16>(&device, &spec, case)
                    .unwrap_or_else(|e| panic!("{}: {e}", spec.kernel_name()));
            }
        }
    }
    let spec = split_k_spec(bf, f32t, OutputMajor::N, [128, 128, 64], 5);
    for case in [CASES[0], LONG_K] {
        run_split_case::<bf16, f32>(&device, &spec, case)
            .unwrap_or_else(|e| panic!("{}: {e}", spec.kernel_name()));
    }
    let spec = split_k_spec(ElementType::TF32, f32t, OutputMajor::N, [128, 128, 32], 6);
    for case in [CASES[0], LONG_K] {
        run_split_case::<f32, f32>(&device, &spec, case)
            .unwrap_or_else(|e| panic!("{}: {e}", spec.kernel_name()));
    }
}

/// [`split_k_spec_in`] on the ping-pong schedule (64-row tiles, each
/// consumer warpgroup a unit of its own), with `reduction`.
fn pingpong_split_k_spec(
    tile: [u32; 3],
    splits: u32,
    cluster: [u32; 2],
    major: OutputMajor,
    reduction: cutlet::kernel::gemm::Reduction,
) -> GemmSpec {
    Gemm::builder()
        .a(ElementType::BF16, OperandMajor::K)
        .b(ElementType::BF16, OperandMajor::K)
        .d(ElementType::BF16, major)
        .tile(tile)
        .cluster(cluster)
        .schedule(KernelSchedule::TmaWarpSpecializedPingpong)
        .decomposition(cutlet::device::gemm::Decomposition::SplitK(splits))
        .reduction(reduction)
        .spec()
        .unwrap()
}

/// Split-K on the ping-pong schedule, where the two consumer warpgroups
/// of a block take units of their own and reduce them in their epilogue
/// turns: 64-row tiles of 32 to 128 columns in 3 to 16 splits (16 splits
/// of 64x128 would spread the reduction on the cooperative schedule; here
/// the finisher adds all 15 slots), the register-store epilogue (64x48),
/// 2x1 and 1x2 clusters, both reductions, against the exact host result:
/// the cases of [`split_k_computes_exactly`] (many units per block, so
/// that both warpgroups reduce, and splits past the k-tiles).
#[test]
fn split_k_computes_exactly_on_the_ping_pong_schedule() {
    const NAME: &str = "split_k_computes_exactly_on_the_ping_pong_schedule";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    use cutlet::kernel::gemm::Reduction;
    for (tile, splits, cluster, reduction) in [
        ([64, 64, 64], 8, [1, 1], Reduction::Deterministic),
        ([64, 32, 64], 4, [1, 1], Reduction::Deterministic),
        ([64, 128, 64], 16, [1, 1], Reduction::Deterministic),
        ([64, 48, 64], 3, [1, 1], Reduction::Deterministic),
        ([64, 64, 64], 4, [2, 1], Reduction::Deterministic),
        ([64, 64, 64], 3, [1, 2], Reduction::Deterministic),
        ([64, 64, 64], 8, [1, 1], Reduction::Atomic),
        ([64, 32, 64], 5, [1, 2], Reduction::Atomic),
    ] {
        for major in [OutputMajor::N, OutputMajor::M] {
            let spec = pingpong_split_k_spec(tile, splits, cluster, major, reduction);
            let mut cases: Vec<Case> = CASES.to_vec();
            cases.extend([SHORT_K, LONG_K, MANY_TILES]);
            for case in cases {
                run_split_case::<bf16, bf16>(&device, &spec, case)
                    .unwrap_or_else(|e| panic!("{}: {e}", spec.kernel_name()));
            }
        }
    }
    // Many units per block on random data, 50 runs: the same bits.
    let spec = pingpong_split_k_spec(
        [64, 64, 64],
        4,
        [1, 1],
        OutputMajor::N,
        Reduction::Deterministic,
    );
    assert_same_bits_every_run(&device, &spec, (1024, 768, 4096), 50);
}

/// Split-K's reduction adds the partial tiles in K order: on random data
/// (where the order of the sums shows in the bits), 50 runs of one GEMM
/// give D bit for bit, and the workspace's flags, which every run leaves
/// at 0, need no reset between them.
#[test]
fn split_k_gives_the_same_bits_every_run() {
    const NAME: &str = "split_k_gives_the_same_bits_every_run";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    let spec = split_k_spec(
        ElementType::BF16,
        ElementType::BF16,
        OutputMajor::N,
        [128, 128, 64],
        8,
    );
    assert_same_bits_every_run(&device, &spec, (256, 384, 8192), 50);
    // In 2x1 clusters (a record per CTA), 384 x 384: a cluster tile half
    // past M.
    let spec = split_k_spec_in(
        ElementType::BF16,
        ElementType::BF16,
        OutputMajor::N,
        [128, 128, 64],
        8,
        [2, 1],
    );
    assert_same_bits_every_run(&device, &spec, (384, 384, 8192), 50);
}

/// Runs `spec` `runs` times on one problem of random bf16 data (where the
/// order of the sums shows in the bits) and asserts that every run gives
/// D bit for bit as the first, with no reset of the workspace between them.
fn assert_same_bits_every_run(
    device: &Device,
    spec: &GemmSpec,
    (m, n, k): (usize, usize, usize),
    runs: usize,
) {
    let stream = device.default_stream();
    let gemm = Gemm::from_spec(device, spec.clone());
    let random = |seed: u64, len: usize| cutlet_harness::random_values::<bf16>(len, seed);
    let da = stream.clone_htod(&random(1, m * k)).unwrap();
    let db = stream.clone_htod(&random(2, n * k)).unwrap();
    let mut dd = stream.alloc_zeros::<bf16>(m * n).unwrap();
    let mut first: Option<Vec<u16>> = None;
    for run in 0..runs {
        let mut args = Arguments::product(
            GemmShape::new(m, n, k, 1),
            Operand::new(da.as_view(), k, m * k),
            Operand::new(db.as_view(), k, n * k),
            OutputOperand::new(dd.as_view_mut(), n, m * n),
            1.0,
        );
        gemm.run(&mut args, &stream).unwrap();
        drop(args);
        let bits: Vec<u16> = stream
            .clone_dtoh(&dd)
            .unwrap()
            .iter()
            .map(|x| x.to_bits())
            .collect();
        match &first {
            None => first = Some(bits),
            Some(want) => assert!(
                bits == *want,
                "{}: run {run} differs from run 0",
                spec.kernel_name()
            ),
        }
    }
}

/// A stream-K spec as a user pins one: `tile`, K-major `input` A and B, D
/// of type `d` and major `major`.
fn stream_k_spec(
    input: ElementType,
    d: ElementType,
    major: OutputMajor,
    tile: [u32; 3],
) -> GemmSpec {
    Gemm::builder()
        .a(input, OperandMajor::K)
        .b(input, OperandMajor::K)
        .d(d, major)
        .tile(tile)
        .decomposition(cutlet::device::gemm::Decomposition::StreamK)
        .spec()
        .unwrap()
}

/// Stream-K against the exact host result (small integers), as split-K's
/// test: L = 3 and 2, alpha and beta not 0 or 1, C in place, beta = 0 with
/// C all NaN, ragged M, N and K, a K of 2 k-tiles (units of fewer than
/// `STREAM_K_MIN_K_TILES`: fewer units than blocks), many tiles per block
/// (whole waves data-parallel after the stream-K tiles), both majors of D,
/// f32 and 16-bit D, tf32. Then on the whole GPU and on grids of 1, 7 and
/// 100 blocks (`run_with_sm_count`), so that tiles meet 1 to tens of units
/// and a unit spans several tiles.
#[test]
fn stream_k_computes_exactly() {
    const NAME: &str = "stream_k_computes_exactly";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    let waves = Case {
        m: 1700,
        n: 1300,
        k: 700,
        l: 1,
        alpha: 0.5,
        beta: 1.0,
        in_place: true,
        c_pad: 0,
    };
    let (bf, f32t) = (ElementType::BF16, ElementType::F32);
    for tile in [[128, 128, 64], [128, 64, 64], [128, 256, 64], [128, 16, 64]] {
        for major in [OutputMajor::N, OutputMajor::M] {
            let spec = stream_k_spec(bf, bf, major, tile);
            let mut cases: Vec<Case> = CASES.to_vec();
            cases.extend([SHORT_K, LONG_K, waves, MANY_TILES]);
            for case in cases {
                run_split_case::<bf16, bf16>(&device, &spec, case)
                    .unwrap_or_else(|e| panic!("{}: {e}", spec.kernel_name()));
            }
        }
    }
    let spec = stream_k_spec(bf, f32t, OutputMajor::N, [128, 128, 64]);
    for case in [CASES[0], LONG_K, waves] {
        run_split_case::<bf16, f32>(&device, &spec, case)
            .unwrap_or_else(|e| panic!("{}: {e}", spec.kernel_name()));
    }
    let spec = stream_k_spec(ElementType::TF32, f32t, OutputMajor::N, [128, 128, 32]);
    for case in [CASES[0], LONG_K] {
        run_split_case::<f32, f32>(&device, &spec, case)
            .unwrap_or_else(|e| panic!("{}: {e}", spec.kernel_name()));
    }
    // Grids of other sizes: small integers give the exact product whatever
    // the division.
    let spec = stream_k_spec(bf, f32t, OutputMajor::N, [128, 128, 64]);
    let gemm = Gemm::from_spec(&device, spec.clone());
    let stream = device.default_stream();
    let (m, n, k) = (700usize, 900usize, 2000usize);
    let small = |seed: u64, len: usize| -> Vec<bf16> {
        (0..len)
            .map(|i| bf16::from_f32((((i as u64 * 2654435761 + seed * 97) >> 7) % 7) as f32 - 3.0))
            .collect()
    };
    let (ha, hb) = (small(1, m * k), small(2, n * k));
    let mut want = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            want[i * n + j] = (0..k)
                .map(|p| ha[i * k + p].to_f32() * hb[j * k + p].to_f32())
                .sum();
        }
    }
    let da = stream.clone_htod(&ha).unwrap();
    let db = stream.clone_htod(&hb).unwrap();
    for sm_count in [None, Some(1), Some(7), Some(100)] {
        let mut dd = stream.clone_htod(&vec![f32::NAN; m * n]).unwrap();
        let mut args = Arguments::product(
            GemmShape::new(m, n, k, 1),
            Operand::new(da.as_view(), k, m * k),
            Operand::new(db.as_view(), k, n * k),
            OutputOperand::new(dd.as_view_mut(), n, m * n),
            1.0,
        );
        match sm_count {
            Some(count) => gemm.run_with_sm_count(&mut args, &stream, count).unwrap(),
            None => gemm.run(&mut args, &stream).unwrap(),
        }
        drop(args);
        let got = stream.clone_dtoh(&dd).unwrap();
        let wrong = got.iter().zip(&want).position(|(g, w)| g != w);
        assert!(
            wrong.is_none(),
            "{} on {sm_count:?} SMs: element {wrong:?} is {:?}, expected {:?}",
            spec.kernel_name(),
            wrong.map(|i| got[i]),
            wrong.map(|i| want[i])
        );
    }
}

/// Stream-K's reduction adds the partial tiles in K order: on random data,
/// 100 runs of one GEMM (tiles split among 2 to 3 units each) give D bit
/// for bit, with no reset of the workspace between them.
#[test]
fn stream_k_gives_the_same_bits_every_run() {
    const NAME: &str = "stream_k_gives_the_same_bits_every_run";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    let spec = stream_k_spec(
        ElementType::BF16,
        ElementType::BF16,
        OutputMajor::N,
        [128, 128, 64],
    );
    assert_same_bits_every_run(&device, &spec, (640, 1536, 4096), 100);
}

/// A GEMM's workspace follows its launches across streams: a split-K and
/// a stream-K GEMM run 12 times in turn on two streams of their own, with
/// no synchronization between them, give the bits of a run on the default
/// stream every time (launches that raced on the shared counters and
/// partial tiles would hang or add stale partials).
#[test]
fn the_workspace_orders_launches_across_streams() {
    const NAME: &str = "the_workspace_orders_launches_across_streams";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    let stream = device.default_stream();
    let streams = [
        device.context().new_stream().unwrap(),
        device.context().new_stream().unwrap(),
    ];
    let (m, n, k) = (256usize, 384usize, 8192usize);
    let random = |seed: u64, len: usize| cutlet_harness::random_values::<bf16>(len, seed);
    let da = stream.clone_htod(&random(5, m * k)).unwrap();
    let db = stream.clone_htod(&random(6, n * k)).unwrap();
    let bits = |s: &std::sync::Arc<cudarc::driver::CudaStream>, d: &CudaSlice<bf16>| -> Vec<u16> {
        s.clone_dtoh(d)
            .unwrap()
            .iter()
            .map(|x| x.to_bits())
            .collect()
    };
    for decomposition in [
        cutlet::device::gemm::Decomposition::SplitK(8),
        cutlet::device::gemm::Decomposition::StreamK,
    ] {
        let gemm = Gemm::builder()
            .decomposition(decomposition)
            .build(&device)
            .unwrap();
        let run = |s: &std::sync::Arc<cudarc::driver::CudaStream>, d: &mut CudaSlice<bf16>| {
            let mut args = Arguments::product(
                GemmShape::new(m, n, k, 1),
                Operand::new(da.as_view(), k, m * k),
                Operand::new(db.as_view(), k, n * k),
                OutputOperand::new(d.as_view_mut(), n, m * n),
                1.0,
            );
            gemm.run(&mut args, s).unwrap();
        };
        let mut first = stream.alloc_zeros::<bf16>(m * n).unwrap();
        run(&stream, &mut first);
        let want = bits(&stream, &first);
        let mut outs: Vec<CudaSlice<bf16>> = (0..12)
            .map(|_| stream.alloc_zeros::<bf16>(m * n).unwrap())
            .collect();
        stream.synchronize().unwrap();
        for (i, d) in outs.iter_mut().enumerate() {
            run(&streams[i % 2], d);
        }
        for (i, d) in outs.iter().enumerate() {
            assert!(
                bits(&streams[i % 2], d) == want,
                "{decomposition:?}: run {i} (stream {}) differs from the default stream's",
                i % 2
            );
        }
    }
}

/// The builder's per-problem pick splits K where the tiles leave most SMs
/// idle and K is long (256 x 256 x 8192: 16 ping-pong tiles of 64x64, 8
/// splits of 16 k-tiles; 100 x 24 x 4136, ragged: 64x32 tiles, 2 x 3 of
/// them over L = 3, 8 splits), runs it exactly (beta and C in place, L = 2
/// and 3), and keeps whole tiles for a short K (1088 x 16 x 1000: 17 x 2
/// whole ping-pong 64x16 tiles over L = 2).
#[test]
fn build_picks_split_k_for_few_tiles_and_a_long_k() {
    const NAME: &str = "build_picks_split_k_for_few_tiles_and_a_long_k";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    let gemm = Gemm::builder()
        .a(ElementType::BF16, OperandMajor::K)
        .b(ElementType::BF16, OperandMajor::K)
        .d(ElementType::BF16, OutputMajor::N)
        .build(&device)
        .unwrap();
    let default = gemm.spec().clone();
    for (case, split) in [
        (
            Case {
                m: 256,
                n: 256,
                k: 8192,
                l: 2,
                alpha: 1.0,
                beta: 0.5,
                in_place: true,
                c_pad: 0,
            },
            true,
        ),
        (
            Case {
                m: 100,
                n: 24,
                k: 4136,
                l: 3,
                alpha: 1.5,
                beta: 0.5,
                in_place: true,
                c_pad: 0,
            },
            true,
        ),
        (
            Case {
                m: 1088,
                n: 16,
                k: 1000,
                l: 2,
                alpha: 1.0,
                beta: 0.5,
                in_place: true,
                c_pad: 0,
            },
            false,
        ),
        (
            Case {
                m: 256,
                n: 256,
                k: 512,
                l: 1,
                alpha: 2.0,
                beta: 0.0,
                in_place: false,
                c_pad: 0,
            },
            false,
        ),
    ] {
        run_case_with::<bf16, bf16>(
            &device,
            &default,
            case,
            Some(&gemm),
            SchedulerArgs::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let stream = device.default_stream();
        let (a, b) = (
            stream.alloc_zeros::<bf16>(case.m * case.k).unwrap(),
            stream.alloc_zeros::<bf16>(case.n * case.k).unwrap(),
        );
        let mut d = stream.alloc_zeros::<bf16>(case.m * case.n).unwrap();
        let args = Arguments::product(
            GemmShape::new(case.m, case.n, case.k, 1),
            Operand::new(a.as_view(), case.k, 0),
            Operand::new(b.as_view(), case.k, 0),
            OutputOperand::new(d.as_view_mut(), case.n, 0),
            1.0,
        );
        let name = gemm.spec_for(&args).kernel_name();
        assert_eq!(name.contains("_splitk"), split, "{name}");
        if case.n == 16 {
            assert_eq!(gemm.spec_for(&args).tile, [64, 16, 64], "{name}");
        }
        if split {
            assert!(name.ends_with("_splitk8"), "{name}");
            assert!(gemm.workspace_size(&args) > 0);
        }
    }
}

/// Swap-AB against the exact host result (small integers): the kernel of
/// the transposed problem run on the caller's buffers
/// ([`Gemm::from_transposed_spec`]): narrow cooperative tiles split and
/// whole, a ping-pong 64-row tile, every major of D; L = 3, alpha and beta
/// not 0 or 1, C its own buffer and C in place in D, beta = 0 with C all
/// NaN, ragged M, N and K, K shorter than a split, small M. D starts
/// poisoned outside what the kernel writes.
#[test]
fn swap_ab_computes_exactly() {
    const NAME: &str = "swap_ab_computes_exactly";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    let small_m = |m, k, l, beta, in_place| Case {
        m,
        n: 300,
        k,
        l,
        alpha: 1.5,
        beta,
        in_place,
        c_pad: 8,
    };
    let bf = ElementType::BF16;
    for (schedule, tile, splits) in [
        (
            KernelSchedule::TmaWarpSpecializedCooperative,
            [128, 16, 64],
            1,
        ),
        (
            KernelSchedule::TmaWarpSpecializedCooperative,
            [128, 16, 64],
            3,
        ),
        (
            KernelSchedule::TmaWarpSpecializedCooperative,
            [128, 40, 64],
            2,
        ),
        (KernelSchedule::TmaWarpSpecializedPingpong, [64, 32, 64], 1),
        (KernelSchedule::TmaWarpSpecializedPingpong, [64, 24, 64], 1),
    ] {
        for major in [OutputMajor::N, OutputMajor::M] {
            let mut builder = Gemm::builder()
                .a(bf, OperandMajor::K)
                .b(bf, OperandMajor::K)
                .d(bf, major)
                .swap_ab(true)
                .schedule(schedule)
                .cluster([1, 1])
                .tile(tile);
            if splits > 1 {
                builder =
                    builder.decomposition(cutlet::device::gemm::Decomposition::SplitK(splits));
            }
            let kernel = builder.spec().unwrap();
            let view = kernel.transposed();
            assert_eq!(view.majors.d, major);
            let gemm = Gemm::from_transposed_spec(&device, kernel.clone());
            let mut cases: Vec<Case> = CASES.to_vec();
            cases.extend([
                small_m(1, 200, 3, 2.0, false),
                small_m(16, 1000, 1, 0.0, false),
                small_m(13, 72, 2, -1.0, true),
            ]);
            for case in cases {
                run_case_with::<bf16, bf16>(
                    &device,
                    &view,
                    case,
                    Some(&gemm),
                    SchedulerArgs::default(),
                )
                .unwrap_or_else(|e| panic!("{} (swap-AB): {e}", kernel.kernel_name()));
            }
        }
    }
}
