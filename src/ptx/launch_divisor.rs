//! Unsigned division by a divisor known only when the kernel is launched
//! (CUTLASS's `FastDivmod`): the host works out a multiplier and a shift,
//! the kernel multiplies and shifts.
//!
//! A `div.u32` by a register assembles to the driver's reciprocal sequence
//! (`I2F`, `MUFU.RCP`, `F2I`, `IMAD.HI` and fix-ups), dozens of cycles when
//! one division feeds the next. The tile walk divides its linear index three
//! times, one quotient feeding the next, before a block's first load: on an
//! H200 (2026-11-29) three more such divisions in that chain cost 0.2-0.3 µs
//! of a 5-9 µs GEMM. With the multiplier and shift passed as a parameter
//! ([`LaunchDivisor::param`]), a quotient is a 32 x 32 -> 64-bit multiply and a
//! 64-bit shift ([`Kernel::div_u32_by_param`]).
//!
//! For a divisor `d` with `p = ceil(log2 d)`, the multiplier is
//! `m = ceil(2^(31 + p) / d)`, which fits in 32 bits, and the quotient of
//! `n` is `(n · m) >> (31 + p)`. With `m · d = 2^(31 + p) + e`, `0 <= e <
//! d`, the product is `n / d` plus `n · e / (d · 2^(31 + p))`, less than
//! `1 / d` for every `n` below 2^31: the floor is `floor(n / d)`. The kernel
//! indices it divides stay below 2^31 (the launcher refuses larger walks).

use super::{Kernel, Reg, RegClass};

/// A divisor passed to a kernel at launch as one `.u64` parameter: the
/// multiplier in its low 32 bits, the shift in its high ones.
///
/// ```
/// use cutlet::ptx::LaunchDivisor;
///
/// let seven = LaunchDivisor::new(7).unwrap();
/// assert_eq!(seven.quotient(50), 7);
/// // p = 3: m = ceil(2^34 / 7) = 2454267027, shift 34.
/// assert_eq!(seven.param(), 2_454_267_027 | (34u64 << 32));
/// // 1 and powers of two are exact too.
/// assert_eq!(LaunchDivisor::new(1).unwrap().quotient(123), 123);
/// assert_eq!(LaunchDivisor::new(64).unwrap().quotient(4095), 63);
/// assert!(LaunchDivisor::new(0).is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchDivisor {
    divisor: u32,
    multiplier: u32,
    shift: u32,
}

impl LaunchDivisor {
    /// The largest numerator whose quotient is exact: 2^31 - 1.
    pub const MAX_NUMERATOR: u32 = (1 << 31) - 1;

    /// The divisor 1 (multiplier 2^31, shift 31).
    pub const ONE: LaunchDivisor = LaunchDivisor {
        divisor: 1,
        multiplier: 1 << 31,
        shift: 31,
    };

    /// The multiplier and shift of `divisor`; `None` for 0.
    pub fn new(divisor: u32) -> Option<LaunchDivisor> {
        if divisor == 0 {
            return None;
        }
        // p = ceil(log2 d): 0 for 1, s for 2^s.
        let p = 32 - (divisor - 1).leading_zeros();
        let shift = 31 + p;
        // 2^shift <= 2^63: one 64-bit division.
        let multiplier = (1u64 << shift).div_ceil(u64::from(divisor));
        Some(LaunchDivisor {
            divisor,
            multiplier: u32::try_from(multiplier).ok()?,
            shift,
        })
    }

    /// The divisor.
    pub fn divisor(self) -> u32 {
        self.divisor
    }

    /// The parameter's value: the multiplier, and the shift above it.
    pub fn param(self) -> u64 {
        u64::from(self.multiplier) | (u64::from(self.shift) << 32)
    }

    /// `n / divisor` computed as the kernel computes it: exact for `n` up
    /// to [`MAX_NUMERATOR`](Self::MAX_NUMERATOR).
    pub fn quotient(self, n: u32) -> u32 {
        ((u64::from(n) * u64::from(self.multiplier)) >> self.shift) as u32
    }
}

impl Kernel {
    /// `dst = src / d` (unsigned 32-bit) for a divisor `d` passed as
    /// `param`, a `.b64` register holding [`LaunchDivisor::param`]: a
    /// multiply and a shift, exact for `src` up to
    /// [`LaunchDivisor::MAX_NUMERATOR`]. `dst` may be `src`.
    ///
    /// ```
    /// use cutlet::ptx::{Kernel, RegClass};
    ///
    /// let mut k = Kernel::new("k").unwrap();
    /// let (n, q, d) = (k.reg(RegClass::B32), k.reg(RegClass::B32), k.reg(RegClass::B64));
    /// k.div_u32_by_param(q, n, d);
    /// let ptx = k.emit().unwrap();
    /// assert!(ptx.contains("mul.wide.u32"));
    /// assert!(ptx.contains("shr.b64"));
    /// assert!(!ptx.contains("div.u32"));
    /// ```
    pub fn div_u32_by_param(&mut self, dst: Reg, src: Reg, param: Reg) {
        let (multiplier, shift) = (self.reg(RegClass::B32), self.reg(RegClass::B32));
        let wide = self.reg(RegClass::B64);
        self.push(format!("mov.b64 {{{multiplier}, {shift}}}, {param};"));
        self.push(format!("mul.wide.u32 {wide}, {src}, {multiplier};"));
        self.push(format!("shr.b64 {wide}, {wide}, {shift};"));
        self.push(format!("cvt.u32.u64 {dst}, {wide};"));
    }
}

#[cfg(test)]
mod tests {
    use super::super::division_cases::{divisors, numerators, SMALL_DIVISORS};
    use super::LaunchDivisor;

    fn check(d: u32, n: u32) {
        let divisor = LaunchDivisor::new(d).unwrap();
        assert_eq!(divisor.quotient(n), n / d, "{n} / {d}: {divisor:?}");
    }

    #[test]
    fn every_divisor_divides_exactly_below_two_to_the_31() {
        for d in divisors() {
            for n in numerators(d, LaunchDivisor::MAX_NUMERATOR) {
                check(d, n);
            }
        }
    }

    #[test]
    fn small_divisors_divide_every_numerator_up_to_two_to_the_twenty() {
        let max = LaunchDivisor::MAX_NUMERATOR;
        for d in SMALL_DIVISORS {
            for n in (0..(1u32 << 20)).chain(max - (1 << 16)..=max) {
                check(d, n);
            }
        }
    }

    #[test]
    fn every_multiplier_fits_and_zero_has_none() {
        assert!(LaunchDivisor::new(0).is_none());
        assert_eq!(LaunchDivisor::new(1), Some(LaunchDivisor::ONE));
        for d in (1..=1u32 << 16).chain([u32::MAX, (1 << 31) + 1, 3_000_000_019]) {
            let divisor = LaunchDivisor::new(d).unwrap();
            assert_eq!(divisor.divisor(), d);
            assert!(divisor.param() >> 32 <= 63, "{d}: {divisor:?}");
        }
    }
}
