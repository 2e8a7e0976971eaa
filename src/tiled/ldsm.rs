//! `ldmatrix` partitions of a tiled MMA's A and B fragments (CuTe's
//! `make_tiled_copy_A/B(Copy_Atom<SM75_U32x4_LDSM_N/SM75_U16x8_LDSM_T>,
//! tiled_mma)` followed by `partition_S`).

use super::partition::ThreadPartition;
use super::tiled_mma::{mode_layout, mode_of, Operand, TiledMma};
use crate::layout::{coalesce, composition, ComposedLayout, Layout};
use crate::{Error, Result};

/// Bytes of one row `ldmatrix` reads.
const ROW_BYTES: i64 = 16;

impl TiledMma {
    /// How many 8x8 matrices (registers per lane) each `ldmatrix` of the
    /// operand's fragment loads: 4 (`.x4`) where a k-step's registers come
    /// in fours, else 2 (`.x2`, e.g. B of a warp tile 8 columns wide) or 1,
    /// so that no instruction spans two k-steps.
    ///
    /// ```
    /// use cutlet::atom::SM80_16x8x16_F32F16F16F32_TN;
    /// use cutlet::tiled::{Operand, TiledMma};
    ///
    /// let mma = TiledMma::new(SM80_16x8x16_F32F16F16F32_TN, [1, 1, 1]).unwrap();
    /// assert_eq!(mma.ldsm_matrices(Operand::B, [16, 32]).unwrap(), 4);
    /// assert_eq!(mma.ldsm_matrices(Operand::B, [8, 32]).unwrap(), 2);
    /// ```
    pub fn ldsm_matrices(&self, op: Operand, tile: [i64; 2]) -> Result<i64> {
        let fragment = self.fragment(op, tile)?.flatten();
        let per_reg = 32 / i64::from(self.atom().types().a.size_bits()).max(1);
        let regs = fragment[0] * fragment[1] / per_reg.max(1);
        Ok([4, 2, 1].into_iter().find(|m| regs % m == 0).unwrap_or(1))
    }

    /// (thread, instruction) -> column-major index, in the operand's tile,
    /// of the first element of the 16-byte row whose address the thread gives
    /// to `ldmatrix` (`.trans` when `trans`) number `instruction`, of
    /// [`ldsm_matrices`](Self::ldsm_matrices) matrices `m` (`.x4` or `.x2`).
    ///
    /// Instruction `i` fills this thread's fragment registers `mi..mi+m-1`
    /// (values `2mi..` of 16 bits, or `mi..` of 32 bits, in the
    /// (FrgV, Rest0, Rest1) order of [`layout_tv`](Self::layout_tv)). A
    /// 32-bit operand (tf32) is loaded as pairs of 16-bit halves, so each
    /// lane receives whole elements; only without `.trans`, as `.trans`
    /// would split them. Without `.trans` a stored row runs
    /// along the fragment's K (A or B stored K-major); with `.trans` along M
    /// or N (stored M- or N-major). The result is checked here, element by
    /// element, against the PTX ISA's description of `ldmatrix`; an operand
    /// whose fragment `ldmatrix` cannot fill is an error.
    ///
    /// ```
    /// use cutlet::atom::SM80_16x8x16_F32F16F16F32_TN;
    /// use cutlet::tiled::{Operand, TiledMma};
    ///
    /// let mma = TiledMma::new(SM80_16x8x16_F32F16F16F32_TN, [1, 1, 1]).unwrap();
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
        let bits = i64::from(types.a.size_bits());
        if op == Operand::C || !(bits == 16 || (bits == 32 && !trans)) || atom.thr_id().size() != 32
        {
            return Err(cannot(
                "operand A or B of a warp-wide atom with 16-bit inputs (32-bit without .trans)"
                    .to_string(),
            ));
        }
        // Values per register, and per instruction.
        let per_reg = 32 / bits;
        let regs_per_ldsm = self.ldsm_matrices(op, tile)?;
        let per_ldsm = regs_per_ldsm * per_reg;
        let tv = self.layout_tv(op, tile)?;
        let threads = self.threads();
        let values = tv.size() / threads;
        if values % per_ldsm != 0 {
            return Err(cannot(format!(
                "a multiple of {per_ldsm} values per thread, not {values}"
            )));
        }
        // Evaluated many times below: coalesced first (same function, fewer modes).
        let tv_eval = coalesce(&tv);
        let at = |t: i64, v: i64| tv_eval.at(t + threads * v);
        // Along a stored row: the register's next half, or (32-bit) the next lane.
        let (row_step, col_step) = match (trans, per_reg) {
            (true, _) => (at(0, 1) - at(0, 0), at(4, 0) - at(0, 0)),
            (false, 2) => (at(4, 0) - at(0, 0), at(0, 1) - at(0, 0)),
            (false, _) => (at(4, 0) - at(0, 0), at(1, 0) - at(0, 0)),
        };
        // Lanes 8j..8j+7 give matrix j's rows; lanes past the instruction's
        // matrices (.x2, .x1) repeat the first ones (their addresses are
        // ignored, but stay valid).
        let matrix = |j: i64| {
            if j < regs_per_ldsm {
                at(0, j * per_reg) - at(0, 0)
            } else {
                0
            }
        };
        let lanes = Layout::from_modes([
            mode_layout(8, row_step),
            mode_layout(2, matrix(1)),
            mode_layout(2, matrix(2)),
        ]);
        let warps = composition(&mode_of(&tv, 0)?, &mode_layout(threads / 32, 32).into())?;
        let instructions = composition(
            &mode_of(&tv, 1)?,
            &mode_layout(values / per_ldsm, per_ldsm).into(),
        )?;
        let ldsm = Layout::from_modes([Layout::from_modes([lanes, warps]), instructions]);
        // Every register half must receive the element the fragment holds.
        let ldsm_eval = coalesce(&ldsm);
        for t in 0..threads {
            let (lane, warp_base) = (t % 32, t - t % 32);
            for i in 0..values / per_ldsm {
                for j in 0..regs_per_ldsm {
                    for h in 0..per_reg {
                        // 16-bit: the ISA's (row, column) of half h; 32-bit:
                        // the pair of halves at columns 2(l%4), +1 is one
                        // element, column l % 4 of the row's 4.
                        let (row, col) = match (trans, per_reg) {
                            (true, _) => (2 * (lane % 4) + h, lane / 4),
                            (false, 2) => (lane / 4, 2 * (lane % 4) + h),
                            (false, _) => (lane / 4, lane % 4),
                        };
                        let supplier = warp_base + 8 * j + row;
                        let got = ldsm_eval.at(supplier + threads * i) + col * col_step;
                        if got != at(t, per_ldsm * i + per_reg * j + h) {
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
    /// the thread gives to instruction `i`. Each row's 16 bytes (8 elements
    /// of 16 bits, 4 of 32) must be contiguous and aligned in `memory`;
    /// checked.
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

/// Each row start's 16 bytes of elements are contiguous and aligned in memory.
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
    let row = ROW_BYTES * 8 / i64::from(mma.atom().types().a.size_bits());
    let col_step = match (trans, row) {
        (true, _) => tv.at(4) - tv.at(0),
        (false, 8) => tv.at(threads) - tv.at(0),
        (false, _) => tv.at(1) - tv.at(0),
    };
    let ldsm = coalesce(ldsm);
    for i in 0..ldsm.size() {
        let start = ldsm.at(i);
        let first = memory.at(start);
        let contiguous = (0..row).all(|c| memory.at(start + c * col_step) == first + c);
        if first % row != 0 || !contiguous {
            return Err(Error::invalid_argument(
                "memory layout for ldmatrix",
                memory,
                format!(
                    "16-byte rows: {row} contiguous elements at an offset that is a multiple of {row} (row at tile index {start} starts at {first})"
                ),
            ));
        }
    }
    Ok(())
}
