//! The SIMT atom: one thread, one f32 fused multiply-add (CuTe's
//! `UniversalFMA<float,float,float,float>`), the simplest reference atom.
#![allow(non_upper_case_globals)]

use super::atom_layout::{AtomLayout, AtomMode};
use super::mma_atom::{MmaAtom, MmaRegs, MmaSource, MmaTypes, SnippetRef};
use crate::arch::ArchKind;
use crate::numeric::ElementType::F32;
use crate::ptx::RegClass;

/// One value of one thread: `(1,1):(0,0)`.
const ONE: AtomLayout = AtomLayout::tv(AtomMode::int(1, 0), AtomMode::int(1, 0));

/// `d = a * b + c` in f32 by one thread: a 1x1x1 MMA (`fma.rn.f32`).
pub const UniversalFMA: MmaAtom = MmaAtom {
    name: "UniversalFMA",
    arch: ArchKind::Sm70,
    shape_mnk: [1, 1, 1],
    types: MmaTypes {
        d: F32,
        a: F32,
        b: F32,
        c: F32,
    },
    regs: MmaRegs {
        a: 1,
        b: 1,
        c: 1,
        ab_class: RegClass::F32,
        c_class: RegClass::F32,
    },
    source: MmaSource::Registers,
    opcode: "fma.rn.f32",
    snippet: SnippetRef {
        family: "common/fma",
        name: "fma_f32",
    },
    thr_id: AtomLayout::single(AtomMode::int(1, 0)),
    a: ONE,
    b: ONE,
    c: ONE,
};
