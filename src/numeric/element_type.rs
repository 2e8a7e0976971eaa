//! [`ElementType`]: the runtime name of an element type and its PTX facts.

use std::fmt;
use std::str::FromStr;

/// An element type a cutlet kernel can read, compute in or write.
///
/// The value is part of kernel specs (hashable, copyable) and knows the PTX
/// spelling of its type and the register class one value lives in.
///
/// ```
/// use cutlet::numeric::ElementType;
///
/// let t: ElementType = "bf16".parse().unwrap();
/// assert_eq!(t, ElementType::BF16);
/// assert_eq!(t.ptx_type(), ".bf16");
/// assert_eq!(t.register_type(), ".b16");
/// assert_eq!(t.elements_per_b32(), 2);
/// assert_eq!(t.to_string(), "bf16");
///
/// let e4m3: ElementType = "e4m3".parse().unwrap();
/// assert_eq!((e4m3.ptx_type(), e4m3.size_bits(), e4m3.is_float()), (".e4m3", 8, true));
/// assert_eq!(ElementType::F8E5M2.elements_per_b32(), 4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElementType {
    /// IEEE 754 binary16.
    F16,
    /// bfloat16: 8 exponent bits, 7 mantissa bits.
    BF16,
    /// IEEE 754 binary32.
    F32,
    /// TensorFloat-32: stored as 32 bits, 10 mantissa bits used by tensor cores.
    TF32,
    /// IEEE 754 binary64.
    F64,
    /// Signed 8-bit integer.
    I8,
    /// Unsigned 8-bit integer.
    U8,
    /// Signed 32-bit integer.
    I32,
    /// FP8 E4M3 (OCP's `E4M3FN`: 4 exponent bits, 3 mantissa bits, no
    /// infinities, largest finite 448), PTX `.e4m3`.
    F8E4M3,
    /// FP8 E5M2 (5 exponent bits, 2 mantissa bits, IEEE-style infinities,
    /// largest finite 57344), PTX `.e5m2`.
    F8E5M2,
}

impl ElementType {
    /// Every element type, in declaration order.
    pub const ALL: [ElementType; 10] = [
        ElementType::F16,
        ElementType::BF16,
        ElementType::F32,
        ElementType::TF32,
        ElementType::F64,
        ElementType::I8,
        ElementType::U8,
        ElementType::I32,
        ElementType::F8E4M3,
        ElementType::F8E5M2,
    ];

    /// Storage size of one element in bits (TF32 is stored in 32 bits).
    pub const fn size_bits(self) -> u32 {
        match self {
            ElementType::I8 | ElementType::U8 | ElementType::F8E4M3 | ElementType::F8E5M2 => 8,
            ElementType::F16 | ElementType::BF16 => 16,
            ElementType::F32 | ElementType::TF32 | ElementType::I32 => 32,
            ElementType::F64 => 64,
        }
    }

    /// Storage size of one element in bytes.
    pub const fn size_bytes(self) -> u32 {
        self.size_bits() / 8
    }

    /// The PTX fundamental type name, e.g. `.f16`, `.s8`.
    pub const fn ptx_type(self) -> &'static str {
        match self {
            ElementType::F16 => ".f16",
            ElementType::BF16 => ".bf16",
            ElementType::F32 => ".f32",
            ElementType::TF32 => ".tf32",
            ElementType::F64 => ".f64",
            ElementType::I8 => ".s8",
            ElementType::U8 => ".u8",
            ElementType::I32 => ".s32",
            ElementType::F8E4M3 => ".e4m3",
            ElementType::F8E5M2 => ".e5m2",
        }
    }

    /// The type of the PTX register one scalar value lives in.
    ///
    /// 16-bit floats live in `.b16` registers; `.f32` and `.f64` in their own
    /// classes; TF32 and 32-bit integers in `.b32`. PTX has no general 8-bit
    /// registers: a scalar `i8`/`u8` is loaded (sign- or zero-extended) into a
    /// `.b32` register.
    pub const fn register_type(self) -> &'static str {
        match self {
            ElementType::F16 | ElementType::BF16 => ".b16",
            ElementType::F32 => ".f32",
            ElementType::F64 => ".f64",
            ElementType::TF32
            | ElementType::I8
            | ElementType::U8
            | ElementType::I32
            | ElementType::F8E4M3
            | ElementType::F8E5M2 => ".b32",
        }
    }

    /// How many elements one `.b32` register holds when packed, as in `mma`
    /// operands and `f16x2` arithmetic: 2 for f16/bf16, 4 for i8/u8, 1 for the
    /// 32-bit types. An f64 needs a whole 64-bit register; this returns 1 for it.
    pub const fn elements_per_b32(self) -> u32 {
        match self {
            ElementType::F16 | ElementType::BF16 => 2,
            ElementType::I8 | ElementType::U8 | ElementType::F8E4M3 | ElementType::F8E5M2 => 4,
            ElementType::F32 | ElementType::TF32 | ElementType::I32 | ElementType::F64 => 1,
        }
    }

    /// Whether the type is a floating-point type (TF32 included).
    pub const fn is_float(self) -> bool {
        !matches!(self, ElementType::I8 | ElementType::U8 | ElementType::I32)
    }

    /// The short name used by `Display` and `FromStr`, e.g. `f16`, `i8`.
    pub const fn name(self) -> &'static str {
        match self {
            ElementType::F16 => "f16",
            ElementType::BF16 => "bf16",
            ElementType::F32 => "f32",
            ElementType::TF32 => "tf32",
            ElementType::F64 => "f64",
            ElementType::I8 => "i8",
            ElementType::U8 => "u8",
            ElementType::I32 => "i32",
            ElementType::F8E4M3 => "e4m3",
            ElementType::F8E5M2 => "e5m2",
        }
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A string that names no element type.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown element type `{value}`: expected one of f16, bf16, f32, tf32, f64, i8, u8, i32, e4m3, e5m2")]
pub struct ParseElementTypeError {
    /// The string that was given.
    pub value: String,
}

impl FromStr for ElementType {
    type Err = ParseElementTypeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ElementType::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| ParseElementTypeError {
                value: s.to_string(),
            })
    }
}
