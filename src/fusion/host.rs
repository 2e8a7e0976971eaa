//! Host-side reference helpers: rounding to an element type's values, and
//! erf (exact, and the approximation the GPU uses). Tests reuse these.

use crate::numeric::ElementType;

/// `x` rounded to the nearest value of `ty`, as an f64: round to nearest
/// even for f16, bf16, f32 (overflow gives ±inf, subnormals kept), nearest
/// with ties away for tf32 (as `cvt.rna.tf32.f32`); toward zero with
/// saturation for the integers (NaN gives 0, as PTX `cvt.rzi` and Rust `as`
/// do); to nearest even with saturation for FP8 (as `cvt.rn.satfinite`:
/// past the largest finite value, that value); f64 unchanged.
///
/// ```
/// use cutlet::fusion::host::round_to;
/// use cutlet::numeric::ElementType;
///
/// assert_eq!(round_to(ElementType::F16, 1.0 + 1.0 / 4096.0), 1.0);
/// assert_eq!(round_to(ElementType::F16, 65520.0), f64::INFINITY);
/// assert_eq!(round_to(ElementType::BF16, 1.0 + 3.0 / 256.0), 1.0 + 1.0 / 64.0);
/// assert_eq!(round_to(ElementType::I32, -2.7), -2.0);
/// assert_eq!(round_to(ElementType::I32, 1e12), 2147483647.0);
/// assert_eq!(round_to(ElementType::F8E4M3, 1.0 + 1.0 / 16.0), 1.0); // a tie: to even
/// assert_eq!(round_to(ElementType::F8E4M3, 460.0), 448.0); // saturated
/// assert_eq!(round_to(ElementType::F8E5M2, -1e6), -57344.0);
/// assert_eq!(round_to(ElementType::F8E4M3, 0.001), 0.001953125); // the smallest subnormal, 2^-9
/// ```
pub fn round_to(ty: ElementType, x: f64) -> f64 {
    match ty {
        ElementType::F64 => x,
        ElementType::F32 => f64::from(x as f32),
        ElementType::F16 => round_float(x, 10, -14, 15, true),
        ElementType::BF16 => round_float(x, 7, -126, 127, true),
        ElementType::TF32 => round_float(x, 10, -126, 127, false),
        ElementType::I32 => f64::from(x as i32),
        ElementType::I8 => f64::from(x as i8),
        ElementType::U8 => f64::from(x as u8),
        // FP8 as the kernels convert to it (`cvt.rn.satfinite`): to nearest,
        // ties to even, and past the largest finite value that value.
        ElementType::F8E4M3 => saturate(round_float(x, 3, -6, 8, true), 448.0),
        ElementType::F8E5M2 => saturate(round_float(x, 2, -14, 15, true), 57344.0),
    }
}

/// `x` clamped to `±max` (NaN stays NaN).
fn saturate(x: f64, max: f64) -> f64 {
    if x.abs() > max {
        max.copysign(x)
    } else {
        x
    }
}

/// `2^e` exactly, for `e` in the normal range of f64.
fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// Rounds `x` to a binary format of `fraction` stored bits and exponents
/// `emin..=emax` (subnormals below `emin`).
fn round_float(x: f64, fraction: i32, emin: i32, emax: i32, ties_even: bool) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let biased = ((x.to_bits() >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // An f64 subnormal is far below half the smallest subnormal of every
        // target format.
        return 0.0_f64.copysign(x);
    }
    let exponent = (biased - 1023).max(emin);
    let ulp = pow2(exponent - fraction);
    let scaled = x / ulp;
    let rounded = if ties_even {
        scaled.round_ties_even()
    } else {
        scaled.round()
    } * ulp;
    let max = (2.0 - pow2(-fraction)) * pow2(emax);
    if rounded.abs() > max {
        f64::INFINITY.copysign(x)
    } else {
        rounded
    }
}

/// erf in f64 to a few 1e-15 (absolute): `2/√π · e^(-x²) · Σ (2x²)^n x / (2n+1)!!`,
/// a series of positive terms (no cancellation) for `|x| < 6`, and ±1
/// beyond (erfc(6) ≈ 2e-17 is below half an ulp of 1).
///
/// ```
/// use cutlet::fusion::host::erf;
///
/// assert!((erf(0.5) - 0.5204998778130465).abs() < 1e-15);
/// assert_eq!(erf(-7.0), -1.0);
/// ```
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.abs() >= 6.0 {
        return 1.0_f64.copysign(x);
    }
    let x2 = x * x;
    let mut term = x;
    let mut sum = x;
    let mut n = 0.0;
    while term.abs() > sum.abs() * 1e-17 {
        n += 1.0;
        term *= 2.0 * x2 / (2.0 * n + 1.0);
        sum += term;
    }
    std::f64::consts::FRAC_2_SQRT_PI * (-x2).exp() * sum
}

/// Abramowitz & Stegun, Handbook of Mathematical Functions (1964), formula
/// 7.1.26: `1 - erf(x) = (a1 t + a2 t² + a3 t³ + a4 t⁴ + a5 t⁵) e^(-x²)`,
/// `t = 1/(1 + p x)`, `x >= 0`, published error `|ε| <= 1.5e-7`.
pub const AS7126: As7126 = As7126 {
    p: 0.327_591_1,
    a: [
        0.254_829_592,
        -0.284_496_736,
        1.421_413_741,
        -1.453_152_027,
        1.061_405_429,
    ],
};

/// The coefficients of [`AS7126`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct As7126 {
    /// `p` in `t = 1/(1 + p x)`.
    pub p: f64,
    /// `a1..a5`.
    pub a: [f64; 5],
}

/// erfc(|x|) by [`AS7126`]: the quantity the GPU's `gelu_erf` computes
/// (`q`, with `1 + erf(x) = 2 - q` for `x >= 0` and `q` below).
pub fn erfc_abs_as7126(x: f64) -> f64 {
    let y = x.abs();
    let t = 1.0 / (1.0 + AS7126.p * y);
    let poly = AS7126.a.iter().rev().fold(0.0, |acc, a| (acc + a) * t);
    poly * (-y * y).exp()
}

/// erf by [`AS7126`], odd-extended to negative `x`.
///
/// ```
/// use cutlet::fusion::host::{erf, erf_as7126};
///
/// assert!((erf_as7126(0.7) - erf(0.7)).abs() < 1.5e-7);
/// ```
pub fn erf_as7126(x: f64) -> f64 {
    (1.0 - erfc_abs_as7126(x)).copysign(x)
}
