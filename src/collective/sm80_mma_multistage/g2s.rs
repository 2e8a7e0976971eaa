//! The global-to-shared copies of [`Sm80MmaMultistage`]: each thread's
//! `cp.async` (atom [`SM80_CP_ASYNC_CACHEGLOBAL_ZFILL`](crate::atom::SM80_CP_ASYNC_CACHEGLOBAL_ZFILL)) of 16-byte chunks of
//! an operand's tile into its swizzled stage. Two paths: the fast one (M/N
//! row predicates only, unrolled over passes, no branch) for tiles wholly
//! inside K, and the general one (K predicate, zero-fill, chunks cut by an
//! edge; a loop over passes) for the rest. A k-tile's source address is
//! computed from its first k (`kload`), so tiles may be copied in any order.

use super::super::OperandSmem;
use super::mappings::G2sMapping;
use super::{atom_error, MainloopInputs, Sm80MmaMultistage};
use crate::atom::SM80_CP_ASYNC_CACHEGLOBAL_ZFILL as CpAsync;
use crate::gemm::OperandMajor;
use crate::ptx::{Kernel, PtxError, Reg, RegClass};
use crate::tiled::{emit_layout_offset, emit_swizzle, Operand};

/// One `cp.async` of a thread per stage, relative to the thread's first
/// chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ChunkCopy {
    /// Copy-row offset (tile coordinate).
    row: u32,
    /// Contiguous offset, in elements (tile coordinate).
    col: u32,
    /// Which of the thread's shared-memory bases the destination uses.
    base: usize,
    /// Byte offset from that base.
    add: u32,
    /// Which column's edge facts apply (an index into `CopyState::cols`).
    col_class: usize,
}

/// Per-operand copy state kept across the loop.
pub(super) struct CopyState {
    smem: OperandSmem,
    gptr: Reg,
    pass_stride: Reg,
    ld_bytes: Reg,
    /// The thread's shared-memory byte offsets in the stage: one per
    /// distinct XOR (or low) part of its copies' destinations.
    bases: Vec<Reg>,
    row_rem: Reg,
    /// Per distinct column offset of the thread's copies (`cols`): the
    /// bytes of the chunk inside M/N (MN-major; 0 for an idle thread), or
    /// 16 (K-major).
    mn_bytes: Vec<Reg>,
    cols: Vec<u32>,
    k_rem: Reg,
    safe: Reg,
    /// The thread's copies, by row then column.
    copies: Vec<ChunkCopy>,
    /// Copy rows between consecutive distinct rows (0 with one row).
    row_step: u32,
}

impl CopyState {
    /// Whether the copies are one column at equal row and byte steps from
    /// one base: then the general path is a rolled loop over them.
    fn uniform(&self) -> bool {
        let c = &self.copies;
        self.bases.len() == 1
            && self.cols.len() == 1
            && c.iter().enumerate().all(|(i, copy)| {
                let i = i as u32;
                copy.col == 0
                    && copy.row == i * self.row_step
                    && copy.add == i * c.get(1).map_or(0, |c| c.add)
            })
    }
}

/// The thread's copies of `g`, with its destination bases: each copy's
/// destination is `swizzle(base_offset + thr(t) + val)`; where the thread
/// and value bits never meet ([`ThreadPartition::val_xor_add`](crate::tiled::ThreadPartition::val_xor_add)) the copies
/// share one swizzled base, told apart by an XOR part (one base each) and
/// an address immediate; otherwise one base per distinct part below the
/// swizzle's period, swizzled at setup.
fn chunk_copies(
    g: &G2sMapping,
    esize: u32,
) -> Result<(Vec<ChunkCopy>, BaseParts, Vec<u32>), crate::Error> {
    let per = g.per_instruction();
    let unrepresentable = || {
        crate::Error::invalid_argument(
            "global-to-shared copy",
            format!("{} over {}", g.copy.layout_tv(), g.dst.thr()),
            "non-negative 32-bit offsets in the tile",
        )
    };
    let to_u32 = |v: i64| u32::try_from(v).map_err(|_| unrepresentable());
    let split = g.dst.val_xor_add();
    let period = g.dst.swizzle().period();
    let mut parts: Vec<i64> = Vec::new();
    let mut cols: Vec<u32> = Vec::new();
    let mut copies = Vec::new();
    for i in 0..g.instructions() {
        let v = i * per;
        let (part, add) = match &split {
            Some(split) => split[v],
            None => {
                let value = g.dst.val()[v];
                (value.rem_euclid(period), value - value.rem_euclid(period))
            }
        };
        let base = match parts.iter().position(|&p| p == part) {
            Some(at) => at,
            None => {
                parts.push(part);
                parts.len() - 1
            }
        };
        let col = to_u32(g.cols.val()[v])?;
        let col_class = match cols.iter().position(|&c| c == col) {
            Some(at) => at,
            None => {
                cols.push(col);
                cols.len() - 1
            }
        };
        copies.push(ChunkCopy {
            row: to_u32(g.rows.val()[v])?,
            col,
            base,
            add: to_u32(add)? * esize,
            col_class,
        });
    }
    copies.sort_by_key(|c| (c.row, c.col));
    let parts = match split {
        Some(_) => BaseParts::Xor(parts),
        None => BaseParts::Low(parts),
    };
    Ok((copies, parts, cols))
}

/// How the thread's destination bases differ.
enum BaseParts {
    /// XOR parts (elements) into one swizzled thread base.
    Xor(Vec<i64>),
    /// Parts below the swizzle's period (elements), each added to the
    /// thread's offset and swizzled.
    Low(Vec<i64>),
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
        let (copies, parts, cols) = chunk_copies(&g, esize).map_err(atom_error)?;
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
        let mut rows: Vec<u32> = copies.iter().map(|c| c.row).collect();
        rows.dedup();
        let row_step = rows.get(1).copied().unwrap_or(0);
        k.push(format!("mul.lo.u64 {pass_stride}, {ld_bytes}, {row_step};"));
        // Shared: the swizzled byte offsets of the thread's chunks.
        let shift = esize.trailing_zeros();
        let to_stage = |k: &mut Kernel, base: Reg| {
            k.push(format!("shl.b32 {base}, {base}, {shift};"));
            if stage_offset != 0 {
                k.push(format!("add.u32 {base}, {base}, {stage_offset};"));
            }
        };
        let mut bases = Vec::new();
        let mut xor_parts = Vec::new();
        match &parts {
            BaseParts::Xor(xors) => {
                let base = g.dst.emit_thread_base(k, inp.tid).map_err(atom_error)?;
                to_stage(k, base);
                bases.push(base);
                // XOR into `stage + base` is XOR into `base`: stage offsets
                // are multiples of every swizzle's period (SMEM_ALIGN).
                xor_parts = xors.iter().map(|&x| (x as u32) << shift).collect();
            }
            BaseParts::Low(lows) => {
                let thr = emit_layout_offset(k, g.dst.thr(), inp.tid).map_err(atom_error)?;
                for &low in lows {
                    let base = k.reg(RegClass::B32);
                    k.push(format!(
                        "add.s32 {base}, {thr}, {};",
                        low + g.dst.base_offset()
                    ));
                    emit_swizzle(k, base, g.dst.swizzle());
                    to_stage(k, base);
                    bases.push(base);
                }
            }
        }
        // Predicates' inputs.
        let (row_rem, mn_bytes, k_rem) = (
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
        );
        let mut chunk_bytes = vec![mn_bytes];
        match smem.major {
            OperandMajor::K => {
                k.push(format!("sub.s32 {row_rem}, {mn_rem}, {row};"));
                k.push(format!("sub.s32 {k_rem}, {}, {col};", inp.k));
                k.mov(mn_bytes, 16);
            }
            OperandMajor::MN => {
                let clamp = |k: &mut Kernel, bytes: Reg, offset: u32| {
                    k.push(format!("sub.s32 {bytes}, {mn_rem}, {col};"));
                    if offset != 0 {
                        k.push(format!("sub.s32 {bytes}, {bytes}, {offset};"));
                    }
                    emit_chunk_bytes(k, bytes, bytes, esize);
                };
                clamp(k, mn_bytes, cols[0]);
                k.push(format!("sub.s32 {k_rem}, {}, {row};", inp.k));
                k.mov(row_rem, 0);
                for &offset in &cols[1..] {
                    let bytes = k.reg(RegClass::B32);
                    clamp(k, bytes, offset);
                    chunk_bytes.push(bytes);
                }
            }
        }
        // The bases of the other XOR parts.
        for &xor in xor_parts.iter().skip(1) {
            let base = k.reg(RegClass::B32);
            k.push(format!("xor.b32 {base}, {}, {xor};", bases[0]));
            bases.push(base);
        }
        // Threads past the copy's own copy nothing: no row left (K-major),
        // no byte of any chunk (MN-major).
        let copiers = g.copy.threads() as u32;
        if copiers < self.spec.block_threads() {
            let p = k.reg(RegClass::Pred);
            k.push(format!("setp.lt.u32 {p}, {}, {copiers};", inp.tid));
            k.push(format!("selp.b32 {row_rem}, {row_rem}, 0, {p};"));
            if smem.major == OperandMajor::MN {
                for &bytes in &chunk_bytes {
                    k.push(format!("selp.b32 {bytes}, {bytes}, 0, {p};"));
                }
            }
        }
        Ok(CopyState {
            smem,
            gptr,
            pass_stride,
            ld_bytes,
            bases,
            row_rem,
            mn_bytes: chunk_bytes,
            cols,
            k_rem,
            safe,
            copies,
            row_step,
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

    /// The stage's destination registers, one per base: `stage_w + base`.
    fn stage_destinations(&self, k: &mut Kernel, c: &CopyState, stage_w: Reg) -> Vec<Reg> {
        c.bases
            .iter()
            .map(|base| {
                let dst = k.reg(RegClass::B32);
                k.push(format!("add.u32 {dst}, {stage_w}, {base};"));
                dst
            })
            .collect()
    }

    /// Issues one stage's copies of one operand for a tile wholly inside K
    /// (where `p_valid` holds: else nothing), by a thread whose chunks are
    /// whole or wholly outside M/N: one `cp.async` per chunk, predicated on
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
        let esize = smem.element_bytes;
        let first_dst = k.reg(RegClass::B32);
        k.push(format!("add.u32 {first_dst}, {stage_w}, {};", c.bases[0]));
        let src = self.tile_source(k, c, kload);
        let p_row = k.reg(RegClass::Pred);
        let mut whole = vec![p_row];
        if smem.major == OperandMajor::MN {
            k.push(format!(
                "setp.eq.and.s32 {p_row}, {}, 16, {p_valid};",
                c.mn_bytes[0]
            ));
            for &bytes in &c.mn_bytes[1..] {
                let p = k.reg(RegClass::Pred);
                k.push(format!("setp.eq.and.s32 {p}, {bytes}, 16, {p_valid};"));
                whole.push(p);
            }
        }
        let mut dsts = vec![first_dst];
        for base in &c.bases[1..] {
            let dst = k.reg(RegClass::B32);
            k.push(format!("add.u32 {dst}, {stage_w}, {base};"));
            dsts.push(dst);
        }
        let (mut at_row, mut set_row) = (0, None);
        for copy in &c.copies {
            while at_row < copy.row {
                k.push(format!("add.u64 {src}, {src}, {};", c.pass_stride));
                at_row += c.row_step.max(1);
            }
            let pred = match smem.major {
                OperandMajor::K => {
                    if set_row != Some(copy.row) {
                        k.push(format!(
                            "setp.gt.and.s32 {p_row}, {}, {}, {p_valid};",
                            c.row_rem, copy.row
                        ));
                        set_row = Some(copy.row);
                    }
                    p_row
                }
                OperandMajor::MN => whole[copy.col_class],
            };
            let dst_imm = format!("{}+{}", dsts[copy.base], copy.add);
            CpAsync::emit_predicated_at(k, pred, &dst_imm, (src, copy.col * esize), &16)
                .map_err(atom_error)?;
        }
        Ok(())
    }

    /// Issues one stage's copies of one operand for any tile and thread: the
    /// K predicate (zero-fill beyond K, a safe source address for rows past
    /// K) and chunks cut by an edge (element loads). A loop over the copies
    /// where they step evenly (one column, one base), else one block per
    /// copy: this path runs for the prologue's tiles, the K-residue tile and
    /// the threads of an MN-major operand whose chunk the M/N edge cuts.
    pub(super) fn load_tile_general(
        &self,
        k: &mut Kernel,
        c: &CopyState,
        stage_w: Reg,
        kload: Reg,
    ) -> Result<(), PtxError> {
        if !c.uniform() {
            return self.load_tile_unrolled(k, c, stage_w, kload);
        }
        let smem = c.smem;
        let rpp = c.row_step;
        let pass_bytes = c.copies.get(1).map_or(0, |c| c.add);
        let esize = smem.element_bytes;
        let dst = k.reg(RegClass::B32);
        k.push(format!("add.u32 {dst}, {stage_w}, {};", c.bases[0]));
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
                emit_chunk_bytes(k, bytes, kr, esize);
                k.push(format!("setp.ne.s32 {p_k}, {bytes}, 0;"));
                partial_bytes(k, bytes);
                k.mov(rows_left, c.row_rem);
            }
            OperandMajor::MN => {
                // Whole chunks by cp.async; a chunk cut by the M/N edge by loads.
                k.push(format!("setp.eq.s32 {p_row}, {}, 16;", c.mn_bytes[0]));
                partial_bytes(k, c.mn_bytes[0]);
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
                k.push(format!("selp.b32 {valid}, {}, 0, {p_k};", c.mn_bytes[0]));
                emit_partial_chunk(k, esize, p_part, src, &dst.to_string(), valid)?;
                k.push(format!("sub.s32 {kr}, {kr}, {rpp};"));
            }
        }
        k.push(format!("add.u64 {src}, {src}, {};", c.pass_stride));
        k.push(format!("add.u32 {dst}, {dst}, {pass_bytes};"));
        k.push(format!("add.u32 {pass}, {pass}, 1;"));
        k.push(format!("setp.lt.u32 {p_loop}, {pass}, {};", c.copies.len()));
        k.push(format!("@{p_loop} bra {top};"));
        Ok(())
    }

    /// [`load_tile_general`](Self::load_tile_general) as one block per copy,
    /// for copies at several columns or bases: each copy's K and M/N facts
    /// from its own row and column offsets.
    fn load_tile_unrolled(
        &self,
        k: &mut Kernel,
        c: &CopyState,
        stage_w: Reg,
        kload: Reg,
    ) -> Result<(), PtxError> {
        let smem = c.smem;
        let esize = smem.element_bytes;
        let dsts = self.stage_destinations(k, c, stage_w);
        let (addr, chunk) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
        let (bytes, kr, valid) = (
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
        );
        let (p_row, p_k, p_part, p_cp) = (
            k.reg(RegClass::Pred),
            k.reg(RegClass::Pred),
            k.reg(RegClass::Pred),
            k.reg(RegClass::Pred),
        );
        k.push(format!("sub.s32 {kr}, {}, {kload};", c.k_rem));
        let src = self.tile_source(k, c, kload);
        let mut at_row = 0;
        for copy in &c.copies {
            while at_row < copy.row {
                k.push(format!("add.u64 {src}, {src}, {};", c.pass_stride));
                at_row += c.row_step.max(1);
            }
            let dst = format!("{}+{}", dsts[copy.base], copy.add);
            k.push(format!("add.u64 {chunk}, {src}, {};", copy.col * esize));
            match smem.major {
                OperandMajor::K => {
                    // K left past this chunk's first element, as bytes 0..16.
                    k.push(format!("sub.s32 {bytes}, {kr}, {};", copy.col));
                    emit_chunk_bytes(k, bytes, bytes, esize);
                    k.push(format!("setp.ne.s32 {p_k}, {bytes}, 0;"));
                    k.push(format!("setp.gt.s32 {p_part}, {bytes}, 0;"));
                    k.push(format!("setp.lt.and.s32 {p_part}, {bytes}, 16, {p_part};"));
                    k.push(format!("setp.gt.s32 {p_row}, {}, {};", c.row_rem, copy.row));
                    k.push(format!("selp.b64 {addr}, {chunk}, {}, {p_k};", c.safe));
                    k.push(format!("and.pred {p_cp}, {p_row}, !{p_part};"));
                    CpAsync::emit_predicated(k, p_cp, &dst, addr, &bytes).map_err(atom_error)?;
                    k.push(format!("and.pred {p_cp}, {p_row}, {p_part};"));
                    emit_partial_chunk(k, esize, p_cp, addr, &dst, bytes)?;
                }
                OperandMajor::MN => {
                    let mn_bytes = c.mn_bytes[copy.col_class];
                    k.push(format!("setp.gt.s32 {p_k}, {kr}, {};", copy.row));
                    k.push(format!("selp.b32 {bytes}, 16, 0, {p_k};"));
                    k.push(format!("selp.b64 {addr}, {chunk}, {}, {p_k};", c.safe));
                    k.push(format!("setp.eq.s32 {p_row}, {mn_bytes}, 16;"));
                    CpAsync::emit_predicated(k, p_row, &dst, addr, &bytes).map_err(atom_error)?;
                    // A cut chunk on a row past K is written as zeros.
                    k.push(format!("setp.gt.s32 {p_part}, {mn_bytes}, 0;"));
                    k.push(format!(
                        "setp.lt.and.s32 {p_part}, {mn_bytes}, 16, {p_part};"
                    ));
                    k.push(format!("selp.b32 {valid}, {mn_bytes}, 0, {p_k};"));
                    emit_partial_chunk(k, esize, p_part, chunk, &dst, valid)?;
                }
            }
        }
        Ok(())
    }

    /// A thread-constant predicate that holds where one of this thread's
    /// chunks of an MN-major operand is cut by the M/N edge (so every tile
    /// of the thread takes the general path); `None` for K-major operands.
    pub(super) fn cut_chunk_predicate(&self, k: &mut Kernel, c: &CopyState) -> Option<Reg> {
        if c.smem.major != OperandMajor::MN {
            return None;
        }
        let p = k.reg(RegClass::Pred);
        k.push(format!("setp.gt.s32 {p}, {}, 0;", c.mn_bytes[0]));
        k.push(format!("setp.lt.and.s32 {p}, {}, 16, {p};", c.mn_bytes[0]));
        for &bytes in &c.mn_bytes[1..] {
            let q = k.reg(RegClass::Pred);
            k.push(format!("setp.gt.s32 {q}, {bytes}, 0;"));
            k.push(format!("setp.lt.and.s32 {q}, {bytes}, 16, {q};"));
            k.push(format!("or.pred {p}, {p}, {q};"));
        }
        Some(p)
    }
}

/// `bytes = clamp(elements * esize, 0, 16)`: how many bytes of a 16-byte
/// chunk lie inside an edge `elements` elements away.
fn emit_chunk_bytes(k: &mut Kernel, bytes: Reg, elements: Reg, esize: u32) {
    k.push(format!("mul.lo.s32 {bytes}, {elements}, {esize};"));
    k.push(format!("max.s32 {bytes}, {bytes}, 0;"));
    k.push(format!("min.s32 {bytes}, {bytes}, 16;"));
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
