//! What the parts of an elementwise kernel share ([`Ctx`]) and one tile's
//! registers ([`TileSet`]): fresh sets, the tile's origin, group addresses,
//! loads and coordinates.

use super::access::{Loaded, TensorRegs};
use super::tiling::TvPlan;
use crate::fusion::Value;
use crate::ptx::{Kernel, Reg, RegClass};

/// What every part of the kernel shares.
pub(super) struct Ctx<'a> {
    pub(super) plan: &'a TvPlan,
    pub(super) tensors: &'a [TensorRegs],
    pub(super) scalars: &'a [Value],
    pub(super) thread_index: Reg,
    /// Values per vector group.
    pub(super) group: i64,
    /// `n`, `len`, `tiles_n` and `tiles` (the tile count).
    pub(super) n: Reg,
    pub(super) len: Reg,
    pub(super) tiles_n: Reg,
    pub(super) tiles: Reg,
    pub(super) load_hints: String,
    pub(super) store_hints: &'static str,
    /// Per value, `(dm, dn)` from value 0 when the same for every thread
    /// (then each tensor's group addresses are one base plus offsets).
    pub(super) deltas: Option<Vec<(i64, i64)>>,
    /// This thread's value 0 in the tile, `(m, n)` (u32).
    pub(super) thread_m0: Reg,
    pub(super) thread_n0: Reg,
    /// `Some(tile_n)` when the spec is flat.
    pub(super) flat: Option<i64>,
}

/// One tile's registers: its origin, whether it is full, and the inputs'
/// loaded groups (`(group, input)`).
pub(super) struct TileSet {
    pub(super) row0: Reg,
    pub(super) col0: Reg,
    pub(super) full: Reg,
    pub(super) loaded: Vec<Vec<Loaded>>,
    /// Per tensor (output first), the address of this thread's value 0
    /// (with [`Ctx::deltas`] only).
    pub(super) bases: Vec<Reg>,
}

impl Ctx<'_> {
    /// Fresh registers for one tile.
    pub(super) fn tile_set(&self, k: &mut Kernel) -> TileSet {
        let groups = self.plan.values / self.group;
        let count = u32::try_from(self.group).unwrap_or(1);
        let loaded = (0..groups)
            .map(|_| {
                self.tensors[1..]
                    .iter()
                    .map(|t| t.alloc_group(k, count))
                    .collect()
            })
            .collect();
        let bases = match self.deltas {
            Some(_) => k.regs(RegClass::B64, self.tensors.len()),
            None => Vec::new(),
        };
        TileSet {
            row0: k.reg(RegClass::B64),
            col0: k.reg(RegClass::B64),
            full: k.reg(RegClass::Pred),
            loaded,
            bases,
        }
    }

    /// Block remap of tile `tile` (the zipped_divide rest mode): its origin
    /// `(tile / tiles_n * TM, tile % tiles_n * TN)` and whether its last
    /// element `(row0 + TM - 1, col0 + TN - 1)` exists (and, when
    /// `check_range`, whether `tile < tiles`).
    pub(super) fn origin(&self, k: &mut Kernel, tile: Reg, set: &TileSet, check_range: bool) {
        let (tm, tn) = (self.plan.tile_m, self.plan.tile_n);
        let (bm, bn) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        k.push(format!("div.u32 {bm}, {tile}, {};", self.tiles_n));
        k.push(format!("mul.lo.u32 {bn}, {bm}, {};", self.tiles_n));
        k.push(format!("sub.u32 {bn}, {tile}, {bn};"));
        k.push(format!("mul.wide.u32 {}, {bm}, {tm};", set.row0));
        k.push(format!("mul.wide.u32 {}, {bn}, {tn};", set.col0));
        let (last, end_col) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
        let full = set.full;
        k.push(format!("add.u64 {end_col}, {}, {tn};", set.col0));
        k.push(format!("add.u64 {last}, {}, {};", set.row0, tm - 1));
        k.push(format!("mad.lo.u64 {last}, {last}, {}, {end_col};", self.n));
        k.push(format!("setp.le.u64 {full}, {end_col}, {};", self.n));
        k.push(format!(
            "setp.le.and.u64 {full}, {last}, {}, {full};",
            self.len
        ));
        if check_range {
            k.push(format!(
                "setp.lt.and.u32 {full}, {tile}, {}, {full};",
                self.tiles
            ));
        }
        if set.bases.is_empty() {
            return;
        }
        let (row, col) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
        k.push(format!("cvt.u64.u32 {row}, {};", self.thread_m0));
        k.push(format!("add.u64 {row}, {row}, {};", set.row0));
        k.push(format!("cvt.u64.u32 {col}, {};", self.thread_n0));
        k.push(format!("add.u64 {col}, {col}, {};", set.col0));
        for (t, base) in self.tensors.iter().zip(&set.bases) {
            let addr = t.address(k, row, col);
            k.push(format!("mov.b64 {base}, {addr};"));
        }
    }

    /// Address (register and immediate) of group `g` of tensor `t` in `set`'s tile.
    pub(super) fn group_address(
        &self,
        k: &mut Kernel,
        set: &TileSet,
        t: usize,
        g: usize,
    ) -> (Reg, i64) {
        let v = g as i64 * self.group;
        let tensor = &self.tensors[t];
        match &self.deltas {
            Some(deltas) => tensor.offset_address(k, set.bases[t], deltas[v as usize], self.flat),
            None => {
                let (row, col) = self.coordinates(k, set, v);
                (tensor.address(k, row, col), 0)
            }
        }
    }

    /// A full tile's first half: every input's groups loaded, unpredicated.
    pub(super) fn load(&self, k: &mut Kernel, set: &TileSet) {
        for (g, per_input) in set.loaded.iter().enumerate() {
            for (i, dst) in per_input.iter().enumerate() {
                let addr = self.group_address(k, set, i + 1, g);
                self.tensors[i + 1].load_group(k, addr, dst, &self.load_hints);
            }
        }
    }

    /// `(row, col)` (u64) of value `v` of this thread in `set`'s tile: the
    /// TV layout's tile index split column-major into `(m, n)`, plus the
    /// tile's origin.
    pub(super) fn coordinates(&self, k: &mut Kernel, set: &TileSet, v: i64) -> (Reg, Reg) {
        let offset = self.plan.value_offsets[usize::try_from(v).unwrap_or(0)];
        let idx = k.reg(RegClass::B32);
        let (m, nn) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        k.push(format!("add.s32 {idx}, {}, {offset};", self.thread_index));
        k.push(format!("rem.u32 {m}, {idx}, {};", self.plan.tile_m));
        k.push(format!("div.u32 {nn}, {idx}, {};", self.plan.tile_m));
        let (row, col) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
        k.push(format!("cvt.u64.u32 {row}, {m};"));
        k.push(format!("add.u64 {row}, {row}, {};", set.row0));
        k.push(format!("cvt.u64.u32 {col}, {nn};"));
        k.push(format!("add.u64 {col}, {col}, {};", set.col0));
        (row, col)
    }
}
