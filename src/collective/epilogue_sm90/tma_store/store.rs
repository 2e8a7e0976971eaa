//! The TMA-store epilogue's store of one tile: each 32-column subtile
//! through the fusion expression into a shared-memory buffer, then one
//! thread's TMA store of it, two buffers in turn; and the kernel's end,
//! which waits for the last stores.

use super::super::{acc_value, emit_for_source};
use super::fusion::{ElementAt, TmaC, VectorPlace};
use super::matrix_copy::{MatrixCopy, MatrixInstruction};
use super::stmatrix::Staging;
use super::{
    atom_error, CLoad, EpilogueSm90TmaStore, Sm90TmaEpilogueInputs, VectorReads, WarpgroupOrigin,
    SUBTILE_N,
};
use crate::collective::Sm90TiledMma;
use crate::gemm::OutputMajor;
use crate::pipeline::{PipelineTmaStore, StoreAcquire};
use crate::ptx::{Kernel, PtxError, Reg, RegClass};
use crate::tiled::RegisterTensor;
use std::collections::HashMap;

impl EpilogueSm90TmaStore {
    /// Emits the store of one tile's accumulators; `smem` is this kernel's
    /// epilogue region (two buffers per consumer warpgroup).
    pub(crate) fn emit(
        &self,
        k: &mut Kernel,
        io: &Sm90TmaEpilogueInputs,
        acc: &RegisterTensor,
    ) -> Result<(), PtxError> {
        let types = self.spec.types;
        let major = self.spec.majors.d;
        let mma = self.tiled_mma(acc)?;
        let frame = self.emit_frame(k, io, &mma)?;
        let frame_ref = &frame;
        let TileFrame {
            ring,
            origin,
            buffers,
            barrier,
            rows,
            staging,
            matrices,
            ..
        } = &frame;
        let (t, wg, wg_row0, issuer) = (origin.thread, origin.wg, origin.row0, origin.issuer);
        let (buffers, barrier) = (*buffers, *barrier);
        let cols = mma.col_offsets();
        let n = self.spec.tile[1];
        // A subtile's buffer is free once the store that read it last has
        // (the ring's acquire), and the warpgroup learns it at its barrier.
        let wait = |k: &mut Kernel| -> Result<(), PtxError> {
            ring.producer_acquire(k).map_err(atom_error)?;
            k.push(format!("bar.sync {barrier}, 128;"));
            Ok(())
        };
        let tail = match major {
            OutputMajor::N => Some(self.emit_tail_setup(k, io, t, wg_row0)),
            OutputMajor::M => None,
        };
        let n_chunks = n / SUBTILE_N;
        let early = k.new_label("epi_early_end")?;
        // C loaded with TMA: the warpgroup's two barriers.
        let c_bars = io
            .c_load
            .map(|_| [0, 1].map(|b| self.c_barrier(k, io.smem, wg, b)));
        // The vector values held for the whole store ([`VectorReads`]:
        // scalars, rows, the tile's or the first subtile's columns), read
        // in the prologue or here; other columns are read a subtile ahead.
        let held = match self.vector_reads {
            VectorReads::Prologue { .. } => io.held.clone(),
            VectorReads::Store { .. } => self.emit_vector_reads(k, &io.base)?,
        };
        let held = &held;
        let cols_of = |chunk: u32| -> Vec<u32> {
            cols.iter()
                .copied()
                .filter(|c| c / SUBTILE_N == chunk)
                .collect()
        };
        let chunks = |k: &mut Kernel, with_c: bool, zero: Reg| -> Result<(), PtxError> {
            let tma_c = io.c_load.filter(|_| with_c);
            let in_d = tma_c.is_some() && !self.own_c_buffers();
            if let (Some(c), true) = (&tma_c, in_d) {
                // C in D's buffers: the tile's first two subtiles, once
                // every store has read the buffers and every thread of the
                // warpgroup has left the previous tile (its tail columns
                // read them).
                ring.producer_drain(k).map_err(atom_error)?;
                k.push(format!("bar.sync {barrier}, 128;"));
                let skip = k.new_label("epi_c_first")?;
                k.push(format!("@!{issuer} bra {};", skip.name()));
                for chunk in 0..n_chunks.min(2) {
                    self.emit_c_load(k, io, c, origin, chunk)?;
                }
                k.place_label(&skip);
            }
            let mut ahead = HashMap::new();
            for chunk in 0..n_chunks {
                let buffer = (chunk % 2) * self.buffer_bytes();
                // The buffer is free once its previous store has read it.
                wait(k)?;
                if let (Some(c), Some(bars)) = (&tma_c, &c_bars) {
                    // C's subtile has landed in its buffer.
                    let b = (chunk % 2) as usize;
                    k.snippet(
                        "sm90/mbarrier",
                        "mbarrier_wait_parity",
                        &[("bar", &bars[b]), ("phase", &c.phases[b])],
                    )?;
                    k.push(format!("xor.b32 {0}, {0}, 1;", c.phases[b]));
                }
                // The subtile's columns, in pairs; the matrix copies whose
                // windows lie in it, and which of them are staged (or, for
                // C, read) yet.
                let chunk_cols = cols_of(chunk);
                let copies: Vec<&MatrixInstruction> = matrices
                    .iter()
                    .flat_map(|copy| copy.instructions())
                    .filter(|i| i.origin[1] / SUBTILE_N == chunk)
                    .collect();
                let mut staged = vec![false; copies.len()];
                let mut c_read = vec![false; copies.len()];
                // 16-bit D: the packed word of each value pair, by its
                // first value; C loaded with TMA: each value's C word and half.
                let mut words: HashMap<i64, Reg> = HashMap::new();
                let mut c_words: HashMap<i64, (Reg, u32)> = HashMap::new();
                // The bias and scale values the subtile reads.
                let mut vectors: HashMap<(usize, u32), Reg> = held.clone();
                vectors.extend(std::mem::take(&mut ahead));
                for (ri, &row_off) in rows.iter().enumerate() {
                    if tma_c.is_some() && self.stores_matrices() {
                        for (ci, copy) in copies.iter().enumerate() {
                            let window = copy.origin[0]..copy.origin[0] + 16;
                            if c_read[ci] || !window.contains(&row_off) {
                                continue;
                            }
                            let regs = self.emit_c_matrices(k, staging, copy, buffer)?;
                            for (reg, pair) in regs.iter().zip(&copy.values) {
                                c_words.insert(pair[0], (*reg, 0));
                                c_words.insert(pair[1], (*reg, 1));
                            }
                            c_read[ci] = true;
                        }
                    }
                    for pair in chunk_cols.chunks(2) {
                        let place = [row_off, pair[0]];
                        let mut values = Vec::new();
                        // f32 C loaded with TMA: the thread's two values,
                        // where `stage` writes D's.
                        let c_pair = match tma_c {
                            Some(_) if !self.stores_matrices() => {
                                Some(self.load_c_pair(k, staging, place, buffer)?)
                            }
                            _ => None,
                        };
                        let mut first = None;
                        for (e, &col_off) in pair.iter().enumerate() {
                            let v = mma.held_value(row_off, col_off).map_err(atom_error)?;
                            first.get_or_insert(v);
                            let a = acc_value(k, types, acc, v);
                            let tma = tma_c.map(|_| match (c_words.get(&v), c_pair) {
                                (Some(&(word, half)), _) => TmaC::Half(word, half),
                                (None, Some(pair)) => TmaC::Value(pair[e]),
                                (None, None) => TmaC::Zero,
                            });
                            let at = ElementAt {
                                row: ri,
                                row_off,
                                col_off,
                            };
                            values.push(self.emit_element(
                                k,
                                io,
                                frame_ref,
                                at,
                                a,
                                tma,
                                with_c,
                                zero,
                                &mut vectors,
                            )?);
                        }
                        if self.stores_matrices() {
                            if let Some(v) = first {
                                words.insert(v, self.pack(k, &values));
                            }
                        } else {
                            self.stage(k, staging, place, buffer, &values)?;
                        }
                    }
                    // Every copy whose registers are all packed now.
                    for (ci, copy) in copies.iter().enumerate() {
                        let regs: Option<Vec<Reg>> = copy
                            .values
                            .iter()
                            .map(|p| words.get(&p[0]).copied())
                            .collect();
                        if let (false, Some(regs)) = (staged[ci], regs) {
                            let regs = [regs[0], regs[1], regs[2], regs[3]];
                            self.emit_matrices(k, staging, copy, buffer, &regs)?;
                            staged[ci] = true;
                        }
                    }
                }
                if staged.iter().any(|s| !s) {
                    return Err(atom_error(crate::Error::invalid_argument(
                        "subtile",
                        chunk,
                        "every matrix copy's values in the subtile's rows and columns",
                    )));
                }
                if chunk + 1 < n_chunks {
                    ahead =
                        self.emit_column_vectors(k, io, &frame_ref.place, &cols_of(chunk + 1))?;
                }
                self.emit_subtile_store(
                    k,
                    io,
                    &frame,
                    SubtileStore {
                        chunk,
                        buffer,
                        n_chunks,
                        next_c: tma_c.as_ref().map(|c| (c, in_d)),
                    },
                    &early,
                )?;
            }
            Ok(())
        };
        emit_for_source(k, self.source, io.base.beta, chunks)?;
        // The next tile's first subtile takes buffer 0 after waiting for
        // all but the newest store: after an odd number of subtiles (only
        // where the tile has an odd number: the early end comes after an
        // even number) that newest store reads buffer 0, so wait for every
        // store here.
        if n_chunks % 2 == 1 {
            ring.producer_drain(k).map_err(atom_error)?;
        }
        k.place_label(&early);
        if let Some(tail) = &tail {
            self.emit_tail_columns(k, io, tail, t, buffers)?;
        }
        Ok(())
    }

    /// Emits the store of one staged subtile: the buffer's writes made
    /// visible to TMA, one thread's TMA store of it; where C is loaded with
    /// TMA, the load of C's subtile two ahead into the buffer just read
    /// (into D's buffer once this store has read it); after every second
    /// subtile, the branch to `early` where no later column is in the
    /// problem (the last subtile that holds one is then the last or the
    /// one before, both still in their buffers).
    fn emit_subtile_store(
        &self,
        k: &mut Kernel,
        io: &Sm90TmaEpilogueInputs,
        frame: &TileFrame,
        store: SubtileStore<'_>,
        early: &crate::ptx::Label,
    ) -> Result<(), PtxError> {
        let SubtileStore {
            chunk,
            buffer,
            n_chunks,
            next_c,
        } = store;
        let (barrier, buffers, origin) = (frame.barrier, frame.buffers, &frame.origin);
        let ring = &frame.ring;
        ring.producer_fence(k).map_err(atom_error)?;
        k.push(format!("bar.sync {barrier}, 128;"));
        let skip = k.new_label("epi_store")?;
        k.push(format!("@!{} bra {};", origin.issuer, skip.name()));
        let src = k.reg(RegClass::B32);
        k.push(format!("add.u32 {src}, {buffers}, {buffer};"));
        self.emit_subtile_boxes(k, io, origin.row0, chunk, src, |k, at, coords| {
            ring.issue_tma_store(k, io.d_map, coords, at)
                .map_err(atom_error)
        })?;
        ring.producer_commit(k).map_err(atom_error)?;
        // C's buffer is read (the barrier above): its next subtile, where
        // the tile still has it (the early end's test).
        if let (Some((c, in_d)), true) = (next_c, chunk + 2 < n_chunks) {
            let q = k.reg(RegClass::Pred);
            k.push(format!(
                "setp.gt.s32 {q}, {}, {};",
                io.base.n_rem,
                ((chunk + 2) & !1) * SUBTILE_N
            ));
            k.push(format!("@!{q} bra {};", skip.name()));
            if in_d {
                ring.reads_done(k).map_err(atom_error)?;
            }
            self.emit_c_load(k, io, c, origin, chunk + 2)?;
        }
        k.place_label(&skip);
        if chunk % 2 == 1 && chunk + 1 < n_chunks {
            let q = k.reg(RegClass::Pred);
            k.push(format!(
                "setp.le.s32 {q}, {}, {};",
                io.base.n_rem,
                (chunk + 1) * SUBTILE_N
            ));
            k.push(format!("@{q} bra {};", early.name()));
        }
        Ok(())
    }

    /// Emits what every subtile of a tile reads: the thread's place in
    /// its warpgroup and the tile (the wgmma accumulator's rows and column
    /// pair), the warpgroup's buffers and named barrier, the predicates of
    /// its rows, C's row pointers (row-major C read from global memory) and
    /// the shared addresses it stages D's values at.
    fn emit_frame(
        &self,
        k: &mut Kernel,
        io: &Sm90TmaEpilogueInputs,
        mma: &Sm90TiledMma,
    ) -> Result<TileFrame, PtxError> {
        let types = self.spec.types;
        let major = self.spec.majors.d;
        let csize = types.c.size_bytes();
        let r32 = |k: &mut Kernel| k.reg(RegClass::B32);
        let origin = self.emit_origin(k, io.base.tid);
        let (t, wg, wg_row0) = (origin.thread, origin.wg, origin.row0);
        // The thread's first row in its band (`local`, the tiled MMA's
        // thread layout at its place in warpgroup 0) and in the tile, and
        // its first column.
        let (local, col0) = mma.emit_origin(k, t).map_err(atom_error)?;
        let row0 = r32(k);
        k.push(format!("add.u32 {row0}, {local}, {wg_row0};"));
        // This warpgroup's two buffers; its named barrier (1 + warpgroup).
        let buffers = r32(k);
        k.push(format!(
            "mad.lo.u32 {buffers}, {wg}, {}, {};",
            2 * self.buffer_bytes(),
            io.smem
        ));
        let barrier = r32(k);
        k.push(format!("add.u32 {barrier}, {wg}, 1;"));
        let (m_left, n_left) = (r32(k), r32(k));
        k.push(format!("sub.s32 {m_left}, {}, {row0};", io.base.m_rem));
        k.push(format!("sub.s32 {n_left}, {}, {col0};", io.base.n_rem));
        let place = VectorPlace {
            row0,
            col0,
            m_left,
            n_left,
        };
        // C's address of the thread's first element.
        let c_base = {
            let addr = k.reg(RegClass::B64);
            let wide = k.reg(RegClass::B64);
            let (outer, inner) = match major {
                OutputMajor::N => (row0, col0),
                OutputMajor::M => (col0, row0),
            };
            k.push(format!("cvt.u64.u32 {wide}, {outer};"));
            k.push(format!(
                "mad.lo.u64 {addr}, {wide}, {}, {};",
                io.base.ldc_bytes, io.base.c_tile
            ));
            k.push(format!("mad.wide.u32 {addr}, {inner}, {csize}, {addr};"));
            addr
        };
        // The row offsets of the thread's values; columns come in pairs.
        let rows = mma.row_offsets();
        let cols = mma.col_offsets();
        if cols.chunks(2).any(|p| p.len() != 2 || p[1] != p[0] + 1) {
            return Err(atom_error(crate::Error::invalid_argument(
                "accumulator columns",
                format!("{cols:?}"),
                "pairs of adjacent columns",
            )));
        }
        let row_ok: Vec<Reg> = rows
            .iter()
            .map(|&o| {
                let p = k.reg(RegClass::Pred);
                k.push(format!("setp.gt.s32 {p}, {m_left}, {o};"));
                p
            })
            .collect();
        // Row-major: C's row pointers, one per row offset.
        let c_rows: Vec<Reg> = if major == OutputMajor::N {
            rows.iter()
                .map(|&o| {
                    let ptr = k.reg(RegClass::B64);
                    let wide = k.reg(RegClass::B64);
                    k.push(format!("cvt.u64.u32 {wide}, {o};"));
                    k.push(format!(
                        "mad.lo.u64 {ptr}, {wide}, {}, {c_base};",
                        io.base.ldc_bytes
                    ));
                    ptr
                })
                .collect()
        } else {
            Vec::new()
        };
        // The shared addresses the thread stages at: 16-bit D, the matrix
        // copies' lane rows at each copy's origin; f32 D, its own values'
        // places (the first of each pair, row-major; each, column-major).
        let (staging, matrices) = if self.stores_matrices() {
            // C's `ldmatrix` reads back what D's `stmatrix` writes: the
            // same instructions and lanes.
            let store = self.matrix_copy(mma, true)?;
            if self.loads_c() && self.matrix_copy(mma, false)? != store {
                return Err(atom_error(crate::Error::invalid_argument(
                    "ldmatrix copy of C",
                    format!("{:?}", self.spec.majors.d),
                    "the instructions and lanes of D's stmatrix copy",
                )));
            }
            let place = self.emit_lane_place(k, mma, &store, t)?;
            let origins: Vec<[u32; 2]> = store.instructions().iter().map(|i| i.origin).collect();
            let staging = self.emit_staging(k, buffers, place, &origins)?;
            (staging, Some(store))
        } else {
            let places: Vec<[u32; 2]> = (0..mma.values())
                .map(|v| [mma.row_of(v), mma.col_of(v)])
                .filter(|p| major == OutputMajor::M || p[1] % 2 == 0)
                .collect();
            (self.emit_staging(k, buffers, (local, col0), &places)?, None)
        };
        let ring = self.store_ring(origin.issuer)?;
        Ok(TileFrame {
            ring,
            origin,
            buffers,
            barrier,
            c_base,
            place,
            rows,
            row_ok,
            c_rows,
            staging,
            matrices,
        })
    }

    /// The warpgroup's ring of D's two subtile buffers
    /// ([`PipelineTmaStore`]): the stores of a subtile form one bulk group
    /// of the issuing thread (`issuer`), and a buffer is acquired before
    /// its writes, once at most one newer group still reads (CUTLASS's
    /// placement, [`StoreAcquire::BeforeWrites`]).
    fn store_ring(&self, issuer: Reg) -> Result<PipelineTmaStore, PtxError> {
        PipelineTmaStore::new(2, StoreAcquire::BeforeWrites, issuer, "epi").map_err(atom_error)
    }

    /// Emits the kernel's end for the issuing thread: every TMA store of
    /// D complete before the block exits.
    pub(crate) fn emit_tail(&self, k: &mut Kernel, tid: Reg) -> Result<(), PtxError> {
        let issuer = k.reg(RegClass::Pred);
        let t = k.reg(RegClass::B32);
        k.push(format!("and.b32 {t}, {tid}, 127;"));
        k.push(format!("setp.eq.u32 {issuer}, {t}, 0;"));
        self.store_ring(issuer)?
            .producer_tail(k)
            .map_err(atom_error)
    }
}

/// The registers [`EpilogueSm90TmaStore::emit_frame`] leaves for a tile's
/// subtiles.
pub(super) struct TileFrame {
    /// The warpgroup's ring of D's two subtile buffers.
    pub(super) ring: PipelineTmaStore,
    /// The warpgroup's place in the tile.
    pub(super) origin: WarpgroupOrigin,
    /// The warpgroup's two subtile buffers (shared address) and its named
    /// barrier (`.b32`).
    pub(super) buffers: Reg,
    pub(super) barrier: Reg,
    /// C's address of the thread's first element (`.b64`).
    pub(super) c_base: Reg,
    /// The thread's place for the reads of bias and scale vectors.
    pub(super) place: VectorPlace,
    /// The row offsets of the thread's values, ascending.
    pub(super) rows: Vec<u32>,
    /// Per row: whether it is in the problem (`.pred`).
    pub(super) row_ok: Vec<Reg>,
    /// Row-major C: per row, C's row pointer (`.b64`).
    pub(super) c_rows: Vec<Reg>,
    /// The shared addresses the thread stages D at (and reads C back from).
    pub(super) staging: Staging,
    /// 16-bit D: the tiled MMA's matrix copies (`stmatrix` of D; C's
    /// `ldmatrix` the same instructions).
    pub(super) matrices: Option<MatrixCopy>,
}

/// Which subtile [`EpilogueSm90TmaStore::emit_subtile_store`] stores: its
/// index, its buffer's offset, the tile's subtiles, and where C is loaded
/// with TMA, C's load and whether it lands in D's buffers.
struct SubtileStore<'c> {
    chunk: u32,
    buffer: u32,
    n_chunks: u32,
    next_c: Option<(&'c CLoad, bool)>,
}
