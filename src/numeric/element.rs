//! [`Element`]: the Rust types that hold one element in host memory.

use super::ElementType;

/// A Rust type that holds one element of a cutlet kernel's input or output.
///
/// Implemented for `half::f16`, `half::bf16`, `f32`, [`Tf32`], `f64`, `i8`,
/// `u8`, `i32`, and the FP8 types `float8::F8E4M3` and `float8::F8E5M2`
/// (re-exported as [`cutlet::float8`](crate::float8)). `TYPE` ties the host type to the [`ElementType`] a kernel
/// spec names, so typed front doors lower to the same spec as runtime ones.
///
/// ```
/// use cutlet::numeric::{Element, ElementType};
///
/// fn type_of<T: Element>() -> ElementType {
///     T::TYPE
/// }
/// assert_eq!(type_of::<half::f16>(), ElementType::F16);
/// assert_eq!(type_of::<i8>().size_bytes(), 1);
/// assert_eq!(type_of::<cutlet::float8::F8E4M3>(), ElementType::F8E4M3);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a cutlet element type",
    label = "this type cannot be a kernel's element",
    note = "cutlet elements are half::f16, half::bf16, f32, cutlet::numeric::Tf32, f64, i8, u8, i32, float8::F8E4M3 and float8::F8E5M2"
)]
pub trait Element: bytemuck::Pod + Copy + Send + Sync + 'static {
    /// The runtime element type this Rust type stores.
    const TYPE: ElementType;
}

/// A TF32 element in host memory: an `f32` whose value the tensor cores read
/// with a 10-bit mantissa (the low 13 bits are ignored).
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(transparent)]
pub struct Tf32(pub f32);

impl From<f32> for Tf32 {
    fn from(value: f32) -> Self {
        Tf32(value)
    }
}

impl From<Tf32> for f32 {
    fn from(value: Tf32) -> Self {
        value.0
    }
}

/// `impl Element` for each `host type => ElementType variant`.
macro_rules! elements {
    ($($host:ty => $variant:ident),* $(,)?) => {$(
        impl Element for $host {
            const TYPE: ElementType = ElementType::$variant;
        }
    )*};
}

elements!(
    half::f16 => F16,
    half::bf16 => BF16,
    f32 => F32,
    Tf32 => TF32,
    f64 => F64,
    i8 => I8,
    u8 => U8,
    i32 => I32,
    float8::F8E4M3 => F8E4M3,
    float8::F8E5M2 => F8E5M2,
);
