//! The cuBLASLt reference on the GPU against the host f64 reference: bf16
//! (bf16 out) and plain f32 (f32 out, `CUBLAS_COMPUTE_32F`, no tf32) at a
//! ragged shape with L = 2, alpha and beta not 0 or 1 (C is D, filled with
//! random values first), padded leading dimensions and batch strides, for
//! every major of A, B and D. Skips without a GPU, or without libcublasLt.
//!
//! Tolerances, as `max |got - want| / max |want|`: bf16 out, the harness's
//! `check_tolerance` (a few bf16 units in the last place); f32 out, 2e-5,
//! tight enough that a tf32 computation (10-bit mantissa inputs, about
//! 1e-4 here) would fail it.

use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr};
use cutlet::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand};
use cutlet::kernel::gemm::{GemmSpec, OperandMajor, OutputMajor};
use cutlet::numeric::ElementType;
use cutlet_harness::{
    check_tolerance, dense_output, device_or_skip, host_gemm, normalized_error, random_values,
    CublasLtGemm, Error, HostMatrix, HostValue,
};
use half::bf16;
use std::sync::Arc;

/// M, N, K, L: ragged, two batches.
const SHAPE: (usize, usize, usize, usize) = (37, 29, 45, 2);
const ALPHA: f64 = 1.5;
const BETA: f64 = -0.75;

/// The reference on `stream`, or `None` after printing why the test skips.
fn lt_or_skip(test: &str) -> Option<(CublasLtGemm, Arc<CudaStream>)> {
    let device = device_or_skip(test)?;
    let stream = device.default_stream();
    match CublasLtGemm::new(stream.clone()) {
        Ok(lt) => Some((lt, stream)),
        Err(Error::CublasLtMissing) => {
            eprintln!("skipped {test}: libcublasLt not found");
            None
        }
        Err(e) => panic!("{test}: cuBLASLt could not be set up: {e}"),
    }
}

fn spec(element: ElementType, a: OperandMajor, b: OperandMajor, d: OutputMajor) -> GemmSpec {
    Gemm::builder()
        .a(element, a)
        .b(element, b)
        .d(element, d)
        .accumulator(ElementType::F32)
        .spec()
        .expect("a buildable spec")
}

/// (ld, batch stride) of `strided` rows of `contiguous` elements, padded by
/// 3 elements per row and 5 per batch, so that neither is implied by the shape.
fn padded(strided: usize, contiguous: usize) -> (usize, usize) {
    let ld = contiguous + 3;
    (ld, ld * strided + 5)
}

fn upload<T: DeviceRepr>(stream: &Arc<CudaStream>, values: &[T]) -> CudaSlice<T> {
    stream.clone_htod(values).expect("a copy to the device")
}

/// Runs the reference on every major combination of `element` (stored as
/// `T`) and returns the worst normalized error.
fn worst_error<T: HostValue + DeviceRepr>(
    lt: &CublasLtGemm,
    stream: &Arc<CudaStream>,
    element: ElementType,
) -> f64 {
    let (m, n, k, l) = SHAPE;
    let shape = GemmShape::new(m, n, k, l);
    let mut worst = 0.0f64;
    for a_major in [OperandMajor::K, OperandMajor::MN] {
        for b_major in [OperandMajor::K, OperandMajor::MN] {
            for d_major in [OutputMajor::N, OutputMajor::M] {
                let spec = spec(element, a_major, b_major, d_major);
                let (lda, batch_a) = match a_major {
                    OperandMajor::K => padded(m, k),
                    OperandMajor::MN => padded(k, m),
                };
                let (ldb, batch_b) = match b_major {
                    OperandMajor::K => padded(n, k),
                    OperandMajor::MN => padded(k, n),
                };
                let (ldd, batch_d) = match d_major {
                    OutputMajor::N => padded(m, n),
                    OutputMajor::M => padded(n, m),
                };
                let host_a = random_values::<T>(batch_a * l, 11);
                let host_b = random_values::<T>(batch_b * l, 12);
                let host_c = random_values::<T>(batch_d * l, 13);
                let (a, b) = (upload(stream, &host_a), upload(stream, &host_b));
                let mut d = upload(stream, &host_c);
                let mut args = Arguments::in_place(
                    shape,
                    Operand::new(a.as_view(), lda, batch_a),
                    Operand::new(b.as_view(), ldb, batch_b),
                    OutputOperand::new(d.as_view_mut(), ldd, batch_d),
                    ALPHA,
                    BETA,
                );
                lt.run(&spec, &mut args).unwrap_or_else(|e| {
                    panic!("{element} {a_major:?} {b_major:?} {d_major:?}: {e}")
                });
                let got: Vec<T> = stream.clone_dtoh(&d).expect("a copy to the host");
                let want = host_gemm(
                    &spec,
                    shape,
                    HostMatrix {
                        data: &host_a,
                        ld: lda,
                        batch_stride: batch_a,
                    },
                    HostMatrix {
                        data: &host_b,
                        ld: ldb,
                        batch_stride: batch_b,
                    },
                    HostMatrix {
                        data: &host_c,
                        ld: ldd,
                        batch_stride: batch_d,
                    },
                    ALPHA,
                    BETA,
                );
                let got = dense_output(&spec, shape, &got, ldd, batch_d);
                let error = normalized_error(&got, &want);
                eprintln!("{element} a {a_major:?} b {b_major:?} d {d_major:?}: error {error:.2e}");
                worst = worst.max(error);
            }
        }
    }
    worst
}

#[test]
fn bf16_matches_the_host_reference_for_every_major() {
    let Some((lt, stream)) = lt_or_skip("bf16_matches_the_host_reference_for_every_major") else {
        return;
    };
    let tolerance = check_tolerance(&spec(
        ElementType::BF16,
        OperandMajor::K,
        OperandMajor::K,
        OutputMajor::N,
    ));
    let error = worst_error::<bf16>(&lt, &stream, ElementType::BF16);
    assert!(
        error <= tolerance,
        "worst error {error:.3e} > {tolerance:.1e}"
    );
    // One plan per major combination, kept.
    assert_eq!(lt.plan_count(), 8);
}

#[test]
fn f32_matches_the_host_reference_for_every_major_without_tf32() {
    let Some((lt, stream)) =
        lt_or_skip("f32_matches_the_host_reference_for_every_major_without_tf32")
    else {
        return;
    };
    let error = worst_error::<f32>(&lt, &stream, ElementType::F32);
    assert!(error <= 2e-5, "worst error {error:.3e} > 2e-5 (tf32 on?)");
}

#[test]
fn a_plan_is_made_once_per_problem() {
    let Some((lt, stream)) = lt_or_skip("a_plan_is_made_once_per_problem") else {
        return;
    };
    let spec = spec(
        ElementType::BF16,
        OperandMajor::K,
        OperandMajor::K,
        OutputMajor::N,
    );
    let (m, n, k, l) = SHAPE;
    let a = upload(&stream, &random_values::<bf16>(m * k * l, 1));
    let b = upload(&stream, &random_values::<bf16>(n * k * l, 2));
    let mut d = upload(&stream, &vec![bf16::ZERO; m * n * l]);
    for _ in 0..3 {
        let mut args = Arguments::product(
            GemmShape::new(m, n, k, l),
            Operand::new(a.as_view(), k, m * k),
            Operand::new(b.as_view(), k, n * k),
            OutputOperand::new(d.as_view_mut(), n, m * n),
            1.0,
        );
        lt.run(&spec, &mut args).expect("the reference runs");
    }
    assert_eq!(lt.plan_count(), 1);
}

#[test]
fn a_buffer_too_short_for_its_strides_is_refused() {
    let Some((lt, stream)) = lt_or_skip("a_buffer_too_short_for_its_strides_is_refused") else {
        return;
    };
    let spec = spec(
        ElementType::F32,
        OperandMajor::K,
        OperandMajor::K,
        OutputMajor::N,
    );
    let (m, n, k, l) = SHAPE;
    let a = upload(&stream, &random_values::<f32>(m * k * l, 1));
    let b = upload(&stream, &random_values::<f32>(n * k * l, 2));
    // One element short of L batches of M x N.
    let mut d = upload(&stream, &vec![0.0f32; m * n * l - 1]);
    let mut args = Arguments::product(
        GemmShape::new(m, n, k, l),
        Operand::new(a.as_view(), k, m * k),
        Operand::new(b.as_view(), k, n * k),
        OutputOperand::new(d.as_view_mut(), n, m * n),
        1.0,
    );
    let error = lt.run(&spec, &mut args).unwrap_err();
    assert!(error.to_string().contains("d buffer length"), "{error}");
    assert_eq!(lt.plan_count(), 0);
}
