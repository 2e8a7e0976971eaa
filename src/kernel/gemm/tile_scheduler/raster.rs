//! The rasterization both tile schedulers share: which output tile the
//! `id`-th unit of work takes, in swizzle groups along M or along N
//! (CUTLASS's `RasterOrderOptions` and `max_swizzle_size`).
//!
//! [`RasterOrder::AlongN`]: the walk moves along N, over groups of
//! `2^raster_log` M tiles: consecutive ids go down the group's M tiles,
//! then to the next N tile; the next group of M tiles starts once every N
//! tile of this one is taken. [`RasterOrder::AlongM`] is the same walk with
//! M and N exchanged. Units that run at one time then share A rows and B
//! columns in L2. A group is capped at the tile count of its dimension, so
//! no product overflows.
//!
//! The kernel divides by the group's sizes with the multipliers and shifts
//! the launcher works out ([`RasterDivisors`]), not with `div.u32`.

use crate::gemm::ClusterShape;
use crate::ptx::{Kernel, LaunchDivisor, Reg, RegClass};

/// The order in which a tile scheduler walks the output tiles (CUTLASS's
/// `RasterOrderOptions`). The default, [`Auto`](Self::Auto), follows the
/// kernel's cluster: along M in a cluster of more CTAs along N than along M
/// (1x2), along N otherwise. Measured on an H100 (2026-11-24, bf16 4096³,
/// cutlet / cuBLASLt): 256x128 tiles in a 1x2 cluster 0.993-0.994 along M
/// against 0.988-0.989 along N (128x256 tiles in a 1x2 cluster: 0.978
/// against 0.928); in a 2x1 cluster along N wins (128x256: 0.988 against
/// 0.983; 256x128: 0.982 against 0.932). CUTLASS's heuristic (by tile
/// counts) walked bf16 4095x4097x4093 (256x128 tiles, 2x1 clusters) along M
/// at 683 TFLOP/s against 740 along N.
///
/// ```
/// use cutlet::kernel::gemm::RasterOrder;
///
/// assert_eq!(RasterOrder::default(), RasterOrder::Auto);
/// // The kernel's cluster decides Auto: along M for 1x2, along N otherwise.
/// assert_eq!(RasterOrder::Auto.resolve(16, 32, [1, 2]), RasterOrder::AlongM);
/// assert_eq!(RasterOrder::Auto.resolve(16, 32, [2, 1]), RasterOrder::AlongN);
/// assert_eq!(RasterOrder::Auto.resolve(16, 32, [1, 1]), RasterOrder::AlongN);
/// // More N tiles than M tiles: the heuristic walks along M, as CUTLASS's does.
/// assert_eq!(RasterOrder::Heuristic.resolve(32, 56, [2, 1]), RasterOrder::AlongM);
/// assert_eq!(RasterOrder::Heuristic.resolve(32, 32, [1, 1]), RasterOrder::AlongN);
/// assert_eq!(RasterOrder::AlongN.resolve(32, 56, [1, 2]), RasterOrder::AlongN);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RasterOrder {
    /// The kernel's own order (the default): [`AlongM`](Self::AlongM) where
    /// its cluster has more CTAs along N than along M, otherwise
    /// [`AlongN`](Self::AlongN).
    #[default]
    Auto,
    /// CUTLASS's heuristic: [`AlongM`](Self::AlongM) where the problem has
    /// more N tiles than M tiles, otherwise [`AlongN`](Self::AlongN).
    Heuristic,
    /// Consecutive units go across a group of N tiles, then to the next M
    /// tile.
    AlongM,
    /// Consecutive units go down a group of M tiles, then to the next N
    /// tile.
    AlongN,
}

impl RasterOrder {
    /// The order a launch over `tiles_m x tiles_n` tiles of a kernel in
    /// `cluster` clusters takes: [`Auto`](Self::Auto) and
    /// [`Heuristic`](Self::Heuristic) resolved, the others as they are.
    pub fn resolve(
        self,
        tiles_m: u32,
        tiles_n: u32,
        cluster: impl Into<ClusterShape>,
    ) -> RasterOrder {
        let cluster = cluster.into();
        match self {
            RasterOrder::Auto if cluster.n > cluster.m => RasterOrder::AlongM,
            RasterOrder::Auto => RasterOrder::AlongN,
            RasterOrder::Heuristic if tiles_n > tiles_m => RasterOrder::AlongM,
            RasterOrder::Heuristic => RasterOrder::AlongN,
            order => order,
        }
    }

    /// The value of the kernel's `raster_order` parameter: 1 along M, 0
    /// along N (and for [`Auto`](Self::Auto) and
    /// [`Heuristic`](Self::Heuristic), which the launcher resolves first).
    pub fn param(self) -> u32 {
        u32::from(self == RasterOrder::AlongM)
    }

    /// The host model of the walk: `(tile_m, tile_n)` of unit `id` of
    /// `tiles_m x tiles_n` tiles in groups of `2^raster_log`
    /// ([`Auto`](Self::Auto) and [`Heuristic`](Self::Heuristic) resolved
    /// first, as for a kernel without a cluster).
    ///
    /// ```
    /// use cutlet::kernel::gemm::RasterOrder;
    ///
    /// // 3 x 4 tiles in groups of 2 N tiles: (0,0) (0,1) (1,0) (1,1) (2,0) (2,1) (0,2) ...
    /// let order: Vec<_> = (0..7).map(|id| RasterOrder::AlongM.tile(id, 3, 4, 1)).collect();
    /// assert_eq!(order, vec![(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1), (0, 2)]);
    /// ```
    pub fn tile(self, id: u32, tiles_m: u32, tiles_n: u32, raster_log: u32) -> (u32, u32) {
        match self.resolve(tiles_m, tiles_n, ClusterShape::ONE) {
            RasterOrder::AlongM => {
                let (n, m) = raster_tile(id, tiles_n, tiles_m, raster_log);
                (m, n)
            }
            _ => raster_tile(id, tiles_m, tiles_n, raster_log),
        }
    }
}

/// The host model of the walk along N: `(tile_m, tile_n)` of unit `id`.
///
/// ```
/// use cutlet::kernel::gemm::raster_tile;
///
/// // 4 x 3 tiles in groups of 2 M tiles: (0,0) (1,0) (0,1) (1,1) (0,2) (1,2) (2,0) ...
/// let order: Vec<_> = (0..12).map(|id| raster_tile(id, 4, 3, 1)).collect();
/// assert_eq!(&order[..7], &[(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 0)]);
/// // an uneven last group: 3 x 2 tiles in groups of 2
/// let order: Vec<_> = (0..6).map(|id| raster_tile(id, 3, 2, 1)).collect();
/// assert_eq!(order, vec![(0, 0), (1, 0), (0, 1), (1, 1), (2, 0), (2, 1)]);
/// ```
pub fn raster_tile(id: u32, tiles_m: u32, tiles_n: u32, raster_log: u32) -> (u32, u32) {
    let group = (1u32 << raster_log.min(31)).min(tiles_m).max(1);
    let per_group = (group * tiles_n).max(1);
    let first_m = (id / per_group) * group;
    let rows = tiles_m.saturating_sub(first_m).clamp(1, group);
    let within = id % per_group;
    (first_m + within % rows, within / rows)
}

/// The divisors of the walk over `tiles_m x tiles_n` tiles in groups of
/// `2^raster_log` along M (`along_m`) or N, as the launcher passes them
/// ([`WalkDivisor`](crate::gemm::WalkDivisor)'s `PerGroup`, `Group` and
/// `GroupTail`) and [`emit_raster`] divides by them.
///
/// ```
/// use cutlet::kernel::gemm::{raster_tile, RasterDivisors};
///
/// // Along N, 10 x 3 tiles in groups of 4 M tiles: 12 tiles a group, the
/// // last group 2 M tiles deep.
/// let d = RasterDivisors::of(10, 3, 2, false);
/// assert_eq!([d.per_group.divisor(), d.group.divisor(), d.group_tail.divisor()], [12, 4, 2]);
/// // Its walk is the host model's.
/// for id in 0..30 {
///     assert_eq!(d.tile(id, 10, 3, false), raster_tile(id, 10, 3, 2));
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RasterDivisors {
    /// Tiles per group: the grouped dimension's group times the other's tiles.
    pub per_group: LaunchDivisor,
    /// Tiles of the grouped dimension in a whole group.
    pub group: LaunchDivisor,
    /// Tiles of the grouped dimension in the last group.
    pub group_tail: LaunchDivisor,
}

impl RasterDivisors {
    /// The divisors for `tiles_m x tiles_n` tiles (at least one each is
    /// assumed: an empty dimension gets divisors of 1).
    pub fn of(tiles_m: u32, tiles_n: u32, raster_log: u32, along_m: bool) -> RasterDivisors {
        let [per_group, group, group_tail] =
            Self::sizes(tiles_m, tiles_n, raster_log, along_m).map(divisor_at_least_one);
        RasterDivisors {
            per_group,
            group,
            group_tail,
        }
    }

    /// The three divisors' values (per group, group, group tail), each at
    /// least 1: what a launch needs one of at a time, without the
    /// multipliers of the other two.
    pub(crate) fn sizes(tiles_m: u32, tiles_n: u32, raster_log: u32, along_m: bool) -> [u32; 3] {
        let (ta, tb) = if along_m {
            (tiles_n, tiles_m)
        } else {
            (tiles_m, tiles_n)
        };
        let ta = ta.max(1);
        let group = (1u32 << raster_log.min(31)).min(ta);
        let tail = ta - (ta.div_ceil(group) - 1) * group;
        [group.saturating_mul(tb), group, tail].map(|d| d.max(1))
    }

    /// The host model of [`emit_raster`] with these divisors: `(tile_m,
    /// tile_n)` of unit `id`, computed with the kernel's operations.
    pub fn tile(&self, id: u32, tiles_m: u32, tiles_n: u32, along_m: bool) -> (u32, u32) {
        let (ta, tb) = if along_m {
            (tiles_n, tiles_m)
        } else {
            (tiles_m, tiles_n)
        };
        let group = self.group.divisor();
        let per_group = group.wrapping_mul(tb).max(1);
        let first_group = self.per_group.quotient(id);
        let within = id.wrapping_sub(first_group.wrapping_mul(per_group));
        let first = first_group.wrapping_mul(group);
        let rows = ta.wrapping_sub(first).min(group).max(1);
        let rows_divisor = if rows < group {
            self.group_tail
        } else {
            self.group
        };
        let b = rows_divisor.quotient(within);
        let a = within
            .wrapping_sub(b.wrapping_mul(rows))
            .wrapping_add(first);
        if along_m {
            (b, a)
        } else {
            (a, b)
        }
    }
}

/// The launch divisor of `d`, or of 1 where `d` is 0.
pub(crate) fn divisor_at_least_one(d: u32) -> LaunchDivisor {
    LaunchDivisor::new(d).unwrap_or(LaunchDivisor::ONE)
}

/// Emits the walk: `(tile_m, tile_n)` (`.b32`) of unit `id` of `tiles_m x
/// tiles_n` tiles, in groups of `2^raster_log`, along M where `along_m`
/// (`.b32`, the kernel's `raster_order`) is not 0. Every operand is `.b32`
/// but `divisors`: the `.b64` parameters of [`RasterDivisors`]'
/// `per_group`, `group` and `group_tail` for the same tiles and order.
pub fn emit_raster(
    k: &mut Kernel,
    id: Reg,
    [tiles_m, tiles_n]: [Reg; 2],
    raster_log: Reg,
    along_m: Reg,
    [per_group_div, group_div, tail_div]: [Reg; 3],
) -> (Reg, Reg) {
    let r = |k: &mut Kernel| k.reg(RegClass::B32);
    // The grouped dimension `a` and the walked one `b`: M and N along N.
    let swap = k.reg(RegClass::Pred);
    k.push(format!("setp.ne.u32 {swap}, {along_m}, 0;"));
    let (ta, tb) = (r(k), r(k));
    k.push(format!("selp.b32 {ta}, {tiles_n}, {tiles_m}, {swap};"));
    k.push(format!("selp.b32 {tb}, {tiles_m}, {tiles_n}, {swap};"));
    let (group, per_group, first, rows, within, a, b, log) =
        (r(k), r(k), r(k), r(k), r(k), r(k), r(k), r(k));
    k.push(format!("min.u32 {log}, {raster_log}, 31;"));
    k.push(format!("shl.b32 {group}, 1, {log};"));
    k.push(format!("min.u32 {group}, {group}, {ta};"));
    k.push(format!("max.u32 {group}, {group}, 1;"));
    k.push(format!("mul.lo.u32 {per_group}, {group}, {tb};"));
    k.push(format!("max.u32 {per_group}, {per_group}, 1;"));
    // Two divisions by the launcher's multipliers, each remainder from its
    // quotient; the last group's depth has its own divisor.
    k.div_u32_by_param(first, id, per_group_div);
    k.push(format!("mul.lo.u32 {within}, {first}, {per_group};"));
    k.push(format!("sub.u32 {within}, {id}, {within};"));
    k.push(format!("mul.lo.u32 {first}, {first}, {group};"));
    k.push(format!("sub.u32 {rows}, {ta}, {first};"));
    k.push(format!("min.u32 {rows}, {rows}, {group};"));
    k.push(format!("max.u32 {rows}, {rows}, 1;"));
    let (partial, rows_div) = (k.reg(RegClass::Pred), k.reg(RegClass::B64));
    k.push(format!("setp.lt.u32 {partial}, {rows}, {group};"));
    k.push(format!(
        "selp.b64 {rows_div}, {tail_div}, {group_div}, {partial};"
    ));
    k.div_u32_by_param(b, within, rows_div);
    k.push(format!("mul.lo.u32 {a}, {b}, {rows};"));
    k.push(format!("sub.u32 {a}, {within}, {a};"));
    k.push(format!("add.u32 {a}, {a}, {first};"));
    let (tile_m, tile_n) = (r(k), r(k));
    k.push(format!("selp.b32 {tile_m}, {b}, {a}, {swap};"));
    k.push(format!("selp.b32 {tile_n}, {a}, {b}, {swap};"));
    (tile_m, tile_n)
}

#[cfg(test)]
mod tests {
    use super::{raster_tile, RasterOrder};

    #[test]
    fn both_orders_take_every_tile_once() {
        for (tm, tn) in [(1, 1), (3, 5), (8, 3), (7, 16), (1, 9)] {
            for log in 0..4 {
                for order in [RasterOrder::AlongM, RasterOrder::AlongN] {
                    let mut seen = vec![0; (tm * tn) as usize];
                    for id in 0..tm * tn {
                        let (m, n) = order.tile(id, tm, tn, log);
                        assert!(m < tm && n < tn, "{order:?} {tm}x{tn} id {id}: ({m}, {n})");
                        seen[(m * tn + n) as usize] += 1;
                    }
                    assert!(
                        seen.iter().all(|&c| c == 1),
                        "{order:?} {tm}x{tn} log {log}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_launch_divisors_walk_as_the_host_model() {
        use super::RasterDivisors;
        for (tm, tn) in [
            (1, 1),
            (3, 5),
            (8, 3),
            (7, 16),
            (1, 9),
            (64, 1),
            (33, 17),
            (130, 2),
        ] {
            for log in [0, 1, 2, 3, 5, 31] {
                for along_m in [false, true] {
                    let order = match along_m {
                        true => RasterOrder::AlongM,
                        false => RasterOrder::AlongN,
                    };
                    let d = RasterDivisors::of(tm, tn, log, along_m);
                    for id in 0..tm * tn {
                        assert_eq!(
                            d.tile(id, tm, tn, along_m),
                            order.tile(id, tm, tn, log),
                            "{tm}x{tn} log {log} {order:?} id {id}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn along_m_is_along_n_transposed() {
        for id in 0..35 {
            let (m, n) = RasterOrder::AlongM.tile(id, 7, 5, 2);
            assert_eq!(raster_tile(id, 5, 7, 2), (n, m));
        }
    }
}
