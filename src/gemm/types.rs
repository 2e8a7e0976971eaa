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
