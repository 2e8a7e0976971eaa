//! [`Config`]: a GEMM configuration as a type. Tile shape, warp layout and
//! cluster shape are typenum numbers; element types, majors, arch and the
//! kernel's parts (mainloop with its stage count, epilogue, kernel
//! schedule, tile scheduler) are tag types. A bad combination fails to compile with a sentence naming the
//! values; a good one lowers to the [`GemmSpec`] the kernel is generated from.

use std::marker::PhantomData;

use typenum::Unsigned;

use super::tags::{GemmElement, OperandMajorTag, OutputMajorTag};
use crate::arch::Arch;
use crate::collective::{EpilogueSm80Staged, EpilogueSpec, EpilogueTag, MainloopSpec, MainloopTag};
use crate::gemm::{ClusterShape, GemmMajors, GemmTypes};
use crate::kernel::gemm::{
    check_config, ConfigFacts, DataParallelScheduler, GemmSpec, KernelMultistage,
    KernelScheduleTag, TileSchedulerTag,
};

/// A GEMM configuration, as CUTLASS's `CollectiveMma` + `CollectiveEpilogue`
/// template arguments, with named associated types instead of a positional list.
///
/// | item | meaning |
/// |---|---|
/// | `A`, `B`, `C`, `D`, `Acc` | element tags ([`GemmElement`]) of the operands and the accumulator |
/// | `MajorA`, `MajorB` | [`KMajor`](super::KMajor) or [`MnMajor`](super::MnMajor) |
/// | `MajorC` | [`RowMajor`](super::RowMajor) or [`ColumnMajor`](super::ColumnMajor) (D has C's major) |
/// | `Arch` | the architecture tag: [`Sm80`](crate::arch::Sm80), [`Sm90`](crate::arch::Sm90) (with the SM90 parts below), or [`Sm70`](crate::arch::Sm70) with [`MainloopSm70TwoStage`](crate::collective::MainloopSm70TwoStage) |
/// | `TileM`, `TileN`, `TileK` | the CTA tile (BM, BN, BK), typenum numbers |
/// | `WarpsM`, `WarpsN` | warps of the CTA along M and N (SM70, SM80); for SM90 always `Warps<U4, U1>`, the four warps of one consumer warpgroup (the schedule sets the warpgroups: a producer and two consumers, cooperating on one tile or, ping-pong, each on its own) |
/// | `ClusterM`, `ClusterN` | the thread-block cluster, typenum numbers (1 x 1: no cluster; 1 or 2 each way on SM90, whose CTAs share A and B tiles through TMA multicast) |
/// | `Mainloop` | the mainloop policy tag, carrying its stage count: [`MainloopSm80CpAsync`](crate::collective::MainloopSm80CpAsync) (or a bare typenum stage count), [`MainloopSm90TmaGmmaWarpSpecialized`](crate::collective::MainloopSm90TmaGmmaWarpSpecialized), [`MainloopSm70TwoStage`](crate::collective::MainloopSm70TwoStage) |
/// | `Epilogue` | the epilogue policy tag: [`EpilogueSm80Staged`] (SM70, SM80), [`EpilogueTmaWarpSpecialized`](crate::collective::EpilogueTmaWarpSpecialized) or [`EpilogueNoSmemWarpSpecialized`](crate::collective::EpilogueNoSmemWarpSpecialized) (SM90) |
/// | `Schedule` | the kernel-schedule tag: [`KernelMultistage`] (SM70, SM80), [`KernelTmaWarpSpecializedCooperative`](crate::kernel::gemm::KernelTmaWarpSpecializedCooperative) or [`KernelTmaWarpSpecializedPingpong`](crate::kernel::gemm::KernelTmaWarpSpecializedPingpong) (SM90) |
/// | `Scheduler` | the tile-scheduler tag: [`DataParallelScheduler`] (SM70, SM80), [`PersistentScheduler`](crate::kernel::gemm::PersistentScheduler) (SM90), [`SplitKScheduler<N>`](crate::kernel::gemm::SplitKScheduler) (SM90 cooperative or ping-pong, `N` units per tile), [`StreamKScheduler`](crate::kernel::gemm::StreamKScheduler) (SM90 cooperative) |
/// | `FACTS` | the lowered values the rules read |
/// | `CHECK` | the compile-time check ([`check_config`]); evaluated by every front door |
///
/// Most users name a [`GemmConfig`] through an alias such as
/// [`DefaultBf16Sm80`](super::DefaultBf16Sm80).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a GEMM configuration",
    note = "write one as cutlet::device::gemm::GemmConfig<Types<..>, Majors<..>, Tile<..>, Warps<..>, Stages> or use an alias such as DefaultBf16Sm80"
)]
pub trait Config: Send + Sync + 'static {
    /// Element of A.
    type A: GemmElement;
    /// Element of B.
    type B: GemmElement;
    /// Element of C.
    type C: GemmElement;
    /// Element of D.
    type D: GemmElement;
    /// Accumulator element.
    type Acc: GemmElement;
    /// Contiguous dimension of A.
    type MajorA: OperandMajorTag;
    /// Contiguous dimension of B.
    type MajorB: OperandMajorTag;
    /// Contiguous dimension of C and D.
    type MajorC: OutputMajorTag;
    /// Architecture the PTX targets.
    type Arch: Arch;
    /// BM.
    type TileM: Unsigned;
    /// BN.
    type TileN: Unsigned;
    /// BK.
    type TileK: Unsigned;
    /// Warps along M.
    type WarpsM: Unsigned;
    /// Warps along N.
    type WarpsN: Unsigned;
    /// Cluster extent along M.
    type ClusterM: Unsigned;
    /// Cluster extent along N.
    type ClusterN: Unsigned;
    /// The mainloop, with its stage count.
    type Mainloop: MainloopTag;
    /// The epilogue.
    type Epilogue: EpilogueTag;
    /// The kernel schedule.
    type Schedule: KernelScheduleTag;
    /// The tile scheduler.
    type Scheduler: TileSchedulerTag;

    /// The configuration's lowered facts, as the rules read them.
    const FACTS: ConfigFacts = ConfigFacts {
        arch: <Self::Arch as Arch>::KIND,
        types: GemmTypes::new(
            <Self::A as GemmElement>::TYPE,
            <Self::B as GemmElement>::TYPE,
            <Self::C as GemmElement>::TYPE,
            <Self::D as GemmElement>::TYPE,
            <Self::Acc as GemmElement>::TYPE,
        ),
        majors: GemmMajors::new(
            <Self::MajorA as OperandMajorTag>::MAJOR,
            <Self::MajorB as OperandMajorTag>::MAJOR,
            <Self::MajorC as OutputMajorTag>::MAJOR,
        ),
        tile: [Self::TileM::U32, Self::TileN::U32, Self::TileK::U32],
        cluster: ClusterShape::new(Self::ClusterM::U32, Self::ClusterN::U32),
        mainloop: MainloopSpec {
            policy: <Self::Mainloop as MainloopTag>::POLICY,
            warps: [Self::WarpsM::U32, Self::WarpsN::U32, 1],
        },
        epilogue: <Self::Epilogue as EpilogueTag>::POLICY,
        scheduler: <Self::Scheduler as TileSchedulerTag>::POLICY,
        schedule: <Self::Schedule as KernelScheduleTag>::SCHEDULE,
    };

    /// Fails to compile (when a front door evaluates it) for a configuration
    /// that breaks a rule of [`check_config`], the rule set the runtime
    /// builder checks too, with the rule's sentence and values; the
    /// compiler's note names the configuration type.
    const CHECK: () = match check_config(&Self::FACTS) {
        Ok(()) => (),
        Err(rule) => rule.fail(),
    };

    /// The kernel spec this configuration lowers to.
    fn spec() -> GemmSpec {
        let f = Self::FACTS;
        GemmSpec {
            arch: f.arch,
            types: f.types,
            majors: f.majors,
            tile: f.tile,
            cluster: f.cluster,
            mainloop: f.mainloop,
            epilogue: EpilogueSpec {
                policy: f.epilogue,
                fusion: crate::gemm::Epilogue::default(),
            },
            scheduler: f.scheduler,
            reduction: <Self::Scheduler as TileSchedulerTag>::REDUCTION,
            schedule: f.schedule,
        }
    }
}

/// Element types of a [`GemmConfig`]: A, B, C, D and the accumulator.
pub struct Types<A, B, C, D, Acc>(PhantomData<(A, B, C, D, Acc)>);

/// Majors of a [`GemmConfig`]: A, B, and C (D has C's major).
pub struct Majors<A, B, C>(PhantomData<(A, B, C)>);

/// CTA tile (BM, BN, BK) of a [`GemmConfig`], typenum numbers.
pub struct Tile<M, N, K>(PhantomData<(M, N, K)>);

/// Warp layout (along M, along N) of a [`GemmConfig`], typenum numbers.
pub struct Warps<M, N>(PhantomData<(M, N)>);

/// Thread-block cluster (along M, along N) of a [`GemmConfig`], typenum
/// numbers; `Cluster<U1, U1>`, the default, is no cluster.
pub struct Cluster<M, N>(PhantomData<(M, N)>);

/// A GEMM configuration built from its parts: element types, majors, tile,
/// warps, the mainloop (a policy tag carrying its stage count, or a bare
/// typenum stage count for the SM80 multistage mainloop), the arch, and
/// (with defaults) the kernel schedule, the tile scheduler, the epilogue
/// and the cluster.
///
/// ```
/// use cutlet::arch::{ArchKind, Sm80};
/// use cutlet::device::gemm::{Config, GemmConfig, KMajor, Majors, RowMajor, Tile, Types, Warps};
/// use half::bf16;
/// use typenum::{U128, U2, U256, U3, U4, U64};
///
/// type MyGemm = GemmConfig<
///     Types<bf16, bf16, bf16, bf16, f32>,
///     Majors<KMajor, KMajor, RowMajor>,
///     Tile<U128, U256, U64>,
///     Warps<U2, U4>,
///     U3,
///     Sm80,
/// >;
/// let spec = MyGemm::spec();
/// assert_eq!(spec.tile, [128, 256, 64]);
/// assert_eq!(spec.arch, ArchKind::Sm80);
/// ```
///
/// A warp layout that does not divide the tile does not compile:
///
/// ```compile_fail
/// use cutlet::arch::Sm80;
/// use cutlet::device::gemm::{Config, GemmConfig, KMajor, Majors, RowMajor, Tile, Types, Warps};
/// use half::f16;
/// use typenum::{U128, U3, U4, U64};
/// type Bad = GemmConfig<Types<f16, f16, f16, f16, f32>, Majors<KMajor, KMajor, RowMajor>,
///                       Tile<U128, U128, U64>, Warps<U3, U4>, U3, Sm80>;
/// let () = <Bad as Config>::CHECK;
/// ```
///
/// One stage is not a pipeline:
///
/// ```compile_fail
/// use cutlet::arch::Sm80;
/// use cutlet::device::gemm::{Config, GemmConfig, KMajor, Majors, RowMajor, Tile, Types, Warps};
/// use half::f16;
/// use typenum::{U1, U128, U2, U64};
/// type Bad = GemmConfig<Types<f16, f16, f16, f16, f32>, Majors<KMajor, KMajor, RowMajor>,
///                       Tile<U128, U128, U64>, Warps<U2, U2>, U1, Sm80>;
/// let () = <Bad as Config>::CHECK;
/// ```
///
/// Eight stages of a 256 x 256 x 64 bf16 tile need 512 KiB of shared memory:
///
/// ```compile_fail
/// use cutlet::arch::Sm80;
/// use cutlet::device::gemm::{Config, GemmConfig, KMajor, Majors, RowMajor, Tile, Types, Warps};
/// use half::bf16;
/// use typenum::{U2, U256, U4, U64, U8};
/// type Bad = GemmConfig<Types<bf16, bf16, bf16, bf16, f32>, Majors<KMajor, KMajor, RowMajor>,
///                       Tile<U256, U256, U64>, Warps<U2, U4>, U8, Sm80>;
/// let () = <Bad as Config>::CHECK;
/// ```
///
/// The parts named as policy tags, as CUTLASS names its dispatch policies:
///
/// ```
/// use cutlet::arch::Sm80;
/// use cutlet::collective::{EpilogueSm80Staged, MainloopPolicy, MainloopSm80CpAsync};
/// use cutlet::device::gemm::{Cluster, Config, GemmConfig, KMajor, Majors, RowMajor, Tile, Types, Warps};
/// use cutlet::kernel::gemm::{DataParallelScheduler, KernelMultistage, KernelSchedule};
/// use half::f16;
/// use typenum::{U1, U128, U2, U32, U4};
///
/// type Parts = GemmConfig<
///     Types<f16, f16, f16, f16, f32>,
///     Majors<KMajor, KMajor, RowMajor>,
///     Tile<U128, U128, U32>,
///     Warps<U2, U2>,
///     MainloopSm80CpAsync<U4>,
///     Sm80,
///     KernelMultistage,
///     DataParallelScheduler,
///     EpilogueSm80Staged,
///     Cluster<U1, U1>,
/// >;
/// let spec = Parts::spec();
/// assert_eq!(spec.mainloop.policy, MainloopPolicy::Sm80CpAsync { stages: 4 });
/// assert_eq!(spec.schedule, KernelSchedule::Multistage);
/// ```
///
/// The Volta kernel: `Arch = Sm70` with the SM70 two-stage mainloop (f16
/// inputs, f32 or f16 accumulators, any majors); its sm_70 PTX runs on
/// every GPU of compute capability 7.0 or newer:
///
/// ```
/// use cutlet::arch::{ArchKind, Sm70};
/// use cutlet::collective::{MainloopPolicy, MainloopSm70TwoStage};
/// use cutlet::device::gemm::{Config, GemmConfig, KMajor, Majors, MnMajor, RowMajor, Tile, Types, Warps};
/// use half::f16;
/// use typenum::{U128, U2, U32, U4};
///
/// type Volta = GemmConfig<Types<f16, f16, f16, f16, f32>, Majors<MnMajor, KMajor, RowMajor>,
///                         Tile<U128, U128, U32>, Warps<U2, U4>, MainloopSm70TwoStage, Sm70>;
/// let spec = Volta::spec();
/// assert_eq!((spec.arch, spec.mainloop.policy), (ArchKind::Sm70, MainloopPolicy::Sm70TwoStage));
/// ```
///
/// An SM90 (Hopper) kernel names its parts: the TMA + wgmma mainloop with
/// its stage count, the warp-specialized schedule, the persistent tile
/// scheduler, the TMA-store epilogue and a cluster. Here the ping-pong
/// schedule: two consumer warpgroups each own whole 128x128 tiles, one's
/// epilogue running while the other multiplies (see
/// [`DefaultBf16Sm90`](super::DefaultBf16Sm90) for the cooperative
/// default). The rules are the builder's (`GemmBuilder::tile`): BK one 64-
/// or 128-byte row, BM 64 or 128 a consumer warpgroup, BN a multiple of 8
/// (32 with the TMA-store epilogue) up to 256, `Warps<U4, U1>`, clusters
/// of 1 or 2 each way. Its PTX targets `sm_90a` and runs on compute
/// capability 9.0 only; `examples/sm90_gemm.rs` runs one.
///
/// ```
/// use cutlet::arch::{ArchKind, Sm90};
/// use cutlet::collective::{EpilogueTmaWarpSpecialized, MainloopSm90TmaGmmaWarpSpecialized};
/// use cutlet::device::gemm::{Cluster, Config, GemmConfig, KMajor, Majors, RowMajor, Tile, Types, Warps};
/// use cutlet::kernel::gemm::{KernelSchedule, KernelTmaWarpSpecializedPingpong, PersistentScheduler};
/// use half::bf16;
/// use typenum::{U1, U128, U4, U5, U64};
///
/// type Hopper = GemmConfig<
///     Types<bf16, bf16, bf16, bf16, f32>,
///     Majors<KMajor, KMajor, RowMajor>,
///     Tile<U128, U128, U64>,
///     Warps<U4, U1>,
///     MainloopSm90TmaGmmaWarpSpecialized<U5>,
///     Sm90,
///     KernelTmaWarpSpecializedPingpong,
///     PersistentScheduler,
///     EpilogueTmaWarpSpecialized,
///     Cluster<U1, U1>,
/// >;
/// let spec = Hopper::spec();
/// assert_eq!((spec.arch, spec.schedule), (ArchKind::Sm90, KernelSchedule::TmaWarpSpecializedPingpong));
/// assert_eq!(spec.block_threads(), 384); // a producer and two consumer warpgroups
/// assert!(spec.ptx().unwrap().contains("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"));
/// ```
///
/// SM90 warps are one warpgroup's: `Warps<U2, U2>` does not compile.
///
/// ```compile_fail
/// use cutlet::arch::Sm90;
/// use cutlet::collective::{EpilogueTmaWarpSpecialized, MainloopSm90TmaGmmaWarpSpecialized};
/// use cutlet::device::gemm::{Cluster, Config, GemmConfig, KMajor, Majors, RowMajor, Tile, Types, Warps};
/// use cutlet::kernel::gemm::{KernelTmaWarpSpecializedPingpong, PersistentScheduler};
/// use half::bf16;
/// use typenum::{U1, U128, U2, U4, U64};
/// type Bad = GemmConfig<Types<bf16, bf16, bf16, bf16, f32>, Majors<KMajor, KMajor, RowMajor>,
///                       Tile<U128, U128, U64>, Warps<U2, U2>, MainloopSm90TmaGmmaWarpSpecialized<U4>, Sm90,
///                       KernelTmaWarpSpecializedPingpong, PersistentScheduler, EpilogueTmaWarpSpecialized,
///                       Cluster<U1, U1>>;
/// let () = <Bad as Config>::CHECK;
/// ```
///
/// sm_70 has no `cp.async`: the SM80 mainloop on `Sm70` does not compile.
///
/// ```compile_fail
/// use cutlet::arch::Sm70;
/// use cutlet::device::gemm::{Config, GemmConfig, KMajor, Majors, RowMajor, Tile, Types, Warps};
/// use half::f16;
/// use typenum::{U128, U2, U3, U32, U4};
/// type Bad = GemmConfig<Types<f16, f16, f16, f16, f32>, Majors<KMajor, KMajor, RowMajor>,
///                       Tile<U128, U128, U32>, Warps<U2, U4>, U3, Sm70>;
/// let () = <Bad as Config>::CHECK;
/// ```
///
/// The multistage kernel runs without clusters:
///
/// ```compile_fail
/// use cutlet::arch::Sm80;
/// use cutlet::collective::{EpilogueSm80Staged, MainloopSm80CpAsync};
/// use cutlet::device::gemm::{Cluster, Config, GemmConfig, KMajor, Majors, RowMajor, Tile, Types, Warps};
/// use cutlet::kernel::gemm::{DataParallelScheduler, KernelMultistage};
/// use half::f16;
/// use typenum::{U1, U128, U2, U32, U4};
/// type Bad = GemmConfig<Types<f16, f16, f16, f16, f32>, Majors<KMajor, KMajor, RowMajor>,
///                       Tile<U128, U128, U32>, Warps<U2, U2>, MainloopSm80CpAsync<U4>, Sm80,
///                       KernelMultistage, DataParallelScheduler, EpilogueSm80Staged, Cluster<U2, U1>>;
/// let () = <Bad as Config>::CHECK;
/// ```
#[allow(clippy::type_complexity)]
pub struct GemmConfig<
    Ty,
    Maj,
    Tl,
    Wp,
    Mainloop,
    Ar = crate::arch::Sm80,
    Schedule = KernelMultistage,
    Scheduler = DataParallelScheduler,
    Epi = EpilogueSm80Staged,
    Cl = Cluster<typenum::U1, typenum::U1>,
>(PhantomData<(Ty, Maj, Tl, Wp, Mainloop, Ar, Schedule, Scheduler, Epi, Cl)>);

impl<A, B, C, D, Acc, MA, MB, MC, BM, BN, BK, WM, WN, ML, Ar, Sch, TS, Epi, CM, CN> Config
    for GemmConfig<
        Types<A, B, C, D, Acc>,
        Majors<MA, MB, MC>,
        Tile<BM, BN, BK>,
        Warps<WM, WN>,
        ML,
        Ar,
        Sch,
        TS,
        Epi,
        Cluster<CM, CN>,
    >
where
    A: GemmElement,
    B: GemmElement,
    C: GemmElement,
    D: GemmElement,
    Acc: GemmElement,
    MA: OperandMajorTag,
    MB: OperandMajorTag,
    MC: OutputMajorTag,
    BM: Unsigned + Send + Sync + 'static,
    BN: Unsigned + Send + Sync + 'static,
    BK: Unsigned + Send + Sync + 'static,
    WM: Unsigned + Send + Sync + 'static,
    WN: Unsigned + Send + Sync + 'static,
    ML: MainloopTag,
    Ar: Arch,
    Sch: KernelScheduleTag,
    TS: TileSchedulerTag,
    Epi: EpilogueTag,
    CM: Unsigned + Send + Sync + 'static,
    CN: Unsigned + Send + Sync + 'static,
{
    type A = A;
    type B = B;
    type C = C;
    type D = D;
    type Acc = Acc;
    type MajorA = MA;
    type MajorB = MB;
    type MajorC = MC;
    type Arch = Ar;
    type TileM = BM;
    type TileN = BN;
    type TileK = BK;
    type WarpsM = WM;
    type WarpsN = WN;
    type ClusterM = CM;
    type ClusterN = CN;
    type Mainloop = ML;
    type Epilogue = Epi;
    type Schedule = Sch;
    type Scheduler = TS;
}
