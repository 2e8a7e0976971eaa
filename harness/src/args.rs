//! The arguments of CuTe DSL's `dense_gemm.py`, shared by
//! `examples/dense_gemm.rs`, `cutlet gemm` and the bench.

use cutlet::arch::ArchKind;
use cutlet::collective::{DEFAULT_PROMOTION_INTERVAL, MAX_TRANSPOSED_BLOCK_SCALE_TILE_N};
use cutlet::gemm::{GemmMajors, GemmTypes};
use cutlet::kernel::gemm::{
    sm80_spec_for_problem, sm90_pick_for_problem, KernelSchedule, Reduction,
};
use cutlet::kernel::gemm::{GemmSpec, OperandMajor, OutputMajor, ScaleGranularity};
use cutlet::numeric::ElementType;
use cutlet::{Error, Result};

use cutlet::device::gemm::{Decomposition, Gemm, GemmShape, RasterOrder, SchedulerArgs};

/// `dense_gemm.py`'s options, with its spellings (`--mnkl 4096,4096,4096,1`,
/// `--a_dtype BFloat16`, `--a_major k`, ...). Types take the DSL names
/// (Float16, BFloat16, Float32, TFloat32) or the short ones (f16, bf16, f32, tf32).
#[derive(Clone, Debug, clap::Args)]
pub struct DenseGemmArgs {
    /// Problem shape M,N,K,L.
    #[arg(long = "mnkl", value_parser = parse_mnkl, default_value = "4096,4096,4096,1")]
    pub mnkl: GemmShape,
    /// CTA tile BM,BN,BK (default: the collective builder's choice).
    #[arg(long = "tile_shape_mnk", value_parser = parse_tile)]
    pub tile_shape_mnk: Option<[u32; 3]>,
    /// Element type of A.
    #[arg(long = "a_dtype", value_parser = parse_dtype, default_value = "BFloat16")]
    pub a_dtype: ElementType,
    /// Element type of B.
    #[arg(long = "b_dtype", value_parser = parse_dtype, default_value = "BFloat16")]
    pub b_dtype: ElementType,
    /// Element type of C (and D).
    #[arg(long = "c_dtype", value_parser = parse_dtype, default_value = "BFloat16")]
    pub c_dtype: ElementType,
    /// Accumulator type (default Float32; Int32 for Int8/UInt8 A).
    #[arg(long = "acc_dtype", value_parser = parse_dtype)]
    pub acc_dtype: Option<ElementType>,
    /// Contiguous dimension of A: k or m.
    #[arg(long = "a_major", value_parser = parse_a_major, default_value = "k")]
    pub a_major: OperandMajor,
    /// Contiguous dimension of B: k or n.
    #[arg(long = "b_major", value_parser = parse_b_major, default_value = "k")]
    pub b_major: OperandMajor,
    /// Contiguous dimension of C: n or m.
    #[arg(long = "c_major", value_parser = parse_c_major, default_value = "n")]
    pub c_major: OutputMajor,
    /// Untimed runs before timing.
    #[arg(long = "warmup_iterations", default_value_t = 2)]
    pub warmup_iterations: usize,
    /// Timed runs (the median is reported).
    #[arg(long = "iterations", default_value_t = 10)]
    pub iterations: usize,
    /// alpha of `D = alpha · A · B + beta · C`.
    #[arg(long = "alpha", default_value_t = 1.0, allow_negative_numbers = true)]
    pub alpha: f64,
    /// beta of `D = alpha · A · B + beta · C`; where it is not 0, C is D's
    /// buffer (in place, as cuBLAS computes it), filled with random values
    /// before the first run and before the checked run.
    #[arg(long = "beta", default_value_t = 0.0, allow_negative_numbers = true)]
    pub beta: f64,
    /// Skip checking the result.
    #[arg(long = "skip_ref_check")]
    pub skip_ref_check: bool,
    /// Time with a cold L2: each timed run (cutlet's and cuBLAS's) uses
    /// another set of A, B and D buffers, rotating through enough copies to
    /// total at least twice the GPU's L2.
    #[arg(long = "use_cold_l2")]
    pub use_cold_l2: bool,
    /// The architecture to generate for: sm70 (the Volta kernel, f16
    /// inputs), sm80 or sm90; default: the GPU's best (sm90 on compute
    /// capability 9.0, where the kernel is picked for the problem; else
    /// sm80; --emit-ptx without a GPU: sm80).
    #[arg(long = "arch", value_parser = parse_arch)]
    pub arch: Option<ArchKind>,
    /// The SM90 kernel schedule: cooperative, pingpong, slicedk (sliced-K:
    /// both consumer warpgroups on one tile, each on every other k-tile) or
    /// auto (default: auto, chosen for the problem as CUTLASS's
    /// KernelScheduleAuto).
    #[arg(long = "schedule", value_parser = parse_schedule, default_value = "auto")]
    pub schedule: ScheduleArg,
    /// The SM90 thread-block cluster M,N (1 or 2 each; default: the
    /// problem's pick, or the schedule's, 2,1 for cooperative, where a
    /// schedule or tile is given).
    #[arg(long = "cluster_shape_mn", value_parser = parse_cluster)]
    pub cluster_shape_mn: Option<[u32; 2]>,
    /// The order in which the tile scheduler walks the output tiles: auto
    /// (default: along M in a 1x2 cluster, else along N), along_n, along_m,
    /// or heuristic (CUTLASS's: along M where N has more tiles) (CUTLASS
    /// profiler's --raster_order).
    #[arg(long = "raster_order", value_parser = parse_raster_order, default_value = "auto")]
    pub raster_order: RasterOrder,
    /// Tiles per swizzle group of the walk, a power of two (CUTLASS
    /// profiler's --swizzle_size; default: the kernel's, 8).
    #[arg(long = "swizzle_size", value_parser = parse_swizzle_size)]
    pub swizzle_size: Option<u32>,
    /// How the work is divided among blocks: auto (default: the problem's
    /// pick), data_parallel, split_k (with --splits) or stream_k.
    #[arg(long = "decomposition", value_parser = parse_decomposition, default_value = "auto")]
    pub decomposition: DecompositionArg,
    /// Split-K's units per tile, 2 to 64 (implies --decomposition split_k
    /// unless another is given).
    #[arg(long = "splits")]
    pub splits: Option<u32>,
    /// Swap-AB: run the problem as its transpose D^T = B^T A^T (a small M
    /// on the kernel's N): true or false (a bare --swap_ab is true);
    /// default: the problem's pick. With --tile_shape_mnk the tile is the
    /// kernel's, TileM along N and TileN along M.
    #[arg(long = "swap_ab", num_args = 0..=1, default_missing_value = "true")]
    pub swap_ab: Option<bool>,
    /// How split-K and stream-K add their partial tiles: `deterministic`
    /// (the default: in K order, the same bits every run) or `atomic`
    /// (`red.global.add` into one tile).
    #[arg(long = "reduction", value_parser = parse_reduction, default_value = "deterministic")]
    pub reduction: Reduction,
    /// e4m3/e5m2 A and B: accumulate in the wgmma's accumulators throughout
    /// (CUTLASS's FP8FastAccum; cuBLASLt's reference then runs with
    /// FAST_ACCUM too) instead of promoting every 4 k-steps (the default,
    /// on both sides).
    #[arg(long = "fast_accum")]
    pub fast_accum: bool,
    /// Scales of A and B (f32, as `torch._scaled_mm` takes them): `tensor`
    /// (one each), `row` (one per row of A and per column of B) or `block`
    /// (1x128 for A, 128x128 for B, applied at each promotion); unit
    /// values, so that cuBLASLt's unscaled product is the reference (the
    /// tests check the scaling itself). Default: none.
    #[arg(long = "scale_mode", value_parser = parse_scale_mode)]
    pub scale_mode: Option<ScaleGranularity>,
    /// Run the GEMV kernel (`GemmSpec::gemv`, K-major A and B) with these
    /// `ROWS,COLS,WARPS,UNROLL` (rows 8 or 16, columns a multiple of 8 up
    /// to 64, 1 to 32 warps slicing K, 1 to 8 k-steps in flight) instead of
    /// the pick. Default: the pick (which takes it for most problems of M up
    /// to 16: the README's GEMV paragraph says which).
    #[arg(long = "gemv", value_parser = parse_gemv)]
    pub gemv: Option<[u32; 4]>,
    /// With `--gemv`: stage each warp's k-steps in a shared-memory ring
    /// with `cp.async` (`GemmSpec::gemv_ring`; UNROLL 1 to 16 k-steps in
    /// flight) instead of holding them in registers.
    #[arg(long = "gemv_ring", requires = "gemv")]
    pub gemv_ring: bool,
    /// Shared-memory stages of the mainloop's ring (as CUTLASS's profiler's
    /// `--stages`), set on whichever kernel runs, the pick's included;
    /// the kernel must still fit the GPU's shared memory. Default: the
    /// kernel's own (as many as fit, on SM90 at most 16 for a ping-pong
    /// kernel of whole tiles or of narrow tiles in 2 splits, 8 for the
    /// others). Where the pick runs the GEMV kernel, the k-steps each of
    /// its warps keeps in flight (its UNROLL). Not given with `--gemv`,
    /// whose UNROLL sets them.
    #[arg(long = "stages", conflicts_with = "gemv")]
    pub stages: Option<u32>,
}

/// `ROWS,COLS,WARPS,UNROLL` of `--gemv`.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the text and what was expected.
fn parse_gemv(text: &str) -> Result<[u32; 4]> {
    parse_u32s(text, "ROWS,COLS,WARPS,UNROLL", "GEMV parameter")
}

/// `N` comma-separated values that fit in 32 bits (`what` names the list,
/// `each` one value, in errors).
fn parse_u32s<const N: usize>(text: &str, what: &str, each: &str) -> Result<[u32; N]> {
    let values = parse_list(text, N, what)?;
    let mut out = [0u32; N];
    for (slot, value) in out.iter_mut().zip(values) {
        *slot = u32::try_from(value)
            .map_err(|_| Error::invalid_argument(each, value, "a value that fits in 32 bits"))?;
    }
    Ok(out)
}

/// `tensor`, `row` or `block`.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the text and the names accepted.
pub fn parse_scale_mode(text: &str) -> Result<ScaleGranularity> {
    match text {
        "tensor" => Ok(ScaleGranularity::Tensor),
        "row" => Ok(ScaleGranularity::RowCol),
        "block" => Ok(ScaleGranularity::Block),
        other => Err(Error::invalid_argument(
            "scale mode",
            format!("`{other}`"),
            "tensor, row or block",
        )),
    }
}

/// `--decomposition`: chosen for the problem, or one of cutlet's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecompositionArg {
    /// Chosen for the problem.
    Auto,
    /// Whole output tiles.
    DataParallel,
    /// Split-K, with `--splits`.
    SplitK,
    /// Stream-K.
    StreamK,
}

/// `deterministic` or `atomic`.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the text and the names accepted.
pub fn parse_reduction(text: &str) -> Result<Reduction> {
    match text {
        "deterministic" => Ok(Reduction::Deterministic),
        "atomic" => Ok(Reduction::Atomic),
        other => Err(Error::invalid_argument(
            "reduction",
            format!("`{other}`"),
            "deterministic or atomic",
        )),
    }
}

/// `auto`, `data_parallel`, `split_k` or `stream_k`.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the text and the names accepted.
pub fn parse_decomposition(text: &str) -> Result<DecompositionArg> {
    match text {
        "auto" => Ok(DecompositionArg::Auto),
        "data_parallel" => Ok(DecompositionArg::DataParallel),
        "split_k" => Ok(DecompositionArg::SplitK),
        "stream_k" => Ok(DecompositionArg::StreamK),
        other => Err(Error::invalid_argument(
            "decomposition",
            format!("`{other}`"),
            "auto, data_parallel, split_k or stream_k",
        )),
    }
}

impl DenseGemmArgs {
    /// The tile walk these options ask for.
    pub fn scheduler(&self) -> SchedulerArgs {
        SchedulerArgs {
            raster_order: self.raster_order,
            swizzle_size: self.swizzle_size,
        }
    }

    /// The decomposition these options pin, if any.
    ///
    /// Errors: [`Error::InvalidArgument`] for split_k without `--splits`,
    /// and for `--splits` beside stream_k.
    pub fn decomposition(&self) -> Result<Option<Decomposition>> {
        match (self.decomposition, self.splits) {
            (DecompositionArg::StreamK, None) => Ok(Some(Decomposition::StreamK)),
            (DecompositionArg::StreamK, Some(n)) => Err(Error::invalid_argument(
                "--splits",
                n,
                "no --splits with --decomposition stream_k (stream-K divides the k-tiles itself)",
            )),
            (DecompositionArg::Auto, None) => Ok(None),
            (DecompositionArg::Auto | DecompositionArg::SplitK, Some(n)) => {
                Ok(Some(Decomposition::SplitK(n)))
            }
            (DecompositionArg::DataParallel, _) => Ok(Some(Decomposition::DataParallel)),
            (DecompositionArg::SplitK, None) => Err(Error::invalid_argument(
                "--decomposition",
                "split_k",
                "--splits N beside it (2 to 64)",
            )),
        }
    }

    /// The kernel spec these options select (no GPU needed).
    ///
    /// Errors: [`Error::InvalidArgument`]
    /// naming what the kernel generator cannot build.
    pub fn spec(&self) -> Result<GemmSpec> {
        if let Some([rows, cols, warps, unroll]) = self.gemv {
            let types = GemmTypes::new(
                self.a_dtype,
                self.b_dtype,
                self.c_dtype,
                self.c_dtype,
                self.accumulator(),
            );
            let majors = GemmMajors::new(self.a_major, self.b_major, self.c_major);
            let spec = if self.gemv_ring {
                GemmSpec::gemv_ring(types, majors, [rows, cols], warps, unroll)
            } else {
                GemmSpec::gemv(types, majors, [rows, cols], warps, unroll)
            };
            spec.validate()?;
            return Ok(spec);
        }
        let mut builder = Gemm::builder()
            .a(self.a_dtype, self.a_major)
            .b(self.b_dtype, self.b_major)
            .d(self.c_dtype, self.c_major)
            .accumulator(self.accumulator());
        if let Some(tile) = self.tile_shape_mnk {
            builder = builder.tile(tile);
        }
        if let Some(arch) = self.arch {
            builder = builder.arch(arch);
        }
        if let ScheduleArg::Fixed(schedule) = self.schedule {
            builder = builder.schedule(schedule);
        }
        if let Some(cluster) = self.cluster_shape_mn {
            builder = builder.cluster(cluster);
        }
        if let Some(decomposition) = self.decomposition()? {
            builder = builder.decomposition(decomposition);
        }
        if let Some(swap) = self.swap_ab {
            builder = builder.swap_ab(swap);
        }
        builder = builder.reduction(self.reduction);
        if let Some(stages) = self.stages {
            builder = builder.stages(stages);
        }
        if let Some(granularity) = self.scale_mode {
            builder = builder.scales(granularity);
        }
        builder.fast_accumulation(self.fast_accum).spec()
    }

    /// The accumulator type: `--acc_dtype`, else s32 for s8/u8 A and f32
    /// for the rest.
    pub fn accumulator(&self) -> ElementType {
        let integer = matches!(self.a_dtype, ElementType::I8 | ElementType::U8);
        match self.acc_dtype {
            Some(acc) => acc,
            None if integer => ElementType::I32,
            None => ElementType::F32,
        }
    }

    /// Whether the kernel promotes its partial sums (e4m3/e5m2 A and B
    /// without `--fast_accum`).
    fn promotes(&self) -> bool {
        let fp8 = |e| matches!(e, ElementType::F8E4M3 | ElementType::F8E5M2);
        fp8(self.a_dtype) && fp8(self.b_dtype) && !self.fast_accum
    }

    /// Whether the run takes the SM90 kernel on a GPU of compute
    /// capability `cc`: `--arch sm90`, a schedule or cluster given, or no
    /// `--arch` on compute capability 9.0.
    fn sm90_on(&self, cc: (u32, u32)) -> bool {
        match self.arch {
            Some(arch) => arch == ArchKind::Sm90,
            None => {
                self.schedule != ScheduleArg::Auto
                    || self.cluster_shape_mn.is_some()
                    || self.splits.is_some()
                    || matches!(
                        self.decomposition,
                        DecompositionArg::SplitK | DecompositionArg::StreamK
                    )
                    || self.swap_ab == Some(true)
                    || cc == (9, 0)
            }
        }
    }

    /// The kernel spec for a run on a GPU of `sm_count` SMs and compute
    /// capability `cc`: [`spec`](Self::spec), except that without
    /// `--tile_shape_mnk` the kernel is chosen for the problem. On compute
    /// capability 9.0 (unless `--arch sm80`/`sm70`) that is the SM90 kernel
    /// of [`sm90_spec_for_problem`](cutlet::kernel::gemm::sm90_spec_for_problem) (cooperative 256x128 in a 1x2 cluster
    /// for problems that fill the GPU, 128x256 in a 2x1 cluster where a tf32
    /// A is M-major and the problem fills half of it, else ping-pong
    /// 128x128) where no
    /// schedule or cluster is given; elsewhere [`sm80_spec_for_problem`]
    /// (256x128 where that takes fewer waves than 128x256, e.g. for
    /// 4095 x 4097).
    ///
    /// With it, whether the spec is the kernel of the transposed problem
    /// (swap-AB: `--swap_ab`, or the pick's).
    ///
    /// Errors: as [`spec`](Self::spec).
    pub fn spec_for_device(&self, sm_count: u32, cc: (u32, u32)) -> Result<(GemmSpec, bool)> {
        let (mut spec, swap) = self.spec_for_device_unstaged(sm_count, cc)?;
        if let Some(stages) = self.stages.filter(|_| self.gemv.is_none()) {
            spec.set_stages(stages);
            spec.validate()?;
        }
        Ok((spec, swap))
    }

    /// [`spec_for_device`](Self::spec_for_device) before `--stages`.
    fn spec_for_device_unstaged(&self, sm_count: u32, cc: (u32, u32)) -> Result<(GemmSpec, bool)> {
        let extent = |value: usize| u32::try_from(value).unwrap_or(u32::MAX);
        if self.gemv.is_some() {
            return self.spec().map(|spec| (spec, false));
        }
        if self.sm90_on(cc) {
            let explicit = self.tile_shape_mnk.is_some()
                || self.schedule != ScheduleArg::Auto
                || self.cluster_shape_mn.is_some()
                || self.decomposition()?.is_some();
            if explicit {
                let mut args = self.clone();
                args.arch = Some(ArchKind::Sm90);
                let GemmShape { m, n, .. } = self.mnkl;
                let swap = self.swap_ab == Some(true);
                let (m, n) = if swap { (n, m) } else { (m, n) };
                let spec = args
                    .spec()?
                    .with_epilogue_for_output(extent(m), extent(n))?;
                return Ok((spec, swap));
            }
            let GemmShape { m, n, k, l } = self.mnkl;
            let block = self.scale_mode == Some(ScaleGranularity::Block);
            let chosen = sm90_pick_for_problem(
                GemmTypes::new(
                    self.a_dtype,
                    self.b_dtype,
                    self.c_dtype,
                    self.c_dtype,
                    self.accumulator(),
                ),
                GemmMajors::new(self.a_major, self.b_major, self.c_major),
                [extent(m), extent(n), extent(k), extent(l)],
                sm_count,
                self.swap_ab,
            );
            // Types or majors the SM90 kernels do not take run on SM80
            // unless SM90 was asked for.
            // The scales, as the builder's picks carry them.
            let chosen = chosen.and_then(|(mut spec, swap)| {
                spec.reduction = self.reduction;
                if let Some(granularity) = self.scale_mode {
                    let fusion = spec.epilogue.fusion.with_scales(granularity)?;
                    spec.epilogue.fusion = if swap { fusion.transposed() } else { fusion };
                    // Block scales need the promotion, added below.
                    if !(block && self.promotes()) {
                        spec.validate()?;
                    }
                }
                Ok((spec, swap))
            });
            match (chosen, self.arch) {
                // The FP8 mainloop's promotion, as the builder's picks
                // carry it: a pick with no room for it runs the default.
                (Ok((spec, swap)), _) if self.promotes() => {
                    let (tile, chosen_schedule) = (spec.tile, spec.schedule);
                    return match spec.with_fp8_promotion(DEFAULT_PROMOTION_INTERVAL) {
                        Ok(spec) => Ok((spec, swap)),
                        // Swap-AB's block-scaled kernel takes at most 64
                        // columns (a scale of A each), as the builder's
                        // picks narrow it.
                        Err(_) if block && swap && tile[1] > MAX_TRANSPOSED_BLOCK_SCALE_TILE_N => {
                            let mut narrow = self.clone();
                            narrow.arch = Some(ArchKind::Sm90);
                            narrow.swap_ab = Some(true);
                            narrow.schedule = ScheduleArg::Fixed(chosen_schedule);
                            narrow.tile_shape_mnk =
                                Some([tile[0], MAX_TRANSPOSED_BLOCK_SCALE_TILE_N, tile[2]]);
                            let spec = narrow
                                .spec()?
                                .with_epilogue_for_output(extent(n), extent(m))?;
                            Ok((spec, true))
                        }
                        Err(_) => self.spec().map(|spec| (spec, false)),
                    };
                }
                (Ok(chosen), _) => return Ok(chosen),
                (Err(e), Some(ArchKind::Sm90)) => return Err(e),
                (Err(_), _) => {}
            }
        }
        let spec = self.spec()?;
        if self.tile_shape_mnk.is_some() || spec.arch == ArchKind::Sm70 {
            return Ok((spec, false));
        }
        let GemmShape { m, n, l, .. } = self.mnkl;
        sm80_spec_for_problem(
            spec.types,
            spec.majors,
            extent(m),
            extent(n),
            extent(l),
            sm_count,
        )
        .map(|chosen| {
            let spec = GemmSpec {
                arch: spec.arch,
                ..chosen
            };
            (spec, false)
        })
    }
}

/// `--schedule`: a fixed SM90 kernel schedule, or one chosen for the problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScheduleArg {
    /// Chosen for the problem (CUTLASS's `KernelScheduleAuto`).
    Auto,
    /// This schedule.
    Fixed(KernelSchedule),
}

/// `cooperative`, `pingpong`, `slicedk` (two consumer warpgroups on
/// alternate k-tiles of one tile: sliced-K) or `auto`.
///
/// ```
/// use cutlet_harness::{parse_schedule, ScheduleArg};
/// use cutlet::kernel::gemm::KernelSchedule;
/// assert_eq!(parse_schedule("pingpong").unwrap(), ScheduleArg::Fixed(KernelSchedule::TmaWarpSpecializedPingpong));
/// assert_eq!(parse_schedule("auto").unwrap(), ScheduleArg::Auto);
/// assert!(parse_schedule("fast").unwrap_err().to_string().contains("cooperative"));
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming the text and the names accepted.
pub fn parse_schedule(text: &str) -> Result<ScheduleArg> {
    match text {
        "cooperative" => Ok(ScheduleArg::Fixed(
            KernelSchedule::TmaWarpSpecializedCooperative,
        )),
        "pingpong" => Ok(ScheduleArg::Fixed(
            KernelSchedule::TmaWarpSpecializedPingpong,
        )),
        "slicedk" => Ok(ScheduleArg::Fixed(
            KernelSchedule::TmaWarpSpecializedSlicedK,
        )),
        "auto" => Ok(ScheduleArg::Auto),
        other => Err(Error::invalid_argument(
            "schedule",
            format!("`{other}`"),
            "cooperative, pingpong, slicedk or auto",
        )),
    }
}

/// `auto`, `heuristic`, `along_m` or `along_n`: a raster order.
///
/// ```
/// use cutlet::device::gemm::RasterOrder;
/// use cutlet_harness::parse_raster_order;
///
/// assert_eq!(parse_raster_order("along_m").unwrap(), RasterOrder::AlongM);
/// assert_eq!(parse_raster_order("auto").unwrap(), RasterOrder::Auto);
/// assert!(parse_raster_order("diagonal").is_err());
/// ```
pub fn parse_raster_order(text: &str) -> Result<RasterOrder> {
    match text {
        "auto" => Ok(RasterOrder::Auto),
        "heuristic" => Ok(RasterOrder::Heuristic),
        "along_m" => Ok(RasterOrder::AlongM),
        "along_n" => Ok(RasterOrder::AlongN),
        other => Err(Error::invalid_argument(
            "raster_order",
            format!("`{other}`"),
            "auto, heuristic, along_m or along_n",
        )),
    }
}

/// A swizzle size: a number that [`SchedulerArgs::raster_log`] takes (a
/// power of two).
///
/// ```
/// use cutlet_harness::parse_swizzle_size;
///
/// assert_eq!(parse_swizzle_size("4").unwrap(), 4);
/// assert!(parse_swizzle_size("3").is_err());
/// assert!(parse_swizzle_size("four").is_err());
/// ```
pub fn parse_swizzle_size(text: &str) -> Result<u32> {
    let size = text.trim().parse::<u32>().map_err(|_| {
        Error::invalid_argument(
            "swizzle_size",
            format!("`{text}`"),
            "a power of two (1, 2, 4, 8, ...)",
        )
    })?;
    let walk = SchedulerArgs {
        swizzle_size: Some(size),
        ..SchedulerArgs::default()
    };
    walk.raster_log()?;
    Ok(size)
}

/// `M,N`: a cluster shape, 1 or 2 each.
///
/// ```
/// use cutlet_harness::parse_cluster;
/// assert_eq!(parse_cluster("2,1").unwrap(), [2, 1]);
/// assert!(parse_cluster("4,1").unwrap_err().to_string().contains("1 or 2"));
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming the text.
pub fn parse_cluster(text: &str) -> Result<[u32; 2]> {
    let values = parse_list(text, 2, "M,N")?;
    if values.iter().any(|&v| v != 1 && v != 2) {
        return Err(Error::invalid_argument(
            "cluster shape",
            format!("`{text}`"),
            "M,N with 1 or 2 CTAs each (a cluster of at most 4)",
        ));
    }
    Ok([values[0] as u32, values[1] as u32])
}

/// `Float16`/`f16`, `BFloat16`/`bf16`, `Float32`/`f32`, `TFloat32`/`tf32`,
/// `Float8E4M3FN`/`e4m3`, `Float8E5M2`/`e5m2`, `Int8`/`s8`, `Uint8`/`u8`,
/// `Int32`/`s32`.
///
/// ```
/// use cutlet_harness::parse_dtype;
/// use cutlet::numeric::ElementType;
/// assert_eq!(parse_dtype("BFloat16").unwrap(), ElementType::BF16);
/// assert_eq!(parse_dtype("tf32").unwrap(), ElementType::TF32);
/// assert_eq!(parse_dtype("Int8").unwrap(), ElementType::I8);
/// assert_eq!(parse_dtype("s32").unwrap(), ElementType::I32);
/// assert!(parse_dtype("Int4").unwrap_err().to_string().contains("Float16"));
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming the text and the names accepted.
pub fn parse_dtype(text: &str) -> Result<ElementType> {
    match text {
        "Float16" | "f16" => Ok(ElementType::F16),
        "BFloat16" | "bf16" => Ok(ElementType::BF16),
        "Float32" | "f32" => Ok(ElementType::F32),
        "TFloat32" | "tf32" => Ok(ElementType::TF32),
        "Float8E4M3FN" | "e4m3" => Ok(ElementType::F8E4M3),
        "Float8E5M2" | "e5m2" => Ok(ElementType::F8E5M2),
        "Int8" | "s8" | "i8" => Ok(ElementType::I8),
        "Uint8" | "u8" => Ok(ElementType::U8),
        "Int32" | "s32" | "i32" => Ok(ElementType::I32),
        other => Err(Error::invalid_argument(
            "element type",
            format!("`{other}`"),
            "Float16, BFloat16, Float32, TFloat32, Float8E4M3FN, Float8E5M2, Int8, Uint8, Int32 (or f16, bf16, f32, tf32, e4m3, e5m2, s8, u8, s32)",
        )),
    }
}

/// `M,N,K,L`.
///
/// ```
/// use cutlet_harness::parse_mnkl;
/// assert_eq!(parse_mnkl("4095,4097,4093,1").unwrap().k, 4093);
/// assert!(parse_mnkl("1,2,3").unwrap_err().to_string().contains("M,N,K,L"));
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming the text when it is not four
/// non-negative integers separated by commas.
pub fn parse_mnkl(text: &str) -> Result<GemmShape> {
    let values = parse_list(text, 4, "M,N,K,L")?;
    Ok(GemmShape::new(values[0], values[1], values[2], values[3]))
}

fn parse_tile(text: &str) -> Result<[u32; 3]> {
    parse_u32s(text, "BM,BN,BK", "tile extent")
}

fn parse_list(text: &str, count: usize, what: &str) -> Result<Vec<usize>> {
    let invalid = || {
        Error::invalid_argument(
            what,
            format!("`{text}`"),
            format!("{count} non-negative integers separated by commas"),
        )
    };
    let values: Vec<usize> = text
        .split(',')
        .map(|part| part.trim().parse::<usize>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| invalid())?;
    if values.len() != count {
        return Err(invalid());
    }
    Ok(values)
}

fn parse_a_major(text: &str) -> Result<OperandMajor> {
    match text {
        "k" => Ok(OperandMajor::K),
        "m" => Ok(OperandMajor::MN),
        other => Err(Error::invalid_argument(
            "a_major",
            format!("`{other}`"),
            "k or m",
        )),
    }
}

fn parse_b_major(text: &str) -> Result<OperandMajor> {
    match text {
        "k" => Ok(OperandMajor::K),
        "n" => Ok(OperandMajor::MN),
        other => Err(Error::invalid_argument(
            "b_major",
            format!("`{other}`"),
            "k or n",
        )),
    }
}

/// `--arch`: sm70, sm80 or sm90 (or sm_70, sm_80, sm_90).
fn parse_arch(text: &str) -> Result<ArchKind> {
    match text.replace('_', "").as_str() {
        "sm70" => Ok(ArchKind::Sm70),
        "sm80" => Ok(ArchKind::Sm80),
        "sm90" => Ok(ArchKind::Sm90),
        _ => Err(Error::invalid_argument(
            "arch",
            format!("`{text}`"),
            "sm70, sm80 or sm90",
        )),
    }
}

fn parse_c_major(text: &str) -> Result<OutputMajor> {
    match text {
        "n" => Ok(OutputMajor::N),
        "m" => Ok(OutputMajor::M),
        other => Err(Error::invalid_argument(
            "c_major",
            format!("`{other}`"),
            "n or m",
        )),
    }
}
