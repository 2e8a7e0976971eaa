//! FP8 outputs and D's amax on the SM90 kernels: e4m3 and e5m2 D with an
//! output scale (saturating), the amax of the results before the scale,
//! row- and column-major D, ragged shapes, C read in FP8, the builder's
//! picks (swap-AB at a decode shape, split-K), a bf16 D with an amax, the
//! amax reset between runs, and the errors of missing or unexpected
//! output arguments.
//!
//! The inputs are small integers, which FP8 holds exactly and f32 sums
//! exactly; the output scales are powers of two, so each scaled result is
//! exact in f32 and the host's rounding to FP8 is the kernel's.

use cutlet::device::gemm::{Arguments, Decomposition, Gemm, GemmShape, Operand, OutputOperand};
use cutlet::device::Device;
use cutlet::float8::{F8E4M3, F8E5M2};
use cutlet::gemm::{OperandMajor, OutputMajor};
use cutlet::half::bf16;
use cutlet::numeric::ElementType;
use cutlet_harness::{packed_product, sm90_or_skip, small_ints};

/// An FP8 output type: its conversion from f64 as the kernel's
/// `cvt.rn.satfinite` does it (nearest even, clamped to the largest finite
/// value), and back.
trait Fp8Out: cutlet::numeric::Element + cudarc::driver::DeviceRepr + Copy {
    const LARGEST: f64;
    fn saturated(v: f64) -> Self;
    fn value(self) -> f64;
}
impl Fp8Out for F8E4M3 {
    const LARGEST: f64 = 448.0;
    fn saturated(v: f64) -> Self {
        F8E4M3::from_f64(v.clamp(-Self::LARGEST, Self::LARGEST))
    }
    fn value(self) -> f64 {
        self.to_f64()
    }
}
impl Fp8Out for F8E5M2 {
    const LARGEST: f64 = 57344.0;
    fn saturated(v: f64) -> Self {
        F8E5M2::from_f64(v.clamp(-Self::LARGEST, Self::LARGEST))
    }
    fn value(self) -> f64 {
        self.to_f64()
    }
}

/// One case: the shape, D's major, alpha, beta (C read from D's buffer,
/// which holds FP8 values of C first), the output scale, and the builder's
/// decomposition.
struct Case {
    shape: (usize, usize, usize),
    major: OutputMajor,
    alpha: f64,
    beta: f64,
    scale: f32,
    decomposition: Option<Decomposition>,
    /// Fast accumulation, or promotion every 128 of K.
    fast: bool,
}

/// Runs `case` with an FP8 D of type `D`, output scale and amax, and checks
/// every element and the amax against the host.
fn check<D: Fp8Out>(device: &Device, case: &Case) {
    let (m, n, k) = case.shape;
    let stream = device.default_stream();
    let (a_host, b_host) = (small_ints(m * k, 5), small_ints(n * k, 6));
    let c_host = small_ints(m * n, 7);
    let e4m3 =
        |values: &[f64]| -> Vec<F8E4M3> { values.iter().map(|&v| F8E4M3::from_f64(v)).collect() };
    let a = stream.clone_htod(&e4m3(&a_host)).unwrap();
    let b = stream.clone_htod(&e4m3(&b_host)).unwrap();
    let ldd = match case.major {
        OutputMajor::N => n,
        OutputMajor::M => m,
    };
    let at = |i: usize, j: usize| match case.major {
        OutputMajor::N => i * n + j,
        OutputMajor::M => j * m + i,
    };
    let mut d_init = vec![D::saturated(0.0); m * n];
    for i in 0..m {
        for j in 0..n {
            d_init[at(i, j)] = D::saturated(c_host[i * n + j]);
        }
    }
    let mut d = stream.clone_htod(&d_init).unwrap();
    let scale = stream.clone_htod(&[case.scale]).unwrap();
    let mut amax = stream.clone_htod(&[f32::NAN]).unwrap();
    let mut builder = Gemm::builder()
        .a(ElementType::F8E4M3, OperandMajor::K)
        .b(ElementType::F8E4M3, OperandMajor::K)
        .d(D::TYPE, case.major)
        .fast_accumulation(case.fast)
        .d_scale(true)
        .d_amax(true);
    if let Some(decomposition) = case.decomposition {
        builder = builder.decomposition(decomposition);
    }
    let gemm = builder.build(device).unwrap();
    let mut args = Arguments::in_place(
        GemmShape::new(m, n, k, 1),
        Operand::new(a.as_view(), k, 0),
        Operand::new(b.as_view(), k, 0),
        OutputOperand::new(d.as_view_mut(), ldd, 0),
        case.alpha,
        case.beta,
    )
    .with_d_scale(scale.as_view())
    .with_d_amax(amax.as_view_mut());
    gemm.run(&mut args, &stream).unwrap();
    let got = stream.clone_dtoh(&d).unwrap();
    let got_amax = stream.clone_dtoh(&amax).unwrap()[0];
    let mut want_amax = 0.0f64;
    let mut saturated = 0;
    for i in 0..m {
        for j in 0..n {
            let sum: f64 = (0..k)
                .map(|kk| a_host[i * k + kk] * b_host[j * k + kk])
                .sum();
            let r = case.alpha * sum + case.beta * D::saturated(c_host[i * n + j]).value();
            want_amax = want_amax.max(r.abs());
            let scaled = r * f64::from(case.scale);
            saturated += usize::from(scaled.abs() > D::LARGEST);
            let want = D::saturated(scaled).value();
            assert_eq!(
                got[at(i, j)].value(),
                want,
                "{} D {:?} {m}x{n}x{k} alpha {} beta {} scale {}: D[{i}][{j}] (r = {r})",
                D::TYPE,
                case.major,
                case.alpha,
                case.beta,
                case.scale
            );
        }
    }
    assert_eq!(
        f64::from(got_amax),
        want_amax,
        "{} D {m}x{n}x{k}: amax",
        D::TYPE
    );
    println!(
        "{} D {:?} {m}x{n}x{k}: amax {want_amax}, {saturated} saturated",
        D::TYPE,
        case.major
    );
}

#[test]
fn fp8_outputs_are_scaled_saturated_and_give_the_amax() {
    let Some(device) = sm90_or_skip(
        "fp8_outputs_are_scaled_saturated_and_give_the_amax",
        "FP8 GEMMs",
    ) else {
        return;
    };
    let case = |shape, major, alpha, beta, scale, decomposition| Case {
        shape,
        major,
        alpha,
        beta,
        scale,
        decomposition,
        fast: true,
    };
    let cases = [
        case((256, 256, 256), OutputMajor::N, 1.0, 0.0, 0.25, None),
        // Scaled past 448: saturated.
        case((200, 136, 512), OutputMajor::N, 1.0, 0.0, 16.0, None),
        case((200, 136, 512), OutputMajor::M, 0.5, 0.0, 2.0, None),
        // C read in FP8 from D's buffer; N ragged (a row-major FP8 D's
        // leading dimension is even: its column pairs are 16-bit stores).
        case((129, 66, 96), OutputMajor::N, 1.0, 1.0, 0.5, None),
        case((1000, 1000, 1024), OutputMajor::N, 1.0, 0.0, 0.125, None),
        // A decode shape (swap-AB) and split-K.
        case((16, 4096, 1024), OutputMajor::N, 1.0, 0.0, 0.25, None),
        case(
            (256, 256, 4096),
            OutputMajor::N,
            1.0,
            0.0,
            0.0625,
            Some(Decomposition::SplitK(4)),
        ),
    ];
    for c in &cases {
        check::<F8E4M3>(&device, c);
    }
    // The promoting FP8 mainloop.
    check::<F8E4M3>(
        &device,
        &Case {
            fast: false,
            ..case((300, 264, 1024), OutputMajor::N, 1.0, 0.0, 0.5, None)
        },
    );
    check::<F8E5M2>(&device, &cases[1]);
    check::<F8E5M2>(&device, &cases[3]);
}

/// A bf16 D with an amax and no scale: D as without one, the amax the
/// largest magnitude; a second run on smaller inputs gets its own amax,
/// not the first run's.
#[test]
fn the_amax_of_a_bf16_output_is_reset_on_each_run() {
    let Some(device) = sm90_or_skip("the_amax_of_a_bf16_output_is_reset_on_each_run", "amax")
    else {
        return;
    };
    let stream = device.default_stream();
    let (m, n, k) = (300, 200, 128);
    let gemm = Gemm::builder()
        .a(ElementType::BF16, OperandMajor::K)
        .b(ElementType::BF16, OperandMajor::K)
        .d(ElementType::BF16, OutputMajor::N)
        .d_amax(true)
        .build(&device)
        .unwrap();
    let mut amax = stream.alloc_zeros::<f32>(1).unwrap();
    for (factor, seed) in [(4.0, 8), (1.0, 9)] {
        let (a_host, b_host) = (small_ints(m * k, seed), small_ints(n * k, seed + 10));
        let to_bf16 =
            |v: &[f64], f: f64| v.iter().map(|&x| bf16::from_f64(x * f)).collect::<Vec<_>>();
        let a = stream.clone_htod(&to_bf16(&a_host, factor)).unwrap();
        let b = stream.clone_htod(&to_bf16(&b_host, 1.0)).unwrap();
        let mut d = stream.alloc_zeros::<bf16>(m * n).unwrap();
        let mut args =
            packed_product((m, n, k), &a, &b, &mut d, n, 1.0).with_d_amax(amax.as_view_mut());
        gemm.run(&mut args, &stream).unwrap();
        let got = stream.clone_dtoh(&d).unwrap();
        let mut want = 0.0f64;
        for i in 0..m {
            for j in 0..n {
                let r: f64 = (0..k)
                    .map(|kk| factor * a_host[i * k + kk] * b_host[j * k + kk])
                    .sum();
                want = want.max(r.abs());
                assert_eq!(
                    got[i * n + j],
                    bf16::from_f64(r),
                    "factor {factor}: D[{i}][{j}]"
                );
            }
        }
        let got_amax = stream.clone_dtoh(&amax).unwrap()[0];
        assert_eq!(f64::from(got_amax), want, "factor {factor}: amax");
    }
}

/// A GEMM built with an output scale or amax refuses arguments without
/// them, and one built without refuses them; nothing is written.
#[test]
fn output_scale_and_amax_arguments_must_match_the_gemm() {
    let Some(device) = sm90_or_skip(
        "output_scale_and_amax_arguments_must_match_the_gemm",
        "FP8 GEMMs",
    ) else {
        return;
    };
    let stream = device.default_stream();
    let (m, n, k) = (128, 128, 128);
    let a = stream.alloc_zeros::<F8E4M3>(m * k).unwrap();
    let b = stream.alloc_zeros::<F8E4M3>(n * k).unwrap();
    let sentinel = F8E4M3::from_f64(3.0);
    let mut d = stream.clone_htod(&vec![sentinel; m * n]).unwrap();
    let scale = stream.clone_htod(&[1.0f32]).unwrap();
    let empty = stream.alloc_zeros::<f32>(0);
    let mut amax = stream.clone_htod(&[7.0f32]).unwrap();
    let built = |scale: bool, amax: bool| {
        Gemm::builder()
            .a(ElementType::F8E4M3, OperandMajor::K)
            .b(ElementType::F8E4M3, OperandMajor::K)
            .d(ElementType::F8E4M3, OutputMajor::N)
            .d_scale(scale)
            .d_amax(amax)
            .build(&device)
            .unwrap()
    };
    // Built with both, given neither.
    let err = built(true, true)
        .run(
            &mut packed_product((m, n, k), &a, &b, &mut d, n, 1.0),
            &stream,
        )
        .unwrap_err();
    assert!(
        matches!(err, cutlet::Error::InvalidArgument { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("d_scale"), "{err}");
    // Built with the scale only, given an amax too.
    let mut extra = packed_product((m, n, k), &a, &b, &mut d, n, 1.0)
        .with_d_scale(scale.as_view())
        .with_d_amax(amax.as_view_mut());
    let err = built(true, false).run(&mut extra, &stream).unwrap_err();
    assert!(err.to_string().contains("d_amax"), "{err}");
    // An empty scale buffer.
    if let Ok(empty) = &empty {
        let mut short =
            packed_product((m, n, k), &a, &b, &mut d, n, 1.0).with_d_scale(empty.as_view());
        let err = built(true, false).run(&mut short, &stream).unwrap_err();
        assert!(err.to_string().contains("d_scale length"), "{err}");
    }
    let got = stream.clone_dtoh(&d).unwrap();
    assert!(got.iter().all(|&x| x == sentinel), "D was written");
    assert_eq!(
        stream.clone_dtoh(&amax).unwrap()[0],
        7.0,
        "the amax was written"
    );
}
