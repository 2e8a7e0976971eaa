//! Tag types a GEMM [`Config`](super::Config) is written with: element types
//! (with the host type their buffers hold), operand majors and output majors.

use half::{bf16, f16};

use crate::kernel::gemm::{OperandMajor, OutputMajor};
use crate::numeric::{Element, ElementType, Tf32};

/// An element type a GEMM operand can have, and the host type its buffers hold.
///
/// | tag | [`ElementType`] | `Storage` |
/// |---|---|---|
/// | `half::f16` | f16 | `half::f16` |
/// | `half::bf16` | bf16 | `half::bf16` |
/// | `f32` | f32 | `f32` |
/// | [`Tf32`] | tf32 | `f32` (the tensor cores read 10 mantissa bits) |
/// | `float8::F8E4M3`, `float8::F8E5M2` ([`cutlet::float8`](crate::float8)) | e4m3, e5m2 (A and B of the SM90 kernels) | themselves |
/// | `i8`, `u8` | s8, u8 (A and B of the SM90 kernels, s32 accumulators) | themselves |
/// | `i32` | i32 (D of s8/u8 inputs: the exact sums) | `i32` |
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a GEMM element type",
    note = "GEMM element types are half::f16, half::bf16, f32, cutlet::numeric::Tf32, cutlet::float8::F8E4M3, cutlet::float8::F8E5M2, i8, u8 and i32 (D of s8/u8 inputs)"
)]
pub trait GemmElement: Copy + Send + Sync + 'static {
    /// The runtime element type.
    const TYPE: ElementType;
    /// What a device buffer of this operand holds.
    type Storage: cudarc::driver::DeviceRepr + Element;
}

/// `impl GemmElement` for each `tag => storage`; `TYPE` is the tag's
/// [`Element::TYPE`], so the two traits cannot disagree.
macro_rules! gemm_elements {
    ($($tag:ty => $storage:ty),* $(,)?) => {$(
        impl GemmElement for $tag {
            const TYPE: ElementType = <$tag as Element>::TYPE;
            type Storage = $storage;
        }
    )*};
}

gemm_elements!(
    f16 => f16,
    bf16 => bf16,
    f32 => f32,
    Tf32 => f32,
    float8::F8E4M3 => float8::F8E4M3,
    float8::F8E5M2 => float8::F8E5M2,
    i8 => i8,
    u8 => u8,
    i32 => i32,
);

/// A type-level [`OperandMajor`] for A and B.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an operand major",
    note = "A and B majors are cutlet::device::gemm::KMajor and MnMajor"
)]
pub trait OperandMajorTag: Copy + Send + Sync + 'static {
    /// The runtime value.
    const MAJOR: OperandMajor;
}

/// A type-level [`OutputMajor`] for C and D.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an output major",
    note = "C and D majors are cutlet::device::gemm::RowMajor and ColumnMajor"
)]
pub trait OutputMajorTag: Copy + Send + Sync + 'static {
    /// The runtime value.
    const MAJOR: OutputMajor;
}

/// K is contiguous (A row-major, B column-major; `--a_major k`, `--b_major k`).
#[derive(Clone, Copy, Debug, Default)]
pub struct KMajor;

/// M (for A) or N (for B) is contiguous (`--a_major m`, `--b_major n`).
#[derive(Clone, Copy, Debug, Default)]
pub struct MnMajor;

/// N is contiguous in C and D (`--c_major n`).
#[derive(Clone, Copy, Debug, Default)]
pub struct RowMajor;

/// M is contiguous in C and D (`--c_major m`).
#[derive(Clone, Copy, Debug, Default)]
pub struct ColumnMajor;

impl OperandMajorTag for KMajor {
    const MAJOR: OperandMajor = OperandMajor::K;
}

impl OperandMajorTag for MnMajor {
    const MAJOR: OperandMajor = OperandMajor::MN;
}

impl OutputMajorTag for RowMajor {
    const MAJOR: OutputMajor = OutputMajor::N;
}

impl OutputMajorTag for ColumnMajor {
    const MAJOR: OutputMajor = OutputMajor::M;
}
