//! Swizzled layouts: a swizzle after an offset after a layout (CuTe's
//! `ComposedLayout<Swizzle, Offset, Layout>`, `cute/layout_composed.hpp`),
//! and the standard shared-memory swizzle atoms of SM80 and SM90.

use std::fmt;

use super::error::LayoutError;
use super::int_tuple::IntTuple;
use super::layout::Layout;
use super::swizzle::Swizzle;

/// `swizzle ∘ offset ∘ layout`: the coordinate `c` maps to
/// `swizzle(offset + layout(c))`.
///
/// ```
/// use cutlet::layout::{ComposedLayout, Swizzle};
/// let sw = Swizzle::new(3, 3, 3).unwrap();
/// let c = ComposedLayout::new(sw, 0, "(8,64):(64,1)".parse().unwrap());
/// assert_eq!(c.to_string(), "Sw<3,3,3> o 0 o (8,64):(64,1)");
/// assert_eq!(c.size(), 512);
/// // row 1, element 0 (chunk 0) lands in chunk 1 of row 1: 64 + 8
/// assert_eq!(c.at_coord(&"(1,0)".parse().unwrap()).unwrap(), 72);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ComposedLayout {
    swizzle: Swizzle,
    offset: i64,
    layout: Layout,
}

/// The row width of a shared-memory swizzle atom: how many bytes one of its
/// eight rows holds (CUTLASS's `INTER`, `SW32`, `SW64`, `SW128`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SmemSwizzle {
    /// 16-byte rows, no swizzle (`Sw<0,M,3>`, GMMA's `INTER`).
    Interleave,
    /// 32-byte rows, `Sw<1,M,3>`.
    B32,
    /// 64-byte rows, `Sw<2,M,3>`.
    B64,
    /// 128-byte rows, `Sw<3,M,3>`.
    B128,
}

impl SmemSwizzle {
    /// `B` of the swizzle: log2 of the row width in 16-byte chunks.
    pub fn bits(self) -> i64 {
        match self {
            SmemSwizzle::Interleave => 0,
            SmemSwizzle::B32 => 1,
            SmemSwizzle::B64 => 2,
            SmemSwizzle::B128 => 3,
        }
    }

    /// Bytes in one row of the atom: 16, 32, 64 or 128.
    pub fn row_bytes(self) -> i64 {
        16 << self.bits()
    }
}

impl ComposedLayout {
    /// `swizzle ∘ offset ∘ layout` (CuTe's `composition(swizzle, offset, layout)`).
    pub fn new(swizzle: Swizzle, offset: i64, layout: Layout) -> Self {
        ComposedLayout {
            swizzle,
            offset,
            layout,
        }
    }

    /// A shared-memory atom of 8 rows, K-major (each row contiguous), in units
    /// of elements of `element_bits` bits: `Sw<B,M,3> o 0 o (8,R):(R,1)`, where
    /// `R` elements fill one row and `2^M` elements fill 16 bytes.
    ///
    /// Chunk `c` (16 bytes) of row `r` lands at chunk `c ^ (r & 7)` for 128-byte
    /// rows, `c ^ ((r >> 1) & 3)` for 64-byte rows and `c ^ ((r >> 2) & 1)` for
    /// 32-byte rows. These are CUTLASS's SM80 `ldmatrix` atoms
    /// (`composition(Swizzle<3,3,3>, (8,64):(64,1))` for 16-bit data) and the
    /// element-unit form of SM90's `GMMA::Layout_K_SW*_Atom` (which CuTe writes
    /// as `Sw<B,4,3>` on byte addresses: the same bits).
    ///
    /// ```
    /// use cutlet::layout::{ComposedLayout, SmemSwizzle};
    /// let atom = ComposedLayout::smem_atom_k_major(SmemSwizzle::B128, 16).unwrap();
    /// assert_eq!(atom.to_string(), "Sw<3,3,3> o 0 o (8,64):(64,1)");
    /// let atom = ComposedLayout::smem_atom_k_major(SmemSwizzle::B64, 16).unwrap();
    /// assert_eq!(atom.to_string(), "Sw<2,3,3> o 0 o (8,32):(32,1)");
    /// let atom = ComposedLayout::smem_atom_k_major(SmemSwizzle::B32, 32).unwrap();
    /// assert_eq!(atom.to_string(), "Sw<1,2,3> o 0 o (8,8):(8,1)");
    /// ```
    ///
    /// # Errors
    /// If `element_bits` is not a power of two that divides 128.
    pub fn smem_atom_k_major(width: SmemSwizzle, element_bits: i64) -> Result<Self, LayoutError> {
        let (swizzle, row) = Self::atom_parts(width, element_bits)?;
        let layout = Layout::from_parts(IntTuple::ints(&[8, row]), IntTuple::ints(&[row, 1]));
        Ok(ComposedLayout::new(swizzle, 0, layout))
    }

    /// The MN-major atom: the same swizzle over `(R,8):(1,R)` (each column of
    /// the tile contiguous), CUTLASS's `Layout_MN_SW*_Atom` in element units.
    ///
    /// ```
    /// use cutlet::layout::{ComposedLayout, SmemSwizzle};
    /// let atom = ComposedLayout::smem_atom_mn_major(SmemSwizzle::B128, 16).unwrap();
    /// assert_eq!(atom.to_string(), "Sw<3,3,3> o 0 o (64,8):(1,64)");
    /// ```
    ///
    /// # Errors
    /// If `element_bits` is not a power of two that divides 128.
    pub fn smem_atom_mn_major(width: SmemSwizzle, element_bits: i64) -> Result<Self, LayoutError> {
        let (swizzle, row) = Self::atom_parts(width, element_bits)?;
        let layout = Layout::from_parts(IntTuple::ints(&[row, 8]), IntTuple::ints(&[1, row]));
        Ok(ComposedLayout::new(swizzle, 0, layout))
    }

    fn atom_parts(width: SmemSwizzle, element_bits: i64) -> Result<(Swizzle, i64), LayoutError> {
        if !(1..=128).contains(&element_bits) || element_bits.count_ones() != 1 {
            return Err(LayoutError::Inadmissible {
                op: "smem_atom",
                detail: format!(
                    "element size {element_bits} bits must be a power of two from 1 to 128"
                ),
            });
        }
        let chunk_elems = 128 / element_bits;
        let base = i64::from(chunk_elems.trailing_zeros());
        let swizzle = Swizzle::new(width.bits(), base, 3)?;
        Ok((swizzle, width.row_bytes() * 8 / element_bits))
    }

    /// The swizzle applied last.
    pub fn swizzle(&self) -> Swizzle {
        self.swizzle
    }

    /// The offset added before the swizzle.
    pub fn offset(&self) -> i64 {
        self.offset
    }

    /// The layout applied first.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The domain size, that of the inner layout.
    pub fn size(&self) -> i64 {
        self.layout.size()
    }

    /// The codomain size, as CuTe defines it: the cosize of the inner layout.
    /// This is exact when the layout's image is a union of whole swizzle
    /// blocks ([`Swizzle::period`]) and the offset is 0, as for every atom above.
    pub fn cosize(&self) -> i64 {
        self.layout.cosize()
    }

    /// The index of the `i`-th element (linear coordinate, colexicographic).
    pub fn at(&self, i: i64) -> i64 {
        self.swizzle.apply(self.offset + self.layout.at(i))
    }

    /// The index at a (hierarchical or partial) coordinate.
    ///
    /// # Errors
    /// If the coordinate does not fit the shape's structure.
    pub fn at_coord(&self, crd: &IntTuple) -> Result<i64, LayoutError> {
        if !fits(crd, self.layout.shape()) {
            return Err(LayoutError::Inadmissible {
                op: "composed layout",
                detail: format!(
                    "coordinate {crd} does not fit the shape {}",
                    self.layout.shape()
                ),
            });
        }
        Ok(self.swizzle.apply(self.offset + self.layout.at_coord(crd)))
    }
}

/// Whether `crd` is a coordinate of `shape`: an integer fits any shape, a
/// tuple fits a tuple of the same rank whose modes it fits.
fn fits(crd: &IntTuple, shape: &IntTuple) -> bool {
    match (crd, shape) {
        (IntTuple::Int(_), _) => true,
        (IntTuple::Tuple(c), IntTuple::Tuple(s)) => {
            c.len() == s.len() && c.iter().zip(s).all(|(c, s)| fits(c, s))
        }
        (IntTuple::Tuple(_), IntTuple::Int(_)) => false,
    }
}

impl fmt::Display for ComposedLayout {
    /// `Sw<B,M,S> o OFFSET o LAYOUT`, as CuTe prints a composed layout.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} o {} o {}", self.swizzle, self.offset, self.layout)
    }
}

impl fmt::Debug for ComposedLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ComposedLayout({self})")
    }
}
