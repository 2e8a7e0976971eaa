//! [`Persistent`]: the persistent tile scheduler (CUTLASS's
//! `PersistentTileSchedulerSm90`): as many clusters as the GPU runs at once,
//! each walking the output tiles of every batch with a stride of the grid.
//! Where the last round of tiles would leave clusters idle, the grid is the
//! fewest clusters that take the same number of rounds (CUTLASS launches
//! all that fit), for walks of up to [`BALANCED_ROUNDS`] rounds: on a GPU
//! held to its power limit the others only draw power and L2 bandwidth
//! while they run their one tile fewer. H100, bf16 4096³ (256 cluster
//! tiles of 2, 66 clusters or 64, 4 rounds either way): 1.003-1.007 of
//! cuBLASLt against 0.995-0.997.
//!
//! The unit of work is a cluster tile: `cluster_m x cluster_n` output tiles
//! that the CTAs of one cluster compute together (CTA rank `r` of the
//! cluster takes tile `(r % cluster_m, r / cluster_m)` of it), so that the
//! CTAs of a cluster always share A rows and B columns for multicast.
//! Cluster tile `w` (of `ceil(tiles_m / cluster_m) x ceil(tiles_n /
//! cluster_n)` per batch, batches one after another) is walked as
//! [`RasterOrder::tile`](super::RasterOrder::tile) walks tiles, in the
//! launch's raster order and groups of `2^raster_log` cluster tiles. A cluster starts at its `%clusterid.x`
//! and steps by `%nclusterid.x`; a CTA whose tile of a cluster tile lies
//! past M or N still runs the mainloop (its peers multicast into it and
//! count on its loads) but stores nothing.
//!
//! The walk's three divisions (the batch, the raster group, the tile in
//! it) divide by the multipliers and shifts the launcher passes
//! ([`WalkDivisor`], [`LaunchDivisor`]): a `div.u32` by a register is a
//! reciprocal sequence of dozens of cycles, and the three feed one another
//! on the way to a block's first load.

use super::data_parallel::{load_raster_divisors, raster_divisor, RASTER_DIVISORS};
use super::{
    emit_raster, PersistentTileScheduler, RasterOrder, TileCoord, TileScheduler, WalkLaunch,
};
use crate::gemm::{ClusterShape, DeclaredParams, GemmShape, ParamRole, WalkDivisor};
use crate::ptx::{Kernel, LaunchDivisor, PtxError, Reg, RegClass};

/// The most rounds of tiles for which the persistent grid is cut to the
/// fewest clusters that take them in as many rounds. H100, cutlet /
/// cuBLASLt, the resident grid against the cut one in one process: 2
/// rounds (2048³ ping-pong) 0.953-0.962 against 0.960-0.964; 4 (4096³)
/// 0.996-0.997 against 1.003-1.004; 9 (6144³) 0.992-0.996 against
/// 0.999-1.000; 16 (8192³) 1.021-1.023 both; 32 (8192x8192x1024
/// ping-pong) 1.048-1.050 against 1.042-1.044.
pub const BALANCED_ROUNDS: u32 = 16;

/// A persistent scheduler over clusters of `cluster.m x cluster.n` CTAs.
///
/// ```
/// use cutlet::gemm::ClusterShape;
/// use cutlet::kernel::gemm::{Persistent, TileScheduler};
///
/// let scheduler = Persistent { raster_log: 3, cluster: ClusterShape::new(2, 1) };
/// // 16 x 16 tiles, 2 batches: 256 cluster tiles; a GPU of 132 SMs runs 66
/// // clusters of 2 at once, 4 rounds (3.9): 64 clusters take them in 4 as well.
/// assert_eq!(scheduler.grid_on_device(32, 16, 2, 132), (128, 1, 1));
/// // 4 x 66 cluster tiles fill every round of the whole GPU.
/// assert_eq!(scheduler.grid_on_device(24, 22, 1, 132), (132, 1, 1));
/// // A small problem takes one cluster per cluster tile.
/// assert_eq!(scheduler.grid_on_device(3, 2, 1, 132), (8, 1, 1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Persistent {
    /// The rasterization swizzle the launcher passes (`raster_log`).
    pub raster_log: u32,
    /// The cluster: CTAs along M and N.
    pub cluster: ClusterShape,
}

/// The registers of a [`Persistent`] walk in one thread: the scheduler's
/// parameter and sizes, and the current linear cluster-tile index (every
/// call to [`TileScheduler::emit_next_work_tile`] moves it on).
#[derive(Clone, Copy, Debug)]
pub struct PersistentParams {
    /// `raster_log` (`.b32`).
    pub raster_log: Reg,
    /// `raster_order` (`.b32`; not 0: along M).
    pub along_m: Reg,
    /// The current cluster tile's linear index (`.b32`).
    pub linear: Reg,
    /// The number of clusters in the grid (`.b32`).
    pub stride: Reg,
    /// This CTA's M index inside its cluster (`.b32`).
    pub cta_m: Reg,
    /// This CTA's N index inside its cluster (`.b32`).
    pub cta_n: Reg,
    /// L (`.b32`).
    pub batches: Reg,
    /// The walk's divisors (`.b64`, [`LaunchDivisor::param`]): cluster
    /// tiles per batch, then the raster's per group, group and group tail.
    pub divisors: [Reg; 4],
}

impl Persistent {
    fn cluster_size(&self) -> u32 {
        self.cluster.ctas()
    }

    /// The host model of the walk: the (tile_m, tile_n, batch) of cluster
    /// tile `linear` for the CTA at `(cta_m, cta_n)` of its cluster, the
    /// cluster tiles walked in `order` ([`Auto`](RasterOrder::Auto) resolved
    /// by this cluster, [`Heuristic`](RasterOrder::Heuristic) over the CTA
    /// tiles, as the launcher resolves them).
    ///
    /// ```
    /// use cutlet::gemm::ClusterShape;
    /// use cutlet::kernel::gemm::{Persistent, RasterOrder};
    ///
    /// let s = Persistent { raster_log: 1, cluster: ClusterShape::new(2, 1) };
    /// // 4 x 2 tiles: 2 x 2 cluster tiles per batch.
    /// assert_eq!(s.tile_of(0, 4, 2, [1, 0], RasterOrder::AlongN), (1, 0, 0));
    /// assert_eq!(s.tile_of(1, 4, 2, [0, 0], RasterOrder::AlongN), (2, 0, 0));
    /// assert_eq!(s.tile_of(5, 4, 2, [1, 0], RasterOrder::AlongN), (3, 0, 1));
    /// // Along M the second cluster tile is the next N tile.
    /// assert_eq!(s.tile_of(1, 4, 2, [0, 0], RasterOrder::AlongM), (0, 1, 0));
    /// ```
    pub fn tile_of(
        &self,
        linear: u32,
        tiles_m: u32,
        tiles_n: u32,
        [cta_m, cta_n]: [u32; 2],
        order: RasterOrder,
    ) -> (u32, u32, u32) {
        let order = order.resolve(tiles_m, tiles_n, self.cluster);
        let cm = tiles_m.div_ceil(self.cluster.m);
        let cn = tiles_n.div_ceil(self.cluster.n);
        let per_batch = (cm * cn).max(1);
        let (batch, within) = (linear / per_batch, linear % per_batch);
        let (ctm, ctn) = order.tile(within, cm, cn, self.raster_log);
        (
            ctm * self.cluster.m + cta_m,
            ctn * self.cluster.n + cta_n,
            batch,
        )
    }

    /// Emits the tile of the current linear index into fresh registers,
    /// and a predicate: the index is below the total. A kernel that walks
    /// its tiles in one loop emits this once, at the loop's top
    /// ([`emit_start`](Self::emit_start) before the loop,
    /// [`emit_step`](Self::emit_step) at its end), so the assembler sees
    /// the divisions once.
    pub fn emit_current(
        &self,
        k: &mut Kernel,
        p: &PersistentParams,
        tiles_m: Reg,
        tiles_n: Reg,
    ) -> (TileCoord, Reg) {
        let [cm_size, cn_size] = self.cluster.mn();
        let r = |k: &mut Kernel| k.reg(RegClass::B32);
        let [cm, cn, per_batch] = self.emit_cluster_tiles(k, tiles_m, tiles_n);
        let (batch, within) = (r(k), r(k));
        let [per_batch_div, raster @ ..] = p.divisors;
        k.div_u32_by_param(batch, p.linear, per_batch_div);
        k.push(format!("mul.lo.u32 {within}, {batch}, {per_batch};"));
        k.push(format!("sub.u32 {within}, {}, {within};", p.linear));
        let valid = k.reg(RegClass::Pred);
        k.push(format!("setp.lt.u32 {valid}, {batch}, {};", p.batches));
        let (ctm, ctn) = emit_raster(k, within, [cm, cn], p.raster_log, p.along_m, raster);
        let (tile_m, tile_n) = (r(k), r(k));
        k.push(format!(
            "mad.lo.u32 {tile_m}, {ctm}, {cm_size}, {};",
            p.cta_m
        ));
        k.push(format!(
            "mad.lo.u32 {tile_n}, {ctn}, {cn_size}, {};",
            p.cta_n
        ));
        (
            TileCoord {
                tile_m,
                tile_n,
                batch,
            },
            valid,
        )
    }

    /// Emits the first tile and its predicate (false for a cluster with no
    /// work: a grid larger than the cluster tiles).
    ///
    /// # Errors
    /// The assembler's error.
    pub fn emit_first(
        &self,
        k: &mut Kernel,
        p: &PersistentParams,
        tiles_m: Reg,
        tiles_n: Reg,
    ) -> Result<(TileCoord, Reg), PtxError> {
        self.emit_start(k, p);
        Ok(self.emit_current(k, p, tiles_m, tiles_n))
    }

    /// Emits the number of cluster tiles of the walk (every batch's), as a
    /// 64-bit register: [`emit_valid`](Self::emit_valid) compares the
    /// linear index with it, where [`emit_current`](Self::emit_current)
    /// divides. Emitted once, before a loop.
    pub fn emit_total(
        &self,
        k: &mut Kernel,
        p: &PersistentParams,
        tiles_m: Reg,
        tiles_n: Reg,
    ) -> Reg {
        let [_, _, per_batch] = self.emit_cluster_tiles(k, tiles_m, tiles_n);
        let total = k.reg(RegClass::B64);
        k.push(format!("mul.wide.u32 {total}, {per_batch}, {};", p.batches));
        total
    }

    /// Emits the predicate "the current linear index is below `total`"
    /// ([`emit_total`](Self::emit_total)): the same as
    /// [`emit_current`](Self::emit_current)'s, without its divisions.
    pub fn emit_valid(&self, k: &mut Kernel, p: &PersistentParams, total: Reg) -> Reg {
        let (wide, valid) = (k.reg(RegClass::B64), k.reg(RegClass::Pred));
        k.push(format!("cvt.u64.u32 {wide}, {};", p.linear));
        k.push(format!("setp.lt.u64 {valid}, {wide}, {total};"));
        valid
    }

    /// Emits the cluster tiles along M and N and per batch (at least 1).
    pub(super) fn emit_cluster_tiles(
        &self,
        k: &mut Kernel,
        tiles_m: Reg,
        tiles_n: Reg,
    ) -> [Reg; 3] {
        let [cm_size, cn_size] = self.cluster.mn();
        let r = |k: &mut Kernel| k.reg(RegClass::B32);
        let (cm, cn, per_batch) = (r(k), r(k), r(k));
        k.push(format!("add.u32 {cm}, {tiles_m}, {};", cm_size - 1));
        k.div_u32_by(cm, cm, cm_size);
        k.push(format!("add.u32 {cn}, {tiles_n}, {};", cn_size - 1));
        k.div_u32_by(cn, cn, cn_size);
        k.push(format!("mul.lo.u32 {per_batch}, {cm}, {cn};"));
        k.push(format!("max.u32 {per_batch}, {per_batch}, 1;"));
        [cm, cn, per_batch]
    }

    /// Emits the start of the walk: the linear index of the block's (or
    /// cluster's) first cluster tile.
    pub fn emit_start(&self, k: &mut Kernel, p: &PersistentParams) {
        if self.cluster_size() > 1 {
            k.push(format!("mov.u32 {}, %clusterid.x;", p.linear));
        } else {
            k.push(format!("mov.u32 {}, %ctaid.x;", p.linear));
        }
    }

    /// Emits the step of the linear index by `steps` strides of the grid.
    pub fn emit_step(&self, k: &mut Kernel, p: &PersistentParams, steps: u32) {
        k.push(format!(
            "mad.lo.u32 {}, {}, {steps}, {};",
            p.linear, p.stride, p.linear
        ));
    }

    /// Emits the advance by `steps` strides and the new tile and predicate.
    ///
    /// # Errors
    /// The assembler's error.
    pub fn emit_advance(
        &self,
        k: &mut Kernel,
        p: &PersistentParams,
        steps: u32,
        tiles_m: Reg,
        tiles_n: Reg,
    ) -> Result<(TileCoord, Reg), PtxError> {
        self.emit_step(k, p, steps);
        Ok(self.emit_current(k, p, tiles_m, tiles_n))
    }
}

impl TileScheduler for Persistent {
    type Params = (PersistentParams, [Reg; 2]);

    fn params(&self) -> Vec<ParamRole> {
        let mut roles = vec![
            ParamRole::RasterLog,
            ParamRole::RasterOrder,
            ParamRole::WalkDivisor(WalkDivisor::PerBatch),
        ];
        roles.extend(RASTER_DIVISORS.map(ParamRole::WalkDivisor));
        roles
    }

    /// `raster_log`, and along N for `raster_order` where the launcher
    /// passes no order of its own.
    fn param_value(&self, role: ParamRole) -> Option<u32> {
        match role {
            ParamRole::RasterLog => Some(self.raster_log),
            ParamRole::RasterOrder => Some(RasterOrder::AlongN.param()),
            _ => None,
        }
    }

    /// The walk's divisors over the launch's cluster tiles: per batch, and
    /// the raster's ([`RasterDivisors`](super::RasterDivisors)).
    ///
    /// ```
    /// use cutlet::gemm::{ClusterShape, ParamRole, WalkDivisor};
    /// use cutlet::kernel::gemm::{Persistent, TileScheduler, WalkLaunch};
    /// use cutlet::ptx::LaunchDivisor;
    ///
    /// let s = Persistent { raster_log: 3, cluster: ClusterShape::new(2, 1) };
    /// let walk = WalkLaunch { tiles_m: 5, tiles_n: 7, raster_log: 3, along_m: false, k_tiles: 64 };
    /// // 3 x 7 cluster tiles of 2 a batch.
    /// let per_batch = s.launch_value(ParamRole::WalkDivisor(WalkDivisor::PerBatch), &walk);
    /// assert_eq!(per_batch, Some(LaunchDivisor::new(21).unwrap().param()));
    /// ```
    fn launch_value(&self, role: ParamRole, walk: &WalkLaunch) -> Option<u64> {
        let cm = walk.tiles_m.div_ceil(self.cluster.m);
        let cn = walk.tiles_n.div_ceil(self.cluster.n);
        match role {
            ParamRole::WalkDivisor(WalkDivisor::PerBatch) => {
                let per_batch = cm.saturating_mul(cn).max(1);
                LaunchDivisor::new(per_batch).map(LaunchDivisor::param)
            }
            _ => raster_divisor(role, cm, cn, walk),
        }
    }

    /// One cluster per cluster tile, at most as many as the GPU runs at
    /// once, assuming 132 SMs; [`grid_on_device`](TileScheduler::grid_on_device)
    /// takes the device's count.
    fn grid(&self, tiles_m: u32, tiles_n: u32, l: u32) -> (u32, u32, u32) {
        self.grid_on_device(tiles_m, tiles_n, l, 132)
    }

    fn grid_on_device(&self, tiles_m: u32, tiles_n: u32, l: u32, sm_count: u32) -> (u32, u32, u32) {
        let size = self.cluster_size();
        let cluster_tiles = tiles_m
            .div_ceil(self.cluster.m)
            .saturating_mul(tiles_n.div_ceil(self.cluster.n))
            .saturating_mul(l);
        let resident = cluster_tiles.min((sm_count / size).max(1)).max(1);
        // The fewest clusters that take the same rounds, up to
        // `BALANCED_ROUNDS` of them: the others would idle in the last round
        // anyway, and leaving them out from the start leaves the GPU's power
        // and L2 to the clusters that set the time.
        let rounds = cluster_tiles.div_ceil(resident).max(1);
        let clusters = if rounds <= BALANCED_ROUNDS {
            cluster_tiles.div_ceil(rounds).max(1)
        } else {
            resident
        };
        (clusters * size, 1, 1)
    }

    fn workspace_size(&self, _shape: &GemmShape) -> usize {
        0
    }

    fn emit_params(
        &self,
        k: &mut Kernel,
        params: &DeclaredParams,
    ) -> Result<Self::Params, PtxError> {
        let raster_log = params.load(k, ParamRole::RasterLog)?;
        let along_m = params.load(k, ParamRole::RasterOrder)?;
        let batches = params.load(k, ParamRole::Extent(crate::gemm::ProblemDim::L))?;
        let per_batch = params.load(k, ParamRole::WalkDivisor(WalkDivisor::PerBatch))?;
        let [per_group, group, group_tail] = load_raster_divisors(k, params)?;
        let r = |k: &mut Kernel| k.reg(RegClass::B32);
        let (linear, stride, cta_m, cta_n) = (r(k), r(k), r(k), r(k));
        if self.cluster_size() > 1 {
            let rank = r(k);
            k.push(format!("mov.u32 {stride}, %nclusterid.x;"));
            k.push(format!("mov.u32 {rank}, %cluster_ctarank;"));
            k.rem_u32_by(cta_m, rank, self.cluster.m);
            k.div_u32_by(cta_n, rank, self.cluster.m);
        } else {
            k.push(format!("mov.u32 {stride}, %nctaid.x;"));
            k.push(format!("mov.u32 {cta_m}, 0;"));
            k.push(format!("mov.u32 {cta_n}, 0;"));
        }
        let tiles = [r(k), r(k)];
        Ok((
            PersistentParams {
                raster_log,
                along_m,
                linear,
                stride,
                cta_m,
                cta_n,
                batches,
                divisors: [per_batch, per_group, group, group_tail],
            },
            tiles,
        ))
    }

    fn emit_first_work_tile(
        &self,
        k: &mut Kernel,
        (p, tiles): &Self::Params,
        tiles_m: Reg,
        tiles_n: Reg,
    ) -> Result<TileCoord, PtxError> {
        k.push(format!("mov.u32 {}, {tiles_m};", tiles[0]));
        k.push(format!("mov.u32 {}, {tiles_n};", tiles[1]));
        Ok(self.emit_first(k, p, tiles_m, tiles_n)?.0)
    }

    fn emit_next_work_tile(
        &self,
        k: &mut Kernel,
        (p, tiles): &Self::Params,
        _current: &TileCoord,
    ) -> Result<Option<(TileCoord, Reg)>, PtxError> {
        self.emit_advance(k, p, 1, tiles[0], tiles[1]).map(Some)
    }
}

/// The walk over cluster tiles: the block's (cluster's) id, then strides
/// of the grid.
impl PersistentTileScheduler for Persistent {
    fn emit_walk_start(&self, k: &mut Kernel, (p, _): &Self::Params) {
        self.emit_start(k, p);
    }

    fn emit_walk_current(
        &self,
        k: &mut Kernel,
        (p, _): &Self::Params,
        tiles_m: Reg,
        tiles_n: Reg,
    ) -> (TileCoord, Reg) {
        self.emit_current(k, p, tiles_m, tiles_n)
    }

    fn emit_walk_step(&self, k: &mut Kernel, (p, _): &Self::Params, steps: u32) {
        self.emit_step(k, p, steps);
    }

    fn emit_walk_total(
        &self,
        k: &mut Kernel,
        (p, _): &Self::Params,
        tiles_m: Reg,
        tiles_n: Reg,
    ) -> Reg {
        self.emit_total(k, p, tiles_m, tiles_n)
    }

    fn emit_walk_valid(&self, k: &mut Kernel, (p, _): &Self::Params, total: Reg) -> Reg {
        self.emit_valid(k, p, total)
    }
}

#[cfg(test)]
mod tests {
    use super::{Persistent, RasterOrder, TileScheduler};

    #[test]
    fn the_grid_is_the_fewest_clusters_that_keep_the_rounds() {
        for cluster in [[1u32, 1], [2, 1], [1, 2], [2, 2]] {
            let s = Persistent {
                raster_log: 0,
                cluster: cluster.into(),
            };
            let size = cluster[0] * cluster[1];
            for (tiles_m, tiles_n, l) in [
                (32, 16, 1),
                (7, 5, 3),
                (64, 64, 1),
                (1, 1, 1),
                (33, 17, 2),
                (128, 128, 1),
            ] {
                for sm_count in [16, 132] {
                    let (grid, ..) = s.grid_on_device(tiles_m, tiles_n, l, sm_count);
                    let total = tiles_m.div_ceil(cluster[0]) * tiles_n.div_ceil(cluster[1]) * l;
                    let resident = (sm_count / size).min(total);
                    let clusters = grid / size;
                    assert_eq!(grid % size, 0);
                    assert!(clusters <= resident, "{cluster:?} {tiles_m}x{tiles_n}x{l}");
                    let rounds = total.div_ceil(clusters);
                    assert_eq!(
                        rounds,
                        total.div_ceil(resident),
                        "{cluster:?} {tiles_m}x{tiles_n}x{l}"
                    );
                    if rounds <= super::BALANCED_ROUNDS {
                        // One cluster fewer would take another round.
                        assert!(clusters == 1 || total.div_ceil(clusters - 1) > rounds);
                    } else {
                        assert_eq!(clusters, resident, "{cluster:?} {tiles_m}x{tiles_n}x{l}");
                    }
                }
            }
        }
    }

    /// The kernel's walk, computed with the launch's divisors as the kernel
    /// computes it, is the host model's, past the last tile too.
    #[test]
    fn the_launch_divisors_walk_as_tile_of() {
        use super::super::{RasterDivisors, WalkLaunch};
        use crate::gemm::{ParamRole, WalkDivisor};
        use crate::ptx::LaunchDivisor;
        for cluster in [[1u32, 1], [2, 1], [1, 2], [2, 2]] {
            for (tiles_m, tiles_n, l) in [(7u32, 5u32, 3u32), (1, 1, 2), (33, 4, 1), (4, 64, 2)] {
                for (log, along_m) in [(0, false), (2, false), (3, true), (1, true)] {
                    let s = Persistent {
                        raster_log: log,
                        cluster: cluster.into(),
                    };
                    let walk = WalkLaunch {
                        tiles_m,
                        tiles_n,
                        raster_log: log,
                        along_m,
                        k_tiles: 64,
                    };
                    let per_batch = s
                        .launch_value(ParamRole::WalkDivisor(WalkDivisor::PerBatch), &walk)
                        .unwrap();
                    let (cm, cn) = (tiles_m.div_ceil(cluster[0]), tiles_n.div_ceil(cluster[1]));
                    let per_batch_divisor = LaunchDivisor::new(cm * cn).unwrap();
                    assert_eq!(per_batch, per_batch_divisor.param());
                    let raster = RasterDivisors::of(cm, cn, log, along_m);
                    let passed = |d| s.launch_value(ParamRole::WalkDivisor(d), &walk);
                    assert_eq!(
                        passed(WalkDivisor::PerGroup),
                        Some(raster.per_group.param())
                    );
                    assert_eq!(passed(WalkDivisor::Group), Some(raster.group.param()));
                    assert_eq!(
                        passed(WalkDivisor::GroupTail),
                        Some(raster.group_tail.param())
                    );
                    let order = if along_m {
                        RasterOrder::AlongM
                    } else {
                        RasterOrder::AlongN
                    };
                    for linear in 0..cm * cn * l + 8 {
                        let batch = per_batch_divisor.quotient(linear);
                        assert_eq!(batch, linear / (cm * cn));
                        if batch >= l {
                            continue;
                        }
                        let (ctm, ctn) = raster.tile(linear - batch * cm * cn, cm, cn, along_m);
                        let cta = [cluster[0] - 1, cluster[1] - 1];
                        assert_eq!(
                            (ctm * cluster[0] + cta[0], ctn * cluster[1] + cta[1], batch),
                            s.tile_of(linear, tiles_m, tiles_n, cta, order),
                            "{cluster:?} {tiles_m}x{tiles_n}x{l} log {log} {order:?} {linear}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn every_tile_of_every_batch_is_walked_once() {
        for cluster in [[1u32, 1], [2, 1], [1, 2], [2, 2]] {
            let s = Persistent {
                raster_log: 2,
                cluster: cluster.into(),
            };
            let (tiles_m, tiles_n, l) = (7u32, 5u32, 3u32);
            let (grid, ..) = s.grid_on_device(tiles_m, tiles_n, l, 16);
            let clusters = grid / (cluster[0] * cluster[1]);
            let total = tiles_m.div_ceil(cluster[0]) * tiles_n.div_ceil(cluster[1]) * l;
            for order in [RasterOrder::AlongM, RasterOrder::AlongN] {
                let mut seen = vec![0; (tiles_m * tiles_n * l) as usize];
                for c in 0..clusters {
                    let mut linear = c;
                    while linear < total {
                        for rank in 0..cluster[0] * cluster[1] {
                            let cta = [rank % cluster[0], rank / cluster[0]];
                            let (m, n, b) = s.tile_of(linear, tiles_m, tiles_n, cta, order);
                            if m < tiles_m && n < tiles_n {
                                seen[((b * tiles_n + n) * tiles_m + m) as usize] += 1;
                            }
                        }
                        linear += clusters;
                    }
                }
                assert!(
                    seen.iter().all(|&c| c == 1),
                    "{cluster:?} {order:?}: {seen:?}"
                );
            }
        }
    }
}
