//! The GEMM kernel as composed parts: what `GemmSpec::kernel` composes
//! agrees with the spec's own figures (shared memory, threads, grid,
//! alignment, the parameter list), and a part written outside the crate
//! (here a tile scheduler) composes with the SM80 mainloop and epilogue,
//! and a persistent one with the SM90 mainloop and epilogue, into kernels
//! that ptxas assembles (`gemm_sm90_gpu.rs` runs the SM90 one).

mod common;

use cutlet::arch::ArchKind;
use cutlet::collective::{EpilogueSm80, EpilogueSpec, Sm80MmaMultistage};
use cutlet::gemm::{BiasAxis, DeclaredParams, Epilogue, GemmShape, ParamRole};
use cutlet::gemm::{GemmMajors, GemmTypes};
use cutlet::kernel::gemm::{
    sm80_default_spec, sm80_default_specs, GemmKernel, GemmSpec, GemmUniversal, OperandMajor,
    OutputMajor, TileCoord, TileScheduler,
};
use cutlet::numeric::ElementType::{BF16, F32};
use cutlet::ptx::{Kernel, PtxError, Reg, RegClass, SpecialReg};

/// The sampled specs: every default, and every 97th configuration of the
/// sweep the rules accept.
fn specs() -> Vec<GemmSpec> {
    let mut specs = sm80_default_specs();
    for (i, combo) in common::sweep::combos().iter().enumerate() {
        if i % 97 == 0 {
            if let Ok(spec) = combo.builder().spec() {
                specs.push(spec);
            }
        }
    }
    specs
}

#[test]
fn the_composed_kernel_has_the_specs_figures() {
    let specs = specs();
    assert!(specs.len() > 200, "{} specs", specs.len());
    for spec in specs {
        let name = spec.kernel_name();
        let kernel = spec.kernel().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(kernel.name(), name);
        assert_eq!(
            kernel.shared_storage().bytes,
            spec.shared_mem_bytes(),
            "{name}"
        );
        assert_eq!(kernel.shared_storage().align, 1024, "{name}");
        assert_eq!(kernel.block_threads(), spec.block_threads(), "{name}");
        assert_eq!(kernel.alignment(), spec.alignment(), "{name}");
        assert_eq!(kernel.grid(1000, 333, 3), spec.grid(1000, 333, 3), "{name}");
        assert_eq!(kernel.cluster(), [1, 1, 1]);
        assert_eq!(kernel.workspace_size(&GemmShape::new(1000, 333, 77, 3)), 0);
        let names: Vec<String> = kernel.params().iter().map(|r| r.name()).collect();
        assert_eq!(
            names,
            [
                "a",
                "b",
                "c",
                "d",
                "m",
                "n",
                "k",
                "l",
                "lda",
                "ldb",
                "ldc",
                "ldd",
                "batch_a",
                "batch_b",
                "batch_c",
                "batch_d",
                "alpha",
                "beta",
                "raster_log",
                "raster_order",
                "walk_per_group",
                "walk_group",
                "walk_group_tail"
            ],
            "{name}"
        );
    }
}

#[test]
fn a_fused_epilogue_adds_its_biases_and_scalars_to_the_list() {
    use cutlet::fusion::{scalar, Expr, Expression};
    let mut spec = sm80_default_spec(
        BF16,
        BF16,
        BF16,
        F32,
        OperandMajor::K,
        OperandMajor::K,
        OutputMajor::N,
    )
    .unwrap();
    let e = Expression::from_fn(|acc: Expr, c: Expr, row: Expr, col: Expr| {
        (acc * scalar(0) + c * scalar(1) + row * scalar(2) + col * scalar(3)).relu()
    });
    spec.epilogue =
        EpilogueSpec::sm80(Epilogue::new(e, &[BiasAxis::Row, BiasAxis::Column]).unwrap());
    let kernel = spec.kernel().unwrap();
    let names: Vec<String> = kernel.params().iter().map(|r| r.name()).collect();
    assert_eq!(
        &names[16..],
        [
            "alpha",
            "beta",
            "raster_log",
            "raster_order",
            "walk_per_group",
            "walk_group",
            "walk_group_tail",
            "bias0",
            "bias1",
            "s2",
            "s3"
        ]
    );
    // The declared parameters are the PTX's, in order.
    let ptx = kernel.ptx().unwrap();
    let declared: Vec<&str> = ptx
        .lines()
        .filter_map(|l| l.trim().strip_prefix(".param "))
        .map(|l| l.trim_end_matches(',').rsplit(' ').next().unwrap())
        .collect();
    assert_eq!(declared, names);
}

/// A tile scheduler written outside the crate: tiles in column-major order
/// (M fastest, no swizzle), one per block.
#[derive(Debug)]
struct ColumnMajorTiles;

impl TileScheduler for ColumnMajorTiles {
    type Params = ();

    fn params(&self) -> Vec<ParamRole> {
        Vec::new()
    }

    fn param_value(&self, _role: ParamRole) -> Option<u32> {
        None
    }

    fn grid(&self, tiles_m: u32, tiles_n: u32, l: u32) -> (u32, u32, u32) {
        (tiles_m * tiles_n, l, 1)
    }

    fn workspace_size(&self, _shape: &GemmShape) -> usize {
        0
    }

    fn emit_params(&self, _k: &mut Kernel, _params: &DeclaredParams) -> Result<(), PtxError> {
        Ok(())
    }

    fn emit_first_work_tile(
        &self,
        k: &mut Kernel,
        _params: &(),
        tiles_m: Reg,
        _tiles_n: Reg,
    ) -> Result<TileCoord, PtxError> {
        let id = k.special(SpecialReg::CtaidX);
        let batch = k.special(SpecialReg::CtaidY);
        let (tile_m, tile_n) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        k.push(format!("rem.u32 {tile_m}, {id}, {tiles_m};"));
        k.push(format!("div.u32 {tile_n}, {id}, {tiles_m};"));
        Ok(TileCoord {
            tile_m,
            tile_n,
            batch,
        })
    }

    fn emit_next_work_tile(
        &self,
        _k: &mut Kernel,
        _params: &(),
        _current: &TileCoord,
    ) -> Result<Option<(TileCoord, Reg)>, PtxError> {
        Ok(None)
    }
}

#[test]
fn a_tile_scheduler_from_outside_composes_with_the_sm80_parts() {
    let spec = sm80_default_spec(
        BF16,
        BF16,
        BF16,
        F32,
        OperandMajor::K,
        OperandMajor::MN,
        OutputMajor::M,
    )
    .unwrap();
    let ctx = spec.context();
    let kernel = GemmUniversal::new(
        "gemm_column_major_tiles".to_string(),
        ArchKind::Sm80,
        spec.types,
        spec.tile,
        spec.block_threads(),
        Sm80MmaMultistage::new(&ctx, &spec.mainloop).unwrap(),
        EpilogueSm80::new(&ctx, &spec.epilogue),
        ColumnMajorTiles,
    );
    let names: Vec<String> = kernel.params().iter().map(|r| r.name()).collect();
    assert!(!names.contains(&"raster_log".to_string()), "{names:?}");
    let ptx = kernel.ptx().unwrap();
    assert!(ptx.contains(".visible .entry gemm_column_major_tiles("));
    assert!(!ptx.contains("raster_log"));
    assert!(ptx.contains("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
    if let Some(report) = common::ptxas::assemble(&ptx, "sm_80") {
        let f = report.function("gemm_column_major_tiles");
        assert_eq!(f.spill_stores + f.spill_loads, 0, "{f:?}");
    }
}

#[test]
fn a_part_that_reads_an_undeclared_parameter_is_an_error() {
    let mut k = Kernel::new("k").unwrap();
    let params = cutlet::gemm::KernelParams::new().declare(&mut k).unwrap();
    let err = params.load(&mut k, ParamRole::Workspace).unwrap_err();
    assert!(err.to_string().contains("workspace"), "{err}");
}

/// A persistent tile scheduler written outside the crate
/// (`common::walk::ColumnWalk`) composes with the SM90 mainloop and
/// TMA-store epilogue, cooperative and ping-pong, into kernels that ptxas
/// assembles for sm_90a without spills; its walk is in the PTX and the
/// persistent scheduler's raster parameters are not.
#[test]
fn a_persistent_scheduler_from_outside_composes_with_the_sm90_parts() {
    use cutlet::kernel::gemm::{sm90_spec, KernelSchedule};
    for (schedule, tile, name) in [
        (
            KernelSchedule::TmaWarpSpecializedCooperative,
            [256, 128, 64],
            "gemm_sm90_column_walk_cooperative",
        ),
        (
            KernelSchedule::TmaWarpSpecializedPingpong,
            [128, 128, 64],
            "gemm_sm90_column_walk_pingpong",
        ),
    ] {
        let spec = sm90_spec(
            GemmTypes::new(BF16, BF16, BF16, BF16, F32),
            GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N),
            schedule,
            tile,
            [1, 1],
        )
        .unwrap();
        let kernel = common::walk::sm90_with_column_walk(&spec, name);
        kernel.can_implement().unwrap();
        let names: Vec<String> = kernel.params().iter().map(|r| r.name()).collect();
        assert!(!names.contains(&"raster_log".to_string()), "{names:?}");
        // A block per tile, up to one per SM.
        let (tm, tn) = spec.tiles(1000, 300);
        assert_eq!(
            kernel.grid_on_device(1000, 300, 2, 132),
            (tm * tn * 2, 1, 1)
        );
        assert_eq!(kernel.grid_on_device(10_000, 10_000, 1, 132), (132, 1, 1));
        assert_eq!(
            kernel.tensor_maps().len(),
            spec.kernel().unwrap().tensor_maps().len()
        );
        let ptx = kernel.ptx().unwrap();
        assert!(ptx.contains(&format!(".visible .entry {name}(")));
        assert!(ptx.contains("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"));
        assert!(ptx.contains("%nctaid.x"));
        assert!(!ptx.contains("raster_log"));
        if let Some(report) = common::ptxas::assemble(&ptx, "sm_90a") {
            let f = report.function(name);
            assert_eq!(f.spill_stores + f.spill_loads, 0, "{name}: {f:?}");
        }
    }
}

/// The SM90 mainloop asks for a map of the last tile (`clip_rows`, its
/// `EdgeTensorMap` parameter) for each K-major operand that no other CTA of
/// the cluster loads a share of: both without a cluster, A alone in 2x1
/// clusters (B multicast in halves), B alone in 1x2, neither in 2x2, and
/// not for an M-major A.
#[test]
fn the_sm90_mainloop_maps_the_last_tiles_of_unshared_k_major_operands() {
    use cutlet::gemm::GemmOperand::{A, B};
    use cutlet::kernel::gemm::{sm90_spec, KernelSchedule};
    for (a_major, cluster, edges) in [
        (OperandMajor::K, [1, 1], vec![A, B]),
        (OperandMajor::K, [2, 1], vec![A]),
        (OperandMajor::K, [1, 2], vec![B]),
        (OperandMajor::K, [2, 2], vec![]),
        (OperandMajor::MN, [1, 1], vec![B]),
    ] {
        let spec = sm90_spec(
            GemmTypes::new(BF16, BF16, BF16, BF16, F32),
            GemmMajors::new(a_major, OperandMajor::K, OutputMajor::N),
            KernelSchedule::TmaWarpSpecializedCooperative,
            [128, 128, 64],
            cluster,
        )
        .unwrap();
        let kernel = spec.kernel().unwrap();
        let maps = kernel.tensor_maps();
        let clipped: Vec<_> = maps
            .iter()
            .filter(|r| r.clip_rows)
            .map(|r| r.operand)
            .collect();
        assert_eq!(clipped, edges, "{}", spec.kernel_name());
        for request in maps.iter().filter(|r| r.clip_rows) {
            let whole = maps
                .iter()
                .find(|r| r.operand == request.operand && !r.clip_rows)
                .unwrap();
            assert_eq!(request.box_dims, whole.box_dims, "{}", spec.kernel_name());
        }
        let params = kernel.params();
        for op in [A, B] {
            assert_eq!(
                params.iter().any(|r| r == ParamRole::EdgeTensorMap(op)),
                edges.contains(&op),
                "{}: {op:?}",
                spec.kernel_name()
            );
        }
    }
}
