//! The exact-integer GEMM test bed's pieces (the sweep and the SM90
//! tests): host elements compared bit for bit, the smallest 16-byte-aligned
//! leading dimension, and small random integers.

use cudarc::driver::DeviceRepr;
use cutlet::numeric::{Element, ElementType};
use half::{bf16, f16};

use super::gpu::random_vec;

/// A host element a test stores and compares bit for bit.
pub trait Host: Element + DeviceRepr + Copy + Default + Unpin {
    /// The value, rounded to the element's type.
    fn from_f64(v: f64) -> Self;
    /// The element's bits.
    fn bits(self) -> u32;
    /// A NaN (the poison outputs start as).
    fn nan() -> Self;
}
impl Host for bf16 {
    fn from_f64(v: f64) -> Self {
        bf16::from_f64(v)
    }
    fn bits(self) -> u32 {
        u32::from(self.to_bits())
    }
    fn nan() -> Self {
        bf16::NAN
    }
}

impl Host for f16 {
    fn from_f64(v: f64) -> Self {
        f16::from_f64(v)
    }
    fn bits(self) -> u32 {
        u32::from(self.to_bits())
    }
    fn nan() -> Self {
        f16::NAN
    }
}

impl Host for f32 {
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn bits(self) -> u32 {
        self.to_bits()
    }
    fn nan() -> Self {
        f32::NAN
    }
}

/// The smallest leading dimension of `inner` elements that keeps 16-byte
/// alignment for `ty`.
pub fn min_ld(inner: usize, ty: ElementType) -> usize {
    let align = 16 / ty.size_bytes() as usize;
    inner.div_ceil(align) * align
}

/// Integers in `-span..=span`, drawn with a seeded RNG.
pub fn integers(seed: u64, len: usize, span: i32) -> Vec<f64> {
    random_vec(seed, len, -span, span + 1)
        .into_iter()
        .map(f64::from)
        .collect()
}

/// The elements of `got` (l batches of an `m x n` row-major D) that differ
/// from the exact sums of `a` (l batches of `m x k`, K-major) times `b`
/// (l batches of `n x k`, K-major): each sum in f64, compared as f32 (exact
/// for small integers, whatever order the kernel added them in). The first
/// five are printed under `test`.
pub fn wrong_products(
    test: &str,
    [m, n, k, l]: [usize; 4],
    a: &[f64],
    b: &[f64],
    got: &[f32],
) -> usize {
    let mut wrong = 0;
    for batch in 0..l {
        for i in 0..m {
            let row = &a[(batch * m + i) * k..][..k];
            for j in 0..n {
                let col = &b[(batch * n + j) * k..][..k];
                let want: f64 = row.iter().zip(col).map(|(x, y)| x * y).sum();
                let at = (batch * m + i) * n + j;
                if got[at] != want as f32 {
                    if wrong < 5 {
                        eprintln!(
                            "{test}: batch {batch} ({i}, {j}): {} against {want}",
                            got[at]
                        );
                    }
                    wrong += 1;
                }
            }
        }
    }
    wrong
}
