//! The columns of a row-major D after its last whole 16-byte chunk, which
//! the TMA store does not cover: written from registers.

use super::{EpilogueSm90TmaStore, Sm90TmaEpilogueInputs, TailColumns, SUBTILE_N};
use crate::ptx::{Kernel, PtxError, Reg, RegClass};

impl EpilogueSm90TmaStore {
    /// The registers of the tail columns (row-major D): D's tensor map
    /// ends at the last whole 16-byte chunk of each row (`n_chunks`
    /// columns of the tile, a multiple of the chunk), and the warpgroup
    /// writes the `n_tail` columns after it from the staged subtile, thread
    /// `t` its row `t`, where that row is in the problem (`row_ok`).
    pub(super) fn emit_tail_setup(
        &self,
        k: &mut Kernel,
        io: &Sm90TmaEpilogueInputs,
        t: Reg,
        wg_row0: Reg,
    ) -> TailColumns {
        let chunk = 16 / self.spec.types.d.size_bytes();
        let (n_chunks, n_tail, row) = (
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
        );
        k.push(format!(
            "and.b32 {n_chunks}, {}, {};",
            io.base.n_rem,
            !(chunk - 1) as i32
        ));
        k.push(format!("sub.s32 {n_tail}, {}, {n_chunks};", io.base.n_rem));
        k.push(format!("add.u32 {row}, {wg_row0}, {t};"));
        let row_ok = k.reg(RegClass::Pred);
        let p = k.reg(RegClass::Pred);
        k.push(format!("setp.lt.s32 {row_ok}, {row}, {};", io.base.m_rem));
        k.push(format!("setp.lt.u32 {p}, {t}, {};", self.wg_rows));
        k.push(format!("and.pred {row_ok}, {row_ok}, {p};"));
        // D's address of the thread's row at the tile's first tail column.
        let (ptr, wide) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
        k.push(format!("cvt.u64.u32 {wide}, {row};"));
        k.push(format!(
            "mad.lo.u64 {ptr}, {wide}, {}, {};",
            io.base.ldd_bytes, io.base.d_tile
        ));
        k.push(format!(
            "mad.wide.u32 {ptr}, {n_chunks}, {}, {ptr};",
            self.spec.types.d.size_bytes()
        ));
        TailColumns {
            n_chunks,
            n_tail,
            row_ok,
            ptr,
        }
    }

    /// Writes the tail columns to D with plain stores, from the last
    /// subtile the tile stored (the one that holds them: no multiple of 32
    /// lies between the last whole chunk and N), still in its buffer of
    /// `buffers`. Nothing where N is a whole number of chunks.
    pub(super) fn emit_tail_columns(
        &self,
        k: &mut Kernel,
        io: &Sm90TmaEpilogueInputs,
        tail: &TailColumns,
        t: Reg,
        buffers: Reg,
    ) -> Result<(), PtxError> {
        let d = self.spec.types.d;
        let (_, span) = self.box_dims();
        let r32 = |k: &mut Kernel| k.reg(RegClass::B32);
        let (last, first, buffer) = (r32(k), r32(k), r32(k));
        let (skip, q) = (k.reg(RegClass::Pred), k.reg(RegClass::Pred));
        // The last subtile stored: (min(N - n0, BN) - 1) / 32, its buffer
        // (last % 2) and the tail's first column in it.
        k.push(format!(
            "min.s32 {last}, {}, {};",
            io.base.n_rem, self.spec.tile[1]
        ));
        k.push(format!("sub.s32 {last}, {last}, 1;"));
        k.push(format!("shr.s32 {last}, {last}, 5;"));
        k.push(format!("and.b32 {buffer}, {last}, 1;"));
        k.push(format!(
            "mul.lo.u32 {buffer}, {buffer}, {};",
            self.buffer_bytes()
        ));
        k.push(format!("add.u32 {buffer}, {buffer}, {buffers};"));
        k.push(format!("shl.b32 {first}, {last}, 5;"));
        k.push(format!("sub.s32 {first}, {}, {first};", tail.n_chunks));
        // Skip without a tail, outside the problem, or (never) outside the subtile.
        k.push(format!("setp.ge.u32 {skip}, {first}, {SUBTILE_N};"));
        k.push(format!("setp.eq.s32 {q}, {}, 0;", tail.n_tail));
        k.push(format!("or.pred {skip}, {skip}, {q};"));
        k.push(format!("not.pred {q}, {};", tail.row_ok));
        k.push(format!("or.pred {skip}, {skip}, {q};"));
        // A cluster's CTA past N (its tile holds no column of the problem).
        k.push(format!("setp.le.s32 {q}, {}, 0;", io.base.n_rem));
        k.push(format!("or.pred {skip}, {skip}, {q};"));
        let done = k.new_label("epi_tail_done")?;
        let top = k.new_label("epi_tail_column")?;
        k.push(format!("@{skip} bra {};", done.name()));
        let (c, linear) = (r32(k), r32(k));
        let ptr = k.reg(RegClass::B64);
        k.push(format!("mov.u32 {c}, 0;"));
        k.place_label(&top);
        k.push(format!("add.u32 {linear}, {first}, {c};"));
        k.push(format!(
            "mul.lo.u32 {linear}, {linear}, {};",
            d.size_bytes()
        ));
        k.push(format!("mad.lo.u32 {linear}, {t}, {span}, {linear};"));
        let addr = self.buffer_address(k, buffer, linear);
        k.push(format!(
            "mad.wide.u32 {ptr}, {c}, {}, {};",
            d.size_bytes(),
            tail.ptr
        ));
        let (ty, class) = match d.size_bytes() {
            4 => ("b32", RegClass::B32),
            _ => ("b16", RegClass::B16),
        };
        let value = k.reg(class);
        k.push(format!("ld.shared.{ty} {value}, [{addr}];"));
        k.push(format!("st.global.{ty} [{ptr}], {value};"));
        k.push(format!("add.u32 {c}, {c}, 1;"));
        k.push(format!("setp.lt.s32 {q}, {c}, {};", tail.n_tail));
        k.push(format!("@{q} bra {};", top.name()));
        k.place_label(&done);
        Ok(())
    }
}
