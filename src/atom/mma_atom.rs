//! [`MmaTraits`] (the MMA atom concept) and [`MmaAtom`], its runtime value.

use std::fmt;

use super::emit::{check_regs, emit_snippet};
use super::mma_sm80::{
    SM80_16x8x16_F16F16F16F16_TN, SM80_16x8x16_F32BF16BF16F32_TN, SM80_16x8x16_F32F16F16F32_TN,
    SM80_16x8x8_F32TF32TF32F32_TN,
};
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
    /// A registers per thread.
    pub a: usize,
    /// B registers per thread.
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

/// The MMA atom concept (CuTe's `MMA_Traits`): one instruction and its
/// thread/value layouts. See the [module docs](super) for the table.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an MMA atom",
    note = "MMA atoms are the tag types of cutlet::atom, e.g. SM80_16x8x16_F32BF16BF16F32_TN"
)]
pub trait MmaTraits {
    /// The atom as a runtime value.
    const ATOM: MmaAtom;
    /// The CUTLASS name.
    const NAME: &'static str;
    /// (M, N, K) of one instruction.
    const SHAPE_MNK: [i64; 3];
    /// D, A, B, C element types.
    const TYPES: MmaTypes;
    /// Registers per thread.
    const REGS: MmaRegs;
    /// The snippet that emits the instruction.
    const SNIPPET: SnippetRef;
    /// The oldest architecture with the instruction.
    const MIN_ARCH: ArchKind;
    /// The threads that execute it together (`32:1` for a warp).
    fn thr_id() -> Layout;
    /// (thread, value) -> `m + M*k` in the M x K tile of A.
    fn a_layout() -> Layout;
    /// (thread, value) -> `n + N*k` in the N x K tile of B.
    fn b_layout() -> Layout;
    /// (thread, value) -> `m + M*n` in the M x N tile of C and D.
    fn c_layout() -> Layout;
}

/// An MMA atom as a plain value, for choices made at run time. Each variant
/// is one tag type of this module; every method returns that tag's
/// [`MmaTraits`] facts.
///
/// ```
/// use cutlet::atom::{MmaAtom, MmaTraits, SM80_16x8x16_F32BF16BF16F32_TN};
///
/// let atom = SM80_16x8x16_F32BF16BF16F32_TN::ATOM;
/// assert_eq!(atom, MmaAtom::Sm80F32Bf16Bf16F32);
/// assert_eq!(atom.name(), "SM80_16x8x16_F32BF16BF16F32_TN");
/// assert_eq!(atom.shape_mnk(), [16, 8, 16]);
/// assert_eq!(atom.c_layout().to_string(), "((4,8),(2,2)):((32,1),(16,8))");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaAtom {
    /// [`SM80_16x8x16_F32F16F16F32_TN`].
    Sm80F32F16F16F32,
    /// [`SM80_16x8x16_F32BF16BF16F32_TN`].
    Sm80F32Bf16Bf16F32,
    /// [`SM80_16x8x16_F16F16F16F16_TN`].
    Sm80F16F16F16F16,
    /// [`SM80_16x8x8_F32TF32TF32F32_TN`].
    Sm80F32Tf32Tf32F32,
    /// [`UniversalFMA`] on f32.
    UniversalFma,
}

macro_rules! dispatch {
    ($self:expr, $item:ident $(($($arg:tt)*))?) => {
        match $self {
            MmaAtom::Sm80F32F16F16F32 => <SM80_16x8x16_F32F16F16F32_TN as MmaTraits>::$item$(($($arg)*))?,
            MmaAtom::Sm80F32Bf16Bf16F32 => <SM80_16x8x16_F32BF16BF16F32_TN as MmaTraits>::$item$(($($arg)*))?,
            MmaAtom::Sm80F16F16F16F16 => <SM80_16x8x16_F16F16F16F16_TN as MmaTraits>::$item$(($($arg)*))?,
            MmaAtom::Sm80F32Tf32Tf32F32 => <SM80_16x8x8_F32TF32TF32F32_TN as MmaTraits>::$item$(($($arg)*))?,
            MmaAtom::UniversalFma => <UniversalFMA as MmaTraits>::$item$(($($arg)*))?,
        }
    };
}

impl MmaAtom {
    /// Every MMA atom.
    pub const ALL: [MmaAtom; 5] = [
        MmaAtom::Sm80F32F16F16F32,
        MmaAtom::Sm80F32Bf16Bf16F32,
        MmaAtom::Sm80F16F16F16F16,
        MmaAtom::Sm80F32Tf32Tf32F32,
        MmaAtom::UniversalFma,
    ];

    /// The CUTLASS name.
    pub fn name(self) -> &'static str {
        dispatch!(self, NAME)
    }

    /// (M, N, K) of one instruction.
    pub fn shape_mnk(self) -> [i64; 3] {
        dispatch!(self, SHAPE_MNK)
    }

    /// D, A, B, C element types.
    pub fn types(self) -> MmaTypes {
        dispatch!(self, TYPES)
    }

    /// Registers per thread.
    pub fn regs(self) -> MmaRegs {
        dispatch!(self, REGS)
    }

    /// The snippet that emits the instruction.
    pub fn snippet(self) -> SnippetRef {
        dispatch!(self, SNIPPET)
    }

    /// The oldest architecture with the instruction.
    pub fn min_arch(self) -> ArchKind {
        dispatch!(self, MIN_ARCH)
    }

    /// The threads that execute it together.
    pub fn thr_id(self) -> Layout {
        dispatch!(self, thr_id())
    }

    /// (thread, value) -> `m + M*k` in A's M x K tile.
    pub fn a_layout(self) -> Layout {
        dispatch!(self, a_layout())
    }

    /// (thread, value) -> `n + N*k` in B's N x K tile.
    pub fn b_layout(self) -> Layout {
        dispatch!(self, b_layout())
    }

    /// (thread, value) -> `m + M*n` in the M x N tile of C and D.
    pub fn c_layout(self) -> Layout {
        dispatch!(self, c_layout())
    }

    /// Writes `D = A * B + C` into `k`: `d`, `a`, `b`, `c` are this thread's
    /// fragment registers, as many and of the classes [`regs`](Self::regs)
    /// says (`d` may be `c`). A wrong count or class is an error naming the
    /// operand.
    pub fn emit(self, k: &mut Kernel, d: &[Reg], a: &[Reg], b: &[Reg], c: &[Reg]) -> Result<()> {
        let regs = self.regs();
        check_regs("mma d", d, regs.c, regs.c_class)?;
        check_regs("mma a", a, regs.a, regs.ab_class)?;
        check_regs("mma b", b, regs.b, regs.ab_class)?;
        check_regs("mma c", c, regs.c, regs.c_class)?;
        let snippet = self.snippet();
        emit_snippet(
            k,
            snippet.family,
            snippet.name,
            &[("d", d), ("a", a), ("b", b), ("c", c)],
            &[],
        )
    }
}

impl fmt::Display for MmaAtom {
    /// Writes the CUTLASS name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A fixed atom layout from its CuTe notation. Every literal passed here is
/// checked element by element by the atom layout tests.
pub(crate) fn fixed(text: &str) -> Layout {
    text.parse()
        .unwrap_or_else(|e| panic!("atom layout literal `{text}` does not parse: {e}"))
}
