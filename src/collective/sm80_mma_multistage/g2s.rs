//! The global-to-shared copies of [`Sm80MmaMultistage`]: each thread's
//! `cp.async` (atom [`SM80_CP_ASYNC_CACHEGLOBAL_ZFILL`]) of 16-byte chunks of
//! an operand's tile into its swizzled stage. Two paths: the fast one (M/N
//! row predicates only, unrolled over passes, no branch) for tiles wholly
//! inside K, and the general one (K predicate, zero-fill, chunks cut by an
//! edge; a loop over passes) for the rest. A k-tile's source address is
//! computed from its first k (`kload`), so tiles may be copied in any order.

use super::super::OperandSmem;
use super::mappings::G2sMapping;
use super::{atom_error, MainloopInputs, Sm80MmaMultistage};
use crate::atom::SM80_CP_ASYNC_CACHEGLOBAL_ZFILL as CpAsync;
use crate::kernel::gemm::OperandMajor;
use crate::ptx::{Kernel, PtxError, Reg, RegClass};
use crate::tiled::{emit_layout_offset, Operand};

/// Per-operand copy state kept across the loop.
pub(super) struct CopyState {
    smem: OperandSmem,
    gptr: Reg,
    pass_stride: Reg,
    ld_bytes: Reg,
    smem_off: Reg,
    row_rem: Reg,
    mn_bytes: Reg,
    k_rem: Reg,
    safe: Reg,
    /// Per `cp.async` of a stage: its copy-row offset from the thread's
    /// first, and its byte offset in the stage from the thread's first.
    passes: Vec<(u32, u32)>,
}

impl CopyState {
    /// Copy rows and stage bytes between consecutive passes (equal steps:
    /// checked when the state is built).
    fn step(&self) -> (u32, u32) {
        self.passes.get(1).copied().unwrap_or((0, 0))
    }
}

/// The per-pass (row, byte) immediates of `g`: each pass's first value's
/// row offset and unswizzled stage offset (with no XOR part, so the thread's
/// swizzled base plus the immediate is the swizzled address), at equal steps
/// so that a loop over passes can add the step.
fn pass_immediates(g: &G2sMapping, esize: u32) -> Result<Vec<(u32, u32)>, crate::Error> {
    let per = g.per_instruction();
    let split = g.dst.val_xor_add();
    let passes: Option<Vec<(u32, u32)>> = (0..g.instructions())
        .map(|p| {
            let v = p * per;
            let (xor, add) = split.as_ref()?.get(v).copied()?;
            let row = u32::try_from(g.rows.val()[v]).ok()?;
            let bytes = u32::try_from(add).ok()? * esize;
            (xor == 0 && g.cols.val()[v] == 0).then_some((row, bytes))
        })
        .collect();
    let passes = passes.filter(|p| {
        p.iter()
            .enumerate()
            .all(|(i, &(r, b))| p.len() < 2 || (r, b) == (i as u32 * p[1].0, i as u32 * p[1].1))
    });
    passes.ok_or_else(|| {
        crate::Error::invalid_argument(
            "global-to-shared copy",
            format!("{} over {}", g.copy.layout_tv(), g.dst.thr()),
            "passes at equal row and address steps that the swizzle leaves whole",
        )
    })
}

impl Sm80MmaMultistage {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn copy_setup(
        &self,
        k: &mut Kernel,
        inp: &MainloopInputs,
        op: Operand,
        tile: Reg,
        ld_bytes: Reg,
        mn_rem: Reg,
        safe: Reg,
        stage_offset: u32,
    ) -> Result<CopyState, PtxError> {
        let g = self.g2s(op).map_err(atom_error)?;
        let smem = match op {
            Operand::A => self.a,
            _ => self.b,
        };
        let esize = smem.element_bytes;
        let passes = pass_immediates(&g, esize).map_err(atom_error)?;
        // The thread's copy row and first contiguous element (tile coordinates).
        let row = emit_layout_offset(k, g.rows.thr(), inp.tid).map_err(atom_error)?;
        let col = emit_layout_offset(k, g.cols.thr(), inp.tid).map_err(atom_error)?;
        // Global: tile + row * ld + col * element bytes, for both majors.
        let gptr = k.reg(RegClass::B64);
        let wide = k.reg(RegClass::B64);
        k.push(format!("cvt.u64.u32 {wide}, {row};"));
        k.push(format!("mul.lo.u64 {gptr}, {wide}, {ld_bytes};"));
        k.push(format!("add.u64 {gptr}, {gptr}, {tile};"));
        k.push(format!("mul.wide.u32 {wide}, {col}, {esize};"));
        k.push(format!("add.u64 {gptr}, {gptr}, {wide};"));
        let pass_stride = k.reg(RegClass::B64);
        let rows_per_pass = passes.get(1).map_or(0, |p| p.0);
        k.push(format!(
            "mul.lo.u64 {pass_stride}, {ld_bytes}, {rows_per_pass};"
        ));
        // Shared: the swizzled byte offset of the thread's first chunk.
        let smem_off = g.dst.emit_thread_base(k, inp.tid).map_err(atom_error)?;
        k.push(format!(
            "shl.b32 {smem_off}, {smem_off}, {};",
            esize.trailing_zeros()
        ));
        if stage_offset != 0 {
            k.push(format!("add.u32 {smem_off}, {smem_off}, {stage_offset};"));
        }
        // Predicates' inputs.
        let (row_rem, mn_bytes, k_rem) = (
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
        );
        match smem.major {
            OperandMajor::K => {
                k.push(format!("sub.s32 {row_rem}, {mn_rem}, {row};"));
                k.push(format!("sub.s32 {k_rem}, {}, {col};", inp.k));
                k.mov(mn_bytes, 16);
            }
            OperandMajor::MN => {
                k.push(format!("sub.s32 {mn_bytes}, {mn_rem}, {col};"));
                k.push(format!("mul.lo.s32 {mn_bytes}, {mn_bytes}, {esize};"));
                k.push(format!("max.s32 {mn_bytes}, {mn_bytes}, 0;"));
                k.push(format!("min.s32 {mn_bytes}, {mn_bytes}, 16;"));
                k.push(format!("sub.s32 {k_rem}, {}, {row};", inp.k));
                k.mov(row_rem, 0);
            }
        }
        Ok(CopyState {
            smem,
            gptr,
            pass_stride,
            ld_bytes,
            smem_off,
            row_rem,
            mn_bytes,
            k_rem,
            safe,
            passes,
        })
    }

    /// The global address of the thread's first chunk of the k-tile that
    /// starts at element `kload` of K.
    fn tile_source(&self, k: &mut Kernel, c: &CopyState, kload: Reg) -> Reg {
        let (src, wide) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
        match c.smem.major {
            OperandMajor::K => {
                k.push(format!(
                    "mul.wide.u32 {wide}, {kload}, {};",
                    c.smem.element_bytes
                ));
                k.push(format!("add.u64 {src}, {}, {wide};", c.gptr));
            }
            OperandMajor::MN => {
                k.push(format!("cvt.u64.u32 {wide}, {kload};"));
                k.push(format!(
                    "mad.lo.u64 {src}, {wide}, {}, {};",
                    c.ld_bytes, c.gptr
                ));
            }
        }
        src
    }

    /// Issues one stage's copies of one operand for a tile wholly inside K
    /// (where `p_valid` holds: else nothing), by a thread whose chunks are
    /// whole or wholly outside M/N: one `cp.async` per pass, predicated on
    /// the M/N edge only. The steady state of the mainloop; no zero-fill,
    /// no element loads, no branch.
    pub(super) fn load_tile_fast(
        &self,
        k: &mut Kernel,
        c: &CopyState,
        stage_w: Reg,
        kload: Reg,
        p_valid: Reg,
    ) -> Result<(), PtxError> {
        let smem = c.smem;
        let dst = k.reg(RegClass::B32);
        k.push(format!("add.u32 {dst}, {stage_w}, {};", c.smem_off));
        let src = self.tile_source(k, c, kload);
        let p_row = k.reg(RegClass::Pred);
        if smem.major == OperandMajor::MN {
            k.push(format!(
                "setp.eq.and.s32 {p_row}, {}, 16, {p_valid};",
                c.mn_bytes
            ));
        }
        for (pass, &(row, bytes)) in c.passes.iter().enumerate() {
            if pass > 0 {
                k.push(format!("add.u64 {src}, {src}, {};", c.pass_stride));
            }
            if smem.major == OperandMajor::K {
                k.push(format!(
                    "setp.gt.and.s32 {p_row}, {}, {row}, {p_valid};",
                    c.row_rem
                ));
            }
            let dst_imm = format!("{dst}+{bytes}");
            CpAsync::emit_predicated(k, p_row, &dst_imm, src, &16).map_err(atom_error)?;
        }
        Ok(())
    }

    /// Issues one stage's copies of one operand for any tile and thread: the
    /// K predicate (zero-fill beyond K, a safe source address for rows past
    /// K) and chunks cut by an edge (element loads). A loop over the passes:
    /// this path runs for the prologue's tiles, the K-residue tile and the
    /// threads of an MN-major operand whose chunk the M/N edge cuts.
    pub(super) fn load_tile_general(
        &self,
        k: &mut Kernel,
        c: &CopyState,
        stage_w: Reg,
        kload: Reg,
    ) -> Result<(), PtxError> {
        let smem = c.smem;
        let (rpp, pass_bytes) = c.step();
        let esize = smem.element_bytes;
        let dst = k.reg(RegClass::B32);
        k.push(format!("add.u32 {dst}, {stage_w}, {};", c.smem_off));
        let (src, addr) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
        let (bytes, kr, rows_left, pass) = (
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
        );
        let (p_row, p_k, p_part, p_cp, p_loop) = (
            k.reg(RegClass::Pred),
            k.reg(RegClass::Pred),
            k.reg(RegClass::Pred),
            k.reg(RegClass::Pred),
            k.reg(RegClass::Pred),
        );
        let partial_bytes = |k: &mut Kernel, b: Reg| {
            k.push(format!("setp.gt.s32 {p_part}, {b}, 0;"));
            k.push(format!("setp.lt.and.s32 {p_part}, {b}, 16, {p_part};"));
        };
        k.push(format!("sub.s32 {kr}, {}, {kload};", c.k_rem));
        match smem.major {
            OperandMajor::K => {
                // K - k of this thread's chunk, as bytes clamped to 0..16.
                k.push(format!("mul.lo.s32 {bytes}, {kr}, {esize};"));
                k.push(format!("max.s32 {bytes}, {bytes}, 0;"));
                k.push(format!("min.s32 {bytes}, {bytes}, 16;"));
                k.push(format!("setp.ne.s32 {p_k}, {bytes}, 0;"));
                partial_bytes(k, bytes);
                k.mov(rows_left, c.row_rem);
            }
            OperandMajor::MN => {
                // Whole chunks by cp.async; a chunk cut by the M/N edge by loads.
                k.push(format!("setp.eq.s32 {p_row}, {}, 16;", c.mn_bytes));
                partial_bytes(k, c.mn_bytes);
            }
        }
        let tile = self.tile_source(k, c, kload);
        k.mov(src, tile);
        k.mov(pass, 0);
        let top = k.new_label("g2s_pass")?;
        k.place_label(&top);
        k.push(".pragma \"nounroll\";");
        match smem.major {
            OperandMajor::K => {
                k.push(format!("setp.gt.s32 {p_row}, {rows_left}, 0;"));
                k.push(format!("selp.b64 {addr}, {src}, {}, {p_k};", c.safe));
                k.push(format!("and.pred {p_cp}, {p_row}, !{p_part};"));
                CpAsync::emit_predicated(k, p_cp, &dst, addr, &bytes).map_err(atom_error)?;
                k.push(format!("and.pred {p_cp}, {p_row}, {p_part};"));
                emit_partial_chunk(k, esize, p_cp, addr, &dst.to_string(), bytes)?;
                k.push(format!("sub.s32 {rows_left}, {rows_left}, {rpp};"));
            }
            OperandMajor::MN => {
                let valid = k.reg(RegClass::B32);
                k.push(format!("setp.gt.s32 {p_k}, {kr}, 0;"));
                k.push(format!("selp.b32 {bytes}, 16, 0, {p_k};"));
                k.push(format!("selp.b64 {addr}, {src}, {}, {p_k};", c.safe));
                CpAsync::emit_predicated(k, p_row, &dst, addr, &bytes).map_err(atom_error)?;
                // A cut chunk on a row past K is written as zeros.
                k.push(format!("selp.b32 {valid}, {}, 0, {p_k};", c.mn_bytes));
                emit_partial_chunk(k, esize, p_part, src, &dst.to_string(), valid)?;
                k.push(format!("sub.s32 {kr}, {kr}, {rpp};"));
            }
        }
        k.push(format!("add.u64 {src}, {src}, {};", c.pass_stride));
        k.push(format!("add.u32 {dst}, {dst}, {pass_bytes};"));
        k.push(format!("add.u32 {pass}, {pass}, 1;"));
        k.push(format!("setp.lt.u32 {p_loop}, {pass}, {};", c.passes.len()));
        k.push(format!("@{p_loop} bra {top};"));
        Ok(())
    }

    /// A thread-constant predicate that holds where this thread's chunk of
    /// an MN-major operand is cut by the M/N edge (so every tile of the
    /// thread takes the general path); `None` for K-major operands.
    pub(super) fn cut_chunk_predicate(&self, k: &mut Kernel, c: &CopyState) -> Option<Reg> {
        if c.smem.major != OperandMajor::MN {
            return None;
        }
        let p = k.reg(RegClass::Pred);
        k.push(format!("setp.gt.s32 {p}, {}, 0;", c.mn_bytes));
        k.push(format!("setp.lt.and.s32 {p}, {}, 16, {p};", c.mn_bytes));
        Some(p)
    }
}

/// Where `pred` holds, copies the first `valid` bytes (0..15, a `.b32`
/// register; 0 writes zeros) of the 16-byte chunk at global `src` into shared `dst`,
/// zero-filling the rest: a chunk cut by the tensor's edge, which a 16-byte
/// `cp.async` (even with a smaller src-size) would read past the end of the
/// buffer. One 16-byte `st.shared` of zeros, then a rolled loop of element
/// loads and stores over the valid bytes (the same bytes as loading every
/// element predicated and storing the chunk once; a loop keeps this rare
/// path short for the driver's assembler). The stage it writes is the one
/// the `cp.async` copies write, under the same barriers.
fn emit_partial_chunk(
    k: &mut Kernel,
    esize: u32,
    pred: Reg,
    src: Reg,
    dst: &str,
    valid: Reg,
) -> Result<(), PtxError> {
    let (skip, element) = (
        k.new_label("g2s_whole_chunks")?,
        k.new_label("g2s_chunk_element")?,
    );
    k.push(format!("@!{pred} bra {skip};"));
    let (zero, off, sdst) = (
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
    );
    let (wide, gsrc) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
    let p_done = k.reg(RegClass::Pred);
    k.push(format!("mov.b32 {zero}, 0;"));
    k.push(format!(
        "st.shared.v4.b32 [{dst}], {{{zero}, {zero}, {zero}, {zero}}};"
    ));
    k.mov(off, 0);
    k.place_label(&element);
    k.push(".pragma \"nounroll\";");
    k.push(format!("setp.ge.s32 {p_done}, {off}, {valid};"));
    k.push(format!("@{p_done} bra {skip};"));
    k.push(format!("cvt.u64.u32 {wide}, {off};"));
    k.push(format!("add.u64 {gsrc}, {src}, {wide};"));
    k.push(format!("add.u32 {sdst}, {dst}, {off};"));
    let r = if esize == 2 {
        k.reg(RegClass::B16)
    } else {
        k.reg(RegClass::B32)
    };
    let bits = esize * 8;
    k.push(format!("ld.global.b{bits} {r}, [{gsrc}];"));
    k.push(format!("st.shared.b{bits} [{sdst}], {r};"));
    k.push(format!("add.u32 {off}, {off}, {esize};"));
    k.push(format!("bra {element};"));
    k.place_label(&skip);
    Ok(())
}
