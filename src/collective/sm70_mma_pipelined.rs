//! [`Sm70MmaPipelined`]: the Volta mainloop (CUTLASS's
//! `MainloopSm70TwoStage` / `MmaPipelined`). Volta has no `cp.async`: each
//! k-tile goes global -> registers (128-bit `ld.global`) -> shared (128-bit
//! `st.shared`) into one of two swizzled stages, and the quad pairs'
//! fragments come from shared memory by 64- and 128-bit `ld.shared` into
//! `mma.sync.m8n8k4`.
//!
//! Per k-tile `t` (of `ceil(K/BK)`), the body runs `BK / 8` k-groups of two
//! k-steps each. At k-group 0 every thread issues the global loads of tile
//! `t + 1` into its staging registers, so they are in flight during the
//! tile's MMAs; at the last k-group it stores them into the other stage,
//! `bar.sync`, and loads the next tile's first fragments from there. The
//! fragments of k-group `g + 1` are loaded before the MMAs of `g` (two
//! register buffers). One barrier a tile: a stage is rewritten only after
//! every thread passed the barrier that ended its last reads. The body
//! exists twice, once per stage, so stage offsets are immediates.
//!
//! Tiles are loaded residue first, as the SM80 mainloop does: the partial
//! K tile (K % BK != 0) in the prologue through the general path (element
//! loads, zeros past every edge), then the whole tiles from k = 0, whose
//! loads are 16-byte vectors predicated on the M/N edge only (a thread of
//! an MN-major operand whose chunk the edge cuts takes the general path,
//! placed after the loop). Elements past M or N are zeros, as `cp.async`'s
//! zero-fill leaves them on SM80.
//!
//! Shared layouts: the SM80 swizzled tiles ([`OperandSmem`]); the tiled
//! MMA's permutation ([`Sm70MmaPipelined::tiled_mma`]) places the quad
//! pairs so that every store and fragment load of every major is free of
//! bank conflicts ([`Sm70MmaPipelined::shared_accesses`], checked by the
//! tests).
//!
//! Files: this one holds the loop; `g2r.rs` the global -> register ->
//! shared copies, `s2r_mma.rs` the fragment loads and MMAs, `mappings.rs`
//! the layouts, `contract.rs` the [`Mainloop`](super::Mainloop) impl.

mod contract;
mod g2r;
mod mappings;
mod s2r_mma;

pub(crate) use mappings::tiled_mma_of;
pub use mappings::SharedAccess;

use super::pointer_operands::{accumulator_layout, emit_zeroed_accumulators};
use super::sm80_mma_multistage::atom_error;
use super::{Accumulators, MainloopInputs, MainloopSpec, OperandSmem, TileContext};
use crate::atom::MmaAtom;
use crate::layout::Layout;
use crate::ptx::{Kernel, PtxError, RegClass};
use crate::tiled::Operand;

/// Shared-memory stages of the SM70 mainloop: one read while the next is
/// written.
pub const SM70_STAGES: u32 = 2;

/// The SM70 two-stage mainloop of one kernel.
#[derive(Clone, Debug)]
pub struct Sm70MmaPipelined {
    spec: TileContext,
    mma: MmaAtom,
    a: OperandSmem,
    b: OperandSmem,
}

impl Sm70MmaPipelined {
    /// The mainloop of a kernel with context `ctx`; `None` unless the
    /// element types have an SM70 atom (f16 inputs, f32 or f16
    /// accumulators).
    pub fn new(ctx: &TileContext, _spec: &MainloopSpec) -> Option<Self> {
        let mma = mappings::sm70_atom(ctx)?;
        let threads = ctx.block_threads();
        let operand = |major, extent, element: crate::numeric::ElementType| OperandSmem {
            major,
            extent,
            bk: ctx.tile[2],
            element_bytes: element.size_bytes(),
            threads,
        };
        Some(Sm70MmaPipelined {
            spec: *ctx,
            mma,
            a: operand(ctx.majors.a, ctx.tile[0], ctx.types.a),
            b: operand(ctx.majors.b, ctx.tile[1], ctx.types.b),
        })
    }

    /// What the mainloop shares with the kernel's other collectives.
    pub fn context(&self) -> TileContext {
        self.spec
    }

    /// The MMA atom.
    pub fn atom(&self) -> MmaAtom {
        self.mma
    }

    /// Bytes of one stage: the A tile, then the B tile, each padded to the
    /// 1024-byte swizzle period.
    pub fn stage_bytes(&self) -> u32 {
        self.a.stage_bytes() + self.b.stage_bytes()
    }

    /// The A tile of one stage.
    pub fn a_smem(&self) -> OperandSmem {
        self.a
    }

    /// The B tile of one stage (placed after A in each stage).
    pub fn b_smem(&self) -> OperandSmem {
        self.b
    }

    /// k-groups of a tile: two k-steps of the atom's K (4) each.
    pub fn k_groups(&self) -> u32 {
        self.spec.tile[2] / 8
    }

    /// The accumulators' layout: the tiled MMA's C fragment of the CTA tile,
    /// `(FrgV, RestM, RestN)`, to value slots with an atom's values
    /// contiguous, then N, then M.
    pub fn accumulator_layout(&self) -> crate::Result<Layout> {
        accumulator_layout(&self.tiled_mma()?, self.spec.tile)
    }

    /// Emits the mainloop and returns the accumulators: the tiled MMA's C
    /// fragment, as [`accumulator_layout`](Self::accumulator_layout) lays it
    /// out.
    pub fn emit(&self, k: &mut Kernel, inp: &MainloopInputs) -> Result<Accumulators, PtxError> {
        let acc = emit_zeroed_accumulators(k, self.mma, self.accumulator_layout())?;
        let stage_bytes = self.stage_bytes();
        let bk = self.spec.tile[2];
        let ca = self.copy_setup(k, inp, Operand::A, inp.a_tile, inp.lda_bytes, inp.m_rem, 0)?;
        let cb = self.copy_setup(
            k,
            inp,
            Operand::B,
            inp.b_tile,
            inp.ldb_bytes,
            inp.n_rem,
            self.a.stage_bytes(),
        )?;
        let mut fa = self.frag_setup(k, Operand::A, inp, 0)?;
        let mut fb = self.frag_setup(k, Operand::B, inp, self.a.stage_bytes())?;
        let cut = match (self.cut_predicate(k, &ca), self.cut_predicate(k, &cb)) {
            (Some(p), Some(q)) => {
                k.push(format!("or.pred {p}, {p}, {q};"));
                Some(p)
            }
            (p, q) => p.or(q),
        };

        let (tiles, kload, left, t) = (
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
        );
        let (p, p_next) = (k.reg(RegClass::Pred), k.reg(RegClass::Pred));
        k.push(format!("add.u32 {tiles}, {}, {};", inp.k, bk - 1));
        k.div_u32_by(tiles, tiles, bk);
        // Load order: the K-residue tile (K % BK != 0) first, then the
        // whole tiles from k = 0.
        k.div_u32_by(kload, inp.k, bk);
        k.push(format!("mul.lo.u32 {kload}, {kload}, {bk};"));
        k.push(format!("setp.eq.u32 {p}, {kload}, {};", inp.k));
        k.push(format!("@{p} mov.u32 {kload}, 0;"));
        k.mov(left, tiles);
        let advance = |k: &mut Kernel| {
            // Next tile: k + BK, or 0 after the residue tile.
            k.push(format!("add.u32 {kload}, {kload}, {bk};"));
            k.push(format!("setp.gt.s32 {p}, {kload}, {};", inp.k));
            k.push(format!("@{p} mov.u32 {kload}, 0;"));
            k.push(format!("sub.s32 {left}, {left}, 1;"));
        };

        // Prologue: the first tile through the general path into stage 0.
        k.push(format!("setp.gt.s32 {p_next}, {left}, 0;"));
        for c in [&ca, &cb] {
            self.load_general(k, c, kload, p_next, inp.k)?;
        }
        for c in [&ca, &cb] {
            self.store_stage(k, c, inp.smem, 0)?;
        }
        advance(k);
        k.push("bar.sync 0;");
        self.load_frags(k, &mut fa, 0, 0, 0)?;
        self.load_frags(k, &mut fb, 0, 0, 0)?;

        // The loop: the body once per stage; tile t reads stage t % 2.
        let groups = self.k_groups();
        k.mov(t, 0);
        let (top, done) = (k.new_label("mainloop")?, k.new_label("mainloop_done")?);
        k.place_label(&top);
        let mut general_paths = Vec::new();
        for half in 0..SM70_STAGES {
            let (read, write) = (half * stage_bytes, (1 - half) * stage_bytes);
            k.push(format!("setp.ge.s32 {p}, {t}, {tiles};"));
            k.push(format!("@{p} bra {done};"));
            k.push(format!("setp.gt.s32 {p_next}, {left}, 0;"));
            for g in 0..groups {
                let step = half * groups + g;
                if g == 0 {
                    // The next tile's global loads, in flight during this
                    // tile's MMAs.
                    let loaded = k.new_label("mainloop_loaded")?;
                    if let Some(cut) = cut {
                        let general = k.new_label("mainloop_general_load")?;
                        k.push(format!("@{cut} bra {general};"));
                        general_paths.push((general, loaded.clone()));
                    }
                    for c in [&ca, &cb] {
                        self.load_fast(k, c, kload, p_next)?;
                    }
                    k.place_label(&loaded);
                    advance(k);
                }
                let (next_g, next_stage) = if g == groups - 1 {
                    // This tile's fragments are all loaded: the next tile
                    // into the other stage, then its first fragments.
                    for c in [&ca, &cb] {
                        self.store_stage(k, c, inp.smem, write)?;
                    }
                    k.push("bar.sync 0;");
                    (0, write)
                } else {
                    (g + 1, read)
                };
                let buf = ((step + 1) % 2) as usize;
                self.load_frags(k, &mut fa, next_g, buf, next_stage)?;
                self.load_frags(k, &mut fb, next_g, buf, next_stage)?;
                self.mmas(k, &acc, &fa, &fb, (step % 2) as usize)?;
            }
            k.push(format!("add.s32 {t}, {t}, 1;"));
        }
        k.push(format!("bra {top};"));
        for (general, loaded) in &general_paths {
            k.place_label(general);
            for c in [&ca, &cb] {
                self.load_general(k, c, kload, p_next, inp.k)?;
            }
            k.push(format!("bra {loaded};"));
        }
        k.place_label(&done);
        // The epilogue may reuse the stages once every thread is done.
        k.push("bar.sync 0;");
        Ok(acc)
    }
}
