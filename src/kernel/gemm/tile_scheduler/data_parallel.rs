//! [`DataParallel`]: the data-parallel tile scheduler with a rasterization
//! swizzle: which output tile and batch one thread block computes.
//!
//! `blockIdx.x` walks the tiles of one batch in groups of `2^raster_log`
//! rows of tiles (along M): inside a group, consecutive blocks go down the
//! group's M tiles first, then to the next N tile, so the blocks running at
//! one time share A rows and B columns in L2. The group is capped at the
//! M tile count, so no product overflows. `blockIdx.y` is the batch.

use super::TileScheduler;
use crate::gemm::{DeclaredParams, GemmShape, ParamRole};
use crate::ptx::{Kernel, PtxError, Reg, RegClass, SpecialReg};

/// One block per output tile, `blockIdx.x` walking the tiles of a batch in
/// groups of `2^raster_log` M tiles, `blockIdx.y` the batch.
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
    type Params = Reg;

    fn params(&self) -> Vec<ParamRole> {
        vec![ParamRole::RasterLog]
    }

    fn param_value(&self, role: ParamRole) -> Option<u32> {
        (role == ParamRole::RasterLog).then_some(self.raster_log)
    }

    fn grid(&self, tiles_m: u32, tiles_n: u32, l: u32) -> (u32, u32, u32) {
        (tiles_m.saturating_mul(tiles_n), l, 1)
    }

    fn workspace_size(&self, _shape: &GemmShape) -> usize {
        0
    }

    fn emit_params(&self, k: &mut Kernel, params: &DeclaredParams) -> Result<Reg, PtxError> {
        params.load(k, ParamRole::RasterLog)
    }

    fn emit_first_work_tile(
        &self,
        k: &mut Kernel,
        raster_log: &Reg,
        tiles_m: Reg,
        tiles_n: Reg,
    ) -> Result<TileCoord, PtxError> {
        Ok(emit_tile_coord(k, tiles_m, tiles_n, *raster_log))
    }

    fn emit_next_work_tile(
        &self,
        _k: &mut Kernel,
        _raster_log: &Reg,
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

/// The host model of the swizzle: `(tile_m, tile_n)` of block `id`.
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
    let group = (1u32 << raster_log.min(31)).min(tiles_m.max(1));
    let per_group = group * tiles_n;
    let first_m = (id / per_group) * group;
    let rows = (tiles_m - first_m).min(group);
    let within = id % per_group;
    (first_m + within % rows, within / rows)
}

/// Emits the scheduler: the tile of this block from `%ctaid.x` and the
/// batch from `%ctaid.y`. `tiles_m`, `tiles_n`, `raster_log` are `.b32`.
pub fn emit_tile_coord(k: &mut Kernel, tiles_m: Reg, tiles_n: Reg, raster_log: Reg) -> TileCoord {
    let id = k.special(SpecialReg::CtaidX);
    let batch = k.special(SpecialReg::CtaidY);
    let (group, per_group, first_m, rows, within, tile_m, tile_n, log) = (
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
    );
    k.push(format!("min.u32 {log}, {raster_log}, 31;"));
    k.push(format!("shl.b32 {group}, 1, {log};"));
    k.push(format!("min.u32 {group}, {group}, {tiles_m};"));
    k.push(format!("mul.lo.u32 {per_group}, {group}, {tiles_n};"));
    k.push(format!("div.u32 {first_m}, {id}, {per_group};"));
    k.push(format!("mul.lo.u32 {first_m}, {first_m}, {group};"));
    k.push(format!("sub.u32 {rows}, {tiles_m}, {first_m};"));
    k.push(format!("min.u32 {rows}, {rows}, {group};"));
    k.push(format!("rem.u32 {within}, {id}, {per_group};"));
    k.push(format!("rem.u32 {tile_m}, {within}, {rows};"));
    k.push(format!("add.u32 {tile_m}, {tile_m}, {first_m};"));
    k.push(format!("div.u32 {tile_n}, {within}, {rows};"));
    TileCoord {
        tile_m,
        tile_n,
        batch,
    }
}
