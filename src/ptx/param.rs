//! [`Param`] and [`ParamType`]: a kernel's typed parameters.

use std::fmt;

use super::RegClass;

/// The type of one kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// `.u32`.
    U32,
    /// `.u64` (device pointers are passed as this).
    U64,
    /// `.s32`.
    S32,
    /// `.s64`.
    S64,
    /// `.f32`.
    F32,
    /// `.f64`.
    F64,
    /// A by-value byte array, `.param .align A .b8 name[N]`, read through its
    /// address (see [`Kernel::param_address`](super::Kernel::param_address)).
    Bytes {
        /// Alignment in bytes, a power of two.
        align: u32,
        /// Size in bytes, at least 1.
        size: u32,
    },
}

impl ParamType {
    /// A TMA tensor map passed by value (a `__grid_constant__ CUtensorMap`):
    /// 128 bytes, 64-byte aligned.
    pub const TENSOR_MAP: ParamType = ParamType::Bytes {
        align: 64,
        size: 128,
    };

    /// The register class a scalar param loads into; `None` for byte arrays.
    pub const fn register_class(self) -> Option<RegClass> {
        match self {
            ParamType::U32 | ParamType::S32 => Some(RegClass::B32),
            ParamType::U64 | ParamType::S64 => Some(RegClass::B64),
            ParamType::F32 => Some(RegClass::F32),
            ParamType::F64 => Some(RegClass::F64),
            ParamType::Bytes { .. } => None,
        }
    }
}

impl fmt::Display for ParamType {
    /// Writes the PTX type as it appears in a declaration, e.g. `.u64` or
    /// `.align 64 .b8 [128]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamType::U32 => f.write_str(".u32"),
            ParamType::U64 => f.write_str(".u64"),
            ParamType::S32 => f.write_str(".s32"),
            ParamType::S64 => f.write_str(".s64"),
            ParamType::F32 => f.write_str(".f32"),
            ParamType::F64 => f.write_str(".f64"),
            ParamType::Bytes { align, size } => write!(f, ".align {align} .b8 [{size}]"),
        }
    }
}

/// A declared kernel parameter. `Display` writes its name, as instructions
/// use it (`ld.param.u64 %rd0, [a];`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Param {
    name: String,
    ty: ParamType,
}

impl Param {
    pub(crate) fn new(name: String, ty: ParamType) -> Param {
        Param { name, ty }
    }

    /// The parameter's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The parameter's type.
    pub fn ty(&self) -> ParamType {
        self.ty
    }

    /// The declaration as it appears in the `.entry` list.
    pub(crate) fn declaration(&self) -> String {
        match self.ty {
            ParamType::Bytes { align, size } => {
                format!(".param .align {align} .b8 {}[{size}]", self.name)
            }
            scalar => format!(".param {scalar} {}", self.name),
        }
    }
}

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}
