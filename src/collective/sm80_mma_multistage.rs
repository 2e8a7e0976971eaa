//! [`Sm80MmaMultistage`]: the SM80 multistage mainloop (CUTLASS's
//! `MainloopSm80CpAsync`): `cp.async` 16-byte copies into swizzled shared
//! memory `stages` deep, `ldmatrix` x4 (x2 for a warp tile 8 wide) into
//! double-buffered fragments, `mma.sync` on a warp tile.
//!
//! Per k-tile `t` (of `ceil(K/BK)`), every thread runs `BK / atom K` k-steps;
//! at k-step 0 it issues the copies of tile `t + stages - 1`, at the last
//! k-step it waits for tile `t + 1` (`cp.async.wait_group stages-2`,
//! `bar.sync`) and loads its first fragments, so the tensor cores always
//! have the next k-step's operands. The loop body exists once (twice, for
//! two tiles, when a tile is one k-step: the fragment buffers alternate per
//! k-step, so an odd count would hand the next tile the wrong buffer; with
//! one k-step the copies are issued before the wait, too).
//!
//! Tiles are copied residue first (CUTLASS's k-residue idea, kept aligned):
//! when K % BK != 0 the partial last tile is copied first, in the prologue,
//! then the whole tiles from k = 0; the sum does not depend on the order. So
//! the prologue (a loop over `stages - 1` tiles) takes the general copy path
//! (K predicate, zero-fill, chunks cut by an edge) and every copy of the
//! mainloop is of a whole tile (M/N row predicates only, none past the last
//! tile): for K-major A and B the body is one basic block. Threads of an
//! MN-major operand whose chunk the M/N edge cuts branch at the top of the
//! body to the general path, placed after the loop.

//!
//! Files: this one holds the mainloop (prologue, the loop) over the
//! [`PipelineCpAsync`] ring of stages;
//! `g2s.rs` the `cp.async` copies, `s2r_mma.rs` the `ldmatrix` loads and
//! the MMAs, each instruction emitted through its atom in [`crate::atom`].

mod contract;
mod g2s;
mod mappings;
mod s2r_mma;

pub use mappings::G2sMapping;
pub(super) use mappings::{g2s_mapping, tiled_mma_of};

use super::pointer_operands::{accumulator_layout, emit_zeroed_accumulators};
use super::{MainloopSpec, OperandSmem, TileContext};
use crate::atom::MmaAtom;
use crate::layout::Layout;
use crate::pipeline::{Pipeline, PipelineCpAsync};
use crate::ptx::{Kernel, PtxError, Reg, RegClass};
use crate::tiled::{Operand, RegisterTensor};

/// An atom's emission error as the kernel generator's error.
pub(super) fn atom_error(e: crate::Error) -> PtxError {
    match e {
        crate::Error::Ptx(e) => e,
        other => PtxError::UnsupportedSpec {
            kernel: "gemm",
            name: String::new(),
            reason: other.to_string(),
        },
    }
}

/// Registers the kernel hands to the mainloop.
#[derive(Clone, Copy, Debug)]
pub struct MainloopInputs {
    /// `%tid.x` (`.b32`).
    pub tid: Reg,
    /// Shared-window address of the dynamic shared memory (`.b32`).
    pub smem: Reg,
    /// Global address of A's element (m0, 0) of this tile's batch (`.b64`).
    pub a_tile: Reg,
    /// Global address of B's element (n0, 0) of this tile's batch (`.b64`).
    pub b_tile: Reg,
    /// A valid global address of A, read (zero bytes) by zero-filling copies.
    pub a_safe: Reg,
    /// A valid global address of B.
    pub b_safe: Reg,
    /// A's leading dimension in bytes (`.b64`).
    pub lda_bytes: Reg,
    /// B's leading dimension in bytes (`.b64`).
    pub ldb_bytes: Reg,
    /// `M - m0` (`.b32`, positive).
    pub m_rem: Reg,
    /// `N - n0` (`.b32`, positive).
    pub n_rem: Reg,
    /// K (`.b32`, positive).
    pub k: Reg,
}

/// The accumulators the mainloop hands the epilogue: the tiled MMA's C
/// fragment as a register tensor, laid out as
/// [`Sm80MmaMultistage::accumulator_layout`] says; the epilogue reads each
/// value through that layout.
pub type Accumulators = RegisterTensor;

/// The SM80 multistage mainloop of one kernel.
#[derive(Clone, Debug)]
pub struct Sm80MmaMultistage {
    spec: TileContext,
    stages: u32,
    mma: MmaAtom,
    a: OperandSmem,
    b: OperandSmem,
}

impl Sm80MmaMultistage {
    /// The mainloop of a kernel with context `ctx` and mainloop `spec`;
    /// `None` if the element types have no MMA.
    pub fn new(ctx: &TileContext, spec: &MainloopSpec) -> Option<Self> {
        let stages = spec.stages();
        let spec = ctx;
        let mma = MmaAtom::for_types(spec.types.a, spec.types.b, spec.types.acc)?;
        let threads = spec.block_threads();
        let operand = |major, extent, element: crate::numeric::ElementType| OperandSmem {
            major,
            extent,
            bk: spec.tile[2],
            element_bytes: element.size_bytes(),
            threads,
        };
        Some(Sm80MmaMultistage {
            spec: *spec,
            stages,
            mma,
            a: operand(spec.majors.a, spec.tile[0], spec.types.a),
            b: operand(spec.majors.b, spec.tile[1], spec.types.b),
        })
    }

    /// Bytes of one stage: the A tile, then the B tile, each padded to the
    /// 1024-byte swizzle period.
    pub fn stage_bytes(&self) -> u32 {
        self.a.stage_bytes() + self.b.stage_bytes()
    }

    /// What the mainloop shares with the kernel's other collectives.
    pub fn context(&self) -> TileContext {
        self.spec
    }

    /// The A tile of one stage.
    pub fn a_smem(&self) -> OperandSmem {
        self.a
    }

    /// The B tile of one stage (placed after A in each stage).
    pub fn b_smem(&self) -> OperandSmem {
        self.b
    }

    fn k_steps(&self) -> u32 {
        self.spec.tile[2] / self.mma.shape_mnk()[2] as u32
    }

    /// The accumulators' layout: the tiled MMA's C fragment of the CTA tile,
    /// `(FrgV, RestM, RestN)`, to value slots with the MMA tiles row by row
    /// (an atom's values contiguous, then N, then M), the order the MMAs
    /// walk them.
    pub fn accumulator_layout(&self) -> crate::Result<Layout> {
        accumulator_layout(&self.tiled_mma()?, self.spec.tile)
    }

    /// Emits the mainloop and returns the accumulators: the tiled MMA's C
    /// fragment, as [`accumulator_layout`](Self::accumulator_layout) lays it
    /// out, in the atom's accumulator registers.
    pub fn emit(&self, k: &mut Kernel, inp: &MainloopInputs) -> Result<Accumulators, PtxError> {
        let acc = emit_zeroed_accumulators(k, self.mma, self.accumulator_layout())?;

        let stages = self.stages;
        let stage_bytes = self.stage_bytes();
        let bk = self.spec.tile[2];
        let ca = self.copy_setup(
            k,
            inp,
            Operand::A,
            inp.a_tile,
            inp.lda_bytes,
            inp.m_rem,
            inp.a_safe,
            0,
        )?;
        let cb = self.copy_setup(
            k,
            inp,
            Operand::B,
            inp.b_tile,
            inp.ldb_bytes,
            inp.n_rem,
            inp.b_safe,
            self.a.stage_bytes(),
        )?;
        let cut_chunks: Vec<Reg> = [&ca, &cb]
            .into_iter()
            .filter_map(|c| self.cut_chunk_predicate(k, c))
            .collect();
        let mut fa = self.frag_setup(k, Operand::A, inp.tid, 0)?;
        let mut fb = self.frag_setup(k, Operand::B, inp.tid, self.a.stage_bytes())?;

        // The cp.async ring: this thread's read and write walks (stage
        // pointers, absolute shared-window addresses), then loop bounds.
        let ring = PipelineCpAsync::new(k, inp.smem, stages, stage_bytes).map_err(atom_error)?;
        let (read, write) = (ring.consumer_state(), ring.producer_state());
        let (stage_r, stage_w) = (read.stage, write.stage);
        let (tiles, kload, left, t) = (
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
        );
        let (p, p_valid) = (k.reg(RegClass::Pred), k.reg(RegClass::Pred));
        k.push(format!("add.u32 {tiles}, {}, {};", inp.k, bk - 1));
        k.div_u32_by(tiles, tiles, bk);
        // Copy order: the K-residue tile (K % BK != 0) first, then the whole
        // tiles from k = 0, so every copy of the loop is of a whole tile.
        k.div_u32_by(kload, inp.k, bk);
        k.push(format!("mul.lo.u32 {kload}, {kload}, {bk};"));
        k.push(format!("setp.eq.u32 {p}, {kload}, {};", inp.k));
        k.push(format!("@{p} mov.u32 {kload}, 0;"));
        k.mov(left, tiles);
        let after_copy = |k: &mut Kernel| -> Result<(), PtxError> {
            ring.producer_commit(k, &write).map_err(atom_error)?;
            ring.advance(k, &write).map_err(atom_error)?;
            // Next tile: k + BK, or 0 after the residue tile.
            k.push(format!("add.u32 {kload}, {kload}, {bk};"));
            k.push(format!("setp.gt.s32 {p}, {kload}, {};", inp.k));
            k.push(format!("@{p} mov.u32 {kload}, 0;"));
            k.push(format!("sub.s32 {left}, {left}, 1;"));
            Ok(())
        };

        // Prologue: tiles 0 .. stages-2 through the general path, as a loop.
        let (prologue, prologue_next) = (
            k.new_label("mainloop_prologue")?,
            k.new_label("mainloop_prologue_next")?,
        );
        k.mov(t, 0);
        k.place_label(&prologue);
        k.push(".pragma \"nounroll\";");
        k.push(format!("setp.gt.s32 {p_valid}, {left}, 0;"));
        k.push(format!("@!{p_valid} bra {prologue_next};"));
        ring.producer_acquire(k, &write).map_err(atom_error)?;
        for c in [&ca, &cb] {
            self.load_tile_general(k, c, stage_w, kload)?;
        }
        k.place_label(&prologue_next);
        after_copy(k)?;
        k.push(format!("add.u32 {t}, {t}, 1;"));
        k.push(format!("setp.lt.u32 {p}, {t}, {};", stages - 1));
        k.push(format!("@{p} bra {prologue};"));
        ring.consumer_wait(k, &read).map_err(atom_error)?;
        self.load_frags(k, &mut fa, 0, 0, stage_r)?;
        self.load_frags(k, &mut fb, 0, 0, stage_r)?;

        // The mainloop: one copy of the k-tile body, one basic block when
        // A and B are K-major. A thread whose MN-major chunk the M/N edge
        // cuts branches, at the top of the body, to the general copy path
        // placed after the loop.
        let cut = cut_chunks.split_first().map(|(first, rest)| {
            for other in rest {
                k.push(format!("or.pred {first}, {first}, {other};"));
            }
            *first
        });
        k.mov(t, 0);
        let (top, general, copied, done) = (
            k.new_label("mainloop")?,
            k.new_label("mainloop_general_copy")?,
            k.new_label("mainloop_copied")?,
            k.new_label("mainloop_done")?,
        );
        k.place_label(&top);
        k.push(format!("setp.ge.s32 {p}, {t}, {tiles};"));
        k.push(format!("@{p} bra {done};"));
        // Fragments alternate between two buffers k-step by k-step. With an
        // odd number of k-steps a tile (one: BK is the atom's K), the body
        // covers two tiles, so that every tile starts on the buffer its
        // first fragments were loaded into.
        let steps = self.k_steps();
        let halves = if steps % 2 == 1 { 2 } else { 1 };
        let mut general_copies = Vec::new();
        for half in 0..halves {
            let (general, copied) = if half == 0 {
                (general.clone(), copied.clone())
            } else {
                k.push(format!("add.s32 {t}, {t}, 1;"));
                k.push(format!("setp.ge.s32 {p}, {t}, {tiles};"));
                k.push(format!("@{p} bra {done};"));
                (
                    k.new_label("mainloop_general_copy")?,
                    k.new_label("mainloop_copied")?,
                )
            };
            k.push(format!("setp.gt.s32 {p_valid}, {left}, 0;"));
            if let Some(cut) = cut {
                k.push(format!("@{cut} bra {general};"));
                ring.producer_acquire(k, &write).map_err(atom_error)?;
                for c in [&ca, &cb] {
                    self.load_tile_fast(k, c, stage_w, kload, p_valid)?;
                }
                k.place_label(&copied);
                after_copy(k)?;
            }
            for kk in 0..steps {
                let step = half * steps + kk;
                // With one k-step a tile, the copies go first: the wait below
                // must see this tile's copy group committed.
                if kk == 0 && steps == 1 && cut.is_none() {
                    ring.producer_acquire(k, &write).map_err(atom_error)?;
                    for c in [&ca, &cb] {
                        self.load_tile_fast(k, c, stage_w, kload, p_valid)?;
                    }
                    after_copy(k)?;
                }
                if kk == steps - 1 {
                    // This tile's fragments are all loaded: release its
                    // stage, wait for the next tile's, read from there.
                    ring.consumer_release(k, &read).map_err(atom_error)?;
                    ring.consumer_wait(k, &read).map_err(atom_error)?;
                    ring.advance(k, &read).map_err(atom_error)?;
                }
                let next_kk = (kk + 1) % steps;
                let buf = ((step + 1) % 2) as usize;
                self.load_frags(k, &mut fa, next_kk, buf, stage_r)?;
                self.load_frags(k, &mut fb, next_kk, buf, stage_r)?;
                if kk == 0 && steps > 1 && cut.is_none() {
                    ring.producer_acquire(k, &write).map_err(atom_error)?;
                    for c in [&ca, &cb] {
                        self.load_tile_fast(k, c, stage_w, kload, p_valid)?;
                    }
                    after_copy(k)?;
                }
                self.mmas(k, &acc, &fa, &fb, (step % 2) as usize)?;
            }
            general_copies.push((general, copied));
        }
        k.push(format!("add.s32 {t}, {t}, 1;"));
        k.push(format!("bra {top};"));
        if cut.is_some() {
            for (general, copied) in &general_copies {
                k.place_label(general);
                k.push(format!("@!{p_valid} bra {copied};"));
                ring.producer_acquire(k, &write).map_err(atom_error)?;
                for c in [&ca, &cb] {
                    self.load_tile_general(k, c, stage_w, kload)?;
                }
                k.push(format!("bra {copied};"));
            }
        }
        k.place_label(&done);
        ring.drain(k).map_err(atom_error)?;
        Ok(acc)
    }
}
