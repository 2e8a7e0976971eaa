//! XOR swizzles of offsets (CuTe's `Swizzle<B,M,S>`, `cute/swizzle.hpp`).
//!
//! A swizzle keeps the low `M` bits of an offset, and XORs `B` bits taken
//! `S` positions higher (the "yyy" bits) into the `B` bits above them (the
//! "zzz" bits):
//!
//! ```text
//!   0bxxxxxxxxYYYxxxxxxZZZxxxx      S > 0: yyy = bits [M+S, M+S+B), zzz = bits [M, M+B)
//!                        ^--^ M     S < 0: yyy = bits [M, M+B),     zzz = bits [M-S, M-S+B)
//! ```
//!
//! Shared-memory layouts use swizzles to spread the rows of a tile over the
//! banks, so that a warp reading one column meets no bank conflict.

use std::fmt;

use super::error::LayoutError;

/// The largest bit position a swizzle may touch: offsets are `i64`, and the
/// masks must stay clear of the sign bit.
const MAX_BIT: i64 = 62;

/// A bit-XOR function on offsets, CuTe's `Swizzle<B,M,S>`.
///
/// `x -> x ^ ((x & yyy_mask) >> S)` (a left shift by `-S` for negative `S`).
///
/// ```
/// use cutlet::layout::Swizzle;
/// let sw = Swizzle::new(3, 3, 3).unwrap();
/// assert_eq!(sw.to_string(), "Sw<3,3,3>");
/// // offset 64 is row 1, chunk 0 of a 64-element row: bit 6 is XORed into bit 3
/// assert_eq!(sw.apply(64), 64 + 8);
/// assert_eq!(sw.apply(7), 7); // the low M bits never change
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Swizzle {
    bits: u32,
    base: u32,
    shift: i32,
}

impl Swizzle {
    /// `Swizzle<bits, base, shift>`.
    ///
    /// # Errors
    /// As CuTe's static asserts: `|shift| >= bits` (else the yyy and zzz bits
    /// overlap), and every touched bit below position 62.
    ///
    /// ```
    /// use cutlet::layout::Swizzle;
    /// assert!(Swizzle::new(3, 3, 2).is_err()); // |S| < B
    /// assert_eq!(Swizzle::new(2, 4, -3).unwrap().to_string(), "Sw<2,4,-3>");
    /// ```
    pub fn new(bits: i64, base: i64, shift: i64) -> Result<Self, LayoutError> {
        let bad = |detail: String| LayoutError::Inadmissible {
            op: "swizzle",
            detail,
        };
        if !(0..=MAX_BIT).contains(&bits) {
            return Err(bad(format!("bits {bits} must be in [0, {MAX_BIT}]")));
        }
        if !(0..=MAX_BIT).contains(&base) {
            return Err(bad(format!("base {base} must be in [0, {MAX_BIT}]")));
        }
        if !(-MAX_BIT..=MAX_BIT).contains(&shift) || shift.abs() < bits {
            return Err(bad(format!(
                "shift {shift} must satisfy |shift| >= bits {bits} and |shift| <= {MAX_BIT}"
            )));
        }
        if base + shift.abs() + bits > MAX_BIT {
            return Err(bad(format!(
                "base {base} + |shift| {} + bits {bits} must be at most {MAX_BIT}",
                shift.abs()
            )));
        }
        Ok(Swizzle {
            bits: bits as u32,
            base: base as u32,
            shift: shift as i32,
        })
    }

    /// The identity swizzle `Sw<0,0,0>`.
    pub fn identity() -> Self {
        Swizzle {
            bits: 0,
            base: 0,
            shift: 0,
        }
    }

    /// `B`: how many bits are XORed.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// `M`: how many low bits are kept unchanged.
    pub fn base(&self) -> u32 {
        self.base
    }

    /// `S`: the distance from the yyy bits down to the zzz bits (negative: up).
    pub fn shift(&self) -> i32 {
        self.shift
    }

    fn bit_mask(&self) -> i64 {
        (1i64 << self.bits) - 1
    }

    /// The bits that are read (CuTe's `yyy_msk`).
    pub fn yyy_mask(&self) -> i64 {
        self.bit_mask() << (self.base as i32 + self.shift.max(0))
    }

    /// The bits that are changed (CuTe's `zzz_msk`).
    pub fn zzz_mask(&self) -> i64 {
        self.bit_mask() << (self.base as i32 - self.shift.min(0))
    }

    /// The size of the blocks the swizzle permutes within: `2^(M+|S|+B)`.
    ///
    /// ```
    /// use cutlet::layout::Swizzle;
    /// assert_eq!(Swizzle::new(3, 3, 3).unwrap().period(), 512);
    /// ```
    pub fn period(&self) -> i64 {
        1i64 << (self.base + self.shift.unsigned_abs() + self.bits)
    }

    /// The swizzled offset. Negative offsets are swizzled in two's complement,
    /// as CuTe does with `int`.
    pub fn apply(&self, offset: i64) -> i64 {
        let y = offset & self.yyy_mask();
        let moved = if self.shift >= 0 {
            y >> self.shift
        } else {
            y << (-self.shift)
        };
        offset ^ moved
    }
}

impl fmt::Display for Swizzle {
    /// `Sw<B,M,S>`, as CuTe prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sw<{},{},{}>", self.bits, self.base, self.shift)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_match_cute() {
        let sw = Swizzle::new(3, 3, 3).unwrap();
        assert_eq!(sw.yyy_mask(), 0b111_000_000);
        assert_eq!(sw.zzz_mask(), 0b000_111_000);
        let neg = Swizzle::new(2, 1, -3).unwrap();
        assert_eq!(neg.yyy_mask(), 0b110);
        assert_eq!(neg.zzz_mask(), 0b11_0000);
    }

    #[test]
    fn negative_shift_moves_bits_up() {
        let sw = Swizzle::new(1, 0, -2).unwrap();
        assert_eq!(sw.apply(0b001), 0b101);
        assert_eq!(sw.apply(0b101), 0b001);
    }

    #[test]
    fn rejects_out_of_range_parameters() {
        assert!(Swizzle::new(-1, 0, 0).is_err());
        assert!(Swizzle::new(0, -1, 0).is_err());
        assert!(Swizzle::new(40, 10, 40).is_err());
        let e = Swizzle::new(3, 3, 1).unwrap_err().to_string();
        assert!(e.contains("shift 1"), "{e}");
    }
}
