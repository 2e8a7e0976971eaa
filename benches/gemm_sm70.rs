//! The SM70 (Volta) GEMM beside the SM80 GEMM in the same process: f16 in,
//! f32 accumulate, every operand major on 4096^3 and the K-major pair on
//! the other shapes; each run checked against cuBLAS, each printed with
//! TFLOP/s, and the SM70 / SM80 time ratio.
//!
//! The SM70 kernel is sm_70 PTX (`mma.sync.m8n8k4` on quad pairs, the
//! two-stage register-staged mainloop), which an sm_80 or sm_90 GPU runs
//! through the driver JIT: on Hopper m8n8k4 is far below the tensor rate of
//! m16n8k16, so the ratio is a measurement, not a target.
//!
//! Each shape: 5 warm-up runs, then the median of 20 CUDA-event-timed runs.
//!
//! Run: `cargo bench --bench gemm_sm70` (needs a GPU; skips without one).

use cutlet::arch::ArchKind;
use cutlet::device::gemm::GemmShape;
use cutlet::device::{device_count, driver_available, Device};
use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
use cutlet::numeric::ElementType;
use cutlet_harness::{run_dense_gemm, DenseGemmArgs};

const SHAPES: [(usize, usize, usize); 4] = [
    (4096, 4096, 4096),
    (8192, 8192, 1024),
    (4096, 14336, 4096),
    (4095, 4097, 4093),
];

fn options(
    (m, n, k): (usize, usize, usize),
    majors: (OperandMajor, OperandMajor),
    arch: ArchKind,
) -> DenseGemmArgs {
    DenseGemmArgs {
        mnkl: GemmShape::new(m, n, k, 1),
        tile_shape_mnk: None,
        a_dtype: ElementType::F16,
        b_dtype: ElementType::F16,
        c_dtype: ElementType::F16,
        acc_dtype: None,
        a_major: majors.0,
        b_major: majors.1,
        c_major: OutputMajor::N,
        warmup_iterations: 5,
        iterations: 20,
        alpha: 1.0,
        beta: 0.0,
        skip_ref_check: false,
        arch: Some(arch),
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
        use_cold_l2: false,
    }
}

fn main() {
    if !driver_available() || !matches!(device_count(), Ok(n) if n > 0) {
        eprintln!("skipped gemm_sm70: no CUDA driver or GPU");
        return;
    }
    let device = Device::new(0).expect("device 0 opens");
    let (k, mn) = (OperandMajor::K, OperandMajor::MN);
    let mut cases = vec![
        (SHAPES[0], (k, k)),
        (SHAPES[0], (mn, k)),
        (SHAPES[0], (k, mn)),
        (SHAPES[0], (mn, mn)),
    ];
    cases.extend(SHAPES[1..].iter().map(|&shape| (shape, (k, k))));
    println!("shape majors | sm70 ms TFLOP/s | sm80 ms TFLOP/s | sm70/sm80 time");
    for (shape, majors) in cases {
        let (m, n, kk) = shape;
        let name = format!("{m}x{n}x{kk} {}{}", majors.0.name(), majors.1.name());
        let sm70 = run_dense_gemm(&options(shape, majors, ArchKind::Sm70), &device);
        let sm80 = run_dense_gemm(&options(shape, majors, ArchKind::Sm80), &device);
        match (sm70, sm80) {
            (Ok(a), Ok(b)) => {
                println!("{a}\n{b}");
                println!(
                    "{name} | {:.3} {:.1} | {:.3} {:.1} | {:.2} (checks: sm70 {}, sm80 {})\n",
                    a.cutlet_ms,
                    a.tflops(a.cutlet_ms),
                    b.cutlet_ms,
                    b.tflops(b.cutlet_ms),
                    a.cutlet_ms / b.cutlet_ms,
                    if a.passed() { "passed" } else { "FAILED" },
                    if b.passed() { "passed" } else { "FAILED" },
                );
            }
            (a, b) => println!(
                "{name}: error: sm70 {:?}, sm80 {:?}\n",
                a.err().map(|e| e.to_string()),
                b.err().map(|e| e.to_string())
            ),
        }
    }
}
