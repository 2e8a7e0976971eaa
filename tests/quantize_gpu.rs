//! The quantize kernels against a host reference that computes as they
//! do (f32 amax, `amax / max` and `max / amax` rounded once each, the
//! product rounded to f32, then to the output type, to nearest even and
//! saturating): every input type, every output type, row and tensor
//! scales, rows with a zero amax and with large values, rows held in
//! registers and rows read twice, bit for bit; an
//! FP8 GEMM fed by the quantized matrices; and the typed errors.

use cudarc::driver::{CudaSlice, DeviceRepr};
use cutlet::device::gemm::Gemm;
use cutlet::device::{quantize, quantize_with_scale, Device};
use cutlet::float8::{F8E4M3, F8E5M2};
use cutlet::fusion::host::round_to;
use cutlet::gemm::{OperandMajor, OutputMajor};
use cutlet::kernel::gemm::ScaleGranularity;
use cutlet::kernel::quantize::QuantizeScale;
use cutlet::numeric::{Element, ElementType};
use cutlet_harness::{packed_product, sm90_or_skip};
use half::{bf16, f16};

/// An input type: from f32 (rounded) and back (exactly).
trait Input: Element + DeviceRepr {
    fn of(v: f32) -> Self;
    fn value(self) -> f32;
}
impl Input for bf16 {
    fn of(v: f32) -> Self {
        bf16::from_f32(v)
    }
    fn value(self) -> f32 {
        self.to_f32()
    }
}
impl Input for f16 {
    fn of(v: f32) -> Self {
        f16::from_f32(v)
    }
    fn value(self) -> f32 {
        self.to_f32()
    }
}
impl Input for f32 {
    fn of(v: f32) -> Self {
        v
    }
    fn value(self) -> f32 {
        self
    }
}

/// An output type: its value as f64.
trait Output: Element + DeviceRepr + cudarc::driver::ValidAsZeroBits + Copy {
    fn value(self) -> f64;
}
impl Output for F8E4M3 {
    fn value(self) -> f64 {
        self.to_f64()
    }
}
impl Output for F8E5M2 {
    fn value(self) -> f64 {
        self.to_f64()
    }
}
impl Output for i8 {
    fn value(self) -> f64 {
        f64::from(self)
    }
}

/// `rows x cols` values: row r spans about ±2^(r % 9 - 3) with a few
/// large outliers, and row 1 is all zeros.
fn data(rows: usize, cols: usize) -> Vec<f32> {
    let mut x = 12345u64;
    (0..rows * cols)
        .map(|i| {
            let (r, c) = (i / cols, i % cols);
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let unit = ((x >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0;
            let spread = 2f32.powi((r % 9) as i32 - 3);
            match (r, c % 97) {
                (1, _) => 0.0,
                (_, 5) => unit * spread * 300.0,
                _ => unit * spread,
            }
        })
        .collect()
}

/// The host's scale and quantized value of `x` for an amax and the
/// output type's largest magnitude.
fn reference(amax: f32, bound: f32, ty: ElementType, x: f32) -> (f32, f64) {
    let (scale, inv) = if amax == 0.0 {
        (1.0, 1.0)
    } else {
        (amax / bound, bound / amax)
    };
    let y = x * inv;
    let q = match ty {
        ElementType::I8 => f64::from(y.round_ties_even().clamp(-128.0, 127.0)),
        _ => round_to(ty, f64::from(y)),
    };
    (scale, q)
}

fn check<I: Input, O: Output>(
    device: &Device,
    rows: usize,
    cols: usize,
    granularity: QuantizeScale,
) {
    let stream = device.default_stream();
    let host: Vec<I> = data(rows, cols).into_iter().map(I::of).collect();
    let input = stream.clone_htod(&host).unwrap();
    let mut output = stream.alloc_zeros::<O>(rows * cols).unwrap();
    let groups = cols / 128;
    let scale_count = match granularity {
        QuantizeScale::Block1x128 => rows * groups,
        QuantizeScale::Block128x128 => rows.div_ceil(128) * groups,
        _ => rows,
    };
    let mut scales = stream.clone_htod(&vec![-1.0f32; scale_count]).unwrap();
    quantize(
        device,
        &input,
        [rows, cols],
        &mut output,
        &mut scales,
        granularity,
        &stream,
    )
    .unwrap();
    let got = stream.clone_dtoh(&output).unwrap();
    let got_scales = stream.clone_dtoh(&scales).unwrap();
    let bound = match O::TYPE {
        ElementType::F8E4M3 => 448.0,
        ElementType::F8E5M2 => 57344.0,
        _ => 127.0,
    };
    let what = format!("{} -> {} {rows}x{cols} {granularity:?}", I::TYPE, O::TYPE);
    let amax_of = |values: &[I]| values.iter().fold(0f32, |m, v| m.max(v.value().abs()));
    let tensor_amax = amax_of(&host);
    for r in 0..rows {
        let row = &host[r * cols..(r + 1) * cols];
        // The amax of element c's scale, and that scale's index.
        let amax = |c: usize| match granularity {
            QuantizeScale::Row => (amax_of(row), r),
            QuantizeScale::Tensor => (tensor_amax, 0),
            QuantizeScale::Block1x128 => {
                let g = c / 128;
                (amax_of(&row[g * 128..(g + 1) * 128]), r * groups + g)
            }
            QuantizeScale::Block128x128 => {
                let (tr, g) = (r / 128, c / 128);
                let tile = (tr * 128..rows.min(tr * 128 + 128))
                    .map(|rr| amax_of(&host[rr * cols + g * 128..rr * cols + (g + 1) * 128]))
                    .fold(0f32, f32::max);
                (tile, tr * groups + g)
            }
        };
        for c in (0..cols).step_by(128) {
            let (amax, at) = amax(c);
            let (scale, _) = reference(amax, bound, O::TYPE, 0.0);
            assert_eq!(
                got_scales[at].to_bits(),
                scale.to_bits(),
                "{what}: scale {at} (row {r}, column {c})"
            );
        }
        for (c, x) in row.iter().enumerate() {
            let (_, want) = reference(amax(c).0, bound, O::TYPE, x.value());
            let q = got[r * cols + c].value();
            assert!(
                q == want,
                "{what}: [{r}][{c}] = {q}, expected {want} (x = {})",
                x.value()
            );
        }
    }
    if granularity == QuantizeScale::Tensor {
        assert!(
            got_scales[1..].iter().all(|&s| s == -1.0),
            "{what}: only scales[0] written"
        );
    }
}

#[test]
fn quantize_matches_the_host_bit_for_bit() {
    let Some(device) = sm90_or_skip(
        "quantize_matches_the_host_bit_for_bit",
        "FP8 quantization and GEMMs",
    ) else {
        return;
    };
    // 1x128 blocks: columns a multiple of 128, the last group of a row
    // ending the row.
    for (rows, cols) in [(37, 4096), (301, 384), (1, 128)] {
        check::<bf16, F8E4M3>(&device, rows, cols, QuantizeScale::Block1x128);
        check::<bf16, i8>(&device, rows, cols, QuantizeScale::Block1x128);
    }
    check::<f16, F8E5M2>(&device, 37, 1024, QuantizeScale::Block1x128);
    check::<f32, F8E4M3>(&device, 37, 1152, QuantizeScale::Block1x128);
    check::<f32, i8>(&device, 3, 128, QuantizeScale::Block1x128);
    // 128x128 tiles: whole and short rows of tiles.
    for (rows, cols) in [(256, 384), (300, 256), (5, 128)] {
        check::<bf16, F8E4M3>(&device, rows, cols, QuantizeScale::Block128x128);
        check::<f32, i8>(&device, rows, cols, QuantizeScale::Block128x128);
    }
    check::<f16, F8E5M2>(&device, 129, 1024, QuantizeScale::Block128x128);
    for granularity in [QuantizeScale::Row, QuantizeScale::Tensor] {
        for (rows, cols) in [(37, 4096), (300, 144), (2, 16)] {
            check::<bf16, F8E4M3>(&device, rows, cols, granularity);
            check::<bf16, i8>(&device, rows, cols, granularity);
        }
        check::<bf16, F8E5M2>(&device, 37, 1040, granularity);
        check::<f16, F8E4M3>(&device, 37, 1040, granularity);
        check::<f32, F8E4M3>(&device, 37, 1040, granularity);
        check::<f32, i8>(&device, 37, 1040, granularity);
        check::<f16, F8E5M2>(&device, 1000, 64, granularity);
        // Rows past 1024 vectors (8192 16-bit or 4096 f32 values): read twice.
        check::<bf16, F8E4M3>(&device, 5, 16400, granularity);
        check::<f32, i8>(&device, 3, 8192, granularity);
    }
}

/// bf16 activations and weights to an FP8 GEMM with cutlet alone: both
/// quantized per row, multiplied with the row-wise scales, against the
/// bf16 product (e4m3's 3 mantissa bits: a few percent of the largest).
#[test]
fn quantized_inputs_feed_the_fp8_gemm() {
    let Some(device) = sm90_or_skip(
        "quantized_inputs_feed_the_fp8_gemm",
        "FP8 quantization and GEMMs",
    ) else {
        return;
    };
    let stream = device.default_stream();
    let (m, n, k) = (256, 384, 512);
    let a_host: Vec<bf16> = data(m, k).into_iter().map(bf16::from_f32).collect();
    let b_host: Vec<bf16> = data(n, k).into_iter().rev().map(bf16::from_f32).collect();
    let a = stream.clone_htod(&a_host).unwrap();
    let b = stream.clone_htod(&b_host).unwrap();
    let mut qa = stream.alloc_zeros::<F8E4M3>(m * k).unwrap();
    let mut qb = stream.alloc_zeros::<F8E4M3>(n * k).unwrap();
    let mut sa = stream.alloc_zeros::<f32>(m).unwrap();
    let mut sb = stream.alloc_zeros::<f32>(n).unwrap();
    quantize(
        &device,
        &a,
        [m, k],
        &mut qa,
        &mut sa,
        QuantizeScale::Row,
        &stream,
    )
    .unwrap();
    quantize(
        &device,
        &b,
        [n, k],
        &mut qb,
        &mut sb,
        QuantizeScale::Row,
        &stream,
    )
    .unwrap();
    let gemm = Gemm::builder()
        .a(ElementType::F8E4M3, OperandMajor::K)
        .b(ElementType::F8E4M3, OperandMajor::K)
        .d(ElementType::F32, OutputMajor::N)
        .scales(ScaleGranularity::RowCol)
        .build(&device)
        .unwrap();
    let mut d = stream.alloc_zeros::<f32>(m * n).unwrap();
    let mut args =
        packed_product((m, n, k), &qa, &qb, &mut d, n, 1.0).with_scales(sa.as_view(), sb.as_view());
    gemm.run(&mut args, &stream).unwrap();
    drop(args);
    let got = stream.clone_dtoh(&d).unwrap();
    let want: Vec<f64> = (0..m * n)
        .map(|i| {
            let (r, c) = (i / n, i % n);
            (0..k)
                .map(|kk| a_host[r * k + kk].to_f64() * b_host[c * k + kk].to_f64())
                .sum()
        })
        .collect();
    let largest = want.iter().fold(0f64, |m, v| m.max(v.abs()));
    let worst = got
        .iter()
        .zip(&want)
        .fold(0f64, |m, (g, w)| m.max((f64::from(*g) - w).abs()));
    assert!(worst <= 0.05 * largest, "max error {worst} of {largest}");
}

#[test]
fn quantize_refuses_bad_shapes_and_buffers_and_writes_nothing() {
    let Some(device) = sm90_or_skip(
        "quantize_refuses_bad_shapes_and_buffers_and_writes_nothing",
        "FP8 quantization and GEMMs",
    ) else {
        return;
    };
    let stream = device.default_stream();
    let input = stream.clone_htod(&vec![bf16::ONE; 64 * 40]).unwrap();
    let mut output = stream.clone_htod(&vec![7i8; 64 * 40]).unwrap();
    let mut scales = stream.clone_htod(&vec![-1.0f32; 64]).unwrap();
    let mut short = stream.alloc_zeros::<f32>(8).unwrap();
    // The error of quantizing `input` as `shape` into `output` and `scales`.
    let mut refused = |shape: [usize; 2], scales: &mut CudaSlice<f32>, granularity| {
        quantize(
            &device,
            &input,
            shape,
            &mut output,
            scales,
            granularity,
            &stream,
        )
        .unwrap_err()
        .to_string()
    };
    let err = refused([64, 40], &mut scales, QuantizeScale::Row);
    assert!(err.contains("`cols` = 40"), "{err}");
    let err = refused([81, 32], &mut scales, QuantizeScale::Row);
    assert!(err.contains("`input.len()` = 2560"), "{err}");
    let err = refused([64, 32], &mut short, QuantizeScale::Row);
    assert!(err.contains("`scales.len()` = 8"), "{err}");
    // Block scales: whole blocks of 128 along a row, one scale each.
    let err = refused([64, 32], &mut scales, QuantizeScale::Block1x128);
    assert!(
        err.contains("`cols` = 32") && err.contains("multiple of 128"),
        "{err}"
    );
    let err = refused([16, 128], &mut short, QuantizeScale::Block1x128);
    assert!(err.contains("`scales.len()` = 8"), "{err}");
    let err = refused([16, 144], &mut scales, QuantizeScale::Block128x128);
    assert!(
        err.contains("`cols` = 144") && err.contains("multiple of 128"),
        "{err}"
    );
    let wide = stream.clone_htod(&vec![1i32; 64]).unwrap();
    let mut wide_out = stream.alloc_zeros::<i8>(64).unwrap();
    let err = quantize(
        &device,
        &wide,
        [4, 16],
        &mut wide_out,
        &mut scales,
        QuantizeScale::Row,
        &stream,
    )
    .unwrap_err();
    assert!(err.to_string().contains("quantize input type"), "{err}");
    assert!(stream.clone_dtoh(&output).unwrap().iter().all(|&q| q == 7));
    assert!(stream
        .clone_dtoh(&scales)
        .unwrap()
        .iter()
        .all(|&s| s == -1.0));
}

/// The conversion by a given scale against the host (`x * (1 / scale)`,
/// the reciprocal and the product each rounded to f32, then to the output
/// type), bit for bit, with the input's amax recorded in the same pass.
fn check_given<I: Input, O: Output>(device: &Device, rows: usize, cols: usize, record: bool) {
    let stream = device.default_stream();
    let host: Vec<I> = data(rows, cols).into_iter().map(I::of).collect();
    let input = stream.clone_htod(&host).unwrap();
    let mut output = stream.alloc_zeros::<O>(rows * cols).unwrap();
    let tensor_amax = host.iter().fold(0f32, |m, v| m.max(v.value().abs()));
    // Half the tensor's amax maps to the largest value: the outliers
    // saturate. A scale that is not a power of two.
    let bound = match O::TYPE {
        ElementType::F8E4M3 => 448.0,
        ElementType::F8E5M2 => 57344.0,
        _ => 127.0,
    };
    let given = tensor_amax * 0.5 / bound * 1.1;
    let scale = stream.clone_htod(&[given]).unwrap();
    // Poisoned: the call overwrites it.
    let mut amax = stream.clone_htod(&[1e30f32, -3.0]).unwrap();
    quantize_with_scale(
        device,
        &input,
        [rows, cols],
        &mut output,
        &scale,
        record.then_some(&mut amax),
        &stream,
    )
    .unwrap();
    let what = format!("{} -> {} {rows}x{cols} by a given scale", I::TYPE, O::TYPE);
    let got = stream.clone_dtoh(&output).unwrap();
    let inv = 1.0f32 / given;
    for (i, x) in host.iter().enumerate() {
        let y = x.value() * inv;
        let want = match O::TYPE {
            ElementType::I8 => f64::from(y.round_ties_even().clamp(-128.0, 127.0)),
            ty => round_to(ty, f64::from(y)),
        };
        assert!(
            got[i].value() == want,
            "{what}: [{i}] = {}, expected {want} (x = {})",
            got[i].value(),
            x.value()
        );
    }
    let got_amax = stream.clone_dtoh(&amax).unwrap();
    let want_amax = if record { tensor_amax } else { 1e30 };
    assert_eq!(got_amax[0].to_bits(), want_amax.to_bits(), "{what}: amax");
    assert_eq!(got_amax[1], -3.0, "{what}: only amax[0] written");
}

#[test]
fn quantize_with_a_given_scale_matches_the_host_and_records_the_amax() {
    let Some(device) = sm90_or_skip(
        "quantize_with_a_given_scale_matches_the_host_and_records_the_amax",
        "FP8 quantization and GEMMs",
    ) else {
        return;
    };
    for (rows, cols) in [(37, 4096), (300, 144), (2, 16), (1000, 64)] {
        check_given::<bf16, F8E4M3>(&device, rows, cols, true);
        check_given::<bf16, i8>(&device, rows, cols, true);
    }
    check_given::<f16, F8E5M2>(&device, 37, 1040, true);
    check_given::<f32, F8E4M3>(&device, 37, 1040, true);
    check_given::<f32, i8>(&device, 3, 8192, true);
    check_given::<bf16, F8E4M3>(&device, 37, 1040, false);

    // A NaN shows in the amax; an empty matrix records 0.
    let stream = device.default_stream();
    let mut host = vec![bf16::ONE; 64];
    host[17] = bf16::NAN;
    let input = stream.clone_htod(&host).unwrap();
    let mut output = stream.alloc_zeros::<F8E4M3>(64).unwrap();
    let scale = stream.clone_htod(&[1.0f32]).unwrap();
    let mut amax = stream.alloc_zeros::<f32>(1).unwrap();
    quantize_with_scale(
        &device,
        &input,
        [4, 16],
        &mut output,
        &scale,
        Some(&mut amax),
        &stream,
    )
    .unwrap();
    assert!(stream.clone_dtoh(&amax).unwrap()[0].is_nan());
    let mut amax = stream.clone_htod(&[5.0f32]).unwrap();
    quantize_with_scale(
        &device,
        &input,
        [0, 16],
        &mut output,
        &scale,
        Some(&mut amax),
        &stream,
    )
    .unwrap();
    assert_eq!(stream.clone_dtoh(&amax).unwrap()[0], 0.0);
}

#[test]
fn quantize_with_scale_refuses_bad_buffers_and_writes_nothing() {
    let Some(device) = sm90_or_skip(
        "quantize_with_scale_refuses_bad_buffers_and_writes_nothing",
        "FP8 quantization and GEMMs",
    ) else {
        return;
    };
    let stream = device.default_stream();
    let input = stream.clone_htod(&vec![bf16::ONE; 64]).unwrap();
    let mut output = stream.clone_htod(&vec![7i8; 64]).unwrap();
    let scale = stream.clone_htod(&[1.0f32, 1.0]).unwrap();
    let no_scale = stream.alloc_zeros::<f32>(0).unwrap();
    let mut amax = stream.clone_htod(&[-1.0f32, -1.0]).unwrap();
    let mut no_amax = stream.alloc_zeros::<f32>(0).unwrap();
    let err = quantize_with_scale(
        &device,
        &input,
        [4, 16],
        &mut output,
        &no_scale,
        Some(&mut amax),
        &stream,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("`scale.len()` = 0"), "{err}");
    let err = quantize_with_scale(
        &device,
        &input,
        [4, 16],
        &mut output,
        &scale,
        Some(&mut no_amax),
        &stream,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("`amax.len()` = 0"), "{err}");
    let err = quantize_with_scale(&device, &input, [2, 24], &mut output, &scale, None, &stream)
        .unwrap_err()
        .to_string();
    assert!(err.contains("`cols` = 24"), "{err}");
    let err = quantize_with_scale(
        &device,
        &input,
        [8, 16],
        &mut output,
        &scale,
        Some(&mut amax),
        &stream,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("`input.len()` = 64"), "{err}");
    assert!(stream.clone_dtoh(&output).unwrap().iter().all(|&q| q == 7));
    assert!(stream.clone_dtoh(&amax).unwrap().iter().all(|&a| a == -1.0));
}
