//! SM80 tensor-core MMA atoms: `mma.sync.aligned.m16n8k16` (f16, bf16) and
//! `m16n8k8` (tf32), with their thread/value layouts as CuTe's
//! `mma_traits_sm80.hpp` defines them.
//!
//! Lane `l` of the warp is `(t, g) = (l % 4, l / 4)` (the PTX ISA's
//! `threadID_in_group` and `groupID`); the thread mode of every layout is
//! `(4,8)` over `(t, g)`.
#![allow(non_camel_case_types)]

use super::mma_atom::{fixed, MmaAtom, MmaRegs, MmaTraits, MmaTypes, SnippetRef};
use crate::arch::ArchKind;
use crate::layout::Layout;
use crate::numeric::ElementType;
use crate::ptx::RegClass;

/// A 16x16 (m,k) fragment of 16-bit values, 8 per lane:
/// value `(v0,v1,v2)` is at `m = g + 8*v1`, `k = 2*t + v0 + 8*v2`.
const A_16X16: &str = "((4,8),(2,2,2)):((32,1),(16,8,128))";
/// A 8x16 (n,k) fragment of 16-bit values, 4 per lane:
/// value `(v0,v1)` is at `n = g`, `k = 2*t + v0 + 8*v1`.
const B_8X16: &str = "((4,8),(2,2)):((16,1),(8,64))";
/// A 16x8 (m,n) accumulator fragment, 4 per lane:
/// value `(v0,v1)` is at `m = g + 8*v1`, `n = 2*t + v0`.
const C_16X8: &str = "((4,8),(2,2)):((32,1),(16,8))";
/// The 32 lanes of a warp.
const WARP: &str = "32:1";

/// The 16x8x16 atoms differ only in types, registers and snippet.
macro_rules! m16n8k16 {
    ($tag:ident, $atom:ident, $doc:literal, $d:ident, $a:ident, $c:ident, $c_regs:literal, $c_class:ident, $snippet:literal) => {
        #[doc = $doc]
        ///
        /// `mma.sync.aligned.m16n8k16.row.col`, one warp; A 16x16 (8 values per
        /// lane in 4 `.b32`), B 16x8 (4 values in 2 `.b32`), C/D 16x8.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $tag;

        impl MmaTraits for $tag {
            const ATOM: MmaAtom = MmaAtom::$atom;
            const NAME: &'static str = stringify!($tag);
            const SHAPE_MNK: [i64; 3] = [16, 8, 16];
            const TYPES: MmaTypes = MmaTypes {
                d: ElementType::$d,
                a: ElementType::$a,
                b: ElementType::$a,
                c: ElementType::$c,
            };
            const REGS: MmaRegs = MmaRegs {
                a: 4,
                b: 2,
                c: $c_regs,
                ab_class: RegClass::B32,
                c_class: RegClass::$c_class,
            };
            const SNIPPET: SnippetRef = SnippetRef {
                family: "sm80/mma_m16n8k16",
                name: $snippet,
            };
            const MIN_ARCH: ArchKind = ArchKind::Sm80;
            fn thr_id() -> Layout {
                fixed(WARP)
            }
            fn a_layout() -> Layout {
                fixed(A_16X16)
            }
            fn b_layout() -> Layout {
                fixed(B_8X16)
            }
            fn c_layout() -> Layout {
                fixed(C_16X8)
            }
        }
    };
}

m16n8k16!(
    SM80_16x8x16_F32F16F16F32_TN,
    Sm80F32F16F16F32,
    "D (f32) = A (f16) * B (f16) + C (f32), 16x8x16.",
    F32,
    F16,
    F32,
    4,
    F32,
    "mma_m16n8k16_f32_f16_f16_f32"
);
m16n8k16!(
    SM80_16x8x16_F32BF16BF16F32_TN,
    Sm80F32Bf16Bf16F32,
    "D (f32) = A (bf16) * B (bf16) + C (f32), 16x8x16.",
    F32,
    BF16,
    F32,
    4,
    F32,
    "mma_m16n8k16_f32_bf16_bf16_f32"
);
m16n8k16!(
    SM80_16x8x16_F16F16F16F16_TN,
    Sm80F16F16F16F16,
    "D (f16) = A (f16) * B (f16) + C (f16), 16x8x16; C and D are two f16x2 `.b32` registers.",
    F16,
    F16,
    F16,
    2,
    B32,
    "mma_m16n8k16_f16_f16_f16_f16"
);

/// D (f32) = A (tf32) * B (tf32) + C (f32), 16x8x8.
///
/// `mma.sync.aligned.m16n8k8.row.col`, one warp; A 16x8 (4 values per lane,
/// one per `.b32`), B 8x8 (2 values), C/D 16x8. Value `(v0,v1)` of A is at
/// `m = g + 8*v0`, `k = t + 4*v1`; value `v` of B at `n = g`, `k = t + 4*v`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SM80_16x8x8_F32TF32TF32F32_TN;

impl MmaTraits for SM80_16x8x8_F32TF32TF32F32_TN {
    const ATOM: MmaAtom = MmaAtom::Sm80F32Tf32Tf32F32;
    const NAME: &'static str = "SM80_16x8x8_F32TF32TF32F32_TN";
    const SHAPE_MNK: [i64; 3] = [16, 8, 8];
    const TYPES: MmaTypes = MmaTypes {
        d: ElementType::F32,
        a: ElementType::TF32,
        b: ElementType::TF32,
        c: ElementType::F32,
    };
    const REGS: MmaRegs = MmaRegs {
        a: 4,
        b: 2,
        c: 4,
        ab_class: RegClass::B32,
        c_class: RegClass::F32,
    };
    const SNIPPET: SnippetRef = SnippetRef {
        family: "sm80/mma_m16n8k8",
        name: "mma_m16n8k8_f32_tf32_tf32_f32",
    };
    const MIN_ARCH: ArchKind = ArchKind::Sm80;
    fn thr_id() -> Layout {
        fixed(WARP)
    }
    fn a_layout() -> Layout {
        fixed("((4,8),(2,2)):((16,1),(8,64))")
    }
    fn b_layout() -> Layout {
        fixed("((4,8),2):((8,1),32)")
    }
    fn c_layout() -> Layout {
        fixed(C_16X8)
    }
}
