//! The SM80 tensor-core MMA table, [`SM80_MMA`]: `mma.sync.aligned.m16n8k16`
//! (f16, bf16) and `m16n8k8` (tf32), with their thread/value layouts as
//! CuTe's `mma_traits_sm80.hpp` defines them.
//!
//! Lane `l` of the warp is `(t, g) = (l % 4, l / 4)` (the PTX ISA's
//! `threadID_in_group` and `groupID`); the thread mode of every layout is
//! `(4,8)` over `(t, g)`.
#![allow(non_upper_case_globals)]

use super::atom_layout::{AtomLayout, AtomMode};
use super::mma_atom::{MmaAtom, MmaRegs, MmaSource, MmaTypes, SnippetRef};
use crate::arch::ArchKind;
use crate::numeric::ElementType::{self, BF16, F16, F32, TF32};
use crate::ptx::RegClass;

/// The 32 lanes of a warp.
const WARP: AtomLayout = AtomLayout::single(AtomMode::int(32, 1));
/// The lanes as `(t, g)` over a tile whose M (or N) stride is `stride`:
/// `(4,8):(stride,1)`.
const fn lanes(stride: i64) -> AtomMode {
    AtomMode::of([4, 8], [stride, 1])
}

/// A 16x16 (m,k) fragment of 16-bit values, 8 per lane:
/// value `(v0,v1,v2)` is at `m = g + 8*v1`, `k = 2*t + v0 + 8*v2`.
const A_16X16: AtomLayout = AtomLayout::tv(lanes(32), AtomMode::of([2, 2, 2], [16, 8, 128]));
/// A 8x16 (n,k) fragment of 16-bit values, 4 per lane:
/// value `(v0,v1)` is at `n = g`, `k = 2*t + v0 + 8*v1`.
const B_8X16: AtomLayout = AtomLayout::tv(lanes(16), AtomMode::of([2, 2], [8, 64]));
/// A 16x8 (m,k) fragment of tf32 values, 4 per lane:
/// value `(v0,v1)` is at `m = g + 8*v0`, `k = t + 4*v1`.
const A_16X8_TF32: AtomLayout = AtomLayout::tv(lanes(16), AtomMode::of([2, 2], [8, 64]));
/// A 8x8 (n,k) fragment of tf32 values, 2 per lane: value `v` is at
/// `n = g`, `k = t + 4*v`.
const B_8X8_TF32: AtomLayout = AtomLayout::tv(lanes(8), AtomMode::int(2, 32));
/// A 16x8 (m,n) accumulator fragment, 4 per lane:
/// value `(v0,v1)` is at `m = g + 8*v1`, `n = 2*t + v0`.
const C_16X8: AtomLayout = AtomLayout::tv(lanes(32), AtomMode::of([2, 2], [16, 8]));

/// A row of the table: the m16n8 atoms differ in K, types, accumulator
/// registers, opcode and snippet.
#[allow(clippy::too_many_arguments)]
const fn m16n8(
    name: &'static str,
    k: i64,
    (d, ab, c): (ElementType, ElementType, ElementType),
    (c_regs, c_class): (usize, RegClass),
    opcode: &'static str,
    snippet: SnippetRef,
    (a, b): (AtomLayout, AtomLayout),
) -> MmaAtom {
    MmaAtom {
        name,
        arch: ArchKind::Sm80,
        shape_mnk: [16, 8, k],
        types: MmaTypes { d, a: ab, b: ab, c },
        regs: MmaRegs {
            a: 4,
            b: 2,
            c: c_regs,
            ab_class: RegClass::B32,
            c_class,
        },
        source: MmaSource::Registers,
        opcode,
        snippet,
        thr_id: WARP,
        a,
        b,
        c: C_16X8,
    }
}

const fn m16n8k16(name: &'static str) -> SnippetRef {
    SnippetRef {
        family: "sm80/mma_m16n8k16",
        name,
    }
}

/// D (f32) = A (f16) * B (f16) + C (f32), 16x8x16: A 16x16 (8 values per
/// lane in 4 `.b32`), B 16x8 (4 values in 2 `.b32`), C/D 16x8 (4 `.f32`).
pub const SM80_16x8x16_F32F16F16F32_TN: MmaAtom = m16n8(
    "SM80_16x8x16_F32F16F16F32_TN",
    16,
    (F32, F16, F32),
    (4, RegClass::F32),
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
    m16n8k16("mma_m16n8k16_f32_f16_f16_f32"),
    (A_16X16, B_8X16),
);

/// D (f32) = A (bf16) * B (bf16) + C (f32), 16x8x16, registers as
/// [`SM80_16x8x16_F32F16F16F32_TN`].
pub const SM80_16x8x16_F32BF16BF16F32_TN: MmaAtom = m16n8(
    "SM80_16x8x16_F32BF16BF16F32_TN",
    16,
    (F32, BF16, F32),
    (4, RegClass::F32),
    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    m16n8k16("mma_m16n8k16_f32_bf16_bf16_f32"),
    (A_16X16, B_8X16),
);

/// D (f16) = A (f16) * B (f16) + C (f16), 16x8x16; C and D are two f16x2
/// `.b32` registers.
pub const SM80_16x8x16_F16F16F16F16_TN: MmaAtom = m16n8(
    "SM80_16x8x16_F16F16F16F16_TN",
    16,
    (F16, F16, F16),
    (2, RegClass::B32),
    "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
    m16n8k16("mma_m16n8k16_f16_f16_f16_f16"),
    (A_16X16, B_8X16),
);

/// D (f32) = A (tf32) * B (tf32) + C (f32), 16x8x8: A 16x8 (4 values per
/// lane, one per `.b32`), B 8x8 (2 values), C/D 16x8.
pub const SM80_16x8x8_F32TF32TF32F32_TN: MmaAtom = m16n8(
    "SM80_16x8x8_F32TF32TF32F32_TN",
    8,
    (F32, TF32, F32),
    (4, RegClass::F32),
    "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
    SnippetRef {
        family: "sm80/mma_m16n8k8",
        name: "mma_m16n8k8_f32_tf32_tf32_f32",
    },
    (A_16X8_TF32, B_8X8_TF32),
);

/// Every SM80 tensor-core MMA atom, the table
/// [`MmaAtom::for_types`](super::MmaAtom::for_types) reads.
pub const SM80_MMA: [MmaAtom; 4] = [
    SM80_16x8x16_F32F16F16F32_TN,
    SM80_16x8x16_F32BF16BF16F32_TN,
    SM80_16x8x16_F16F16F16F16_TN,
    SM80_16x8x8_F32TF32TF32F32_TN,
];
