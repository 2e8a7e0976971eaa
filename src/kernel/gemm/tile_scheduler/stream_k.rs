//! [`StreamK`]: the stream-K tile scheduler (CUTLASS's
//! `PersistentTileSchedulerSm90StreamK` in its stream-K mode; Osama et al.,
//! "Stream-K", PPoPP'23): data-parallel tiles for whole waves of the grid,
//! and the k-tiles of the tiles that would make a partial last wave spread
//! evenly over every block, their partial tiles added in the kernel in K
//! order through a workspace.
//!
//! # The decomposition
//!
//! With `T` output tiles (every batch's, in the persistent walk's raster
//! order), `KT` k-tiles each and a grid of `G` blocks ([`plan`](StreamK::plan)):
//! - `T % G == 0`: every tile is data-parallel (whole waves);
//! - `T < G`: every tile is stream-K;
//! - else the last full wave joins the partial one: the first `T % G + G`
//!   tiles are stream-K (each block then runs between one and two tiles'
//!   k-tiles of them, so no unit is a sliver), the rest data-parallel.
//!
//! The stream-K tiles' `sk_tiles * KT` k-tiles (iterations, tile after tile)
//! are cut into `units` even ranges, one per block `0..units`: as many as
//! the grid has blocks, fewer where a range would be under
//! [`min_k_tiles`](StreamK::min_k_tiles). Block `b` first walks its range,
//! a segment per tile it touches, then the data-parallel tiles `sk_tiles +
//! b`, `+ G`, ...
//!
//! # The reduction (deterministic)
//!
//! A segment that starts a tile at its first k-tile finishes the tile; a
//! segment that starts inside a tile is a partial one, and only a block's
//! first segment can be (so a block stores at most one partial tile, in
//! slot `b` of the workspace). A partial segment stores its tile in its
//! slot ([`PartialTile`]'s layout) and adds 1 to the tile's counter (a
//! release). The finishing segment, where later blocks hold the rest of the
//! tile's k-tiles (blocks `b + 1 ..= u`, `u` the block of the tile's last
//! k-tile), waits until the counter reads `u - b`, sets it back to 0, and
//! adds the slots `b + 1 ..= u` to its own sum in that order (K order), so
//! every run gives the same bits. The counters are 0 again when the kernel
//! ends: no memset before a launch, and a launch can be replayed from a
//! CUDA graph. Deadlock-free: a finisher waits only for the first segments
//! of later blocks, which run first and wait for nothing, and every block
//! of the grid is resident.
//!
//! # The atomic reduction
//!
//! With [`Reduction::Atomic`](super::super::Reduction::Atomic) the partial
//! segments of a tile add their partial tiles with `red.global.add.v4.f32`
//! into one slot, that of the block after the tile's finisher (the first
//! partial segment's own, as every finisher is its block's last segment),
//! and arrive; the finisher waits as above, adds that one slot to its sum
//! and stores zeros over it for the next launch. The kernel's PTX is then
//! `.version` 8.1 (CUDA 12.1 drivers).
//!
//! # Workspace
//!
//! `2 * G` counters of 128 bytes (one per possible stream-K tile), then `G`
//! slots of `4 * BM * BN` bytes: [`workspace_size_on_device`](super::TileScheduler::workspace_size_on_device).

use super::{
    Fixup, PartialTile, Persistent, PersistentParams, PersistentTileScheduler, TileCoord,
    TileScheduler,
};
use crate::gemm::{ClusterShape, DeclaredParams, GemmShape, ParamRole, ProblemDim};
use crate::ptx::{Kernel, PtxError, Reg, RegClass};

/// Bytes of a stream-K tile's counter (padded to a 128-byte line).
pub const STREAM_K_COUNTER_BYTES: u32 = 128;

/// The fewest k-tiles in a stream-K unit where the stream-K iterations do
/// not give every block that many.
pub const STREAM_K_MIN_K_TILES: u32 = 4;

/// Stream-K over a persistent walk of `BM x BN` tiles without clusters.
///
/// ```
/// use cutlet::gemm::GemmShape;
/// use cutlet::kernel::gemm::{StreamK, TileScheduler};
///
/// let s = StreamK::new([128, 128, 64], 3);
/// // 4 x 4 tiles of 512 x 512 with 256 k-tiles each on 132 SMs: every tile
/// // is stream-K, 4096 k-tiles in 132 units of 31 or 32.
/// let plan = s.plan(16, 256, 132);
/// assert_eq!((plan.sk_tiles, plan.units), (16, 132));
/// assert_eq!(plan.unit_range(0), (0, 32));
/// assert_eq!(plan.unit_range(131), (4065, 31));
/// // 300 tiles of 64 k-tiles on 132 blocks: 36 + 132 stream-K tiles, 132
/// // data-parallel ones.
/// let plan = s.plan(300, 64, 132);
/// assert_eq!((plan.sk_tiles, plan.units), (168, 132));
/// // Whole waves stay data-parallel.
/// assert_eq!(s.plan(264, 64, 132).sk_tiles, 0);
/// // 8 tiles of 16 k-tiles: 128 k-tiles make 32 units of 4.
/// assert_eq!(s.plan(8, 16, 132).units, 32);
/// // The grid is the GPU's; the workspace 2 x 132 counters and a slot per block.
/// assert_eq!(s.grid_on_device(4, 4, 1, 132), (132, 1, 1));
/// assert_eq!(
///     s.workspace_size_on_device(&GemmShape::new(512, 512, 16384, 1), 132),
///     2 * 132 * 128 + 132 * 65536
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StreamK {
    /// The rasterization swizzle of the tile walk.
    pub raster_log: u32,
    /// The output tile and its k-tile, `[BM, BN, BK]`.
    pub tile: [u32; 3],
    /// The fewest k-tiles of a stream-K unit ([`STREAM_K_MIN_K_TILES`]).
    pub min_k_tiles: u32,
}

/// How [`StreamK`] divides one problem: its tiles, their k-tiles, the grid,
/// and the stream-K part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamKPlan {
    /// Output tiles (every batch's).
    pub tiles: u32,
    /// k-tiles of each tile.
    pub k_tiles: u32,
    /// Blocks of the grid.
    pub grid: u32,
    /// The first `sk_tiles` tiles (in the walk's order) are stream-K.
    pub sk_tiles: u32,
    /// Blocks that run a stream-K range (`0..units`).
    pub units: u32,
}

/// One tile's share of a block's work: k-tiles `first .. first + count` of
/// tile `tile`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamKSegment {
    /// The tile's index in the walk's order.
    pub tile: u32,
    /// Its first k-tile.
    pub first: u32,
    /// Its k-tiles.
    pub count: u32,
}

impl StreamKPlan {
    /// The stream-K iterations (k-tiles of the stream-K tiles).
    pub fn iterations(&self) -> u32 {
        self.sk_tiles * self.k_tiles
    }

    /// Quotient and remainder of the iterations by the units (at least 1).
    fn split(&self) -> (u32, u32) {
        let units = self.units.max(1);
        (self.iterations() / units, self.iterations() % units)
    }

    /// Unit `unit`'s iterations `(first, count)`: even ranges, the first
    /// `iterations % units` one longer.
    pub fn unit_range(&self, unit: u32) -> (u32, u32) {
        let (q, r) = self.split();
        (unit * q + unit.min(r), q + u32::from(unit < r))
    }

    /// The unit whose range holds iteration `i`.
    pub fn unit_of(&self, i: u32) -> u32 {
        let (q, r) = self.split();
        let long = r * (q + 1);
        if i < long {
            i / (q + 1)
        } else {
            r + (i - long) / q.max(1)
        }
    }

    /// Block `block`'s walk: its stream-K segments, then its data-parallel
    /// tiles.
    pub fn segments(&self, block: u32) -> Vec<StreamKSegment> {
        let mut walk = Vec::new();
        if block < self.units {
            let (start, len) = self.unit_range(block);
            let mut at = start;
            while at < start + len {
                let tile = at / self.k_tiles;
                let end = ((tile + 1) * self.k_tiles).min(start + len);
                walk.push(StreamKSegment {
                    tile,
                    first: at - tile * self.k_tiles,
                    count: end - at,
                });
                at = end;
            }
        }
        let mut tile = self.sk_tiles + block;
        while tile < self.tiles {
            walk.push(StreamKSegment {
                tile,
                first: 0,
                count: self.k_tiles,
            });
            tile += self.grid;
        }
        walk
    }
}

impl StreamK {
    /// Stream-K over `tile` (`[BM, BN, BK]`) tiles with the default
    /// [`STREAM_K_MIN_K_TILES`].
    pub const fn new(tile: [u32; 3], raster_log: u32) -> StreamK {
        StreamK {
            raster_log,
            tile,
            min_k_tiles: STREAM_K_MIN_K_TILES,
        }
    }

    /// The persistent walk over the tiles.
    fn tiles(&self) -> Persistent {
        Persistent {
            raster_log: self.raster_log,
            cluster: ClusterShape::ONE,
        }
    }

    /// The slot layout of a partial tile over `threads` consumer threads.
    fn slot(&self, threads: u32) -> PartialTile {
        PartialTile {
            threads,
            values: self.tile[0] * self.tile[1] / threads.max(1),
        }
    }

    /// Bytes of one partial tile: `BM x BN` f32.
    pub fn slot_bytes(&self) -> u32 {
        4 * self.tile[0] * self.tile[1]
    }

    /// How `tiles` tiles of `k_tiles` k-tiles divide over a grid of `grid`
    /// blocks (see the module's docs); the kernel works out the same.
    pub fn plan(&self, tiles: u32, k_tiles: u32, grid: u32) -> StreamKPlan {
        let grid = grid.max(1);
        let rem = tiles % grid;
        let sk_tiles = if rem == 0 || k_tiles == 0 {
            0
        } else if tiles > grid {
            rem + grid
        } else {
            tiles
        };
        let iterations = sk_tiles * k_tiles;
        let units = if sk_tiles == 0 {
            0
        } else {
            (iterations / self.min_k_tiles.max(1)).clamp(1, grid)
        };
        StreamKPlan {
            tiles,
            k_tiles,
            grid,
            sk_tiles,
            units,
        }
    }

    /// Emits the plan's registers the walk keeps (see [`StreamKParams`]).
    fn emit_plan(
        &self,
        k: &mut Kernel,
        params: &DeclaredParams,
        walk: &PersistentParams,
    ) -> Result<[Reg; 6], PtxError> {
        let [bm, bn, bk] = self.tile;
        let r = |k: &mut Kernel| k.reg(RegClass::B32);
        let m = params.load(k, ParamRole::Extent(ProblemDim::M))?;
        let n = params.load(k, ParamRole::Extent(ProblemDim::N))?;
        let kk = params.load(k, ParamRole::Extent(ProblemDim::K))?;
        let (tm, tn, tiles, k_tiles) = (r(k), r(k), r(k), r(k));
        k.push(format!("add.u32 {tm}, {m}, {};", bm - 1));
        k.div_u32_by(tm, tm, bm);
        k.push(format!("add.u32 {tn}, {n}, {};", bn - 1));
        k.div_u32_by(tn, tn, bn);
        k.push(format!("mul.lo.u32 {tiles}, {tm}, {tn};"));
        k.push(format!("mul.lo.u32 {tiles}, {tiles}, {};", walk.batches));
        k.push(format!("add.u32 {k_tiles}, {kk}, {};", bk - 1));
        k.div_u32_by(k_tiles, k_tiles, bk);
        let grid = walk.stride;
        let (rem, sk_tiles, wide) = (r(k), r(k), r(k));
        let (p, none) = (k.reg(RegClass::Pred), k.reg(RegClass::Pred));
        k.push(format!("rem.u32 {rem}, {tiles}, {grid};"));
        k.push(format!("add.u32 {wide}, {rem}, {grid};"));
        k.push(format!("setp.gt.u32 {p}, {tiles}, {grid};"));
        k.push(format!("selp.u32 {sk_tiles}, {wide}, {tiles}, {p};"));
        k.push(format!("setp.eq.u32 {none}, {rem}, 0;"));
        k.push(format!("setp.eq.or.u32 {none}, {k_tiles}, 0, {none};"));
        k.push(format!("selp.u32 {sk_tiles}, 0, {sk_tiles}, {none};"));
        let units = r(k);
        k.push(format!("mul.lo.u32 {units}, {sk_tiles}, {k_tiles};"));
        k.div_u32_by(units, units, self.min_k_tiles.max(1));
        k.push(format!("max.u32 {units}, {units}, 1;"));
        k.push(format!("min.u32 {units}, {units}, {grid};"));
        k.push(format!("selp.u32 {units}, 0, {units}, {none};"));
        // The block's range's last tile and where its range ends in it.
        let (start, len) = self.emit_unit_range(k, sk_tiles, k_tiles, units);
        let (end, last_tile, last_end, kt) = (r(k), r(k), r(k), r(k));
        k.push(format!("max.u32 {kt}, {k_tiles}, 1;"));
        k.push(format!("add.u32 {end}, {start}, {len};"));
        k.push(format!("max.u32 {last_end}, {end}, 1;"));
        k.push(format!("sub.u32 {last_end}, {last_end}, 1;"));
        k.push(format!("div.u32 {last_tile}, {last_end}, {kt};"));
        k.push(format!("mul.lo.u32 {last_end}, {last_tile}, {kt};"));
        k.push(format!("sub.u32 {last_end}, {end}, {last_end};"));
        Ok([k_tiles, sk_tiles, units, last_tile, last_end, start])
    }

    /// Emits the block whose range holds stream-K iteration `i` (the
    /// plan's [`unit_of`](StreamKPlan::unit_of)): the first `rem` ranges
    /// hold `q + 1` iterations, the rest `q`.
    fn emit_unit_of(&self, k: &mut Kernel, sp: &StreamKParams, i: Reg) -> Reg {
        let r = |k: &mut Kernel| k.reg(RegClass::B32);
        let (q, rem) = self.emit_split(k, sp.sk_tiles, sp.k_tiles, sp.units);
        let (long, q1, low, high, unit, q_nz) = (r(k), r(k), r(k), r(k), r(k), r(k));
        k.push(format!("add.u32 {q1}, {q}, 1;"));
        k.push(format!("mul.lo.u32 {long}, {rem}, {q1};"));
        k.push(format!("div.u32 {low}, {i}, {q1};"));
        k.push(format!("sub.u32 {high}, {i}, {long};"));
        k.push(format!("max.u32 {q_nz}, {q}, 1;"));
        k.push(format!("div.u32 {high}, {high}, {q_nz};"));
        k.push(format!("add.u32 {high}, {high}, {rem};"));
        let in_long = k.reg(RegClass::Pred);
        k.push(format!("setp.lt.u32 {in_long}, {i}, {long};"));
        k.push(format!("selp.u32 {unit}, {low}, {high}, {in_long};"));
        unit
    }

    /// Emits the quotient and remainder of the stream-K iterations by the
    /// units (at least 1).
    fn emit_split(&self, k: &mut Kernel, sk_tiles: Reg, k_tiles: Reg, units: Reg) -> (Reg, Reg) {
        let r = |k: &mut Kernel| k.reg(RegClass::B32);
        let (iterations, divisor, q, rem) = (r(k), r(k), r(k), r(k));
        k.push(format!("mul.lo.u32 {iterations}, {sk_tiles}, {k_tiles};"));
        k.push(format!("max.u32 {divisor}, {units}, 1;"));
        k.push(format!("div.u32 {q}, {iterations}, {divisor};"));
        k.push(format!("rem.u32 {rem}, {iterations}, {divisor};"));
        (q, rem)
    }

    /// Emits this block's stream-K range `(start, len)` of iterations.
    fn emit_unit_range(
        &self,
        k: &mut Kernel,
        sk_tiles: Reg,
        k_tiles: Reg,
        units: Reg,
    ) -> (Reg, Reg) {
        let r = |k: &mut Kernel| k.reg(RegClass::B32);
        let (q, rem) = self.emit_split(k, sk_tiles, k_tiles, units);
        let (block, start, len, extra) = (r(k), r(k), r(k), r(k));
        k.push(format!("mov.u32 {block}, %ctaid.x;"));
        k.push(format!("min.u32 {extra}, {block}, {rem};"));
        k.push(format!("mad.lo.u32 {start}, {block}, {q}, {extra};"));
        let p = k.reg(RegClass::Pred);
        k.push(format!("setp.lt.u32 {p}, {block}, {rem};"));
        k.push(format!("selp.u32 {len}, 1, 0, {p};"));
        k.push(format!("add.u32 {len}, {len}, {q};"));
        (start, len)
    }

    /// Emits whether the walk is in its stream-K segments, and whether the
    /// current one is the block's range's last.
    fn emit_in_stream_k(&self, k: &mut Kernel, sp: &StreamKParams) -> (Reg, Reg) {
        let (in_sk, last) = (k.reg(RegClass::Pred), k.reg(RegClass::Pred));
        k.push(format!(
            "setp.lt.u32 {in_sk}, {}, {};",
            sp.walk.linear, sp.sk_tiles
        ));
        k.push(format!(
            "setp.eq.and.u32 {last}, {}, {}, {in_sk};",
            sp.walk.linear, sp.last_tile
        ));
        (in_sk, last)
    }
}

/// The registers of a [`StreamK`] walk: the persistent walk's (its linear
/// index is the current tile), the k-tile the current segment starts at,
/// and the plan (computed once at kernel entry from M, N, K, L and the
/// grid).
#[derive(Clone, Copy, Debug)]
pub struct StreamKParams {
    /// The persistent walk; `walk.linear` is the current tile.
    pub walk: PersistentParams,
    /// The tile counts the first/next-tile methods keep.
    pub tiles: [Reg; 2],
    /// The workspace's address (`.b64`).
    pub workspace: Reg,
    /// The current segment's first k-tile (`.b32`).
    pub k_first: Reg,
    /// k-tiles per tile (`.b32`).
    pub k_tiles: Reg,
    /// Stream-K tiles (`.b32`).
    pub sk_tiles: Reg,
    /// Blocks with a stream-K range (`.b32`).
    pub units: Reg,
    /// The tile of this block's range's last k-tile (`.b32`).
    pub last_tile: Reg,
    /// Where this block's range ends in that tile, 1 to `k_tiles` (`.b32`).
    pub last_end: Reg,
    /// This block's range's first iteration (`.b32`; read at the walk's
    /// start).
    pub start: Reg,
}

impl TileScheduler for StreamK {
    type Params = StreamKParams;

    fn params(&self) -> Vec<ParamRole> {
        let mut roles = self.tiles().params();
        roles.push(ParamRole::Workspace);
        roles
    }

    fn param_value(&self, role: ParamRole) -> Option<u32> {
        self.tiles().param_value(role)
    }

    /// The persistent walk's divisors over the tiles.
    fn launch_value(&self, role: ParamRole, walk: &super::WalkLaunch) -> Option<u64> {
        self.tiles().launch_value(role, walk)
    }

    fn grid(&self, tiles_m: u32, tiles_n: u32, l: u32) -> (u32, u32, u32) {
        self.grid_on_device(tiles_m, tiles_n, l, 132)
    }

    /// Every SM's block (the stream-K units need the whole GPU whatever the
    /// tile count; blocks past the work exit at once).
    fn grid_on_device(&self, tiles_m: u32, tiles_n: u32, l: u32, sm_count: u32) -> (u32, u32, u32) {
        let _ = (tiles_m, tiles_n, l);
        (sm_count.max(1), 1, 1)
    }

    fn workspace_size(&self, shape: &GemmShape) -> usize {
        self.workspace_size_on_device(shape, 132)
    }

    /// `2 * G` counters and a slot per unit, for a grid of `G <= sm_count`
    /// blocks (a grid capped below the device's SM count needs no more);
    /// none without k-tiles or tiles.
    fn workspace_size_on_device(&self, shape: &GemmShape, sm_count: u32) -> usize {
        let tiles = shape.m.div_ceil(self.tile[0] as usize)
            * shape.n.div_ceil(self.tile[1] as usize)
            * shape.l;
        let k_tiles = shape.k.div_ceil(self.tile[2] as usize);
        if tiles == 0 || k_tiles == 0 {
            return 0;
        }
        let grid = sm_count.max(1) as usize;
        let units =
            (tiles.saturating_mul(k_tiles) / self.min_k_tiles.max(1) as usize).clamp(1, grid);
        2 * grid * STREAM_K_COUNTER_BYTES as usize + units * self.slot_bytes() as usize
    }

    fn emit_params(
        &self,
        k: &mut Kernel,
        params: &DeclaredParams,
    ) -> Result<Self::Params, PtxError> {
        let (walk, tiles) = self.tiles().emit_params(k, params)?;
        let workspace = params.load(k, ParamRole::Workspace)?;
        let [k_tiles, sk_tiles, units, last_tile, last_end, start] =
            self.emit_plan(k, params, &walk)?;
        let k_first = k.reg(RegClass::B32);
        k.push(format!("mov.u32 {k_first}, 0;"));
        Ok(StreamKParams {
            walk,
            tiles,
            workspace,
            k_first,
            k_tiles,
            sk_tiles,
            units,
            last_tile,
            last_end,
            start,
        })
    }

    fn emit_first_work_tile(
        &self,
        k: &mut Kernel,
        sp: &Self::Params,
        tiles_m: Reg,
        tiles_n: Reg,
    ) -> Result<TileCoord, PtxError> {
        k.push(format!("mov.u32 {}, {tiles_m};", sp.tiles[0]));
        k.push(format!("mov.u32 {}, {tiles_n};", sp.tiles[1]));
        self.emit_walk_start(k, sp);
        Ok(self.emit_walk_current(k, sp, tiles_m, tiles_n).0)
    }

    fn emit_next_work_tile(
        &self,
        k: &mut Kernel,
        sp: &Self::Params,
        _current: &TileCoord,
    ) -> Result<Option<(TileCoord, Reg)>, PtxError> {
        self.emit_walk_step(k, sp, 1);
        Ok(Some(self.emit_walk_current(
            k,
            sp,
            sp.tiles[0],
            sp.tiles[1],
        )))
    }
}

impl PersistentTileScheduler for StreamK {
    /// A block with a stream-K range starts at its first iteration's tile
    /// and k-tile; any other at its first data-parallel tile.
    fn emit_walk_start(&self, k: &mut Kernel, sp: &Self::Params) {
        let r = |k: &mut Kernel| k.reg(RegClass::B32);
        let start = sp.start;
        let (block, kt, tile, first, dp) = (r(k), r(k), r(k), r(k), r(k));
        k.push(format!("mov.u32 {block}, %ctaid.x;"));
        k.push(format!("max.u32 {kt}, {}, 1;", sp.k_tiles));
        k.push(format!("div.u32 {tile}, {start}, {kt};"));
        k.push(format!("rem.u32 {first}, {start}, {kt};"));
        k.push(format!("add.u32 {dp}, {}, {block};", sp.sk_tiles));
        let in_sk = k.reg(RegClass::Pred);
        k.push(format!("setp.lt.u32 {in_sk}, {block}, {};", sp.units));
        k.push(format!(
            "selp.u32 {}, {tile}, {dp}, {in_sk};",
            sp.walk.linear
        ));
        k.push(format!("selp.u32 {}, {first}, 0, {in_sk};", sp.k_first));
    }

    fn emit_walk_current(
        &self,
        k: &mut Kernel,
        sp: &Self::Params,
        tiles_m: Reg,
        tiles_n: Reg,
    ) -> (TileCoord, Reg) {
        self.tiles().emit_current(k, &sp.walk, tiles_m, tiles_n)
    }

    /// The next segment: the next tile of the range, then the block's first
    /// data-parallel tile, then strides of the grid. A stream-K walk steps
    /// one unit at a time (the cooperative schedule).
    fn emit_walk_step(&self, k: &mut Kernel, sp: &Self::Params, steps: u32) {
        debug_assert_eq!(steps, 1, "stream-K runs on the cooperative schedule");
        let r = |k: &mut Kernel| k.reg(RegClass::B32);
        let (in_sk, last) = self.emit_in_stream_k(k, sp);
        let (block, dp, next, strided) = (r(k), r(k), r(k), r(k));
        let linear = sp.walk.linear;
        k.push(format!("mov.u32 {block}, %ctaid.x;"));
        k.push(format!("add.u32 {dp}, {}, {block};", sp.sk_tiles));
        k.push(format!("add.u32 {next}, {linear}, 1;"));
        k.push(format!("selp.u32 {next}, {dp}, {next}, {last};"));
        k.push(format!(
            "mad.lo.u32 {strided}, {}, {steps}, {linear};",
            sp.walk.stride
        ));
        k.push(format!("selp.u32 {linear}, {next}, {strided}, {in_sk};"));
        k.push(format!("mov.u32 {}, 0;", sp.k_first));
    }

    fn emit_walk_total(
        &self,
        k: &mut Kernel,
        sp: &Self::Params,
        tiles_m: Reg,
        tiles_n: Reg,
    ) -> Reg {
        self.tiles().emit_total(k, &sp.walk, tiles_m, tiles_n)
    }

    fn emit_walk_valid(&self, k: &mut Kernel, sp: &Self::Params, total: Reg) -> Reg {
        self.tiles().emit_valid(k, &sp.walk, total)
    }

    fn splits_k(&self) -> bool {
        true
    }

    /// The segment's k-tiles: from its first to the tile's end, or to the
    /// range's end in the range's last tile.
    fn emit_walk_k_range(&self, k: &mut Kernel, sp: &Self::Params, k_tiles: Reg) -> (Reg, Reg) {
        let (_, last) = self.emit_in_stream_k(k, sp);
        let (end, first, count) = (
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
        );
        k.push(format!(
            "selp.u32 {end}, {}, {k_tiles}, {last};",
            sp.last_end
        ));
        k.push(format!("mov.u32 {first}, {};", sp.k_first));
        k.push(format!("sub.u32 {count}, {end}, {first};"));
        (first, count)
    }

    /// The reduction (see the module's docs): returns "this segment stores
    /// its tile", false for a partial segment.
    fn emit_fixup(
        &self,
        k: &mut Kernel,
        sp: &Self::Params,
        fixup: &Fixup<'_>,
    ) -> Result<Option<Reg>, PtxError> {
        let Fixup {
            acc,
            thread,
            threads,
            barrier,
            reduction,
            ..
        } = *fixup;
        let atomic = reduction == super::super::Reduction::Atomic;
        let r = |k: &mut Kernel| k.reg(RegClass::B32);
        let layout = self.slot(threads);
        let regs = acc.regs();
        let linear = sp.walk.linear;
        let (in_sk, last) = self.emit_in_stream_k(k, sp);
        let (partial, stores, finishes) = (
            k.reg(RegClass::Pred),
            k.reg(RegClass::Pred),
            k.reg(RegClass::Pred),
        );
        k.push(format!(
            "setp.ne.and.u32 {partial}, {}, 0, {in_sk};",
            sp.k_first
        ));
        k.push(format!("not.pred {stores}, {partial};"));
        // The finisher of a tile whose later k-tiles other blocks hold: its
        // segment starts the tile and ends inside it.
        k.push(format!(
            "setp.eq.and.u32 {finishes}, {}, 0, {last};",
            sp.k_first
        ));
        k.push(format!(
            "setp.lt.and.u32 {finishes}, {}, {}, {finishes};",
            sp.last_end, sp.k_tiles
        ));
        // The tile's counter, and this thread's first value in slot 0.
        let (counter, slots) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
        k.push(format!(
            "mad.wide.u32 {counter}, {linear}, {STREAM_K_COUNTER_BYTES}, {};",
            sp.workspace
        ));
        let offset = r(k);
        let thread_offset = layout.emit_thread_offset(k, thread);
        k.push(format!(
            "mul.lo.u32 {offset}, {}, {};",
            sp.walk.stride,
            2 * STREAM_K_COUNTER_BYTES
        ));
        k.push(format!("add.u32 {offset}, {offset}, {thread_offset};"));
        k.push(format!("cvt.u64.u32 {slots}, {offset};"));
        k.push(format!("add.u64 {slots}, {slots}, {};", sp.workspace));
        let leader = k.reg(RegClass::Pred);
        k.push(format!("setp.eq.u32 {leader}, {thread}, 0;"));
        let block = r(k);
        k.push(format!("mov.u32 {block}, %ctaid.x;"));
        let slot_bytes = layout.bytes();
        let finish = k.new_label("streamk_finish")?;
        let done = k.new_label("streamk_done")?;
        k.push(format!("@{finishes} bra {};", finish.name()));
        k.push(format!("@!{partial} bra {};", done.name()));
        // A partial segment: its tile into slot `block`, then one arrival.
        // (Atomic: added into the slot of the block after the tile's
        // finisher, the first partial segment's, which every partial
        // segment of the tile shares.)
        let slot = k.reg(RegClass::B64);
        let slot_block = if atomic {
            let first = r(k);
            k.push(format!("mul.lo.u32 {first}, {linear}, {};", sp.k_tiles));
            let finisher = self.emit_unit_of(k, sp, first);
            k.push(format!("add.u32 {finisher}, {finisher}, 1;"));
            finisher
        } else {
            block
        };
        k.push(format!(
            "mad.wide.u32 {slot}, {slot_block}, {slot_bytes}, {slots};"
        ));
        layout.emit_store_and_arrive(k, slot, regs, barrier, leader, counter, reduction);
        k.push(format!("bra.uni {};", done.name()));
        // The finisher: the blocks after it up to the one holding the
        // tile's last k-tile arrive; their slots are added in that order.
        k.place_label(&finish);
        let (i, expected) = (r(k), r(k));
        k.push(format!("mad.lo.u32 {i}, {linear}, {0}, {0};", sp.k_tiles));
        k.push(format!("sub.u32 {i}, {i}, 1;"));
        let end_unit = self.emit_unit_of(k, sp, i);
        k.push(format!("sub.u32 {expected}, {end_unit}, {block};"));
        layout.emit_wait(k, leader, counter, &expected.to_string(), barrier, true)?;
        let (unit, at) = (r(k), k.reg(RegClass::B64));
        if atomic {
            // The partial segments' sum in slot `block + 1`, back to 0.
            k.push(format!("add.u32 {unit}, {block}, 1;"));
            k.push(format!("mad.wide.u32 {at}, {unit}, {slot_bytes}, {slots};"));
            layout.emit_take_and_zero(k, at, regs);
            k.place_label(&done);
            return Ok(Some(stores));
        }
        k.push(format!("add.u32 {unit}, {block}, 1;"));
        let add = k.new_label("streamk_add")?;
        k.place_label(&add);
        k.push(format!("mad.wide.u32 {at}, {unit}, {slot_bytes}, {slots};"));
        for group in layout.groups() {
            let values = layout.emit_load_group(k, at, 0, group.clone(), true);
            for (reg, v) in regs[group].iter().zip(&values) {
                k.push(format!("add.f32 {reg}, {reg}, {v};"));
            }
        }
        let more = k.reg(RegClass::Pred);
        k.push(format!("add.u32 {unit}, {unit}, 1;"));
        k.push(format!("setp.le.u32 {more}, {unit}, {end_unit};"));
        k.push(format!("@{more} bra {};", add.name()));
        k.place_label(&done);
        Ok(Some(stores))
    }
}

#[cfg(test)]
mod tests {
    use super::StreamK;

    /// Every k-tile of every tile is run once; a tile's first k-tile's
    /// segment is the one that stores it, and the blocks that hold the rest
    /// of a stream-K tile are exactly those the finisher waits for (their
    /// first segments, partial ones).
    #[test]
    fn every_k_tile_runs_once_and_each_tile_has_one_finisher() {
        let s = StreamK::new([128, 128, 64], 0);
        for tiles in [1u32, 2, 7, 16, 100, 131, 132, 133, 300, 396, 500] {
            for k_tiles in [1u32, 2, 3, 5, 16, 64, 257] {
                for grid in [1u32, 3, 16, 132] {
                    let plan = s.plan(tiles, k_tiles, grid);
                    assert!(plan.sk_tiles <= tiles && plan.units <= grid);
                    assert!(plan.sk_tiles < 2 * grid);
                    assert_eq!(
                        (tiles - plan.sk_tiles) % grid,
                        if plan.sk_tiles == 0 { tiles % grid } else { 0 }
                    );
                    let mut seen = vec![0u32; (tiles * k_tiles) as usize];
                    let mut finishers = vec![0u32; tiles as usize];
                    let mut partials = vec![Vec::new(); tiles as usize];
                    for block in 0..grid {
                        for (i, seg) in plan.segments(block).iter().enumerate() {
                            assert!(seg.count > 0, "{plan:?} block {block}");
                            for kt in seg.first..seg.first + seg.count {
                                seen[(seg.tile * k_tiles + kt) as usize] += 1;
                            }
                            if seg.first == 0 {
                                finishers[seg.tile as usize] += 1;
                            } else {
                                assert_eq!(i, 0, "only a first segment is partial: {plan:?}");
                                partials[seg.tile as usize].push(block);
                            }
                        }
                    }
                    assert!(seen.iter().all(|&c| c == 1), "{plan:?}");
                    assert!(finishers.iter().all(|&c| c == 1), "{plan:?}");
                    for tile in 0..plan.sk_tiles {
                        let first = plan.unit_of(tile * k_tiles);
                        let last = plan.unit_of((tile + 1) * k_tiles - 1);
                        let want: Vec<u32> = (first + 1..=last).collect();
                        assert_eq!(partials[tile as usize], want, "{plan:?} tile {tile}");
                    }
                }
            }
        }
    }
}
