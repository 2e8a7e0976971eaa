//! The TMA-store epilogue's loads of C: its barriers, the TMA loads of a
//! subtile of C (prefetched during the mainloop where C has buffers of its
//! own), and the reads of C's values from shared memory (`ldmatrix`) or
//! from global memory in pairs.

use super::super::emit_beta_nonzero;
use super::stmatrix::Staging;
use super::{
    atom_error, CLoad, EpilogueSm90TmaStore, Sm90TmaEpilogueInputs, WarpgroupOrigin, SUBTILE_N,
};
use crate::atom::{emit_tma_load, Coord};
use crate::collective::SourceRead;
use crate::gemm::OutputMajor;
use crate::numeric::ElementType;
use crate::ptx::{Kernel, PtxError, Reg, RegClass};

impl EpilogueSm90TmaStore {
    /// The shared address of warpgroup `wg`'s C barrier of buffer `b`.
    pub(super) fn c_barrier(&self, k: &mut Kernel, smem: Reg, wg: Reg, b: u32) -> Reg {
        let bar = k.reg(RegClass::B32);
        k.push(format!("mad.lo.u32 {bar}, {wg}, 16, {smem};"));
        k.push(format!(
            "add.u32 {bar}, {bar}, {};",
            self.c_barrier_offset() + 8 * b
        ));
        bar
    }

    /// Emits, by thread 0 of the block, the initialization of C's four
    /// barriers (one arrival a phase: the issuing thread's, with the
    /// bytes) where C is loaded with TMA.
    pub(crate) fn emit_c_barrier_init(
        &self,
        k: &mut Kernel,
        tid: Reg,
        smem: Reg,
    ) -> Result<(), PtxError> {
        if !self.loads_c() {
            return Ok(());
        }
        let p = k.reg(RegClass::Pred);
        k.push(format!("setp.ne.u32 {p}, {tid}, 0;"));
        let skip = k.new_label("epi_c_init")?;
        k.push(format!("@{p} bra {};", skip.name()));
        for i in 0..4 {
            let bar = k.reg(RegClass::B32);
            k.push(format!(
                "add.u32 {bar}, {smem}, {};",
                self.c_barrier_offset() + 8 * i
            ));
            k.snippet(
                "sm90/mbarrier",
                "mbarrier_init",
                &[("bar", &bar), ("count", &1)],
            )?;
        }
        k.snippet("sm90/mbarrier", "fence_mbarrier_init", &[])?;
        k.place_label(&skip);
        Ok(())
    }

    /// Emits, for the issuing thread, the TMA load of subtile `chunk` of
    /// C into the warpgroup's C buffer `chunk % 2`, completing on its
    /// barrier with the buffer's bytes (TMA fills what lies past M and N
    /// with zeros and counts it).
    pub(super) fn emit_c_load(
        &self,
        k: &mut Kernel,
        io: &Sm90TmaEpilogueInputs,
        c: &CLoad,
        origin: &WarpgroupOrigin,
        chunk: u32,
    ) -> Result<(), PtxError> {
        let b = chunk % 2;
        let bar = self.c_barrier(k, io.smem, origin.wg, b);
        let dst = k.reg(RegClass::B32);
        k.push(format!(
            "mad.lo.u32 {dst}, {}, {}, {};",
            origin.wg,
            2 * self.buffer_bytes(),
            io.smem
        ));
        k.push(format!(
            "add.u32 {dst}, {dst}, {};",
            self.c_offset() + b * self.buffer_bytes()
        ));
        k.snippet(
            "sm90/mbarrier",
            "mbarrier_arrive_expect_tx",
            &[("bar", &bar), ("bytes", &self.buffer_bytes())],
        )?;
        self.emit_subtile_boxes(k, io, origin.row0, chunk, dst, |k, at, coords| {
            emit_tma_load(k, at, c.map, coords, bar).map_err(atom_error)
        })
    }

    /// Emits the TMA boxes of the warpgroup's subtile `chunk` (columns
    /// `chunk x 32 ..` of its rows from `row0`), whose buffer starts at
    /// `buffer` (`.b32` shared address): one `issue(k, box's shared
    /// address, box's coordinates)` per box. A row-major D's subtile is one
    /// box; a column-major D's is one box per 128-byte segment of rows.
    /// C's loads and D's stores walk the same boxes.
    pub(super) fn emit_subtile_boxes(
        &self,
        k: &mut Kernel,
        io: &Sm90TmaEpilogueInputs,
        row0: Reg,
        chunk: u32,
        buffer: Reg,
        mut issue: impl FnMut(&mut Kernel, Reg, &[Coord; 3]) -> Result<(), PtxError>,
    ) -> Result<(), PtxError> {
        let r32 = |k: &mut Kernel| k.reg(RegClass::B32);
        let (inner0, outer0) = (r32(k), r32(k));
        match self.spec.majors.d {
            OutputMajor::N => {
                k.push(format!(
                    "add.u32 {inner0}, {}, {};",
                    io.n0,
                    chunk * SUBTILE_N
                ));
                k.push(format!("add.u32 {outer0}, {}, {row0};", io.m0));
                issue(k, buffer, &[inner0.into(), outer0.into(), io.batch.into()])?;
            }
            OutputMajor::M => {
                let (box_dims, _) = self.box_dims();
                k.push(format!(
                    "add.u32 {outer0}, {}, {};",
                    io.n0,
                    chunk * SUBTILE_N
                ));
                for b in 0..self.wg_rows / box_dims[0] {
                    let (inner, part) = (r32(k), r32(k));
                    k.push(format!("add.u32 {inner}, {}, {row0};", io.m0));
                    k.push(format!("add.u32 {inner}, {inner}, {};", b * box_dims[0]));
                    k.push(format!(
                        "add.u32 {part}, {buffer}, {};",
                        b * SUBTILE_N * 128
                    ));
                    issue(k, part, &[inner.into(), outer0.into(), io.batch.into()])?;
                }
            }
        }
        Ok(())
    }

    /// Emits, where C has buffers of its own and beta is not 0, the
    /// issuing thread's requests of the tile's first two subtiles of C
    /// (before the mainloop: their buffers were read by the previous tile's
    /// last subtiles, before the barriers of their stores).
    pub(crate) fn emit_c_prefetch(
        &self,
        k: &mut Kernel,
        io: &Sm90TmaEpilogueInputs,
    ) -> Result<(), PtxError> {
        let Some(c) = &io.c_load else {
            return Ok(());
        };
        if !self.own_c_buffers() {
            return Ok(());
        }
        if self.source == SourceRead::Never {
            return Ok(());
        }
        let origin = self.emit_origin(k, io.base.tid);
        let p = match self.source {
            SourceRead::Tested => {
                let p = emit_beta_nonzero(k, io.base.beta);
                k.push(format!("and.pred {p}, {p}, {};", origin.issuer));
                p
            }
            _ => origin.issuer,
        };
        let skip = k.new_label("epi_c_prefetch")?;
        k.push(format!("@!{p} bra {};", skip.name()));
        for chunk in 0..(self.spec.tile[1] / SUBTILE_N).min(2) {
            self.emit_c_load(k, io, c, &origin, chunk)?;
        }
        k.place_label(&skip);
        Ok(())
    }

    /// Element `e` (0: the low half) of a word of two C elements, as f32.
    pub(super) fn c_element(&self, k: &mut Kernel, word: Reg, e: u32) -> Reg {
        let out = k.reg(RegClass::F32);
        if self.spec.types.c == ElementType::BF16 {
            let bits = k.reg(RegClass::B32);
            if e == 0 {
                k.push(format!("shl.b32 {bits}, {word}, 16;"));
            } else {
                k.push(format!("and.b32 {bits}, {word}, -65536;"));
            }
            k.push(format!("mov.b32 {out}, {bits};"));
        } else {
            let (lo, hi) = (k.reg(RegClass::B16), k.reg(RegClass::B16));
            k.push(format!("mov.b32 {{{lo}, {hi}}}, {word};"));
            let h = if e == 0 { lo } else { hi };
            k.push(format!("cvt.f32.f16 {out}, {h};"));
        }
        out
    }

    /// Reads one thread's f32 pair of C at `place` from C's buffer at
    /// byte `buffer`: where [`stage`](Self::stage) writes D's.
    pub(super) fn load_c_pair(
        &self,
        k: &mut Kernel,
        staging: &Staging,
        place: [u32; 2],
        buffer: u32,
    ) -> Result<[Reg; 2], PtxError> {
        let buffer = self.c_offset() + buffer;
        let pair = [k.reg(RegClass::F32), k.reg(RegClass::F32)];
        let places = self.f32_places(staging, place, buffer)?;
        match self.spec.majors.d {
            OutputMajor::N => k.push(format!(
                "ld.shared.v2.f32 {{{}, {}}}, [{}];",
                pair[0], pair[1], places[0]
            )),
            OutputMajor::M => {
                for (at, value) in places.iter().zip(&pair) {
                    k.push(format!("ld.shared.f32 {value}, [{at}];"));
                }
            }
        }
        Ok(pair)
    }
}
