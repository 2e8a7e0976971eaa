//! The `Columns` kernel's shared-memory tile: where each thread's column
//! values sit in the CTA's (8 row groups, tile columns) f32 array, how they
//! get there (shifted back in place for the aligned-vector loads of
//! unaligned rows) and how group 0 combines and stores them.

use super::emit::{smem_slot, store_result, tree};
use super::{ReduceOp, ReduceSpec};
use crate::ptx::{Kernel, Reg, RegClass, SharedVar};
use crate::Result;

/// Row groups (threads along the rows) per CTA.
pub(super) const GROUPS: u32 = super::BLOCK_THREADS / 32;

/// Offset from the thread's first column of its column `c` (strip `c / v`,
/// column `c % v` of the strip).
pub(super) fn column_offset(c: usize, v: usize, strip_cols: u32) -> u32 {
    (c / v) as u32 * strip_cols + (c % v) as u32
}

/// Where a thread's columns sit in the CTA's shared (GROUPS, row) array: a
/// row holds the tile's columns after `pad` slots, and `pad` more after
/// them (a shifted thread writes up to `pad - 1` slots either side).
pub(super) struct Tile {
    pub strip32: Reg,
    pub group32: Reg,
    pub vector: u32,
    pub strip_cols: u32,
    pub width: usize,
    pub pad: u32,
}

impl Tile {
    /// Columns of the tile.
    pub fn cols(&self) -> u32 {
        self.strip_cols * (self.width as u32 / self.vector)
    }

    /// Slots of one group's row.
    pub fn row(&self) -> u32 {
        self.cols() + 2 * self.pad
    }

    /// Bytes of the whole array.
    pub fn bytes(&self) -> u32 {
        GROUPS * self.row() * 4
    }

    /// `smem + ((group or g) * row + strip * vector + pad + offset - shift) * 4`.
    fn slot(
        &self,
        k: &mut Kernel,
        smem: &SharedVar,
        group: Option<u32>,
        offset: u32,
        shift: Option<Reg>,
    ) -> Reg {
        let column = k.reg(RegClass::B32);
        let (strip, vector) = (self.strip32, self.vector);
        let offset = offset + self.pad + group.map_or(0, |g| g * self.row());
        k.push(format!("mad.lo.u32 {column}, {strip}, {vector}, {offset};"));
        if group.is_none() {
            k.push(format!(
                "mad.lo.u32 {column}, {}, {}, {column};",
                self.group32,
                self.row()
            ));
        }
        if let Some(shift) = shift {
            k.push(format!("sub.u32 {column}, {column}, {shift};"));
        }
        smem_slot(k, smem, column)
    }

    /// Every thread stores its per-column `values` (column `c` at
    /// [`column_offset`], minus `shift`); then the CTA waits.
    pub fn store_all(&self, k: &mut Kernel, smem: &SharedVar, values: &[Reg], shift: Option<Reg>) {
        for (c, &value) in values.iter().enumerate() {
            let offset = column_offset(c, self.vector as usize, self.strip_cols);
            let slot = self.slot(k, smem, None, offset, shift);
            k.push(format!("st.shared.f32 [{slot}], {value};"));
        }
        k.push("bar.sync 0;");
    }

    /// (Group 0) the 8 group values of the thread's column `c` from shared
    /// memory, combined as a balanced tree.
    pub fn combine_groups(
        &self,
        k: &mut Kernel,
        op: ReduceOp,
        smem: &SharedVar,
        c: usize,
    ) -> Result<Reg> {
        let parts = k.regs(RegClass::F32, GROUPS as usize);
        let offset = column_offset(c, self.vector as usize, self.strip_cols);
        for (g, &part) in parts.iter().enumerate() {
            let slot = self.slot(k, smem, Some(g as u32), offset, None);
            k.push(format!("ld.shared.f32 {part}, [{slot}];"));
        }
        tree(k, op, &parts)
    }
}

/// The final result of the thread's column `c`:
/// `output[(col0 + offset(c)) * out_stride] = total` if that column is
/// below `cols`.
pub(super) fn store_total(
    k: &mut Kernel,
    spec: &ReduceSpec,
    tile: &Tile,
    c: usize,
    total: Reg,
    [col0, cols, out_stride, output, count]: [Reg; 5],
) -> Result<()> {
    let out_shift = super::emit::size_shift(spec.written_type());
    let [out, col] = [0; 2].map(|_| k.reg(RegClass::B64));
    let store = k.reg(RegClass::Pred);
    let offset = column_offset(c, tile.vector as usize, tile.strip_cols);
    k.push(format!("add.u64 {col}, {col0}, {offset};"));
    k.push(format!("setp.lt.u64 {store}, {col}, {cols};"));
    k.push(format!("mul.lo.u64 {out}, {col}, {out_stride};"));
    k.push(format!("shl.b64 {out}, {out}, {out_shift};"));
    k.push(format!("add.u64 {out}, {out}, {output};"));
    store_result(k, spec, total, count, out, Some(store))
}
