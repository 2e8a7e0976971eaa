//! The SM70 tensor-core MMA table, [`SM70_MMA`]: `mma.sync.aligned.m8n8k4`
//! with f16 inputs and f32 or f16 accumulators, in the four operand majors,
//! with their thread/value layouts as CuTe's `mma_traits_sm70.hpp` defines
//! them.
//!
//! One instruction per warp runs four independent 8x8x4 products, one per
//! quad pair; an atom is one quad pair. Its thread id layout
//! `(4,2):(1,16)` sends logical thread `t` to lane `t % 4 + 16 * (t / 4)`
//! (quad pair 0: lanes 0-3 and 16-19; quad pair `q` adds `4 * q`). Every
//! (thread, value) layout below is over those 8 logical threads.
//!
//! The suffix names the majors as CuTe does: the first letter is A's (`T`:
//! K-major, the PTX `.row`; `N`: M-major, `.col`), the second B's (`N`:
//! K-major, the PTX `.col`; `T`: N-major, `.row`).
//!
//! The PTX ISA notes that `m8n8k4` is optimized for sm_70 and may be much
//! slower on later targets: [`MmaAtom::for_types`](super::MmaAtom::for_types)
//! never returns these atoms.
#![allow(non_upper_case_globals)]

use super::atom_layout::{AtomLayout, AtomMode};
use super::mma_atom::{MmaAtom, MmaRegs, MmaSource, MmaTypes, SnippetRef};
use crate::arch::ArchKind;
use crate::numeric::ElementType::{self, F16, F32};
use crate::ptx::RegClass;

/// The 8 logical threads of a quad pair: `(4,2):(1,16)` (CuTe's
/// `SM70_QuadPair`).
const QUAD_PAIR: AtomLayout = AtomLayout::single(AtomMode::of([4, 2], [1, 16]));

/// An 8x4 (m,k) or (n,k) fragment whose K is contiguous in each thread
/// (A `.row`, B `.col`; CuTe's `SM70_8x4_Row`), `8:1, 4:8`: thread `t`
/// holds row `t`, value `v` is `k = v`.
const K_MAJOR_8X4: AtomLayout = AtomLayout::tv(AtomMode::int(8, 1), AtomMode::int(4, 8));

/// An 8x4 (m,k) or (n,k) fragment whose M (or N) is contiguous in each
/// thread (A `.col`, B `.row`; CuTe's `SM70_8x4_Col`), `(4,2):(8,4), 4:1`:
/// thread `(t0,t1)` holds `k = t0`, value `v` is row `4*t1 + v`.
const MN_MAJOR_8X4: AtomLayout = AtomLayout::tv(AtomMode::of([4, 2], [8, 4]), AtomMode::int(4, 1));

/// The 8x8 (m,n) accumulator of f16 values (CuTe's `SM70_8x8_16b`),
/// `8:1, 8:8`: thread `t` holds row `t`, value `v` is column `v`.
const C_8X8_F16: AtomLayout = AtomLayout::tv(AtomMode::int(8, 1), AtomMode::int(8, 8));

/// The 8x8 (m,n) accumulator of f32 values (CuTe's `SM70_8x8_32b`),
/// `(2,2,2):(1,16,4), (2,2,2):(8,2,32)`: thread `(t0,t1,t2)`, value
/// `(v0,v1,v2)` is at `m = t0 + 2*v1 + 4*t2`, `n = v0 + 2*t1 + 4*v2`.
const C_8X8_F32: AtomLayout = AtomLayout::tv(
    AtomMode::of([2, 2, 2], [1, 16, 4]),
    AtomMode::of([2, 2, 2], [8, 2, 32]),
);

/// The accumulator of a row: its type, register count and class, and
/// layout.
type Accumulator = (ElementType, usize, RegClass, AtomLayout);

/// f32 accumulators: eight `.f32` registers.
const ACC_F32: Accumulator = (F32, 8, RegClass::F32, C_8X8_F32);
/// f16 accumulators: four f16x2 `.b32` registers.
const ACC_F16: Accumulator = (F16, 4, RegClass::B32, C_8X8_F16);

/// A row of the table: the m8n8k4 atoms differ in accumulator, operand
/// majors (A's and B's layouts), opcode and snippet.
const fn m8n8k4(
    name: &'static str,
    (acc, c_regs, c_class, c): Accumulator,
    opcode: &'static str,
    snippet: &'static str,
    (a, b): (AtomLayout, AtomLayout),
) -> MmaAtom {
    MmaAtom {
        name,
        arch: ArchKind::Sm70,
        shape_mnk: [8, 8, 4],
        types: MmaTypes {
            d: acc,
            a: F16,
            b: F16,
            c: acc,
        },
        regs: MmaRegs {
            a: 2,
            b: 2,
            c: c_regs,
            ab_class: RegClass::B32,
            c_class,
        },
        source: MmaSource::Registers,
        opcode,
        snippet: SnippetRef {
            family: "sm70/mma_m8n8k4",
            name: snippet,
        },
        thr_id: QUAD_PAIR,
        a,
        b,
        c,
    }
}

/// D (f32) = A (f16, K-major) * B (f16, K-major) + C (f32), 8x8x4 per quad
/// pair: A and B two `.b32` each, C/D eight `.f32` (PTX `.row.col`).
pub const SM70_8x8x4_F32F16F16F32_TN: MmaAtom = m8n8k4(
    "SM70_8x8x4_F32F16F16F32_TN",
    ACC_F32,
    "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32",
    "mma_m8n8k4_row_col_f32_f16_f16_f32",
    (K_MAJOR_8X4, K_MAJOR_8X4),
);

/// D (f32) = A (f16, M-major) * B (f16, N-major) + C (f32), 8x8x4 per quad
/// pair (PTX `.col.row`).
pub const SM70_8x8x4_F32F16F16F32_NT: MmaAtom = m8n8k4(
    "SM70_8x8x4_F32F16F16F32_NT",
    ACC_F32,
    "mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f32",
    "mma_m8n8k4_col_row_f32_f16_f16_f32",
    (MN_MAJOR_8X4, MN_MAJOR_8X4),
);

/// D (f32) = A (f16, M-major) * B (f16, K-major) + C (f32), 8x8x4 per quad
/// pair (PTX `.col.col`).
pub const SM70_8x8x4_F32F16F16F32_NN: MmaAtom = m8n8k4(
    "SM70_8x8x4_F32F16F16F32_NN",
    ACC_F32,
    "mma.sync.aligned.m8n8k4.col.col.f32.f16.f16.f32",
    "mma_m8n8k4_col_col_f32_f16_f16_f32",
    (MN_MAJOR_8X4, K_MAJOR_8X4),
);

/// D (f32) = A (f16, K-major) * B (f16, N-major) + C (f32), 8x8x4 per quad
/// pair (PTX `.row.row`).
pub const SM70_8x8x4_F32F16F16F32_TT: MmaAtom = m8n8k4(
    "SM70_8x8x4_F32F16F16F32_TT",
    ACC_F32,
    "mma.sync.aligned.m8n8k4.row.row.f32.f16.f16.f32",
    "mma_m8n8k4_row_row_f32_f16_f16_f32",
    (K_MAJOR_8X4, MN_MAJOR_8X4),
);

/// D (f16) = A (f16, K-major) * B (f16, K-major) + C (f16), 8x8x4 per quad
/// pair: C/D four f16x2 `.b32` (PTX `.row.col`).
pub const SM70_8x8x4_F16F16F16F16_TN: MmaAtom = m8n8k4(
    "SM70_8x8x4_F16F16F16F16_TN",
    ACC_F16,
    "mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16",
    "mma_m8n8k4_row_col_f16_f16_f16_f16",
    (K_MAJOR_8X4, K_MAJOR_8X4),
);

/// D (f16) = A (f16, M-major) * B (f16, N-major) + C (f16), 8x8x4 per quad
/// pair (PTX `.col.row`).
pub const SM70_8x8x4_F16F16F16F16_NT: MmaAtom = m8n8k4(
    "SM70_8x8x4_F16F16F16F16_NT",
    ACC_F16,
    "mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f16",
    "mma_m8n8k4_col_row_f16_f16_f16_f16",
    (MN_MAJOR_8X4, MN_MAJOR_8X4),
);

/// D (f16) = A (f16, M-major) * B (f16, K-major) + C (f16), 8x8x4 per quad
/// pair (PTX `.col.col`).
pub const SM70_8x8x4_F16F16F16F16_NN: MmaAtom = m8n8k4(
    "SM70_8x8x4_F16F16F16F16_NN",
    ACC_F16,
    "mma.sync.aligned.m8n8k4.col.col.f16.f16.f16.f16",
    "mma_m8n8k4_col_col_f16_f16_f16_f16",
    (MN_MAJOR_8X4, K_MAJOR_8X4),
);

/// D (f16) = A (f16, K-major) * B (f16, N-major) + C (f16), 8x8x4 per quad
/// pair (PTX `.row.row`).
pub const SM70_8x8x4_F16F16F16F16_TT: MmaAtom = m8n8k4(
    "SM70_8x8x4_F16F16F16F16_TT",
    ACC_F16,
    "mma.sync.aligned.m8n8k4.row.row.f16.f16.f16.f16",
    "mma_m8n8k4_row_row_f16_f16_f16_f16",
    (K_MAJOR_8X4, MN_MAJOR_8X4),
);

/// Every SM70 tensor-core MMA atom: f32 accumulators, then f16, each in the
/// majors `TN`, `NT`, `NN`, `TT`.
///
/// ```
/// use cutlet::atom::{SM70_8x8x4_F32F16F16F32_NT, SM70_MMA};
///
/// let atom = SM70_8x8x4_F32F16F16F32_NT;
/// assert!(SM70_MMA.contains(&atom));
/// assert_eq!(atom.shape_mnk(), [8, 8, 4]);
/// assert_eq!(atom.thr_id().to_string(), "(4,2):(1,16)");
/// assert_eq!(atom.a_layout().to_string(), "((4,2),4):((8,4),1)");
/// // CuTe's example: logical thread 2, value 0 of C is at (m,n) = (0,2).
/// assert_eq!(atom.c_layout().at(2), 16);
/// ```
pub const SM70_MMA: [MmaAtom; 8] = [
    SM70_8x8x4_F32F16F16F32_TN,
    SM70_8x8x4_F32F16F16F32_NT,
    SM70_8x8x4_F32F16F16F32_NN,
    SM70_8x8x4_F32F16F16F32_TT,
    SM70_8x8x4_F16F16F16F16_TN,
    SM70_8x8x4_F16F16F16F16_NT,
    SM70_8x8x4_F16F16F16F16_NN,
    SM70_8x8x4_F16F16F16F16_TT,
];
