//! Dispatch policies of the collective layer, as CUTLASS's
//! `dispatch_policy.hpp`: which mainloop and which epilogue a kernel runs,
//! as plain values ([`MainloopPolicy`], [`EpiloguePolicy`]) and as the
//! zero-sized tags a typed configuration names them with
//! ([`MainloopSm80CpAsync`], [`EpilogueSm80Staged`]). A tag lowers to its
//! value through [`MainloopTag::POLICY`] / [`EpilogueTag::POLICY`]; the
//! value chooses the emitter, and its fields (the stage count) fix its sizes.
//!
//! Each collective's spec pairs its policy with what the policy leaves open
//! ([`MainloopSpec`]: the warp layout of the tiled MMA; [`EpilogueSpec`]:
//! the fusion expression).

use std::marker::PhantomData;

use typenum::Unsigned;

use crate::gemm::Epilogue;

/// Which mainloop a kernel runs, with its static sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MainloopPolicy {
    /// The SM80 multistage mainloop ([`Sm80MmaMultistage`](super::Sm80MmaMultistage)):
    /// `cp.async` into `stages` shared-memory stages, `ldmatrix`,
    /// `mma.sync`; producer and consumer in one body (CUTLASS's
    /// `MainloopSm80CpAsync<Stages>`).
    Sm80CpAsync {
        /// Shared-memory pipeline stages (at least 2).
        stages: u32,
    },
    /// The SM90 warp-specialized mainloop
    /// ([`Sm90TmaGmmaWarpSpecialized`](super::Sm90TmaGmmaWarpSpecialized)):
    /// a producer warp fills `stages` shared-memory stages with TMA (one
    /// mbarrier-counted ring, multicast across a cluster), consumer
    /// warpgroups multiply them with `wgmma` reading both operands through
    /// shared-memory descriptors (CUTLASS's
    /// `MainloopSm90TmaGmmaWarpSpecialized<Stages, ClusterShape, Schedule>`).
    Sm90TmaGmmaWarpSpecialized {
        /// Shared-memory pipeline stages (at least 2).
        stages: u32,
    },
    /// The SM90 warp-specialized mainloop for 8-bit float inputs with
    /// promotion (CUTLASS's `MainloopSm90TmaGmmaWarpSpecializedFP8`): as
    /// [`Sm90TmaGmmaWarpSpecialized`](Self::Sm90TmaGmmaWarpSpecialized),
    /// but the wgmmas accumulate into a second set of registers, which is
    /// added into the f32 accumulators every `promotion_interval` wgmma
    /// k-steps of 32 (CUTLASS's `mma_promotion_interval`, default 4: every
    /// 128 of K). Hopper's FP8 wgmma keeps about 22 bits of its running
    /// sum; the promotion bounds the error of a long K to that of
    /// `promotion_interval * 32` products. The plain
    /// [`Sm90TmaGmmaWarpSpecialized`](Self::Sm90TmaGmmaWarpSpecialized) with
    /// 8-bit inputs is CUTLASS's `FP8FastAccum`: every wgmma adds into the
    /// accumulators directly.
    Sm90TmaGmmaWarpSpecializedFp8 {
        /// Shared-memory pipeline stages (at least 2).
        stages: u32,
        /// wgmma k-steps (of 32 elements) between promotions: a positive
        /// multiple of the k-steps of one k-tile (TileK / 32).
        promotion_interval: u32,
    },
    /// The SM70 two-stage mainloop ([`Sm70MmaPipelined`](super::Sm70MmaPipelined)):
    /// global -> registers -> two shared-memory stages, `ld.shared`
    /// fragments, `mma.sync.m8n8k4` on quad pairs; producer and consumer in
    /// one body (CUTLASS's `MainloopSm70TwoStage`).
    Sm70TwoStage,
    /// The GEMV mainloop of [`Gemv`](crate::kernel::gemm::Gemv), for a few
    /// rows of A (decode batches): no shared-memory stages; each warp loads
    /// its A and B fragments straight from global memory in 16-byte vectors
    /// (both K-major) and multiplies them with `mma.sync`, the block's
    /// warps taking turns along K in runs of `unroll` k-steps (sliced-K) whose partial tiles
    /// are added through shared memory in warp order before the SM80
    /// epilogue. `unroll` k-steps of 64 bytes per row are in flight per
    /// warp.
    MmaSyncGemv {
        /// k-steps each warp loads before it multiplies them (1 to 8).
        unroll: u32,
    },
    /// The GEMV mainloop of [`MmaSyncGemv`](Self::MmaSyncGemv) with each
    /// warp's k-steps staged in shared memory: warp `w` takes k-steps `w,
    /// w + W, w + 2W, ...`, and each lane copies its own 16 bytes of every
    /// row of A and column of B of a k-step into its warp's ring with
    /// `cp.async`, `unroll` k-steps ahead, then reads them back as its
    /// fragments (the lane reads only what it copied, so no barrier is
    /// needed). More bytes in flight for fewer registers: it pays with 8
    /// rows of A and a long K (H200, bf16, 1 x 1024 x 4096 6.5 µs against
    /// 7.9 in registers), and loses with 16 rows or K = 1024.
    MmaSyncGemvRing {
        /// k-steps each warp keeps in flight in its ring (1 to 16).
        unroll: u32,
    },
}

impl MainloopPolicy {
    /// The shared-memory stages of the mainloop's pipeline.
    pub const fn stages(self) -> u32 {
        match self {
            MainloopPolicy::Sm80CpAsync { stages }
            | MainloopPolicy::Sm90TmaGmmaWarpSpecialized { stages }
            | MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8 { stages, .. } => stages,
            MainloopPolicy::Sm70TwoStage => super::SM70_STAGES,
            MainloopPolicy::MmaSyncGemv { unroll } | MainloopPolicy::MmaSyncGemvRing { unroll } => {
                unroll
            }
        }
    }

    /// Whether this is a GEMV mainloop ([`MmaSyncGemv`](Self::MmaSyncGemv)
    /// or [`MmaSyncGemvRing`](Self::MmaSyncGemvRing)).
    pub const fn is_gemv(self) -> bool {
        matches!(
            self,
            MainloopPolicy::MmaSyncGemv { .. } | MainloopPolicy::MmaSyncGemvRing { .. }
        )
    }
}

/// Which epilogue a kernel runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum EpiloguePolicy {
    /// The SM80 epilogue ([`EpilogueSm80`](super::EpilogueSm80)): the
    /// accumulators staged through shared memory in f32, then the fusion
    /// expression and 16-byte vector stores of D.
    #[default]
    Sm80Staged,
    /// The SM90 warp-specialized epilogue without shared memory
    /// ([`EpilogueSm90NoSmem`](super::EpilogueSm90NoSmem), CUTLASS's
    /// `NoSmemWarpSpecialized`): each consumer thread applies the fusion
    /// expression to its own accumulators and stores them to D directly,
    /// predicated on the edges, while the producer already loads the next
    /// tile.
    Sm90NoSmem,
    /// The SM90 warp-specialized epilogue storing through shared memory
    /// with TMA ([`EpilogueSm90TmaStore`](super::EpilogueSm90TmaStore),
    /// CUTLASS's `TmaWarpSpecialized`): each consumer warpgroup stages
    /// 32-column subtiles in two swizzled buffers and one thread stores
    /// each with TMA, behind the next mainloop. Where beta is not 0, C is
    /// loaded with TMA too ([`CStaging`]).
    Sm90TmaWarpSpecialized,
}

/// Where the SM90 TMA-store epilogue stages C where beta is not 0
/// ([`ConfigFacts::c_staging`](crate::kernel::gemm::ConfigFacts::c_staging)
/// picks it from the shared memory the stages leave).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CStaging {
    /// Read from global memory, element by element, predicated (a C of
    /// another type than D's, or no room even for C's barriers).
    Global,
    /// Loaded with TMA into two buffers per consumer warpgroup of its own,
    /// the tile's first two subtiles during the mainloop.
    OwnBuffers,
    /// Loaded with TMA into D's two buffers (CUTLASS's `ReuseSmemC`), once
    /// the stores before have read them: where the stages leave no room
    /// for more buffers.
    InDBuffers,
}

/// The mainloop of a kernel: its policy and the warp layout of its tiled MMA.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MainloopSpec {
    /// Which mainloop, with its stage count.
    pub policy: MainloopPolicy,
    /// Warps of the tiled MMA along (M, N, K); K is 1 for the SM70 and
    /// SM80 mainloops (an SM70 warp holds 2x2 quad pairs).
    pub warps: [u32; 3],
}

impl MainloopSpec {
    /// The shared-memory stages of the mainloop's pipeline.
    pub const fn stages(&self) -> u32 {
        self.policy.stages()
    }

    /// Threads the mainloop runs on: 32 per warp.
    pub const fn threads(&self) -> u32 {
        self.warps[0] * self.warps[1] * self.warps[2] * 32
    }
}

/// The epilogue of a kernel: its policy and the fusion expression it
/// applies to the accumulators.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct EpilogueSpec {
    /// Which epilogue.
    pub policy: EpiloguePolicy,
    /// The expression applied before the store (default
    /// `D = alpha * acc + beta * C`).
    pub fusion: Epilogue,
}

impl EpilogueSpec {
    /// The SM80 staged epilogue with `fusion`.
    pub fn sm80(fusion: Epilogue) -> EpilogueSpec {
        EpilogueSpec {
            policy: EpiloguePolicy::Sm80Staged,
            fusion,
        }
    }
}

/// A mainloop tag of a typed configuration.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a mainloop policy",
    note = "name a mainloop as cutlet::collective::MainloopSm80CpAsync<Stages>, cutlet::collective::MainloopSm90TmaGmmaWarpSpecialized<Stages> or cutlet::collective::MainloopSm70TwoStage, or give the stage count (a typenum number such as U3) for the SM80 multistage mainloop"
)]
pub trait MainloopTag: Send + Sync + 'static {
    /// The policy value the tag lowers to.
    const POLICY: MainloopPolicy;
}

/// An epilogue tag of a typed configuration.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an epilogue policy",
    note = "the epilogue policies are cutlet::collective::EpilogueSm80Staged, cutlet::collective::EpilogueTmaWarpSpecialized and cutlet::collective::EpilogueNoSmemWarpSpecialized"
)]
pub trait EpilogueTag: Send + Sync + 'static {
    /// The policy value the tag lowers to.
    const POLICY: EpiloguePolicy;
}

/// The SM80 multistage mainloop with `Stages` shared-memory stages (a
/// typenum number): [`MainloopPolicy::Sm80CpAsync`].
///
/// ```
/// use cutlet::collective::{MainloopPolicy, MainloopSm80CpAsync, MainloopTag};
/// use typenum::U4;
///
/// assert_eq!(<MainloopSm80CpAsync<U4> as MainloopTag>::POLICY, MainloopPolicy::Sm80CpAsync { stages: 4 });
/// // A bare stage count names the same mainloop.
/// assert_eq!(<U4 as MainloopTag>::POLICY, MainloopPolicy::Sm80CpAsync { stages: 4 });
/// ```
pub struct MainloopSm80CpAsync<Stages>(PhantomData<Stages>);

/// The SM90 TMA + wgmma warp-specialized mainloop with `Stages`
/// shared-memory stages (a typenum number):
/// [`MainloopPolicy::Sm90TmaGmmaWarpSpecialized`].
///
/// ```
/// use cutlet::collective::{MainloopPolicy, MainloopSm90TmaGmmaWarpSpecialized, MainloopTag};
/// use typenum::U4;
///
/// assert_eq!(
///     <MainloopSm90TmaGmmaWarpSpecialized<U4> as MainloopTag>::POLICY,
///     MainloopPolicy::Sm90TmaGmmaWarpSpecialized { stages: 4 }
/// );
/// ```
pub struct MainloopSm90TmaGmmaWarpSpecialized<Stages>(PhantomData<Stages>);

impl<S: Unsigned + Send + Sync + 'static> MainloopTag for MainloopSm90TmaGmmaWarpSpecialized<S> {
    const POLICY: MainloopPolicy = MainloopPolicy::Sm90TmaGmmaWarpSpecialized { stages: S::U32 };
}

/// CUTLASS's default promotion interval of the FP8 mainloop: every 4 wgmma
/// k-steps (128 of K).
pub const DEFAULT_PROMOTION_INTERVAL: u32 = 4;

/// The SM90 TMA + wgmma mainloop for 8-bit float inputs with `Stages`
/// shared-memory stages, promoting its partial sums into the f32
/// accumulators every `Interval` wgmma k-steps (typenum numbers; default
/// 4): [`MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8`].
///
/// ```
/// use cutlet::collective::{MainloopPolicy, MainloopSm90TmaGmmaWarpSpecializedFp8, MainloopTag};
/// use typenum::{U4, U8};
///
/// assert_eq!(
///     <MainloopSm90TmaGmmaWarpSpecializedFp8<U4> as MainloopTag>::POLICY,
///     MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8 { stages: 4, promotion_interval: 4 }
/// );
/// assert_eq!(
///     <MainloopSm90TmaGmmaWarpSpecializedFp8<U4, U8> as MainloopTag>::POLICY.stages(),
///     4
/// );
/// ```
pub struct MainloopSm90TmaGmmaWarpSpecializedFp8<Stages, Interval = typenum::U4>(
    PhantomData<(Stages, Interval)>,
);

impl<S, I> MainloopTag for MainloopSm90TmaGmmaWarpSpecializedFp8<S, I>
where
    S: Unsigned + Send + Sync + 'static,
    I: Unsigned + Send + Sync + 'static,
{
    const POLICY: MainloopPolicy = MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8 {
        stages: S::U32,
        promotion_interval: I::U32,
    };
}

impl<S: Unsigned + Send + Sync + 'static> MainloopTag for MainloopSm80CpAsync<S> {
    const POLICY: MainloopPolicy = MainloopPolicy::Sm80CpAsync { stages: S::U32 };
}

/// A typenum number as a mainloop tag is the SM80 multistage mainloop with
/// that many stages, so that `GemmConfig<.., U3, ..>` keeps meaning three
/// stages.
impl<U: Unsigned + Send + Sync + 'static, B: typenum::Bit + Send + Sync + 'static> MainloopTag
    for typenum::UInt<U, B>
{
    const POLICY: MainloopPolicy = MainloopPolicy::Sm80CpAsync {
        stages: <typenum::UInt<U, B> as Unsigned>::U32,
    };
}

/// The SM70 two-stage mainloop: [`MainloopPolicy::Sm70TwoStage`] (two
/// shared-memory stages, fixed).
///
/// ```
/// use cutlet::collective::{MainloopPolicy, MainloopSm70TwoStage, MainloopTag};
///
/// assert_eq!(<MainloopSm70TwoStage as MainloopTag>::POLICY, MainloopPolicy::Sm70TwoStage);
/// assert_eq!(MainloopPolicy::Sm70TwoStage.stages(), 2);
/// ```
pub struct MainloopSm70TwoStage;

impl MainloopTag for MainloopSm70TwoStage {
    const POLICY: MainloopPolicy = MainloopPolicy::Sm70TwoStage;
}

/// The SM80 staged epilogue: [`EpiloguePolicy::Sm80Staged`].
pub struct EpilogueSm80Staged;

impl EpilogueTag for EpilogueSm80Staged {
    const POLICY: EpiloguePolicy = EpiloguePolicy::Sm80Staged;
}

/// The SM90 warp-specialized epilogue storing from registers:
/// [`EpiloguePolicy::Sm90NoSmem`].
pub struct EpilogueNoSmemWarpSpecialized;

impl EpilogueTag for EpilogueNoSmemWarpSpecialized {
    const POLICY: EpiloguePolicy = EpiloguePolicy::Sm90NoSmem;
}

/// The SM90 warp-specialized epilogue storing with TMA:
/// [`EpiloguePolicy::Sm90TmaWarpSpecialized`].
pub struct EpilogueTmaWarpSpecialized;

impl EpilogueTag for EpilogueTmaWarpSpecialized {
    const POLICY: EpiloguePolicy = EpiloguePolicy::Sm90TmaWarpSpecialized;
}
