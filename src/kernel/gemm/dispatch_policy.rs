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
}

impl KernelSchedule {
    /// A short name for messages.
    pub const fn name(self) -> &'static str {
        match self {
            KernelSchedule::Multistage => "multistage",
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
}

/// A kernel-schedule tag of a typed configuration.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a kernel schedule",
    note = "the kernel schedule is cutlet::kernel::gemm::KernelMultistage"
)]
pub trait KernelScheduleTag: Send + Sync + 'static {
    /// The schedule value the tag lowers to.
    const SCHEDULE: KernelSchedule;
}

/// A tile-scheduler tag of a typed configuration.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tile scheduler",
    note = "the tile scheduler is cutlet::kernel::gemm::DataParallelScheduler"
)]
pub trait TileSchedulerTag: Send + Sync + 'static {
    /// The policy value the tag lowers to.
    const POLICY: TileSchedulerPolicy;
}

/// [`KernelSchedule::Multistage`] as a tag.
pub struct KernelMultistage;

impl KernelScheduleTag for KernelMultistage {
    const SCHEDULE: KernelSchedule = KernelSchedule::Multistage;
}

/// [`TileSchedulerPolicy::DataParallel`] as a tag.
pub struct DataParallelScheduler;

impl TileSchedulerTag for DataParallelScheduler {
    const POLICY: TileSchedulerPolicy = TileSchedulerPolicy::DataParallel;
}
