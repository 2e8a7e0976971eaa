//! [`GemmTypes`]: the element types of one GEMM.

use crate::numeric::ElementType;

/// The element types of a GEMM: the operands A and B, the source C, the
/// output D and the accumulator.
///
/// ```
/// use cutlet::gemm::GemmTypes;
/// use cutlet::numeric::ElementType::{BF16, F32};
///
/// let types = GemmTypes::new(BF16, BF16, BF16, BF16, F32);
/// assert_eq!(types.to_string(), "bf16_bf16_bf16_bf16_f32");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GemmTypes {
    /// Element type of A.
    pub a: ElementType,
    /// Element type of B.
    pub b: ElementType,
    /// Element type of C (the epilogue source).
    pub c: ElementType,
    /// Element type of D (the output).
    pub d: ElementType,
    /// Accumulator type (f32, or f16 for f16 accumulation).
    pub acc: ElementType,
}

impl GemmTypes {
    /// The types of the transposed product D^T = B^T A^T (swap-AB): A's
    /// and B's exchanged.
    pub const fn transposed(self) -> GemmTypes {
        GemmTypes {
            a: self.b,
            b: self.a,
            ..self
        }
    }

    /// The types (A, B, C, D, accumulator).
    pub const fn new(
        a: ElementType,
        b: ElementType,
        c: ElementType,
        d: ElementType,
        acc: ElementType,
    ) -> GemmTypes {
        GemmTypes { a, b, c, d, acc }
    }
}

impl std::fmt::Display for GemmTypes {
    /// `a_b_c_d_acc`, as kernel names write them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}_{}_{}_{}_{}",
            self.a, self.b, self.c, self.d, self.acc
        )
    }
}

/// The default TileK (BK) of every GEMM kernel for inputs of `a`: one
/// 128-byte swizzle row of them, which `cp.async` and `ldmatrix` (SM80),
/// TMA and wgmma (SM90) read whole: 64 for 16-bit types, 32 for tf32.
///
/// ```
/// use cutlet::gemm::default_tile_k;
/// use cutlet::numeric::ElementType::{BF16, TF32};
///
/// assert_eq!((default_tile_k(BF16), default_tile_k(TF32)), (64, 32));
/// ```
pub const fn default_tile_k(a: ElementType) -> u32 {
    let size = a.size_bytes();
    128 / if size == 0 { 1 } else { size }
}
