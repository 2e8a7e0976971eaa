//! What an FP8 GEMM's output options and an MN-major 8-bit operand cost,
//! against the plain FP8 GEMM (e4m3 A and B K-major, bf16 D, fast
//! accumulation) in the same process:
//! - `e4m3 D`: an e4m3 D with an output scale and the amax (the SM90
//!   register-store epilogue);
//! - `bf16 D + amax`: the amax of a bf16 D (the same epilogue);
//! - `A MN-major`: A given MN-major, copied K-major before the kernel (a
//!   transpose into memory allocated on the stream, then the same kernel).
//!
//! Each shape: 5 warm-up rounds, then 40 rounds of CUDA-event-timed runs
//! of the four, alternating run by run and taking turns to go first
//! (`time_alternating_ms`), with a cold L2 (each run on another set of A,
//! B and D, the sets totalling at least twice the L2). Medians with TFLOP/s
//! and the ratio to the plain GEMM's time.
//!
//! Run: `cargo bench --bench gemm_8bit_io` (needs an H100/H200; skips
//! elsewhere).

use cudarc::driver::CudaSlice;
use cutlet::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand};
use cutlet::device::{device_count, driver_available, Device};
use cutlet::float8::F8E4M3;
use cutlet::gemm::{OperandMajor, OutputMajor};
use cutlet::half::bf16;
use cutlet::numeric::ElementType;
use cutlet_harness::{cold_l2_buffer_sets, time_alternating_ms, Workload};
use rand::{Rng, SeedableRng};

const SHAPES: [(usize, usize, usize); 4] = [
    (4096, 4096, 4096),
    (8192, 8192, 8192),
    (4096, 14336, 4096),
    (16, 4096, 4096),
];

/// One cold-L2 set of buffers.
struct Set {
    a: CudaSlice<F8E4M3>,
    b: CudaSlice<F8E4M3>,
    d_bf16: CudaSlice<bf16>,
    d_fp8: CudaSlice<F8E4M3>,
}

fn main() {
    if !driver_available() || !matches!(device_count(), Ok(n) if n > 0) {
        eprintln!("skipped gemm_8bit_io: no CUDA driver or GPU");
        return;
    }
    let device = Device::new(0).expect("device 0 opens");
    if device.compute_capability() != (9, 0) {
        eprintln!("skipped gemm_8bit_io: the 8-bit kernels need compute capability 9.0");
        return;
    }
    for shape in SHAPES {
        measure(&device, shape);
    }
}

/// `D = A · B` for `shape` (A's leading dimension `lda`, B K-major, D
/// row-major), packed.
fn product<'a, D>(
    [a, b]: [&'a CudaSlice<F8E4M3>; 2],
    d: &'a mut CudaSlice<D>,
    shape: GemmShape,
    lda: usize,
) -> Arguments<'a, F8E4M3, F8E4M3, D, D> {
    Arguments::product(
        shape,
        Operand::new(a.as_view(), lda, 0),
        Operand::new(b.as_view(), shape.k, 0),
        OutputOperand::new(d.as_view_mut(), shape.n, 0),
        1.0,
    )
}

fn measure(device: &Device, (m, n, k): (usize, usize, usize)) {
    let stream = device.default_stream();
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut random = |len: usize| -> Vec<F8E4M3> {
        (0..len)
            .map(|_| F8E4M3::from_f32(rng.random_range(-2.0f32..2.0)))
            .collect()
    };
    let set_bytes = m * k + n * k + 3 * m * n;
    let l2 = u64::from(device.info().expect("device info").l2_cache_bytes);
    let count = cold_l2_buffer_sets(l2, set_bytes as u64);
    let (a_host, b_host) = (random(m * k), random(n * k));
    let sets: Vec<Set> = (0..count)
        .map(|_| Set {
            a: stream.clone_htod(&a_host).unwrap(),
            b: stream.clone_htod(&b_host).unwrap(),
            d_bf16: stream.alloc_zeros(m * n).unwrap(),
            d_fp8: stream.alloc_zeros(m * n).unwrap(),
        })
        .collect();
    let scale = stream.clone_htod(&[0.25f32]).unwrap();
    let mut amax = stream.alloc_zeros::<f32>(1).unwrap();
    let fp8 = |a_major| {
        Gemm::builder()
            .a(ElementType::F8E4M3, a_major)
            .b(ElementType::F8E4M3, OperandMajor::K)
            .fast_accumulation(true)
    };
    let plain = fp8(OperandMajor::K).build(device).unwrap();
    let fp8_out = fp8(OperandMajor::K)
        .d(ElementType::F8E4M3, OutputMajor::N)
        .d_scale(true)
        .d_amax(true)
        .build(device)
        .unwrap();
    let with_amax = fp8(OperandMajor::K).d_amax(true).build(device).unwrap();
    let a_mn = fp8(OperandMajor::MN).build(device).unwrap();
    let shape = GemmShape::new(m, n, k, 1);
    // The runs' set indices, one counter each.
    let next = std::cell::Cell::new([0usize; 4]);
    let take = |which: usize| {
        let mut counts = next.get();
        counts[which] += 1;
        next.set(counts);
        counts[which] % count
    };
    // Each run borrows its set for the call that queues it.
    let sets = std::cell::RefCell::new(sets);
    let mut run_plain = || {
        let mut sets = sets.borrow_mut();
        let s = &mut sets[take(0)];
        let mut args = product([&s.a, &s.b], &mut s.d_bf16, shape, k);
        plain.run(&mut args, &stream)
    };
    let mut run_fp8_out = || {
        let mut sets = sets.borrow_mut();
        let s = &mut sets[take(1)];
        let mut args = product([&s.a, &s.b], &mut s.d_fp8, shape, k)
            .with_d_scale(scale.as_view())
            .with_d_amax(amax.as_view_mut());
        fp8_out.run(&mut args, &stream)
    };
    let mut amax2 = stream.alloc_zeros::<f32>(1).unwrap();
    let mut run_amax = || {
        let mut sets = sets.borrow_mut();
        let s = &mut sets[take(2)];
        let mut args =
            product([&s.a, &s.b], &mut s.d_bf16, shape, k).with_d_amax(amax2.as_view_mut());
        with_amax.run(&mut args, &stream)
    };
    let mut run_a_mn = || {
        let mut sets = sets.borrow_mut();
        // The same bytes read as an MN-major M x K (lda = M).
        let s = &mut sets[take(3)];
        let mut args = product([&s.a, &s.b], &mut s.d_bf16, shape, m);
        a_mn.run(&mut args, &stream)
    };
    let mut workloads: Vec<Workload<'_, cutlet::Error>> = vec![
        &mut run_plain,
        &mut run_fp8_out,
        &mut run_amax,
        &mut run_a_mn,
    ];
    let runs = match time_alternating_ms(device, &stream, 5, 40, &mut workloads) {
        Ok(runs) => runs,
        Err(e) => {
            println!("{m}x{n}x{k}: error: {e}");
            return;
        }
    };
    let flops = 2.0 * (m * n * k) as f64;
    let base = runs[0].median_ms();
    for (name, run) in [
        "plain (bf16 D)",
        "e4m3 D + scale + amax",
        "bf16 D + amax",
        "A MN-major (copied)",
    ]
    .iter()
    .zip(&runs)
    {
        let ms = run.median_ms();
        println!(
            "e4m3 {m}x{n}x{k} {name}: {:.2} us, {:.0} TFLOP/s, plain / this = {:.3}",
            ms * 1e3,
            flops / (ms * 1e-3) / 1e12,
            base / ms
        );
    }
    println!("({count} cold-L2 sets)\n");
}
