//! [`CopyTraits`] (the copy atom concept) and [`CopyAtom`], its runtime value.

use std::fmt;

use super::copy_sm75::{
    SM75_U16x4_LDSM_T, SM75_U16x8_LDSM_T, SM75_U32x2_LDSM_N, SM75_U32x4_LDSM_N,
};
use super::copy_sm80::SM80_CP_ASYNC_CACHEGLOBAL_ZFILL;
use super::copy_sm90_stsm::{SM90_U16x8_STSM_T, SM90_U32x4_STSM_N};
use super::copy_universal::UniversalCopy;
use crate::arch::ArchKind;
use crate::layout::Layout;

/// The copy atom concept (CuTe's `Copy_Traits`): one data-movement
/// instruction and its (thread, value) -> bit layouts. See the
/// [module docs](super) for the table. The instruction itself is written by
/// each tag's `emit` methods, whose operands differ by instruction.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a copy atom",
    note = "copy atoms are the tag types of cutlet::atom, e.g. SM80_CP_ASYNC_CACHEGLOBAL_ZFILL"
)]
pub trait CopyTraits {
    /// The atom as a runtime value.
    const ATOM: CopyAtom;
    /// The CUTLASS name.
    const NAME: &'static str;
    /// The oldest architecture with the instruction.
    const MIN_ARCH: ArchKind;
    /// The threads that execute it together.
    fn thr_id() -> Layout;
    /// (thread, value) -> bit of the source.
    fn src_layout() -> Layout;
    /// (thread, value) -> bit of the destination.
    fn dst_layout() -> Layout;
    /// The layout a tiled copy partitions with (CuTe's `RefLayout`).
    fn ref_layout() -> Layout {
        Self::dst_layout()
    }
}

/// A copy atom as a plain value, for choices made at run time; each method
/// returns the facts of the variant's tag type.
///
/// ```
/// use cutlet::atom::{CopyAtom, CopyTraits, SM75_U32x4_LDSM_N};
///
/// let atom = SM75_U32x4_LDSM_N::ATOM;
/// assert_eq!(atom.name(), "SM75_U32x4_LDSM_N");
/// assert_eq!(atom.src_layout().to_string(), "(32,128):(128,1)");
/// assert_eq!(atom.bits_per_thread(), 128);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CopyAtom {
    /// [`SM80_CP_ASYNC_CACHEGLOBAL_ZFILL`]: 16 bytes global -> shared, zero-fill.
    Sm80CpAsyncCacheGlobalZfill,
    /// [`SM75_U32x4_LDSM_N`]: `ldmatrix.x4`.
    Sm75U32x4LdsmN,
    /// [`SM75_U16x8_LDSM_T`]: `ldmatrix.x4.trans`.
    Sm75U16x8LdsmT,
    /// [`SM75_U32x2_LDSM_N`]: `ldmatrix.x2`.
    Sm75U32x2LdsmN,
    /// [`SM75_U16x4_LDSM_T`]: `ldmatrix.x2.trans`.
    Sm75U16x4LdsmT,
    /// [`SM90_U32x4_STSM_N`]: `stmatrix.x4`.
    Sm90U32x4StsmN,
    /// [`SM90_U16x8_STSM_T`]: `stmatrix.x4.trans`.
    Sm90U16x8StsmT,
    /// [`UniversalCopy<16>`]: one 16-bit load or store.
    Universal16,
    /// [`UniversalCopy<32>`]: one 32-bit load or store.
    Universal32,
    /// [`UniversalCopy<64>`]: one 64-bit load or store.
    Universal64,
    /// [`UniversalCopy<128>`]: one 128-bit load or store.
    Universal128,
}

macro_rules! dispatch {
    ($self:expr, $item:ident $(($($arg:tt)*))?) => {
        match $self {
            CopyAtom::Sm80CpAsyncCacheGlobalZfill => <SM80_CP_ASYNC_CACHEGLOBAL_ZFILL as CopyTraits>::$item$(($($arg)*))?,
            CopyAtom::Sm75U32x4LdsmN => <SM75_U32x4_LDSM_N as CopyTraits>::$item$(($($arg)*))?,
            CopyAtom::Sm75U16x8LdsmT => <SM75_U16x8_LDSM_T as CopyTraits>::$item$(($($arg)*))?,
            CopyAtom::Sm75U32x2LdsmN => <SM75_U32x2_LDSM_N as CopyTraits>::$item$(($($arg)*))?,
            CopyAtom::Sm75U16x4LdsmT => <SM75_U16x4_LDSM_T as CopyTraits>::$item$(($($arg)*))?,
            CopyAtom::Sm90U32x4StsmN => <SM90_U32x4_STSM_N as CopyTraits>::$item$(($($arg)*))?,
            CopyAtom::Sm90U16x8StsmT => <SM90_U16x8_STSM_T as CopyTraits>::$item$(($($arg)*))?,
            CopyAtom::Universal16 => <UniversalCopy<16> as CopyTraits>::$item$(($($arg)*))?,
            CopyAtom::Universal32 => <UniversalCopy<32> as CopyTraits>::$item$(($($arg)*))?,
            CopyAtom::Universal64 => <UniversalCopy<64> as CopyTraits>::$item$(($($arg)*))?,
            CopyAtom::Universal128 => <UniversalCopy<128> as CopyTraits>::$item$(($($arg)*))?,
        }
    };
}

impl CopyAtom {
    /// Every copy atom.
    pub const ALL: [CopyAtom; 11] = [
        CopyAtom::Sm80CpAsyncCacheGlobalZfill,
        CopyAtom::Sm75U32x4LdsmN,
        CopyAtom::Sm75U16x8LdsmT,
        CopyAtom::Sm75U32x2LdsmN,
        CopyAtom::Sm75U16x4LdsmT,
        CopyAtom::Sm90U32x4StsmN,
        CopyAtom::Sm90U16x8StsmT,
        CopyAtom::Universal16,
        CopyAtom::Universal32,
        CopyAtom::Universal64,
        CopyAtom::Universal128,
    ];

    /// The CUTLASS name.
    pub fn name(self) -> &'static str {
        dispatch!(self, NAME)
    }

    /// The oldest architecture with the instruction.
    pub fn min_arch(self) -> ArchKind {
        dispatch!(self, MIN_ARCH)
    }

    /// The threads that execute it together.
    pub fn thr_id(self) -> Layout {
        dispatch!(self, thr_id())
    }

    /// (thread, value) -> bit of the source.
    pub fn src_layout(self) -> Layout {
        dispatch!(self, src_layout())
    }

    /// (thread, value) -> bit of the destination.
    pub fn dst_layout(self) -> Layout {
        dispatch!(self, dst_layout())
    }

    /// The layout a tiled copy partitions with.
    pub fn ref_layout(self) -> Layout {
        dispatch!(self, ref_layout())
    }

    /// Threads that execute one instruction together.
    pub fn threads(self) -> i64 {
        self.thr_id().size()
    }

    /// Bits one thread moves per instruction (the value mode of the source).
    pub fn bits_per_thread(self) -> i64 {
        let src = self.src_layout();
        src.size() / self.threads()
    }
}

impl fmt::Display for CopyAtom {
    /// Writes the CUTLASS name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
