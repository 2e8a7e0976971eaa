//! Unsigned 32-bit division and remainder by a divisor known when the
//! kernel is generated.
//!
//! The driver's assembler does not strength-reduce `div.u32` or `rem.u32`
//! by an immediate: `div.u32 %r1, %r0, 16384;` and even `div.u32 %r1, %r0,
//! 1;` assemble to the reciprocal sequence of a run-time division (`I2F`,
//! `MUFU.RCP`, `F2I`, `IMAD.HI` and fix-ups: about 15 SASS instructions,
//! several dozen cycles of latency when one division feeds the next), as
//! the SASS of cutlet's SM90 kernels under ncu showed (H200, 2026-11-29)
//! and ptxas 12.9 does for a one-line kernel. A C compiler
//! replaces such a division before PTX is written; cutlet's generator does
//! the same here:
//!
//! | divisor | quotient | remainder |
//! |---|---|---|
//! | 1 | `mov` | `mov 0` |
//! | 2^s | `shr.u32` by s | `and.b32` with 2^s - 1 |
//! | d with a 32-bit multiplier m and shift s exact for every u32 | `mul.hi.u32` by m, `shr.u32` by s | quotient, then `mul.lo.u32` and `sub.u32` |
//! | any other d | `mul.hi.u32` by m, `sub`, `shr` by 1, `add`, `shr` by l - 1 | as above |
//!
//! The multipliers are Granlund and Montgomery's ("Division by Invariant
//! Integers using Multiplication", PLDI 1994; Hacker's Delight, 2nd ed.,
//! 10-9): the product `m · d` lies in `[2^p, 2^p + 2^(p - 32)]`, so
//! `floor(m · n / 2^p) = floor(n / d)` for every 32-bit `n`. Where no such
//! m fits in 32 bits, the last row's form takes `m = floor(2^32 · (2^l -
//! d) / d) + 1` with `l = ceil(log2 d)` and adds the 33rd bit back without
//! overflow. The tests compute each plan's quotient on the host with
//! exactly the emitted operations (`DivideBy::quotient`) and check it
//! against `/`.

#[cfg(test)]
use std::fmt;

use super::{Kernel, Reg, RegClass};

/// How a quotient by a generation-time divisor is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DivideBy {
    /// The divisor is 0: PTX's own `div.u32` (whose result the ISA leaves
    /// undefined), so that generation never fails on it.
    Zero,
    /// The divisor is 1.
    One,
    /// The divisor is `1 << shift`.
    Shift { shift: u32 },
    /// `mul.hi.u32` by `multiplier`, then `shr.u32` by `shift`.
    MulShift { multiplier: u32, shift: u32 },
    /// `t = mul.hi(n, multiplier)`, then `(t + ((n - t) >> 1)) >> shift`.
    MulAddShift { multiplier: u32, shift: u32 },
}

impl DivideBy {
    /// The plan for `divisor`.
    pub(crate) fn new(divisor: u32) -> DivideBy {
        if divisor == 0 {
            return DivideBy::Zero;
        }
        if divisor == 1 {
            return DivideBy::One;
        }
        if divisor.is_power_of_two() {
            return DivideBy::Shift {
                shift: divisor.trailing_zeros(),
            };
        }
        let d = u128::from(divisor);
        // The shortest p whose multiplier ceil(2^p / d) is exact for every
        // 32-bit n and fits in 32 bits.
        for p in 32..64u32 {
            let power = 1u128 << p;
            let multiplier = power.div_ceil(d);
            if multiplier >= 1 << 32 {
                break;
            }
            if multiplier * d - power <= 1u128 << (p - 32) {
                return DivideBy::MulShift {
                    multiplier: multiplier as u32,
                    shift: p - 32,
                };
            }
        }
        let l = 32 - (divisor - 1).leading_zeros();
        let multiplier = ((1u128 << 32) * ((1u128 << l) - d) / d + 1) as u32;
        DivideBy::MulAddShift {
            multiplier,
            shift: l - 1,
        }
    }

    /// `n / divisor` computed with the plan's own 32-bit operations (for
    /// `Zero`, `u32::MAX` by convention: the ISA leaves it undefined, and
    /// no kernel divides by a constant 0).
    #[cfg(test)]
    pub(crate) fn quotient(self, n: u32) -> u32 {
        let mul_hi = |m: u32| ((u64::from(n) * u64::from(m)) >> 32) as u32;
        match self {
            DivideBy::Zero => u32::MAX,
            DivideBy::One => n,
            DivideBy::Shift { shift } => n >> shift,
            DivideBy::MulShift { multiplier, shift } => mul_hi(multiplier) >> shift,
            DivideBy::MulAddShift { multiplier, shift } => {
                let t = mul_hi(multiplier);
                (((n - t) >> 1) + t) >> shift
            }
        }
    }
}

impl Kernel {
    /// `dst = src / divisor` (unsigned 32-bit) for a divisor known now,
    /// without the run-time division sequence `div.u32` assembles to (see
    /// the module docs). `dst` may be `src`.
    ///
    /// ```
    /// use cutlet::ptx::{Kernel, RegClass};
    ///
    /// let mut k = Kernel::new("k").unwrap();
    /// let (n, q) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
    /// k.div_u32_by(q, n, 64);
    /// k.div_u32_by(q, n, 3);
    /// let ptx = k.emit().unwrap();
    /// // 64 = 2^6: a shift.
    /// assert!(ptx.contains(&format!("shr.u32 {q}, {n}, 6;")));
    /// // 3: n * ceil(2^33 / 3) / 2^33, exact for every 32-bit n.
    /// assert!(ptx.contains(&format!("mul.hi.u32 {q}, {n}, 2863311531;")));
    /// assert!(ptx.contains(&format!("shr.u32 {q}, {q}, 1;")));
    /// assert!(!ptx.contains("div.u32"));
    /// ```
    pub fn div_u32_by(&mut self, dst: Reg, src: Reg, divisor: u32) {
        match DivideBy::new(divisor) {
            DivideBy::Zero => self.push(format!("div.u32 {dst}, {src}, 0;")),
            DivideBy::One => {
                if dst != src {
                    self.push(format!("mov.u32 {dst}, {src};"));
                }
            }
            DivideBy::Shift { shift } => self.push(format!("shr.u32 {dst}, {src}, {shift};")),
            DivideBy::MulShift { multiplier, shift } => {
                self.push(format!("mul.hi.u32 {dst}, {src}, {multiplier};"));
                if shift > 0 {
                    self.push(format!("shr.u32 {dst}, {dst}, {shift};"));
                }
            }
            DivideBy::MulAddShift { multiplier, shift } => {
                let t = self.reg(RegClass::B32);
                self.push(format!("mul.hi.u32 {t}, {src}, {multiplier};"));
                self.push(format!("sub.u32 {dst}, {src}, {t};"));
                self.push(format!("shr.u32 {dst}, {dst}, 1;"));
                self.push(format!("add.u32 {dst}, {dst}, {t};"));
                self.push(format!("shr.u32 {dst}, {dst}, {shift};"));
            }
        }
    }

    /// `dst = src % divisor` (unsigned 32-bit) for a divisor known now, as
    /// [`div_u32_by`](Self::div_u32_by) divides. `dst` may be `src`.
    ///
    /// ```
    /// use cutlet::ptx::{Kernel, RegClass};
    ///
    /// let mut k = Kernel::new("k").unwrap();
    /// let (n, r) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
    /// k.rem_u32_by(r, n, 8);
    /// let ptx = k.emit().unwrap();
    /// assert!(ptx.contains(&format!("and.b32 {r}, {n}, 7;")));
    /// ```
    pub fn rem_u32_by(&mut self, dst: Reg, src: Reg, divisor: u32) {
        match DivideBy::new(divisor) {
            DivideBy::Zero => self.push(format!("rem.u32 {dst}, {src}, 0;")),
            DivideBy::One => self.push(format!("mov.u32 {dst}, 0;")),
            DivideBy::Shift { shift } => {
                let mask = (1u32 << shift) - 1;
                self.push(format!("and.b32 {dst}, {src}, {mask};"));
            }
            DivideBy::MulShift { .. } | DivideBy::MulAddShift { .. } => {
                let q = self.reg(RegClass::B32);
                self.div_u32_by(q, src, divisor);
                self.push(format!("mul.lo.u32 {q}, {q}, {divisor};"));
                self.push(format!("sub.u32 {dst}, {src}, {q};"));
            }
        }
    }
}

impl Kernel {
    /// [`div_u32_by`](Self::div_u32_by) for a layout extent (CuTe's shapes
    /// are `i64`); an extent outside `1..=u32::MAX` (which no 32-bit index
    /// divides) falls back to `div.u32` as written.
    pub(crate) fn div_u32_by_extent(&mut self, dst: Reg, src: Reg, extent: i64) {
        match u32::try_from(extent) {
            Ok(d) if d > 0 => self.div_u32_by(dst, src, d),
            _ => self.push(format!("div.u32 {dst}, {src}, {extent};")),
        }
    }

    /// [`rem_u32_by`](Self::rem_u32_by) for a layout extent, as
    /// [`div_u32_by_extent`](Self::div_u32_by_extent) divides.
    pub(crate) fn rem_u32_by_extent(&mut self, dst: Reg, src: Reg, extent: i64) {
        match u32::try_from(extent) {
            Ok(d) if d > 0 => self.rem_u32_by(dst, src, d),
            _ => self.push(format!("rem.u32 {dst}, {src}, {extent};")),
        }
    }
}

#[cfg(test)]
impl fmt::Display for DivideBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DivideBy::Zero => f.write_str("div.u32 by 0"),
            DivideBy::One => f.write_str("mov"),
            DivideBy::Shift { shift } => write!(f, "shr {shift}"),
            DivideBy::MulShift { multiplier, shift } => {
                write!(f, "mul.hi {multiplier}, shr {shift}")
            }
            DivideBy::MulAddShift { multiplier, shift } => {
                write!(f, "mul.hi {multiplier}, sub, shr 1, add, shr {shift}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::division_cases::{divisors, numerators, SMALL_DIVISORS};
    use super::DivideBy;

    fn check(d: u32, n: u32) {
        let plan = DivideBy::new(d);
        assert_eq!(plan.quotient(n), n / d, "{n} / {d} by {plan}");
    }

    #[test]
    fn every_plan_divides_exactly() {
        for d in divisors() {
            for n in numerators(d, u32::MAX) {
                check(d, n);
            }
        }
    }

    #[test]
    fn small_divisors_divide_every_numerator_up_to_two_to_the_twenty() {
        for d in SMALL_DIVISORS {
            for n in 0..(1u32 << 20) {
                check(d, n);
            }
            for n in (u32::MAX - (1 << 16))..=u32::MAX {
                check(d, n);
            }
        }
    }

    #[test]
    fn plans_are_the_cheap_ones_where_they_exist() {
        assert_eq!(DivideBy::new(1), DivideBy::One);
        assert_eq!(DivideBy::new(16_384), DivideBy::Shift { shift: 14 });
        assert!(matches!(DivideBy::new(3), DivideBy::MulShift { .. }));
        // 7 has no 32-bit multiplier exact for every u32.
        assert!(matches!(DivideBy::new(7), DivideBy::MulAddShift { .. }));
        assert_eq!(DivideBy::new(0), DivideBy::Zero);
    }
}
