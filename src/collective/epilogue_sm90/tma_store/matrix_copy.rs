//! [`MatrixCopy`]: a warp's `stmatrix.x4` or `ldmatrix.x4` copies of the
//! tiled MMA's 16-bit C fragment, built from the tiled MMA's C partition
//! and the copy atom's layouts as CuTe's `make_tiled_copy_C(atom, mma)`
//! builds a tiled copy: which of a thread's values each instruction's
//! registers hold, and which row each lane addresses.

use crate::atom::CopyAtom;
use crate::collective::Sm90TiledMma;
use crate::layout::{IntTuple, Layout};
use crate::{Error, Result};

/// Lanes of a warp.
const LANES: i64 = 32;
/// Rows (and columns) of one matrix and bits of one 16-bit element.
const MATRIX_ROWS: i64 = 8;
const ELEMENT_BITS: i64 = 16;

/// One `.x4` instruction: a 2x2 window of 8x8 matrices whose first
/// element lies at `origin` (row, column) from the warp's first element
/// (matrix `j` is block `(j % 2, j / 2)` of the window), and per register
/// `j` the thread's two values it packs (the first in the low half).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct MatrixInstruction {
    pub(super) origin: [u32; 2],
    pub(super) values: [[i64; 2]; 4],
}

/// A warp's copies of the C fragment through an 8x8-matrix atom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct MatrixCopy {
    instructions: Vec<MatrixInstruction>,
    lane_rows: Layout,
    lane_cols: Layout,
}

impl MatrixCopy {
    /// The copies of `mma`'s fragment with `atom` (`stmatrix.x4` or
    /// `ldmatrix.x4`, plain or `.trans`) into a tile whose rows
    /// (`column_major` false) or columns (true) are the matrices' rows in
    /// memory. Errors where the atom's register layout does not hold the
    /// same values of the fragment in every lane (the atom does not fit the
    /// fragment or the major).
    pub(super) fn new(mma: &Sm90TiledMma, atom: CopyAtom, column_major: bool) -> Result<Self> {
        let (registers, memory) = match atom {
            CopyAtom::Sm90U32x4StsmN | CopyAtom::Sm90U16x8StsmT => {
                (atom.src_layout(), atom.dst_layout())
            }
            CopyAtom::Sm75U32x4LdsmN | CopyAtom::Sm75U16x8LdsmT => {
                (atom.dst_layout(), atom.src_layout())
            }
            other => {
                return Err(Error::invalid_argument(
                    "matrix copy atom",
                    other.name(),
                    "an x4 stmatrix or ldmatrix",
                ))
            }
        };
        // Memory row `r` of the four matrices -> (row, column) in the tile.
        let place = |matrix: i64, mem_row: i64, mem_col: i64| -> [i64; 2] {
            let block = [MATRIX_ROWS * (matrix % 2), MATRIX_ROWS * (matrix / 2)];
            let (r, c) = if column_major {
                (mem_col, mem_row)
            } else {
                (mem_row, mem_col)
            };
            [block[0] + r, block[1] + c]
        };
        // Register j, half e of lane l -> its element's place in the window.
        let register_place = |l: i64, j: i64, e: i64| -> Result<[i64; 2]> {
            let bit = registers.at(l + LANES * (32 * j + ELEMENT_BITS * e));
            let element = bit / ELEMENT_BITS;
            let matrix = element / (MATRIX_ROWS * MATRIX_ROWS);
            if matrix != j {
                return Err(Error::invalid_argument(
                    "matrix copy atom",
                    atom.name(),
                    "register j holding matrix j",
                ));
            }
            let within = element % (MATRIX_ROWS * MATRIX_ROWS);
            Ok(place(matrix, within / MATRIX_ROWS, within % MATRIX_ROWS))
        };
        // The row lane l addresses: memory row `bit / 128` of the four.
        let lane_place = |l: i64| {
            let row = memory.at(l) / (MATRIX_ROWS * ELEMENT_BITS);
            place(row / MATRIX_ROWS, row % MATRIX_ROWS, 0)
        };
        let lane_rows = fit_lanes(|l| lane_place(l)[0])?;
        let lane_cols = fit_lanes(|l| lane_place(l)[1])?;
        // Thread (lane) l's first element and its values' places.
        let origin = |l: i64| [mma.rows().thr().at(l), mma.cols().thr().at(l)];
        let value_of = |l: i64, at: [i64; 2]| {
            let [r0, c0] = origin(l);
            let (r, c) = (at[0] - r0, at[1] - c0);
            if r < 0 || c < 0 {
                return None;
            }
            mma.value_at(r as u32, c as u32)
        };
        if origin(0) != [0, 0] {
            return Err(Error::invalid_argument(
                "tiled mma",
                format!("thread 0 at {:?}", origin(0)),
                "thread 0 at the tile's first element",
            ));
        }
        // Windows at lane 0's values on 16-aligned rows and columns.
        let mut origins: Vec<[u32; 2]> = (0..mma.values())
            .map(|v| [mma.row_of(v), mma.col_of(v)])
            .filter(|o| o[0] % 16 == 0 && o[1] % 16 == 0)
            .collect();
        origins.sort_unstable();
        origins.dedup();
        let mut instructions = Vec::new();
        let mut covered = vec![false; mma.values() as usize];
        for o in origins {
            let mut values = [[0i64; 2]; 4];
            for (j, pair) in values.iter_mut().enumerate() {
                for (e, value) in pair.iter_mut().enumerate() {
                    let mut agreed = None;
                    for l in 0..LANES {
                        let p = register_place(l, j as i64, e as i64)?;
                        let at = [i64::from(o[0]) + p[0], i64::from(o[1]) + p[1]];
                        let v = value_of(l, at);
                        if v.is_none() || (agreed.is_some() && agreed != v) {
                            return Err(Error::invalid_argument(
                                "matrix copy",
                                format!("{} at {o:?}, register {j}, lane {l}", atom.name()),
                                "the same value of the fragment in every lane",
                            ));
                        }
                        agreed = v;
                    }
                    *value = agreed.unwrap_or(0);
                    covered[*value as usize] = true;
                }
            }
            instructions.push(MatrixInstruction { origin: o, values });
        }
        if covered.iter().any(|c| !c) {
            return Err(Error::invalid_argument(
                "matrix copy",
                atom.name(),
                "instructions that hold every value of the fragment",
            ));
        }
        Ok(MatrixCopy {
            instructions,
            lane_rows,
            lane_cols,
        })
    }

    /// The instructions, by origin (row, then column).
    pub(super) fn instructions(&self) -> &[MatrixInstruction] {
        &self.instructions
    }

    /// Lane -> the row of the tile it addresses, from the instruction's origin.
    pub(super) fn lane_rows(&self) -> &Layout {
        &self.lane_rows
    }

    /// Lane -> the column of the tile it addresses, from the instruction's origin.
    pub(super) fn lane_cols(&self) -> &Layout {
        &self.lane_cols
    }
}

/// The layout `(8,2,2):(f(1),f(8),f(16))` of the lane index, checked
/// against `f` at every lane: each lane's address row is linear in the
/// lane's row within its matrix and the matrix's two window coordinates.
fn fit_lanes(f: impl Fn(i64) -> i64) -> Result<Layout> {
    let strides = [f(1) - f(0), f(8) - f(0), f(16) - f(0)];
    let layout = Layout::from_parts(IntTuple::ints(&[8, 2, 2]), IntTuple::ints(&strides));
    if f(0) != 0 || (0..LANES).any(|l| layout.at(l) != f(l)) {
        return Err(Error::invalid_argument(
            "matrix copy lanes",
            layout,
            "addresses linear in the lane's row and matrix",
        ));
    }
    Ok(layout)
}

#[cfg(test)]
mod tests {
    use super::MatrixCopy;
    use crate::atom::{gmma_atom, CopyAtom, MmaSource};
    use crate::collective::Sm90TiledMma;
    use crate::numeric::ElementType::{BF16, F32};

    /// CuTe's stmatrix over the wgmma fragment: per 64-row block and 16
    /// columns one x4, its registers the pairs (h, a), (h', a), (h, a+1),
    /// (h', a+1) of rows 8h and columns 8a; lanes address row l % 8 of
    /// matrix l / 8 (rows for N, columns for the transposed copy).
    #[test]
    fn stmatrix_of_the_wgmma_fragment_matches_the_ptx_isa() {
        let atom = gmma_atom(BF16, BF16, F32, 64, MmaSource::SharedShared).unwrap();
        let mma = Sm90TiledMma::new(atom, 2, 128).unwrap();
        let n = MatrixCopy::new(&mma, CopyAtom::Sm90U32x4StsmN, false).unwrap();
        assert_eq!(n.instructions().len(), 2 * 4);
        let first = n.instructions()[1];
        assert_eq!(first.origin, [0, 16]);
        // Value i of block 0 at row 8((i>>1)&1), column 8(i>>2) + (i&1).
        let v = |row: i64, col: i64| 4 * (col / 8) + 2 * (row / 8) + col % 8;
        assert_eq!(first.values[0], [v(0, 16), v(0, 17)]);
        assert_eq!(first.values[1], [v(8, 16), v(8, 17)]);
        assert_eq!(first.values[2], [v(0, 24), v(0, 25)]);
        assert_eq!(n.lane_rows().to_string(), "(8,2,2):(1,8,0)");
        assert_eq!(n.lane_cols().to_string(), "(8,2,2):(0,0,8)");
        let t = MatrixCopy::new(&mma, CopyAtom::Sm90U16x8StsmT, true).unwrap();
        assert_eq!(t.instructions(), n.instructions());
        assert_eq!(t.lane_rows().to_string(), "(8,2,2):(0,8,0)");
        assert_eq!(t.lane_cols().to_string(), "(8,2,2):(1,0,8)");
        let load = MatrixCopy::new(&mma, CopyAtom::Sm75U32x4LdsmN, false).unwrap();
        assert_eq!(load, n);
        // The plain atom on a column-major tile holds other lanes' values.
        assert!(MatrixCopy::new(&mma, CopyAtom::Sm90U32x4StsmN, true).is_err());
    }
}
