//! The proving kernel end to end on a GPU: PTX assembled from snippets, JIT
//! compiled, cached, launched, and checked element by element against the host.
//!
//! Each test skips with a printed reason where no driver or GPU is found
//! (and fails instead under `CUTLET_REQUIRE_GPU=1`).

mod common;

use common::gpu::{first_mismatch, random_vec};
use cutlet::device::{vector_add, Device};
use cutlet::Error;
use cutlet_harness::device_or_skip;
use half::f16;

/// Sizes with every tail length of both vector widths (4 f32, 8 f16), one
/// element, and sizes past one block and past the grid cap (grid-stride loop).
const SIZES: [usize; 12] = [
    1,
    3,
    4,
    7,
    8,
    9,
    15,
    257,
    1000,
    4099,
    1 << 20,
    (1 << 22) + 13,
];

fn check_f32(device: &Device, n: usize, seed: u64) {
    let stream = device.default_stream();
    let a = random_vec(seed, n, -1000.0f32, 1000.0);
    let b = random_vec(seed + 1, n, -1000.0f32, 1000.0);
    let da = stream.clone_htod(&a).unwrap();
    let db = stream.clone_htod(&b).unwrap();
    let mut dc = stream.clone_htod(&vec![f32::NAN; n]).unwrap();
    vector_add(device, &da, &db, &mut dc, &stream).unwrap();
    let got = stream.clone_dtoh(&dc).unwrap();
    // f32 addition rounds once on both sides: the results are bitwise equal.
    let want: Vec<u32> = a.iter().zip(&b).map(|(x, y)| (x + y).to_bits()).collect();
    let got: Vec<u32> = got.iter().map(|x| x.to_bits()).collect();
    assert_eq!(first_mismatch(&got, &want), None, "f32, n = {n}");
}

fn check_f16(device: &Device, n: usize, seed: u64) {
    let stream = device.default_stream();
    let a: Vec<f16> = random_vec(seed, n, -1000.0f32, 1000.0)
        .into_iter()
        .map(f16::from_f32)
        .collect();
    let b: Vec<f16> = random_vec(seed + 1, n, -1000.0f32, 1000.0)
        .into_iter()
        .map(f16::from_f32)
        .collect();
    let da = stream.clone_htod(&a).unwrap();
    let db = stream.clone_htod(&b).unwrap();
    let mut dc = stream.clone_htod(&vec![f16::NAN; n]).unwrap();
    vector_add(device, &da, &db, &mut dc, &stream).unwrap();
    let got = stream.clone_dtoh(&dc).unwrap();
    // The sum of two f16 values is exact in f64, so one rounding to f16
    // gives what add.rn.f16 computes: bitwise equal.
    let want: Vec<u16> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| f16::from_f64(x.to_f64() + y.to_f64()).to_bits())
        .collect();
    let got: Vec<u16> = got.iter().map(|x| x.to_bits()).collect();
    assert_eq!(first_mismatch(&got, &want), None, "f16, n = {n}");
}

#[test]
fn vector_add_f32_matches_the_host_on_every_tail() {
    let Some(device) = device_or_skip("vector_add_f32_matches_the_host_on_every_tail") else {
        return;
    };
    for (i, &n) in SIZES.iter().enumerate() {
        check_f32(&device, n, 100 + i as u64);
    }
}

#[test]
fn vector_add_f16_matches_the_host_on_every_tail() {
    let Some(device) = device_or_skip("vector_add_f16_matches_the_host_on_every_tail") else {
        return;
    };
    for (i, &n) in SIZES.iter().enumerate() {
        check_f16(&device, n, 200 + i as u64);
    }
}

#[test]
fn vector_add_of_empty_vectors_is_a_no_op() {
    let Some(device) = device_or_skip("vector_add_of_empty_vectors_is_a_no_op") else {
        return;
    };
    let stream = device.default_stream();
    let a = stream.alloc_zeros::<f32>(0).unwrap();
    let b = stream.alloc_zeros::<f32>(0).unwrap();
    let mut c = stream.alloc_zeros::<f32>(0).unwrap();
    vector_add(&device, &a, &b, &mut c, &stream).unwrap();
}

#[test]
fn vector_add_rejects_mismatched_lengths_and_types() {
    let Some(device) = device_or_skip("vector_add_rejects_mismatched_lengths_and_types") else {
        return;
    };
    let stream = device.default_stream();
    let a = stream.alloc_zeros::<f32>(10).unwrap();
    let b = stream.alloc_zeros::<f32>(9).unwrap();
    let mut c = stream.alloc_zeros::<f32>(10).unwrap();
    let err = vector_add(&device, &a, &b, &mut c, &stream).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
    assert!(
        err.to_string().contains("b.len()") && err.to_string().contains("10"),
        "{err}"
    );

    let a = stream.alloc_zeros::<i32>(4).unwrap();
    let b = stream.alloc_zeros::<i32>(4).unwrap();
    let mut c = stream.alloc_zeros::<i32>(4).unwrap();
    let err = vector_add(&device, &a, &b, &mut c, &stream).unwrap_err();
    assert!(err.to_string().contains("i32"), "{err}");
}
