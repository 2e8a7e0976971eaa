//! The SM90 kernels with e4m3 / e5m2 inputs (K-major A and B, f32
//! accumulators) against the host: small integers, which FP8 holds exactly
//! and f32 sums exactly, for every A/B type pair, the builder's pick and
//! pinned tiles, ragged M and N, K a multiple of 16 (TMA's 16-byte row
//! stride), alpha as the per-tensor scale, with fast accumulation and with
//! promotion; a sum whose low bits only promotion keeps; and promotion in
//! turns against promotion with one set, bit for bit.

use cutlet::device::gemm::{Decomposition, Gemm};
use cutlet::float8::{F8E4M3, F8E5M2};
use cutlet::gemm::{OperandMajor, OutputMajor};
use cutlet::kernel::gemm::{KernelSchedule, ScaleGranularity};
use cutlet::numeric::{Element, ElementType};
use cutlet_harness::{packed_product, sm90_or_skip, small_ints};

/// `values` in the FP8 type `T` (exact for the small integers here).
fn fp8<T: Fp8>(values: &[f64]) -> Vec<T> {
    values.iter().map(|&v| T::of(v)).collect()
}

trait Fp8: Element + cudarc::driver::DeviceRepr {
    fn of(v: f64) -> Self;
}
impl Fp8 for F8E4M3 {
    fn of(v: f64) -> Self {
        F8E4M3::from_f64(v)
    }
}
impl Fp8 for F8E5M2 {
    fn of(v: f64) -> Self {
        F8E5M2::from_f64(v)
    }
}

fn check<A: Fp8, B: Fp8>(
    device: &cutlet::device::Device,
    (m, n, k): (usize, usize, usize),
    tile: Option<[u32; 3]>,
    fast: bool,
) {
    let stream = device.default_stream();
    let (a_host, b_host) = (small_ints(m * k, 1), small_ints(n * k, 2));
    let a = stream.clone_htod(&fp8::<A>(&a_host)).unwrap();
    let b = stream.clone_htod(&fp8::<B>(&b_host)).unwrap();
    let mut d = stream.clone_htod(&vec![f32::NAN; m * n]).unwrap();
    let mut builder = Gemm::builder()
        .a(A::TYPE, OperandMajor::K)
        .b(B::TYPE, OperandMajor::K)
        .d(ElementType::F32, OutputMajor::N)
        .fast_accumulation(fast);
    if let Some(tile) = tile {
        builder = builder.tile(tile);
        if tile[0] == 64 {
            // A 64-row tile is one consumer warpgroup's: the ping-pong kernel.
            builder = builder.schedule(KernelSchedule::TmaWarpSpecializedPingpong);
        }
    }
    let gemm = builder.build(device).unwrap();
    let alpha = 0.5;
    let mut args = packed_product((m, n, k), &a, &b, &mut d, n, alpha);
    gemm.run(&mut args, &stream).unwrap();
    let got = stream.clone_dtoh(&d).unwrap();
    for i in 0..m {
        for j in 0..n {
            let want: f64 = alpha
                * (0..k)
                    .map(|kk| a_host[i * k + kk] * b_host[j * k + kk])
                    .sum::<f64>();
            assert_eq!(
                f64::from(got[i * n + j]),
                want,
                "{} x {} {m}x{n}x{k} {tile:?} fast {fast}: D[{i}][{j}]",
                A::TYPE,
                B::TYPE
            );
        }
    }
}

#[test]
fn fp8_gemms_compute_small_integers_exactly() {
    let Some(device) = sm90_or_skip("fp8_gemms_compute_small_integers_exactly", "FP8 GEMMs") else {
        return;
    };
    for fast in [true, false] {
        for shape in [
            (128, 128, 128),
            (200, 136, 512),
            (1000, 1000, 1024),
            (16, 4096, 4096),
        ] {
            check::<F8E4M3, F8E4M3>(&device, shape, None, fast);
        }
        check::<F8E4M3, F8E5M2>(&device, (256, 256, 256), None, fast);
        check::<F8E5M2, F8E4M3>(&device, (256, 256, 256), None, fast);
        check::<F8E5M2, F8E5M2>(&device, (256, 256, 256), None, fast);
    }
    for tile in [
        [128, 128, 128],
        [128, 256, 128],
        [128, 128, 64],
        [64, 128, 128],
    ] {
        check::<F8E4M3, F8E4M3>(&device, (300, 264, 384), Some(tile), true);
    }
    for tile in [[128, 128, 128], [128, 128, 64], [64, 128, 128]] {
        check::<F8E4M3, F8E4M3>(&device, (300, 264, 384), Some(tile), false);
    }
}

/// D = A · B where each row of A and column of B holds 256 in its first
/// 128 elements of K and 1 in the other 1024: each element is
/// 2^23 + 1024. The first 128 products sum to 2^23, where f32's unit in
/// the last place is 1 and the wgmma's running sum (about 22 bits) keeps
/// steps of 2 or more; promotion adds each later interval's 128 exactly.
#[test]
fn promotion_keeps_the_low_bits_of_a_long_sum() {
    let Some(device) = sm90_or_skip("promotion_keeps_the_low_bits_of_a_long_sum", "FP8 GEMMs")
    else {
        return;
    };
    let (m, n, k) = (128, 128, 1152);
    let row: Vec<F8E4M3> = (0..k)
        .map(|kk| F8E4M3::from_f64(if kk < 128 { 256.0 } else { 1.0 }))
        .collect();
    let stream = device.default_stream();
    let a = stream.clone_htod(&row.repeat(m)).unwrap();
    let b = stream.clone_htod(&row.repeat(n)).unwrap();
    let want = f64::from(1u32 << 23) + 1024.0;
    let mut got_fast = 0.0;
    for fast in [false, true] {
        let gemm = Gemm::builder()
            .a(ElementType::F8E4M3, OperandMajor::K)
            .b(ElementType::F8E4M3, OperandMajor::K)
            .d(ElementType::F32, OutputMajor::N)
            .fast_accumulation(fast)
            .build(&device)
            .unwrap();
        let mut d = stream.clone_htod(&vec![f32::NAN; m * n]).unwrap();
        let mut args = packed_product((m, n, k), &a, &b, &mut d, n, 1.0);
        gemm.run(&mut args, &stream).unwrap();
        let got = stream.clone_dtoh(&d).unwrap();
        if fast {
            got_fast = f64::from(got[0]);
        } else {
            for (i, &v) in got.iter().enumerate() {
                assert_eq!(f64::from(v), want, "promoting: D[{}][{}]", i / n, i % n);
            }
        }
    }
    println!("fast accumulation gives {got_fast} where the sum is {want}");
}

/// `D = scale_a · scale_b · (A · B)` with per-tensor and row-wise scales
/// (powers of two, so the small-integer products stay exact), through the
/// builder's pick at a large, a ragged and a decode shape (swap-AB, whose
/// kernel reads the scales on the other axes), with promotion and fast
/// accumulation; and the errors of missing, unexpected and short scales.
#[test]
fn scaled_fp8_gemms_multiply_by_the_scales() {
    let Some(device) = sm90_or_skip("scaled_fp8_gemms_multiply_by_the_scales", "FP8 GEMMs") else {
        return;
    };
    let stream = device.default_stream();
    for granularity in [ScaleGranularity::Tensor, ScaleGranularity::RowCol] {
        for fast in [false, true] {
            for (m, n, k) in [(512, 384, 1024), (200, 136, 512), (16, 4096, 1024)] {
                let (a_host, b_host) = (small_ints(m * k, 3), small_ints(n * k, 4));
                let a = stream.clone_htod(&fp8::<F8E4M3>(&a_host)).unwrap();
                let b = stream.clone_htod(&fp8::<F8E4M3>(&b_host)).unwrap();
                let (sa, sb): (Vec<f32>, Vec<f32>) = match granularity {
                    ScaleGranularity::Tensor => (vec![0.25], vec![8.0]),
                    _ => (
                        (0..m).map(|i| [0.5, 1.0, 2.0][i % 3]).collect(),
                        (0..n).map(|j| [0.25, 4.0, 1.0, 0.5][j % 4]).collect(),
                    ),
                };
                let (sa_d, sb_d) = (
                    stream.clone_htod(&sa).unwrap(),
                    stream.clone_htod(&sb).unwrap(),
                );
                let gemm = Gemm::builder()
                    .a(ElementType::F8E4M3, OperandMajor::K)
                    .b(ElementType::F8E4M3, OperandMajor::K)
                    .d(ElementType::F32, OutputMajor::N)
                    .fast_accumulation(fast)
                    .scales(granularity)
                    .build(&device)
                    .unwrap();
                let mut d = stream.clone_htod(&vec![f32::NAN; m * n]).unwrap();
                let alpha = 0.5;
                let mut args = packed_product((m, n, k), &a, &b, &mut d, n, alpha)
                    .with_scales(sa_d.as_view(), sb_d.as_view());
                gemm.run(&mut args, &stream).unwrap();
                drop(args);
                let got = stream.clone_dtoh(&d).unwrap();
                let scale = |i: usize, j: usize| match granularity {
                    ScaleGranularity::Tensor => f64::from(sa[0] * sb[0]),
                    _ => f64::from(sa[i]) * f64::from(sb[j]),
                };
                for i in 0..m {
                    for j in 0..n {
                        let dot: f64 = (0..k)
                            .map(|kk| a_host[i * k + kk] * b_host[j * k + kk])
                            .sum();
                        assert_eq!(
                            f64::from(got[i * n + j]),
                            alpha * scale(i, j) * dot,
                            "{granularity:?} fast {fast} {m}x{n}x{k}: D[{i}][{j}]"
                        );
                    }
                }
                // The scales belong to the GEMM's own kind: a missing pair
                // and a short vector are errors that name them.
                let mut unscaled = packed_product((m, n, k), &a, &b, &mut d, n, alpha);
                let err = gemm.run(&mut unscaled, &stream).unwrap_err();
                assert!(err.to_string().contains("scales of A and B"), "{err}");
                drop(unscaled);
                if granularity == ScaleGranularity::RowCol {
                    let mut short = packed_product((m, n, k), &a, &b, &mut d, n, alpha)
                        .with_scales(sa_d.slice(..m - 1), sb_d.as_view());
                    let err = gemm.run(&mut short, &stream).unwrap_err();
                    assert!(err.to_string().contains("scale of A length"), "{err}");
                }
            }
        }
    }
}

/// The typed front door takes the FP8 host types: `build_typed::<F8E4M3,
/// F8E4M3, bf16>` picks the SM90 kernel and its `run` takes buffers of
/// exactly those types.
#[test]
fn typed_fp8_gemm_runs() {
    let Some(device) = sm90_or_skip("typed_fp8_gemm_runs", "FP8 GEMMs") else {
        return;
    };
    let (m, n, k) = (128, 256, 256);
    let stream = device.default_stream();
    let (a_host, b_host) = (small_ints(m * k, 5), small_ints(n * k, 6));
    let a = stream.clone_htod(&fp8::<F8E4M3>(&a_host)).unwrap();
    let b = stream.clone_htod(&fp8::<F8E4M3>(&b_host)).unwrap();
    let mut d = stream.clone_htod(&vec![half::bf16::ZERO; m * n]).unwrap();
    let gemm = Gemm::builder()
        .build_typed::<F8E4M3, F8E4M3, half::bf16>(&device)
        .unwrap();
    let mut args = packed_product((m, n, k), &a, &b, &mut d, n, 1.0);
    gemm.run(&mut args, &stream).unwrap();
    drop(args);
    let got = stream.clone_dtoh(&d).unwrap();
    for i in 0..m {
        for j in 0..n {
            let dot: f64 = (0..k)
                .map(|kk| a_host[i * k + kk] * b_host[j * k + kk])
                .sum();
            // |dot| <= 16 * 256 = 4096: bf16 holds it to 8 bits.
            let want = half::bf16::from_f64(dot);
            assert_eq!(got[i * n + j], want, "D[{i}][{j}]");
        }
    }
}

/// Split-K (the epilogue after the partial tiles are added in K order) with row-wise and per-tensor scales, both accumulations:
/// `D = alpha · scale_a · scale_b · (A · B)` exactly.
#[test]
fn split_k_scaled_fp8_gemms_multiply_by_the_scales() {
    let Some(device) = sm90_or_skip(
        "split_k_scaled_fp8_gemms_multiply_by_the_scales",
        "FP8 GEMMs",
    ) else {
        return;
    };
    let (m, n, k) = (200, 264, 4096);
    let stream = device.default_stream();
    let (a_host, b_host) = (small_ints(m * k, 7), small_ints(n * k, 8));
    let a = stream.clone_htod(&fp8::<F8E4M3>(&a_host)).unwrap();
    let b = stream.clone_htod(&fp8::<F8E4M3>(&b_host)).unwrap();
    let sa: Vec<f32> = (0..m).map(|i| [2.0, 0.5][i % 2]).collect();
    let sb: Vec<f32> = (0..n).map(|j| [0.25, 1.0, 4.0][j % 3]).collect();
    let (sa_d, sb_d) = (
        stream.clone_htod(&sa).unwrap(),
        stream.clone_htod(&sb).unwrap(),
    );
    for granularity in [ScaleGranularity::RowCol, ScaleGranularity::Tensor] {
        for fast in [false, true] {
            let gemm = Gemm::builder()
                .a(ElementType::F8E4M3, OperandMajor::K)
                .b(ElementType::F8E4M3, OperandMajor::K)
                .d(ElementType::F32, OutputMajor::N)
                .fast_accumulation(fast)
                .scales(granularity)
                .decomposition(Decomposition::SplitK(4))
                .build(&device)
                .unwrap();
            let mut d = stream.clone_htod(&vec![f32::NAN; m * n]).unwrap();
            let mut args = packed_product((m, n, k), &a, &b, &mut d, n, 2.0).with_scales(
                match granularity {
                    ScaleGranularity::Tensor => sa_d.slice(..1),
                    _ => sa_d.as_view(),
                },
                match granularity {
                    ScaleGranularity::Tensor => sb_d.slice(..1),
                    _ => sb_d.as_view(),
                },
            );
            gemm.run(&mut args, &stream).unwrap();
            drop(args);
            let got = stream.clone_dtoh(&d).unwrap();
            for i in 0..m {
                for j in 0..n {
                    let scale = match granularity {
                        ScaleGranularity::Tensor => f64::from(sa[0]) * f64::from(sb[0]),
                        _ => f64::from(sa[i]) * f64::from(sb[j]),
                    };
                    let dot: f64 = (0..k)
                        .map(|kk| a_host[i * k + kk] * b_host[j * k + kk])
                        .sum();
                    assert_eq!(
                        f64::from(got[i * n + j]),
                        2.0 * scale * dot,
                        "split-K {granularity:?} fast {fast}: D[{i}][{j}]"
                    );
                }
            }
        }
    }
}

/// The cooperative 128x128 kernel, whose consumers promote in turns (two
/// partial sets, a round of 4 k-tiles), gives the same bits as the
/// ping-pong 64x128 kernel, whose consumers promote with one set: both add
/// each k-tile's wgmma sums into the f32 accumulators in K order. Values
/// with many mantissa bits (so that the order of the additions shows), f32
/// D, K from 0 to 13 k-tiles and past a few rounds, every count of k-tiles
/// left over by a round.
#[test]
fn promotion_in_turns_gives_the_bits_of_one_set() {
    let Some(device) = sm90_or_skip("promotion_in_turns_gives_the_bits_of_one_set", "FP8 GEMMs")
    else {
        return;
    };
    let stream = device.default_stream();
    let values = |len: usize, seed: u64| -> Vec<F8E4M3> {
        (0..len as u64)
            .map(|i| {
                let h = (i.wrapping_mul(2_654_435_761).wrapping_add(seed) >> 7) % 241;
                F8E4M3::from_f64(h as f64 / 16.0 - 7.5)
            })
            .collect()
    };
    let (m, n) = (192, 136);
    for k_tiles in [0, 1, 2, 3, 4, 5, 6, 7, 8, 13, 34] {
        let k = 128 * k_tiles;
        let a = stream.clone_htod(&values(m * k, 11)).unwrap();
        let b = stream.clone_htod(&values(n * k, 12)).unwrap();
        let run = |tile: [u32; 3], schedule| {
            let gemm = Gemm::builder()
                .a(ElementType::F8E4M3, OperandMajor::K)
                .b(ElementType::F8E4M3, OperandMajor::K)
                .d(ElementType::F32, OutputMajor::N)
                .fast_accumulation(false)
                .schedule(schedule)
                .tile(tile)
                .build(&device)
                .unwrap();
            let mut d = stream.clone_htod(&vec![f32::NAN; m * n]).unwrap();
            let mut args = packed_product((m, n, k), &a, &b, &mut d, n, 0.75);
            gemm.run(&mut args, &stream).unwrap();
            drop(args);
            stream.clone_dtoh(&d).unwrap()
        };
        let in_turns = run(
            [128, 128, 128],
            KernelSchedule::TmaWarpSpecializedCooperative,
        );
        let one_set = run([64, 128, 128], KernelSchedule::TmaWarpSpecializedPingpong);
        for (i, (x, y)) in in_turns.iter().zip(&one_set).enumerate() {
            assert_eq!(
                x.to_bits(),
                y.to_bits(),
                "K = {k}: D[{}][{}] {x} in turns, {y} with one set",
                i / n,
                i % n
            );
        }
        if k_tiles == 34 {
            // The sums carry rounding (so the order of the additions shows
            // in the bits): the first rows differ from the exact sums.
            let (a, b) = (values(m * k, 11), values(n * k, 12));
            let exact = |i: usize, j: usize| -> f64 {
                0.75 * (0..k)
                    .map(|kk| a[i * k + kk].to_f64() * b[j * k + kk].to_f64())
                    .sum::<f64>()
            };
            let rounded = (0..4 * n).filter(|&e| f64::from(in_turns[e]) != exact(e / n, e % n));
            assert!(
                rounded.count() > 0,
                "every sum exact: the test shows no order"
            );
        }
    }
}
