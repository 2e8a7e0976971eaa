//! Step 2 of [`EpilogueSm80`]: the pass loop over 16-byte vectors of D,
//! each read from the staging tile, combined with C and stored whole.

use super::epilogue_pad;
use super::{EpilogueInputs, EpilogueSm80};
use crate::atom::{CopyValue, MemorySpace, UniversalCopy};
use crate::collective::epilogue_fusion::{
    advance_outer_biases, load_outer_biases, setup_biases, BiasRegs,
};
use crate::collective::sm80_mma_multistage::atom_error;
use crate::gemm::OutputMajor;
use crate::ptx::{Kernel, PtxError, Reg, RegClass};

impl EpilogueSm80 {
    pub(super) fn store_vectors(
        &self,
        k: &mut Kernel,
        inp: &EpilogueInputs,
    ) -> Result<(), PtxError> {
        let (rows, len) = self.staging_shape();
        let map = self.vector_mapping();
        let (vpr, rpp) = (map.along, map.rows_per_pass);
        let vec = self.vector_elements();
        let dsize = self.spec.types.d.size_bytes();
        let pitch = (len + epilogue_pad(self.spec.majors.d)) * 4;
        let (outer_rem, inner_rem) = match self.spec.majors.d {
            OutputMajor::N => (inp.m_rem, inp.n_rem),
            OutputMajor::M => (inp.n_rem, inp.m_rem),
        };
        let (row, colv) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        k.div_u32_by(row, inp.tid, vpr);
        k.rem_u32_by(colv, inp.tid, vpr);
        let col = k.reg(RegClass::B32);
        k.push(format!("mul.lo.u32 {col}, {colv}, {vec};"));
        // Threads past the mapping's own store nothing.
        let idle = if map.threads < self.spec.block_threads() {
            let (p, label) = (k.reg(RegClass::Pred), k.new_label("epilogue_idle")?);
            k.push(format!("setp.ge.u32 {p}, {}, {};", inp.tid, map.threads));
            k.push(format!("@{p} bra {label};"));
            Some(label)
        } else {
            None
        };
        for segment in 0..map.segments {
            if segment > 0 {
                k.push(format!("add.u32 {col}, {col}, {};", vpr * vec));
            }
            let geometry = (rows, rpp, pitch, vec, dsize);
            self.store_segment(k, inp, (row, col), (outer_rem, inner_rem), geometry)?;
        }
        if let Some(label) = idle {
            k.place_label(&label);
        }
        Ok(())
    }

    /// The pass loop over one column segment of the staging tile: the
    /// thread's vectors at column `col`, rows `row + p * rpp`.
    fn store_segment(
        &self,
        k: &mut Kernel,
        inp: &EpilogueInputs,
        (row, col): (Reg, Reg),
        (outer_rem, inner_rem): (Reg, Reg),
        (rows, rpp, pitch, vec, dsize): (u32, u32, u32, u32, u32),
    ) -> Result<(), PtxError> {
        // Shared read address of the thread's first vector.
        let sread = k.reg(RegClass::B32);
        let tmp = k.reg(RegClass::B32);
        k.push(format!("mul.lo.u32 {sread}, {row}, {pitch};"));
        k.push(format!("shl.b32 {tmp}, {col}, 2;"));
        k.push(format!("add.u32 {sread}, {sread}, {tmp};"));
        k.push(format!("add.u32 {sread}, {sread}, {};", inp.smem));
        // Global addresses of the thread's first vector of D and C.
        let (dptr, cptr, wide, dstride, cstride) = (
            k.reg(RegClass::B64),
            k.reg(RegClass::B64),
            k.reg(RegClass::B64),
            k.reg(RegClass::B64),
            k.reg(RegClass::B64),
        );
        for (ptr, tile, ld, stride) in [
            (dptr, inp.d_tile, inp.ldd_bytes, dstride),
            (cptr, inp.c_tile, inp.ldc_bytes, cstride),
        ] {
            k.push(format!("cvt.u64.u32 {wide}, {row};"));
            k.push(format!("mul.lo.u64 {ptr}, {wide}, {ld};"));
            k.push(format!("add.u64 {ptr}, {ptr}, {tile};"));
            k.push(format!("mul.wide.u32 {wide}, {col}, {dsize};"));
            k.push(format!("add.u64 {ptr}, {ptr}, {wide};"));
            k.push(format!("mul.lo.u64 {stride}, {ld}, {rpp};"));
        }
        // Predicates: rows left, whole / partial vector, beta != 0.
        let (rrem, irem) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        k.push(format!("sub.s32 {rrem}, {outer_rem}, {row};"));
        k.push(format!("sub.s32 {irem}, {inner_rem}, {col};"));
        let (p_full, p_part, p_beta, p_row, p_st, p_ld) = (
            k.reg(RegClass::Pred),
            k.reg(RegClass::Pred),
            k.reg(RegClass::Pred),
            k.reg(RegClass::Pred),
            k.reg(RegClass::Pred),
            k.reg(RegClass::Pred),
        );
        k.push(format!("setp.ge.s32 {p_full}, {irem}, {vec};"));
        k.push(format!("setp.gt.s32 {p_part}, {irem}, 0;"));
        k.push(format!("and.pred {p_part}, {p_part}, !{p_full};"));
        k.push(format!("setp.neu.f32 {p_beta}, {}, 0f00000000;", inp.beta));
        let biases = setup_biases(k, &self.spec, &inp.biases, row, col, irem, vec)?;
        let acc = k.regs(RegClass::F32, vec as usize);
        let passes = rows / rpp;
        let unroll = [2, 1]
            .into_iter()
            .find(|u| passes.is_multiple_of(*u))
            .unwrap_or(1);
        let (p_loop, left) = (k.reg(RegClass::Pred), k.reg(RegClass::B32));
        let (whole, partial, end) = (
            k.new_label("epilogue_vectors")?,
            k.new_label("epilogue_partial_vectors")?,
            k.new_label("epilogue_end")?,
        );
        k.mov(left, passes);
        // A thread whose vector the contiguous edge cuts stores element by
        // element in every pass: its own loop, out of the whole-vector one.
        k.push(format!("@{p_part} bra {partial};"));
        k.place_label(&whole);
        k.push(".pragma \"nounroll\";");
        for u in 0..unroll {
            if u > 0 {
                k.push(format!("add.u64 {dptr}, {dptr}, {dstride};"));
                k.push(format!("add.u64 {cptr}, {cptr}, {cstride};"));
            }
            let simm = u * rpp * pitch;
            self.load_staged(k, &acc, sread, simm)?;
            k.push(format!("setp.gt.s32 {p_row}, {rrem}, {};", u * rpp));
            load_outer_biases(k, &self.spec, &biases, u * rpp, p_row)?;
            k.push(format!("and.pred {p_st}, {p_row}, {p_full};"));
            k.push(format!("and.pred {p_ld}, {p_st}, {p_beta};"));
            self.store_whole(k, &acc, &biases, inp, dptr, cptr, p_ld, p_st)?;
        }
        k.push(format!("add.u64 {dptr}, {dptr}, {dstride};"));
        k.push(format!("add.u64 {cptr}, {cptr}, {cstride};"));
        self.next_rows(k, (sread, rrem), &biases, unroll * rpp, pitch);
        k.push(format!("sub.s32 {left}, {left}, {unroll};"));
        k.push(format!("setp.gt.s32 {p_loop}, {left}, 0;"));
        k.push(format!("setp.gt.and.s32 {p_loop}, {rrem}, 0, {p_loop};"));
        k.push(format!("@{p_loop} bra {whole};"));
        k.push(format!("bra {end};"));
        k.place_label(&partial);
        k.push(".pragma \"nounroll\";");
        // Rows run out together: leave at the first row past the edge.
        k.push(format!("setp.le.s32 {p_loop}, {rrem}, 0;"));
        k.push(format!("@{p_loop} bra {end};"));
        load_outer_biases(k, &self.spec, &biases, 0, p_part)?;
        self.store_partial(k, &biases, inp, (sread, dptr, cptr), irem, (p_beta, p_part))?;
        k.push(format!("add.u64 {dptr}, {dptr}, {dstride};"));
        k.push(format!("add.u64 {cptr}, {cptr}, {cstride};"));
        self.next_rows(k, (sread, rrem), &biases, rpp, pitch);
        k.push(format!("sub.s32 {left}, {left}, 1;"));
        k.push(format!("setp.gt.s32 {p_loop}, {left}, 0;"));
        k.push(format!("@{p_loop} bra {partial};"));
        k.place_label(&end);
        Ok(())
    }

    /// Reads one vector of staged accumulators at `[sread + imm]`, 16
    /// bytes (four f32 values) per load.
    pub(super) fn load_staged(
        &self,
        k: &mut Kernel,
        acc: &[Reg],
        sread: Reg,
        imm: u32,
    ) -> Result<(), PtxError> {
        let per_load = UniversalCopy::<128>::values(CopyValue::F32).map_err(atom_error)?;
        for (q, a) in acc.chunks(per_load).enumerate() {
            let at = format!("{sread}+{}", imm + 16 * q as u32);
            UniversalCopy::<128>::emit_load_typed(k, MemorySpace::Shared, CopyValue::F32, a, &at)
                .map_err(atom_error)?;
        }
        Ok(())
    }

    /// Moves the shared read address, the rows left and the outer biases
    /// `rows` rows on.
    pub(super) fn next_rows(
        &self,
        k: &mut Kernel,
        (sread, rrem): (Reg, Reg),
        biases: &[BiasRegs],
        rows: u32,
        pitch: u32,
    ) {
        k.push(format!("add.u32 {sread}, {sread}, {};", rows * pitch));
        k.push(format!("sub.s32 {rrem}, {rrem}, {rows};"));
        advance_outer_biases(k, &self.spec, biases, rows);
    }

    /// The whole 16-byte vector of one pass: C read where `p_ld`, the
    /// epilogue, D written where `p_st`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn store_whole(
        &self,
        k: &mut Kernel,
        acc: &[Reg],
        biases: &[BiasRegs],
        inp: &EpilogueInputs,
        dptr: Reg,
        cptr: Reg,
        p_ld: Reg,
        p_st: Reg,
    ) -> Result<(), PtxError> {
        let packed = k.regs(RegClass::B32, 4);
        let cval = k.regs(RegClass::F32, acc.len());
        for r in &packed {
            k.push(format!("mov.b32 {r}, 0;"));
        }
        let words = (acc.len() as u32 * self.spec.types.d.size_bytes() / 4) as usize;
        let w = &packed[..words];
        UniversalCopy::<128>::emit_load_predicated(k, p_ld, w, &cptr).map_err(atom_error)?;
        self.unpack(k, w, &cval);
        let res = self.combine(k, acc, &cval, biases, inp)?;
        self.pack(k, &res, w);
        UniversalCopy::<128>::emit_store_predicated(k, p_st, &dptr, w).map_err(atom_error)?;
        Ok(())
    }
}
