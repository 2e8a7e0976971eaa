//! A persistent tile scheduler written outside the crate, for the SM90
//! kernel skeleton: each block walks the tiles of every batch with a
//! stride of the grid, in column-major order (M fastest, no swizzle, no
//! cluster), one block per SM at most.

use cutlet::gemm::{DeclaredParams, GemmShape, ParamRole, ProblemDim};
use cutlet::kernel::gemm::{PersistentTileScheduler, TileCoord, TileScheduler};
use cutlet::ptx::{Kernel, PtxError, Reg, RegClass};

/// The scheduler: no parameters of its own, no workspace.
#[derive(Clone, Copy, Debug)]
pub struct ColumnWalk;

/// Its registers: the position, the grid's stride and L.
#[derive(Clone, Copy, Debug)]
pub struct ColumnWalkRegs {
    linear: Reg,
    stride: Reg,
    batches: Reg,
}

impl TileScheduler for ColumnWalk {
    type Params = ColumnWalkRegs;

    fn params(&self) -> Vec<ParamRole> {
        Vec::new()
    }

    fn param_value(&self, _role: ParamRole) -> Option<u32> {
        None
    }

    fn grid(&self, tiles_m: u32, tiles_n: u32, l: u32) -> (u32, u32, u32) {
        self.grid_on_device(tiles_m, tiles_n, l, 132)
    }

    fn grid_on_device(&self, tiles_m: u32, tiles_n: u32, l: u32, sm_count: u32) -> (u32, u32, u32) {
        let tiles = tiles_m.saturating_mul(tiles_n).saturating_mul(l);
        (tiles.clamp(1, sm_count.max(1)), 1, 1)
    }

    fn workspace_size(&self, _shape: &GemmShape) -> usize {
        0
    }

    fn emit_params(
        &self,
        k: &mut Kernel,
        params: &DeclaredParams,
    ) -> Result<ColumnWalkRegs, PtxError> {
        let batches = params.load(k, ParamRole::Extent(ProblemDim::L))?;
        let (linear, stride) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        k.push(format!("mov.u32 {stride}, %nctaid.x;"));
        Ok(ColumnWalkRegs {
            linear,
            stride,
            batches,
        })
    }

    fn emit_first_work_tile(
        &self,
        k: &mut Kernel,
        p: &ColumnWalkRegs,
        tiles_m: Reg,
        tiles_n: Reg,
    ) -> Result<TileCoord, PtxError> {
        self.emit_walk_start(k, p);
        Ok(self.emit_walk_current(k, p, tiles_m, tiles_n).0)
    }

    fn emit_next_work_tile(
        &self,
        _k: &mut Kernel,
        _p: &ColumnWalkRegs,
        _current: &TileCoord,
    ) -> Result<Option<(TileCoord, Reg)>, PtxError> {
        Ok(None)
    }
}

impl PersistentTileScheduler for ColumnWalk {
    fn emit_walk_start(&self, k: &mut Kernel, p: &ColumnWalkRegs) {
        k.push(format!("mov.u32 {}, %ctaid.x;", p.linear));
    }

    fn emit_walk_current(
        &self,
        k: &mut Kernel,
        p: &ColumnWalkRegs,
        tiles_m: Reg,
        tiles_n: Reg,
    ) -> (TileCoord, Reg) {
        let r = |k: &mut Kernel| k.reg(RegClass::B32);
        let (per_batch, batch, within, tile_m, tile_n) = (r(k), r(k), r(k), r(k), r(k));
        k.push(format!("mul.lo.u32 {per_batch}, {tiles_m}, {tiles_n};"));
        k.push(format!("max.u32 {per_batch}, {per_batch}, 1;"));
        k.push(format!("div.u32 {batch}, {}, {per_batch};", p.linear));
        k.push(format!("rem.u32 {within}, {}, {per_batch};", p.linear));
        k.push(format!("rem.u32 {tile_m}, {within}, {tiles_m};"));
        k.push(format!("div.u32 {tile_n}, {within}, {tiles_m};"));
        let valid = k.reg(RegClass::Pred);
        k.push(format!("setp.lt.u32 {valid}, {batch}, {};", p.batches));
        (
            TileCoord {
                tile_m,
                tile_n,
                batch,
            },
            valid,
        )
    }

    fn emit_walk_step(&self, k: &mut Kernel, p: &ColumnWalkRegs, steps: u32) {
        k.push(format!(
            "mad.lo.u32 {}, {}, {steps}, {};",
            p.linear, p.stride, p.linear
        ));
    }

    fn emit_walk_total(
        &self,
        k: &mut Kernel,
        p: &ColumnWalkRegs,
        tiles_m: Reg,
        tiles_n: Reg,
    ) -> Reg {
        let (per_batch, total) = (k.reg(RegClass::B32), k.reg(RegClass::B64));
        k.push(format!("mul.lo.u32 {per_batch}, {tiles_m}, {tiles_n};"));
        k.push(format!("mul.wide.u32 {total}, {per_batch}, {};", p.batches));
        total
    }

    fn emit_walk_valid(&self, k: &mut Kernel, p: &ColumnWalkRegs, total: Reg) -> Reg {
        let (wide, valid) = (k.reg(RegClass::B64), k.reg(RegClass::Pred));
        k.push(format!("cvt.u64.u32 {wide}, {};", p.linear));
        k.push(format!("setp.lt.u64 {valid}, {wide}, {total};"));
        valid
    }
}

/// The SM90 kernel of `spec` (an SM90 spec without a cluster, with the
/// TMA-store epilogue) with [`ColumnWalk`] in place of the persistent
/// scheduler, named `name`.
pub fn sm90_with_column_walk(
    spec: &cutlet::kernel::gemm::GemmSpec,
    name: &str,
) -> cutlet::kernel::gemm::Sm90GemmWarpSpecialized<
    cutlet::collective::Sm90TmaGmmaWarpSpecialized,
    cutlet::collective::EpilogueSm90TmaStore,
    ColumnWalk,
> {
    use cutlet::collective::{EpilogueSm90TmaStore, Sm90TmaGmmaWarpSpecialized};
    use cutlet::kernel::gemm::Sm90GemmWarpSpecialized;
    assert_eq!(spec.cluster, [1, 1, 1], "ColumnWalk walks no clusters");
    let ctx = spec.context();
    let consumers = spec.schedule.tile_warpgroups();
    let wg_rows = spec.tile[0] / consumers;
    let mainloop =
        Sm90TmaGmmaWarpSpecialized::new(&ctx, &spec.mainloop, spec.cluster, consumers, wg_rows);
    let epilogue = EpilogueSm90TmaStore::new(&ctx, &spec.epilogue, wg_rows, consumers)
        .with_c_staging(spec.facts().c_staging());
    Sm90GemmWarpSpecialized::new(
        name.to_string(),
        spec.types,
        spec.tile,
        spec.cluster,
        spec.schedule,
        mainloop,
        epilogue,
        ColumnWalk,
    )
}
