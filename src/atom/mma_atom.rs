//! [`MmaAtom`]: one MMA instruction as a plain value, read from a table per
//! architecture ([`SM80_MMA`], [`SM70_MMA`],
//! [`UniversalFMA`]).

use std::fmt;

use super::atom_layout::AtomLayout;
use super::emit::{check_regs, emit_snippet};
use super::mma_sm70::SM70_MMA;
use super::mma_sm80::SM80_MMA;
use super::mma_universal::UniversalFMA;
use crate::arch::ArchKind;
use crate::layout::Layout;
use crate::numeric::ElementType;
use crate::ptx::{Kernel, Reg, RegClass};
use crate::Result;

/// The element types of an MMA, in the order of its name: D, A, B, C.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MmaTypes {
    /// The result's type.
    pub d: ElementType,
    /// A's type.
    pub a: ElementType,
    /// B's type.
    pub b: ElementType,
    /// The accumulator's type.
    pub c: ElementType,
}

/// Registers per thread of each operand and their classes. Value `v` of an
/// operand's layout lives in register `v / per_reg`, at bits
/// `(v % per_reg) * bits` (lower index in the low half).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MmaRegs {
    /// A registers per thread (0 when A is read from shared memory).
    pub a: usize,
    /// B registers per thread (0 when B is read from shared memory).
    pub b: usize,
    /// C (and D) registers per thread.
    pub c: usize,
    /// Class of the A and B registers.
    pub ab_class: RegClass,
    /// Class of the C and D registers.
    pub c_class: RegClass,
}

/// Where an atom's instruction lives: a `ptx/` family and a snippet in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SnippetRef {
    /// The family, e.g. `sm80/mma_m16n8k16`.
    pub family: &'static str,
    /// The snippet, e.g. `mma_m16n8k16_f32_bf16_bf16_f32`.
    pub name: &'static str,
}

/// Where the instruction reads A and B from (CuTe's `SS` / `RS` suffixes of
/// the SM90 GMMA atoms).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaSource {
    /// A and B in registers (`mma.sync`, `fma`).
    Registers,
    /// A in registers, B through a shared-memory descriptor (wgmma `RS`).
    RegisterShared,
    /// A and B through shared-memory descriptors (wgmma `SS`).
    SharedShared,
}

/// One MMA instruction and its thread/value layouts (CuTe's `MMA_Traits`
/// with its `MMA_Op`), as data: every atom is a row of its architecture's
/// table, named as CUTLASS names it. See the [module docs](super) for what
/// each fact means.
///
/// ```
/// use cutlet::atom::{MmaAtom, SM80_16x8x16_F32BF16BF16F32_TN};
/// use cutlet::numeric::ElementType::{BF16, F32};
///
/// let atom = SM80_16x8x16_F32BF16BF16F32_TN;
/// assert_eq!(MmaAtom::for_types(BF16, BF16, F32), Some(atom));
/// assert_eq!(atom.name(), "SM80_16x8x16_F32BF16BF16F32_TN");
/// assert_eq!(atom.shape_mnk(), [16, 8, 16]);
/// assert_eq!(atom.regs().c, 4);
/// assert_eq!(atom.c_layout().to_string(), "((4,8),(2,2)):((32,1),(16,8))");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MmaAtom {
    pub(crate) name: &'static str,
    pub(crate) arch: ArchKind,
    pub(crate) shape_mnk: [i64; 3],
    pub(crate) types: MmaTypes,
    pub(crate) regs: MmaRegs,
    pub(crate) source: MmaSource,
    pub(crate) opcode: &'static str,
    pub(crate) snippet: SnippetRef,
    pub(crate) thr_id: AtomLayout,
    pub(crate) a: AtomLayout,
    pub(crate) b: AtomLayout,
    pub(crate) c: AtomLayout,
}

impl MmaAtom {
    /// Every MMA atom: the SM80 table, the SM70 table, then
    /// [`UniversalFMA`].
    ///
    /// ```
    /// use cutlet::atom::{MmaAtom, SM70_MMA, SM80_MMA};
    ///
    /// assert_eq!(MmaAtom::ALL.len(), SM80_MMA.len() + SM70_MMA.len() + 1);
    /// assert_eq!(MmaAtom::ALL[SM80_MMA.len()], SM70_MMA[0]);
    /// ```
    pub const ALL: [MmaAtom; SM80_MMA.len() + SM70_MMA.len() + 1] = {
        let mut all = [UniversalFMA; SM80_MMA.len() + SM70_MMA.len() + 1];
        let mut i = 0;
        while i < SM80_MMA.len() {
            all[i] = SM80_MMA[i];
            i += 1;
        }
        let mut j = 0;
        while j < SM70_MMA.len() {
            all[i + j] = SM70_MMA[j];
            j += 1;
        }
        all
    };

    /// The SM80 tensor-core atom for A, B and accumulator types, if the
    /// table has one. f32 A and B run as tf32 (rounded with `cvt.rna`).
    /// Only [`SM80_MMA`] is searched: the SM70 `m8n8k4`
    /// atoms are never picked here, since the PTX ISA says they may be much
    /// slower on sm_80 and later.
    ///
    /// ```
    /// use cutlet::atom::{MmaAtom, SM80_16x8x8_F32TF32TF32F32_TN};
    /// use cutlet::numeric::ElementType::{BF16, F16, F32, TF32};
    ///
    /// assert_eq!(MmaAtom::for_types(F32, F32, F32), Some(SM80_16x8x8_F32TF32TF32F32_TN));
    /// assert_eq!(MmaAtom::for_types(TF32, TF32, F32), Some(SM80_16x8x8_F32TF32TF32F32_TN));
    /// assert_eq!(MmaAtom::for_types(F16, BF16, F32), None);
    /// // f16 x f16 + f32 is the SM80 m16n8k16, never an SM70 m8n8k4.
    /// assert_eq!(MmaAtom::for_types(F16, F16, F32).unwrap().shape_mnk(), [16, 8, 16]);
    /// ```
    pub const fn for_types(a: ElementType, b: ElementType, acc: ElementType) -> Option<MmaAtom> {
        let (a, b) = match (a, b) {
            (ElementType::F32, ElementType::F32) => (ElementType::TF32, ElementType::TF32),
            other => other,
        };
        let mut i = 0;
        while i < SM80_MMA.len() {
            let atom = SM80_MMA[i];
            if same(atom.types.a, a) && same(atom.types.b, b) && same(atom.types.c, acc) {
                return Some(atom);
            }
            i += 1;
        }
        None
    }

    /// The CUTLASS name.
    pub const fn name(self) -> &'static str {
        self.name
    }

    /// (M, N, K) of one instruction.
    pub const fn shape_mnk(self) -> [i64; 3] {
        self.shape_mnk
    }

    /// D, A, B, C element types.
    pub const fn types(self) -> MmaTypes {
        self.types
    }

    /// Registers per thread.
    pub const fn regs(self) -> MmaRegs {
        self.regs
    }

    /// Where A and B come from.
    pub const fn source(self) -> MmaSource {
        self.source
    }

    /// The instruction's opcode with its shape and types, e.g.
    /// `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`.
    pub const fn opcode(self) -> &'static str {
        self.opcode
    }

    /// The snippet that emits the instruction.
    pub const fn snippet(self) -> SnippetRef {
        self.snippet
    }

    /// The oldest architecture with the instruction.
    pub const fn min_arch(self) -> ArchKind {
        self.arch
    }

    /// The threads that execute it together, logical thread -> lane (`32:1`
    /// for a warp, `(4,2):(1,16)` for an SM70 quad pair, `1:0` for one
    /// thread). The (thread, value) layouts are over the logical threads.
    pub fn thr_id(self) -> Layout {
        self.thr_id.layout()
    }

    /// (thread, value) -> `m + M*k` in A's M x K tile.
    pub fn a_layout(self) -> Layout {
        self.a.layout()
    }

    /// (thread, value) -> `n + N*k` in B's N x K tile.
    pub fn b_layout(self) -> Layout {
        self.b.layout()
    }

    /// (thread, value) -> `m + M*n` in the M x N tile of C and D.
    pub fn c_layout(self) -> Layout {
        self.c.layout()
    }

    /// Writes `D = A * B + C` into `k`: `d`, `a`, `b`, `c` are this thread's
    /// fragment registers, as many and of the classes [`regs`](Self::regs)
    /// says (`d` may be `c`). A wrong count or class is an error naming the
    /// operand.
    /// SM90 wgmma atoms have their own emitter,
    /// [`emit_wgmma`](Self::emit_wgmma); asking this one is an error.
    pub fn emit(self, k: &mut Kernel, d: &[Reg], a: &[Reg], b: &[Reg], c: &[Reg]) -> Result<()> {
        if self.is_wgmma() {
            return Err(crate::Error::invalid_argument(
                "mma atom",
                self.name,
                "a register-operand MMA atom: emit an SM90 wgmma atom with emit_wgmma",
            ));
        }
        let regs = self.regs;
        check_regs("mma d", d, regs.c, regs.c_class)?;
        check_regs("mma a", a, regs.a, regs.ab_class)?;
        check_regs("mma b", b, regs.b, regs.ab_class)?;
        check_regs("mma c", c, regs.c, regs.c_class)?;
        emit_snippet(
            k,
            self.snippet.family,
            self.snippet.name,
            &[("d", d), ("a", a), ("b", b), ("c", c)],
            &[],
        )
    }
}

/// Element types compared in a `const fn`.
const fn same(x: ElementType, y: ElementType) -> bool {
    x as u32 == y as u32
}

impl fmt::Display for MmaAtom {
    /// Writes the CUTLASS name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// A fixed atom layout from its CuTe notation. Every literal passed here is
/// checked element by element by the atom layout tests.
pub(crate) fn fixed(text: &str) -> Layout {
    text.parse()
        .unwrap_or_else(|e| panic!("atom layout literal `{text}` does not parse: {e}"))
}
