//! `ldmatrix` partitions of a tiled MMA's A and B fragments (CuTe's
//! `make_tiled_copy_A/B(Copy_Atom<SM75_U32x4_LDSM_N/SM75_U16x8_LDSM_T>,
//! tiled_mma)` followed by `partition_S`).

use super::partition::ThreadPartition;
use super::tiled_mma::{mode_layout, mode_of, Operand, TiledMma};
use crate::layout::{composition, ComposedLayout, Layout};
use crate::{Error, Result};

/// Values of 16 bits one `ldmatrix.x4` fills per lane: 4 registers x 2.
const VALUES_PER_LDSM: i64 = 8;

impl TiledMma {
    /// (thread, instruction) -> column-major index, in the operand's tile,
    /// of the first element of the 16-byte row whose address the thread gives
    /// to `ldmatrix.x4` (`.trans` when `trans`) number `instruction`.
    ///
    /// Instruction `i` fills this thread's fragment registers `4i..4i+3`
    /// (values `8i..8i+7` in the (FrgV, Rest0, Rest1) order of
    /// [`layout_tv`](Self::layout_tv)). Without `.trans` a stored row runs
    /// along the fragment's K (A or B stored K-major); with `.trans` along M
    /// or N (stored M- or N-major). The result is checked here, element by
    /// element, against the PTX ISA's description of `ldmatrix`; an operand
    /// whose fragment `ldmatrix` cannot fill is an error.
    ///
    /// ```
    /// use cutlet::atom::MmaAtom;
    /// use cutlet::tiled::{Operand, TiledMma};
    ///
    /// let mma = TiledMma::new(MmaAtom::Sm80F32F16F16F32, [1, 1, 1]).unwrap();
    /// let ldsm = mma.ldsm_tv(Operand::A, [16, 16], false).unwrap();
    /// // Lane l gives row l % 8 + 8 * ((l / 8) % 2), column 8 * (l / 16),
    /// // of the 16x16 tile (index row + 16 * column).
    /// for lane in 0..32 {
    ///     let (row, col) = (lane % 8 + 8 * ((lane / 8) % 2), 8 * (lane / 16));
    ///     assert_eq!(ldsm.at(lane), row + 16 * col);
    /// }
    /// ```
    pub fn ldsm_tv(&self, op: Operand, tile: [i64; 2], trans: bool) -> Result<Layout> {
        let atom = self.atom();
        let types = atom.types();
        let cannot = |why: String| {
            Error::invalid_argument(
                format!(
                    "ldmatrix{} of operand {op:?}",
                    if trans { ".trans" } else { "" }
                ),
                format!("{atom} over tile {tile:?}"),
                why,
            )
        };
        if op == Operand::C || types.a.size_bits() != 16 || atom.thr_id().size() != 32 {
            return Err(cannot(
                "operand A or B of a warp-wide atom with 16-bit inputs".to_string(),
            ));
        }
        let tv = self.layout_tv(op, tile)?;
        let threads = self.threads();
        let values = tv.size() / threads;
        if values % VALUES_PER_LDSM != 0 {
            return Err(cannot(format!(
                "a multiple of {VALUES_PER_LDSM} values per thread, not {values}"
            )));
        }
        let at = |t: i64, v: i64| tv.at(t + threads * v);
        let (row_step, col_step) = if trans {
            (at(0, 1) - at(0, 0), at(4, 0) - at(0, 0))
        } else {
            (at(4, 0) - at(0, 0), at(0, 1) - at(0, 0))
        };
        let lanes = Layout::from_modes([
            mode_layout(8, row_step),
            mode_layout(2, at(0, 2) - at(0, 0)),
            mode_layout(2, at(0, 4) - at(0, 0)),
        ]);
        let warps = composition(&mode_of(&tv, 0)?, &mode_layout(threads / 32, 32).into())?;
        let instructions = composition(
            &mode_of(&tv, 1)?,
            &mode_layout(values / VALUES_PER_LDSM, VALUES_PER_LDSM).into(),
        )?;
        let ldsm = Layout::from_modes([Layout::from_modes([lanes, warps]), instructions]);
        // Every register half must receive the element the fragment holds.
        for t in 0..threads {
            let (lane, warp_base) = (t % 32, t - t % 32);
            for i in 0..values / VALUES_PER_LDSM {
                for j in 0..4 {
                    for h in 0..2 {
                        let (row, col) = if trans {
                            (2 * (lane % 4) + h, lane / 4)
                        } else {
                            (lane / 4, 2 * (lane % 4) + h)
                        };
                        let supplier = warp_base + 8 * j + row;
                        let got = ldsm.at(supplier + threads * i) + col * col_step;
                        if got != at(t, VALUES_PER_LDSM * i + 2 * j + h) {
                            return Err(cannot(format!(
                                "fragments ldmatrix can fill (thread {t}, instruction {i}, register {j} differs)"
                            )));
                        }
                    }
                }
            }
        }
        Ok(ldsm)
    }

    /// The row addresses for `ldmatrix` over the operand's tile stored with
    /// `memory`: value `i` of thread `t` is the element offset of the row
    /// the thread gives to instruction `i`. Each row's 8 elements must be
    /// contiguous and 16-byte aligned in `memory`; checked.
    pub fn partition_ldsm(
        &self,
        op: Operand,
        tile: [i64; 2],
        trans: bool,
        memory: &Layout,
    ) -> Result<ThreadPartition> {
        let ldsm = self.ldsm_tv(op, tile, trans)?;
        let p = ThreadPartition::new(&ldsm, memory)?;
        let swizzled = ComposedLayout::new(p.swizzle(), p.base_offset(), memory.clone());
        check_rows(self, op, tile, trans, &ldsm, &swizzled)?;
        Ok(p)
    }

    /// As [`partition_ldsm`](Self::partition_ldsm) for a swizzled tile.
    pub fn partition_ldsm_swizzled(
        &self,
        op: Operand,
        tile: [i64; 2],
        trans: bool,
        memory: &ComposedLayout,
    ) -> Result<ThreadPartition> {
        let ldsm = self.ldsm_tv(op, tile, trans)?;
        check_rows(self, op, tile, trans, &ldsm, memory)?;
        ThreadPartition::new_swizzled(&ldsm, memory)
    }
}

/// Each row start's 8 elements are contiguous and 8-element aligned in memory.
fn check_rows(
    mma: &TiledMma,
    op: Operand,
    tile: [i64; 2],
    trans: bool,
    ldsm: &Layout,
    memory: &ComposedLayout,
) -> Result<()> {
    let tv = mma.layout_tv(op, tile)?;
    let threads = mma.threads();
    let col_step = if trans {
        tv.at(4) - tv.at(0)
    } else {
        tv.at(threads) - tv.at(0)
    };
    for i in 0..ldsm.size() {
        let start = ldsm.at(i);
        let first = memory.at(start);
        let contiguous = (0..8).all(|c| memory.at(start + c * col_step) == first + c);
        if first % 8 != 0 || !contiguous {
            return Err(Error::invalid_argument(
                "memory layout for ldmatrix",
                memory,
                format!(
                    "16-byte rows: 8 contiguous elements at an offset that is a multiple of 8 (row at tile index {start} starts at {first})"
                ),
            ));
        }
    }
    Ok(())
}
