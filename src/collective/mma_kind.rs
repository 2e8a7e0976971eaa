//! [`MmaKind`]: which SM80 tensor-core instruction a GEMM's element types pick.

use crate::atom::MmaAtom;
use crate::numeric::ElementType;

/// The `mma.sync` instruction family for one (A, B, accumulator) type triple,
/// named as CuTe names its atoms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaKind {
    /// `SM80_16x8x16_F32F16F16F32_TN`: f16 inputs, f32 accumulators.
    F32F16F16F32,
    /// `SM80_16x8x16_F32BF16BF16F32_TN`: bf16 inputs, f32 accumulators.
    F32BF16BF16F32,
    /// `SM80_16x8x16_F16F16F16F16_TN`: f16 inputs, f16 accumulators.
    F16F16F16F16,
    /// `SM80_16x8x8_F32TF32TF32F32_TN`: f32 (or tf32) inputs rounded to tf32
    /// (`cvt.rna`), f32 accumulators.
    Tf32,
}

impl MmaKind {
    /// The instruction for A, B and accumulator types, if one exists.
    ///
    /// ```
    /// use cutlet::collective::MmaKind;
    /// use cutlet::numeric::ElementType::{BF16, F16, F32, TF32};
    ///
    /// assert_eq!(MmaKind::for_types(BF16, BF16, F32), Some(MmaKind::F32BF16BF16F32));
    /// assert_eq!(MmaKind::for_types(TF32, TF32, F32), Some(MmaKind::Tf32));
    /// assert_eq!(MmaKind::for_types(F16, BF16, F32), None);
    /// ```
    pub fn for_types(a: ElementType, b: ElementType, acc: ElementType) -> Option<MmaKind> {
        use ElementType::{BF16, F16, F32, TF32};
        match (a, b, acc) {
            (F16, F16, F32) => Some(MmaKind::F32F16F16F32),
            (BF16, BF16, F32) => Some(MmaKind::F32BF16BF16F32),
            (F16, F16, F16) => Some(MmaKind::F16F16F16F16),
            (F32 | TF32, F32 | TF32, F32) if a == b => Some(MmaKind::Tf32),
            _ => None,
        }
    }

    /// The MMA atom of this instruction.
    pub fn atom(self) -> MmaAtom {
        match self {
            MmaKind::F32F16F16F32 => MmaAtom::Sm80F32F16F16F32,
            MmaKind::F32BF16BF16F32 => MmaAtom::Sm80F32Bf16Bf16F32,
            MmaKind::F16F16F16F16 => MmaAtom::Sm80F16F16F16F16,
            MmaKind::Tf32 => MmaAtom::Sm80F32Tf32Tf32F32,
        }
    }

    /// The instruction's K extent: 16, or 8 for tf32.
    pub fn k(self) -> u32 {
        match self {
            MmaKind::Tf32 => 8,
            _ => 16,
        }
    }

    /// Whether the accumulators are f32 (four `.f32` registers per m16n8
    /// tile) rather than packed f16 (two `.b32` registers).
    pub fn f32_accumulators(self) -> bool {
        self != MmaKind::F16F16F16F16
    }

    /// The `mma.sync` opcode with shape and types.
    pub fn opcode(self) -> &'static str {
        match self {
            MmaKind::F32F16F16F32 => "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
            MmaKind::F32BF16BF16F32 => "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
            MmaKind::F16F16F16F16 => "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
            MmaKind::Tf32 => "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
        }
    }
}
