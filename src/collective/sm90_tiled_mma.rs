//! [`Sm90TiledMma`]: the consumer warpgroups' tiled MMA of an SM90 kernel
//! (a wgmma atom over the warpgroups along M) and its C partition, which
//! gives every accumulator's (row, column). The mainloop allocates the
//! accumulators with its fragment layout; both SM90 epilogues read them
//! through its partition.

use crate::atom::MmaAtom;
use crate::layout::{IntTuple, Layout};
use crate::ptx::{Kernel, Reg};
use crate::tiled::{emit_layout_offset, Operand, ThreadPartition, TiledMma};
use crate::{Error, Result};

/// Rows of one wgmma atom.
const ATOM_ROWS: u32 = 64;

/// A wgmma atom (`SM90_64xNxK_*`) over `warpgroups` consumer warpgroups
/// along M, each multiplying `wg_rows` rows (a multiple of 64: the atom
/// repeated `wg_rows / 64` times): CuTe's `make_tiled_mma(atom,
/// Layout<Shape<W,_1,_1>>{}, Tile<P,_,_>)`. The tile it covers is
/// `(warpgroups * wg_rows) x N`: the CTA tile of a cooperative kernel (two
/// warpgroups), one warpgroup's tile in ping-pong (one).
///
/// CuTe deals the 64-row atoms to the warpgroups in turn; cutlet's
/// cooperative kernel gives each warpgroup a contiguous band of `wg_rows`
/// rows (its TMA boxes and shared buffers are per band), so the tiled MMA
/// carries the M permutation `(64,W,wg_rows/64):(1,wg_rows,64)`.
///
/// The C partition is split in two: [`rows`](Self::rows) and
/// [`cols`](Self::cols) are the partitions of the tile stored with
/// `(M,N):(1,0)` and `(M,N):(0,1)`, so that a thread's value `v` lies at
/// row `rows().thr()(t) + rows().val()[v]` and column `cols().thr()(t) +
/// cols().val()[v]`, `t` the thread's index among the consumers.
///
/// ```
/// use cutlet::atom::{gmma_atom, MmaSource};
/// use cutlet::collective::Sm90TiledMma;
/// use cutlet::numeric::ElementType::{BF16, F32};
///
/// let atom = gmma_atom(BF16, BF16, F32, 128, MmaSource::SharedShared).unwrap();
/// // The cooperative 256x128 tile: two warpgroups of 128 rows.
/// let mma = Sm90TiledMma::new(atom, 2, 128).unwrap();
/// assert_eq!(mma.tile(), [256, 128]);
/// assert_eq!(mma.fragment_layout().to_string(), "(64,2,1):(1,64,0)");
/// // Thread 0 holds rows 0, 8, 64 and 72 of its band; thread 128 the same
/// // 128 rows lower. Value 1 is column 1, value 2 row 8, value 64 row 64.
/// assert_eq!(mma.row_offsets(), vec![0, 8, 64, 72]);
/// assert_eq!((mma.rows().thr().at(128), mma.rows().thr().at(37)), (128, 17));
/// assert_eq!(mma.value_at(64, 1), Some(65));
/// assert_eq!(mma.value_at(8, 0), Some(2));
/// // Row 1 belongs to another thread: no value here, and an error naming it.
/// assert_eq!(mma.value_at(1, 0), None);
/// assert!(mma.held_value(1, 0).unwrap_err().to_string().contains("row 1, column 0"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sm90TiledMma {
    mma: TiledMma,
    wg_rows: u32,
    tile: [i64; 2],
    rows: ThreadPartition,
    cols: ThreadPartition,
}

impl Sm90TiledMma {
    /// `atom` (a wgmma atom) over `warpgroups` warpgroups of `wg_rows` rows
    /// each. Errors name a count that is not 1 or 2 warpgroups, rows that
    /// are not a positive multiple of 64, or an atom that is not a 64-row
    /// warpgroup atom.
    pub fn new(atom: MmaAtom, warpgroups: u32, wg_rows: u32) -> Result<Sm90TiledMma> {
        let [am, n, _] = atom.shape_mnk();
        if am != i64::from(ATOM_ROWS) || atom.thr_id().size() != 128 {
            return Err(Error::invalid_argument(
                "sm90 tiled mma atom",
                atom,
                "a wgmma atom (64 rows, 128 threads)",
            ));
        }
        if !(1..=2).contains(&warpgroups) {
            return Err(Error::invalid_argument(
                "consumer warpgroups",
                warpgroups,
                "1 (ping-pong) or 2 (cooperative)",
            ));
        }
        if wg_rows == 0 || !wg_rows.is_multiple_of(ATOM_ROWS) {
            return Err(Error::invalid_argument(
                "rows per warpgroup",
                wg_rows,
                "a positive multiple of 64",
            ));
        }
        let w = i64::from(warpgroups);
        let band = i64::from(wg_rows);
        let mut mma = TiledMma::new(atom, [w, 1, 1])?;
        if warpgroups > 1 {
            let permutation = Layout::from_parts(
                IntTuple::ints(&[64, w, band / 64]),
                IntTuple::ints(&[1, band, 64]),
            );
            mma = mma.with_permutation([Some(permutation), None, None])?;
        }
        let tile = [w * band, n];
        let along = |row: i64, col: i64| {
            Layout::from_parts(IntTuple::ints(&tile), IntTuple::ints(&[row, col]))
        };
        let rows = mma.partition(Operand::C, tile, &along(1, 0))?;
        let cols = mma.partition(Operand::C, tile, &along(0, 1))?;
        Ok(Sm90TiledMma {
            mma,
            wg_rows,
            tile,
            rows,
            cols,
        })
    }

    /// The tiled MMA.
    pub fn tiled_mma(&self) -> &TiledMma {
        &self.mma
    }

    /// The tile `[M, N]` the consumers cover together.
    pub fn tile(&self) -> [i64; 2] {
        self.tile
    }

    /// Rows of each warpgroup's band.
    pub fn wg_rows(&self) -> u32 {
        self.wg_rows
    }

    /// Consumer threads: 128 per warpgroup.
    pub fn threads(&self) -> i64 {
        self.mma.threads()
    }

    /// The accumulators' layout: a compact column-major layout of the
    /// fragment shape `(FrgV, RestM, RestN)` (CuTe's
    /// `partition_fragment_C`), from the fragment's coordinate to a value
    /// slot of the register tensor.
    pub fn fragment_layout(&self) -> Layout {
        let shape = self
            .mma
            .fragment(Operand::C, self.tile)
            .unwrap_or_else(|_| IntTuple::ints(&[0]));
        Layout::col_major(shape)
    }

    /// Values each thread holds.
    pub fn values(&self) -> i64 {
        self.rows.values()
    }

    /// The rows of the C partition: thread -> its first row, value -> row offset.
    pub fn rows(&self) -> &ThreadPartition {
        &self.rows
    }

    /// The columns of the C partition: thread -> its first column, value ->
    /// column offset.
    pub fn cols(&self) -> &ThreadPartition {
        &self.cols
    }

    /// Row offset of value `v` from the thread's first row.
    pub fn row_of(&self, v: i64) -> u32 {
        self.rows.val()[v as usize] as u32
    }

    /// Column offset of value `v` from the thread's first column.
    pub fn col_of(&self, v: i64) -> u32 {
        self.cols.val()[v as usize] as u32
    }

    /// The distinct row offsets of a thread's values, ascending.
    pub fn row_offsets(&self) -> Vec<u32> {
        distinct(self.rows.val())
    }

    /// The distinct column offsets of a thread's values, ascending.
    pub fn col_offsets(&self) -> Vec<u32> {
        distinct(self.cols.val())
    }

    /// The value at row offset `row` and column offset `col` from the
    /// thread's first element, if the thread holds one there.
    pub fn value_at(&self, row: u32, col: u32) -> Option<i64> {
        (0..self.values()).find(|&v| self.row_of(v) == row && self.col_of(v) == col)
    }

    /// [`value_at`](Self::value_at) for a place the thread must hold: an
    /// [`Error::InvalidArgument`] naming the row and column where it holds
    /// none (an epilogue walking places its tile does not have).
    pub fn held_value(&self, row: u32, col: u32) -> Result<i64> {
        self.value_at(row, col).ok_or_else(|| {
            Error::invalid_argument(
                "accumulator place",
                format!("row {row}, column {col}"),
                "a place the thread holds",
            )
        })
    }

    /// Emits the first row and column of consumer thread `index` (`.b32`,
    /// its index among the consumer threads, 0 to
    /// [`threads`](Self::threads) - 1): the C partition's thread layouts.
    pub fn emit_origin(&self, k: &mut Kernel, index: Reg) -> Result<(Reg, Reg)> {
        let row = emit_layout_offset(k, self.rows.thr(), index)?;
        let col = emit_layout_offset(k, self.cols.thr(), index)?;
        Ok((row, col))
    }

    /// Checks that `acc` is laid out as this tiled MMA's fragment: the
    /// mainloop that wrote it and the epilogue that reads it agree.
    pub fn check_accumulators(&self, acc: &crate::tiled::RegisterTensor) -> Result<()> {
        let expected = self.fragment_layout();
        if acc.layout() != &expected {
            return Err(Error::invalid_argument(
                "accumulator layout",
                acc.layout(),
                format!("the tiled MMA's fragment {expected}"),
            ));
        }
        Ok(())
    }
}

/// The distinct values of `offsets`, ascending.
fn distinct(offsets: &[i64]) -> Vec<u32> {
    let mut out: Vec<u32> = offsets.iter().map(|&o| o as u32).collect();
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::Sm90TiledMma;
    use crate::atom::{gmma_atom, MmaSource};
    use crate::numeric::ElementType::{BF16, F16, F32};

    /// The partition gives every accumulator the place the wgmma D
    /// fragment (PTX ISA, "wgmma .m64nNk16 register fragment D") puts it
    /// at: value `i` of thread `T = 128c + 32w + 4g + q` of block `mb` at
    /// row `c * wg_rows + 64mb + 16w + g + 8((i >> 1) & 1)`, column
    /// `8(i >> 2) + 2q + (i & 1)`.
    #[test]
    fn every_accumulator_lies_where_the_ptx_isa_puts_it() {
        for (warpgroups, wg_rows, n) in [
            (2u32, 128u32, 128i64),
            (1, 128, 256),
            (2, 64, 64),
            (1, 64, 8),
        ] {
            for acc in [F32, F16] {
                let atom = gmma_atom(F16, F16, acc, n as u32, MmaSource::SharedShared).unwrap();
                let mma = Sm90TiledMma::new(atom, warpgroups, wg_rows).unwrap();
                let per_block = n / 2;
                for t in 0..mma.threads() {
                    let (c, w, g, q) = (t / 128, (t / 32) % 4, (t % 32) / 4, t % 4);
                    for v in 0..mma.values() {
                        let (mb, i) = (v / per_block, v % per_block);
                        let row =
                            i64::from(wg_rows) * c + 64 * mb + 16 * w + g + 8 * ((i >> 1) & 1);
                        let col = 8 * (i >> 2) + 2 * q + (i & 1);
                        assert_eq!(mma.rows().thr().at(t) + i64::from(mma.row_of(v)), row);
                        assert_eq!(mma.cols().thr().at(t) + i64::from(mma.col_of(v)), col);
                    }
                }
            }
        }
    }

    #[test]
    fn bad_shapes_are_refused_by_name() {
        let atom = gmma_atom(BF16, BF16, F32, 64, MmaSource::SharedShared).unwrap();
        assert!(Sm90TiledMma::new(atom, 3, 64)
            .unwrap_err()
            .to_string()
            .contains("warpgroups"));
        assert!(Sm90TiledMma::new(atom, 1, 96)
            .unwrap_err()
            .to_string()
            .contains("96"));
    }
}
