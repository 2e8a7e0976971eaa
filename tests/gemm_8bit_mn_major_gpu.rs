//! MN-major 8-bit operands: a GEMM built with an MN-major e4m3 or s8 A or
//! B copies it K-major before the kernel and computes the same sums as
//! with K-major operands. Small integers (exact in FP8 and in the f32 or
//! s32 sums) against the host: each operand MN-major alone and both, a K
//! that is not a multiple of 16 (the copies pad their rows), batches with
//! padded leading dimensions and strides, a decode shape (swap-AB), INT8
//! with an i32 D; and the errors for an MN-major operand too short or with
//! a leading dimension below its rows.

use cutlet::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand};
use cutlet::device::Device;
use cutlet::float8::F8E4M3;
use cutlet::gemm::{OperandMajor, OutputMajor};
use cutlet::numeric::{Element, ElementType};
use cutlet_harness::{sm90_or_skip, small_ints};

/// An 8-bit input type made from a small integer.
trait Input: Element + cudarc::driver::DeviceRepr + Copy {
    fn of(v: f64) -> Self;
}
impl Input for F8E4M3 {
    fn of(v: f64) -> Self {
        F8E4M3::from_f64(v)
    }
}
impl Input for i8 {
    fn of(v: f64) -> Self {
        v as i8
    }
}

/// An output type read back as f64.
trait Output: Element + cudarc::driver::DeviceRepr + Copy + Default {
    fn value(self) -> f64;
}
impl Output for f32 {
    fn value(self) -> f64 {
        f64::from(self)
    }
}
impl Output for i32 {
    fn value(self) -> f64 {
        f64::from(self)
    }
}

/// One operand of `rows x k` per batch in `major`, with leading dimension
/// `ld` and batch stride `stride`, holding `values[b][r][kk]`.
fn lay_out<T: Input>(
    values: &[f64],
    (rows, k, l): (usize, usize, usize),
    major: OperandMajor,
    ld: usize,
    stride: usize,
) -> Vec<T> {
    let mut out =
        vec![T::of(0.0); (l - 1) * stride + ld * if major == OperandMajor::K { rows } else { k }];
    for b in 0..l {
        for r in 0..rows {
            for kk in 0..k {
                let at = match major {
                    OperandMajor::K => r * ld + kk,
                    OperandMajor::MN => kk * ld + r,
                };
                out[b * stride + at] = T::of(values[(b * rows + r) * k + kk]);
            }
        }
    }
    out
}

/// D = A · B for `majors` of A and B, batches `l`, padded leading
/// dimensions against the host: an MN-major operand's `pad` elements past
/// its rows (any: the copy reads bytes), a K-major one's 16 where `pad` is
/// not 0 (the kernel reads it with TMA: 16-byte rows).
fn check<T: Input, D: Output>(
    device: &Device,
    (m, n, k, l): (usize, usize, usize, usize),
    [a_major, b_major]: [OperandMajor; 2],
    pad: usize,
) {
    let stream = device.default_stream();
    let (a_vals, b_vals) = (small_ints(m * k * l, 11), small_ints(n * k * l, 12));
    let ld = |major, rows: usize| match major {
        OperandMajor::K if pad > 0 => k + 16,
        OperandMajor::K => k,
        OperandMajor::MN => rows + pad,
    };
    let (lda, ldb) = (ld(a_major, m), ld(b_major, n));
    let stride = |major, rows: usize, ld: usize| match major {
        OperandMajor::K => rows * ld + 64,
        OperandMajor::MN => k * ld + 3,
    };
    let (sa, sb) = (stride(a_major, m, lda), stride(b_major, n, ldb));
    let a = stream
        .clone_htod(&lay_out::<T>(&a_vals, (m, k, l), a_major, lda, sa))
        .unwrap();
    let b = stream
        .clone_htod(&lay_out::<T>(&b_vals, (n, k, l), b_major, ldb, sb))
        .unwrap();
    let mut d = stream.clone_htod(&vec![D::default(); m * n * l]).unwrap();
    let gemm = Gemm::builder()
        .a(T::TYPE, a_major)
        .b(T::TYPE, b_major)
        .d(D::TYPE, OutputMajor::N)
        .build(device)
        .unwrap();
    let mut args = Arguments::product(
        GemmShape::new(m, n, k, l),
        Operand::new(a.as_view(), lda, sa),
        Operand::new(b.as_view(), ldb, sb),
        OutputOperand::new(d.as_view_mut(), n, m * n),
        1.0,
    );
    gemm.can_implement(&args).unwrap();
    gemm.run(&mut args, &stream).unwrap();
    let got = stream.clone_dtoh(&d).unwrap();
    for bt in 0..l {
        for i in 0..m {
            for j in 0..n {
                let want: f64 = (0..k)
                    .map(|kk| a_vals[(bt * m + i) * k + kk] * b_vals[(bt * n + j) * k + kk])
                    .sum();
                assert_eq!(
                    got[(bt * m + i) * n + j].value(),
                    want,
                    "{} A {a_major:?} B {b_major:?} {m}x{n}x{k}x{l}: D[{bt}][{i}][{j}]",
                    T::TYPE
                );
            }
        }
    }
}

#[test]
fn mn_major_8bit_operands_compute_the_k_major_sums() {
    let Some(device) = sm90_or_skip(
        "mn_major_8bit_operands_compute_the_k_major_sums",
        "8-bit GEMMs",
    ) else {
        return;
    };
    use OperandMajor::{K, MN};
    for majors in [[MN, K], [K, MN], [MN, MN]] {
        check::<F8E4M3, f32>(&device, (200, 136, 256, 1), majors, 0);
    }
    // K = 100: only copies (rows padded to 112) can be read with TMA.
    check::<F8E4M3, f32>(&device, (130, 72, 100, 1), [MN, MN], 0);
    // Batches, padded leading dimensions and strides.
    check::<F8E4M3, f32>(&device, (96, 80, 160, 3), [MN, K], 7);
    // A decode shape (swap-AB) and a large one.
    check::<F8E4M3, f32>(&device, (16, 4096, 1024, 1), [MN, K], 0);
    check::<F8E4M3, f32>(&device, (1024, 1024, 2048, 1), [K, MN], 0);
    // INT8 into exact i32 sums.
    check::<i8, i32>(&device, (200, 136, 256, 1), [MN, MN], 0);
    check::<i8, i32>(&device, (16, 2048, 512, 2), [MN, K], 5);
}

#[test]
fn mn_major_8bit_operands_are_checked_in_their_own_major() {
    let Some(device) = sm90_or_skip(
        "mn_major_8bit_operands_are_checked_in_their_own_major",
        "8-bit GEMMs",
    ) else {
        return;
    };
    let stream = device.default_stream();
    let (m, n, k) = (128, 128, 256);
    let gemm = Gemm::builder()
        .a(ElementType::F8E4M3, OperandMajor::MN)
        .b(ElementType::F8E4M3, OperandMajor::K)
        .d(ElementType::F32, OutputMajor::N)
        .build(&device)
        .unwrap();
    let b = stream.alloc_zeros::<F8E4M3>(n * k).unwrap();
    let mut d = stream.clone_htod(&vec![7.0f32; m * n]).unwrap();
    // lda below M: an MN-major A's rows (along K) hold M elements.
    let a = stream.alloc_zeros::<F8E4M3>(m * k).unwrap();
    let mut args = Arguments::product(
        GemmShape::new(m, n, k, 1),
        Operand::new(a.as_view(), m - 1, 0),
        Operand::new(b.as_view(), k, 0),
        OutputOperand::new(d.as_view_mut(), n, 0),
        1.0,
    );
    let err = gemm.run(&mut args, &stream).unwrap_err();
    assert!(
        matches!(err, cutlet::Error::InvalidArgument { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("lda"), "{err}");
    // Too short for K rows of M.
    let short = stream.alloc_zeros::<F8E4M3>(m * k - 1).unwrap();
    let mut args = Arguments::product(
        GemmShape::new(m, n, k, 1),
        Operand::new(short.as_view(), m, 0),
        Operand::new(b.as_view(), k, 0),
        OutputOperand::new(d.as_view_mut(), n, 0),
        1.0,
    );
    let err = gemm.can_implement(&args).unwrap_err();
    assert!(err.to_string().contains("a.len()"), "{err}");
    let err = gemm.run(&mut args, &stream).unwrap_err();
    assert!(err.to_string().contains("a.len()"), "{err}");
    let got = stream.clone_dtoh(&d).unwrap();
    assert!(got.iter().all(|&x| x == 7.0), "D was written");
}
