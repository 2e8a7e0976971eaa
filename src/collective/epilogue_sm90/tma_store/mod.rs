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
//! stores. Which accumulator lies where comes from the consumers' tiled
//! MMA ([`Sm90TiledMma`](crate::collective::Sm90TiledMma)): its C
//! partition places every value, and the `stmatrix` copies are built from
//! it and the copy atom (`matrix_copy.rs`, as CuTe's `make_tiled_copy_C`). Then `fence.proxy.async`, a barrier of the warpgroup, and
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

use super::{EpilogueFacts, Sm90EpilogueInputs};
use crate::atom::GmmaSwizzle;
use crate::collective::epilogue_params::LinearScalars;
use crate::collective::{CStaging, SourceRead};
use crate::gemm::OutputMajor;
use crate::ptx::{Kernel, PtxError, Reg, RegClass};
use std::collections::HashMap;

mod c_load;
mod fusion;
mod matrix_copy;
mod stmatrix;
mod store;
mod tail;

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
    /// The bias and scale values the prologue read for the store, by
    /// vector and offset along its axis from the thread's first row or
    /// column, where [`VectorReads::Prologue`] asks for them (empty
    /// otherwise).
    pub held: HashMap<(usize, u32), Reg>,
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
pub(super) struct WarpgroupOrigin {
    /// This thread's place in the warpgroup, `tid & 127` (`.b32`).
    pub(super) thread: Reg,
    /// Its index among the consumers, 0 or 1 (`.b32`).
    pub(super) wg: Reg,
    /// Its first row in the tile (`.b32`).
    pub(super) row0: Reg,
    /// Whether this thread is its issuing thread (thread 0 of the warpgroup).
    pub(super) issuer: Reg,
}

/// [`EpilogueSm90TmaStore::emit_tail_setup`]'s registers.
pub(super) struct TailColumns {
    /// Columns of the tile in whole 16-byte chunks of D's rows (`.b32`).
    pub(super) n_chunks: Reg,
    /// Columns of the tile after them, 0 to a chunk less one (`.b32`).
    pub(super) n_tail: Reg,
    /// Whether the thread's row is in the problem.
    pub(super) row_ok: Reg,
    /// D's address of the thread's row at column `n_chunks` (`.b64`).
    pub(super) ptr: Reg,
}

/// The SM90 epilogue that stores D through shared memory with TMA.
#[derive(Clone, Debug)]
pub struct EpilogueSm90TmaStore {
    pub(crate) spec: EpilogueFacts,
    /// Rows of the tile each consumer warpgroup holds.
    pub(crate) wg_rows: u32,
    /// Consumer warpgroups that share a tile (2 cooperative: warpgroup `c`
    /// holds rows `c * wg_rows ..`; 1 ping-pong).
    pub(crate) warpgroups: u32,
    /// Where C is staged ([`with_c_staging`](Self::with_c_staging)).
    pub(crate) c_staging: CStaging,
    /// When C is read ([`SourceRead::Tested`] unless generated for one case).
    pub(crate) source: SourceRead,
    /// Where the bias and scale vectors' values are read
    /// ([`with_vector_reads`](Self::with_vector_reads)).
    pub(crate) vector_reads: VectorReads,
}

/// The registers a consumer thread gives the tile's column values of bias
/// and scale vectors by default: all of a 256-column tile's values of one
/// vector (64), beside the 128 accumulators of a 128x256 tile.
pub const MAX_HELD_COLUMN_VALUES: usize = 64;

/// Where the TMA-store epilogue reads the values of its bias and scale
/// vectors: every scalar, every row value of the thread, and its column
/// values (all of the tile's where they take at most `columns` registers,
/// else the first subtile's; the store reads the rest a subtile ahead of
/// their use). A store that read each value where it first uses it would
/// wait for global memory once per subtile (16% of a row-scaled FP8 GEMM
/// at 8192x8192x1024, BENCHMARKS.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VectorReads {
    /// In the tile's prologue, beside its last wgmmas: the values are in
    /// registers when the store starts.
    Prologue {
        /// Most registers the held column values may take.
        columns: usize,
    },
    /// At the start of the tile's store, where the registers are needed
    /// until then (a split tile's fixup reads the partial sums into them).
    Store {
        /// Most registers the held column values may take.
        columns: usize,
    },
}

impl VectorReads {
    /// Most registers the held column values may take.
    pub const fn columns(self) -> usize {
        match self {
            VectorReads::Prologue { columns } | VectorReads::Store { columns } => columns,
        }
    }
}

pub(super) fn atom_error(e: crate::Error) -> PtxError {
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

    /// This epilogue reading its bias and scale vectors' values where
    /// `reads` says (by default in the prologue, with
    /// [`MAX_HELD_COLUMN_VALUES`] registers for column values). A mainloop
    /// that keeps registers beside its accumulators past its last wgmma
    /// (the `_RS` mainloop's A fragments) gives fewer; a scheduler that
    /// splits K needs them until its fixup ends.
    pub fn with_vector_reads(mut self, reads: VectorReads) -> Self {
        self.vector_reads = reads;
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
    pub(super) fn own_c_buffers(&self) -> bool {
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
    pub(super) fn c_offset(&self) -> u32 {
        if self.own_c_buffers() {
            4 * self.buffer_bytes()
        } else {
            0
        }
    }

    /// Offset of C's barriers in the region (after the buffers): warpgroup
    /// `w`'s barrier of buffer `b` at `8 * (2w + b)`.
    pub(super) fn c_barrier_offset(&self) -> u32 {
        self.c_offset() + 4 * self.buffer_bytes()
    }

    /// Emits warpgroup `io`'s origin: its index, first row and issuer.
    pub(super) fn emit_origin(&self, k: &mut Kernel, tid: Reg) -> WarpgroupOrigin {
        let t = k.reg(RegClass::B32);
        k.push(format!("and.b32 {t}, {tid}, 127;"));
        let wg = k.warpgroup_index(tid);
        k.push(format!("sub.u32 {wg}, {wg}, 1;"));
        let row0 = k.reg(RegClass::B32);
        if self.warpgroups > 1 {
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

    /// Rows of one column-major box: one 128-byte segment.
    pub(super) fn box_rows(&self) -> u32 {
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
    pub(super) fn buffer_address(&self, k: &mut Kernel, buffers: Reg, linear: Reg) -> Reg {
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
}
