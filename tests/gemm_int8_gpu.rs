//! The SM90 kernels with s8 / u8 inputs (K-major A and B, s32
//! accumulators) against exact host sums: every signedness pair over each
//! type's whole range, the builder's pick at square, ragged, decode and
//! batched shapes, K a multiple of 16 but not of the 128-element k-tile,
//! an i32 D with whole alpha and beta (C apart and C in D), a D of f32
//! dequantized by row and column scales, the typed front door, and the
//! typed errors of a fractional alpha and of K-splitting.

use cudarc::driver::{CudaSlice, DeviceRepr};
use cutlet::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand};
use cutlet::gemm::{OperandMajor, OutputMajor};
use cutlet::kernel::gemm::ScaleGranularity;
use cutlet::numeric::{Element, ElementType};
use cutlet_harness::{lcg, packed_product, sm90_or_skip};

/// An 8-bit integer input type, with values over its whole range.
trait Int8: Element + DeviceRepr + Copy {
    fn of(bits: u8) -> Self;
    fn value(self) -> i64;
}
impl Int8 for i8 {
    fn of(bits: u8) -> Self {
        bits as i8
    }
    fn value(self) -> i64 {
        i64::from(self)
    }
}
impl Int8 for u8 {
    fn of(bits: u8) -> Self {
        bits
    }
    fn value(self) -> i64 {
        i64::from(self)
    }
}

/// `len` values from a seed, every bit pattern alike (a simple LCG).
fn values<T: Int8>(len: usize, seed: u64) -> Vec<T> {
    lcg(seed)
        .take(len)
        .map(|x| T::of((x >> 40) as u8))
        .collect()
}

/// The exact sum of row `i` of batch `batch` of A (M x K) and row `j` of
/// B (N x K), both packed K-major.
fn dot<A: Int8, B: Int8>(
    a: &[A],
    b: &[B],
    (m, n, k): (usize, usize, usize),
    batch: usize,
    i: usize,
    j: usize,
) -> i64 {
    let (a0, b0) = ((batch * m + i) * k, (batch * n + j) * k);
    (0..k)
        .map(|kk| a[a0 + kk].value() * b[b0 + kk].value())
        .sum()
}

/// D (i32) = alpha · A · B + beta · C for `l` packed batches, C apart
/// (`in_place` false) or D itself, against the exact host sums.
fn check_i32<A: Int8, B: Int8>(
    device: &cutlet::device::Device,
    shape: (usize, usize, usize, usize),
    scalars: (i64, i64),
    in_place: bool,
) {
    check_i32_rows::<A, B>(device, shape, scalars, in_place, 1);
}

/// [`check_i32`] comparing every `row_step`-th row of D and its last row
/// (every column of them): large problems stay quick on the host.
fn check_i32_rows<A: Int8, B: Int8>(
    device: &cutlet::device::Device,
    (m, n, k, l): (usize, usize, usize, usize),
    (alpha, beta): (i64, i64),
    in_place: bool,
    row_step: usize,
) {
    let stream = device.default_stream();
    let (a_host, b_host) = (values::<A>(m * k * l, 1), values::<B>(n * k * l, 2));
    let c_host: Vec<i32> = (0..m * n * l).map(|i| (i % 2001) as i32 - 1000).collect();
    let a = stream.clone_htod(&a_host).unwrap();
    let b = stream.clone_htod(&b_host).unwrap();
    let c = stream.clone_htod(&c_host).unwrap();
    let start = if in_place {
        c_host.clone()
    } else {
        vec![i32::MIN; m * n * l]
    };
    let mut d = stream.clone_htod(&start).unwrap();
    let gemm = Gemm::builder()
        .a(A::TYPE, OperandMajor::K)
        .b(B::TYPE, OperandMajor::K)
        .build(device)
        .unwrap();
    let shape = GemmShape::new(m, n, k, l);
    let (ka, kb) = (
        Operand::new(a.as_view(), k, m * k),
        Operand::new(b.as_view(), k, n * k),
    );
    let out = OutputOperand::new(d.as_view_mut(), n, m * n);
    let mut args = if in_place {
        Arguments::in_place(shape, ka, kb, out, alpha as f64, beta as f64)
    } else {
        Arguments::new(
            shape,
            ka,
            kb,
            Operand::new(c.as_view(), n, m * n),
            out,
            alpha as f64,
            beta as f64,
        )
    };
    gemm.run(&mut args, &stream).unwrap();
    drop(args);
    let got = stream.clone_dtoh(&d).unwrap();
    for batch in 0..l {
        for i in (0..m).filter(|&i| i % row_step == 0 || i + 1 == m) {
            for j in 0..n {
                let at = (batch * m + i) * n + j;
                let sum = dot(&a_host, &b_host, (m, n, k), batch, i, j);
                let want = (alpha * sum + beta * i64::from(c_host[at])) as i32;
                assert_eq!(
                    got[at],
                    want,
                    "{} x {} {m}x{n}x{k}x{l} alpha {alpha} beta {beta} in place {in_place}: D[{batch}][{i}][{j}]",
                    A::TYPE,
                    B::TYPE
                );
            }
        }
    }
}

#[test]
fn int8_gemms_compute_exact_i32_sums() {
    let Some(device) = sm90_or_skip("int8_gemms_compute_exact_i32_sums", "s8/u8 GEMMs") else {
        return;
    };
    for shape in [
        (128, 128, 128, 1),
        (200, 136, 512, 1),
        (300, 264, 400, 1),
        (1000, 1000, 1024, 1),
        (16, 4096, 4096, 1),
        (1, 1000, 2048, 1),
        (40, 1024, 512, 1),
        (130, 70, 144, 3),
    ] {
        check_i32::<i8, i8>(&device, shape, (1, 0), false);
    }
    check_i32::<u8, u8>(&device, (256, 256, 4096, 1), (1, 0), false);
    check_i32::<i8, u8>(&device, (256, 200, 256, 1), (1, 0), false);
    check_i32::<u8, i8>(&device, (200, 256, 256, 2), (1, 0), false);
    // Whole alpha and beta, C apart and C in D.
    check_i32::<i8, i8>(&device, (200, 136, 512, 3), (2, -3), false);
    check_i32::<i8, i8>(&device, (256, 512, 256, 1), (-1, 5), true);
    // The pick's kernel for a large i32 problem (128x128x128 ping-pong in
    // a 1x2 cluster) with a C, apart and in D, ragged in M and N.
    check_i32_rows::<i8, i8>(&device, (2900, 4100, 2048, 1), (3, -2), false, 13);
    check_i32_rows::<i8, i8>(&device, (2900, 4100, 2048, 1), (1, 1), true, 13);
}

#[test]
fn int8_gemms_dequantize_with_row_and_column_scales() {
    let Some(device) = sm90_or_skip(
        "int8_gemms_dequantize_with_row_and_column_scales",
        "s8/u8 GEMMs",
    ) else {
        return;
    };
    let stream = device.default_stream();
    for (m, n, k) in [(512, 384, 1024), (200, 136, 512), (16, 4096, 1024)] {
        let (a_host, b_host) = (values::<i8>(m * k, 3), values::<i8>(n * k, 4));
        let a = stream.clone_htod(&a_host).unwrap();
        let b = stream.clone_htod(&b_host).unwrap();
        let sa: Vec<f32> = (0..m).map(|i| 1.0 / (1 + i % 7) as f32).collect();
        let sb: Vec<f32> = (0..n).map(|j| 0.01 * (1 + j % 5) as f32).collect();
        let (sa_d, sb_d) = (
            stream.clone_htod(&sa).unwrap(),
            stream.clone_htod(&sb).unwrap(),
        );
        let mut d = stream.clone_htod(&vec![f32::NAN; m * n]).unwrap();
        let gemm = Gemm::builder()
            .a(ElementType::I8, OperandMajor::K)
            .b(ElementType::I8, OperandMajor::K)
            .d(ElementType::F32, OutputMajor::N)
            .scales(ScaleGranularity::RowCol)
            .build(&device)
            .unwrap();
        let mut args = packed_product((m, n, k), &a, &b, &mut d, n, 1.0)
            .with_scales(sa_d.as_view(), sb_d.as_view());
        gemm.run(&mut args, &stream).unwrap();
        drop(args);
        let got = stream.clone_dtoh(&d).unwrap();
        for i in 0..m {
            for j in 0..n {
                let sum = dot(&a_host, &b_host, (m, n, k), 0, i, j) as f64;
                let want = f64::from(sa[i]) * f64::from(sb[j]) * sum;
                // The s32 sum rounds to f32, then two f32 products round.
                let err = (f64::from(got[i * n + j]) - want).abs();
                assert!(
                    err <= want.abs() * 4e-7 + 1e-30,
                    "{m}x{n}x{k}: D[{i}][{j}] = {} against {want}",
                    got[i * n + j]
                );
            }
        }
    }
}

/// A column-major i32 D (D^T row-major), through the TMA store and, where
/// M is not whole 16-byte chunks, the register store.
#[test]
fn int8_gemms_write_a_column_major_d() {
    let Some(device) = sm90_or_skip("int8_gemms_write_a_column_major_d", "s8/u8 GEMMs") else {
        return;
    };
    let stream = device.default_stream();
    for (m, n, k) in [(256, 200, 512), (130, 264, 144)] {
        let (a_host, b_host) = (values::<i8>(m * k, 9), values::<u8>(n * k, 10));
        let a = stream.clone_htod(&a_host).unwrap();
        let b = stream.clone_htod(&b_host).unwrap();
        let mut d = stream.clone_htod(&vec![i32::MIN; m * n]).unwrap();
        let gemm = Gemm::builder()
            .a(ElementType::I8, OperandMajor::K)
            .b(ElementType::U8, OperandMajor::K)
            .d(ElementType::I32, OutputMajor::M)
            .build(&device)
            .unwrap();
        let mut args = packed_product((m, n, k), &a, &b, &mut d, m, 3.0);
        gemm.run(&mut args, &stream).unwrap();
        drop(args);
        let got = stream.clone_dtoh(&d).unwrap();
        for i in 0..m {
            for j in 0..n {
                let want = 3 * dot(&a_host, &b_host, (m, n, k), 0, i, j) as i32;
                assert_eq!(got[j * m + i], want, "{m}x{n}x{k}: D[{i}][{j}]");
            }
        }
    }
}

/// The typed front door takes `i8` inputs and an `i32` D.
#[test]
fn typed_int8_gemm_runs() {
    let Some(device) = sm90_or_skip("typed_int8_gemm_runs", "s8/u8 GEMMs") else {
        return;
    };
    let (m, n, k) = (128, 256, 256);
    let stream = device.default_stream();
    let (a_host, b_host) = (values::<i8>(m * k, 5), values::<i8>(n * k, 6));
    let a: CudaSlice<i8> = stream.clone_htod(&a_host).unwrap();
    let b: CudaSlice<i8> = stream.clone_htod(&b_host).unwrap();
    let mut d = stream.clone_htod(&vec![0i32; m * n]).unwrap();
    let gemm = Gemm::builder().build_typed::<i8, i8, i32>(&device).unwrap();
    let mut args = packed_product((m, n, k), &a, &b, &mut d, n, 1.0);
    gemm.run(&mut args, &stream).unwrap();
    drop(args);
    let got = stream.clone_dtoh(&d).unwrap();
    for i in 0..m {
        for j in 0..n {
            let want = dot(&a_host, &b_host, (m, n, k), 0, i, j) as i32;
            assert_eq!(got[i * n + j], want, "D[{i}][{j}]");
        }
    }
}

/// An i32 D computes in s32: a fractional alpha or beta is a typed error
/// naming it, and D is not written.
#[test]
fn an_i32_d_refuses_fractional_scalars_and_writes_nothing() {
    let Some(device) = sm90_or_skip(
        "an_i32_d_refuses_fractional_scalars_and_writes_nothing",
        "s8/u8 GEMMs",
    ) else {
        return;
    };
    let (m, n, k) = (128, 128, 128);
    let stream = device.default_stream();
    let a = stream.clone_htod(&values::<i8>(m * k, 7)).unwrap();
    let b = stream.clone_htod(&values::<i8>(n * k, 8)).unwrap();
    let mut d = stream.clone_htod(&vec![7i32; m * n]).unwrap();
    let gemm = Gemm::builder()
        .a(ElementType::I8, OperandMajor::K)
        .b(ElementType::I8, OperandMajor::K)
        .build(&device)
        .unwrap();
    for (alpha, beta, name) in [(0.5, 0.0, "alpha"), (1.0, 2.5, "beta"), (3e7, 0.0, "alpha")] {
        let mut args = Arguments::in_place(
            GemmShape::new(m, n, k, 1),
            Operand::new(a.as_view(), k, 0),
            Operand::new(b.as_view(), k, 0),
            OutputOperand::new(d.as_view_mut(), n, 0),
            alpha,
            beta,
        );
        let err = gemm.run(&mut args, &stream).unwrap_err();
        assert!(
            matches!(err, cutlet::Error::InvalidArgument { .. }),
            "{err}"
        );
        assert!(err.to_string().contains(&format!("`{name}`")), "{err}");
    }
    assert!(stream.clone_dtoh(&d).unwrap().iter().all(|&v| v == 7));
}
