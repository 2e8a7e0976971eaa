//! Dispatch policies of the kernel layer: the kernel schedule (how a
//! kernel runs its mainloop and epilogue: [`KernelSchedule`]) and the tile
//! scheduler (which output tiles a block computes: [`TileSchedulerPolicy`]),
//! as plain values and as the zero-sized tags a typed configuration names
//! them with ([`KernelMultistage`], [`DataParallelScheduler`]).

/// How a kernel runs its parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum KernelSchedule {
    /// Every warp runs the mainloop's producer and consumer in one body,
    /// then the epilogue (CUTLASS's `KernelMultistage`, the SM70/SM80
    /// kernels): [`gemm_universal`](super::GemmUniversal).
    #[default]
    Multistage,
    /// Warp-specialized, persistent (CUTLASS's
    /// `KernelTmaWarpSpecializedCooperative`): one producer warpgroup loads
    /// with TMA, two consumer warpgroups split each output tile along M,
    /// run its mainloop together, then its epilogue together.
    TmaWarpSpecializedCooperative,
    /// Warp-specialized, persistent (CUTLASS's
    /// `KernelTmaWarpSpecializedPingpong`): one producer warpgroup, two
    /// consumer warpgroups that each own whole output tiles and take turns,
    /// so that one's epilogue overlaps the other's mainloop.
    TmaWarpSpecializedPingpong,
    /// Warp-specialized, persistent, sliced-K (CUTLASS 2.x's sliced-K, by
    /// warpgroups): one producer warpgroup, two consumer warpgroups that
    /// take every output tile together, whole, each multiplying every
    /// other k-tile of it (the first k-tiles 0, 2, 4, ..., the second 1,
    /// 3, 5, ...); the second adds its partial tile into the first's
    /// through shared memory, and the first runs the epilogue while the
    /// second starts the next tile. For tiles too few to give each block
    /// two (a 64-row tile would leave one ping-pong warpgroup idle). Runs
    /// with f32 accumulators, A read from shared memory, the persistent
    /// scheduler and no cluster.
    TmaWarpSpecializedSlicedK,
}

impl KernelSchedule {
    /// A short name for messages and kernel names.
    pub const fn name(self) -> &'static str {
        match self {
            KernelSchedule::Multistage => "multistage",
            KernelSchedule::TmaWarpSpecializedCooperative => "cooperative",
            KernelSchedule::TmaWarpSpecializedPingpong => "pingpong",
            KernelSchedule::TmaWarpSpecializedSlicedK => "slicedk",
        }
    }

    /// Whether producer and consumers run on different warpgroups.
    pub const fn warp_specialized(self) -> bool {
        !matches!(self, KernelSchedule::Multistage)
    }

    /// The consumer warpgroups that share one output tile, each a band of
    /// `BM / tile_warpgroups` rows (the warpgroups of the consumers'
    /// tiled MMA along M): 2 cooperative, 1 ping-pong and sliced-K (each
    /// warpgroup all of the tile's rows); 0 for the multistage kernel,
    /// which has no warpgroups. Where a schedule's consumers and bands are
    /// needed, they come from here.
    ///
    /// ```
    /// use cutlet::kernel::gemm::KernelSchedule;
    ///
    /// assert_eq!(KernelSchedule::TmaWarpSpecializedCooperative.tile_warpgroups(), 2);
    /// assert_eq!(KernelSchedule::TmaWarpSpecializedPingpong.tile_warpgroups(), 1);
    /// assert_eq!(KernelSchedule::TmaWarpSpecializedPingpong.tiles_in_flight(), 2);
    /// // Sliced-K: both warpgroups on one tile, each on half of its k-tiles.
    /// assert_eq!(KernelSchedule::TmaWarpSpecializedSlicedK.tile_warpgroups(), 1);
    /// assert_eq!(KernelSchedule::TmaWarpSpecializedSlicedK.tiles_in_flight(), 1);
    /// ```
    pub const fn tile_warpgroups(self) -> u32 {
        match self {
            KernelSchedule::Multistage => 0,
            KernelSchedule::TmaWarpSpecializedCooperative => 2,
            KernelSchedule::TmaWarpSpecializedPingpong => 1,
            KernelSchedule::TmaWarpSpecializedSlicedK => 1,
        }
    }

    /// Bytes of shared memory the sliced-K schedule's warpgroups exchange
    /// a tile's partial sums through: the tile's f32 accumulators
    /// (`BM x BN x 4`); 0 for the other schedules.
    ///
    /// ```
    /// use cutlet::kernel::gemm::KernelSchedule;
    ///
    /// assert_eq!(KernelSchedule::TmaWarpSpecializedSlicedK.exchange_bytes([64, 128, 64]), 32768);
    /// assert_eq!(KernelSchedule::TmaWarpSpecializedPingpong.exchange_bytes([64, 128, 64]), 0);
    /// ```
    pub const fn exchange_bytes(self, tile: [u32; 3]) -> u32 {
        match self {
            KernelSchedule::TmaWarpSpecializedSlicedK => tile[0] * tile[1] * 4,
            _ => 0,
        }
    }

    /// The output tiles a block's consumers work on at once: 2 for
    /// ping-pong (each consumer warpgroup its own, in turn), else 1.
    pub const fn tiles_in_flight(self) -> u32 {
        match self {
            KernelSchedule::TmaWarpSpecializedPingpong => 2,
            _ => 1,
        }
    }
}

/// How a GEMM's work is divided among blocks (CUTLASS's
/// `DecompositionMode`): whole output tiles, each tile's K loop split into
/// units whose partial tiles the kernel adds, or stream-K's even share of
/// the k-tiles for every block.
///
/// ```
/// use cutlet::kernel::gemm::{Decomposition, TileSchedulerPolicy};
///
/// assert_eq!(Decomposition::SplitK(4).scheduler(), TileSchedulerPolicy::SplitK { splits: 4 });
/// assert_eq!(Decomposition::SplitK(1).scheduler(), TileSchedulerPolicy::Persistent);
/// assert_eq!(Decomposition::StreamK.scheduler(), TileSchedulerPolicy::StreamK);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Decomposition {
    /// Each output tile's whole K loop in one work unit (the persistent
    /// walk of the SM90 kernels, one block per tile on SM80 and SM70).
    #[default]
    DataParallel,
    /// Each output tile's K loop split into `n` work units (2 to 64; 1 is
    /// data-parallel), their partial tiles added in K order in the kernel
    /// through a workspace: the same bits on every run. For problems of
    /// few output tiles and a long K. SM90 cooperative kernels, in a
    /// cluster or without (the CTAs of a cluster run the same k-tiles of
    /// neighbouring tiles), f32 accumulation.
    SplitK(u32),
    /// Stream-K ([`StreamK`](super::StreamK)): whole waves of output tiles
    /// data-parallel, the k-tiles of the rest spread evenly over every SM's
    /// block, the partial tiles added in K order in the kernel through a
    /// workspace (the same bits on every run on one GPU model). For tile
    /// counts that leave a partial last wave. SM90 cooperative kernels
    /// without clusters, f32 accumulation.
    StreamK,
}

impl Decomposition {
    /// The SM90 tile scheduler of this decomposition.
    pub const fn scheduler(self) -> TileSchedulerPolicy {
        match self {
            Decomposition::SplitK(n) if n > 1 => TileSchedulerPolicy::SplitK { splits: n },
            Decomposition::StreamK => TileSchedulerPolicy::StreamK,
            _ => TileSchedulerPolicy::Persistent,
        }
    }
}

/// How a K-splitting tile scheduler (split-K, stream-K) adds the partial
/// tiles of an output tile's work units (CUTLASS's `ReductionMode`).
///
/// ```
/// use cutlet::kernel::gemm::Reduction;
///
/// assert_eq!(Reduction::default(), Reduction::Deterministic);
/// assert_eq!(Reduction::Atomic.name(), "atomic");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Reduction {
    /// Each unit stores its partial tile in a slot of its own; the unit
    /// that finishes the tile adds the slots in K order: the same bits on
    /// every run.
    #[default]
    Deterministic,
    /// Each unit adds its partial tile into one f32 tile of the workspace
    /// with `red.global.add` (in whatever order the units arrive); the unit
    /// that finishes the tile reads that one tile instead of one per unit,
    /// and sets it back to 0. Faster where many units share a tile; the
    /// low bits of D may differ from run to run.
    Atomic,
}

impl Reduction {
    /// The name in messages and on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Reduction::Deterministic => "deterministic",
            Reduction::Atomic => "atomic",
        }
    }
}

/// Which tile scheduler maps blocks to output tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum TileSchedulerPolicy {
    /// One block per output tile, rasterized in groups along M, the batch
    /// in `blockIdx.y`: [`DataParallel`](super::DataParallel).
    #[default]
    DataParallel,
    /// As many blocks (or clusters) as fit on the GPU at once, each walking
    /// the output tiles of every batch with a stride of the grid, rasterized
    /// in groups along M (CUTLASS's `PersistentTileSchedulerSm90`):
    /// [`Persistent`](super::Persistent).
    Persistent,
    /// The persistent walk with each tile's K loop split into `splits`
    /// work units whose partial tiles the kernel adds in K order through a
    /// workspace (deterministic; CUTLASS's split-K mode of the stream-K
    /// scheduler): [`SplitK`](super::SplitK). SM90 cooperative and
    /// ping-pong kernels, in clusters or not, f32 accumulators, either
    /// SM90 epilogue.
    SplitK {
        /// Work units per tile, 2 to 64.
        splits: u32,
    },
    /// The persistent walk with stream-K units: whole waves of tiles
    /// data-parallel, the k-tiles of the tiles of the last one or two waves
    /// divided evenly among the grid's blocks, partial tiles added in K
    /// order through a workspace (deterministic): [`StreamK`](super::StreamK).
    /// SM90 cooperative kernels without clusters, f32 accumulators, either
    /// SM90 epilogue.
    StreamK,
}

/// A kernel-schedule tag of a typed configuration.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a kernel schedule",
    note = "the kernel schedules are cutlet::kernel::gemm::KernelMultistage, KernelTmaWarpSpecializedCooperative and KernelTmaWarpSpecializedPingpong"
)]
pub trait KernelScheduleTag: Send + Sync + 'static {
    /// The schedule value the tag lowers to.
    const SCHEDULE: KernelSchedule;
}

/// A tile-scheduler tag of a typed configuration.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tile scheduler",
    note = "the tile schedulers are cutlet::kernel::gemm::DataParallelScheduler, PersistentScheduler, SplitKScheduler<N>, SplitKAtomicScheduler<N>, StreamKScheduler and StreamKAtomicScheduler"
)]
pub trait TileSchedulerTag: Send + Sync + 'static {
    /// The policy value the tag lowers to.
    const POLICY: TileSchedulerPolicy;
    /// How its partial tiles are added, where it splits K.
    const REDUCTION: Reduction = Reduction::Deterministic;
}

/// [`KernelSchedule::Multistage`] as a tag.
pub struct KernelMultistage;

/// The SM90 cooperative schedule: [`KernelSchedule::TmaWarpSpecializedCooperative`].
pub struct KernelTmaWarpSpecializedCooperative;

impl KernelScheduleTag for KernelTmaWarpSpecializedCooperative {
    const SCHEDULE: KernelSchedule = KernelSchedule::TmaWarpSpecializedCooperative;
}

/// The SM90 ping-pong schedule: [`KernelSchedule::TmaWarpSpecializedPingpong`].
pub struct KernelTmaWarpSpecializedPingpong;

impl KernelScheduleTag for KernelTmaWarpSpecializedPingpong {
    const SCHEDULE: KernelSchedule = KernelSchedule::TmaWarpSpecializedPingpong;
}

/// The SM90 sliced-K schedule: [`KernelSchedule::TmaWarpSpecializedSlicedK`].
pub struct KernelTmaWarpSpecializedSlicedK;

impl KernelScheduleTag for KernelTmaWarpSpecializedSlicedK {
    const SCHEDULE: KernelSchedule = KernelSchedule::TmaWarpSpecializedSlicedK;
}

/// The persistent tile scheduler: [`TileSchedulerPolicy::Persistent`].
pub struct PersistentScheduler;

impl TileSchedulerTag for PersistentScheduler {
    const POLICY: TileSchedulerPolicy = TileSchedulerPolicy::Persistent;
}

/// Split-K with `N` units per tile (a `typenum` number, 2 to 64):
/// [`TileSchedulerPolicy::SplitK`]. Its rules: the cooperative or the
/// ping-pong schedule (each consumer warpgroup of the ping-pong kernel
/// adds its own units' partial tiles, in its epilogue turn), f32
/// accumulation; a configuration that breaks one does not compile. Either SM90 epilogue (with the TMA store, C is loaded
/// by the unit that stores the tile; tiles over 128x128 spill with it where
/// C is read, so the builder gives those the register store).
///
/// ```
/// use cutlet::arch::Sm90;
/// use cutlet::collective::{EpilogueNoSmemWarpSpecialized, MainloopSm90TmaGmmaWarpSpecialized};
/// use cutlet::device::gemm::{Cluster, Config, GemmConfig, KMajor, Majors, RowMajor, Tile, Types, Warps};
/// use cutlet::kernel::gemm::{KernelTmaWarpSpecializedCooperative, SplitKScheduler, TileSchedulerPolicy};
/// use half::bf16;
/// use typenum::{U1, U128, U4, U64, U7, U8};
///
/// type SplitK8 = GemmConfig<
///     Types<bf16, bf16, bf16, bf16, f32>,
///     Majors<KMajor, KMajor, RowMajor>,
///     Tile<U128, U128, U64>,
///     Warps<U4, U1>,
///     MainloopSm90TmaGmmaWarpSpecialized<U7>,
///     Sm90,
///     KernelTmaWarpSpecializedCooperative,
///     SplitKScheduler<U8>,
///     EpilogueNoSmemWarpSpecialized,
///     Cluster<U1, U1>,
/// >;
/// let spec = SplitK8::spec();
/// assert_eq!(spec.scheduler, TileSchedulerPolicy::SplitK { splits: 8 });
/// assert!(spec.kernel_name().ends_with("_splitk8"));
/// ```
///
/// On the ping-pong schedule each consumer warpgroup takes units of its
/// own, here 64x64 tiles:
///
/// ```
/// use cutlet::arch::Sm90;
/// use cutlet::collective::{EpilogueNoSmemWarpSpecialized, MainloopSm90TmaGmmaWarpSpecialized};
/// use cutlet::device::gemm::{Cluster, Config, GemmConfig, KMajor, Majors, RowMajor, Tile, Types, Warps};
/// use cutlet::kernel::gemm::{KernelSchedule, KernelTmaWarpSpecializedPingpong, SplitKScheduler};
/// use half::bf16;
/// use typenum::{U1, U4, U64, U8};
///
/// type PingPongSplit = GemmConfig<Types<bf16, bf16, bf16, bf16, f32>, Majors<KMajor, KMajor, RowMajor>,
///     Tile<U64, U64, U64>, Warps<U4, U1>, MainloopSm90TmaGmmaWarpSpecialized<U8>, Sm90,
///     KernelTmaWarpSpecializedPingpong, SplitKScheduler<U8>, EpilogueNoSmemWarpSpecialized,
///     Cluster<U1, U1>>;
/// let spec = PingPongSplit::spec();
/// assert_eq!(spec.schedule, KernelSchedule::TmaWarpSpecializedPingpong);
/// assert!(spec.kernel_name().ends_with("_pingpong_c1x1_epi_nosmem_splitk8"));
/// ```
///
/// With f16 accumulators it does not compile (the partial tiles are f32;
/// the rule names it):
///
/// ```compile_fail
/// use cutlet::arch::Sm90;
/// use cutlet::collective::{EpilogueNoSmemWarpSpecialized, MainloopSm90TmaGmmaWarpSpecialized};
/// use cutlet::device::gemm::{Cluster, Config, GemmConfig, KMajor, Majors, RowMajor, Tile, Types, Warps};
/// use cutlet::kernel::gemm::{KernelTmaWarpSpecializedCooperative, SplitKScheduler};
/// use half::f16;
/// use typenum::{U1, U128, U4, U64, U6, U8};
///
/// type Bad = GemmConfig<Types<f16, f16, f16, f16, f16>, Majors<KMajor, KMajor, RowMajor>,
///     Tile<U128, U128, U64>, Warps<U4, U1>, MainloopSm90TmaGmmaWarpSpecialized<U6>, Sm90,
///     KernelTmaWarpSpecializedCooperative, SplitKScheduler<U8>, EpilogueNoSmemWarpSpecialized,
///     Cluster<U1, U1>>;
/// let () = <Bad as Config>::CHECK;
/// ```
pub struct SplitKScheduler<N>(std::marker::PhantomData<N>);

impl<N: typenum::Unsigned + Send + Sync + 'static> TileSchedulerTag for SplitKScheduler<N> {
    const POLICY: TileSchedulerPolicy = TileSchedulerPolicy::SplitK { splits: N::U32 };
}

/// Split-K with `N` units per tile whose partial tiles are added with
/// atomics ([`Reduction::Atomic`]); otherwise as [`SplitKScheduler`].
///
/// ```
/// use cutlet::kernel::gemm::{Reduction, SplitKAtomicScheduler, TileSchedulerPolicy, TileSchedulerTag};
/// use typenum::U8;
///
/// assert_eq!(<SplitKAtomicScheduler<U8> as TileSchedulerTag>::POLICY, TileSchedulerPolicy::SplitK { splits: 8 });
/// assert_eq!(<SplitKAtomicScheduler<U8> as TileSchedulerTag>::REDUCTION, Reduction::Atomic);
///
/// // In a typed configuration: the spec carries the reduction.
/// use cutlet::arch::Sm90;
/// use cutlet::collective::{EpilogueNoSmemWarpSpecialized, MainloopSm90TmaGmmaWarpSpecialized};
/// use cutlet::device::gemm::{Cluster, Config, GemmConfig, KMajor, Majors, RowMajor, Tile, Types, Warps};
/// use cutlet::kernel::gemm::KernelTmaWarpSpecializedCooperative;
/// use half::bf16;
/// use typenum::{U1, U128, U4, U64, U7};
///
/// type Atomic8 = GemmConfig<
///     Types<bf16, bf16, bf16, bf16, f32>,
///     Majors<KMajor, KMajor, RowMajor>,
///     Tile<U128, U128, U64>,
///     Warps<U4, U1>,
///     MainloopSm90TmaGmmaWarpSpecialized<U7>,
///     Sm90,
///     KernelTmaWarpSpecializedCooperative,
///     SplitKAtomicScheduler<U8>,
///     EpilogueNoSmemWarpSpecialized,
///     Cluster<U1, U1>,
/// >;
/// let spec = Atomic8::spec();
/// assert_eq!(spec.reduction, Reduction::Atomic);
/// assert!(spec.kernel_name().ends_with("_splitk8_atomic"));
/// ```
pub struct SplitKAtomicScheduler<N>(std::marker::PhantomData<N>);

impl<N: typenum::Unsigned + Send + Sync + 'static> TileSchedulerTag for SplitKAtomicScheduler<N> {
    const POLICY: TileSchedulerPolicy = TileSchedulerPolicy::SplitK { splits: N::U32 };
    const REDUCTION: Reduction = Reduction::Atomic;
}

/// Stream-K whose partial tiles are added with atomics
/// ([`Reduction::Atomic`]); otherwise as [`StreamKScheduler`].
pub struct StreamKAtomicScheduler;

impl TileSchedulerTag for StreamKAtomicScheduler {
    const POLICY: TileSchedulerPolicy = TileSchedulerPolicy::StreamK;
    const REDUCTION: Reduction = Reduction::Atomic;
}

/// Stream-K: [`TileSchedulerPolicy::StreamK`]. Its rules are split-K's:
/// the cooperative schedule, `Cluster<U1, U1>`, f32 accumulation; a
/// configuration that breaks one does not compile.
///
/// ```
/// use cutlet::arch::Sm90;
/// use cutlet::collective::{EpilogueNoSmemWarpSpecialized, MainloopSm90TmaGmmaWarpSpecialized};
/// use cutlet::device::gemm::{Cluster, Config, GemmConfig, KMajor, Majors, RowMajor, Tile, Types, Warps};
/// use cutlet::kernel::gemm::{KernelTmaWarpSpecializedCooperative, StreamKScheduler, TileSchedulerPolicy};
/// use half::bf16;
/// use typenum::{U1, U128, U4, U64, U7};
///
/// type StreamK = GemmConfig<
///     Types<bf16, bf16, bf16, bf16, f32>,
///     Majors<KMajor, KMajor, RowMajor>,
///     Tile<U128, U128, U64>,
///     Warps<U4, U1>,
///     MainloopSm90TmaGmmaWarpSpecialized<U7>,
///     Sm90,
///     KernelTmaWarpSpecializedCooperative,
///     StreamKScheduler,
///     EpilogueNoSmemWarpSpecialized,
///     Cluster<U1, U1>,
/// >;
/// let spec = StreamK::spec();
/// assert_eq!(spec.scheduler, TileSchedulerPolicy::StreamK);
/// assert!(spec.kernel_name().ends_with("_streamk"));
/// ```
///
/// In a cluster it does not compile (the rule names it):
///
/// ```compile_fail
/// use cutlet::arch::Sm90;
/// use cutlet::collective::{EpilogueNoSmemWarpSpecialized, MainloopSm90TmaGmmaWarpSpecialized};
/// use cutlet::device::gemm::{Cluster, Config, GemmConfig, KMajor, Majors, RowMajor, Tile, Types, Warps};
/// use cutlet::kernel::gemm::{KernelTmaWarpSpecializedCooperative, StreamKScheduler};
/// use half::bf16;
/// use typenum::{U1, U128, U2, U4, U64, U7};
///
/// type Bad = GemmConfig<Types<bf16, bf16, bf16, bf16, f32>, Majors<KMajor, KMajor, RowMajor>,
///     Tile<U128, U128, U64>, Warps<U4, U1>, MainloopSm90TmaGmmaWarpSpecialized<U7>, Sm90,
///     KernelTmaWarpSpecializedCooperative, StreamKScheduler, EpilogueNoSmemWarpSpecialized,
///     Cluster<U2, U1>>;
/// let () = <Bad as Config>::CHECK;
/// ```
pub struct StreamKScheduler;

impl TileSchedulerTag for StreamKScheduler {
    const POLICY: TileSchedulerPolicy = TileSchedulerPolicy::StreamK;
}

impl KernelScheduleTag for KernelMultistage {
    const SCHEDULE: KernelSchedule = KernelSchedule::Multistage;
}

/// [`TileSchedulerPolicy::DataParallel`] as a tag.
pub struct DataParallelScheduler;

impl TileSchedulerTag for DataParallelScheduler {
    const POLICY: TileSchedulerPolicy = TileSchedulerPolicy::DataParallel;
}
