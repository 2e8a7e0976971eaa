//! The SM80 GEMM kernel launched directly (its parameters passed by
//! `ParamValues::push`, in the kernel's own order) on random data, against a host reference with
//! f64 accumulation, over ragged shapes, batches, all four operand majors,
//! both output majors and every type combination; outputs poisoned (NaN)
//! first, so an unwritten element fails.
//!
//! Tolerance: the relative Frobenius error ||D - ref|| / ||ref||, by the
//! type that rounds most: 16-bit output 1e-2 (bf16: 8 bits of mantissa,
//! one rounding of each output) / 2e-3 (f16); f32 output from 16-bit inputs
//! 1e-5 (f32 accumulation error only, grows with sqrt(K)); tf32 inputs 2e-3
//! (10-bit mantissa operands, the reference uses the unrounded f32 inputs);
//! f16 accumulation 1e-2 (K up to 1000 sums in f16).

mod common;

use common::gpu::random_vec;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};
use cutlet::device::gemm::{ParamValues, RasterOrder};
use cutlet::device::{get_or_load, Device, KernelArgs, LaunchConfig};
use cutlet::kernel::gemm::sm80_default_spec;
use cutlet::kernel::gemm::{GemmSpec, OperandMajor, OutputMajor};
use cutlet::numeric::ElementType::{self, BF16, F16, F32};
use cutlet_harness::device_or_skip;
use half::{bf16, f16};

/// One problem: shape, majors, scalars, whether C is D's buffer.
#[derive(Clone, Copy, Debug)]
struct Case {
    m: usize,
    n: usize,
    k: usize,
    l: usize,
    a_major: OperandMajor,
    b_major: OperandMajor,
    d_major: OutputMajor,
    alias: bool,
}

fn encode(ty: ElementType, values: &[f64]) -> Vec<u8> {
    match ty {
        F16 => values
            .iter()
            .flat_map(|&v| f16::from_f64(v).to_le_bytes())
            .collect(),
        BF16 => values
            .iter()
            .flat_map(|&v| bf16::from_f64(v).to_le_bytes())
            .collect(),
        _ => values
            .iter()
            .flat_map(|&v| (v as f32).to_le_bytes())
            .collect(),
    }
}

fn decode(ty: ElementType, bytes: &[u8]) -> Vec<f64> {
    match ty {
        F16 => bytes
            .chunks(2)
            .map(|b| f16::from_le_bytes([b[0], b[1]]).to_f64())
            .collect(),
        BF16 => bytes
            .chunks(2)
            .map(|b| bf16::from_le_bytes([b[0], b[1]]).to_f64())
            .collect(),
        _ => bytes
            .chunks(4)
            .map(|b| f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])))
            .collect(),
    }
}

/// Values as the element type stores them (what the kernel sees).
fn rounded(ty: ElementType, values: Vec<f64>) -> Vec<f64> {
    decode(ty, &encode(ty, &values))
}

fn round_up(x: usize, to: usize) -> usize {
    x.div_ceil(to) * to
}

/// A column- or row-strided matrix in a buffer of `l` batches.
struct Operand {
    values: Vec<f64>,
    ld: usize,
    batch: usize,
}

/// `rows x cols` (logical) stored with `contiguous_rows` deciding which is
/// contiguous; leading dimension padded past the alignment.
fn operand(
    seed: u64,
    ty: ElementType,
    rows: usize,
    cols: usize,
    row_contiguous: bool,
    l: usize,
    align: usize,
) -> Operand {
    let inner = if row_contiguous { cols } else { rows };
    let outer = if row_contiguous { rows } else { cols };
    let ld = round_up(inner, align) + align;
    let batch = round_up(ld * outer, align);
    let values = rounded(ty, random_vec(seed, batch * l, -1.0, 1.0));
    Operand { values, ld, batch }
}

fn reference(
    case: &Case,
    a: &Operand,
    b: &Operand,
    c: &Operand,
    alpha: f64,
    beta: f64,
) -> Vec<f64> {
    let mut out = c.values.clone();
    let a_at = |bt: usize, m: usize, k: usize| match case.a_major {
        OperandMajor::K => a.values[bt * a.batch + m * a.ld + k],
        OperandMajor::MN => a.values[bt * a.batch + k * a.ld + m],
    };
    let b_at = |bt: usize, n: usize, k: usize| match case.b_major {
        OperandMajor::K => b.values[bt * b.batch + n * b.ld + k],
        OperandMajor::MN => b.values[bt * b.batch + k * b.ld + n],
    };
    for bt in 0..case.l {
        for m in 0..case.m {
            for n in 0..case.n {
                let dot: f64 = (0..case.k).map(|k| a_at(bt, m, k) * b_at(bt, n, k)).sum();
                let idx = bt * c.batch
                    + match case.d_major {
                        OutputMajor::N => m * c.ld + n,
                        OutputMajor::M => n * c.ld + m,
                    };
                out[idx] = alpha * dot + beta * c.values[idx];
            }
        }
    }
    out
}

fn device_ptr(stream: &CudaStream, buf: &CudaSlice<u8>) -> u64 {
    let (ptr, _sync) = buf.device_ptr(stream);
    ptr
}

/// Runs `case` with `spec` and returns the relative Frobenius error over the
/// output tiles; panics on an unwritten (NaN) element or an element outside
/// the problem that changed.
fn run(device: &Device, spec: &GemmSpec, case: &Case, seed: u64) -> f64 {
    let stream = device.default_stream();
    let [al_a, al_b, al_c, _] = spec.alignment().map(|x| x as usize);
    let a = operand(
        seed,
        spec.types.a,
        case.m,
        case.k,
        case.a_major == OperandMajor::K,
        case.l,
        al_a,
    );
    let b = operand(
        seed + 1,
        spec.types.b,
        case.n,
        case.k,
        case.b_major == OperandMajor::K,
        case.l,
        al_b,
    );
    let c = operand(
        seed + 2,
        spec.types.c,
        case.m,
        case.n,
        case.d_major == OutputMajor::N,
        case.l,
        al_c,
    );
    let (alpha, beta) = (1.25f32, -0.75f32);
    let want = reference(case, &a, &b, &c, f64::from(alpha), f64::from(beta));
    // D starts as NaN inside the problem, C's values elsewhere (the padding
    // must survive).
    let inside = |i: usize| {
        let (bt, r) = (i / c.batch, i % c.batch);
        let (outer, inner) = (r / c.ld, r % c.ld);
        let (rows, cols) = match case.d_major {
            OutputMajor::N => (case.m, case.n),
            OutputMajor::M => (case.n, case.m),
        };
        bt < case.l && outer < rows && inner < cols
    };
    let d_init: Vec<f64> = if case.alias {
        c.values.clone()
    } else {
        (0..c.values.len())
            .map(|i| if inside(i) { f64::NAN } else { c.values[i] })
            .collect()
    };
    let da = stream.clone_htod(&encode(spec.types.a, &a.values)).unwrap();
    let db = stream.clone_htod(&encode(spec.types.b, &b.values)).unwrap();
    let dc = stream.clone_htod(&encode(spec.types.c, &c.values)).unwrap();
    let mut dd = stream.clone_htod(&encode(spec.types.d, &d_init)).unwrap();
    let kernel = get_or_load(device, spec, || spec.kernel_name(), || Ok(spec.ptx()?)).unwrap();
    let (gx, gy, gz) = spec.grid(case.m as u32, case.n as u32, case.l as u32);
    let config = LaunchConfig {
        grid: (gx, gy, gz),
        block: (spec.block_threads(), 1, 1),
        shared_mem_bytes: spec.shared_mem_bytes(),
    };
    let c_ptr = if case.alias {
        device_ptr(&stream, &dd)
    } else {
        device_ptr(&stream, &dc)
    };
    // The kernel's own parameter list, walked by the launcher's `push`.
    let composed = spec.kernel().unwrap();
    // D's write is recorded on the stream when the guard drops, after the launch.
    let (d_ptr, d_write) = dd.device_ptr_mut(&stream);
    let values = ParamValues {
        addresses: [
            device_ptr(&stream, &da),
            device_ptr(&stream, &db),
            c_ptr,
            d_ptr,
        ],
        extents: [case.m, case.n, case.k, case.l].map(|v| v as u32),
        ld: [a.ld, b.ld, c.ld, c.ld].map(|v| v as u64),
        batch_strides: [a.batch, b.batch, c.batch, c.batch].map(|v| v as u64),
        alpha,
        beta,
        raster_log: Some(2),
        raster_order: Some(RasterOrder::AlongN),
        ..ParamValues::default()
    };
    let mut args = KernelArgs::new(&stream);
    values.push(&*composed, &mut args).unwrap();
    // SAFETY: `push` passed the kernel's own parameters in order, each of
    // its declared type; every buffer
    // holds l batches of its operand with the leading dimensions and batch
    // strides passed, all multiples of spec.alignment(); C is either its own
    // buffer (read only) or D's (the kernel reads each element before writing
    // it); grid, block and shared memory are the spec's.
    unsafe { kernel.function().launch(&config, args) }.unwrap();
    drop(d_write);
    let got = decode(spec.types.d, &stream.clone_dtoh(&dd).unwrap());
    let (mut err, mut norm) = (0.0, 0.0);
    for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
        assert!(
            !g.is_nan(),
            "{case:?} {}: element {i} not written",
            spec.kernel_name()
        );
        if !inside(i) {
            assert_eq!(
                g, c.values[i],
                "{case:?}: element {i} outside the problem changed"
            );
        }
        err += (g - w) * (g - w);
        norm += w * w;
    }
    (err / norm.max(1e-30)).sqrt()
}

fn tolerance(spec: &GemmSpec) -> f64 {
    match (spec.types.a, spec.types.acc, spec.types.d) {
        (F32, _, _) => 2e-3,
        (_, F16, _) => 1e-2,
        (_, _, F32) => 1e-5,
        (_, _, F16) => 2e-3,
        _ => 1e-2,
    }
}

const SHAPES: [(usize, usize, usize, usize); 7] = [
    (1, 1, 1, 1),
    (13, 7, 29, 1),
    (129, 255, 127, 3),
    (128, 256, 128, 1),
    (200, 300, 1000, 1),
    (1000, 64, 200, 2),
    (255, 129, 64, 1),
];

fn sweep(
    test: &str,
    ab: ElementType,
    d: ElementType,
    acc: ElementType,
    majors: &[(OperandMajor, OperandMajor)],
) {
    let Some(device) = device_or_skip(test) else {
        return;
    };
    let mut failures = Vec::new();
    let mut seed = 10;
    for &(a_major, b_major) in majors {
        for (i, &(m, n, k, l)) in SHAPES.iter().enumerate() {
            let d_major = if i % 2 == 0 {
                OutputMajor::N
            } else {
                OutputMajor::M
            };
            let mut spec = sm80_default_spec(ab, ab, d, acc, a_major, b_major, d_major).unwrap();
            if i % 2 == 1 && spec.tile == [128, 256, 64] && a_major == OperandMajor::K {
                // Every other shape with the 256x128 tile the builder picks
                // for some problem shapes.
                spec.tile = [256, 128, 64];
                spec.mainloop.warps = [4, 2, 1];
            }
            let case = Case {
                m,
                n,
                k,
                l,
                a_major,
                b_major,
                d_major,
                alias: i % 3 == 1,
            };
            seed += 3;
            let err = run(&device, &spec, &case, seed);
            let tol = tolerance(&spec);
            eprintln!(
                "{} {case:?}: error {err:.2e} (tolerance {tol:.0e})",
                spec.kernel_name()
            );
            if err.is_nan() || err > tol {
                failures.push(format!(
                    "{} {case:?}: error {err:.2e} > {tol:.0e}",
                    spec.kernel_name()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

const ALL_MAJORS: [(OperandMajor, OperandMajor); 4] = [
    (OperandMajor::K, OperandMajor::K),
    (OperandMajor::K, OperandMajor::MN),
    (OperandMajor::MN, OperandMajor::K),
    (OperandMajor::MN, OperandMajor::MN),
];

#[test]
fn gemm_bf16_f32acc_bf16_out_matches_the_host() {
    sweep(
        "gemm_bf16_f32acc_bf16_out_matches_the_host",
        BF16,
        BF16,
        F32,
        &ALL_MAJORS,
    );
}

#[test]
fn gemm_f16_f32acc_f32_out_matches_the_host() {
    sweep(
        "gemm_f16_f32acc_f32_out_matches_the_host",
        F16,
        F32,
        F32,
        &ALL_MAJORS,
    );
}

#[test]
fn gemm_f16_f32acc_f16_out_matches_the_host() {
    sweep(
        "gemm_f16_f32acc_f16_out_matches_the_host",
        F16,
        F16,
        F32,
        &ALL_MAJORS,
    );
}

#[test]
fn gemm_f16_f16acc_matches_the_host() {
    sweep(
        "gemm_f16_f16acc_matches_the_host",
        F16,
        F16,
        F16,
        &ALL_MAJORS,
    );
}

#[test]
fn gemm_bf16_f32acc_f32_out_matches_the_host() {
    sweep(
        "gemm_bf16_f32acc_f32_out_matches_the_host",
        BF16,
        F32,
        F32,
        &ALL_MAJORS,
    );
}

#[test]
fn gemm_tf32_matches_the_host() {
    sweep("gemm_tf32_matches_the_host", F32, F32, F32, &ALL_MAJORS);
}
