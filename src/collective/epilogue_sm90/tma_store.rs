//! [`EpilogueSm90TmaStore`]: the SM90 warp-specialized epilogue that
//! stores D with TMA (CUTLASS's `TmaWarpSpecialized` epilogue).
//!
//! Each consumer warpgroup walks its rows of the tile in subtiles of 32
//! columns: it applies the fusion expression to the subtile's accumulators
//! (C, where beta is not 0, loaded into shared memory with TMA, or read
//! from global memory at the same places where the kernel has no room for
//! it), and
//! writes the results to one of two shared-memory buffers of its own in
//! D's layout, swizzled so that the fragment stores do not conflict
//! (64-byte rows: `Sw<2,4,3>`; 128-byte rows: `Sw<3,4,3>`, the swizzles
//! TMA applies): a 16-bit D with `stmatrix.x4` (four 8x8 matrices of the
//! accumulator fragment a store, `.trans` for a column-major D; CuTe's
//! `SM90_U32x4_STSM_N` and `SM90_U16x8_STSM_T`), an f32 D with plain
//! stores. Then `fence.proxy.async`, a barrier of the warpgroup, and
//! one thread stores the buffer with TMA (`cp.async.bulk.tensor`, a bulk
//! group per subtile). Before a buffer is written again, that thread waits
//! until at most one bulk group still reads shared memory
//! (`cp.async.bulk.wait_group.read 1`) and the warpgroup passes a barrier.
//! The stores run behind the consumer's next mainloop; TMA clips the boxes
//! at M and N, so ragged tiles need no predicates on D, and a tile stops
//! after the last subtile that holds a column of the problem. At the
//! kernel's end the issuing thread waits for every store.
//!
//! The subtile loop is emitted twice: with C read where beta is not 0, and
//! without C (beta = 0: alpha · acc, or the expression with C as +0).
//!
//! A C of D's type is loaded with TMA (CUTLASS's epilogue load of C), each
//! subtile completing an mbarrier of the warpgroup's (one per buffer), and
//! read back where D's is written: a 16-bit C with `ldmatrix.x4` (`.trans`
//! for a column-major C) at the addresses `stmatrix` writes D's, an f32 C
//! with plain loads. TMA fills what lies past M
//! and N with zeros, so C needs no predicates either. Where C goes is the
//! kernel's choice from the shared memory its stages leave
//! ([`ConfigFacts::c_staging`](crate::kernel::gemm::ConfigFacts::c_staging)):
//! - [`CStaging::OwnBuffers`] (the cooperative 128x256 kernels): two more
//!   buffers per consumer warpgroup, laid out as D's. The issuing thread
//!   requests the tile's first two subtiles before the mainloop (they
//!   arrive while it runs) and subtile `i + 2` once subtile `i`'s buffer
//!   has been read (the barrier before D's store), where the tile still
//!   has it (the early end's test).
//! - [`CStaging::InDBuffers`] (CUTLASS's `ReuseSmemC`; the ping-pong
//!   128x128 kernels, whose six stages leave no room, and f32 outputs): D's
//!   own buffers.
//!   The issuing thread requests the first two subtiles at the epilogue's
//!   start, once every store has read the buffers and the warpgroup has
//!   passed its barrier (a thread may still be copying the previous tile's
//!   tail columns from them), and subtile `i + 2` once subtile `i`'s store
//!   has read its buffer. (Requesting them before the mainloop, behind the
//!   same wait, measured no faster for ping-pong and slowed the
//!   cooperative 256x128 kernel: its mainloop waited for the stores.)
//! - [`CStaging::Global`] (no room even for C's barriers): read from
//!   global memory, predicated.
//!
//! A row-major D's tensor map ends at the last whole 16-byte chunk of each
//! row ([`TensorMapRequest::whole_chunks`](crate::gemm::TensorMapRequest)):
//! the H100 writes a partial chunk whole, past N. The columns after the
//! last whole chunk (fewer than one chunk) lie in the tile's last stored
//! subtile; after it, each thread copies its row's tail columns from the
//! buffer to D with plain stores.
//!
//! Row-major D: a subtile box is 32 columns x the warpgroup's rows; its
//! buffer is the rows in order, 32 elements each. Column-major D: boxes of
//! one 128-byte column segment (64 rows of a 16-bit type, 32 of f32) x 32
//! columns, the buffer box after box.

use super::{emit_beta_nonzero, emit_for_source, EpilogueFacts, Sm90EpilogueInputs};
use crate::atom::{
    emit_tma_load, emit_tma_store, emit_tma_store_arrive, emit_tma_store_fence,
    emit_tma_store_wait, Coord, GmmaSwizzle, SM75_U16x8_LDSM_T, SM75_U32x4_LDSM_N,
    SM90_U16x8_STSM_T, SM90_U32x4_STSM_N,
};
use crate::collective::epilogue_fusion::{apply, apply_without_source, emit_pack_pair, load_f32};
use crate::collective::epilogue_params::LinearScalars;
use crate::collective::{CStaging, SourceRead};
use crate::gemm::{BiasAxis, OutputMajor};
use crate::numeric::ElementType;
use crate::ptx::{Kernel, PtxError, Reg, RegClass};
use crate::tiled::RegisterTensor;

/// Columns of one subtile.
pub(crate) const SUBTILE_N: u32 = 32;

/// What the TMA-store epilogue's store reads for one tile: the register
/// epilogue's inputs (C, alpha, beta, biases, edges) and the tile's
/// origin, its batch, the epilogue's shared memory and D's tensor map.
#[derive(Clone, Debug)]
pub struct Sm90TmaEpilogueInputs {
    /// C, the scalars, the biases and the edges.
    pub base: Sm90EpilogueInputs,
    /// Shared-window address of the epilogue's buffers (`.b32`).
    pub smem: Reg,
    /// The tile's first row (`.b32`).
    pub m0: Reg,
    /// The tile's first column (`.b32`).
    pub n0: Reg,
    /// The tile's batch (`.b32`).
    pub batch: Reg,
    /// Generic address of D's tensor map (`.b64`).
    pub d_map: Reg,
    /// Where C is loaded with TMA: its map and barrier phases.
    pub c_load: Option<CLoad>,
}

/// The TMA-store epilogue's registers at kernel entry.
#[derive(Clone, Debug)]
pub struct TmaEpilogueParams {
    /// alpha, beta and the extra scalars.
    pub scalars: LinearScalars,
    /// Where C is loaded with TMA: the phase bit (`.b32`, 0 or 1) each of
    /// the warpgroup's two C barriers waits for next.
    pub c_phases: Option<[Reg; 2]>,
}

/// What the loads of C with TMA read for one tile.
#[derive(Clone, Copy, Debug)]
pub struct CLoad {
    /// Generic address of C's tensor map (`.b64`).
    pub map: Reg,
    /// The phase bit each C barrier of the warpgroup waits for next
    /// (`.b32`, flipped after each wait).
    pub phases: [Reg; 2],
}

/// A consumer warpgroup's place in the tile.
struct WarpgroupOrigin {
    /// This thread's place in the warpgroup, `tid & 127` (`.b32`).
    thread: Reg,
    /// Its index among the consumers, 0 or 1 (`.b32`).
    wg: Reg,
    /// Its first row in the tile (`.b32`).
    row0: Reg,
    /// Whether this thread is its issuing thread (thread 0 of the warpgroup).
    issuer: Reg,
}

/// [`EpilogueSm90TmaStore::emit_tail_setup`]'s registers.
struct TailColumns {
    /// Columns of the tile in whole 16-byte chunks of D's rows (`.b32`).
    n_chunks: Reg,
    /// Columns of the tile after them, 0 to a chunk less one (`.b32`).
    n_tail: Reg,
    /// Whether the thread's row is in the problem.
    row_ok: Reg,
    /// D's address of the thread's row at column `n_chunks` (`.b64`).
    ptr: Reg,
}

/// The SM90 epilogue that stores D through shared memory with TMA.
#[derive(Clone, Debug)]
pub struct EpilogueSm90TmaStore {
    pub(crate) spec: EpilogueFacts,
    /// Rows of the tile each consumer warpgroup holds.
    pub(crate) wg_rows: u32,
    /// Whether consumer warpgroup `c` holds rows `c * wg_rows ..` (the
    /// cooperative kernel) rather than whole tiles (ping-pong).
    pub(crate) split_m: bool,
    /// Where C is staged ([`with_c_staging`](Self::with_c_staging)).
    pub(crate) c_staging: CStaging,
    /// When C is read ([`SourceRead::Tested`] unless generated for one case).
    pub(crate) source: SourceRead,
}

fn atom_error(e: crate::Error) -> PtxError {
    PtxError::UnsupportedSpec {
        kernel: "gemm",
        name: String::from("sm90 tma epilogue"),
        reason: e.to_string(),
    }
}

impl EpilogueSm90TmaStore {
    /// Bytes of one subtile buffer.
    pub(crate) fn buffer_bytes(&self) -> u32 {
        self.wg_rows * SUBTILE_N * self.spec.types.d.size_bytes()
    }

    /// This epilogue staging C as `staging` says (the kernel's choice from
    /// the shared memory its stages leave:
    /// [`ConfigFacts::c_staging`](crate::kernel::gemm::ConfigFacts::c_staging)).
    pub fn with_c_staging(mut self, staging: CStaging) -> Self {
        self.c_staging = staging;
        self
    }

    /// Whether C is loaded with TMA: a C of D's type (its buffers are laid
    /// out as D's and read where D's are written: with `ldmatrix` for a
    /// 16-bit C, plain loads for f32), staged in buffers of its own or in
    /// D's.
    pub(crate) fn loads_c(&self) -> bool {
        self.c_staging != CStaging::Global && self.spec.types.c == self.spec.types.d
    }

    /// Whether C is loaded into buffers of its own (else into D's).
    fn own_c_buffers(&self) -> bool {
        self.loads_c() && self.c_staging == CStaging::OwnBuffers
    }

    /// Bytes of the epilogue's region: D's four buffers; C's four after
    /// them where it has buffers of its own; C's four 8-byte barriers last
    /// where it is loaded with TMA.
    pub(crate) fn shared_bytes(&self) -> u32 {
        let d = 4 * self.buffer_bytes();
        match (self.loads_c(), self.own_c_buffers()) {
            (true, true) => 2 * d + 4 * 8,
            (true, false) => d + 4 * 8,
            _ => d,
        }
    }

    /// Offset of C's buffers in the region: after D's, or D's own.
    fn c_offset(&self) -> u32 {
        if self.own_c_buffers() {
            4 * self.buffer_bytes()
        } else {
            0
        }
    }

    /// Offset of C's barriers in the region (after the buffers): warpgroup
    /// `w`'s barrier of buffer `b` at `8 * (2w + b)`.
    fn c_barrier_offset(&self) -> u32 {
        self.c_offset() + 4 * self.buffer_bytes()
    }

    /// Emits warpgroup `io`'s origin: its index, first row and issuer.
    fn emit_origin(&self, k: &mut Kernel, tid: Reg) -> WarpgroupOrigin {
        let t = k.reg(RegClass::B32);
        k.push(format!("and.b32 {t}, {tid}, 127;"));
        let wg = k.warpgroup_index(tid);
        k.push(format!("sub.u32 {wg}, {wg}, 1;"));
        let row0 = k.reg(RegClass::B32);
        if self.split_m {
            k.push(format!("mul.lo.u32 {row0}, {wg}, {};", self.wg_rows));
        } else {
            k.push(format!("mov.u32 {row0}, 0;"));
        }
        let issuer = k.reg(RegClass::Pred);
        k.push(format!("setp.eq.u32 {issuer}, {t}, 0;"));
        WarpgroupOrigin {
            thread: t,
            wg,
            row0,
            issuer,
        }
    }

    /// The shared address of warpgroup `wg`'s C barrier of buffer `b`.
    fn c_barrier(&self, k: &mut Kernel, smem: Reg, wg: Reg, b: u32) -> Reg {
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
    fn emit_c_load(
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
    fn emit_subtile_boxes(
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

    /// Reads one 64-row block `mb` of C's subtile in buffer byte `buffer`
    /// (of the C buffers) with two `ldmatrix.x4`, as `emit_matrices` writes
    /// D's: the thread's words `[h][jl]`, two 16-bit elements each.
    fn emit_c_matrices(
        &self,
        k: &mut Kernel,
        bases: &[Reg],
        mb: u32,
        buffer: u32,
    ) -> Result<[[Reg; (SUBTILE_N / 8) as usize]; 2], PtxError> {
        let buffer = self.c_offset() + buffer;
        let mut words = [[bases[0]; (SUBTILE_N / 8) as usize]; 2];
        for a in [0usize, 2] {
            let dst: Vec<Reg> = (0..4).map(|_| k.reg(RegClass::B32)).collect();
            let at = self.matrix_address(bases, mb, buffer, a);
            match self.spec.majors.d {
                OutputMajor::N => SM75_U32x4_LDSM_N::emit(k, &dst, &at),
                OutputMajor::M => SM75_U16x8_LDSM_T::emit(k, &dst, &at),
            }
            .map_err(atom_error)?;
            words[0][a] = dst[0];
            words[1][a] = dst[1];
            words[0][a + 1] = dst[2];
            words[1][a + 1] = dst[3];
        }
        Ok(words)
    }

    /// Element `e` (0: the low half) of a word of two C elements, as f32.
    fn c_element(&self, k: &mut Kernel, word: Reg, e: u32) -> Reg {
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

    /// Rows of one column-major box: one 128-byte segment.
    fn box_rows(&self) -> u32 {
        128 / self.spec.types.d.size_bytes()
    }

    /// D's TMA box, innermost first, and its swizzle span in bytes.
    pub(crate) fn box_dims(&self) -> ([u32; 2], u32) {
        let size = self.spec.types.d.size_bytes();
        match self.spec.majors.d {
            OutputMajor::N => ([SUBTILE_N, self.wg_rows], SUBTILE_N * size),
            OutputMajor::M => ([self.box_rows(), SUBTILE_N], 128),
        }
    }

    /// Emits the shared address of byte `linear` of a buffer laid out as
    /// TMA reads it: `buffers + swizzle(linear)` (`linear` is swizzled in
    /// place), the swizzle `Swizzle<2,4,3>` on the bytes of 64-byte rows,
    /// `Swizzle<3,4,3>` on 128-byte ones. Offsets above the swizzled bits
    /// (64-row blocks, buffers, boxes) may be added after.
    fn buffer_address(&self, k: &mut Kernel, buffers: Reg, linear: Reg) -> Reg {
        let (_, span) = self.box_dims();
        let swizzle = if span == 64 {
            GmmaSwizzle::B64
        } else {
            GmmaSwizzle::B128
        };
        let swz = crate::tiled::emit_swizzle(k, linear, swizzle.swizzle());
        let addr = k.reg(RegClass::B32);
        k.push(format!("add.u32 {addr}, {buffers}, {swz};"));
        addr
    }

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
        let (dsize, csize) = (types.d.size_bytes(), types.c.size_bytes());
        let r32 = |k: &mut Kernel| k.reg(RegClass::B32);
        let origin = self.emit_origin(k, io.base.tid);
        let (t, wg, wg_row0, issuer) = (origin.thread, origin.wg, origin.row0, origin.issuer);
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
        let n = self.spec.tile[1];
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
                    self.emit_c_load(k, io, c, &origin, chunk)?;
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
                        c_words = Some(self.emit_c_matrices(k, &matrix_bases, mb, buffer)?);
                    }
                    for jl in 0..SUBTILE_N / 8 {
                        let j = chunk * SUBTILE_N / 8 + jl;
                        let mut values = Vec::new();
                        // f32 C loaded with TMA: the thread's two values,
                        // where `stage` writes D's.
                        let c_pair = match tma_c {
                            Some(_) if !self.stores_matrices() => {
                                Some(self.load_c_pair(k, &bases, (mb, h, jl), buffer, row_off))
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
                            self.stage(k, major, &bases, (mb, h, jl), buffer, row_off, &values)?;
                        }
                    }
                    if self.stores_matrices() && h == 1 {
                        self.emit_matrices(k, &matrix_bases, mb, buffer, &words)?;
                    }
                }
                // The buffer's writes, visible to TMA, then one thread stores it.
                emit_tma_store_fence(k).map_err(atom_error)?;
                k.push(format!("bar.sync {barrier}, 128;"));
                let skip = k.new_label("epi_store")?;
                k.push(format!("@!{issuer} bra {};", skip.name()));
                let src = r32(k);
                k.push(format!("add.u32 {src}, {buffers}, {buffer};"));
                self.emit_subtile_boxes(k, io, wg_row0, chunk, src, |k, at, coords| {
                    emit_tma_store(k, io.d_map, coords, at).map_err(atom_error)
                })?;
                emit_tma_store_arrive(k).map_err(atom_error)?;
                // C's buffer is read (the barrier above): its next subtile,
                // where the tile still has it (the early end's test).
                if let (Some(c), true) = (&tma_c, chunk + 2 < n_chunks) {
                    let q = k.reg(RegClass::Pred);
                    k.push(format!(
                        "setp.gt.s32 {q}, {}, {};",
                        io.base.n_rem,
                        ((chunk + 2) & !1) * SUBTILE_N
                    ));
                    k.push(format!("@!{q} bra {};", skip.name()));
                    if in_d {
                        // C into D's buffer: once this subtile's store has read it.
                        emit_tma_store_wait(k, 0).map_err(atom_error)?;
                    }
                    self.emit_c_load(k, io, c, &origin, chunk + 2)?;
                }
                k.place_label(&skip);
                // No column of the later subtiles is in the problem: done.
                // Tested after every second subtile (fewer branches for the
                // assembler); the last subtile that holds a column is then
                // the last or the one before, both still in their buffers.
                if chunk % 2 == 1 && chunk + 1 < n_chunks {
                    let q = k.reg(RegClass::Pred);
                    k.push(format!(
                        "setp.le.s32 {q}, {}, {};",
                        io.base.n_rem,
                        (chunk + 1) * SUBTILE_N
                    ));
                    k.push(format!("@{q} bra {};", early.name()));
                }
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

    /// The registers of the tail columns (row-major D): D's tensor map
    /// ends at the last whole 16-byte chunk of each row (`n_chunks`
    /// columns of the tile, a multiple of the chunk), and the warpgroup
    /// writes the `n_tail` columns after it from the staged subtile, thread
    /// `t` its row `t`, where that row is in the problem (`row_ok`).
    fn emit_tail_setup(
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
    fn emit_tail_columns(
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
        let (ty, class) = match d {
            ElementType::F32 => ("b32", RegClass::B32),
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

    /// Whether D's elements are 16-bit, so that the fragments are staged
    /// with `stmatrix` (`.trans` for a column-major D); f32 D is staged with
    /// plain stores.
    fn stores_matrices(&self) -> bool {
        self.spec.types.d != ElementType::F32
    }

    /// Converts one thread's column pair (row g, columns 2q and 2q + 1 of
    /// an 8-column group) to one word of two 16-bit elements, the first in
    /// the low half: one `cvt.rn.{f16x2,bf16x2}.f32`.
    fn pack(&self, k: &mut Kernel, values: &[Reg]) -> Reg {
        let word = k.reg(RegClass::B32);
        emit_pack_pair(k, self.spec.types.d, word, values[0], values[1]);
        word
    }

    /// The `stmatrix` row addresses of this lane, for a 64-row block at
    /// offset 0 of buffer 0: lane `l` gives row `l % 8` of matrix `l / 8`,
    /// matrix `i` being the 8x8 block of half `i % 2` (rows 8h..8h+7 of the
    /// warp's 16) and 8-column group `a + i / 2` of the store for groups
    /// `a` and `a + 1`. Row-major D: one address per `a` in {0, 2} (the
    /// swizzle moves 16-byte chunks within a row, so the two differ in
    /// swizzled bits); column-major D (transposed store: lane `l` gives
    /// column `l % 8` of its matrix, 8 rows of 16 bits): one address, group
    /// 2 lying 16 columns (2048 bytes) further, past the swizzled bits.
    fn emit_matrix_bases(&self, k: &mut Kernel, t: Reg, w: Reg, buffers: Reg) -> Vec<Reg> {
        let (_, span) = self.box_dims();
        let r32 = |k: &mut Kernel| k.reg(RegClass::B32);
        let (r, half, group, rows) = (r32(k), r32(k), r32(k), r32(k));
        k.push(format!("and.b32 {r}, {t}, 7;"));
        k.push(format!("bfe.u32 {half}, {t}, 3, 1;"));
        k.push(format!("bfe.u32 {group}, {t}, 4, 1;"));
        // The matrix's first row in the warpgroup's 64-row block: 16w + 8h.
        k.push(format!("mad.lo.u32 {rows}, {w}, 16, 0;"));
        k.push(format!("mad.lo.u32 {rows}, {half}, 8, {rows};"));
        match self.spec.majors.d {
            OutputMajor::N => [0u32, 2]
                .into_iter()
                .map(|a| {
                    let (row, lin) = (r32(k), r32(k));
                    k.push(format!("add.u32 {row}, {rows}, {r};"));
                    k.push(format!("mul.lo.u32 {lin}, {row}, {span};"));
                    k.push(format!("mad.lo.u32 {lin}, {group}, 16, {lin};"));
                    k.push(format!("add.u32 {lin}, {lin}, {};", 16 * a));
                    self.buffer_address(k, buffers, lin)
                })
                .collect(),
            OutputMajor::M => {
                let (c, lin) = (r32(k), r32(k));
                k.push(format!("mad.lo.u32 {c}, {group}, 8, {r};"));
                k.push(format!("mul.lo.u32 {lin}, {c}, 128;"));
                let size = self.spec.types.d.size_bytes();
                k.push(format!("mad.lo.u32 {lin}, {rows}, {size}, {lin};"));
                vec![self.buffer_address(k, buffers, lin)]
            }
        }
    }

    /// Stages one 64-row block `mb` of a subtile (the thread's words
    /// `[h][jl]`) into the buffer at byte `buffer` with two `stmatrix.x4`:
    /// 8-column groups 0-1, then 2-3, each as matrices (h 0, group a),
    /// (h 1, a), (h 0, a + 1), (h 1, a + 1).
    fn emit_matrices(
        &self,
        k: &mut Kernel,
        bases: &[Reg],
        mb: u32,
        buffer: u32,
        words: &[[Option<Reg>; (SUBTILE_N / 8) as usize]; 2],
    ) -> Result<(), PtxError> {
        let word = |h: usize, jl: usize| {
            words[h][jl].ok_or_else(|| PtxError::UnsupportedSpec {
                kernel: "gemm",
                name: String::from("sm90 tma epilogue"),
                reason: format!("no word for half {h}, group {jl} of a 64-row block"),
            })
        };
        for a in [0usize, 2] {
            let src = [word(0, a)?, word(1, a)?, word(0, a + 1)?, word(1, a + 1)?];
            let at = self.matrix_address(bases, mb, buffer, a);
            match self.spec.majors.d {
                OutputMajor::N => SM90_U32x4_STSM_N::emit(k, &src, &at),
                OutputMajor::M => SM90_U16x8_STSM_T::emit(k, &src, &at),
            }
            .map_err(atom_error)?;
        }
        Ok(())
    }

    /// The address operand of the `stmatrix` (or `ldmatrix`) of 64-row
    /// block `mb`, 8-column groups `a` and `a + 1`, in the buffer at byte
    /// `buffer` (see [`emit_matrix_bases`](Self::emit_matrix_bases)).
    fn matrix_address(&self, bases: &[Reg], mb: u32, buffer: u32, a: usize) -> String {
        match self.spec.majors.d {
            OutputMajor::N => {
                let (_, span) = self.box_dims();
                format!("{}+{}", bases[a / 2], buffer + mb * 64 * span)
            }
            OutputMajor::M => {
                // Box mb (64 rows of a 16-bit type), group a's columns.
                let offset = buffer + mb * SUBTILE_N * 128 + 8 * a as u32 * 128;
                format!("{}+{offset}", bases[0])
            }
        }
    }

    /// Writes one thread's f32 values of 8-column group `jl` of a subtile
    /// (at 64-row block `mb`, half `h`) into the buffer at byte `buffer`.
    #[allow(clippy::too_many_arguments)]
    fn stage(
        &self,
        k: &mut Kernel,
        major: OutputMajor,
        bases: &[Reg],
        (mb, h, jl): (u32, u32, u32),
        buffer: u32,
        row_off: u32,
        values: &[Reg],
    ) -> Result<(), PtxError> {
        let places = self.f32_places(major, bases, (mb, h, jl), buffer, row_off);
        match major {
            OutputMajor::N => k.push(format!(
                "st.shared.v2.f32 [{}], {{{}, {}}};",
                places[0], values[0], values[1]
            )),
            OutputMajor::M => {
                for (at, value) in places.iter().zip(values) {
                    k.push(format!("st.shared.f32 [{at}], {value};"));
                }
            }
        }
        Ok(())
    }

    /// The address operands of one thread's f32 pair of 8-column group
    /// `jl` of a subtile (at 64-row block `mb`, half `h`, row offset
    /// `row_off`) in the buffer at byte `buffer`: one for both (row-major,
    /// a `.v2` access) or one per element (column-major).
    fn f32_places(
        &self,
        major: OutputMajor,
        bases: &[Reg],
        (mb, h, jl): (u32, u32, u32),
        buffer: u32,
        row_off: u32,
    ) -> Vec<String> {
        let (_, span) = self.box_dims();
        match major {
            OutputMajor::N => {
                vec![format!(
                    "{}+{}",
                    bases[jl as usize],
                    buffer + row_off * span
                )]
            }
            OutputMajor::M => {
                let box_bytes = SUBTILE_N * 128;
                let blocks_per_mb = 64 / self.box_rows();
                (0..2u32)
                    .map(|e| {
                        let base = bases[(2 * h + e) as usize];
                        format!(
                            "{base}+{}",
                            buffer + mb * blocks_per_mb * box_bytes + 8 * jl * 128
                        )
                    })
                    .collect()
            }
        }
    }

    /// Reads one thread's two f32 values of C for 8-column group `jl` of a
    /// subtile (at 64-row block `mb`, half `h`) from C's buffer at byte
    /// `buffer`: the places [`stage`](Self::stage) writes D's.
    fn load_c_pair(
        &self,
        k: &mut Kernel,
        bases: &[Reg],
        (mb, h, jl): (u32, u32, u32),
        buffer: u32,
        row_off: u32,
    ) -> [Reg; 2] {
        let major = self.spec.majors.d;
        let buffer = self.c_offset() + buffer;
        let pair = [k.reg(RegClass::F32), k.reg(RegClass::F32)];
        let places = self.f32_places(major, bases, (mb, h, jl), buffer, row_off);
        match major {
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
        pair
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
