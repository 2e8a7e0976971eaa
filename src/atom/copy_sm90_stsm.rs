//! SM90 register-to-shared matrix stores (`stmatrix`), as CuTe's
//! `copy_traits_sm90.hpp` describes them: each is the `ldmatrix` of
//! [`copy_sm75`](super::copy_sm75) run backwards, so its source layout is
//! that load's destination layout and its destination layout that load's
//! source layout.
//!
//! One `stmatrix.x4` moves four 8x8 matrices of 16-bit elements. Lane `l`
//! gives the address of row `l % 8` of matrix `l / 8` (16 bytes) and holds
//! in register `j` two elements of matrix `j`: without `.trans` row `l / 4`,
//! elements `2(l%4)`, `2(l%4)+1` (the accumulator fragment of an `mma` or
//! `wgmma` row pair); with `.trans` rows `2(l%4)` and `2(l%4)+1` of column
//! `l / 4`, so the matrix lands transposed.
#![allow(non_camel_case_types)]

use std::fmt;

use super::copy_atom::{CopyAtom, CopyTraits};
use super::emit::{check_regs, emit_snippet};
use super::mma_atom::fixed;
use crate::arch::ArchKind;
use crate::layout::Layout;
use crate::ptx::{Kernel, Reg, RegClass};
use crate::Result;

/// `stmatrix.sync.aligned.m8n8.x4.shared.b16`: four 8x8 b16 matrices, lane
/// `l` holding row `l/4`, elements `2(l%4)..+2` of matrix `j` in register
/// `j`. Source layout `(32,(32,4)):(32,(1,1024))`, destination
/// `(32,128):(128,1)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SM90_U32x4_STSM_N;

/// `stmatrix.sync.aligned.m8n8.x4.trans.shared.b16`: four 8x8 b16 matrices
/// stored transposed, lane `l` holding elements (rows `2(l%4)`,
/// `2(l%4)+1`; column `l/4`) of matrix `j` in register `j`. Source layout
/// `((4,8),(16,2,4)):((256,16),(1,128,1024))`, destination
/// `(32,128):(128,1)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SM90_U16x8_STSM_T;

/// The `stmatrix` atoms differ only in the snippet and the register-side
/// layout; one lane group, one arch.
macro_rules! stsm_x4 {
    ($tag:ident, $atom:ident, $emit_doc:literal, $snippet:literal, $src:literal) => {
        impl $tag {
            #[doc = $emit_doc]
            pub fn emit(k: &mut Kernel, src: &[Reg], addr: &dyn fmt::Display) -> Result<()> {
                check_regs("stmatrix src", src, 4, RegClass::B32)?;
                emit_snippet(
                    k,
                    "sm90/stmatrix",
                    $snippet,
                    &[("s", src)],
                    &[("addr", addr)],
                )
            }
        }

        impl CopyTraits for $tag {
            const ATOM: CopyAtom = CopyAtom::$atom;
            const NAME: &'static str = stringify!($tag);
            const MIN_ARCH: ArchKind = ArchKind::Sm90;
            fn thr_id() -> Layout {
                fixed("32:1")
            }
            fn src_layout() -> Layout {
                fixed($src)
            }
            fn dst_layout() -> Layout {
                fixed("(32,128):(128,1)")
            }
            /// CuTe's `RefLayout` of a store: the register side.
            fn ref_layout() -> Layout {
                Self::src_layout()
            }
        }
    };
}

stsm_x4!(
    SM90_U32x4_STSM_N,
    Sm90U32x4StsmN,
    "Writes the store: `src` four `.b32` registers, `addr` this lane's \
     16-byte-aligned shared-window row address (a `.b32` register or \
     `reg+imm` text).",
    "stmatrix_x4",
    "(32,(32,4)):(32,(1,1024))"
);
stsm_x4!(
    SM90_U16x8_STSM_T,
    Sm90U16x8StsmT,
    "Writes the transposing store; operands as [`SM90_U32x4_STSM_N::emit`].",
    "stmatrix_x4_trans",
    "((4,8),(16,2,4)):((256,16),(1,128,1024))"
);
