//! [`TileScheduler`]: the contract of a tile scheduler, the part of a GEMM
//! kernel that maps blocks to output tiles (CUTLASS's `TileScheduler`).

mod data_parallel;
mod partial_tile;
mod persistent;
mod raster;
mod split_k;
mod stream_k;

pub use data_parallel::{emit_tile_coord, DataParallel, TileCoord};
pub use partial_tile::PartialTile;
pub use persistent::{Persistent, PersistentParams, BALANCED_ROUNDS};
pub use raster::{emit_raster, raster_tile, RasterDivisors, RasterOrder};
pub use split_k::{
    SplitK, SPLIT_K_OUTER_MIN_K_TILES_PER_SPLIT, SPLIT_K_RECORD_HEADER, SPLIT_K_SPREAD_MIN_BYTES,
};
pub use stream_k::{
    StreamK, StreamKParams, StreamKPlan, StreamKSegment, STREAM_K_COUNTER_BYTES,
    STREAM_K_MIN_K_TILES,
};

use crate::gemm::{DeclaredParams, GemmShape, ParamRole};
use crate::ptx::{Kernel, PtxError, Reg};

/// What a launch tells a tile scheduler for its launch-time parameters
/// ([`TileScheduler::launch_value`]): the problem's tiles, its k-tiles and
/// the raster the launch passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalkLaunch {
    /// Output tiles along M (`ceil(M / TileM)`).
    pub tiles_m: u32,
    /// Output tiles along N.
    pub tiles_n: u32,
    /// The `raster_log` passed.
    pub raster_log: u32,
    /// Whether the `raster_order` passed is along M.
    pub along_m: bool,
    /// The problem's k-tiles (`ceil(K / TileK)`; 0 where the launch does
    /// not say).
    pub k_tiles: u32,
}

impl WalkLaunch {
    /// The launch of an `m x n` output in `tile_m x tile_n` tiles with the
    /// `[raster_log, raster_order]` parameters the launcher passes (its
    /// k-tiles 0: [`with_k`](Self::with_k) sets them).
    ///
    /// ```
    /// use cutlet::kernel::gemm::WalkLaunch;
    ///
    /// let walk = WalkLaunch::of([1000, 300], [128, 64], [3, 1]);
    /// assert_eq!((walk.tiles_m, walk.tiles_n, walk.raster_log, walk.along_m), (8, 5, 3, true));
    /// assert_eq!(walk.with_k(4100, 64).k_tiles, 65);
    /// ```
    pub fn of(
        [m, n]: [u32; 2],
        [tile_m, tile_n]: [u32; 2],
        [raster_log, raster_order]: [u32; 2],
    ) -> WalkLaunch {
        WalkLaunch {
            tiles_m: m.div_ceil(tile_m.max(1)),
            tiles_n: n.div_ceil(tile_n.max(1)),
            raster_log,
            along_m: raster_order != 0,
            k_tiles: 0,
        }
    }

    /// The same launch over a K of `k` in k-tiles of `tile_k`.
    pub fn with_k(self, k: u32, tile_k: u32) -> WalkLaunch {
        WalkLaunch {
            k_tiles: k.div_ceil(tile_k.max(1)),
            ..self
        }
    }
}

/// A tile scheduler: maps blocks to output tiles and batches.
///
/// # Contract
///
/// Host side:
/// - [`params`](TileScheduler::params): the kernel parameters it reads;
/// - [`param_value`](TileScheduler::param_value): the value the launcher
///   passes for each of them (a rasterization swizzle, ...), and
///   [`launch_value`](TileScheduler::launch_value) for those worked out
///   for each launch (the walk's divisors);
/// - [`grid`](TileScheduler::grid): the launch grid for a problem's tile
///   counts and batches (one block per tile for a data-parallel scheduler;
///   as many as fit on the GPU for a persistent one);
/// - [`workspace_size`](TileScheduler::workspace_size): device workspace
///   bytes (stream-K and split-K partial sums; 0 for data-parallel).
///
/// Device side:
/// 1. [`emit_params`](TileScheduler::emit_params) at kernel entry;
/// 2. [`emit_first_work_tile`](TileScheduler::emit_first_work_tile): the
///    block's first tile and batch ([`TileCoord`]);
/// 3. [`emit_next_work_tile`](TileScheduler::emit_next_work_tile): a
///    persistent scheduler's next tile (and a predicate that is false past
///    the last); `None` for a scheduler that gives each block one tile.
///
/// Raster order, persistent, stream-K, split-K and grouped schedulers are
/// implementations of this trait; [`DataParallel`] is the first. A
/// scheduler a warp-specialized kernel walks implements
/// [`PersistentTileScheduler`] too.
pub trait TileScheduler {
    /// The parameters loaded at kernel entry.
    type Params;

    /// The kernel parameters the scheduler reads.
    fn params(&self) -> Vec<ParamRole>;

    /// The value the launcher passes for `role` (one of
    /// [`params`](Self::params)), as a `u32`.
    fn param_value(&self, role: ParamRole) -> Option<u32>;

    /// The value the launcher passes for `role` where it depends on the
    /// launch (a [`ParamRole::WalkDivisor`]: see [`WalkLaunch`]), as a
    /// `u64`; `None` for a role the scheduler does not declare (the
    /// default: none).
    fn launch_value(&self, role: ParamRole, walk: &WalkLaunch) -> Option<u64> {
        let _ = (role, walk);
        None
    }

    /// The launch grid for `tiles_m x tiles_n` tiles of each of `l` batches.
    fn grid(&self, tiles_m: u32, tiles_n: u32, l: u32) -> (u32, u32, u32);

    /// The launch grid on a GPU of `sm_count` SMs: [`grid`](Self::grid)
    /// unless the scheduler sizes its grid to the GPU (a persistent one).
    fn grid_on_device(&self, tiles_m: u32, tiles_n: u32, l: u32, sm_count: u32) -> (u32, u32, u32) {
        let _ = sm_count;
        self.grid(tiles_m, tiles_n, l)
    }

    /// Bytes of device workspace the scheduler needs for `shape`.
    fn workspace_size(&self, shape: &GemmShape) -> usize;

    /// Bytes of device workspace for `shape` on a GPU of `sm_count` SMs,
    /// enough for any grid of up to that many blocks:
    /// [`workspace_size`](Self::workspace_size) unless the scheduler's
    /// workspace grows with its grid (stream-K's slot per block).
    fn workspace_size_on_device(&self, shape: &GemmShape, sm_count: u32) -> usize {
        let _ = sm_count;
        self.workspace_size(shape)
    }

    /// Emits the loads of its parameters at kernel entry.
    ///
    /// # Errors
    /// The assembler's error, or a parameter no part declared.
    fn emit_params(
        &self,
        k: &mut Kernel,
        params: &DeclaredParams,
    ) -> Result<Self::Params, PtxError>;

    /// Emits the block's first work tile from the tile counts (`.b32`).
    ///
    /// # Errors
    /// The assembler's error.
    fn emit_first_work_tile(
        &self,
        k: &mut Kernel,
        params: &Self::Params,
        tiles_m: Reg,
        tiles_n: Reg,
    ) -> Result<TileCoord, PtxError>;

    /// Emits the advance to the block's next work tile: `Some((tile,
    /// valid))` for a persistent scheduler (`valid` a predicate, false past
    /// the last tile), `None` when each block computes one tile.
    ///
    /// # Errors
    /// The assembler's error.
    fn emit_next_work_tile(
        &self,
        k: &mut Kernel,
        params: &Self::Params,
        current: &TileCoord,
    ) -> Result<Option<(TileCoord, Reg)>, PtxError>;
}

/// A tile scheduler whose blocks (or clusters) each walk a sequence of work
/// units, as the SM90 warp-specialized kernel
/// ([`Sm90GemmWarpSpecialized`](super::Sm90GemmWarpSpecialized)) runs them:
/// the producer thread and each consumer warpgroup walk the same sequence
/// in the same order, one loop per role.
///
/// # Contract
///
/// Host side: [`TileScheduler`]'s (its parameters and their values, the
/// grid it walks on a GPU of a given SM count, its workspace).
///
/// Device side, on the registers of [`TileScheduler::emit_params`] (each
/// role walks with its own copy of the position, since every role's thread
/// runs the same code):
/// 1. [`emit_walk_start`](Self::emit_walk_start) before a role's loop: the
///    position of the block's first work unit;
/// 2. [`emit_walk_current`](Self::emit_walk_current) at the loop's top: the
///    current unit's tile and batch in fresh registers, and a predicate,
///    false once the walk is past its last unit;
/// 3. [`emit_walk_step`](Self::emit_walk_step) at the loop's end: the
///    position `steps` units on (ping-pong consumers step by 2: each takes
///    every other unit);
/// 4. [`emit_walk_total`](Self::emit_walk_total) once before a loop, and
///    [`emit_walk_valid`](Self::emit_walk_valid) at its top: the same
///    predicate as `emit_walk_current`'s without working out the tile (a
///    loop that computes the tile elsewhere, as the cooperative consumers
///    do while their last MMAs run).
pub trait PersistentTileScheduler: TileScheduler {
    /// Emits the walk's start: the position of the first work unit.
    fn emit_walk_start(&self, k: &mut Kernel, params: &Self::Params);

    /// Emits the current unit's tile and batch and whether the walk is
    /// still within its units (`.pred`).
    fn emit_walk_current(
        &self,
        k: &mut Kernel,
        params: &Self::Params,
        tiles_m: Reg,
        tiles_n: Reg,
    ) -> (TileCoord, Reg);

    /// Emits the step of the position by `steps` units.
    fn emit_walk_step(&self, k: &mut Kernel, params: &Self::Params, steps: u32);

    /// Emits what [`emit_walk_valid`](Self::emit_walk_valid) compares the
    /// position with (a register of the scheduler's choosing), once.
    fn emit_walk_total(
        &self,
        k: &mut Kernel,
        params: &Self::Params,
        tiles_m: Reg,
        tiles_n: Reg,
    ) -> Reg;

    /// Emits whether the position is within the walk (`.pred`), from
    /// [`emit_walk_total`](Self::emit_walk_total)'s register.
    fn emit_walk_valid(&self, k: &mut Kernel, params: &Self::Params, total: Reg) -> Reg;

    /// Whether the scheduler splits a tile's K loop among work units
    /// (split-K, stream-K): the kernel then asks its mainloop for k-tile
    /// ranges ([`WarpSpecializedMainloop::emit_split_k`](crate::collective::WarpSpecializedMainloop::emit_split_k)),
    /// sets each unit's with [`emit_walk_k_range`](Self::emit_walk_k_range)
    /// and reduces the partial tiles with [`emit_fixup`](Self::emit_fixup).
    /// No by default.
    fn splits_k(&self) -> bool {
        false
    }

    /// Whether this scheduler's reduction is correct where the block's
    /// two consumer warpgroups take turns, each with a unit of its own
    /// (the ping-pong kernel; see [`Fixup::turns`]): every unit waits only
    /// for units before it. No by default.
    fn reduces_in_turns(&self) -> bool {
        false
    }

    /// Emits the current unit's k-tiles, `(first, count)` (`.b32`), out of
    /// the problem's `k_tiles` (a scheduler that [`splits_k`](Self::splits_k)).
    /// The default is the whole loop: `(0, k_tiles)`.
    fn emit_walk_k_range(
        &self,
        k: &mut Kernel,
        _params: &Self::Params,
        k_tiles: Reg,
    ) -> (Reg, Reg) {
        let first = k.reg(crate::ptx::RegClass::B32);
        k.push(format!("mov.u32 {first}, 0;"));
        (first, k_tiles)
    }

    /// Emits, after the current unit's MMAs and before its epilogue, by
    /// every consumer thread, the reduction of a split tile's partial
    /// accumulators (a scheduler that [`splits_k`](Self::splits_k)), and
    /// returns a predicate that holds where this unit stores the tile
    /// (the epilogue runs there alone, once per output element, on the
    /// whole sum). `None` (the default, emitting nothing): every unit
    /// stores its own tile.
    ///
    /// # Errors
    /// The assembler's error.
    fn emit_fixup(
        &self,
        _k: &mut Kernel,
        _params: &Self::Params,
        _fixup: &Fixup<'_>,
    ) -> Result<Option<Reg>, PtxError> {
        Ok(None)
    }
}

/// What [`PersistentTileScheduler::emit_fixup`] works on: the consumers'
/// accumulators and where the consumer threads are.
#[derive(Clone, Copy, Debug)]
pub struct Fixup<'a> {
    /// The thread's accumulators (`.f32` registers).
    pub acc: &'a crate::tiled::RegisterTensor,
    /// The thread's index among the consumer threads (`.b32`, 0 to
    /// `threads - 1`).
    pub thread: Reg,
    /// Consumer threads that hold the tile together.
    pub threads: u32,
    /// A named barrier the consumer threads alone may use.
    pub barrier: u32,
    /// How the partial tiles are added.
    pub reduction: super::Reduction,
    /// Whether the block's consumer warpgroups take turns at the
    /// reduction, each holding a unit of its own (the ping-pong kernel):
    /// a unit may then wait only for units before it (the warpgroup with
    /// the later unit reaches its turn after this one's), so no reduction
    /// that makes units wait for later ones (split-K's spread reduction)
    /// may run.
    pub turns: bool,
}
