//! [`OperandSmem`]: one operand's swizzled shared-memory tile. Which thread
//! copies or reads which part of it is the tiled layer's business
//! ([`crate::tiled`], built in the mainloop's `mappings.rs`).

use super::SMEM_ALIGN;
use crate::gemm::OperandMajor;
use crate::layout::{ComposedLayout, IntTuple, Layout, SmemSwizzle};

/// Bytes of the widest swizzle-atom row ("line"): 8 chunks of 16 bytes.
pub(crate) const LINE_BYTES: u32 = 128;

/// The shared-memory tile of one operand (A: BM x BK, B: BN x BK) in one
/// pipeline stage, stored in lines of a swizzle atom (CuTe's
/// `Layout_{K,MN}_SW{32,64,128}_Atom`): lines of 128 bytes swizzled by
/// `Swizzle<3,4,3>` on byte addresses (16-byte chunk `c` of line `l` lands
/// at chunk `c ^ (l % 8)`), or of 64 or 32 bytes (`Swizzle<2,4,3>`,
/// `Swizzle<1,4,3>`) where the contiguous extent is that short.
///
/// - K-major: line `mn` holds the BK elements of row `mn` when they fill
///   one line or less: `Sw o (MN,BK):(BK,1)`; wider rows are tiled by
///   128-byte atoms of 8 lines, along MN first (CuTe's `tile_to_shape`):
///   `Sw o ((8,MN/8),(R,BK/R)):((R,8R),(1,MN*R))`, `R` the elements of a line.
/// - MN-major: blocks of `R` elements along MN, one line per k:
///   `Sw o ((R,MN/R),BK):((1,R*BK),R)`.
///
/// ```
/// use cutlet::collective::OperandSmem;
/// use cutlet::kernel::gemm::OperandMajor;
///
/// let a = OperandSmem { major: OperandMajor::K, extent: 128, bk: 64, element_bytes: 2, threads: 256 };
/// assert_eq!(a.layout().to_string(), "Sw<3,3,3> o 0 o (128,64):(64,1)");
/// // row 1, k 0: chunk 0 of line 1 lands in chunk 1 -> byte 128 + 16
/// assert_eq!(a.byte_offset(1, 0), 144);
/// let b = OperandSmem { major: OperandMajor::MN, ..a };
/// assert_eq!(b.layout().to_string(), "Sw<3,3,3> o 0 o ((64,2),64):((1,4096),64)");
/// assert_eq!(b.byte_offset(64, 1), 64 * 128 + 128 + 16);
/// // BK = 32 of bf16: 64-byte lines, Swizzle<2,4,3> (on elements Sw<2,3,3>).
/// let narrow = OperandSmem { bk: 32, ..a };
/// assert_eq!(narrow.layout().to_string(), "Sw<2,3,3> o 0 o (128,32):(32,1)");
/// // BK = 128 of bf16: two 128-byte atoms along K.
/// let wide = OperandSmem { bk: 128, ..a };
/// assert_eq!(wide.layout().to_string(), "Sw<3,3,3> o 0 o ((8,16),(64,2)):((64,512),(1,8192))");
/// assert_eq!(wide.byte_offset(0, 64), 128 * 64 * 2);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OperandSmem {
    /// Which dimension is contiguous in global memory (and in each line).
    pub major: OperandMajor,
    /// The tile's MN extent (BM for A, BN for B).
    pub extent: u32,
    /// The tile's K extent.
    pub bk: u32,
    /// Bytes of one element.
    pub element_bytes: u32,
    /// Threads of the block that copy the tile.
    pub threads: u32,
}

impl OperandSmem {
    /// Elements in one line: the contiguous extent (BK for K-major, MN
    /// for MN-major), at most 128 bytes of it.
    pub fn line_elements(&self) -> u32 {
        let contiguous = match self.major {
            OperandMajor::K => self.bk,
            OperandMajor::MN => self.extent,
        };
        contiguous.min(LINE_BYTES / self.element_bytes)
    }

    /// The swizzle atom's width: the line's bytes.
    pub fn swizzle_width(&self) -> SmemSwizzle {
        match self.line_elements() * self.element_bytes {
            32 => SmemSwizzle::B32,
            64 => SmemSwizzle::B64,
            _ => SmemSwizzle::B128,
        }
    }

    /// Elements in one 16-byte chunk.
    pub fn chunk_elements(&self) -> u32 {
        16 / self.element_bytes
    }

    /// The tile's layout (MN, K) -> element offset, swizzle included.
    pub fn layout(&self) -> ComposedLayout {
        let ebits = i64::from(self.element_bytes * 8);
        let (mn, bk) = (i64::from(self.extent), i64::from(self.bk));
        let r = i64::from(self.line_elements());
        let inner = match self.major {
            OperandMajor::K => ComposedLayout::smem_atom_k_major(self.swizzle_width(), ebits),
            OperandMajor::MN => ComposedLayout::smem_atom_mn_major(self.swizzle_width(), ebits),
        }
        .expect("element sizes of 1, 2 or 4 bytes make a valid swizzle atom");
        let layout = match self.major {
            OperandMajor::K if bk == r => {
                Layout::from_parts(IntTuple::ints(&[mn, bk]), IntTuple::ints(&[bk, 1]))
            }
            OperandMajor::K => Layout::from_parts(
                IntTuple::tuple([IntTuple::ints(&[8, mn / 8]), IntTuple::ints(&[r, bk / r])]),
                IntTuple::tuple([IntTuple::ints(&[r, 8 * r]), IntTuple::ints(&[1, mn * r])]),
            ),
            OperandMajor::MN => Layout::from_parts(
                IntTuple::tuple([IntTuple::ints(&[r, mn / r]), IntTuple::from(bk)]),
                IntTuple::tuple([IntTuple::ints(&[1, r * bk]), IntTuple::from(r)]),
            ),
        };
        ComposedLayout::new(inner.swizzle(), 0, layout)
    }

    /// Byte offset of element (mn, k) in the stage, through [`layout`](Self::layout).
    pub fn byte_offset(&self, mn: u32, k: u32) -> u32 {
        let crd = IntTuple::ints(&[i64::from(mn), i64::from(k)]);
        let r = self.line_elements();
        let crd = match self.major {
            OperandMajor::K if self.bk == r => crd,
            OperandMajor::K => IntTuple::tuple([
                IntTuple::ints(&[i64::from(mn % 8), i64::from(mn / 8)]),
                IntTuple::ints(&[i64::from(k % r), i64::from(k / r)]),
            ]),
            OperandMajor::MN => IntTuple::tuple([
                IntTuple::ints(&[i64::from(mn % r), i64::from(mn / r)]),
                IntTuple::from(i64::from(k)),
            ]),
        };
        let elems = self
            .layout()
            .at_coord(&crd)
            .expect("coordinates inside the tile fit its layout");
        u32::try_from(elems).expect("a stage is smaller than 4 GiB") * self.element_bytes
    }

    /// Bytes of the tile in one stage.
    pub fn bytes(&self) -> u32 {
        self.extent * self.bk * self.element_bytes
    }

    /// Bytes the tile takes in a stage: [`bytes`](Self::bytes) rounded up
    /// to 1024 bytes, so that the next tile starts at a multiple of
    /// every swizzle's period.
    pub fn stage_bytes(&self) -> u32 {
        tile_stage_bytes(self.extent, self.bk, self.element_bytes)
    }
}

/// Bytes an `extent x bk` tile of `element_bytes`-byte elements takes in a
/// stage: rounded up to 1024 bytes, so that the next tile starts at a
/// multiple of every swizzle's period. The one formula both
/// [`OperandSmem::stage_bytes`] and the const configuration rules use.
pub(crate) const fn tile_stage_bytes(extent: u32, bk: u32, element_bytes: u32) -> u32 {
    (extent * bk * element_bytes).next_multiple_of(SMEM_ALIGN)
}
