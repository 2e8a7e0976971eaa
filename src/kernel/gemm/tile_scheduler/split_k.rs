//! [`SplitK`]: a persistent tile scheduler that splits each output tile's
//! K loop into `splits` work units (CUTLASS's split-K mode of
//! `PersistentTileSchedulerSm90StreamK`) and adds their partial tiles in
//! the kernel, in K order, through a workspace.
//!
//! A tile's splits are its work units. Which unit is which is set at
//! launch by the split interleave `Q` ([`SplitK::interleave`]): unit `u` is
//! split `(u / Q) % splits` of tile `(u / (Q x splits)) x Q + u % Q` (the
//! tiles in the persistent scheduler's raster order, every batch's one
//! after another). With `Q = 1` a tile's splits are consecutive units:
//! unit `u` is split `u % splits` of tile `u / splits`. With `Q` the
//! tiles per batch the splits are the outer order: the blocks that start
//! together run the same split of neighbouring tiles, so they read the
//! same rows of A and columns of B at the same k-steps, and L2's request
//! coalescer serves their requests with one read (see below). The launch
//! takes the splits outer where the kernel runs without clusters, the
//! tiles lie at least two deep along both M and N (so both operands are
//! shared), and each split runs at least
//! [`SPLIT_K_OUTER_MIN_K_TILES_PER_SPLIT`] k-tiles; elsewhere `Q = 1`.
//!
//! In a cluster of `cluster_m x cluster_n` CTAs the unit is split
//! `u % splits` of cluster tile `u / splits` (as [`Persistent`] walks
//! them): every CTA of the cluster runs the same k-tiles of its own tile of
//! the cluster tile, so that the cluster's multicast loads of A and B serve
//! all of them, and each CTA reduces its tile through a record of its own.
//! Split `s` runs k-tiles `[s * q + min(s, r), ..)`, `q + (s < r)` of
//! them, where `q` and `r` are the quotient and remainder of the problem's
//! k-tiles by `splits` (a split past the k-tiles runs none and adds
//! zeros).
//!
//! On the ping-pong schedule the block's two consumer warpgroups take
//! units in turn (the first unit `u`, the second `u + stride`, ...), and
//! each reduces its own unit's 64- or 128-row partial tile over its 128
//! threads in its epilogue turn ([`Fixup::turns`](super::Fixup::turns)).
//! A unit waits there only for units before it, which ran on other
//! blocks or took this block's earlier turns, so the turns cannot
//! deadlock; the spread reduction below, whose units also wait for later
//! ones, does not run there.
//!
//! The reduction (CUTLASS's "fixup"), deterministic: each tile has a
//! record in the workspace, a 128-byte header holding a counter, then a
//! slot per split but the last (laid out as [`PartialTile`] says). Every split but the last stores its
//! partial tile in its slot and adds 1 to the counter (a release); the
//! last split waits (one thread spinning with acquire loads) until the
//! counter reads `splits - 1`, sets it back to 0, adds the slots' partials
//! in K order and then its own, and runs the epilogue on the whole sum.
//! So the splits run and store at once, the sum is added in one fixed
//! order (the same bits on every run), and the counters are 0 again when
//! the kernel ends: no memset before a launch (which is what a launch
//! replayed from a CUDA graph needs: `tests/gemm_workspace_gpu.rs` replays
//! one 50 times). Deadlock-free because every block walks its units in
//! increasing order, every block of the persistent grid is resident,
//! and only a tile's last unit (its highest, whatever the interleave)
//! waits, for units before it.
//!
//! Where the finisher would add at least [`SPLIT_K_SPREAD_MIN_BYTES`] of
//! partial tiles ([`SplitK::spreads`]) the deterministic reduction is
//! spread over the splits, where a tile's units run at once: the grid
//! holds at least `splits` blocks and the splits are consecutive units, or
//! it holds every unit of the walk; otherwise it runs as above. Every split but the last,
//! after its arrival, also waits until the counter reads `splits - 1`,
//! adds one chunk of every slot (a `1 / (splits - 1)` share of the
//! record, [`PartialTile::emit_chunk_sum`]) into slot 0, in K order, and
//! arrives again; the last split waits for `2 * (splits - 1)` and reads
//! slot 0 alone. The sums are the same bits as the unspread reduction's;
//! the finisher reads one partial tile instead of `splits - 1`, which is
//! what lets 16 splits run at all (see [`SPLIT_K_SPREAD_MIN_BYTES`]). At 8 splits
//! it gains 3-5%.
//!
//! The splits' order matters because these kernels are bound by their L2
//! reads in the mainloop (ncu, H200, 512x512x16384 in 8 splits of 128x128
//! tiles: 155 MB through L2 at 5.6 TB/s; cuBLASLt's 128x64 tiles in 1x2
//! clusters read 115 MB). L2's request coalescer serves one L2 read to the
//! SMs whose requests for the same sectors arrive together: it merges
//! cuBLASLt's reads 2.2 to 1 there, these kernels' 1.5 to 1 in 2x1
//! clusters (their multicast's share alone), and 1.13 to 1 without
//! clusters with a tile's splits consecutive, because those start together
//! and read different k-ranges. With the splits outer 2.86 to 1 (3.96 M
//! sectors read -> 1.56 M). See [`SPLIT_K_OUTER_MIN_K_TILES_PER_SPLIT`] for
//! the times.
//!
//! With [`Reduction::Atomic`](super::super::Reduction::Atomic) every split
//! but the last adds its partial tile into the record's first slot with
//! `red.global.add.v4.f32` (in the order they arrive) and arrives; the last
//! split waits as above, adds that one slot to its own sum and stores
//! zeros over it, so the slot is 0 again for the next launch (the
//! workspace is zeroed when it is allocated or given). The record keeps
//! its size. The kernel's PTX is then `.version` 8.1 (CUDA 12.1 drivers).

use super::{
    Fixup, PartialTile, Persistent, PersistentParams, PersistentTileScheduler, RasterOrder,
    TileCoord, TileScheduler,
};
use crate::gemm::{ClusterShape, DeclaredParams, GemmShape, ParamRole, ProblemDim, WalkDivisor};
use crate::ptx::{Kernel, LaunchDivisor, PtxError, Reg, RegClass};

/// Bytes of a tile record's header (its flag, padded to a 128-byte line).
pub const SPLIT_K_RECORD_HEADER: u32 = 128;

/// Fewest bytes of partial tiles the finisher would add alone (the
/// splits but the last times a slot) for which the deterministic reduction
/// is spread over the splits: 448 KiB, seven 128x128 slots. H200,
/// 2026-11-28, bf16, cutlet / cutlet's serial sum in one process (µs):
///
/// | tile, splits | finisher's bytes | serial | spread |
/// |---|---|---|---|
/// | 128x128, 16 (512x512x16384) | 960 KiB | 77.3-78.5 | 33.2-33.7 |
/// | 128x128, 8 (1024x1024x8192) | 448 KiB | 72.4-73.6 | 51.2-53.0 |
/// | 128x128, 8 (512x1024x16384) | 448 KiB | 51.8-52.2 | 42.6-42.7 |
/// | 128x128, 8 (512x512x16384) | 448 KiB | 26.5-28.4 | 25.9-27.4 |
/// | 128x64, 8 (64x1024x16384, swap-AB) | 224 KiB | 18.7-18.9 | 18.8-18.9 |
/// | 128x128, 4 (512x1024x4096) | 192 KiB | 16.5-16.6 | 18.0-19.0 |
/// | 128x16, 8 (1x1024x16384, swap-AB) | 56 KiB | 15.1 | 15.9-16.1 |
///
/// Below it the second wait costs more than the finisher's reads save.
pub const SPLIT_K_SPREAD_MIN_BYTES: u32 = 448 * 1024;

/// Fewest k-tiles each split runs for which a launch without clusters
/// takes the splits as the outer order of the units (where the tiles lie
/// at least two deep along M and N; [`SplitK::interleave`]). H200,
/// 2026-11-29, bf16, cutlet / cuBLASLt in one process, two rounds, the
/// splits outer against consecutive (cooperative, no cluster):
///
/// | problem, tiles, splits | k-tiles a split | consecutive | outer |
/// |---|---|---|---|
/// | 512x512x16384, 128x64, 4 | 64 | 0.669-0.670 | 0.941-0.957 |
/// | 256x1024x16384, 128x64, 4 | 64 | 0.826-0.850 | 1.018-1.025 |
/// | 512x1024x16384, 128x64, 2 | 128 | 0.827-0.835 | 0.986-0.989 |
/// | 1024x512x16384, 128x64, 2 | 128 | 0.644-0.690 | 0.734-0.895 |
/// | 512x1024x8192, 128x64, 2 | 64 | 0.954-0.961 | 1.035-1.062 |
/// | 512x512x8192, 128x64, 4 | 32 | 0.848-0.859 | 0.979-0.981 |
/// | 256x512x16384, 128x64, 8 | 32 | 0.799-0.804 | 0.893-0.897 |
/// | 256x1024x8192, 128x64, 4 | 32 | 1.006-1.010 | 0.988-0.989 |
/// | 512x1024x4096, 128x64, 2 | 32 | 0.871-0.877 | 0.859-0.864 |
/// | 256x1024x4096, 128x64, 4 | 16 | 0.974-1.001 | 0.942-0.944 |
///
/// With 32 k-tiles a split it was a gain or a 1-2% loss, so it takes 64.
/// With one row of tiles (128x1024xK, swap-AB's 64-row tiles at a small M,
/// 128x1536x7168) the splits outer lost 2-6% at 16 to 43 k-tiles a split
/// (2026-11-29, twenty-sixth stop): the units stream their own columns of
/// B from DRAM and share little in L2.
pub const SPLIT_K_OUTER_MIN_K_TILES_PER_SPLIT: u32 = 64;

/// Split-K over a persistent walk of `BM x BN` tiles, in clusters of
/// `cluster` CTAs.
///
/// ```
/// use cutlet::gemm::{ClusterShape, GemmShape};
/// use cutlet::kernel::gemm::{SplitK, TileScheduler};
///
/// let s = SplitK { splits: 4, raster_log: 3, tile: [128, 128], cluster: ClusterShape::ONE };
/// // 4 x 4 tiles of 512 x 512, 4 splits each: 64 units, one block each.
/// assert_eq!(s.grid_on_device(4, 4, 1, 132), (64, 1, 1));
/// // A record per tile: the header and a 128 x 128 f32 partial tile for
/// // each split but the last.
/// assert_eq!(s.workspace_size(&GemmShape::new(512, 512, 16384, 1)), 16 * (128 + 3 * 65536));
/// // k-tiles 0..256 in 4 splits of 64; 10 k-tiles in 4: 3, 3, 2, 2.
/// assert_eq!(s.k_range(1, 256), (64, 64));
/// assert_eq!((0..4).map(|split| s.k_range(split, 10)).collect::<Vec<_>>(), [(0, 3), (3, 3), (6, 2), (8, 2)]);
///
/// // In 2x1 clusters: 2 x 4 cluster tiles of 4 splits, 32 units of 2 CTAs;
/// // a record for each CTA of each cluster tile.
/// let s = SplitK { cluster: ClusterShape::new(2, 1), ..s };
/// assert_eq!(s.grid_on_device(4, 4, 1, 132), (64, 1, 1));
/// assert_eq!(s.workspace_size(&GemmShape::new(512, 512, 16384, 1)), 8 * 2 * (128 + 3 * 65536));
/// // 3 x 3 tiles: 2 x 3 cluster tiles; the CTAs past M keep records too.
/// assert_eq!(s.workspace_size(&GemmShape::new(384, 384, 4096, 1)), 6 * 2 * (128 + 3 * 65536));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SplitK {
    /// Work units per tile (at least 1).
    pub splits: u32,
    /// The rasterization swizzle of the tile walk.
    pub raster_log: u32,
    /// The output tile, `[BM, BN]`.
    pub tile: [u32; 2],
    /// The cluster: CTAs along M and N ([`ClusterShape::ONE`] for none).
    pub cluster: ClusterShape,
}

impl SplitK {
    /// The persistent walk over (cluster) tiles this scheduler splits.
    fn tiles(&self) -> Persistent {
        Persistent {
            raster_log: self.raster_log,
            cluster: self.cluster,
        }
    }

    /// Bytes of one partial tile: `BM x BN` f32.
    pub fn slot_bytes(&self) -> u32 {
        4 * self.tile[0] * self.tile[1]
    }

    /// Bytes of one tile's record: the header and a partial tile for every
    /// split but the last.
    pub fn record_bytes(&self) -> u32 {
        SPLIT_K_RECORD_HEADER + (self.splits.max(1) - 1) * self.slot_bytes()
    }

    /// The k-tiles `(first, count)` split `split` runs of `k_tiles`.
    pub fn k_range(&self, split: u32, k_tiles: u32) -> (u32, u32) {
        let s = self.splits.max(1);
        let (q, r) = (k_tiles / s, k_tiles % s);
        (split * q + split.min(r), q + u32::from(split < r))
    }

    /// Whether the deterministic reduction is spread over the splits (see
    /// the module's docs): where the finisher would otherwise add at least
    /// [`SPLIT_K_SPREAD_MIN_BYTES`] of partial tiles alone.
    ///
    /// ```
    /// use cutlet::kernel::gemm::{Reduction, SplitK};
    ///
    /// let split = |splits, tile| SplitK { splits, raster_log: 3, tile, cluster: Default::default() };
    /// // 7 slots of 128 x 128 f32 (448 KiB): spread.
    /// assert!(split(8, [128, 128]).spreads(Reduction::Deterministic));
    /// // 3 slots (192 KiB), or 7 of 128 x 16 (56 KiB): the finisher alone.
    /// assert!(!split(4, [128, 128]).spreads(Reduction::Deterministic));
    /// assert!(!split(8, [128, 16]).spreads(Reduction::Deterministic));
    /// // The atomic reduction adds into one slot as the splits arrive.
    /// assert!(!split(16, [128, 128]).spreads(Reduction::Atomic));
    /// ```
    pub fn spreads(&self, reduction: super::super::Reduction) -> bool {
        reduction == super::super::Reduction::Deterministic
            && self.splits >= 3
            && u64::from(self.splits - 1) * u64::from(self.slot_bytes())
                >= u64::from(SPLIT_K_SPREAD_MIN_BYTES)
    }

    /// The split interleave a launch passes (see the module's docs): the
    /// tiles per batch where the splits are the outer order (no cluster,
    /// at least two tiles along M and along N, and at least
    /// [`SPLIT_K_OUTER_MIN_K_TILES_PER_SPLIT`] k-tiles a split), else 1.
    ///
    /// ```
    /// use cutlet::gemm::ClusterShape;
    /// use cutlet::kernel::gemm::{SplitK, WalkLaunch};
    ///
    /// let s = SplitK { splits: 4, raster_log: 3, tile: [128, 64], cluster: ClusterShape::ONE };
    /// // 512 x 512 x 16384: 4 x 8 tiles, 256 k-tiles, 64 a split.
    /// let walk = WalkLaunch::of([512, 512], [128, 64], [3, 0]).with_k(16384, 64);
    /// assert_eq!(s.interleave(&walk), 32);
    /// // K = 8192 leaves 32 k-tiles a split; one row of tiles shares no B.
    /// assert_eq!(s.interleave(&walk.with_k(8192, 64)), 1);
    /// assert_eq!(s.interleave(&WalkLaunch::of([128, 1024], [128, 64], [3, 0]).with_k(16384, 64)), 1);
    /// // In clusters the splits stay consecutive.
    /// assert_eq!(SplitK { cluster: ClusterShape::new(2, 1), ..s }.interleave(&walk), 1);
    /// ```
    pub fn interleave(&self, walk: &super::WalkLaunch) -> u32 {
        let outer = self.splits > 1
            && self.cluster.mn() == [1, 1]
            && walk.tiles_m >= 2
            && walk.tiles_n >= 2
            && walk.k_tiles / self.splits >= SPLIT_K_OUTER_MIN_K_TILES_PER_SPLIT;
        if outer {
            walk.tiles_m.saturating_mul(walk.tiles_n)
        } else {
            1
        }
    }

    /// The `(tile, split)` of unit `unit` with split interleave
    /// `interleave` (see the module's docs), as the kernel works them out:
    /// `tile` counts (cluster) tiles over every batch.
    ///
    /// ```
    /// use cutlet::gemm::ClusterShape;
    /// use cutlet::kernel::gemm::SplitK;
    ///
    /// let s = SplitK { splits: 4, raster_log: 3, tile: [128, 64], cluster: ClusterShape::ONE };
    /// // Consecutive: units 0..4 are tile 0's splits.
    /// assert_eq!(s.unit(5, 1), (1, 1));
    /// // 32 tiles a batch, the splits outer: units 0..32 are split 0 of every tile,
    /// assert_eq!(s.unit(33, 32), (1, 1));
    /// // and the second batch's units follow the first's 128.
    /// assert_eq!(s.unit(128 + 70, 32), (32 + 6, 2));
    /// ```
    pub fn unit(&self, unit: u32, interleave: u32) -> (u32, u32) {
        let (splits, q_len) = (self.splits.max(1), interleave.max(1));
        let (q, within) = (unit / q_len, unit % q_len);
        ((q / splits) * q_len + within, q % splits)
    }

    /// Emits the unit's (cluster) tile over every batch and its split, as
    /// [`unit`](Self::unit) works them out from the interleave's divisor
    /// (`interleave`, `.b64`) and the problem's `tiles` along M and N.
    fn emit_tile_and_split(
        &self,
        k: &mut Kernel,
        p: &PersistentParams,
        tiles: &[Reg; 2],
        interleave: Reg,
    ) -> (Reg, Reg) {
        let r = |k: &mut Kernel| k.reg(RegClass::B32);
        let (tile, split) = (r(k), r(k));
        if self.cluster.mn() != [1, 1] {
            // The launch passes 1.
            k.div_u32_by(tile, p.linear, self.splits);
            k.rem_u32_by(split, p.linear, self.splits);
            return (tile, split);
        }
        // The interleave is 1 or the tiles per batch.
        let [_, _, per_batch] = self.tiles().emit_cluster_tiles(k, tiles[0], tiles[1]);
        let outer = emit_outer(k, interleave);
        let (q, q_len, within) = (r(k), r(k), r(k));
        k.div_u32_by_param(q, p.linear, interleave);
        k.push(format!("selp.u32 {q_len}, {per_batch}, 1, {outer};"));
        k.push(format!("mul.lo.u32 {within}, {q}, {q_len};"));
        k.push(format!("sub.u32 {within}, {}, {within};", p.linear));
        k.rem_u32_by(split, q, self.splits);
        k.div_u32_by(tile, q, self.splits);
        k.push(format!("mad.lo.u32 {tile}, {tile}, {q_len}, {within};"));
        (tile, split)
    }
}

/// Emits the predicate "the splits are the outer order": the interleave's
/// divisor (`.b64`) is not 1's.
fn emit_outer(k: &mut Kernel, interleave: Reg) -> Reg {
    let one = LaunchDivisor::new(1).map_or(0, LaunchDivisor::param);
    let outer = k.reg(RegClass::Pred);
    k.push(format!("setp.ne.b64 {outer}, {interleave}, {one};"));
    outer
}

impl TileScheduler for SplitK {
    /// The persistent walk's registers, its tile counts, and the
    /// workspace's address and the split interleave's divisor (`.b64`).
    type Params = (PersistentParams, [Reg; 2], Reg, Reg);

    fn params(&self) -> Vec<ParamRole> {
        let mut roles = self.tiles().params();
        roles.push(ParamRole::WalkDivisor(WalkDivisor::SplitInterleave));
        roles.push(ParamRole::Workspace);
        roles
    }

    fn param_value(&self, role: ParamRole) -> Option<u32> {
        match role {
            ParamRole::RasterOrder => Some(RasterOrder::AlongN.param()),
            ParamRole::RasterLog => Some(self.raster_log),
            _ => None,
        }
    }

    /// The persistent walk's divisors over the tiles, and the split
    /// interleave's ([`interleave`](Self::interleave)).
    fn launch_value(&self, role: ParamRole, walk: &super::WalkLaunch) -> Option<u64> {
        match role {
            ParamRole::WalkDivisor(WalkDivisor::SplitInterleave) => {
                LaunchDivisor::new(self.interleave(walk)).map(LaunchDivisor::param)
            }
            _ => self.tiles().launch_value(role, walk),
        }
    }

    fn grid(&self, tiles_m: u32, tiles_n: u32, l: u32) -> (u32, u32, u32) {
        self.grid_on_device(tiles_m, tiles_n, l, 132)
    }

    /// The persistent walk's grid over the units (`splits` per cluster
    /// tile).
    fn grid_on_device(&self, tiles_m: u32, tiles_n: u32, l: u32, sm_count: u32) -> (u32, u32, u32) {
        // As many cluster tiles along N as the walk's times the splits.
        let cn = self.cluster.n;
        self.tiles().grid_on_device(
            tiles_m,
            tiles_n
                .div_ceil(cn)
                .saturating_mul(self.splits.max(1))
                .saturating_mul(cn),
            l,
            sm_count,
        )
    }

    /// A record per CTA of every cluster tile of every batch (a record per
    /// output tile without clusters); none with one split.
    fn workspace_size(&self, shape: &GemmShape) -> usize {
        if self.splits <= 1 {
            return 0;
        }
        let [cm, cn] = self.cluster.mn();
        let cluster_tiles = shape.m.div_ceil((self.tile[0] * cm) as usize)
            * shape.n.div_ceil((self.tile[1] * cn) as usize)
            * shape.l;
        cluster_tiles * (cm * cn) as usize * self.record_bytes() as usize
    }

    fn emit_params(
        &self,
        k: &mut Kernel,
        params: &DeclaredParams,
    ) -> Result<Self::Params, PtxError> {
        let (p, tiles) = self.tiles().emit_params(k, params)?;
        let interleave = params.load(k, ParamRole::WalkDivisor(WalkDivisor::SplitInterleave))?;
        let workspace = params.load(k, ParamRole::Workspace)?;
        if self.cluster.mn() == [1, 1] {
            // The tiles along M and N, which every role's units read: set
            // here, before the roles part.
            for (i, dim) in [ProblemDim::M, ProblemDim::N].into_iter().enumerate() {
                let extent = params.load(k, ParamRole::Extent(dim))?;
                k.push(format!(
                    "add.u32 {}, {extent}, {};",
                    tiles[i],
                    self.tile[i] - 1
                ));
                k.div_u32_by(tiles[i], tiles[i], self.tile[i]);
            }
        }
        Ok((p, tiles, workspace, interleave))
    }

    fn emit_first_work_tile(
        &self,
        k: &mut Kernel,
        (p, tiles, _, _): &Self::Params,
        tiles_m: Reg,
        tiles_n: Reg,
    ) -> Result<TileCoord, PtxError> {
        self.tiles()
            .emit_first_work_tile(k, &(*p, *tiles), tiles_m, tiles_n)
    }

    fn emit_next_work_tile(
        &self,
        k: &mut Kernel,
        (p, tiles, _, _): &Self::Params,
        current: &TileCoord,
    ) -> Result<Option<(TileCoord, Reg)>, PtxError> {
        self.tiles().emit_next_work_tile(k, &(*p, *tiles), current)
    }
}

impl PersistentTileScheduler for SplitK {
    fn emit_walk_start(&self, k: &mut Kernel, (p, _, _, _): &Self::Params) {
        self.tiles().emit_start(k, p);
    }

    /// The tile of unit `linear`: the persistent walk's tile of
    /// [`unit`](SplitK::unit) (`linear / splits` where the splits are
    /// consecutive).
    fn emit_walk_current(
        &self,
        k: &mut Kernel,
        (p, tiles, _, interleave): &Self::Params,
        tiles_m: Reg,
        tiles_n: Reg,
    ) -> (TileCoord, Reg) {
        let (tile, _) = self.emit_tile_and_split(k, p, tiles, *interleave);
        let at_tile = PersistentParams { linear: tile, ..*p };
        self.tiles().emit_current(k, &at_tile, tiles_m, tiles_n)
    }

    fn emit_walk_step(&self, k: &mut Kernel, (p, _, _, _): &Self::Params, steps: u32) {
        self.tiles().emit_step(k, p, steps);
    }

    /// The units of the walk: the tiles times `splits` (`.b64`).
    fn emit_walk_total(
        &self,
        k: &mut Kernel,
        (p, _, _, _): &Self::Params,
        tiles_m: Reg,
        tiles_n: Reg,
    ) -> Reg {
        let total = self.tiles().emit_total(k, p, tiles_m, tiles_n);
        k.push(format!("mul.lo.u64 {total}, {total}, {};", self.splits));
        total
    }

    fn emit_walk_valid(&self, k: &mut Kernel, (p, _, _, _): &Self::Params, total: Reg) -> Reg {
        self.tiles().emit_valid(k, p, total)
    }

    fn splits_k(&self) -> bool {
        self.splits > 1
    }

    /// Yes: only a tile's last unit waits, for the units before it (the
    /// spread reduction, whose units wait for later ones too, does not
    /// run where the warpgroups take turns).
    fn reduces_in_turns(&self) -> bool {
        true
    }

    fn emit_walk_k_range(
        &self,
        k: &mut Kernel,
        (p, tiles, _, interleave): &Self::Params,
        k_tiles: Reg,
    ) -> (Reg, Reg) {
        let r = |k: &mut Kernel| k.reg(RegClass::B32);
        let (_, split) = self.emit_tile_and_split(k, p, tiles, *interleave);
        let (q, rem, first, count, extra) = (r(k), r(k), r(k), r(k), r(k));
        k.div_u32_by(q, k_tiles, self.splits);
        k.rem_u32_by(rem, k_tiles, self.splits);
        k.push(format!("min.u32 {extra}, {split}, {rem};"));
        k.push(format!("mad.lo.u32 {first}, {split}, {q}, {extra};"));
        let p_extra = k.reg(RegClass::Pred);
        k.push(format!("setp.lt.u32 {p_extra}, {split}, {rem};"));
        k.push(format!("selp.u32 {count}, 1, 0, {p_extra};"));
        k.push(format!("add.u32 {count}, {count}, {q};"));
        (first, count)
    }

    /// The reduction (see the module's docs).
    fn emit_fixup(
        &self,
        k: &mut Kernel,
        (p, tiles, workspace, interleave): &Self::Params,
        fixup: &Fixup<'_>,
    ) -> Result<Option<Reg>, PtxError> {
        if self.splits <= 1 {
            return Ok(None);
        }
        let Fixup {
            acc,
            thread,
            threads,
            barrier,
            reduction,
            turns,
        } = *fixup;
        let atomic = reduction == super::super::Reduction::Atomic;
        let (tile, split) = self.emit_tile_and_split(k, p, tiles, *interleave);
        // The CTA's record (its counter): cluster tile `tile`'s, at the
        // CTA's rank in the cluster (M first); and this thread's first
        // value in the record's first partial slot.
        let [cm, cn] = self.cluster.mn();
        if cm * cn > 1 {
            k.push(format!("mul.lo.u32 {tile}, {tile}, {};", cm * cn));
            k.push(format!("mad.lo.u32 {tile}, {}, {cm}, {tile};", p.cta_n));
            k.push(format!("add.u32 {tile}, {tile}, {};", p.cta_m));
        }
        let (record, partial) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
        k.push(format!(
            "mad.wide.u32 {record}, {tile}, {}, {workspace};",
            self.record_bytes()
        ));
        let layout = PartialTile {
            threads,
            values: acc.regs().len() as u32,
        };
        let offset = layout.emit_thread_offset(k, thread);
        k.push(format!(
            "add.u32 {offset}, {offset}, {SPLIT_K_RECORD_HEADER};"
        ));
        k.push(format!("cvt.u64.u32 {partial}, {offset};"));
        k.push(format!("add.u64 {partial}, {partial}, {record};"));
        let leader = k.reg(RegClass::Pred);
        k.push(format!("setp.eq.u32 {leader}, {thread}, 0;"));
        let regs = acc.regs();
        let slot_bytes = self.slot_bytes();
        let stores = k.reg(RegClass::Pred);
        k.push(format!(
            "setp.eq.u32 {stores}, {split}, {};",
            self.splits - 1
        ));
        // Whether the reduction is spread (the grid holds every split of a
        // tile at once: `splits` blocks where they are consecutive units,
        // else every unit), set before the paths part: both read it.
        let parts = self.splits - 1;
        let spread = (self.spreads(reduction) && !turns).then(|| {
            let spread = k.reg(RegClass::Pred);
            k.push(format!(
                "setp.ge.u32 {spread}, {}, {};",
                p.stride, self.splits
            ));
            if self.cluster.mn() == [1, 1] {
                let outer = emit_outer(k, *interleave);
                let params = (*p, *tiles, *workspace, *interleave);
                let total = self.emit_walk_total(k, &params, tiles[0], tiles[1]);
                let (stride, all) = (k.reg(RegClass::B64), k.reg(RegClass::Pred));
                k.push(format!("cvt.u64.u32 {stride}, {};", p.stride));
                k.push(format!("setp.ge.u64 {all}, {stride}, {total};"));
                k.push(format!("@{outer} mov.pred {spread}, {all};"));
            }
            spread
        });
        let last = k.new_label("splitk_last")?;
        let done = k.new_label("splitk_done")?;
        k.push(format!("@{stores} bra {};", last.name()));
        // Every split but the last: its partial tile into its slot, then one
        // arrival on the tile's counter.
        // (Atomic: every split adds into slot 0.)
        let slot = k.reg(RegClass::B64);
        let slot_of_split = if atomic { 0 } else { slot_bytes };
        k.push(format!(
            "mad.wide.u32 {slot}, {split}, {slot_of_split}, {partial};"
        ));
        layout.emit_store_and_arrive(k, slot, regs, barrier, leader, record, reduction);
        // The spread reduction: the splits but the last each add one chunk
        // of every slot into slot 0 and arrive again.
        if let Some(spread) = spread {
            let slots = k.reg(RegClass::B64);
            k.push(format!(
                "add.u64 {slots}, {record}, {SPLIT_K_RECORD_HEADER};"
            ));
            k.push(format!("@!{spread} bra {};", done.name()));
            layout.emit_wait(k, leader, record, &parts.to_string(), barrier, false)?;
            layout.emit_chunk_sum(k, slots, parts, split, thread)?;
            layout.emit_arrive(k, barrier, leader, record);
        }
        k.push(format!("bra.uni {};", done.name()));
        // The last split: once every other split has arrived (twice where
        // the reduction is spread), the slots' partials added in K order,
        // then its own; the counter back to 0.
        k.place_label(&last);
        let expected = match spread {
            Some(spread) => {
                let expected = k.reg(RegClass::B32);
                k.push(format!(
                    "selp.u32 {expected}, {}, {parts}, {spread};",
                    2 * parts
                ));
                expected.to_string()
            }
            None => parts.to_string(),
        };
        layout.emit_wait(k, leader, record, &expected, barrier, true)?;
        if atomic {
            // The other splits' sum in slot 0, which goes back to 0.
            layout.emit_take_and_zero(k, partial, regs);
            k.place_label(&done);
            return Ok(Some(stores));
        }
        if let Some(spread) = spread {
            // Slot 0 holds the slots' sum: one read of it.
            let serial = k.new_label("splitk_serial")?;
            k.push(format!("@!{spread} bra {};", serial.name()));
            layout.emit_add_slot(k, partial, regs);
            k.push(format!("bra.uni {};", done.name()));
            k.place_label(&serial);
        }
        // Vector loads where few slots are held at once.
        // (Where the reduction may be spread, this path runs only on a grid
        // smaller than the splits: one value per access, which leaves the
        // assembler free to place each in any register, spilled nothing
        // where 16-byte vectors beside the spread path's code spilled 24
        // bytes at 128x128 with 8 splits.)
        let vector = self.splits <= 8 && spread.is_none();
        for group in layout.groups() {
            let sum = layout.emit_load_group(k, partial, 0, group.clone(), vector);
            for s in 1..self.splits - 1 {
                let value =
                    layout.emit_load_group(k, partial, s * slot_bytes, group.clone(), vector);
                for (total, v) in sum.iter().zip(&value) {
                    k.push(format!("add.f32 {total}, {total}, {v};"));
                }
            }
            for (reg, total) in regs[group].iter().zip(&sum) {
                k.push(format!("add.f32 {reg}, {total}, {reg};"));
            }
        }
        k.place_label(&done);
        Ok(Some(stores))
    }
}
