//! The SIMT atom: one thread, one f32 fused multiply-add (CuTe's
//! `UniversalFMA<float,float,float,float>`), the simplest reference atom.

use super::mma_atom::{fixed, MmaAtom, MmaRegs, MmaTraits, MmaTypes, SnippetRef};
use crate::arch::ArchKind;
use crate::layout::Layout;
use crate::numeric::ElementType;
use crate::ptx::RegClass;

/// `d = a * b + c` in f32 by one thread: a 1x1x1 MMA (`fma.rn.f32`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct UniversalFMA;

impl MmaTraits for UniversalFMA {
    const ATOM: MmaAtom = MmaAtom::UniversalFma;
    const NAME: &'static str = "UniversalFMA";
    const SHAPE_MNK: [i64; 3] = [1, 1, 1];
    const TYPES: MmaTypes = MmaTypes {
        d: ElementType::F32,
        a: ElementType::F32,
        b: ElementType::F32,
        c: ElementType::F32,
    };
    const REGS: MmaRegs = MmaRegs {
        a: 1,
        b: 1,
        c: 1,
        ab_class: RegClass::F32,
        c_class: RegClass::F32,
    };
    const SNIPPET: SnippetRef = SnippetRef {
        family: "common/fma",
        name: "fma_f32",
    };
    const MIN_ARCH: ArchKind = ArchKind::Sm70;
    fn thr_id() -> Layout {
        fixed("1:0")
    }
    fn a_layout() -> Layout {
        fixed("(1,1):(0,0)")
    }
    fn b_layout() -> Layout {
        fixed("(1,1):(0,0)")
    }
    fn c_layout() -> Layout {
        fixed("(1,1):(0,0)")
    }
}
