//! The shared-memory tile of one operand in a stage of the SM90 mainloop:
//! where each TMA box lands, the wgmma descriptor's strides, and the byte
//! offset of each wgmma's slice.
//!
//! - K-major: the tile is `MN` rows of `BK` elements, each row one swizzle
//!   span: 128 bytes (CuTe's `GMMA::Layout_K_SW128_Atom`, 8 rows of 128
//!   bytes) or 64 (`Layout_K_SW64_Atom`, 8 rows of 64 bytes: half-depth
//!   k-tiles, twice the stages in the same shared memory); a TMA box is
//!   `BK x rows` at the rows' offset; wgmma's slice of 64 (A) or N (B)
//!   rows at k-step `kk` starts `kk x 32` bytes into the first row (the
//!   hardware applies the swizzle to the address bits).
//! - MN-major: the 128-byte swizzle (`Layout_MN_SW128_Atom`); the tile is
//!   `MN / 64` atoms (for 16-bit types) of `BK` rows of 64 elements; a TMA
//!   box is `64 x BK`, one per atom; wgmma's slice at k-step `kk` starts
//!   `kk x 16` rows (2048 bytes) into its first atom.

use crate::atom::{gmma_smem_layout, GmmaDescriptor, GmmaSwizzle};
use crate::gemm::OperandMajor;
use crate::layout::ComposedLayout;
use crate::numeric::ElementType;

/// Bytes of an MN-major tile's swizzle row (and of a K-major tile's
/// widest).
pub(crate) const SWIZZLE_BYTES: u32 = 128;

/// One operand's tile in a stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct OperandTile {
    /// Contiguous dimension.
    pub(crate) major: OperandMajor,
    /// Rows along M (A) or N (B).
    pub(crate) mn: u32,
    /// Elements along K.
    pub(crate) bk: u32,
    /// Bytes of an element.
    pub(crate) size: u32,
    /// Byte offset of the tile in its stage.
    pub(crate) offset: u32,
    /// Rows of one wgmma's slice: 64 for A, N for B.
    pub(crate) slice_rows: u32,
}

/// One TMA box of a tile: where it lands and where it reads from, relative
/// to the tile's origin `(mn0, k0)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TmaBox {
    /// Byte offset in the stage.
    pub(crate) dst: u32,
    /// Rows (along M or N) after the tile's first.
    pub(crate) mn: u32,
}

impl OperandTile {
    /// Elements of one 128-byte row (an MN-major tile's atom width).
    pub(crate) const fn row_elems(&self) -> u32 {
        SWIZZLE_BYTES / self.size
    }

    /// Bytes of the tile's swizzle span: a K-major tile's row (`BK`
    /// elements: 64 or 128 bytes), 128 for an MN-major one.
    pub(crate) const fn swizzle_bytes(&self) -> u32 {
        match self.major {
            OperandMajor::K => self.bk * self.size,
            OperandMajor::MN => SWIZZLE_BYTES,
        }
    }

    /// The swizzle of [`swizzle_bytes`](Self::swizzle_bytes) (the rules
    /// admit 64- and 128-byte K-major rows).
    fn swizzle(&self) -> GmmaSwizzle {
        match self.swizzle_bytes() {
            64 => GmmaSwizzle::B64,
            _ => GmmaSwizzle::B128,
        }
    }

    /// Bytes of the tile.
    pub(crate) const fn bytes(&self) -> u32 {
        self.mn * self.bk * self.size
    }

    /// The TMA box, innermost first: `BK x rows` (K-major) or `64 x BK`.
    pub(crate) fn box_dims(&self, peers: u32) -> [u32; 2] {
        match self.major {
            OperandMajor::K => [self.bk, self.mn / peers],
            OperandMajor::MN => [self.row_elems(), self.bk],
        }
    }

    /// The boxes that the CTA of index `slice` among `peers` CTAs sharing
    /// the tile loads (each multicast to all of them): a `1 / peers` share
    /// of the rows (K-major) or of the atoms (MN-major).
    pub(crate) fn boxes(&self, slice: u32, peers: u32) -> Vec<TmaBox> {
        match self.major {
            OperandMajor::K => {
                let rows = self.mn / peers;
                vec![TmaBox {
                    dst: self.offset + slice * rows * self.bk * self.size,
                    mn: slice * rows,
                }]
            }
            OperandMajor::MN => {
                let atoms = self.mn / self.row_elems();
                let per = atoms / peers;
                (slice * per..(slice + 1) * per)
                    .map(|a| TmaBox {
                        dst: self.offset + a * self.bk * SWIZZLE_BYTES,
                        mn: a * self.row_elems(),
                    })
                    .collect()
            }
        }
    }

    /// The tile's layout in shared memory: CuTe's GMMA atom of its major
    /// and swizzle ([`swizzle_bytes`](Self::swizzle_bytes)) tiled over
    /// `mn x BK` (`gmma_smem_layout`).
    pub(crate) fn layout(&self, element: ElementType) -> crate::Result<ComposedLayout> {
        gmma_smem_layout(self.major, element, self.swizzle(), self.mn, self.bk)
    }

    /// The wgmma descriptor of the tile's slices, derived from its layout
    /// (`make_gmma_desc`): one 64-row (or N-row) by instruction-K slice.
    pub(crate) fn descriptor(&self, element: ElementType) -> crate::Result<GmmaDescriptor> {
        let stage = self.layout(element)?;
        let slice = GmmaDescriptor::slice(&stage, self.slice_shape(element), [0, 0])?;
        GmmaDescriptor::from_layout(self.major, element, &slice)
    }

    /// One wgmma's slice: 64 rows of A (or all N of B) by instruction K.
    fn slice_shape(&self, element: ElementType) -> [u32; 2] {
        [self.slice_rows, 32 / element.size_bytes()]
    }

    /// Byte offset, from the tile's start, of the wgmma slice of rows
    /// `64 x mb ..` (A) at k-step `kk`, through the tile's layout.
    pub(crate) fn slice_offset(
        &self,
        element: ElementType,
        mb: u32,
        kk: u32,
    ) -> crate::Result<u32> {
        let stage = self.layout(element)?;
        GmmaDescriptor::slice_offset_bytes(&stage, element, self.slice_shape(element), [mb, kk])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::ElementType::BF16;

    fn tile(major: OperandMajor, mn: u32, slice_rows: u32) -> OperandTile {
        OperandTile {
            major,
            mn,
            bk: 64,
            size: 2,
            offset: 0,
            slice_rows,
        }
    }

    #[test]
    fn k_major_boxes_split_rows_among_peers() {
        let t = tile(OperandMajor::K, 128, 64);
        assert_eq!(t.box_dims(2), [64, 64]);
        assert_eq!(t.boxes(1, 2), vec![TmaBox { dst: 8192, mn: 64 }]);
        let d = t.descriptor(BF16).unwrap();
        assert_eq!((d.lbo_bytes, d.sbo_bytes), (16, 1024));
        // The second 64-row block, k-step 3: 64 rows of 128 bytes, 3 x 32 bytes.
        assert_eq!(t.slice_offset(BF16, 1, 3).unwrap(), 8192 + 96);
    }

    #[test]
    fn k_major_64_byte_rows_take_the_64_byte_swizzle() {
        // TileK 32 of bf16: 64-byte rows, 8-row atoms of 512 bytes.
        let t = OperandTile {
            bk: 32,
            ..tile(OperandMajor::K, 160, 160)
        };
        assert_eq!(t.swizzle_bytes(), 64);
        assert_eq!(t.box_dims(1), [32, 160]);
        assert_eq!(
            t.boxes(1, 2),
            vec![TmaBox {
                dst: 80 * 64,
                mn: 80
            }]
        );
        let d = t.descriptor(BF16).unwrap();
        assert_eq!(d.swizzle, GmmaSwizzle::B64);
        assert_eq!((d.lbo_bytes, d.sbo_bytes), (16, 512));
        // k-step 1 starts 32 bytes into the row.
        assert_eq!(t.slice_offset(BF16, 0, 1).unwrap(), 32);
        // An MN-major tile keeps the 128-byte swizzle at TileK 32.
        let mn = OperandTile {
            bk: 32,
            ..tile(OperandMajor::MN, 128, 64)
        };
        assert_eq!(mn.swizzle_bytes(), 128);
        assert_eq!(mn.box_dims(1), [64, 32]);
    }

    #[test]
    fn mn_major_boxes_are_swizzle_atoms() {
        let t = tile(OperandMajor::MN, 256, 256);
        assert_eq!(t.box_dims(1), [64, 64]);
        let boxes = t.boxes(0, 1);
        assert_eq!(boxes.len(), 4);
        assert_eq!(
            boxes[3],
            TmaBox {
                dst: 3 * 8192,
                mn: 192
            }
        );
        assert_eq!(
            t.boxes(1, 2)[0],
            TmaBox {
                dst: 2 * 8192,
                mn: 128
            }
        );
        let d = t.descriptor(BF16).unwrap();
        assert_eq!((d.lbo_bytes, d.sbo_bytes), (8192, 1024));
        // A's second 64-row block (the second atom), k-step 2: 2 x 16 rows of 128 bytes.
        let a = tile(OperandMajor::MN, 128, 64);
        assert_eq!(a.slice_offset(BF16, 1, 2).unwrap(), 8192 + 2 * 2048);
        // A 64-column N-major B tile is one 128-byte box: two CTAs of a
        // cluster column cannot share it (the rule set says so).
        use crate::gemm::{ClusterShape, GemmMajors, GemmTypes, OutputMajor};
        let types = GemmTypes::new(BF16, BF16, BF16, BF16, crate::numeric::ElementType::F32);
        let majors = GemmMajors::new(OperandMajor::K, OperandMajor::MN, OutputMajor::N);
        let rule = super::super::check_sm90_mainloop(
            types,
            majors,
            [256, 64, 64],
            ClusterShape::new(2, 1),
            2,
        );
        assert!(rule.unwrap_err().as_str().contains("cannot be split"));
        assert!(super::super::check_sm90_mainloop(
            types,
            majors,
            [256, 64, 64],
            ClusterShape::ONE,
            2
        )
        .is_ok());
    }
}
