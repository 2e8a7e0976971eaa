//! GEMMs on buffers of exactly the length their shape and leading
//! dimensions need (cudarc allocations, ld = K for K-major operands): ragged
//! K (not a multiple of the 64-element tile K), single-row and single-column
//! problems, every operand major; and fused epilogues (relu with a row
//! bias, gelu with a column bias, a custom closure with two biases and
//! extra scalars) against the host reference built with `Epilogue::eval`,
//! on the kernel `Gemm::builder().build()` picks for the GPU (the SM90
//! kernel on an H100 or H200, the SM80 one elsewhere) and, for two of
//! them, on the Volta kernel (`.arch(ArchKind::Sm70)`).
//!
//! D is poisoned (NaN) first and its padding between rows holds a sentinel
//! that must survive. The reference accumulates in f64; the tolerance on
//! the relative Frobenius error is 1e-2 for bf16 outputs (8-bit mantissa)
//! and 3e-3 for f32 outputs (the fused activations use `tanh.approx.f32`
//! and `ex2.approx`, relative error about 5e-4, amplified near gelu's and
//! sigmoid's flat regions); compute-sanitizer runs this file on the GPU
//! machine to prove no access leaves the buffers.

mod common;

use common::gpu::random_vec;
use cudarc::driver::{CudaSlice, DeviceRepr};
use cutlet::arch::ArchKind;
use cutlet::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand};
use cutlet::device::Device;
use cutlet::fusion::{scalar, Expr, Expression};
use cutlet::kernel::gemm::{BiasAxis, Epilogue, OperandMajor, OutputMajor};
use cutlet::numeric::{Element, ElementType};
use cutlet_harness::device_or_skip;
use half::{bf16, f16};

/// A host element type the tests store.
trait Host: Element + DeviceRepr + Copy + Default + Unpin {
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
}

impl Host for bf16 {
    fn from_f64(v: f64) -> Self {
        bf16::from_f64(v)
    }
    fn to_f64(self) -> f64 {
        bf16::to_f64(self)
    }
}

impl Host for f16 {
    fn from_f64(v: f64) -> Self {
        f16::from_f64(v)
    }
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
}

impl Host for f32 {
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

/// One problem.
#[derive(Clone, Copy, Debug)]
struct Case {
    m: usize,
    n: usize,
    k: usize,
    a_major: OperandMajor,
    b_major: OperandMajor,
    d_major: OutputMajor,
}

/// A matrix of `rows x cols` (`inner` contiguous) with leading dimension
/// `ld`, as a buffer of exactly `(outer - 1) * ld + inner` elements.
struct Matrix {
    values: Vec<f64>,
    ld: usize,
}

fn matrix<T: Host>(seed: u64, outer: usize, inner: usize, ld: usize) -> Matrix {
    let len = (outer - 1) * ld + inner;
    let values = random_vec(seed, len, -1.0, 1.0)
        .into_iter()
        .map(|v| T::from_f64(v).to_f64())
        .collect();
    Matrix { values, ld }
}

fn encode<T: Host>(values: &[f64]) -> Vec<T> {
    values.iter().map(|&v| T::from_f64(v)).collect()
}

/// The smallest leading dimension of `inner` elements that keeps 16-byte
/// alignment for `ty`.
fn min_ld(inner: usize, ty: ElementType) -> usize {
    let align = 16 / ty.size_bytes() as usize;
    inner.div_ceil(align) * align
}

/// What the epilogue reads beyond C: its bias axes and extra scalars.
struct Fused {
    epilogue: Epilogue,
    scalars: Vec<f64>,
}

/// Runs `case` with inputs `I`, C and D `O`, and returns the relative
/// Frobenius error against the host; panics on an unwritten element or a
/// changed padding element.
fn run<I: Host, O: Host>(device: &Device, case: Case, fused: &Fused, seed: u64) -> f64 {
    run_on::<I, O>(device, case, fused, seed, Pin::default())
}

/// What a run pins of the builder's choices (else the builder's pick for
/// the device).
#[derive(Clone, Copy, Debug, Default)]
struct Pin {
    arch: Option<ArchKind>,
    swap_ab: Option<bool>,
    decomposition: Option<cutlet::device::gemm::Decomposition>,
    /// A part of the name of the kernel the pick must run on compute
    /// capability 9.0.
    picks: Option<&'static str>,
    reduction: Option<cutlet::device::gemm::Reduction>,
    /// Runs of the one GEMM (and its workspace) before D is checked (0 is
    /// 1): a reduction that left its workspace dirty fails the second.
    runs: usize,
}

/// [`run`] with `pin`'s choices.
fn run_on<I: Host, O: Host>(
    device: &Device,
    case: Case,
    fused: &Fused,
    seed: u64,
    pin: Pin,
) -> f64 {
    let (m, n, k) = (case.m, case.n, case.k);
    let stream = device.default_stream();
    let (it, ot) = (I::TYPE, O::TYPE);
    // K-major operands use ld = K exactly (K is a multiple of the alignment).
    let operand = |seed, mn: usize, major| match major {
        OperandMajor::K => matrix::<I>(seed, mn, k, k),
        OperandMajor::MN => matrix::<I>(seed, k, mn, min_ld(mn, it)),
    };
    let a = operand(seed, m, case.a_major);
    let b = operand(seed + 1, n, case.b_major);
    let (outer, inner) = match case.d_major {
        OutputMajor::N => (m, n),
        OutputMajor::M => (n, m),
    };
    let ldd = min_ld(inner, ot);
    let c = matrix::<O>(seed + 2, outer, inner, ldd);
    let biases: Vec<Vec<f64>> = fused
        .epilogue
        .biases()
        .iter()
        .enumerate()
        .map(|(i, axis)| {
            let len = if *axis == BiasAxis::Row { m } else { n };
            encode::<O>(&random_vec(seed + 3 + i as u64, len, -1.0, 1.0))
                .into_iter()
                .map(O::to_f64)
                .collect()
        })
        .collect();
    let (alpha, beta) = (1.25, -0.75);
    let at = |mat: &Matrix, mn: usize, kk: usize, major| match major {
        OperandMajor::K => mat.values[mn * mat.ld + kk],
        OperandMajor::MN => mat.values[kk * mat.ld + mn],
    };
    let d_index = |i: usize, j: usize| match case.d_major {
        OutputMajor::N => i * ldd + j,
        OutputMajor::M => j * ldd + i,
    };
    let sentinel = 7.0;
    let mut want = vec![sentinel; c.values.len()];
    for i in 0..m {
        for j in 0..n {
            let acc: f64 = (0..k)
                .map(|kk| at(&a, i, kk, case.a_major) * at(&b, j, kk, case.b_major))
                .sum();
            let bias: Vec<f64> = fused
                .epilogue
                .biases()
                .iter()
                .zip(&biases)
                .map(|(axis, v)| if *axis == BiasAxis::Row { v[i] } else { v[j] })
                .collect();
            let cv = c.values[d_index(i, j)];
            want[d_index(i, j)] = fused
                .epilogue
                .eval(acc, cv, &bias, alpha, beta, &fused.scalars);
        }
    }
    let inside = |idx: usize| (idx % ldd) < inner;
    let d_init: Vec<f64> = (0..c.values.len())
        .map(|i| if inside(i) { f64::NAN } else { sentinel })
        .collect();
    let da: CudaSlice<I> = stream.clone_htod(&encode::<I>(&a.values)).unwrap();
    let db: CudaSlice<I> = stream.clone_htod(&encode::<I>(&b.values)).unwrap();
    let dc: CudaSlice<O> = stream.clone_htod(&encode::<O>(&c.values)).unwrap();
    let mut dd: CudaSlice<O> = stream.clone_htod(&encode::<O>(&d_init)).unwrap();
    let dbias: Vec<CudaSlice<O>> = biases
        .iter()
        .map(|v| stream.clone_htod(&encode::<O>(v)).unwrap())
        .collect();
    let mut builder = Gemm::builder()
        .a(it, case.a_major)
        .b(it, case.b_major)
        .d(ot, case.d_major)
        .epilogue(fused.epilogue.clone());
    if let Some(arch) = pin.arch {
        builder = builder.arch(arch);
    }
    if let Some(swap) = pin.swap_ab {
        builder = builder.swap_ab(swap);
    }
    if let Some(decomposition) = pin.decomposition {
        builder = builder.decomposition(decomposition);
    }
    if let Some(reduction) = pin.reduction {
        builder = builder.reduction(reduction);
    }
    let gemm = builder.build(device).unwrap();
    if let Some(arch) = pin.arch {
        assert_eq!(gemm.spec().arch, arch);
    }
    let mut args = Arguments::new(
        GemmShape::new(m, n, k, 1),
        Operand::new(da.as_view(), a.ld, 0),
        Operand::new(db.as_view(), b.ld, 0),
        Operand::new(dc.as_view(), ldd, 0),
        OutputOperand::new(dd.as_view_mut(), ldd, 0),
        alpha,
        beta,
    )
    .with_biases(dbias.iter().map(|b| b.as_view()).collect())
    .with_scalars(fused.scalars.clone());
    if let (Some(swap), true) = (pin.swap_ab, device.compute_capability() == (9, 0)) {
        assert_eq!(gemm.swaps_ab_for(&args), swap, "{case:?}");
    }
    if let (Some(part), true) = (pin.picks, device.compute_capability() == (9, 0)) {
        let name = gemm.spec_for(&args).kernel_name();
        assert!(
            name.contains(part),
            "{case:?}: picked {name}, expected {part}"
        );
    }
    for _ in 0..pin.runs.max(1) {
        gemm.run(&mut args, &stream).unwrap();
    }
    drop(args);
    let got: Vec<f64> = stream
        .clone_dtoh(&dd)
        .unwrap()
        .into_iter()
        .map(O::to_f64)
        .collect();
    let (mut err, mut norm) = (0.0, 0.0);
    for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
        assert!(!g.is_nan(), "{case:?}: element {i} not written (or NaN)");
        if !inside(i) {
            assert_eq!(g, sentinel, "{case:?}: padding element {i} changed");
        }
        err += (g - w) * (g - w);
        norm += w * w;
    }
    (err / norm.max(1e-30)).sqrt()
}

const MAJORS: [(OperandMajor, OperandMajor); 4] = [
    (OperandMajor::K, OperandMajor::K),
    (OperandMajor::K, OperandMajor::MN),
    (OperandMajor::MN, OperandMajor::K),
    (OperandMajor::MN, OperandMajor::MN),
];

/// (M, N, K): K not a multiple of 64 (8 and 72 are one partial tile and one
/// full plus a partial), single rows and columns, K past several stages.
const RAGGED_K: [(usize, usize, usize); 7] = [
    (1, 1, 72),
    (1, 300, 200),
    (300, 1, 1000),
    (129, 257, 72),
    (64, 64, 8),
    (255, 129, 136),
    (37, 45, 584),
];

fn check(test: &str, failures: &mut Vec<String>, case: Case, err: f64, tol: f64) {
    eprintln!("{test} {case:?}: error {err:.2e} (tolerance {tol:.0e})");
    if err.is_nan() || err > tol {
        failures.push(format!("{case:?}: error {err:.2e} > {tol:.0e}"));
    }
}

#[test]
fn ragged_k_on_exact_buffers_reads_only_inside_them() {
    let test = "ragged_k_on_exact_buffers_reads_only_inside_them";
    let Some(device) = device_or_skip(test) else {
        return;
    };
    let linear = Fused {
        epilogue: Epilogue::default(),
        scalars: vec![],
    };
    let mut failures = Vec::new();
    for (i, &(m, n, k)) in RAGGED_K.iter().enumerate() {
        for (j, &(a_major, b_major)) in MAJORS.iter().enumerate() {
            let d_major = if (i + j) % 2 == 0 {
                OutputMajor::N
            } else {
                OutputMajor::M
            };
            let case = Case {
                m,
                n,
                k,
                a_major,
                b_major,
                d_major,
            };
            let err = run::<bf16, bf16>(&device, case, &linear, 100 + 10 * i as u64);
            check(test, &mut failures, case, err, 1e-2);
        }
    }
    // tf32 with ld = K = 36 (a partial 32-wide tile), every operand major
    // (MN-major operands load their fragments with 32-bit ld.shared).
    for (j, &(a_major, b_major)) in MAJORS.iter().enumerate() {
        for (m, n) in [(1, 1), (77, 130)] {
            let case = Case {
                m,
                n,
                k: 36,
                a_major,
                b_major,
                d_major: if j % 2 == 0 {
                    OutputMajor::N
                } else {
                    OutputMajor::M
                },
            };
            let err = run::<f32, f32>(&device, case, &linear, 7 + j as u64);
            check(test, &mut failures, case, err, 3e-3);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn fused_sweep<I: Host, O: Host>(test: &str, fused: &Fused, tol: f64) {
    fused_sweep_on::<I, O>(test, fused, tol, Pin::default())
}

/// [`fused_sweep`] with `pin`'s choices.
fn fused_sweep_on<I: Host, O: Host>(test: &str, fused: &Fused, tol: f64, pin: Pin) {
    let Some(device) = device_or_skip(test) else {
        return;
    };
    let mut failures = Vec::new();
    let mut shapes = vec![(300, 200, 72), (1, 129, 64), (129, 1, 136), (256, 512, 128)];
    if pin.decomposition.is_some() {
        // Few tiles and a long K: tiles shared by several units.
        shapes.extend([(300, 250, 5000), (16, 1000, 4096)]);
    }
    if pin.swap_ab.is_some() {
        // Small M with a long K (split), and M past swap-AB's narrow tiles.
        shapes.extend([
            (16, 1000, 4096),
            (5, 700, 1000),
            (300, 90, 200),
            (70, 520, 64),
        ]);
    }
    for (i, &(m, n, k)) in shapes.iter().enumerate() {
        for d_major in [OutputMajor::N, OutputMajor::M] {
            let (a_major, b_major) = MAJORS[i % 4];
            let case = Case {
                m,
                n,
                k,
                a_major,
                b_major,
                d_major,
            };
            let err = run_on::<I, O>(&device, case, fused, 40 + i as u64, pin);
            check(test, &mut failures, case, err, tol);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn relu_of_linear_combination_plus_row_bias_matches_the_host() {
    let e = Expression::from_fn(|acc: Expr, c: Expr, bias: Expr| {
        (acc * scalar(0) + c * scalar(1) + bias).relu()
    });
    let fused = Fused {
        epilogue: Epilogue::new(e, &[BiasAxis::Row]).unwrap(),
        scalars: vec![],
    };
    fused_sweep::<bf16, bf16>(
        "relu_of_linear_combination_plus_row_bias_matches_the_host",
        &fused,
        1e-2,
    );
}

#[test]
fn gelu_with_column_bias_matches_the_host() {
    let e = Expression::from_fn(|acc: Expr, _c: Expr, bias: Expr| (acc * scalar(0) + bias).gelu());
    let fused = Fused {
        epilogue: Epilogue::new(e, &[BiasAxis::Column]).unwrap(),
        scalars: vec![],
    };
    fused_sweep::<f16, f32>("gelu_with_column_bias_matches_the_host", &fused, 3e-3);
}

#[test]
fn custom_closure_with_two_biases_and_extra_scalars_matches_the_host() {
    let e = Expression::from_fn(|acc: Expr, c: Expr, row: Expr, col: Expr| {
        let x = acc * scalar(0) + c * scalar(1) + row * col;
        x.gt(scalar(2)).select(x.clone() * scalar(3), x.sigmoid())
    });
    let fused = Fused {
        epilogue: Epilogue::new(e, &[BiasAxis::Row, BiasAxis::Column]).unwrap(),
        scalars: vec![0.25, 2.5],
    };
    fused_sweep::<bf16, f32>(
        "custom_closure_with_two_biases_and_extra_scalars_matches_the_host",
        &fused,
        3e-3,
    );
}

/// tf32 (f32 data) with row and column biases through every operand
/// major: an M-major A runs the `_RS` mainloop (A through registers), whose
/// TMA-store epilogue reads its vectors at the store's start.
#[test]
fn tf32_with_row_and_column_biases_matches_the_host() {
    let e = Expression::from_fn(|acc: Expr, c: Expr, row: Expr, col: Expr| {
        (acc * scalar(0) + c * scalar(1) + row * col).relu()
    });
    let fused = Fused {
        epilogue: Epilogue::new(e, &[BiasAxis::Row, BiasAxis::Column]).unwrap(),
        scalars: vec![],
    };
    fused_sweep::<f32, f32>(
        "tf32_with_row_and_column_biases_matches_the_host",
        &fused,
        3e-3,
    );
}

/// The pick's kernel for each `(m, n, k, part)` (bf16 K-major A and B into
/// f32, both D majors), its name containing `part`, with the fused relu of
/// alpha·acc + beta·C + row bias x column bias, against the host; the
/// inputs' seeds count from `seed`.
fn the_pick_fuses_row_and_column_biases(
    test: &str,
    shapes: &[(usize, usize, usize, &'static str)],
    seed: u64,
) {
    let Some(device) = device_or_skip(test) else {
        return;
    };
    let e = Expression::from_fn(|acc: Expr, c: Expr, row: Expr, col: Expr| {
        (acc * scalar(0) + c * scalar(1) + row * col).relu()
    });
    let fused = Fused {
        epilogue: Epilogue::new(e, &[BiasAxis::Row, BiasAxis::Column]).unwrap(),
        scalars: vec![],
    };
    let mut failures = Vec::new();
    for (i, &(m, n, k, part)) in shapes.iter().enumerate() {
        let pin = Pin {
            picks: Some(part),
            ..Pin::default()
        };
        for d_major in [OutputMajor::N, OutputMajor::M] {
            let case = Case {
                m,
                n,
                k,
                a_major: OperandMajor::K,
                b_major: OperandMajor::K,
                d_major,
            };
            let err = run_on::<bf16, f32>(&device, case, &fused, seed + i as u64, pin);
            check(test, &mut failures, case, err, 3e-3);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The GEMV kernel the pick runs for M up to 16 (K-major A and B): ragged
/// M (8- and 16-row tiles), N and K (K not a multiple of the 32-element
/// k-step), both D majors, a fused epilogue with row and column
/// biases, against the host; 2 x 1032 x 4104 runs the
/// ring form (8 rows, K past 4096), and past K = 4 N 3 x 300 x 4104 and
/// 7 x 40 x 16384 its 8-column blocks, 5 x 700 x 6000 and 4 x 600 x 12000
/// its 16-column ones.
#[test]
fn the_gemv_pick_fuses_the_epilogue_for_a_few_rows() {
    let gemv = |m, n, k| (m, n, k, "_gemv");
    the_pick_fuses_row_and_column_biases(
        "the_gemv_pick_fuses_the_epilogue_for_a_few_rows",
        &[
            gemv(1, 4096, 1024),
            gemv(3, 1000, 1000),
            gemv(8, 129, 40),
            gemv(13, 1040, 2056),
            gemv(16, 24, 8),
            gemv(2, 1032, 4104),
            gemv(3, 300, 4104),
            gemv(5, 700, 6000),
            gemv(7, 40, 16384),
            gemv(4, 600, 12000),
        ],
        90,
    );
}

/// Swap-AB's 64-row ping-pong tiles, as the pick runs them for a few rows
/// and a long K: with their 16-stage ring 3 x 4090 x 8200 in 2 splits of K
/// (where the cooperative 128-row kernel would take 4) and 5 x 8190 x 8200
/// unsplit (where it would take 2); where the GEMV gives way to them, 11 x
/// 2000 x 8200 in 4 splits and 7 x 4200 x 2040 unsplit; ragged M, N and K,
/// both D majors, a fused epilogue with row and column biases, against the
/// host.
#[test]
fn the_swapped_pick_s_deep_ping_pong_tiles_fuse_the_epilogue() {
    the_pick_fuses_row_and_column_biases(
        "the_swapped_pick_s_deep_ping_pong_tiles_fuse_the_epilogue",
        &[
            (
                3,
                4090,
                8200,
                "_64x16x64_w4x1x1_s16_pingpong_c1x1_epi_nosmem_splitk2",
            ),
            (
                5,
                8190,
                8200,
                "_64x16x64_w4x1x1_s16_pingpong_c1x1_epi_nosmem",
            ),
            (
                11,
                2000,
                8200,
                "_64x16x64_w4x1x1_s8_pingpong_c1x1_epi_nosmem_splitk4",
            ),
            (
                7,
                4200,
                2040,
                "_64x16x64_w4x1x1_s16_pingpong_c1x1_epi_nosmem",
            ),
        ],
        120,
    );
}

/// The atomic reduction of split-K and stream-K (`Reduction::Atomic`):
/// the fused sweep's shapes (few tiles with a long K among them), each run
/// three times on one GEMM and its workspace before D is checked, so that a
/// finisher that left its tile of partial sums dirty fails the next run.
#[test]
fn atomic_reductions_match_the_host_run_after_run() {
    const NAME: &str = "atomic_reductions_match_the_host_run_after_run";
    let e = Expression::from_fn(|acc: Expr, c: Expr, row: Expr, col: Expr| {
        acc * scalar(0) + c * scalar(1) + row - col
    });
    let fused = Fused {
        epilogue: Epilogue::new(e, &[BiasAxis::Row, BiasAxis::Column]).unwrap(),
        scalars: vec![],
    };
    use cutlet::device::gemm::{Decomposition, Reduction};
    for decomposition in [
        Decomposition::SplitK(3),
        Decomposition::SplitK(8),
        Decomposition::StreamK,
    ] {
        let pin = Pin {
            decomposition: Some(decomposition),
            reduction: Some(Reduction::Atomic),
            runs: 3,
            ..Pin::default()
        };
        fused_sweep_on::<bf16, f32>(NAME, &fused, 3e-3, pin);
    }
}

#[test]
fn a_short_bias_or_a_missing_scalar_is_a_typed_error() {
    let Some(device) = device_or_skip("a_short_bias_or_a_missing_scalar_is_a_typed_error") else {
        return;
    };
    let stream = device.default_stream();
    let e = Expression::from_fn(|acc: Expr, _c: Expr, bias: Expr| acc * scalar(2) + bias);
    let gemm = Gemm::builder()
        .a(ElementType::BF16, OperandMajor::K)
        .b(ElementType::BF16, OperandMajor::K)
        .d(ElementType::BF16, OutputMajor::N)
        .epilogue(Epilogue::new(e, &[BiasAxis::Column]).unwrap())
        .build(&device)
        .unwrap();
    let (m, n, k) = (16, 64, 8);
    let a = stream.alloc_zeros::<bf16>(m * k).unwrap();
    let b = stream.alloc_zeros::<bf16>(n * k).unwrap();
    let bias = stream.alloc_zeros::<bf16>(n - 1).unwrap();
    let mut d = stream.alloc_zeros::<bf16>(m * n).unwrap();
    let shape = GemmShape::new(m, n, k, 1);
    let args = |d| {
        Arguments::in_place(
            shape,
            Operand::new(a.as_view(), k, 0),
            Operand::new(b.as_view(), k, 0),
            OutputOperand::new(d, n, 0),
            1.0,
            0.0,
        )
    };
    let full = stream.alloc_zeros::<bf16>(n).unwrap();
    let mut d2 = stream.alloc_zeros::<bf16>(m * n).unwrap();
    let mut short = args(d.as_view_mut())
        .with_biases(vec![bias.as_view()])
        .with_scalars(vec![1.0]);
    let err = gemm.run(&mut short, &stream).unwrap_err().to_string();
    assert!(err.contains("63") && err.contains("n = 64"), "{err}");
    let mut no_scalar = args(d2.as_view_mut()).with_biases(vec![full.as_view()]);
    let err = gemm.run(&mut no_scalar, &stream).unwrap_err().to_string();
    assert!(err.contains("extra scalars"), "{err}");
}

/// The fused epilogues on the Volta kernel (`.arch(ArchKind::Sm70)`, f16
/// inputs): relu with a row bias into f16, gelu with a column bias into f32.
#[test]
fn sm70_fused_epilogues_match_the_host() {
    let relu = Expression::from_fn(|acc: Expr, c: Expr, bias: Expr| {
        (acc * scalar(0) + c * scalar(1) + bias).relu()
    });
    let fused = Fused {
        epilogue: Epilogue::new(relu, &[BiasAxis::Row]).unwrap(),
        scalars: vec![],
    };
    fused_sweep_on::<f16, f16>(
        "sm70_fused_epilogues_match_the_host",
        &fused,
        1e-2,
        Pin {
            arch: Some(ArchKind::Sm70),
            swap_ab: None,
            decomposition: None,
            ..Pin::default()
        },
    );
    let gelu =
        Expression::from_fn(|acc: Expr, _c: Expr, bias: Expr| (acc * scalar(0) + bias).gelu());
    let fused = Fused {
        epilogue: Epilogue::new(gelu, &[BiasAxis::Column]).unwrap(),
        scalars: vec![],
    };
    fused_sweep_on::<f16, f32>(
        "sm70_fused_epilogues_match_the_host",
        &fused,
        3e-3,
        Pin {
            arch: Some(ArchKind::Sm70),
            swap_ab: None,
            decomposition: None,
            ..Pin::default()
        },
    );
}

/// Swap-AB pinned on and off, with a row and a column bias, C, extra
/// scalars and every major of A, B and D: the same results as the host
/// (biases exchange axes in the transposed kernel; D is written through
/// the other major). Small M with long K (split), and M past the narrow
/// tiles (the transposed problem's own pick). SM90 only: elsewhere the
/// swap is refused.
#[test]
fn swap_ab_pinned_on_and_off_matches_the_host() {
    const NAME: &str = "swap_ab_pinned_on_and_off_matches_the_host";
    let Some(device) = device_or_skip(NAME) else {
        return;
    };
    if device.compute_capability() != (9, 0) {
        println!("{NAME}: skipped: swap-AB runs on the SM90 kernels (compute capability 9.0)");
        return;
    }
    let e = Expression::from_fn(|acc: Expr, c: Expr, row: Expr, col: Expr| {
        (acc * scalar(0) + c * scalar(1) + row * scalar(2) + col * scalar(3)).relu()
    });
    let fused = Fused {
        epilogue: Epilogue::new(e, &[BiasAxis::Row, BiasAxis::Column]).unwrap(),
        scalars: vec![0.5, -2.0],
    };
    for swap in [true, false] {
        let pin = Pin {
            arch: None,
            swap_ab: Some(swap),
            decomposition: None,
            ..Pin::default()
        };
        fused_sweep_on::<bf16, bf16>(NAME, &fused, 1e-2, pin);
        fused_sweep_on::<f16, f32>(NAME, &fused, 3e-3, pin);
    }
}

/// Split-K and stream-K pinned, with a row and a column bias, C, extra
/// scalars and every major of A, B and D: the epilogue runs once per
/// element on the whole sum (a bias or C added by every unit would show
/// as a multiple of it). SM90 only: elsewhere they are refused.
#[test]
fn split_k_and_stream_k_fuse_the_epilogue_after_the_reduction() {
    const NAME: &str = "split_k_and_stream_k_fuse_the_epilogue_after_the_reduction";
    let Some(device) = device_or_skip(NAME) else {
        return;
    };
    if device.compute_capability() != (9, 0) {
        println!("{NAME}: skipped: split-K and stream-K run on the SM90 kernels (compute capability 9.0)");
        return;
    }
    let e = Expression::from_fn(|acc: Expr, c: Expr, row: Expr, col: Expr| {
        (acc * scalar(0) + c * scalar(1) + row * scalar(2) + col * scalar(3)).relu()
    });
    let fused = Fused {
        epilogue: Epilogue::new(e, &[BiasAxis::Row, BiasAxis::Column]).unwrap(),
        scalars: vec![0.5, -2.0],
    };
    use cutlet::device::gemm::Decomposition;
    for decomposition in [Decomposition::SplitK(3), Decomposition::StreamK] {
        let pin = Pin {
            arch: None,
            swap_ab: None,
            decomposition: Some(decomposition),
            ..Pin::default()
        };
        fused_sweep_on::<bf16, bf16>(NAME, &fused, 1e-2, pin);
        fused_sweep_on::<f16, f32>(NAME, &fused, 3e-3, pin);
    }
}
