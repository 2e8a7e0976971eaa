//! Small host helpers for checking what a kernel wrote. A GPU test opens
//! its device with `cutlet_harness::device_or_skip`, which skips with a
//! printed reason where there is no GPU (set `CUTLET_REQUIRE_GPU=1` on a GPU
//! machine so that a missing driver or GPU fails the tests instead).

use rand::distr::uniform::SampleUniform;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A seeded RNG, so a failing test can be replayed.
pub fn seeded_rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

/// `len` values drawn uniformly from `[low, high)` with a seeded RNG.
pub fn random_vec<T: SampleUniform + PartialOrd + Copy>(
    seed: u64,
    len: usize,
    low: T,
    high: T,
) -> Vec<T> {
    let mut rng = seeded_rng(seed);
    (0..len).map(|_| rng.random_range(low..high)).collect()
}

/// A value no correct kernel in these tests writes: fill outputs with it
/// before a launch so an element the kernel skipped is caught.
pub const POISON_U32: u32 = 0xDEAD_BEEF;

/// The poison for `f32` outputs: NaN, which [`max_relative_error`] turns
/// into an infinite error wherever the kernel left it.
pub const POISON_F32: f32 = f32::NAN;

/// `len` copies of `poison`.
pub fn poisoned<T: Copy>(len: usize, poison: T) -> Vec<T> {
    vec![poison; len]
}

/// The largest `|got - want| / max(|want|, floor)` over both slices; NaN
/// anywhere in `got` (a poisoned element left unwritten) gives infinity.
/// Panics when the lengths differ: that is a bug in the test.
pub fn max_relative_error(got: &[f32], want: &[f32], floor: f32) -> f32 {
    assert_eq!(got.len(), want.len(), "compared slices differ in length");
    got.iter()
        .zip(want)
        .map(|(&g, &w)| {
            if g.is_nan() {
                f32::INFINITY
            } else {
                (g - w).abs() / w.abs().max(floor)
            }
        })
        .fold(0.0, f32::max)
}

/// The first index where `got` and `want` differ, with both values.
pub fn first_mismatch<T: PartialEq + Copy>(got: &[T], want: &[T]) -> Option<(usize, T, T)> {
    assert_eq!(got.len(), want.len(), "compared slices differ in length");
    got.iter()
        .zip(want)
        .enumerate()
        .find(|(_, (g, w))| g != w)
        .map(|(i, (&g, &w))| (i, g, w))
}
