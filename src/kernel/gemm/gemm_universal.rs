//! [`GemmUniversal`]: a GEMM kernel composed of a [`Mainloop`], an
//! [`Epilogue`] and a [`TileScheduler`], run on the multistage schedule
//! ([`KernelSchedule::Multistage`]: every warp runs the mainloop's
//! producer and consumer in one body, then the epilogue), as CUTLASS's
//! `GemmUniversal<ProblemShape, CollectiveMainloop, CollectiveEpilogue,
//! TileScheduler>` specialized for `KernelMultistage`.
//!
//! What: D = alpha * A B + beta * C (or the fusion expression) over
//! problem (M, N, K, L), runtime sizes, static tile.
//!
//! How, in the order the PTX runs:
//! 1. the parameters: the union of the parts' and the kernel's own (the
//!    extents M, N, K, L), in role order ([`KernelParams`]);
//! 2. the parts' entry loads (scheduler, epilogue scalars), then the tile
//!    scheduler maps the block to its work tile and batch;
//! 3. the kernel builds each operand's global tensor of this batch (base
//!    address and leading dimension in bytes) for every operand whose
//!    address is a parameter, and hands the parts a [`BlockContext`];
//! 4. mainloop prologue, epilogue prologue, mainloop body, epilogue store.
//!
//! The kernel's shared memory is the mainloop's and the epilogue's in one
//! region ([`SharedStorage::overlap`]); its alignment requirements, launch
//! shape, workspace and `can_implement` are the union of its parts'.

use super::Sm90GemmWarpSpecialized;
use super::{GemmSpec, KernelSchedule, TileScheduler, TileSchedulerPolicy, WalkLaunch};
use crate::arch::ArchKind;
use crate::collective::VectorReads;
use crate::collective::{
    BlockContext, Epilogue, EpiloguePolicy, EpilogueSm80, EpilogueSm90NoSmem, EpilogueSm90TmaStore,
    GlobalOperand, Mainloop, MainloopPolicy, SharedStorage, Sm70MmaPipelined, Sm80MmaMultistage,
    Sm90TmaGmmaRsWarpSpecialized, Sm90TmaGmmaWarpSpecialized, SourceRead, WarpSpecializedMainloop,
};
use crate::gemm::{
    ClusterShape, GemmOperand, GemmShape, GemmTypes, KernelParams, ParamRole, ProblemDim,
};
use crate::ptx::{Kernel, Module, PtxError, RegClass, SpecialReg};

/// What a launcher needs of a composed GEMM kernel, whatever its parts:
/// object-safe, so that a spec's parts chosen at run time share one launch
/// path ([`GemmSpec::kernel`]).
pub trait GemmKernel: Send + Sync + std::fmt::Debug {
    /// The `.entry` name.
    fn name(&self) -> &str;

    /// The parameter list, in the order the kernel declares it.
    fn params(&self) -> &KernelParams;

    /// The value the launcher passes for a scheduler parameter (`RasterLog`).
    fn scheduler_value(&self, role: ParamRole) -> Option<u32>;

    /// The value the launcher passes for a scheduler parameter worked out
    /// for each launch (a [`ParamRole::WalkDivisor`]) for an `m x n`
    /// output over a K of `k` and the `[raster_log, raster_order]` the
    /// launch passes; `None` where the kernel's scheduler has no such
    /// parameter (the default).
    fn scheduler_launch_value(
        &self,
        role: ParamRole,
        mnk: [u32; 3],
        raster: [u32; 2],
    ) -> Option<u64> {
        let _ = (role, mnk, raster);
        None
    }

    /// Dynamic shared memory: the parts' regions overlapped.
    fn shared_storage(&self) -> SharedStorage;

    /// Threads per block.
    fn block_threads(&self) -> u32;

    /// Thread-block cluster ([`ClusterShape::ONE`]: none); the launch
    /// takes its [`launch_dims`](ClusterShape::launch_dims).
    fn cluster(&self) -> ClusterShape;

    /// Whether the kernel may start before the kernel ahead of it on the
    /// stream has finished (a programmatic dependent launch,
    /// [`Function::launch_dependent`](crate::device::Function::launch_dependent)):
    /// every thread executes `griddepcontrol.wait` before it touches global
    /// memory. No by default.
    fn dependent_launch(&self) -> bool {
        false
    }

    /// The launch grid for an `m x n` output with `l` batches.
    fn grid(&self, m: u32, n: u32, l: u32) -> (u32, u32, u32);

    /// The launch grid on a GPU of `sm_count` SMs: [`grid`](Self::grid),
    /// unless the tile scheduler sizes the grid to the GPU (persistent).
    fn grid_on_device(&self, m: u32, n: u32, l: u32, sm_count: u32) -> (u32, u32, u32) {
        let _ = sm_count;
        self.grid(m, n, l)
    }

    /// The tensor maps the launcher encodes for each run, one per
    /// [`ParamRole::TensorMap`] parameter (none for a kernel without TMA).
    fn tensor_maps(&self) -> Vec<crate::gemm::TensorMapRequest> {
        Vec::new()
    }

    /// Bytes of device workspace for `shape`.
    fn workspace_size(&self, shape: &GemmShape) -> usize;

    /// Bytes of device workspace for `shape` on a GPU of `sm_count` SMs
    /// (enough for any grid the launcher sizes for up to that many):
    /// [`workspace_size`](Self::workspace_size) unless the tile scheduler's
    /// workspace grows with its grid.
    fn workspace_size_on_device(&self, shape: &GemmShape, sm_count: u32) -> usize {
        let _ = sm_count;
        self.workspace_size(shape)
    }

    /// Elements that the addresses, leading dimensions and batch strides
    /// of A, B, C and D must be multiples of.
    fn alignment(&self) -> [u32; 4];

    /// Whether every part can be generated.
    ///
    /// # Errors
    /// [`Error::Config`](crate::Error::Config) naming the part and why.
    fn can_implement(&self) -> crate::Result<()>;

    /// The PTX module: one kernel named [`name`](Self::name).
    ///
    /// # Errors
    /// The assembler's error.
    fn ptx(&self) -> Result<String, PtxError>;

    /// This kernel generated to read C as `read` says (its name suffixed
    /// with [`SourceRead::name_suffix`]), with the same parameters, shared
    /// memory, grid and tensor maps; `None` for a kernel that always tests
    /// beta as it runs (the default).
    fn for_source(&self, read: SourceRead) -> Option<Box<dyn GemmKernel>> {
        let _ = read;
        None
    }
}

/// A GEMM kernel composed of a mainloop `M`, an epilogue `E` and a tile
/// scheduler `S` on the multistage schedule.
#[derive(Clone, Debug)]
pub struct GemmUniversal<M, E, S> {
    name: String,
    arch: ArchKind,
    types: GemmTypes,
    tile: [u32; 3],
    threads: u32,
    mainloop: M,
    epilogue: E,
    scheduler: S,
    params: KernelParams,
}

impl<M, E, S> GemmUniversal<M, E, S>
where
    M: Mainloop,
    E: Epilogue,
    S: TileScheduler,
{
    /// The kernel `name` of these parts, for `arch`, with element `types`,
    /// CTA `tile` and `threads` per block.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        arch: ArchKind,
        types: GemmTypes,
        tile: [u32; 3],
        threads: u32,
        mainloop: M,
        epilogue: E,
        scheduler: S,
    ) -> Self {
        let mut params = KernelParams::new();
        params.extend(
            [ProblemDim::M, ProblemDim::N, ProblemDim::K, ProblemDim::L].map(ParamRole::Extent),
        );
        params.extend(mainloop.params());
        params.extend(epilogue.params());
        params.extend(scheduler.params());
        GemmUniversal {
            name,
            arch,
            types,
            tile,
            threads,
            mainloop,
            epilogue,
            scheduler,
            params,
        }
    }

    fn kernel(&self) -> Result<Kernel, PtxError> {
        let mut k = Kernel::new(&self.name)?;
        k.required_threads(self.threads, 1, 1);
        k.min_blocks_per_sm(1);
        let storage = self.shared_storage_of();
        let smem_var = k.shared_dynamic("gemm_smem", storage.align)?;
        let params = self.params.declare(&mut k)?;

        let tid = k.special(SpecialReg::TidX);
        let smem = k.shared_address(&smem_var);
        let m = params.load(&mut k, ParamRole::Extent(ProblemDim::M))?;
        let n = params.load(&mut k, ParamRole::Extent(ProblemDim::N))?;
        let kk = params.load(&mut k, ParamRole::Extent(ProblemDim::K))?;
        let scheduler_params = self.scheduler.emit_params(&mut k, &params)?;
        let epilogue_params = self.epilogue.emit_params(&mut k, &params)?;

        let [bm, bn, _] = self.tile;
        let (tiles_m, tiles_n) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        k.push(format!("add.u32 {tiles_m}, {m}, {};", bm - 1));
        k.div_u32_by(tiles_m, tiles_m, bm);
        k.push(format!("add.u32 {tiles_n}, {n}, {};", bn - 1));
        k.div_u32_by(tiles_n, tiles_n, bn);
        let coord =
            self.scheduler
                .emit_first_work_tile(&mut k, &scheduler_params, tiles_m, tiles_n)?;
        if self
            .scheduler
            .emit_next_work_tile(&mut k, &scheduler_params, &coord)?
            .is_some()
        {
            return Err(PtxError::UnsupportedSpec {
                kernel: "gemm",
                name: self.name.clone(),
                reason: "the multistage kernel computes one tile a block: expected a data-parallel tile scheduler".to_string(),
            });
        }
        let block = emit_tile_block(
            &mut k,
            &params,
            self.types,
            [tid, smem, kk],
            [coord.tile_m, coord.tile_n],
            [bm, bn],
            [m, n],
            coord.batch,
        )?;
        let mainloop_io = self.mainloop.emit_prologue(&mut k, &block)?;
        let epilogue_io = self
            .epilogue
            .emit_prologue(&mut k, &block, &epilogue_params)?;
        let acc = self.mainloop.emit_mainloop(&mut k, &mainloop_io)?;
        self.epilogue.emit_store(&mut k, &epilogue_io, &acc)?;
        Ok(k)
    }

    fn shared_storage_of(&self) -> SharedStorage {
        self.mainloop
            .shared_storage()
            .overlap(self.epilogue.shared_storage())
    }
}

/// The block context of work tile `(tile_m, tile_n)` of batch `batch` in
/// a `BM x BN` tiling of an `M x N` output (`[m, n]`, `.b32`): the tile's
/// origin, what is left of the problem past it (`M - m0`, `N - n0`), and
/// every operand's global tensor of the batch, with the thread's `tid`,
/// the shared window `smem` and K (`kk`) as given. The one-tile-a-block
/// kernels (multistage, GEMV) build theirs with it.
#[allow(clippy::too_many_arguments)]
pub(crate) fn emit_tile_block<'a>(
    k: &mut Kernel,
    params: &'a crate::gemm::DeclaredParams,
    types: GemmTypes,
    [tid, smem, kk]: [crate::ptx::Reg; 3],
    [tile_m, tile_n]: [crate::ptx::Reg; 2],
    [bm, bn]: [u32; 2],
    [m, n]: [crate::ptx::Reg; 2],
    batch: crate::ptx::Reg,
) -> Result<BlockContext<'a>, PtxError> {
    let [m0, n0, m_rem, n_rem] = [(); 4].map(|()| k.reg(RegClass::B32));
    k.push(format!("mul.lo.u32 {m0}, {tile_m}, {bm};"));
    k.push(format!("mul.lo.u32 {n0}, {tile_n}, {bn};"));
    k.push(format!("sub.u32 {m_rem}, {m}, {m0};"));
    k.push(format!("sub.u32 {n_rem}, {n}, {n0};"));
    let operands = emit_global_operands(k, params, types, batch)?;
    Ok(BlockContext {
        tid,
        smem,
        params,
        k: kk,
        m0,
        n0,
        m_rem,
        n_rem,
        batch,
        operands,
    })
}

/// Each operand's global tensor of batch `batch` (`.b32`): its address
/// plus `batch * batch_stride` elements, and its leading dimension in
/// bytes, for every operand whose address is a parameter.
pub(crate) fn emit_global_operands(
    k: &mut Kernel,
    params: &crate::gemm::DeclaredParams,
    types: GemmTypes,
    batch: crate::ptx::Reg,
) -> Result<[Option<GlobalOperand>; 4], PtxError> {
    let wide = k.reg(RegClass::B64);
    k.push(format!("cvt.u64.u32 {wide}, {batch};"));
    let sizes = [types.a, types.b, types.c, types.d];
    let mut out = [None; 4];
    for op in GemmOperand::ALL {
        if params.get(ParamRole::Address(op)).is_err() {
            continue;
        }
        let size = sizes[op as usize].size_bytes();
        let base = params.load(k, ParamRole::Address(op))?;
        k.cvta_to_global(base, base);
        let stride = params.load(k, ParamRole::BatchStride(op))?;
        k.push(format!("mul.lo.u64 {stride}, {stride}, {wide};"));
        k.push(format!("mad.lo.u64 {base}, {stride}, {size}, {base};"));
        let ld_bytes = params.load(k, ParamRole::Ld(op))?;
        k.push(format!("mul.lo.u64 {ld_bytes}, {ld_bytes}, {size};"));
        out[op as usize] = Some(GlobalOperand { base, ld_bytes });
    }
    Ok(out)
}

impl<M, E, S> GemmKernel for GemmUniversal<M, E, S>
where
    M: Mainloop + Send + Sync + std::fmt::Debug,
    E: Epilogue + Send + Sync + std::fmt::Debug,
    S: TileScheduler + Send + Sync + std::fmt::Debug,
{
    fn name(&self) -> &str {
        &self.name
    }

    fn params(&self) -> &KernelParams {
        &self.params
    }

    fn scheduler_value(&self, role: ParamRole) -> Option<u32> {
        self.scheduler.param_value(role)
    }

    fn scheduler_launch_value(
        &self,
        role: ParamRole,
        [m, n, k]: [u32; 3],
        raster: [u32; 2],
    ) -> Option<u64> {
        let [bm, bn, bk] = self.tile;
        let walk = WalkLaunch::of([m, n], [bm, bn], raster).with_k(k, bk);
        self.scheduler.launch_value(role, &walk)
    }

    fn shared_storage(&self) -> SharedStorage {
        self.shared_storage_of()
    }

    fn block_threads(&self) -> u32 {
        self.threads
    }

    fn cluster(&self) -> ClusterShape {
        ClusterShape::ONE
    }

    fn grid(&self, m: u32, n: u32, l: u32) -> (u32, u32, u32) {
        let [bm, bn, _] = self.tile;
        self.scheduler.grid(m.div_ceil(bm), n.div_ceil(bn), l)
    }

    fn workspace_size(&self, shape: &GemmShape) -> usize {
        self.scheduler.workspace_size(shape)
    }

    fn alignment(&self) -> [u32; 4] {
        let [a, b] = self.mainloop.alignment();
        let [c, d] = self.epilogue.alignment();
        [a, b, c, d]
    }

    fn can_implement(&self) -> crate::Result<()> {
        self.mainloop.can_implement()?;
        self.epilogue.can_implement()
    }

    fn ptx(&self) -> Result<String, PtxError> {
        let mut module = Module::new(self.arch);
        module.add_kernel(self.kernel()?)?;
        module.emit()
    }
}

/// The rasterization swizzle every GEMM kernel is launched with unless the
/// arguments set one ([`SchedulerArgs::swizzle_size`](crate::device::gemm::SchedulerArgs)):
/// tiles are walked in groups of 2^3 = 8, so that concurrently running
/// blocks share rows of A and columns of B in L2.
pub const DEFAULT_RASTER_LOG: u32 = 3;

/// What every SM90 composition of a spec shares: the spec (its name,
/// types and tile), the cluster, the schedule and the tile scheduler.
struct Sm90Parts<'s, S> {
    spec: &'s GemmSpec,
    cluster: ClusterShape,
    schedule: KernelSchedule,
    scheduler: S,
}

impl<S> Sm90Parts<'_, S>
where
    S: super::PersistentTileScheduler + Clone + Send + Sync + std::fmt::Debug + 'static,
{
    /// The SM90 kernel of `mainloop` and `epilogue` with these parts, checked.
    fn compose<M, E>(&self, mainloop: M, epilogue: E) -> crate::Result<Box<dyn GemmKernel>>
    where
        M: WarpSpecializedMainloop + Clone + Send + Sync + std::fmt::Debug + 'static,
        E: Epilogue + Clone + Send + Sync + std::fmt::Debug + 'static,
    {
        let s = self.spec;
        let kernel = Sm90GemmWarpSpecialized::new(
            s.kernel_name(),
            s.types,
            s.tile,
            self.cluster,
            self.schedule,
            mainloop,
            epilogue,
            self.scheduler.clone(),
        )
        .with_reduction(s.reduction);
        kernel.can_implement()?;
        Ok(Box::new(kernel))
    }
}

impl GemmSpec {
    /// The SM90 warp-specialized kernel of this spec with `scheduler`: the
    /// mainloop reads A through a descriptor (SS) or, for a tf32 A that is
    /// M-major, from registers (RS); the epilogue stores with TMA or from
    /// registers.
    fn compose_sm90<S>(
        &self,
        ctx: &crate::collective::TileContext,
        schedule: KernelSchedule,
        epilogue: EpiloguePolicy,
        scheduler: S,
    ) -> crate::Result<Box<dyn GemmKernel>>
    where
        S: super::PersistentTileScheduler + Clone + Send + Sync + std::fmt::Debug + 'static,
    {
        let cluster = self.cluster;
        let [bm, ..] = self.tile;
        let consumers = schedule.tile_warpgroups();
        let wg_rows = bm / consumers;
        let splits_k = scheduler.splits_k();
        let parts = Sm90Parts {
            spec: self,
            cluster,
            schedule,
            scheduler,
        };
        let rs = crate::collective::reads_a_from_registers(self.types.a, self.majors.a);
        let ml = &self.mainloop;
        let fusion = &self.epilogue.fusion;
        let block_scales = fusion.scales() == Some(crate::gemm::ScaleGranularity::Block);
        let ss = || {
            Sm90TmaGmmaWarpSpecialized::new(ctx, ml, cluster, consumers, wg_rows)
                .with_block_scales(block_scales, fusion.block_scales_transposed())
        };
        // Where the TMA-store epilogue reads its vectors: a split tile's
        // fixup reads the partial sums into registers and the `_RS`
        // mainloop holds A's fragments (the first subtile's column values
        // only; the reads wait for the store). 128x128 tiles spill
        // otherwise (`tests/gemm_epilogue_ptxas.rs`). The promoting FP8
        // mainloop's partial sums are added before the tile's prologue
        // runs, so its tiles hold every column value as the others do
        // (`gemm_fp8_ptxas.rs`).
        let columns = match splits_k || rs {
            true => 0,
            false => crate::collective::MAX_HELD_COLUMN_VALUES,
        };
        let vector_reads = match splits_k || rs {
            true => VectorReads::Store { columns },
            false => VectorReads::Prologue { columns },
        };
        match (rs, epilogue) {
            (false, EpiloguePolicy::Sm90TmaWarpSpecialized) => parts.compose(
                ss(),
                EpilogueSm90TmaStore::new(ctx, &self.epilogue, wg_rows, consumers)
                    .with_c_staging(self.facts().c_staging())
                    .with_vector_reads(vector_reads),
            ),
            (false, _) => parts.compose(
                ss(),
                EpilogueSm90NoSmem::new(ctx, &self.epilogue, wg_rows, consumers),
            ),
            (true, EpiloguePolicy::Sm90TmaWarpSpecialized) => parts.compose(
                Sm90TmaGmmaRsWarpSpecialized::new(ctx, ml, cluster, consumers, wg_rows),
                EpilogueSm90TmaStore::new(ctx, &self.epilogue, wg_rows, consumers)
                    .with_c_staging(self.facts().c_staging())
                    .with_vector_reads(vector_reads),
            ),
            (true, _) => parts.compose(
                Sm90TmaGmmaRsWarpSpecialized::new(ctx, ml, cluster, consumers, wg_rows),
                EpilogueSm90NoSmem::new(ctx, &self.epilogue, wg_rows, consumers),
            ),
        }
    }

    /// The kernel the spec's parts compose: the spec's policies choose the
    /// mainloop, epilogue and tile scheduler, its values fix their sizes.
    ///
    /// ```
    /// use cutlet::kernel::gemm::{sm80_default_spec, OperandMajor, OutputMajor};
    /// use cutlet::numeric::ElementType::{BF16, F32};
    ///
    /// let spec = sm80_default_spec(BF16, BF16, BF16, F32, OperandMajor::K, OperandMajor::K, OutputMajor::N).unwrap();
    /// let kernel = spec.kernel().unwrap();
    /// assert_eq!(kernel.shared_storage().bytes, spec.shared_mem_bytes());
    /// let names: Vec<String> = kernel.params().iter().map(|role| role.name()).collect();
    /// assert_eq!(names[..8], ["a", "b", "c", "d", "m", "n", "k", "l"]);
    /// // The scheduler's raster, and the walk's divisors the launcher works out.
    /// assert_eq!(
    ///     names[names.len() - 5..],
    ///     ["raster_log", "raster_order", "walk_per_group", "walk_group", "walk_group_tail"]
    /// );
    /// ```
    ///
    /// # Errors
    /// [`Error::Config`](crate::Error::Config) when the spec breaks a
    /// configuration rule ([`validate`](Self::validate)) or a part cannot
    /// be built.
    pub fn kernel(&self) -> crate::Result<Box<dyn GemmKernel>> {
        self.validate()?;
        let refuse = |reason: String| crate::Error::Config {
            config: self.kernel_name(),
            reason,
        };
        let ctx = self.context();
        match (
            self.schedule,
            self.mainloop.policy,
            self.epilogue.policy,
            self.scheduler,
        ) {
            (
                KernelSchedule::Multistage,
                MainloopPolicy::Sm80CpAsync { .. },
                EpiloguePolicy::Sm80Staged,
                TileSchedulerPolicy::DataParallel,
            ) => {
                let mainloop = Sm80MmaMultistage::new(&ctx, &self.mainloop).ok_or_else(|| {
                    refuse(format!(
                        "element types a={} b={} acc={} have no mma instruction",
                        self.types.a, self.types.b, self.types.acc
                    ))
                })?;
                let kernel = GemmUniversal::new(
                    self.kernel_name(),
                    self.arch,
                    self.types,
                    self.tile,
                    self.block_threads(),
                    mainloop,
                    EpilogueSm80::new(&ctx, &self.epilogue),
                    super::DataParallel {
                        raster_log: DEFAULT_RASTER_LOG,
                    },
                );
                kernel.can_implement()?;
                Ok(Box::new(kernel))
            }
            (
                schedule @ (KernelSchedule::TmaWarpSpecializedCooperative
                | KernelSchedule::TmaWarpSpecializedPingpong
                | KernelSchedule::TmaWarpSpecializedSlicedK),
                MainloopPolicy::Sm90TmaGmmaWarpSpecialized { .. }
                | MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8 { .. },
                epilogue @ (EpiloguePolicy::Sm90NoSmem | EpiloguePolicy::Sm90TmaWarpSpecialized),
                scheduler @ (TileSchedulerPolicy::Persistent
                | TileSchedulerPolicy::SplitK { .. }
                | TileSchedulerPolicy::StreamK),
            ) => match scheduler {
                TileSchedulerPolicy::StreamK => {
                    let stream_k = super::StreamK::new(self.tile, DEFAULT_RASTER_LOG);
                    self.compose_sm90(&ctx, schedule, epilogue, stream_k)
                }
                TileSchedulerPolicy::SplitK { splits } => {
                    let [bm, bn, _] = self.tile;
                    let split_k = super::SplitK {
                        splits,
                        raster_log: DEFAULT_RASTER_LOG,
                        tile: [bm, bn],
                        cluster: self.cluster,
                    };
                    self.compose_sm90(&ctx, schedule, epilogue, split_k)
                }
                _ => {
                    let persistent = super::Persistent {
                        raster_log: DEFAULT_RASTER_LOG,
                        cluster: self.cluster,
                    };
                    self.compose_sm90(&ctx, schedule, epilogue, persistent)
                }
            },
            (
                KernelSchedule::Multistage,
                MainloopPolicy::Sm70TwoStage,
                EpiloguePolicy::Sm80Staged,
                TileSchedulerPolicy::DataParallel,
            ) => {
                let mainloop = Sm70MmaPipelined::new(&ctx, &self.mainloop).ok_or_else(|| {
                    refuse(format!(
                        "element types a={} b={} acc={} have no sm_70 mma instruction",
                        self.types.a, self.types.b, self.types.acc
                    ))
                })?;
                let kernel = GemmUniversal::new(
                    self.kernel_name(),
                    self.arch,
                    self.types,
                    self.tile,
                    self.block_threads(),
                    mainloop,
                    EpilogueSm80::new(&ctx, &self.epilogue),
                    super::DataParallel {
                        raster_log: DEFAULT_RASTER_LOG,
                    },
                );
                kernel.can_implement()?;
                Ok(Box::new(kernel))
            }
            (
                KernelSchedule::Multistage,
                MainloopPolicy::MmaSyncGemv { .. } | MainloopPolicy::MmaSyncGemvRing { .. },
                EpiloguePolicy::Sm80Staged,
                TileSchedulerPolicy::DataParallel,
            ) => {
                let kernel = super::Gemv::new(self).ok_or_else(|| {
                    refuse(format!(
                        "element types a={} b={} acc={} have no mma instruction",
                        self.types.a, self.types.b, self.types.acc
                    ))
                })?;
                kernel.can_implement()?;
                Ok(Box::new(kernel))
            }
            (schedule, mainloop, epilogue, scheduler) => Err(refuse(format!(
                "no kernel composes the {} schedule with the {mainloop:?} mainloop, the {epilogue:?} epilogue and the {scheduler:?} tile scheduler: expected the multistage schedule with the SM80 or SM70 parts and the data-parallel scheduler, or a warp-specialized SM90 schedule with the SM90 parts and the persistent scheduler",
                schedule.name()
            ))),
        }
    }

    /// The PTX module: one kernel named [`kernel_name`](Self::kernel_name).
    ///
    /// ```
    /// use cutlet::kernel::gemm::sm80_default_spec;
    /// use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
    /// use cutlet::numeric::ElementType::{F16, F32};
    ///
    /// let spec = sm80_default_spec(F16, F16, F16, F32, OperandMajor::K, OperandMajor::K, OutputMajor::N).unwrap();
    /// let ptx = spec.ptx().unwrap();
    /// assert!(ptx.contains("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"));
    /// assert!(ptx.contains("ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
    /// ```
    ///
    /// This kernel reads C where beta, tested as it runs, is not 0
    /// ([`SourceRead::Tested`]); the launcher runs
    /// [`ptx_for`](Self::ptx_for)'s kernels where the spec has them.
    ///
    /// # Errors
    /// [`PtxError::UnsupportedSpec`] with [`validate`](Self::validate)'s reason.
    pub fn ptx(&self) -> Result<String, PtxError> {
        self.ptx_for(SourceRead::Tested)
    }

    /// The PTX module of the kernel the launcher runs for `read`
    /// ([`SourceRead::for_beta`] of the launch's beta): an SM90 kernel is
    /// generated apart for beta = 0 (named with a `_beta0` suffix) and for
    /// any other beta (`_beta`); an SM70 or SM80 kernel tests beta as it
    /// runs, so every `read` gives [`ptx`](Self::ptx).
    ///
    /// ```
    /// use cutlet::collective::SourceRead;
    /// use cutlet::kernel::gemm::sm90_default_spec;
    /// use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
    /// use cutlet::numeric::ElementType::{BF16, F32};
    ///
    /// let spec = sm90_default_spec(BF16, BF16, BF16, F32, OperandMajor::K, OperandMajor::K, OutputMajor::N).unwrap();
    /// let beta0 = spec.ptx_for(SourceRead::Never).unwrap();
    /// assert!(beta0.contains(&format!(".entry {}_beta0(", spec.kernel_name())));
    /// // The beta = 0 kernel neither tests beta nor loads C.
    /// assert!(!beta0.contains("setp.neu.f32"));
    /// assert!(!spec.ptx_for(SourceRead::Always).unwrap().contains("setp.neu.f32"));
    /// assert!(spec.ptx().unwrap().contains("setp.neu.f32"));
    /// ```
    ///
    /// # Errors
    /// As [`ptx`](Self::ptx).
    pub fn ptx_for(&self, read: SourceRead) -> Result<String, PtxError> {
        let kernel = self.kernel().map_err(|e| PtxError::UnsupportedSpec {
            kernel: "gemm",
            name: self.kernel_name(),
            reason: match e {
                crate::Error::Config { reason, .. } => reason,
                other => other.to_string(),
            },
        })?;
        match kernel.for_source(read) {
            Some(variant) => variant.ptx(),
            None => kernel.ptx(),
        }
    }
}
