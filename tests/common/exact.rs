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
