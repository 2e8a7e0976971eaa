//! The SM80 GEMM against cuBLAS in the same process (the shapes,
//! bf16 and f16 in, f32 accumulate), and the host time of a cached `run`.
//!
//! Each shape: 5 warm-up runs of each, then 20 CUDA-event-timed runs of
//! cutlet and of the reference, alternating run by run and taking turns to
//! go first (the median per place, averaged), with a cold L2 (each
//! run on another set of A, B and D buffers, the sets totalling at least
//! twice the L2); the medians printed with TFLOP/s and the ratio. The
//! reference is cuBLASLt as PyTorch calls it (`cublasLtMatmul` with
//! `cublasLtMatmulAlgoGetHeuristic`'s best algorithm and a 32 MiB
//! workspace), or `cublasGemmStridedBatchedEx` where cuBLASLt is not usable;
//! each report names the one that ran. Then criterion times `Gemm::run` on a 128 x 128 x 64
//! problem from the host's side (check, argument packing, launch), in
//! batches of 256 calls with a synchronize between batches (not timed).
//!
//! Before criterion, `measure_host_overhead` prints the host time of a
//! cached `run` against a raw launch of the same function (the issue's
//! budget: run adds under 10 us).
//!
//! Run: `cargo bench --bench gemm_sm80 -- --warm-up-time 1 --measurement-time 3`
//! (needs a GPU; skips without one).

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use cutlet::device::gemm::{Gemm, GemmShape};
use cutlet::device::{device_count, driver_available, Device};
use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
use cutlet::numeric::ElementType;
use cutlet_harness::{measure_host_overhead, run_dense_gemm, DenseGemmArgs, OverheadProbe};

const SHAPES: [(usize, usize, usize); 5] = [
    (4096, 4096, 4096),
    (8192, 8192, 8192),
    (4096, 14336, 4096),
    (8192, 8192, 1024),
    (4095, 4097, 4093),
];

fn device() -> Option<Device> {
    if !driver_available() || !matches!(device_count(), Ok(n) if n > 0) {
        eprintln!("skipped gemm_sm80: no CUDA driver or GPU");
        return None;
    }
    Some(Device::new(0).expect("device 0 opens"))
}

fn versus_cublas(device: &Device) {
    for element in [ElementType::BF16, ElementType::F16] {
        for (m, n, k) in SHAPES {
            let options = DenseGemmArgs {
                mnkl: GemmShape::new(m, n, k, 1),
                tile_shape_mnk: None,
                a_dtype: element,
                b_dtype: element,
                c_dtype: element,
                acc_dtype: None,
                a_major: OperandMajor::K,
                b_major: OperandMajor::K,
                c_major: OutputMajor::N,
                warmup_iterations: 5,
                iterations: 20,
                alpha: 1.0,
                beta: 0.0,
                skip_ref_check: false,
                use_cold_l2: true,
                arch: Some(cutlet::arch::ArchKind::Sm80),
                schedule: cutlet_harness::ScheduleArg::Auto,
                cluster_shape_mn: None,
                raster_order: cutlet::device::gemm::RasterOrder::default(),
                swizzle_size: None,
                decomposition: cutlet_harness::DecompositionArg::Auto,
                splits: None,
                swap_ab: None,
                fast_accum: false,
                scale_mode: None,
                gemv: None,
                gemv_ring: false,
                stages: None,
                reduction: cutlet::kernel::gemm::Reduction::Deterministic,
            };
            match run_dense_gemm(&options, device) {
                Ok(report) => println!("{element} {m}x{n}x{k}\n{report}\n"),
                Err(e) => println!("{element} {m}x{n}x{k}: error: {e}\n"),
            }
        }
    }
}

fn cached_run_host_time(c: &mut Criterion, device: &Device) {
    let stream = device.default_stream();
    let mut probe = OverheadProbe::new(&stream).unwrap();
    let gemm = Gemm::builder().build(device).unwrap();
    let mut args = probe.arguments();
    // The optimized kernel, not the quick first tier.
    gemm.initialize(&args, None)
        .unwrap()
        .wait_optimized()
        .unwrap();
    c.bench_function("gemm run host time (cached, 128x128x64 bf16)", |bench| {
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
    });
}

fn benches(c: &mut Criterion) {
    let Some(device) = device() else { return };
    versus_cublas(&device);
    match measure_host_overhead(&device, 20, 200) {
        Ok(overhead) => println!("{overhead}\n"),
        Err(e) => println!("host overhead: error: {e}\n"),
    }
    cached_run_host_time(c, &device);
}

criterion_group!(gemm, benches);
criterion_main!(gemm);
