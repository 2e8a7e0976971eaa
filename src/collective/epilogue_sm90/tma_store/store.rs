//! The TMA-store epilogue's store of one tile: each 32-column subtile
//! through the fusion expression into a shared-memory buffer, then one
//! thread's TMA store of it, two buffers in turn; and the kernel's end,
//! which waits for the last stores.

use super::super::emit_for_source;
use super::{
    atom_error, CLoad, EpilogueSm90TmaStore, Sm90TmaEpilogueInputs, WarpgroupOrigin, SUBTILE_N,
};
use crate::atom::{
    emit_tma_store, emit_tma_store_arrive, emit_tma_store_fence, emit_tma_store_wait,
};
use crate::collective::epilogue_fusion::{apply, apply_without_source, load_f32};
use crate::gemm::{BiasAxis, OutputMajor};
use crate::ptx::{Kernel, PtxError, Reg, RegClass};
use crate::tiled::RegisterTensor;

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
        let csize = types.c.size_bytes();
        let r32 = |k: &mut Kernel| k.reg(RegClass::B32);
        let frame = self.emit_frame(k, io)?;
        let TileFrame {
            origin,
            row0,
            col0,
            buffers,
            barrier,
            n_left,
            c_base,
            rows,
            row_ok,
            c_rows,
            bases,
            matrix_bases,
        } = &frame;
        let (t, wg, wg_row0, issuer) = (origin.thread, origin.wg, origin.row0, origin.issuer);
        let (row0, col0, buffers, barrier, n_left, c_base) =
            (*row0, *col0, *buffers, *barrier, *n_left, *c_base);
        let n = self.spec.tile[1];
        let biases = self.spec.epilogue.biases();
        let bias_value = |k: &mut Kernel, i: usize, offset: u32, origin: Reg, p: Reg| {
            let index = r32(k);
            k.push(format!("add.u32 {index}, {origin}, {offset};"));
            let addr = k.reg(RegClass::B64);
            k.push(format!(
                "mad.wide.u32 {addr}, {index}, {csize}, {};",
                io.base.biases[i]
            ));
            load_f32(k, types.c, p, addr, 0)
        };
        let wait = |k: &mut Kernel| -> Result<(), PtxError> {
            let skip = k.new_label("epi_wait")?;
            k.push(format!("@!{issuer} bra {};", skip.name()));
            emit_tma_store_wait(k, 1).map_err(atom_error)?;
            k.place_label(&skip);
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
        let chunks = |k: &mut Kernel, with_c: bool, zero: Reg| -> Result<(), PtxError> {
            let tma_c = io.c_load.filter(|_| with_c);
            let in_d = tma_c.is_some() && !self.own_c_buffers();
            if let (Some(c), true) = (&tma_c, in_d) {
                // C in D's buffers: the tile's first two subtiles, once
                // every store has read the buffers and every thread of the
                // warpgroup has left the previous tile (its tail columns
                // read them).
                let drained = k.new_label("epi_c_drained")?;
                k.push(format!("@!{issuer} bra {};", drained.name()));
                emit_tma_store_wait(k, 0).map_err(atom_error)?;
                k.place_label(&drained);
                k.push(format!("bar.sync {barrier}, 128;"));
                let skip = k.new_label("epi_c_first")?;
                k.push(format!("@!{issuer} bra {};", skip.name()));
                for chunk in 0..n_chunks.min(2) {
                    self.emit_c_load(k, io, c, origin, chunk)?;
                }
                k.place_label(&skip);
            }
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
                // 16-bit D: the words of one 64-row block, [h][jl].
                let mut words = [[None; (SUBTILE_N / 8) as usize]; 2];
                // C loaded with TMA: its words of the 64-row block, [h][jl].
                let mut c_words = None;
                for (ri, &(mb, h, row_off)) in rows.iter().enumerate() {
                    if tma_c.is_some() && h == 0 && self.stores_matrices() {
                        c_words = Some(self.emit_c_matrices(k, matrix_bases, mb, buffer)?);
                    }
                    for jl in 0..SUBTILE_N / 8 {
                        let j = chunk * SUBTILE_N / 8 + jl;
                        let mut values = Vec::new();
                        // f32 C loaded with TMA: the thread's two values,
                        // where `stage` writes D's.
                        let c_pair = match tma_c {
                            Some(_) if !self.stores_matrices() => {
                                Some(self.load_c_pair(k, bases, (mb, h, jl), buffer, row_off))
                            }
                            _ => None,
                        };
                        for e in 0..2u32 {
                            let col_off = 8 * j + e;
                            let a = self.acc_value(k, acc, mb, 4 * j + 2 * h + e);
                            // Whether the element is in the problem, for C's
                            // and the biases' loads (TMA clips D's store).
                            let mut in_bounds = || {
                                let (p_col, p) = (k.reg(RegClass::Pred), k.reg(RegClass::Pred));
                                k.push(format!("setp.gt.s32 {p_col}, {n_left}, {col_off};"));
                                k.push(format!("and.pred {p}, {}, {p_col};", row_ok[ri]));
                                p
                            };
                            let p = ((with_c && tma_c.is_none()) || !biases.is_empty())
                                .then(&mut in_bounds);
                            let c = match (p, major) {
                                _ if tma_c.is_some() => match (c_words, c_pair) {
                                    (Some(cw), _) => {
                                        self.c_element(k, cw[h as usize][jl as usize], e)
                                    }
                                    (None, Some(pair)) => pair[e as usize],
                                    (None, None) => zero,
                                },
                                (Some(p), OutputMajor::N) if with_c => {
                                    load_f32(k, types.c, p, c_rows[ri], col_off * csize)?
                                }
                                (Some(p), OutputMajor::M) if with_c => {
                                    let ptr = k.reg(RegClass::B64);
                                    let wide = k.reg(RegClass::B64);
                                    k.push(format!("mov.u64 {wide}, {col_off};"));
                                    k.push(format!(
                                        "mad.lo.u64 {ptr}, {wide}, {}, {c_base};",
                                        io.base.ldc_bytes
                                    ));
                                    load_f32(k, types.c, p, ptr, row_off * csize)?
                                }
                                _ => zero,
                            };
                            // (`p` is tested wherever there are biases.)
                            let mut bias = Vec::new();
                            if let Some(p) = p {
                                for (i, axis) in biases.iter().enumerate() {
                                    bias.push(match axis {
                                        BiasAxis::Row => bias_value(k, i, row_off, row0, p)?,
                                        BiasAxis::Column => bias_value(k, i, col_off, col0, p)?,
                                    });
                                }
                            }
                            let apply = if with_c { apply } else { apply_without_source };
                            values.push(apply(
                                k,
                                &self.spec,
                                a,
                                c,
                                &bias,
                                io.base.alpha,
                                io.base.beta,
                                &io.base.scalars,
                            )?);
                        }
                        if self.stores_matrices() {
                            words[h as usize][jl as usize] = Some(self.pack(k, &values));
                        } else {
                            self.stage(k, major, bases, (mb, h, jl), buffer, row_off, &values)?;
                        }
                    }
                    if self.stores_matrices() && h == 1 {
                        self.emit_matrices(k, matrix_bases, mb, buffer, &words)?;
                    }
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
            let skip = k.new_label("epi_wait_all")?;
            k.push(format!("@!{issuer} bra {};", skip.name()));
            emit_tma_store_wait(k, 0).map_err(atom_error)?;
            k.place_label(&skip);
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
        emit_tma_store_fence(k).map_err(atom_error)?;
        k.push(format!("bar.sync {barrier}, 128;"));
        let skip = k.new_label("epi_store")?;
        k.push(format!("@!{} bra {};", origin.issuer, skip.name()));
        let src = k.reg(RegClass::B32);
        k.push(format!("add.u32 {src}, {buffers}, {buffer};"));
        self.emit_subtile_boxes(k, io, origin.row0, chunk, src, |k, at, coords| {
            emit_tma_store(k, io.d_map, coords, at).map_err(atom_error)
        })?;
        emit_tma_store_arrive(k).map_err(atom_error)?;
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
                emit_tma_store_wait(k, 0).map_err(atom_error)?;
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
    ) -> Result<TileFrame, PtxError> {
        let types = self.spec.types;
        let major = self.spec.majors.d;
        let (dsize, csize) = (types.d.size_bytes(), types.c.size_bytes());
        let r32 = |k: &mut Kernel| k.reg(RegClass::B32);
        let origin = self.emit_origin(k, io.base.tid);
        let (t, wg, wg_row0) = (origin.thread, origin.wg, origin.row0);
        let (w, g, q) = (r32(k), r32(k), r32(k));
        k.push(format!("shr.u32 {w}, {t}, 5;"));
        k.push(format!("and.b32 {g}, {t}, 31;"));
        k.push(format!("and.b32 {q}, {g}, 3;"));
        k.push(format!("shr.u32 {g}, {g}, 2;"));
        // Rows relative to the warpgroup's first (`local`) and the tile's.
        let (local, row0, col0) = (r32(k), r32(k), r32(k));
        k.push(format!("mad.lo.u32 {local}, {w}, 16, {g};"));
        k.push(format!("add.u32 {row0}, {local}, {wg_row0};"));
        k.push(format!("shl.b32 {col0}, {q}, 1;"));
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
        let blocks = self.wg_rows / 64;
        let rows: Vec<(u32, u32, u32)> = (0..blocks)
            .flat_map(|mb| (0..2).map(move |h| (mb, h, 64 * mb + 8 * h)))
            .collect();
        let row_ok: Vec<Reg> = rows
            .iter()
            .map(|&(_, _, o)| {
                let p = k.reg(RegClass::Pred);
                k.push(format!("setp.gt.s32 {p}, {m_left}, {o};"));
                p
            })
            .collect();
        // Row-major: C's row pointers, one per row offset.
        let c_rows: Vec<Reg> = if major == OutputMajor::N {
            rows.iter()
                .map(|&(_, _, o)| {
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
        // Shared addresses of the thread's elements: the swizzled offset of
        // the part of the position that changes the swizzle bits, the rest
        // (64-row blocks, 8-row halves, 8-column groups) an immediate.
        let (_, span) = self.box_dims();
        let staged = |k: &mut Kernel, linear_of: &dyn Fn(&mut Kernel) -> Reg| {
            let linear = linear_of(k);
            self.buffer_address(k, buffers, linear)
        };
        // f32 D, row-major: per 8-column group j of a subtile (4 of them): row
        // `local`, column 2q + 8j. Column-major: per half h and column
        // e: row local + 8h of its box, column 2q + e.
        let bases: Vec<Reg> = match major {
            _ if self.stores_matrices() => Vec::new(),
            OutputMajor::N => (0..SUBTILE_N / 8)
                .map(|j| {
                    staged(k, &|k: &mut Kernel| {
                        let lin = r32(k);
                        k.push(format!("mul.lo.u32 {lin}, {local}, {span};"));
                        let c = r32(k);
                        k.push(format!("add.u32 {c}, {col0}, {};", 8 * j));
                        k.push(format!("mad.lo.u32 {lin}, {c}, {dsize}, {lin};"));
                        lin
                    })
                })
                .collect(),
            OutputMajor::M => {
                let box_rows = self.box_rows();
                (0..2)
                    .flat_map(|h| (0..2).map(move |e| (h, e)))
                    .map(|(h, e)| {
                        staged(k, &|k: &mut Kernel| {
                            let (r, b, rr, c, lin) = (r32(k), r32(k), r32(k), r32(k), r32(k));
                            k.push(format!("add.u32 {r}, {local}, {};", 8 * h));
                            k.push(format!("div.u32 {b}, {r}, {box_rows};"));
                            k.push(format!("rem.u32 {rr}, {r}, {box_rows};"));
                            k.push(format!("add.u32 {c}, {col0}, {e};"));
                            k.push(format!("mul.lo.u32 {lin}, {b}, {};", SUBTILE_N * 128));
                            k.push(format!("mad.lo.u32 {lin}, {c}, 128, {lin};"));
                            k.push(format!("mad.lo.u32 {lin}, {rr}, {dsize}, {lin};"));
                            lin
                        })
                    })
                    .collect()
            }
        };
        // 16-bit D: `stmatrix` row addresses (see `emit_matrices`).
        let matrix_bases = if self.stores_matrices() {
            self.emit_matrix_bases(k, t, w, buffers)
        } else {
            Vec::new()
        };
        Ok(TileFrame {
            origin,
            row0,
            col0,
            buffers,
            barrier,
            n_left,
            c_base,
            rows,
            row_ok,
            c_rows,
            bases,
            matrix_bases,
        })
    }

    /// Emits the kernel's end for the issuing thread: every TMA store of
    /// D complete before the block exits.
    pub(crate) fn emit_tail(&self, k: &mut Kernel, tid: Reg) -> Result<(), PtxError> {
        let p = k.reg(RegClass::Pred);
        let t = k.reg(RegClass::B32);
        k.push(format!("and.b32 {t}, {tid}, 127;"));
        k.push(format!("setp.ne.u32 {p}, {t}, 0;"));
        let skip = k.new_label("epi_tail")?;
        k.push(format!("@{p} bra {};", skip.name()));
        k.snippet("sm90/bulk_copy", "bulk_wait_group", &[("pending", &0)])?;
        k.place_label(&skip);
        Ok(())
    }
}

/// The registers [`EpilogueSm90TmaStore::emit_frame`] leaves for a tile's
/// subtiles.
struct TileFrame {
    /// The warpgroup's place in the tile.
    origin: WarpgroupOrigin,
    /// The thread's first row in the tile and first column of each
    /// 8-column group (`.b32`).
    row0: Reg,
    col0: Reg,
    /// The warpgroup's two subtile buffers (shared address) and its named
    /// barrier (`.b32`).
    buffers: Reg,
    barrier: Reg,
    /// Columns of the problem from `col0` on (`.b32`, signed).
    n_left: Reg,
    /// C's address of the thread's first element (`.b64`).
    c_base: Reg,
    /// Per row the thread holds: its 64-row block, half and row offset.
    rows: Vec<(u32, u32, u32)>,
    /// Per row: whether it is in the problem (`.pred`).
    row_ok: Vec<Reg>,
    /// Row-major C: per row, C's row pointer (`.b64`).
    c_rows: Vec<Reg>,
    /// f32 D: the shared addresses the thread stages its values at.
    bases: Vec<Reg>,
    /// 16-bit D: the `stmatrix` row addresses.
    matrix_bases: Vec<Reg>,
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
