//! The SM90 warp-specialized GEMM against cuBLAS in the same process: the
//! issue's shapes for bf16 and f16 (f32 accumulate), tf32 at 4096³,
//! MN-major operands at 4096³, both schedules pinned at 4096³ and 2048³, the
//! skinny shapes, and split-K (the pick's and pinned split counts at the
//! shapes of few tiles and a long K, and stream-K beside them), and the
//! GEMV's decode shapes (the pick, its register form and its ring); then the
//! host time of a cached `run` and a criterion group timing split-K,
//! stream-K and swap-AB runs end to end.
//!
//! Each case: 5 warm-up runs of each, then 40 CUDA-event-timed runs of
//! cutlet and of the reference, alternating run by run and taking turns to
//! go first, with a cold L2 (each run on another set of A, B and D buffers,
//! the sets totalling at least twice the L2); medians (per place in the
//! round, averaged: `AlternatingRuns::median_ms`) with TFLOP/s and the
//! ratio. The reference is
//! cuBLASLt as PyTorch calls it (the heuristic's best algorithm, a 32 MiB
//! workspace). Without `--schedule` the kernel is chosen for the problem
//! (`sm90_spec_for_problem`).
//!
//! Run: `cargo bench --bench gemm_sm90 -- --warm-up-time 1 --measurement-time 3`
//! (needs an H100/H200; skips elsewhere).

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use cutlet::arch::ArchKind;
use cutlet::device::gemm::{Gemm, GemmShape};
use cutlet::device::{device_count, driver_available, Device};
use cutlet::kernel::gemm::{KernelSchedule, OperandMajor, OutputMajor};
use cutlet::numeric::ElementType;
use cutlet_harness::{run_dense_gemm, DenseGemmArgs, OverheadProbe, ScheduleArg};

const SHAPES: [(usize, usize, usize); 8] = [
    (4096, 4096, 4096),
    (8192, 8192, 8192),
    (4096, 14336, 4096),
    (8192, 8192, 1024),
    (2048, 2048, 2048),
    (4095, 4097, 4093),
    (16, 4096, 4096),
    (128, 4096, 4096),
];

fn device() -> Option<Device> {
    if !driver_available() || !matches!(device_count(), Ok(n) if n > 0) {
        eprintln!("skipped gemm_sm90: no CUDA driver or GPU");
        return None;
    }
    let device = Device::new(0).expect("device 0 opens");
    if device.compute_capability() != (9, 0) {
        eprintln!(
            "skipped gemm_sm90: the SM90 kernels need compute capability 9.0, this GPU has {:?}",
            device.compute_capability()
        );
        return None;
    }
    Some(device)
}

/// M x N x K where the pick runs the GEMV kernel's ring: a 1-row decode,
/// 8 rows of a 4096 x 4096 weight, and narrow Bs past K = 4 N (below
/// N = 128, and up to K = 16384).
const GEMV_SHAPES: [(usize, usize, usize); 5] = [
    (1, 1024, 4096),
    (8, 4096, 4096),
    (1, 512, 8192),
    (8, 64, 8192),
    (1, 512, 16384),
];

/// Shapes of few output tiles and a long K, where the pick splits K.
const SPLIT_K_SHAPES: [(usize, usize, usize); 4] = [
    (512, 512, 16384),
    (128, 1536, 7168),
    (16, 4096, 14336),
    (1, 1024, 16384),
];

/// One case of the bench.
struct Case {
    shape: (usize, usize, usize),
    element: ElementType,
    majors: (OperandMajor, OperandMajor),
    /// Split-K's units per tile, pinned (`None`: the pick's).
    splits: Option<u32>,
    /// Swap-AB, pinned (`None`: the pick's).
    swap_ab: Option<bool>,
    /// Stream-K, pinned.
    stream_k: bool,
    schedule: ScheduleArg,
    /// The GEMV kernel pinned: `ROWS, COLS, WARPS, UNROLL` and whether it
    /// stages its k-steps in the shared-memory ring (`None`: the pick's).
    gemv: Option<([u32; 4], bool)>,
}

fn options(case: &Case) -> DenseGemmArgs {
    let (m, n, k) = case.shape;
    let d = if case.element == ElementType::TF32 {
        ElementType::F32
    } else {
        case.element
    };
    DenseGemmArgs {
        mnkl: GemmShape::new(m, n, k, 1),
        tile_shape_mnk: None,
        a_dtype: case.element,
        b_dtype: case.element,
        c_dtype: d,
        acc_dtype: None,
        a_major: case.majors.0,
        b_major: case.majors.1,
        c_major: OutputMajor::N,
        warmup_iterations: 5,
        iterations: 40,
        alpha: 1.0,
        beta: 0.0,
        skip_ref_check: false,
        use_cold_l2: true,
        arch: Some(ArchKind::Sm90),
        schedule: case.schedule,
        cluster_shape_mn: None,
        raster_order: cutlet::device::gemm::RasterOrder::default(),
        swizzle_size: None,
        decomposition: if case.stream_k {
            cutlet_harness::DecompositionArg::StreamK
        } else {
            cutlet_harness::DecompositionArg::Auto
        },
        splits: case.splits,
        swap_ab: case.swap_ab,
        fast_accum: false,
        scale_mode: None,
        gemv: case.gemv.map(|(gemv, _)| gemv),
        gemv_ring: case.gemv.is_some_and(|(_, ring)| ring),
        stages: None,
        reduction: cutlet::kernel::gemm::Reduction::Deterministic,
    }
}

fn cases() -> Vec<Case> {
    let (k, mn) = (OperandMajor::K, OperandMajor::MN);
    let mut cases = Vec::new();
    for element in [ElementType::BF16, ElementType::F16] {
        for shape in SHAPES {
            cases.push(Case {
                shape,
                element,
                majors: (k, k),
                schedule: ScheduleArg::Auto,
                splits: None,
                swap_ab: None,
                stream_k: false,
                gemv: None,
            });
        }
    }
    cases.push(Case {
        shape: SHAPES[0],
        element: ElementType::TF32,
        majors: (k, k),
        schedule: ScheduleArg::Auto,
        splits: None,
        swap_ab: None,
        stream_k: false,
        gemv: None,
    });
    for majors in [(mn, k), (k, mn), (mn, mn)] {
        cases.push(Case {
            shape: SHAPES[0],
            element: ElementType::BF16,
            majors,
            schedule: ScheduleArg::Auto,
            splits: None,
            swap_ab: None,
            stream_k: false,
            gemv: None,
        });
    }
    for shape in [SHAPES[0], SHAPES[3], SHAPES[4]] {
        for schedule in [
            KernelSchedule::TmaWarpSpecializedCooperative,
            KernelSchedule::TmaWarpSpecializedPingpong,
        ] {
            cases.push(Case {
                shape,
                element: ElementType::BF16,
                majors: (k, k),
                schedule: ScheduleArg::Fixed(schedule),
                splits: None,
                swap_ab: None,
                stream_k: false,
                gemv: None,
            });
        }
    }
    cases.push(Case {
        shape: SHAPES[5],
        element: ElementType::BF16,
        majors: (k, k),
        schedule: ScheduleArg::Fixed(KernelSchedule::TmaWarpSpecializedPingpong),
        splits: None,
        swap_ab: None,
        stream_k: false,
        gemv: None,
    });
    for shape in SPLIT_K_SHAPES {
        for (splits, swap_ab, stream_k) in [
            (None, None, false),
            (Some(4), Some(false), false),
            (Some(8), Some(false), false),
            (None, Some(false), true),
            (None, Some(false), false),
            (None, Some(true), false),
        ] {
            cases.push(Case {
                shape,
                element: ElementType::BF16,
                majors: (k, k),
                schedule: ScheduleArg::Auto,
                splits,
                swap_ab,
                stream_k,
                gemv: None,
            });
        }
    }
    // Decode shapes of the GEMV kernel: the pick (the ring form at all
    // of them), then its register form and its ring pinned.
    for shape in GEMV_SHAPES {
        let narrow = shape.2 > 4 * shape.1;
        let cols = if narrow { 8 } else { 16 };
        let warps = if narrow { 16 } else { 8 };
        for gemv in [
            None,
            Some(([8, cols, warps, 4], false)),
            Some(([8, cols, warps, 8], true)),
        ] {
            cases.push(Case {
                shape,
                element: ElementType::BF16,
                majors: (k, k),
                schedule: ScheduleArg::Auto,
                splits: None,
                swap_ab: None,
                stream_k: false,
                gemv,
            });
        }
    }
    cases
}

fn versus_cublas(device: &Device) {
    for case in cases() {
        let (m, n, k) = case.shape;
        let label = format!(
            "{} {m}x{n}x{k} {}{} {:?} splits {:?} swap_ab {:?}{}{}",
            case.element,
            case.majors.0.name(),
            case.majors.1.name(),
            case.schedule,
            case.splits,
            case.swap_ab,
            if case.stream_k { " stream-K" } else { "" },
            match case.gemv {
                Some((gemv, ring)) => format!(" gemv {gemv:?}{}", if ring { " ring" } else { "" }),
                None => String::new(),
            }
        );
        match run_dense_gemm(&options(&case), device) {
            Ok(report) => println!("{label}\n{report}\n"),
            Err(e) => println!("{label}: error: {e}\n"),
        }
    }
}

fn cached_run_host_time(c: &mut Criterion, device: &Device) {
    let stream = device.default_stream();
    let mut probe = OverheadProbe::new(&stream).unwrap();
    // The builder's own pick, as a user gets it: picked for the problem on
    // each call.
    let gemm = Gemm::builder().build(device).unwrap();
    let mut args = probe.arguments();
    gemm.initialize(&args, None)
        .unwrap()
        .wait_optimized()
        .unwrap();
    c.bench_function(
        "sm90 gemm run host time (cached, 128x128x64 bf16)",
        |bench| {
            bench.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                let mut left = iters;
                while left > 0 {
                    let batch = left.min(256);
                    let start = Instant::now();
                    for _ in 0..batch {
                        gemm.run(&mut args, &stream).unwrap();
                    }
                    total += start.elapsed();
                    stream.synchronize().unwrap();
                    left -= batch;
                }
                total
            })
        },
    );
}

/// Split-K, stream-K and swap-AB end to end: a run and the stream's
/// synchronization, the builder's pick (which splits or swaps these
/// shapes) against 4 pinned splits, stream-K, and swap-AB pinned off and
/// on.
fn split_k_runs(c: &mut Criterion, device: &Device) {
    use cutlet::device::gemm::{Arguments, Decomposition, Operand, OutputOperand};
    let stream = device.default_stream();
    let mut group = c.benchmark_group("sm90 split-k and swap-ab run + sync");
    for (m, n, k) in SPLIT_K_SHAPES {
        let a = stream.alloc_zeros::<half::bf16>(m * k).unwrap();
        let b = stream.alloc_zeros::<half::bf16>(n * k).unwrap();
        let mut d = stream.alloc_zeros::<half::bf16>(m * n).unwrap();
        for (name, builder) in [
            ("pick", Gemm::builder()),
            (
                "splitk4",
                Gemm::builder().decomposition(Decomposition::SplitK(4)),
            ),
            (
                "streamk",
                Gemm::builder().decomposition(Decomposition::StreamK),
            ),
            ("no swap-AB", Gemm::builder().swap_ab(false)),
            ("swap-AB", Gemm::builder().swap_ab(true)),
        ] {
            let gemm = builder.build(device).unwrap();
            let mut args = Arguments::product(
                GemmShape::new(m, n, k, 1),
                Operand::new(a.as_view(), k, m * k),
                Operand::new(b.as_view(), k, n * k),
                OutputOperand::new(d.as_view_mut(), n, m * n),
                1.0,
            );
            gemm.initialize(&args, None)
                .unwrap()
                .wait_optimized()
                .unwrap();
            group.bench_function(format!("{m}x{n}x{k} {name}"), |bench| {
                bench.iter(|| {
                    gemm.run(&mut args, &stream).unwrap();
                    stream.synchronize().unwrap();
                })
            });
        }
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    let Some(device) = device() else { return };
    versus_cublas(&device);
    cached_run_host_time(c, &device);
    split_k_runs(c, &device);
}

criterion_group!(gemm, benches);
criterion_main!(gemm);
