//! [`Reg`] and [`RegClass`]: typed virtual registers.

use std::fmt;

use crate::numeric::ElementType;

/// The class of a virtual register: its PTX type and its name prefix.
///
/// Each class has its own counter in a kernel and its own `.reg` declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegClass {
    /// `.pred`, named `%p<i>`.
    Pred,
    /// `.b16`, named `%rs<i>`.
    B16,
    /// `.b32`, named `%r<i>`.
    B32,
    /// `.b64`, named `%rd<i>`.
    B64,
    /// `.f32`, named `%f<i>`.
    F32,
    /// `.f64`, named `%fd<i>`.
    F64,
}

impl RegClass {
    /// Every class, in the order their declarations are emitted.
    pub const ALL: [RegClass; 6] = [
        RegClass::Pred,
        RegClass::B16,
        RegClass::B32,
        RegClass::B64,
        RegClass::F32,
        RegClass::F64,
    ];

    /// The PTX type of the class, e.g. `.b32`.
    pub const fn ptx_type(self) -> &'static str {
        match self {
            RegClass::Pred => ".pred",
            RegClass::B16 => ".b16",
            RegClass::B32 => ".b32",
            RegClass::B64 => ".b64",
            RegClass::F32 => ".f32",
            RegClass::F64 => ".f64",
        }
    }

    /// The name prefix of the class, e.g. `%r`.
    pub const fn prefix(self) -> &'static str {
        match self {
            RegClass::Pred => "%p",
            RegClass::B16 => "%rs",
            RegClass::B32 => "%r",
            RegClass::B64 => "%rd",
            RegClass::F32 => "%f",
            RegClass::F64 => "%fd",
        }
    }

    /// Width in bits (a predicate counts as 1).
    pub const fn bits(self) -> u32 {
        match self {
            RegClass::Pred => 1,
            RegClass::B16 => 16,
            RegClass::B32 | RegClass::F32 => 32,
            RegClass::B64 | RegClass::F64 => 64,
        }
    }

    /// The class one scalar value of `element` lives in
    /// (see [`ElementType::register_type`]).
    pub const fn for_element(element: ElementType) -> RegClass {
        match element {
            ElementType::F16 | ElementType::BF16 => RegClass::B16,
            ElementType::F32 => RegClass::F32,
            ElementType::F64 => RegClass::F64,
            ElementType::TF32
            | ElementType::I8
            | ElementType::U8
            | ElementType::I32
            | ElementType::F8E4M3
            | ElementType::F8E5M2 => RegClass::B32,
        }
    }
}

impl fmt::Display for RegClass {
    /// Writes the PTX type, e.g. `.b64`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.ptx_type())
    }
}

/// A virtual register of a kernel: a class and a number.
///
/// `Display` writes its PTX name, so instructions read naturally with
/// `format!`:
///
/// ```
/// use cutlet::ptx::{Kernel, RegClass};
///
/// let mut k = Kernel::new("k").unwrap();
/// let a = k.reg(RegClass::B32);
/// let b = k.reg(RegClass::B32);
/// k.push(format!("add.s32 {a}, {a}, {b};"));
/// assert_eq!(a.to_string(), "%r0");
/// assert_eq!(b.to_string(), "%r1");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg {
    class: RegClass,
    index: u32,
}

impl Reg {
    pub(crate) const fn new(class: RegClass, index: u32) -> Reg {
        Reg { class, index }
    }

    /// The register's class.
    pub const fn class(self) -> RegClass {
        self.class
    }

    /// The register's number within its class.
    pub const fn index(self) -> u32 {
        self.index
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.class.prefix(), self.index)
    }
}
