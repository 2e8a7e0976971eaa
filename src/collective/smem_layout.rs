//! [`OperandSmem`]: one operand's swizzled shared-memory tile, its
//! `cp.async` thread mapping and the PTX that computes a swizzled offset.

use crate::kernel::gemm::OperandMajor;
use crate::layout::{ComposedLayout, IntTuple, Layout, SmemSwizzle};
use crate::ptx::{Kernel, Reg, RegClass};

/// Bytes of one swizzle-atom row ("line"): 8 chunks of 16 bytes.
pub(crate) const LINE_BYTES: u32 = 128;

/// The shared-memory tile of one operand (A: BM x BK, B: BN x BK) in one
/// pipeline stage, stored in 128-byte lines swizzled by `Swizzle<3,4,3>` on
/// byte addresses: 16-byte chunk `c` of line `l` lands at chunk `c ^ (l % 8)`.
///
/// - K-major: line `mn` holds the BK elements of row `mn` (BK fills 128 bytes):
///   `Sw o (MN,BK):(BK,1)`.
/// - MN-major: 128-byte blocks of `R` elements along MN, one line per k:
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
    /// Elements in one 128-byte line.
    pub fn line_elements(&self) -> u32 {
        LINE_BYTES / self.element_bytes
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
            OperandMajor::K => ComposedLayout::smem_atom_k_major(SmemSwizzle::B128, ebits),
            OperandMajor::MN => ComposedLayout::smem_atom_mn_major(SmemSwizzle::B128, ebits),
        }
        .expect("element sizes of 1, 2 or 4 bytes make a valid swizzle atom");
        let layout = match self.major {
            OperandMajor::K => {
                Layout::from_parts(IntTuple::ints(&[mn, bk]), IntTuple::ints(&[bk, 1]))
            }
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
        let crd = match self.major {
            OperandMajor::K => crd,
            OperandMajor::MN => {
                let r = self.line_elements();
                IntTuple::tuple([
                    IntTuple::ints(&[i64::from(mn % r), i64::from(mn / r)]),
                    IntTuple::from(i64::from(k)),
                ])
            }
        };
        let elems = self
            .layout()
            .at_coord(&crd)
            .expect("coordinates inside the tile fit its layout");
        u32::try_from(elems).expect("a stage is smaller than 4 GiB") * self.element_bytes
    }

    /// (line, chunk) of element (mn, k): the unswizzled position that
    /// [`emit_swizzled_offset`] turns into a byte offset.
    pub fn line_and_chunk(&self, mn: u32, k: u32) -> (u32, u32) {
        let (r, c) = (self.line_elements(), self.chunk_elements());
        match self.major {
            OperandMajor::K => (mn, k / c),
            OperandMajor::MN => ((mn / r) * self.bk + k, (mn % r) / c),
        }
    }

    /// Bytes of the tile in one stage.
    pub fn bytes(&self) -> u32 {
        self.extent * self.bk * self.element_bytes
    }

    /// 16-byte chunks per copy row: 8 along K for K-major, `extent / 8`
    /// (16-bit) along MN for MN-major.
    pub fn chunks_per_row(&self) -> u32 {
        match self.major {
            OperandMajor::K => self.bk / self.chunk_elements(),
            OperandMajor::MN => self.extent / self.chunk_elements(),
        }
    }

    /// Copy rows: MN rows for K-major, K rows for MN-major.
    pub fn rows(&self) -> u32 {
        match self.major {
            OperandMajor::K => self.extent,
            OperandMajor::MN => self.bk,
        }
    }

    /// Rows the block copies in one pass (threads / chunks per row).
    pub fn rows_per_pass(&self) -> u32 {
        self.threads / self.chunks_per_row()
    }

    /// `cp.async` copies each thread issues per stage.
    pub fn passes(&self) -> u32 {
        self.rows() / self.rows_per_pass()
    }

    /// (mn, k) of the first element thread `t`'s copy of pass `pass` writes:
    /// the copy's thread/value layout, thread-major over chunks of a row.
    pub fn copy_coord(&self, t: u32, pass: u32) -> (u32, u32) {
        let cpr = self.chunks_per_row();
        let row = t / cpr + pass * self.rows_per_pass();
        let chunk = (t % cpr) * self.chunk_elements();
        match self.major {
            OperandMajor::K => (row, chunk),
            OperandMajor::MN => (chunk, row),
        }
    }
}

/// Emits `dst = line * 128 + ((chunk ^ (line % 8)) * 16)`: the swizzled byte
/// offset of a 16-byte chunk (both `.b32` registers).
pub(crate) fn emit_swizzled_offset(k: &mut Kernel, dst: Reg, line: Reg, chunk: Reg) {
    let t = k.reg(RegClass::B32);
    k.push(format!("and.b32 {t}, {line}, 7;"));
    k.push(format!("xor.b32 {t}, {t}, {chunk};"));
    k.push(format!("shl.b32 {t}, {t}, 4;"));
    k.push(format!("shl.b32 {dst}, {line}, 7;"));
    k.push(format!("or.b32 {dst}, {dst}, {t};"));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn swizzled(line: u32, chunk: u32) -> u32 {
        line * 128 + ((chunk ^ (line % 8)) * 16)
    }

    #[test]
    fn line_and_chunk_formula_matches_the_layout_for_every_chunk() {
        for major in [OperandMajor::K, OperandMajor::MN] {
            for (esize, bk) in [(2, 64), (4, 32)] {
                let t = OperandSmem {
                    major,
                    extent: 128,
                    bk,
                    element_bytes: esize,
                    threads: 256,
                };
                let c = t.chunk_elements();
                for mn in 0..t.extent {
                    for k in 0..bk {
                        let (line, chunk) = t.line_and_chunk(mn, k);
                        let within = match major {
                            OperandMajor::K => k % c,
                            OperandMajor::MN => mn % c,
                        };
                        assert_eq!(
                            swizzled(line, chunk) + within * esize,
                            t.byte_offset(mn, k),
                            "{major:?} esize {esize} at ({mn},{k})"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn copies_cover_the_tile_exactly_once() {
        for major in [OperandMajor::K, OperandMajor::MN] {
            let t = OperandSmem {
                major,
                extent: 256,
                bk: 64,
                element_bytes: 2,
                threads: 256,
            };
            let mut seen = vec![0u32; (t.bytes() / 16) as usize];
            for thread in 0..t.threads {
                for pass in 0..t.passes() {
                    let (mn, k) = t.copy_coord(thread, pass);
                    seen[(t.byte_offset(mn, k) / 16) as usize] += 1;
                }
            }
            assert!(seen.iter().all(|&n| n == 1), "{major:?}");
        }
    }
}
