//! The global -> register -> shared copies of [`Sm70MmaPipelined`]: each
//! thread's 16-byte chunks of an operand's tile (the 128-bit copy's
//! [`G2sMapping`](crate::collective::G2sMapping)) loaded into staging
//! registers ([`UniversalCopy<128>`] from global memory), later stored into
//! the swizzled stage ([`UniversalCopy<128>`] to shared memory). Two load
//! paths: the fast one (whole chunks, predicated on the M/N edge) for tiles
//! wholly inside K, and the general one (element loads, zeros past every
//! edge) for the residue tile and the threads whose chunk the M/N edge cuts.

use super::{atom_error, Sm70MmaPipelined};
use crate::atom::{CopyValue, MemorySpace, UniversalCopy};
use crate::collective::{MainloopInputs, OperandSmem};
use crate::gemm::OperandMajor;
use crate::ptx::{Kernel, PtxError, Reg, RegClass};
use crate::tiled::{emit_layout_offset, emit_swizzle, Operand};

/// Elements of one 16-byte chunk of f16.
const CHUNK: u32 = 8;

/// One 16-byte chunk a thread copies per tile.
pub(super) struct Chunk {
    /// Copy-row offset from the thread's first chunk (tile coordinate).
    row: u32,
    /// Contiguous offset from the thread's first chunk, in elements.
    col: u32,
    /// Global address of the chunk in the tile that starts at k = 0 (`.b64`).
    src: Reg,
    /// Absolute shared-window address of the chunk in stage 0 (`.b32`).
    dst: Reg,
    /// The four staging registers.
    regs: Vec<Reg>,
}

/// Per-operand copy state kept across the loop.
pub(super) struct CopyState {
    smem: OperandSmem,
    ld_bytes: Reg,
    /// `M - m0 - row` (K-major) or `M - m0 - col` (MN-major) of the
    /// thread's first chunk; 0 for a thread past the copy's own.
    mn_left: Reg,
    /// `K - col` (K-major) or `K - row` (MN-major) of the first chunk.
    k_left: Reg,
    chunks: Vec<Chunk>,
}

impl Sm70MmaPipelined {
    /// The thread's chunks of operand `op`: global addresses at k = 0,
    /// swizzled shared addresses (`stage_offset`: the operand's place in a
    /// stage) and zeroed staging registers.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn copy_setup(
        &self,
        k: &mut Kernel,
        inp: &MainloopInputs,
        op: Operand,
        tile: Reg,
        ld_bytes: Reg,
        mn_rem: Reg,
        stage_offset: u32,
    ) -> Result<CopyState, PtxError> {
        let g = self.g2s(op).map_err(atom_error)?;
        let (smem, _) = self.operand(op).map_err(atom_error)?;
        let esize = smem.element_bytes;
        let row = emit_layout_offset(k, g.rows.thr(), inp.tid).map_err(atom_error)?;
        let col = emit_layout_offset(k, g.cols.thr(), inp.tid).map_err(atom_error)?;
        let thr = emit_layout_offset(k, g.dst.thr(), inp.tid).map_err(atom_error)?;
        let gptr = k.reg(RegClass::B64);
        let wide = k.reg(RegClass::B64);
        k.push(format!("cvt.u64.u32 {wide}, {row};"));
        k.push(format!("mad.lo.u64 {gptr}, {wide}, {ld_bytes}, {tile};"));
        k.push(format!("mul.wide.u32 {wide}, {col}, {esize};"));
        k.push(format!("add.u64 {gptr}, {gptr}, {wide};"));
        let invalid = |v: i64| {
            atom_error(crate::Error::invalid_argument(
                "global-to-shared copy offset",
                v,
                "a non-negative 32-bit offset in the tile",
            ))
        };
        let mut chunks = Vec::new();
        for i in 0..g.instructions() {
            let v = i * g.per_instruction();
            let (r, c) = (g.rows.val()[v], g.cols.val()[v]);
            let row_off = u32::try_from(r).map_err(|_| invalid(r))?;
            let col_off = u32::try_from(c).map_err(|_| invalid(c))?;
            let src = k.reg(RegClass::B64);
            k.push(format!("mad.lo.u64 {src}, {ld_bytes}, {row_off}, {gptr};"));
            if col_off != 0 {
                k.push(format!("add.u64 {src}, {src}, {};", col_off * esize));
            }
            // The chunk's element offset in the stage, swizzled.
            let dst = k.reg(RegClass::B32);
            k.push(format!(
                "add.s32 {dst}, {thr}, {};",
                g.dst.val()[v] + g.dst.base_offset()
            ));
            emit_swizzle(k, dst, g.dst.swizzle());
            k.push(format!("shl.b32 {dst}, {dst}, {};", esize.trailing_zeros()));
            k.push(format!("add.u32 {dst}, {dst}, {};", inp.smem));
            if stage_offset != 0 {
                k.push(format!("add.u32 {dst}, {dst}, {stage_offset};"));
            }
            let regs = k.regs(RegClass::B32, 4);
            for r in &regs {
                k.push(format!("mov.b32 {r}, 0;"));
            }
            chunks.push(Chunk {
                row: row_off,
                col: col_off,
                src,
                dst,
                regs,
            });
        }
        let (mn_left, k_left) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        let (mn_at, k_at) = match smem.major {
            OperandMajor::K => (row, col),
            OperandMajor::MN => (col, row),
        };
        k.push(format!("sub.s32 {mn_left}, {mn_rem}, {mn_at};"));
        k.push(format!("sub.s32 {k_left}, {}, {k_at};", inp.k));
        let copiers = g.copy.threads() as u32;
        if copiers < self.spec.block_threads() {
            let p = k.reg(RegClass::Pred);
            k.push(format!("setp.lt.u32 {p}, {}, {copiers};", inp.tid));
            k.push(format!("selp.b32 {mn_left}, {mn_left}, 0, {p};"));
        }
        Ok(CopyState {
            smem,
            ld_bytes,
            mn_left,
            k_left,
            chunks,
        })
    }

    /// A thread-constant predicate that holds where the M/N edge cuts one
    /// of the thread's chunks of an MN-major operand (its every tile then
    /// takes the general path); `None` for a K-major operand.
    pub(super) fn cut_predicate(&self, k: &mut Kernel, c: &CopyState) -> Option<Reg> {
        if c.smem.major != OperandMajor::MN {
            return None;
        }
        let (p, q) = (k.reg(RegClass::Pred), k.reg(RegClass::Pred));
        k.push(format!("setp.ne.s32 {p}, 0, 0;"));
        let mut cols: Vec<u32> = c.chunks.iter().map(|ch| ch.col).collect();
        cols.dedup();
        for col in cols {
            k.push(format!("setp.gt.s32 {q}, {}, {col};", c.mn_left));
            k.push(format!(
                "setp.lt.and.s32 {q}, {}, {}, {q};",
                c.mn_left,
                col + CHUNK
            ));
            k.push(format!("or.pred {p}, {p}, {q};"));
        }
        Some(p)
    }

    /// The global address of chunk `ch` in the tile that starts at `kload`.
    fn chunk_source(&self, k: &mut Kernel, c: &CopyState, ch: &Chunk, kload: Reg) -> Reg {
        let (src, wide) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
        match c.smem.major {
            OperandMajor::K => {
                k.push(format!(
                    "mul.wide.u32 {wide}, {kload}, {};",
                    c.smem.element_bytes
                ));
                k.push(format!("add.u64 {src}, {}, {wide};", ch.src));
            }
            OperandMajor::MN => {
                k.push(format!("cvt.u64.u32 {wide}, {kload};"));
                k.push(format!(
                    "mad.lo.u64 {src}, {wide}, {}, {};",
                    c.ld_bytes, ch.src
                ));
            }
        }
        src
    }

    /// Loads the thread's chunks of a tile wholly inside K (where `p_next`
    /// holds) into its staging registers: one 128-bit load per chunk inside
    /// M/N; chunks past the edge keep their zeros.
    pub(super) fn load_fast(
        &self,
        k: &mut Kernel,
        c: &CopyState,
        kload: Reg,
        p_next: Reg,
    ) -> Result<(), PtxError> {
        let p = k.reg(RegClass::Pred);
        for ch in &c.chunks {
            let src = self.chunk_source(k, c, ch, kload);
            match c.smem.major {
                OperandMajor::K => k.push(format!(
                    "setp.gt.and.s32 {p}, {}, {}, {p_next};",
                    c.mn_left, ch.row
                )),
                OperandMajor::MN => k.push(format!(
                    "setp.ge.and.s32 {p}, {}, {}, {p_next};",
                    c.mn_left,
                    ch.col + CHUNK
                )),
            }
            UniversalCopy::<128>::emit_load_predicated(k, p, &ch.regs, &src).map_err(atom_error)?;
        }
        Ok(())
    }

    /// Loads the thread's chunks of any tile (where `p_next` holds; else
    /// zeros) element by element: each element inside M/N and K, zeros
    /// elsewhere. The residue tile and cut chunks take this path.
    pub(super) fn load_general(
        &self,
        k: &mut Kernel,
        c: &CopyState,
        kload: Reg,
        p_next: Reg,
        _k_extent: Reg,
    ) -> Result<(), PtxError> {
        let (lim, kl) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        let (p, q) = (k.reg(RegClass::Pred), k.reg(RegClass::Pred));
        let halves = k.regs(RegClass::B16, CHUNK as usize);
        let esize = c.smem.element_bytes;
        k.push(format!("sub.s32 {kl}, {}, {kload};", c.k_left));
        for ch in &c.chunks {
            // lim: elements of the chunk inside every edge, 0..8.
            match c.smem.major {
                OperandMajor::K => {
                    k.push(format!("sub.s32 {lim}, {kl}, {};", ch.col));
                    k.push(format!(
                        "setp.gt.and.s32 {p}, {}, {}, {p_next};",
                        c.mn_left, ch.row
                    ));
                }
                OperandMajor::MN => {
                    k.push(format!("sub.s32 {lim}, {}, {};", c.mn_left, ch.col));
                    k.push(format!("setp.gt.and.s32 {p}, {kl}, {}, {p_next};", ch.row));
                }
            }
            k.push(format!("min.s32 {lim}, {lim}, {CHUNK};"));
            k.push(format!("selp.b32 {lim}, {lim}, 0, {p};"));
            let src = self.chunk_source(k, c, ch, kload);
            for (e, h) in halves.iter().enumerate() {
                k.push(format!("mov.b16 {h}, 0;"));
                k.push(format!("setp.gt.s32 {q}, {lim}, {e};"));
                UniversalCopy::<16>::emit_load_predicated_typed(
                    k,
                    CopyValue::B16,
                    q,
                    &[*h],
                    &format!("{src}+{}", e as u32 * esize),
                )
                .map_err(atom_error)?;
            }
            for (j, r) in ch.regs.iter().enumerate() {
                k.push(format!(
                    "mov.b32 {r}, {{{}, {}}};",
                    halves[2 * j],
                    halves[2 * j + 1]
                ));
            }
        }
        Ok(())
    }

    /// Stores the thread's staging registers into the stage at byte
    /// offset `stage` (one 128-bit store per chunk).
    pub(super) fn store_stage(
        &self,
        k: &mut Kernel,
        c: &CopyState,
        _smem: Reg,
        stage: u32,
    ) -> Result<(), PtxError> {
        for ch in &c.chunks {
            UniversalCopy::<128>::emit_store(
                k,
                MemorySpace::Shared,
                &format!("{}+{stage}", ch.dst),
                &ch.regs,
            )
            .map_err(atom_error)?;
        }
        Ok(())
    }
}
