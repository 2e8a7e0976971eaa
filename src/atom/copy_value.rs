//! [`CopyValue`]: the value type of a universal copy, CuTe's `S` in
//! `UniversalCopy<S>`.

use crate::ptx::RegClass;

/// What one value of a [`UniversalCopy`](super::UniversalCopy) is: the PTX
/// type its instruction names (`ld.shared.v2.f32`), its width in memory and
/// the register class that holds it. A copy of `BITS` bits moves
/// `BITS / bits()` values: one, or a `.v2` / `.v4` vector.
///
/// ```
/// use cutlet::atom::CopyValue;
/// use cutlet::ptx::RegClass;
///
/// assert_eq!(CopyValue::F32.ptx_type(), ".f32");
/// assert_eq!(CopyValue::U16.bits(), 16);
/// // A 16-bit value zero-extended into a 32-bit register.
/// assert_eq!(CopyValue::U16.reg_class(), RegClass::B32);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CopyValue {
    /// `.b32` in a `.b32` register: raw words (CuTe's `uint32_t`).
    B32,
    /// `.f32` in an `.f32` register (`float`).
    F32,
    /// `.b16` in a `.b16` register: a half, or any 16 bits (`uint16_t`).
    B16,
    /// `.u16` in a `.b32` register: 16 bits zero-extended on load, the low
    /// half stored (`uint16_t` widened to a word).
    U16,
    /// `.u8` in a `.b16` register: a byte zero-extended on load, the low
    /// byte stored (an FP8 or 8-bit integer element; `uint8_t`).
    U8,
}

impl CopyValue {
    /// Every value type.
    pub const ALL: [CopyValue; 5] = [
        CopyValue::B32,
        CopyValue::F32,
        CopyValue::B16,
        CopyValue::U16,
        CopyValue::U8,
    ];

    /// The PTX type the instruction names, e.g. `.f32`.
    pub const fn ptx_type(self) -> &'static str {
        match self {
            CopyValue::B32 => ".b32",
            CopyValue::F32 => ".f32",
            CopyValue::B16 => ".b16",
            CopyValue::U16 => ".u16",
            CopyValue::U8 => ".u8",
        }
    }

    /// Bits of one value in memory.
    pub const fn bits(self) -> u32 {
        match self {
            CopyValue::B32 | CopyValue::F32 => 32,
            CopyValue::B16 | CopyValue::U16 => 16,
            CopyValue::U8 => 8,
        }
    }

    /// The register class one value lives in.
    pub const fn reg_class(self) -> RegClass {
        match self {
            CopyValue::B32 | CopyValue::U16 => RegClass::B32,
            CopyValue::F32 => RegClass::F32,
            CopyValue::B16 | CopyValue::U8 => RegClass::B16,
        }
    }
}
