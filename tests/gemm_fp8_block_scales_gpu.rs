//! The block-scaled FP8 GEMM (DeepSeek-V3's scales: 1x128 for A, 128x128
//! for B, applied at each promotion) against the host: small integers with
//! power-of-two scales, so every product and sum is exact in f32, through
//! the builder's pick at large, ragged (M, N and K not multiples of 128),
//! decode and batched shapes, ping-pong, the cooperative kernel's promotion
//! in turns, split-K and stream-K; bf16 inputs
//! quantized by `device::quantize` and multiplied back; and the errors of
//! missing and short scales.

use cutlet::device::gemm::{Arguments, Decomposition, Gemm, GemmBuilder, Operand, OutputOperand};
use cutlet::device::quantize;
use cutlet::float8::F8E4M3;
use cutlet::gemm::{GemmShape, OperandMajor, OutputMajor};
use cutlet::kernel::gemm::{KernelSchedule, ScaleGranularity};
use cutlet::kernel::quantize::QuantizeScale;
use cutlet::numeric::ElementType;
use cutlet_harness::{packed_product, sm90_or_skip, small_ints};

/// A block-scaled e4m3 GEMM with an f32 D.
fn block_scaled() -> GemmBuilder {
    Gemm::builder()
        .a(ElementType::F8E4M3, OperandMajor::K)
        .b(ElementType::F8E4M3, OperandMajor::K)
        .d(ElementType::F32, OutputMajor::N)
        .scales(ScaleGranularity::Block)
}

/// A power of two from 1/4 to 4, varying with `i`.
fn power_of_two(i: usize, seed: usize) -> f32 {
    [0.25, 1.0, 2.0, 0.5, 4.0][(i * 7 + seed) % 5]
}

/// Runs `builder`'s GEMM on `(m, n, k, l)` small integers with
/// power-of-two block scales and asserts every element of D.
fn check(
    device: &cutlet::device::Device,
    builder: GemmBuilder,
    (m, n, k, l): (usize, usize, usize, usize),
    what: &str,
) {
    let stream = device.default_stream();
    let kb = k.div_ceil(128);
    let nb = n.div_ceil(128);
    let (a_host, b_host) = (small_ints(l * m * k, 11), small_ints(l * n * k, 12));
    let sa: Vec<f32> = (0..l * m * kb).map(|i| power_of_two(i, 1)).collect();
    let sb: Vec<f32> = (0..l * nb * kb).map(|i| power_of_two(i, 3)).collect();
    let to_fp8 = |v: &[f64]| -> Vec<F8E4M3> { v.iter().map(|&x| F8E4M3::from_f64(x)).collect() };
    let a = stream.clone_htod(&to_fp8(&a_host)).unwrap();
    let b = stream.clone_htod(&to_fp8(&b_host)).unwrap();
    let (sa_d, sb_d) = (
        stream.clone_htod(&sa).unwrap(),
        stream.clone_htod(&sb).unwrap(),
    );
    let mut d = stream.clone_htod(&vec![f32::NAN; l * m * n]).unwrap();
    let gemm = builder.build(device).unwrap();
    let alpha = 0.5;
    let mut args = Arguments::product(
        GemmShape::new(m, n, k, l),
        Operand::new(a.as_view(), k, m * k),
        Operand::new(b.as_view(), k, n * k),
        OutputOperand::new(d.as_view_mut(), n, m * n),
        alpha,
    )
    .with_scales(sa_d.as_view(), sb_d.as_view());
    gemm.run(&mut args, &stream).unwrap();
    drop(args);
    let got = stream.clone_dtoh(&d).unwrap();
    for batch in 0..l {
        for i in 0..m {
            for j in 0..n {
                let mut want = 0.0f64;
                for block in 0..kb {
                    let dot: f64 = (block * 128..k.min(block * 128 + 128))
                        .map(|kk| {
                            a_host[(batch * m + i) * k + kk] * b_host[(batch * n + j) * k + kk]
                        })
                        .sum();
                    let scale = f64::from(sa[(batch * m + i) * kb + block])
                        * f64::from(sb[(batch * nb + j / 128) * kb + block]);
                    want += scale * dot;
                }
                assert_eq!(
                    f64::from(got[(batch * m + i) * n + j]),
                    alpha * want,
                    "{what} {m}x{n}x{k}x{l}: D[{batch}][{i}][{j}]"
                );
            }
        }
    }
}

#[test]
fn block_scaled_fp8_gemms_apply_each_blocks_scales() {
    let Some(device) = sm90_or_skip(
        "block_scaled_fp8_gemms_apply_each_blocks_scales",
        "FP8 GEMMs",
    ) else {
        return;
    };
    // The pick: large, ragged in M, N and K (K a multiple of 16, not of
    // 128), decode (swap-AB: A's scales along the kernel's N), a small M
    // with a long K (swapped and split), M = 128 (swapped, 64 columns),
    // batched.
    for shape in [
        (16, 2048, 8192, 1),
        (128, 1024, 2048, 1),
        (512, 384, 1024, 1),
        (200, 136, 528, 1),
        (16, 4096, 1024, 1),
        (136, 264, 384, 2),
    ] {
        check(&device, block_scaled(), shape, "pick");
    }
    // Swap-AB pinned, ragged: 40 rows of A are the kernel's columns.
    let swapped = block_scaled()
        .swap_ab(true)
        .schedule(KernelSchedule::TmaWarpSpecializedPingpong)
        .tile([64, 16, 128]);
    check(&device, swapped, (40, 200, 656, 2), "swap-AB 64x16");
    let ping_pong = block_scaled().schedule(KernelSchedule::TmaWarpSpecializedPingpong);
    check(&device, ping_pong, (200, 320, 656, 1), "ping-pong");
    check(
        &device,
        block_scaled().tile([128, 64, 128]),
        (264, 200, 1024, 1),
        "TileN 64",
    );
    // The cooperative 128x128 kernel, whose consumers promote in turns in
    // rounds of 8 k-tiles: 6 k-tiles (a round left early) and 12 (one
    // round and 4), the last one partial.
    let cooperative = block_scaled()
        .schedule(KernelSchedule::TmaWarpSpecializedCooperative)
        .tile([128, 128, 128]);
    for shape in [(264, 200, 656, 1), (136, 264, 1424, 2)] {
        check(&device, cooperative.clone(), shape, "cooperative 128x128");
    }
    // K split across units: each unit's k-tiles read the scales of their
    // own blocks of K.
    for decomposition in [Decomposition::SplitK(3), Decomposition::StreamK] {
        check(
            &device,
            block_scaled().decomposition(decomposition),
            (200, 264, 4096, 1),
            &format!("{decomposition:?}"),
        );
    }
}

/// bf16 A (activations) and B (weights) quantized to e4m3 with 1x128 and
/// 128x128 block scales by `device::quantize`, multiplied by the
/// block-scaled GEMM: D is the product of the dequantized inputs
/// (`a_q · scale_a`, `b_q · scale_b`, read back from the device) to within
/// the wgmma's and f32's rounding, and A · B^T of the bf16 inputs to
/// within e4m3's (each factor within 2^-4 of itself).
#[test]
fn quantized_bf16_inputs_multiply_back_through_block_scales() {
    let Some(device) = sm90_or_skip(
        "quantized_bf16_inputs_multiply_back_through_block_scales",
        "FP8 GEMMs",
    ) else {
        return;
    };
    let stream = device.default_stream();
    let (m, n, k): (usize, usize, usize) = (256, 384, 1024);
    let (kb, nb) = (k / 128, n.div_ceil(128));
    // Blocks of very different sizes (2^-4 to 2^4), which one scale per
    // tensor would crush.
    let value = |i: usize, seed: usize| {
        let x = ((i * 2654435761 + seed) % 1000) as f64 / 1000.0 - 0.5;
        x * f64::powi(2.0, ((i / 128 + seed) % 9) as i32 - 4)
    };
    let to_bf16 = |len: usize, seed: usize| -> Vec<half::bf16> {
        (0..len)
            .map(|i| half::bf16::from_f64(value(i, seed)))
            .collect()
    };
    let (a16, b16) = (to_bf16(m * k, 1), to_bf16(n * k, 5));
    let a_in = stream.clone_htod(&a16).unwrap();
    let b_in = stream.clone_htod(&b16).unwrap();
    let mut a = stream.alloc_zeros::<F8E4M3>(m * k).unwrap();
    let mut b = stream.alloc_zeros::<F8E4M3>(n * k).unwrap();
    let mut sa = stream.alloc_zeros::<f32>(m * kb).unwrap();
    let mut sb = stream.alloc_zeros::<f32>(nb * kb).unwrap();
    quantize(
        &device,
        &a_in,
        [m, k],
        &mut a,
        &mut sa,
        QuantizeScale::Block1x128,
        &stream,
    )
    .unwrap();
    quantize(
        &device,
        &b_in,
        [n, k],
        &mut b,
        &mut sb,
        QuantizeScale::Block128x128,
        &stream,
    )
    .unwrap();
    let gemm = block_scaled().build(&device).unwrap();
    let mut d = stream.clone_htod(&vec![f32::NAN; m * n]).unwrap();
    let mut args =
        packed_product((m, n, k), &a, &b, &mut d, n, 1.0).with_scales(sa.as_view(), sb.as_view());
    gemm.run(&mut args, &stream).unwrap();
    drop(args);
    let got = stream.clone_dtoh(&d).unwrap();
    let (aq, bq) = (
        stream.clone_dtoh(&a).unwrap(),
        stream.clone_dtoh(&b).unwrap(),
    );
    let (sa, sb) = (
        stream.clone_dtoh(&sa).unwrap(),
        stream.clone_dtoh(&sb).unwrap(),
    );
    for i in 0..m {
        for j in 0..n {
            let (mut want, mut exact, mut magnitude) = (0.0f64, 0.0f64, 0.0f64);
            for kk in 0..k {
                let x = aq[i * k + kk].to_f64() * f64::from(sa[i * kb + kk / 128]);
                let y = bq[j * k + kk].to_f64() * f64::from(sb[(j / 128) * kb + kk / 128]);
                want += x * y;
                let p = f64::from(a16[i * k + kk]) * f64::from(b16[j * k + kk]);
                exact += p;
                magnitude += p.abs();
            }
            let got = f64::from(got[i * n + j]);
            // The wgmma sums a block's 128 FP8 products with about 14 bits
            // (DeepSeek-V3's figure for Hopper); a wrong block scale moves
            // D by a block's share of the magnitude.
            let tight = magnitude * f64::powi(2.0, -8);
            assert!(
                (got - want).abs() <= tight,
                "D[{i}][{j}] = {got} against the dequantized product {want}"
            );
            let loose = magnitude * (2.0 * 0.0625 + 0.0625 * 0.0625);
            assert!(
                (got - exact).abs() <= loose,
                "D[{i}][{j}] = {got} against the bf16 product {exact}"
            );
        }
    }
}

/// The block scales are checked before anything runs: missing, short for
/// A and for B.
#[test]
fn block_scale_errors_name_the_buffer() {
    let Some(device) = sm90_or_skip("block_scale_errors_name_the_buffer", "FP8 GEMMs") else {
        return;
    };
    let stream = device.default_stream();
    let (m, n, k): (usize, usize, usize) = (200, 300, 992);
    let kb = k.div_ceil(128);
    let a = stream.alloc_zeros::<F8E4M3>(m * k).unwrap();
    let b = stream.alloc_zeros::<F8E4M3>(n * k).unwrap();
    let sa = stream.alloc_zeros::<f32>(m * kb).unwrap();
    let sb = stream.alloc_zeros::<f32>(3 * kb).unwrap();
    let mut d = stream.clone_htod(&vec![f32::NAN; m * n]).unwrap();
    let gemm = block_scaled().build(&device).unwrap();
    let err = gemm
        .run(
            &mut packed_product((m, n, k), &a, &b, &mut d, n, 1.0),
            &stream,
        )
        .unwrap_err();
    assert!(err.to_string().contains("scales of A and B"), "{err}");
    let mut short_a = packed_product((m, n, k), &a, &b, &mut d, n, 1.0)
        .with_scales(sa.slice(..m * kb - 1), sb.as_view());
    let err = gemm.run(&mut short_a, &stream).unwrap_err();
    assert!(
        err.to_string().contains("block scales of A length"),
        "{err}"
    );
    drop(short_a);
    let mut short_b = packed_product((m, n, k), &a, &b, &mut d, n, 1.0)
        .with_scales(sa.as_view(), sb.slice(..2 * kb));
    let err = gemm.run(&mut short_b, &stream).unwrap_err();
    assert!(
        err.to_string().contains("block scales of B length"),
        "{err}"
    );
    drop(short_b);
    // Nothing was written.
    assert!(stream.clone_dtoh(&d).unwrap().iter().all(|x| x.is_nan()));
}
