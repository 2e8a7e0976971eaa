//! [`DataParallel`]: the data-parallel tile scheduler with a rasterization
//! swizzle: which output tile and batch one thread block computes.
//!
//! `blockIdx.x` walks the tiles of one batch in the kernel's raster order
//! ([`RasterOrder`](super::RasterOrder)), in swizzle groups of
//! `2^raster_log` tiles, so the blocks running at one time share A rows and
//! B columns in L2. `blockIdx.y` is the batch.

use super::raster::divisor_at_least_one;
use super::{emit_raster, RasterDivisors, TileScheduler, WalkLaunch};
use crate::gemm::{DeclaredParams, GemmShape, ParamRole, WalkDivisor};
use crate::ptx::{Kernel, PtxError, Reg, SpecialReg};

/// One block per output tile, `blockIdx.x` walking the tiles of a batch in
/// the launch's raster order in groups of `2^raster_log` tiles,
/// `blockIdx.y` the batch.
///
/// ```
/// use cutlet::kernel::gemm::{DataParallel, TileScheduler};
///
/// let scheduler = DataParallel { raster_log: 3 };
/// assert_eq!(scheduler.grid(32, 16, 2), (512, 2, 1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DataParallel {
    /// The rasterization swizzle the launcher passes (`raster_log`).
    pub raster_log: u32,
}

impl TileScheduler for DataParallel {
    /// `raster_log`, `raster_order` and the raster's divisors.
    type Params = ([Reg; 2], [Reg; 3]);

    fn params(&self) -> Vec<ParamRole> {
        let mut roles = vec![ParamRole::RasterLog, ParamRole::RasterOrder];
        roles.extend(RASTER_DIVISORS.map(ParamRole::WalkDivisor));
        roles
    }

    /// `raster_log`, and along N for `raster_order` where the launcher
    /// passes no order of its own.
    fn param_value(&self, role: ParamRole) -> Option<u32> {
        match role {
            ParamRole::RasterLog => Some(self.raster_log),
            ParamRole::RasterOrder => Some(super::RasterOrder::AlongN.param()),
            _ => None,
        }
    }

    /// The raster's divisors ([`RasterDivisors`]) for the launch's tiles.
    fn launch_value(&self, role: ParamRole, walk: &WalkLaunch) -> Option<u64> {
        raster_divisor(role, walk.tiles_m, walk.tiles_n, walk)
    }

    fn grid(&self, tiles_m: u32, tiles_n: u32, l: u32) -> (u32, u32, u32) {
        (tiles_m.saturating_mul(tiles_n), l, 1)
    }

    fn workspace_size(&self, _shape: &GemmShape) -> usize {
        0
    }

    fn emit_params(
        &self,
        k: &mut Kernel,
        params: &DeclaredParams,
    ) -> Result<Self::Params, PtxError> {
        let raster = [
            params.load(k, ParamRole::RasterLog)?,
            params.load(k, ParamRole::RasterOrder)?,
        ];
        Ok((raster, load_raster_divisors(k, params)?))
    }

    fn emit_first_work_tile(
        &self,
        k: &mut Kernel,
        ([raster_log, along_m], divisors): &Self::Params,
        tiles_m: Reg,
        tiles_n: Reg,
    ) -> Result<TileCoord, PtxError> {
        Ok(emit_tile_coord(
            k,
            tiles_m,
            tiles_n,
            *raster_log,
            *along_m,
            *divisors,
        ))
    }

    fn emit_next_work_tile(
        &self,
        _k: &mut Kernel,
        _params: &Self::Params,
        _current: &TileCoord,
    ) -> Result<Option<(TileCoord, Reg)>, PtxError> {
        Ok(None)
    }
}

/// The tile coordinates one block computes.
#[derive(Clone, Copy, Debug)]
pub struct TileCoord {
    /// Tile index along M (`.b32`).
    pub tile_m: Reg,
    /// Tile index along N (`.b32`).
    pub tile_n: Reg,
    /// Batch index (`.b32`).
    pub batch: Reg,
}

/// The raster's divisors in the order [`emit_raster`] takes them.
pub(super) const RASTER_DIVISORS: [WalkDivisor; 3] = [
    WalkDivisor::PerGroup,
    WalkDivisor::Group,
    WalkDivisor::GroupTail,
];

/// Emits the loads of the raster's divisor parameters, in
/// [`emit_raster`]'s order.
pub(super) fn load_raster_divisors(
    k: &mut Kernel,
    params: &DeclaredParams,
) -> Result<[Reg; 3], PtxError> {
    let [a, b, c] = RASTER_DIVISORS;
    Ok([
        params.load(k, ParamRole::WalkDivisor(a))?,
        params.load(k, ParamRole::WalkDivisor(b))?,
        params.load(k, ParamRole::WalkDivisor(c))?,
    ])
}

/// The launch's value of a raster divisor `role` over `tiles_m x tiles_n`
/// units (tiles, or a persistent walk's cluster tiles).
pub(super) fn raster_divisor(
    role: ParamRole,
    tiles_m: u32,
    tiles_n: u32,
    walk: &WalkLaunch,
) -> Option<u64> {
    let index = RASTER_DIVISORS
        .iter()
        .position(|&d| role == ParamRole::WalkDivisor(d))?;
    let sizes = RasterDivisors::sizes(tiles_m, tiles_n, walk.raster_log, walk.along_m);
    Some(divisor_at_least_one(sizes[index]).param())
}

/// Emits the scheduler: the tile of this block from `%ctaid.x` (walked
/// as [`emit_raster`] says) and the batch from `%ctaid.y`. `tiles_m`,
/// `tiles_n`, `raster_log` and `along_m` (the `raster_order` parameter) are
/// `.b32`; `divisors` the raster's `.b64` divisor parameters
/// ([`RasterDivisors`]).
pub fn emit_tile_coord(
    k: &mut Kernel,
    tiles_m: Reg,
    tiles_n: Reg,
    raster_log: Reg,
    along_m: Reg,
    divisors: [Reg; 3],
) -> TileCoord {
    let id = k.special(SpecialReg::CtaidX);
    let batch = k.special(SpecialReg::CtaidY);
    let (tile_m, tile_n) = emit_raster(k, id, [tiles_m, tiles_n], raster_log, along_m, divisors);
    TileCoord {
        tile_m,
        tile_n,
        batch,
    }
}
