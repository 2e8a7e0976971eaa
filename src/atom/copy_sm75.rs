//! SM75 shared-to-register matrix loads (`ldmatrix`), as CuTe's
//! `copy_traits_sm75.hpp` describes them.
//!
//! One `ldmatrix.x4` (`.x2`) moves four (two) 8x8 matrices of 16-bit elements, each row 16
//! bytes (128 bits). Lane `l` gives the address of row `l % 8` of matrix
//! `l / 8`, so the source layout is `(32,128):(128,1)`: lane `l` supplies
//! bits `[128 l, 128 l + 128)` of the 4096-bit block (matrix `j` is bits
//! `[1024 j, 1024 j + 1024)`, row `r` of it bits `[1024 j + 128 r, ...)`).
//! Lane `l` receives in register `j` two elements of matrix `j`: without
//! `.trans` row `l / 4`, elements `2(l%4)`, `2(l%4)+1`; with `.trans`
//! rows `2(l%4)` and `2(l%4)+1` of column `l / 4`.
#![allow(non_camel_case_types)]

use std::fmt;

use super::copy_atom::{CopyAtom, CopyTraits};
use super::emit::{check_regs, emit_snippet};
use super::mma_atom::fixed;
use crate::arch::ArchKind;
use crate::layout::Layout;
use crate::ptx::{Kernel, Reg, RegClass};
use crate::Result;

/// Each lane gives one 16-byte row address; 4096 bits in all.
const LDSM_SRC: &str = "(32,128):(128,1)";

/// `.x2`: lanes 0-15 give the 16 row addresses (lanes 16-31 repeat them;
/// the instruction ignores theirs); 2048 bits in all.
const LDSM_X2_SRC: &str = "((16,2),128):((128,0),1)";

/// `ldmatrix.sync.aligned.m8n8.x4.shared.b16`: four 8x8 b16 matrices, lane
/// `l` receiving row `l/4`, elements `2(l%4)..+2` of matrix `j` in register `j`.
/// Destination layout `(32,(32,4)):(32,(1,1024))`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SM75_U32x4_LDSM_N;

/// `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16`: four 8x8 b16 matrices
/// transposed, lane `l` receiving elements (rows `2(l%4)`, `2(l%4)+1`;
/// column `l/4`) of matrix `j` in register `j`. Destination layout
/// `((4,8),(16,2,4)):((256,16),(1,128,1024))`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SM75_U16x8_LDSM_T;

/// `ldmatrix.sync.aligned.m8n8.x2.shared.b16`: two 8x8 b16 matrices, lane
/// `l` receiving row `l/4`, elements `2(l%4)..+2` of matrix `j` in register `j`.
/// Destination layout `(32,(32,2)):(32,(1,1024))`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SM75_U32x2_LDSM_N;

/// `ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16`: two 8x8 b16 matrices
/// transposed. Destination layout `((4,8),(16,2,2)):((256,16),(1,128,1024))`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SM75_U16x4_LDSM_T;

fn emit_ldsm(k: &mut Kernel, name: &str, dst: &[Reg], addr: &dyn fmt::Display) -> Result<()> {
    let count = if name.starts_with("ldmatrix_x2") {
        2
    } else {
        4
    };
    check_regs("ldmatrix dst", dst, count, RegClass::B32)?;
    emit_snippet(k, "sm75/ldmatrix", name, &[("d", dst)], &[("addr", addr)])
}

/// The `ldmatrix` atoms differ only in the snippet (`.x4` or `.x2`,
/// `.trans` or not) and the source and destination layouts; one lane
/// group, one arch.
macro_rules! ldsm_x4 {
    ($tag:ident, $atom:ident, $emit_doc:literal, $snippet:literal, $dst:literal) => {
        ldsm_x4!($tag, $atom, $emit_doc, $snippet, LDSM_SRC, $dst);
    };
    ($tag:ident, $atom:ident, $emit_doc:literal, $snippet:literal, $src:expr, $dst:literal) => {
        impl $tag {
            #[doc = $emit_doc]
            pub fn emit(k: &mut Kernel, dst: &[Reg], addr: &dyn fmt::Display) -> Result<()> {
                emit_ldsm(k, $snippet, dst, addr)
            }
        }

        impl CopyTraits for $tag {
            const ATOM: CopyAtom = CopyAtom::$atom;
            const NAME: &'static str = stringify!($tag);
            // ldmatrix needs sm_75; the oldest cutlet target that has it is sm_80.
            const MIN_ARCH: ArchKind = ArchKind::Sm80;
            fn thr_id() -> Layout {
                fixed("32:1")
            }
            fn src_layout() -> Layout {
                fixed($src)
            }
            fn dst_layout() -> Layout {
                fixed($dst)
            }
        }
    };
}

ldsm_x4!(
    SM75_U32x4_LDSM_N,
    Sm75U32x4LdsmN,
    "Writes the load: `dst` four `.b32` registers, `addr` this lane's \
     16-byte-aligned shared-window row address (a `.b32` register or \
     `reg+imm` text).",
    "ldmatrix_x4",
    "(32,(32,4)):(32,(1,1024))"
);
ldsm_x4!(
    SM75_U16x8_LDSM_T,
    Sm75U16x8LdsmT,
    "Writes the transposing load; operands as [`SM75_U32x4_LDSM_N::emit`].",
    "ldmatrix_x4_trans",
    "((4,8),(16,2,4)):((256,16),(1,128,1024))"
);
ldsm_x4!(
    SM75_U32x2_LDSM_N,
    Sm75U32x2LdsmN,
    "Writes the two-matrix load: `dst` two `.b32` registers, `addr` as \
     [`SM75_U32x4_LDSM_N::emit`] (lanes 16-31's addresses are ignored).",
    "ldmatrix_x2",
    LDSM_X2_SRC,
    "(32,(32,2)):(32,(1,1024))"
);
ldsm_x4!(
    SM75_U16x4_LDSM_T,
    Sm75U16x4LdsmT,
    "Writes the two-matrix transposing load; operands as [`SM75_U32x2_LDSM_N::emit`].",
    "ldmatrix_x2_trans",
    LDSM_X2_SRC,
    "((4,8),(16,2,2)):((256,16),(1,128,1024))"
);
