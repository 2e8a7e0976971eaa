//! The GEMM device layer's edge cases on a real GPU: a misaligned view, zero
//! sizes (nothing written), K = 0 (D = beta · C), the product without C,
//! scalar checks, and the same host contract on every front door.

mod common;

use cudarc::driver::CudaSlice;
use cutlet::device::gemm::{
    Arguments, DefaultBf16Sm80, Gemm, GemmShape, GemmUniversalAdapter, Operand, OutputOperand,
};
use cutlet::device::JitTier;
use cutlet::kernel::gemm::OperandMajor;
use cutlet::numeric::ElementType::{BF16, F16, F32};
use cutlet::Error;
use half::bf16;

use cutlet_harness::device_or_skip;

fn values(len: usize, start: f32) -> Vec<bf16> {
    (0..len)
        .map(|i| bf16::from_f32(start + (i % 17) as f32 * 0.25))
        .collect()
}

#[test]
fn a_view_at_offset_one_is_a_misaligned_pointer() {
    let Some(device) = device_or_skip("a_view_at_offset_one_is_a_misaligned_pointer") else {
        return;
    };
    let stream = device.default_stream();
    let (m, n, k) = (64, 64, 64);
    let a = stream.clone_htod(&values(m * k + 1, 0.0)).unwrap();
    let b = stream.clone_htod(&values(n * k, 0.0)).unwrap();
    let mut d = stream.alloc_zeros::<bf16>(m * n).unwrap();
    let gemm = GemmUniversalAdapter::<DefaultBf16Sm80>::new(&device);
    let mut args = Arguments::in_place(
        GemmShape::new(m, n, k, 1),
        Operand::new(a.slice(1..), k, 0),
        Operand::new(b.as_view(), k, 0),
        OutputOperand::new(d.as_view_mut(), n, 0),
        1.0,
        0.0,
    );
    let err = gemm.run(&mut args, &stream).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("a (device address)") && text.contains("16-byte aligned"),
        "{text}"
    );
    assert_eq!(gemm.can_implement(&args).unwrap_err().to_string(), text);
}

#[test]
fn zero_sizes_write_nothing_and_k_zero_writes_beta_c() {
    let Some(device) = device_or_skip("zero_sizes_write_nothing_and_k_zero_writes_beta_c") else {
        return;
    };
    let stream = device.default_stream();
    let (m, n, k) = (40, 24, 16);
    let a = stream.clone_htod(&values(m * k, 0.5)).unwrap();
    let b = stream.clone_htod(&values(n * k, -0.5)).unwrap();
    let host_c = values(m * n, 1.0);
    let c = stream.clone_htod(&host_c).unwrap();
    let poison = vec![bf16::from_f32(f32::NAN); m * n];
    let mut d = stream.clone_htod(&poison).unwrap();
    let gemm = Gemm::builder().build(&device).unwrap();
    let run = |shape: GemmShape, d: &mut CudaSlice<bf16>| {
        let mut args = Arguments::new(
            shape,
            Operand::new(a.as_view(), k, 0),
            Operand::new(b.as_view(), k, 0),
            Operand::new(c.as_view(), n, 0),
            OutputOperand::new(d.as_view_mut(), n, 0),
            1.5,
            -2.0,
        );
        gemm.run(&mut args, &stream).unwrap();
    };
    for shape in [
        GemmShape::new(0, n, k, 1),
        GemmShape::new(m, 0, k, 1),
        GemmShape::new(m, n, k, 0),
    ] {
        run(shape, &mut d);
    }
    let untouched = stream.clone_dtoh(&d).unwrap();
    assert!(
        untouched.iter().all(|v| v.is_nan()),
        "a zero-size problem wrote D"
    );
    run(GemmShape::new(m, n, 0, 1), &mut d);
    let got = stream.clone_dtoh(&d).unwrap();
    for (index, (g, c)) in got.iter().zip(&host_c).enumerate() {
        let want = bf16::from_f32(-2.0 * c.to_f32());
        assert_eq!(*g, want, "element {index}: K = 0 gives D = beta * C");
    }
}

/// `Arguments::product` never reads D: a D poisoned with NaN comes out as
/// exactly A · B (quarter-step values: every product and sum is exact in
/// f32, and the one rounding to bf16 is the host's).
#[test]
fn product_writes_a_times_b_without_reading_d() {
    let Some(device) = device_or_skip("product_writes_a_times_b_without_reading_d") else {
        return;
    };
    let stream = device.default_stream();
    let (m, n, k) = (40, 24, 16);
    let (host_a, host_b) = (values(m * k, 0.5), values(n * k, -0.5));
    let a = stream.clone_htod(&host_a).unwrap();
    let b = stream.clone_htod(&host_b).unwrap();
    let mut d = stream
        .clone_htod(&vec![bf16::from_f32(f32::NAN); m * n])
        .unwrap();
    let gemm = GemmUniversalAdapter::<DefaultBf16Sm80>::new(&device);
    let mut args = Arguments::product(
        GemmShape::new(m, n, k, 1),
        Operand::new(a.as_view(), k, 0),
        Operand::new(b.as_view(), k, 0),
        OutputOperand::new(d.as_view_mut(), n, 0),
        2.0,
    );
    gemm.run(&mut args, &stream).unwrap();
    drop(args);
    let got = stream.clone_dtoh(&d).unwrap();
    for i in 0..m {
        for j in 0..n {
            let dot: f32 = (0..k)
                .map(|p| host_a[i * k + p].to_f32() * host_b[j * k + p].to_f32())
                .sum();
            assert_eq!(got[i * n + j], bf16::from_f32(2.0 * dot), "d[{i}][{j}]");
        }
    }
}

/// A NaN, infinite or f32-overflowing alpha, beta or epilogue scalar is an
/// `InvalidArgument` naming it, from `can_implement` and `run` of every
/// front door, unless `check_scalars(false)` lets it through.
#[test]
fn non_finite_scalars_are_errors_unless_checks_are_off() {
    let Some(device) = device_or_skip("non_finite_scalars_are_errors_unless_checks_are_off") else {
        return;
    };
    let stream = device.default_stream();
    let (m, n, k) = (16, 16, 16);
    let a = stream.clone_htod(&values(m * k, 0.5)).unwrap();
    let b = stream.clone_htod(&values(n * k, 0.5)).unwrap();
    let mut d = stream.alloc_zeros::<bf16>(m * n).unwrap();
    let mut args = Arguments::in_place(
        GemmShape::new(m, n, k, 1),
        Operand::new(a.as_view(), k, 0),
        Operand::new(b.as_view(), k, 0),
        OutputOperand::new(d.as_view_mut(), n, 0),
        1.0,
        0.0,
    );
    let adapter = GemmUniversalAdapter::<DefaultBf16Sm80>::new(&device);
    let gemm = Gemm::builder().build(&device).unwrap();
    let typed = Gemm::builder()
        .build_typed::<bf16, bf16, bf16>(&device)
        .unwrap();
    for (alpha, beta, name, shown) in [
        (f64::NAN, 0.0, "alpha", "NaN"),
        (1.0, f64::INFINITY, "beta", "inf"),
        (1e300, 0.0, "alpha", "1e300"),
    ] {
        (args.alpha, args.beta) = (alpha, beta);
        let errors = [
            adapter.can_implement(&args).unwrap_err(),
            adapter.run(&mut args, &stream).unwrap_err(),
            gemm.can_implement(&args).unwrap_err(),
            gemm.run(&mut args, &stream).unwrap_err(),
            typed.can_implement(&args).unwrap_err(),
            typed.run(&mut args, &stream).unwrap_err(),
        ];
        for err in errors {
            assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
            let text = err.to_string();
            assert!(text.contains(&format!("`{name}` = {shown}")), "{text}");
        }
    }
    let unchecked = GemmUniversalAdapter::<DefaultBf16Sm80>::new(&device).check_scalars(false);
    (args.alpha, args.beta) = (f64::NAN, 0.0);
    unchecked.can_implement(&args).unwrap();
    unchecked.run(&mut args, &stream).unwrap();
    drop(args);
    let got = stream.clone_dtoh(&d).unwrap();
    assert!(
        got.iter().all(|v| v.is_nan()),
        "alpha NaN reached the kernel"
    );
}

/// The three front doors offer the same calls: `initialize` returns the
/// compiled kernel, whose `wait_optimized` leaves the optimized compile in
/// use, and `wait_optimized` on the GEMM itself does the same.
#[test]
fn every_front_door_initializes_and_waits_for_the_optimized_kernel() {
    let Some(device) =
        device_or_skip("every_front_door_initializes_and_waits_for_the_optimized_kernel")
    else {
        return;
    };
    let stream = device.default_stream();
    let (m, n, k) = (16, 16, 16);
    let a = stream.clone_htod(&values(m * k, 0.5)).unwrap();
    let b = stream.clone_htod(&values(n * k, 0.5)).unwrap();
    let mut d = stream.alloc_zeros::<bf16>(m * n).unwrap();
    let args = Arguments::product(
        GemmShape::new(m, n, k, 1),
        Operand::new(a.as_view(), k, 0),
        Operand::new(b.as_view(), k, 0),
        OutputOperand::new(d.as_view_mut(), n, 0),
        1.0,
    );
    let adapter = GemmUniversalAdapter::<DefaultBf16Sm80>::new(&device);
    let gemm = Gemm::builder().build(&device).unwrap();
    let typed = Gemm::builder()
        .build_typed::<bf16, bf16, bf16>(&device)
        .unwrap();
    assert_eq!(adapter.workspace_size(&args), 0);
    assert_eq!(gemm.workspace_size(&args), 0);
    assert_eq!(typed.workspace_size(&args), 0);
    for kernel in [
        adapter.initialize(&args, None).unwrap(),
        gemm.initialize(&args, None).unwrap(),
        typed.initialize(&args, None).unwrap(),
    ] {
        kernel.wait_optimized().unwrap();
        assert_eq!(kernel.tier(), JitTier::Optimized);
    }
    adapter.wait_optimized().unwrap();
    gemm.wait_optimized().unwrap();
    typed.wait_optimized().unwrap();
}

/// `build_typed` takes unset element types from its type parameters and
/// refuses a builder whose types disagree with them.
#[test]
fn build_typed_checks_the_builders_types_against_its_parameters() {
    let Some(device) =
        device_or_skip("build_typed_checks_the_builders_types_against_its_parameters")
    else {
        return;
    };
    let f16_gemm = Gemm::builder()
        .build_typed::<half::f16, half::f16, f32>(&device)
        .unwrap();
    let spec = f16_gemm.spec();
    assert_eq!((spec.types.a, spec.types.b, spec.types.d), (F16, F16, F32));
    let err = Gemm::builder()
        .a(BF16, OperandMajor::K)
        .build_typed::<half::f16, half::f16, half::f16>(&device)
        .unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
    assert!(err.to_string().contains("`a element type` = bf16"), "{err}");
}
