//! [`Gemm`] and [`GemmBuilder`]: the runtime front door. The same
//! [`GemmSpec`]s as the typed [`Config`](super::Config), from values a
//! program learns at run time, validated with errors instead of compile errors.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr};

use super::arguments::Arguments;
use super::copies::KMajorCopies;
use super::launcher::{check_spec, Launcher};
use super::tags::GemmElement;
use super::typed::TypedGemm;
use crate::arch::ArchKind;
use crate::device::{Device, LoadedKernel};
use crate::gemm::{ClusterShape, GemmMajors, GemmTypes};
use crate::kernel::gemm::Decomposition;
use crate::kernel::gemm::{
    check_config, Epilogue, GemmSpec, OperandMajor, OutputMajor, ScaleGranularity,
};
use crate::kernel::gemm::{sm70_default_spec, sm80_default_spec, sm90_spec, KernelSchedule};
use crate::numeric::{Element, ElementType};
use crate::{Error, Result};

/// A GEMM kernel chosen at run time, bound to a device, whose `run` checks
/// the arguments' element types at run time (for types known only then).
/// Where they are known at compile time, build a [`TypedGemm`] with
/// [`GemmBuilder::build_typed`] instead: a mismatch is then a compile error.
/// Its calls are [`GemmUniversalAdapter`](super::GemmUniversalAdapter)'s.
///
/// ```no_run
/// use cutlet::device::gemm::Gemm;
/// use cutlet::device::Device;
/// use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
/// use cutlet::numeric::ElementType;
/// # fn main() -> cutlet::Result<()> {
/// let device = Device::new(0)?;
/// let gemm = Gemm::builder()
///     .a(ElementType::BF16, OperandMajor::K)
///     .b(ElementType::BF16, OperandMajor::K)
///     .d(ElementType::BF16, OutputMajor::N)
///     .build(&device)?;
/// assert_eq!(gemm.spec().tile, [128, 256, 64]);
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct Gemm {
    launcher: Launcher,
}

/// Builds a [`Gemm`] (or a [`TypedGemm`]): element types and majors of A,
/// B and D (C has D's), the accumulator, and optionally the architecture,
/// schedule, tile, cluster, warps and stages. Unset fields come from the
/// collective builder of the architecture ([`arch`](Self::arch): on
/// compute capability 9.0 `build` picks the SM90 kernel for each problem).
#[must_use]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GemmBuilder {
    a: Option<(ElementType, OperandMajor)>,
    b: Option<(ElementType, OperandMajor)>,
    d: Option<(ElementType, OutputMajor)>,
    acc: Option<ElementType>,
    tile: Option<[u32; 3]>,
    warps: Option<[u32; 2]>,
    stages: Option<u32>,
    arch: Option<ArchKind>,
    schedule: Option<KernelSchedule>,
    cluster: Option<ClusterShape>,
    epilogue: Option<Epilogue>,
    decomposition: Option<Decomposition>,
    reduction: Option<crate::kernel::gemm::Reduction>,
    swap_ab: Option<bool>,
    fast_accumulation: Option<bool>,
    promotion_interval: Option<u32>,
    scale_granularity: Option<ScaleGranularity>,
    output: crate::gemm::OutputQuantization,
}

/// Most stages the builder picks by itself (as the collective builder).
const MAX_AUTO_STAGES: u32 = 4;

impl GemmBuilder {
    /// A's element type and major (default bf16, K-major).
    ///
    /// The SM90 8-bit kernels read e4m3, e5m2, s8 and u8 operands K-major
    /// only (wgmma transposes 16-bit operands alone). An MN-major 8-bit A
    /// or B is copied K-major on the stream before each run (a byte
    /// transpose into memory allocated on the stream and freed after it,
    /// about 2 TB/s on an H200: 17 µs for a 4096 x 4096 operand, on top of
    /// a 4096³ FP8 GEMM's 94 µs), and the kernel reads the copy, so any leading
    /// dimension, batch stride and alignment of the caller's works. The
    /// spec ([`spec`](Self::spec), [`Gemm::spec`]) is the kernel's: it
    /// names the operand K-major.
    ///
    /// ```
    /// use cutlet::device::gemm::Gemm;
    /// use cutlet::gemm::OperandMajor;
    /// use cutlet::numeric::ElementType::F8E4M3;
    ///
    /// let spec = Gemm::builder().a(F8E4M3, OperandMajor::MN).b(F8E4M3, OperandMajor::K).spec().unwrap();
    /// assert_eq!(spec.majors.a, OperandMajor::K);
    /// ```
    pub fn a(mut self, element: ElementType, major: OperandMajor) -> Self {
        self.a = Some((element, major));
        self
    }

    /// B's element type and major (default A's type, K-major). An MN-major
    /// 8-bit B is copied K-major before each run, as [`a`](Self::a) says.
    pub fn b(mut self, element: ElementType, major: OperandMajor) -> Self {
        self.b = Some((element, major));
        self
    }

    /// C's and D's element type and major (default A's type, row-major;
    /// f32 for tf32 A, bf16 for e4m3/e5m2 A, i32 for s8/u8 A). With s8/u8
    /// inputs an i32 D holds the exact sums (`alpha · acc + beta · C` in
    /// s32, alpha and beta whole numbers); a bf16, f16 or f32 D takes the
    /// sums rounded to f32 through any epilogue, such as
    /// [`scales`](Self::scales) that dequantize them.
    pub fn d(mut self, element: ElementType, major: OutputMajor) -> Self {
        self.d = Some((element, major));
        self
    }

    /// Whether an e4m3/e5m2 GEMM accumulates in the wgmma's own
    /// accumulators throughout (`true`: CUTLASS's `FP8FastAccum`,
    /// cuBLASLt's `CUBLASLT_MATMUL_DESC_FAST_ACCUM`, `torch._scaled_mm`'s
    /// `use_fast_accum`), or promotes its partial sums into f32 registers
    /// every [`promotion_interval`](Self::promotion_interval) wgmma k-steps
    /// (`false`, the default, as CUTLASS's FP8 mainloop
    /// [`MainloopSm90TmaGmmaWarpSpecializedFp8`](crate::collective::MainloopSm90TmaGmmaWarpSpecializedFp8)).
    ///
    /// Hopper's FP8 wgmma keeps about 22 bits of its running sum, so fast
    /// accumulation loses low bits over a long K; promotion costs sets of
    /// partial-sum registers, which limit the tile to 128 x 128
    /// (cooperative) or 64 x 128 (ping-pong) per CTA, and a wait for the
    /// wgmmas at each promotion. Where it promotes every k-tile (the
    /// default interval) the cooperative kernel keeps two partial sets
    /// that take turns, so that the next k-tile's wgmmas run while one is
    /// added (H200: 0.99-1.01x cuBLASLt's promoting kernels; ping-pong's
    /// 64-row tiles, for small M, keep one). For other input types this
    /// setting has no effect.
    ///
    /// ```
    /// use cutlet::collective::MainloopPolicy;
    /// use cutlet::device::gemm::Gemm;
    /// use cutlet::gemm::{OperandMajor, OutputMajor};
    /// use cutlet::numeric::ElementType::{BF16, F8E4M3};
    ///
    /// let fp8 = Gemm::builder().a(F8E4M3, OperandMajor::K).b(F8E4M3, OperandMajor::K);
    /// // The default promotes every 4 k-steps (128 of K), on a 128 x 128 tile.
    /// let spec = fp8.clone().spec().unwrap();
    /// assert!(matches!(
    ///     spec.mainloop.policy,
    ///     MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8 { promotion_interval: 4, .. }
    /// ));
    /// assert_eq!((spec.tile, spec.types.d), ([128, 128, 128], BF16));
    /// // Fast accumulation runs the plain SM90 mainloop, 128 x 256 tiles.
    /// let fast = fp8.clone().fast_accumulation(true).spec().unwrap();
    /// assert!(matches!(fast.mainloop.policy, MainloopPolicy::Sm90TmaGmmaWarpSpecialized { .. }));
    /// assert_eq!(fast.tile, [128, 256, 128]);
    /// // An interval that is not whole k-tiles (4 k-steps of 32 each) is refused.
    /// let err = fp8.promotion_interval(2).spec().unwrap_err();
    /// assert!(err.to_string().contains("promotion interval 2"), "{err}");
    /// ```
    pub fn fast_accumulation(mut self, fast: bool) -> Self {
        self.fast_accumulation = Some(fast);
        self
    }

    /// wgmma k-steps (32 elements of K each) between the promotions of an
    /// e4m3/e5m2 GEMM's partial sums (default 4, CUTLASS's
    /// `mma_promotion_interval`): a positive multiple of TileK / 32. Setting
    /// it with [`fast_accumulation(true)`](Self::fast_accumulation), or for
    /// inputs that are not e4m3/e5m2, is an [`Error::Config`] from `spec`
    /// and `build`.
    pub fn promotion_interval(mut self, interval: u32) -> Self {
        self.promotion_interval = Some(interval);
        self
    }

    /// The accumulator type (default f32; s32 for s8/u8 inputs, which
    /// accumulate only in s32).
    pub fn accumulator(mut self, element: ElementType) -> Self {
        self.acc = Some(element);
        self
    }

    /// The CTA tile (BM, BN, BK) (default 128x256x64 for 16-bit inputs,
    /// 128x128x32 for tf32).
    ///
    /// Any tile builds whose warp tile the mma atom divides and that fits
    /// the hardware; [`check_config`] is
    /// the rule set (the typed `Config` checks the same at compile time):
    ///
    /// - BM a multiple of 16 x warps along M, BN of 8 x warps along N (the
    ///   `m16n8k16` atom; `m16n8k8` for tf32);
    /// - BK a multiple of the atom's K (16, or 8 for tf32) whose row of
    ///   elements is 32, 64 or a multiple of 128 bytes (a swizzle atom's
    ///   row): BK = 16, 32, 64, 128, ... for f16/bf16, 8, 16, 32, 64, ... for
    ///   tf32; an MN-major operand's BM or BN likewise (32, 64, 128, ...
    ///   bytes);
    /// - the accumulators and the double-buffered fragments fit a thread's
    ///   registers at the block size (255, or 65536 over the threads);
    /// - the stages (and the epilogue's f32 staging tile) fit the shared
    ///   memory of the architecture (163 KiB for `Sm80`, 227 KiB for `Sm90`).
    ///
    /// Without [`warps`](Self::warps), the builder picks, of the warp
    /// layouts (1 to 32 warps, powers of two) the rules accept, the one whose
    /// warp tile is nearest 64x64 in each dimension, fewer warps on a tie:
    /// 128x256 gets 2x4 warps, 256x128 4x2, 64x128 1x2, 32x32 one warp.
    /// Without [`stages`](Self::stages), as many as fit, 2 to 4.
    ///
    /// The SM90 kernels ([`arch`](Self::arch)`(Sm90)` or a warp-specialized
    /// [`schedule`](Self::schedule)) have rules of their own
    /// (`kernel::gemm::check_config` again; the README's constraints list
    /// them too):
    ///
    /// - BK one 128-byte row (64 for 16-bit inputs, 32 for tf32) or one
    ///   64-byte row (32, or 16: half-depth k-tiles, twice the stages);
    /// - BM 128 or 256 with the cooperative schedule, 64 or 128 with
    ///   ping-pong (64 or 128 rows per consumer warpgroup);
    /// - BN a multiple of 8 up to 256 (of 32 with the TMA-store epilogue,
    ///   of 64 16-bit or 32 tf32 elements with an N-major B), at most 160
    ///   accumulator registers a thread (`BM / consumers / 64 * BN / 2`
    ///   with f32 accumulators);
    /// - in a [`cluster`](Self::cluster) each CTA loads an equal share of
    ///   the A tile (shared along the cluster's N) and of the B tile (shared
    ///   along its M): whole 8-row boxes of a K-major operand, whole
    ///   128-byte boxes of an MN-major one (so 256x64 with an N-major bf16
    ///   B takes no 2x1 cluster);
    /// - warps are not set: the schedule fixes them (a producer and two
    ///   consumer warpgroups of 4 warps).
    ///
    /// Without `stages`, as many as fit in 227 KiB beside the epilogue, at
    /// most 8, or 16 for a ping-pong kernel of whole tiles (a 64x64 tile
    /// of 16-bit inputs keeps 13).
    ///
    /// ```
    /// use cutlet::arch::ArchKind;
    /// use cutlet::device::gemm::Gemm;
    ///
    /// let spec = Gemm::builder().arch(ArchKind::Sm90).tile([256, 128, 64]).cluster([1, 2]).spec().unwrap();
    /// assert_eq!(spec.mainloop.stages(), 4);
    /// let refused = Gemm::builder().arch(ArchKind::Sm90).tile([192, 128, 64]).spec().unwrap_err();
    /// assert!(refused.to_string().contains("TileM 192"));
    /// ```
    ///
    /// ```
    /// use cutlet::device::gemm::Gemm;
    ///
    /// let spec = Gemm::builder().tile([32, 32, 64]).spec().unwrap();
    /// assert_eq!((spec.mainloop.warps, spec.mainloop.stages()), ([1, 1, 1], 4));
    /// let refused = Gemm::builder().tile([32, 32, 64]).warps([1, 8]).spec().unwrap_err();
    /// assert!(refused.to_string().contains("TileN 32 over 8 warps along N gives each warp 4 columns"));
    /// ```
    pub fn tile(mut self, tile: [u32; 3]) -> Self {
        self.tile = Some(tile);
        self
    }

    /// The warps along M and N (default 2x4, or the builder's pick for a
    /// given [`tile`](Self::tile)); at most 32 warps in all.
    pub fn warps(mut self, warps: [u32; 2]) -> Self {
        self.warps = Some(warps);
        self
    }

    /// The shared-memory stages (default: as many as fit, at most 4 for
    /// the SM80 kernel; for the SM90 ones see [`tile`](Self::tile)).
    pub fn stages(mut self, stages: u32) -> Self {
        self.stages = Some(stages);
        self
    }

    /// The architecture to generate for.
    ///
    /// - `Sm80`: the multistage `mma.sync` + `cp.async` kernel, whose PTX
    ///   runs on every GPU of compute capability 8.0 or newer.
    /// - `Sm90`: the warp-specialized TMA + `wgmma` kernel (compute
    ///   capability 9.0 exactly): the cooperative schedule, 128x256 tiles,
    ///   a 2x1 cluster, unless [`schedule`](Self::schedule),
    ///   [`tile`](Self::tile) or [`cluster`](Self::cluster) say otherwise.
    ///   With `.schedule(KernelSchedule::Multistage)` it is the SM80 kernel
    ///   compiled for `sm_90a`.
    /// - `Sm70`: the Volta kernel (`mma.sync.m8n8k4` on quad pairs, the
    ///   two-stage mainloop, CUTLASS's `MainloopSm70TwoStage`): A and B f16
    ///   (the default there), the accumulator f32 or f16, D f16 or f32,
    ///   every major; default tile 128x128x32 over 2x4 warps, always 2
    ///   stages. Its sm_70 PTX runs on every GPU of compute capability 7.0
    ///   or newer.
    ///
    /// Unset, [`spec`](Self::spec) gives the `Sm80` kernel (the `Sm90`
    /// one where A or B is 8-bit: only SM90 has 8-bit tensor-core
    /// instructions here), and
    /// [`build`](Self::build) picks for the device: on compute capability
    /// 9.0 (and with no tile, warps, stages, schedule or cluster set) the
    /// SM90 kernels, picking the schedule, tile and cluster for each call's
    /// problem as
    /// [`sm90_spec_for_problem`](crate::kernel::gemm::sm90_spec_for_problem)
    /// does for the device's SM count (each kernel compiled on the first
    /// call that needs it; [`Gemm::spec_for`] names it). A call whose D
    /// TMA cannot write (a column-major D whose M is not a whole number of
    /// 16-byte chunks, a row-major D narrower than one chunk, an address,
    /// leading dimension or batch stride that is not a multiple of 16
    /// bytes) runs on that kernel with the register-store epilogue, one
    /// whose A or B TMA cannot read on the SM80 kernel; elsewhere `Sm80`.
    /// With `arch(Sm90)` and nothing else of the kernel set, `build` picks
    /// for each problem the same way and runs such a D on the
    /// register-store epilogue too, but refuses an A or B that TMA cannot
    /// read, stating TMA's rules (the SM80 kernel is not SM90). With the
    /// schedule, tile or cluster set, that one kernel runs every problem,
    /// with its register-store form behind it.
    ///
    /// ```
    /// use cutlet::arch::ArchKind;
    /// use cutlet::device::gemm::Gemm;
    /// use cutlet::gemm::ClusterShape;
    /// use cutlet::kernel::gemm::KernelSchedule;
    ///
    /// let spec = Gemm::builder().arch(ArchKind::Sm90).spec().unwrap();
    /// assert_eq!(spec.schedule, KernelSchedule::TmaWarpSpecializedCooperative);
    /// assert_eq!((spec.tile, spec.cluster), ([128, 256, 64], ClusterShape::new(2, 1)));
    /// let pingpong = Gemm::builder()
    ///     .arch(ArchKind::Sm90)
    ///     .schedule(KernelSchedule::TmaWarpSpecializedPingpong)
    ///     .cluster([1, 1])
    ///     .spec()
    ///     .unwrap();
    /// assert_eq!(pingpong.tile, [128, 128, 64]);
    ///
    /// use cutlet::collective::MainloopPolicy;
    /// use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
    /// use cutlet::numeric::ElementType;
    /// let spec = Gemm::builder()
    ///     .arch(ArchKind::Sm70)
    ///     .a(ElementType::F16, OperandMajor::MN)
    ///     .d(ElementType::F32, OutputMajor::N)
    ///     .spec()
    ///     .unwrap();
    /// assert_eq!((spec.tile, spec.mainloop.policy), ([128, 128, 32], MainloopPolicy::Sm70TwoStage));
    /// assert!(spec.ptx().unwrap().contains(".target sm_70"));
    /// // Volta has no bf16 tensor cores.
    /// let refused = Gemm::builder().arch(ArchKind::Sm70).a(ElementType::BF16, OperandMajor::K).spec();
    /// assert!(refused.unwrap_err().to_string().contains("no sm_70 tensor-core instruction"));
    /// ```
    pub fn arch(mut self, arch: ArchKind) -> Self {
        self.arch = Some(arch);
        self
    }

    /// The kernel schedule (SM90: `TmaWarpSpecializedCooperative`, the
    /// default, `TmaWarpSpecializedPingpong`, whose default tile is
    /// 128x128, or `TmaWarpSpecializedSlicedK`, two warpgroups on
    /// alternate k-tiles of one 64x128 tile by default, which the
    /// per-problem pick never takes; `Multistage` is the SM80 kernel). A warp-specialized
    /// schedule implies [`arch`](Self::arch)`(Sm90)` where no arch is set;
    /// beside an explicit other arch it is an [`Error::Config`] naming both.
    ///
    /// ```
    /// use cutlet::arch::ArchKind;
    /// use cutlet::device::gemm::Gemm;
    /// use cutlet::kernel::gemm::KernelSchedule;
    ///
    /// let spec = Gemm::builder().schedule(KernelSchedule::TmaWarpSpecializedPingpong).spec().unwrap();
    /// assert_eq!(spec.arch, ArchKind::Sm90);
    /// let sliced = Gemm::builder().schedule(KernelSchedule::TmaWarpSpecializedSlicedK).spec().unwrap();
    /// assert_eq!((sliced.tile, sliced.kernel_name().contains("_slicedk_")), ([64, 128, 64], true));
    /// let refused = Gemm::builder()
    ///     .arch(ArchKind::Sm80)
    ///     .schedule(KernelSchedule::TmaWarpSpecializedPingpong)
    ///     .spec()
    ///     .unwrap_err();
    /// assert!(refused.to_string().contains("schedule TmaWarpSpecializedPingpong with arch Sm80"));
    /// ```
    pub fn schedule(mut self, schedule: KernelSchedule) -> Self {
        self.schedule = Some(schedule);
        self
    }

    /// The thread-block cluster of the SM90 kernels, `[m, n]` or a
    /// [`ClusterShape`]: 1 or 2 CTAs each way (default 2x1 for the
    /// cooperative schedule, 1x1 for ping-pong). The CTAs of a cluster share their A and B tiles through
    /// TMA multicast. Where no [`arch`](Self::arch) is set, a cluster of
    /// more than one CTA implies `arch(Sm90)`.
    ///
    /// ```
    /// use cutlet::arch::ArchKind;
    /// use cutlet::device::gemm::Gemm;
    ///
    /// assert_eq!(Gemm::builder().cluster([1, 2]).spec().unwrap().arch, ArchKind::Sm90);
    /// // The SM80 kernel runs without clusters.
    /// let refused = Gemm::builder().arch(ArchKind::Sm80).cluster([1, 2]).spec();
    /// assert!(refused.unwrap_err().to_string().contains("cluster 1x2"));
    /// ```
    pub fn cluster(mut self, cluster: impl Into<ClusterShape>) -> Self {
        self.cluster = Some(cluster.into());
        self
    }

    /// How the work is divided among blocks: [`Decomposition::DataParallel`]
    /// (whole output tiles), [`Decomposition::SplitK`]`(n)` (each tile's
    /// K loop in `n` units, 2 to 64) or [`Decomposition::StreamK`] (whole
    /// waves of tiles data-parallel, the k-tiles of the last one or two
    /// waves' tiles spread evenly over every SM's block). Split-K and
    /// stream-K add their partial tiles in K order through a workspace the
    /// GEMM owns (allocated zeroed at the first run that needs it and
    /// reused; its counters reset themselves, so a run needs no memset),
    /// the same bits on every run on one GPU model (stream-K's division
    /// follows the SM count). Both run the SM90 cooperative kernel
    /// (default tile 128x128, no cluster; split-K also in the cluster
    /// [`cluster`](Self::cluster) asks for) with f32 accumulation and the
    /// TMA-store epilogue (the register-store one for tiles over 128x128,
    /// [`GemmSpec::with_k_splitting_epilogue`](crate::kernel::gemm::GemmSpec::with_k_splitting_epilogue));
    /// where no arch is set they imply `arch(Sm90)`,
    /// and with `Sm80` or `Sm70` they are `Error::Config` naming both.
    /// Unset, the GEMM picks per problem.
    ///
    /// ```
    /// use cutlet::device::gemm::{Decomposition, Gemm};
    /// use cutlet::kernel::gemm::TileSchedulerPolicy;
    ///
    /// let spec = Gemm::builder().decomposition(Decomposition::SplitK(8)).spec().unwrap();
    /// assert_eq!(spec.scheduler, TileSchedulerPolicy::SplitK { splits: 8 });
    /// assert_eq!((spec.tile, spec.cluster.mn()), ([128, 128, 64], [1, 1]));
    /// assert!(spec.kernel_name().ends_with("_splitk8"));
    /// // In 2x1 clusters: the two CTAs of one run the same k-tiles of
    /// // neighbouring tiles (B multicast).
    /// let spec = Gemm::builder().decomposition(Decomposition::SplitK(8)).cluster([2, 1]).spec().unwrap();
    /// assert!(spec.kernel_name().ends_with("_c2x1_splitk8"));
    /// let refused = Gemm::builder().decomposition(Decomposition::StreamK).cluster([2, 1]).spec();
    /// assert!(refused.unwrap_err().to_string().contains("expected no cluster"));
    /// let refused = Gemm::builder().arch(cutlet::arch::ArchKind::Sm80).decomposition(Decomposition::SplitK(8)).spec();
    /// assert!(refused.unwrap_err().to_string().contains("SplitK(8) with arch Sm80"));
    /// let spec = Gemm::builder().decomposition(Decomposition::StreamK).spec().unwrap();
    /// assert_eq!(spec.scheduler, TileSchedulerPolicy::StreamK);
    /// assert!(spec.kernel_name().ends_with("_streamk"));
    /// ```
    pub fn decomposition(mut self, decomposition: Decomposition) -> Self {
        self.decomposition = Some(decomposition);
        self
    }

    /// How split-K and stream-K add their partial tiles:
    /// [`Reduction::Deterministic`](crate::kernel::gemm::Reduction::Deterministic)
    /// (the default: each unit stores its partial tile in a slot of its
    /// own, the finishing unit adds them in K order, the same bits on every
    /// run) or [`Reduction::Atomic`](crate::kernel::gemm::Reduction::Atomic)
    /// (each unit adds its partial tile into one f32 tile of the workspace
    /// with `red.global.add`; the finishing unit reads that one tile and
    /// sets it back to 0: less to read where many units share a tile, but
    /// the order of the adds, and so the low bits of D, may change from run
    /// to run). It applies to every kernel of the GEMM that splits K,
    /// pinned or picked, and to nothing else. The workspace is the same
    /// size either way.
    ///
    /// ```
    /// use cutlet::device::gemm::{Decomposition, Gemm, Reduction};
    ///
    /// let spec = Gemm::builder()
    ///     .decomposition(Decomposition::SplitK(8))
    ///     .reduction(Reduction::Atomic)
    ///     .spec()
    ///     .unwrap();
    /// assert_eq!(spec.reduction, Reduction::Atomic);
    /// assert!(spec.kernel_name().ends_with("_splitk8_atomic"));
    /// ```
    pub fn reduction(mut self, reduction: crate::kernel::gemm::Reduction) -> Self {
        self.reduction = Some(reduction);
        self
    }

    /// Swap-AB: run D = A · B as its transpose D^T = B^T · A^T over the
    /// same buffers (nothing is copied: B is read as the kernel's A, A as
    /// its B, D written through the other major, row and column biases
    /// exchanged), so that a small M lands on the kernel's N, which wgmma
    /// takes in steps of 8, instead of filling a fraction of a 128-row tile.
    /// Results are the same as without it up to the order of the f32 sums.
    ///
    /// Unset, the GEMM swaps where the pick finds it pays (on compute
    /// capability 9.0, M at most 64 and N at least 4 M, with a K-major A:
    /// see [`sm90_spec_for_problem`](crate::kernel::gemm::sm90_spec_for_problem),
    /// whose GEMV kernel takes most problems of M up to 16 with K-major A
    /// and B and B up to 4096 x 4096, unswapped);
    /// `false` never swaps; `true` always does (on the SM90 kernels only:
    /// with arch `Sm80` or `Sm70` it is `Error::Config`). Where a tile,
    /// schedule, cluster or decomposition is also set they describe the
    /// kernel, which computes the transposed problem: its TileM runs along
    /// N, its TileN along M, and [`spec`](Self::spec) is the kernel's spec
    /// (A's and B's types and majors exchanged, D's major flipped).
    ///
    /// ```
    /// use cutlet::device::gemm::Gemm;
    /// use cutlet::kernel::gemm::OutputMajor;
    ///
    /// // A 16-token batch: the kernel's 128x16 tiles run along N.
    /// let spec = Gemm::builder().swap_ab(true).tile([128, 16, 64]).spec().unwrap();
    /// assert_eq!((spec.tile, spec.majors.d), ([128, 16, 64], OutputMajor::M));
    /// let err = Gemm::builder().arch(cutlet::arch::ArchKind::Sm80).swap_ab(true).spec().unwrap_err();
    /// assert!(err.to_string().contains("swap-AB"), "{err}");
    /// ```
    pub fn swap_ab(mut self, swap: bool) -> Self {
        self.swap_ab = Some(swap);
        self
    }

    /// The tile scheduler of a decomposition that splits K (split-K,
    /// stream-K), if one is asked for.
    fn splits(&self) -> Option<crate::kernel::gemm::TileSchedulerPolicy> {
        match self.decomposition {
            Some(d @ (Decomposition::SplitK(2..) | Decomposition::StreamK)) => Some(d.scheduler()),
            _ => None,
        }
    }

    /// Whether these values ask for the SM90 warp-specialized kernel.
    ///
    /// Errors: [`Error::Config`] where an explicit arch other than `Sm90`
    /// is set beside a warp-specialized schedule, naming both.
    fn wants_sm90(&self) -> Result<bool> {
        if let (Some(true), Some(arch)) = (self.swap_ab, self.arch) {
            if arch != ArchKind::Sm90 {
                return Err(Error::Config {
                    config: format!("{arch:?} GEMM"),
                    reason: format!(
                        "swap-AB with arch {arch:?}: swap-AB runs on the SM90 kernels (expected arch Sm90, or swap_ab(false))"
                    ),
                });
            }
        }
        if self.swap_ab == Some(true) && self.schedule.is_none() {
            return Ok(true);
        }
        if let (Some(_), Some(d), Some(arch)) = (self.splits(), self.decomposition, self.arch) {
            if arch != ArchKind::Sm90 {
                let what = match d {
                    Decomposition::StreamK => "stream-K runs on the SM90 cooperative kernel",
                    _ => "split-K runs on the SM90 cooperative and ping-pong kernels",
                };
                return Err(Error::Config {
                    config: format!("{arch:?} GEMM"),
                    reason: format!(
                        "decomposition {d:?} with arch {arch:?}: {what} (expected arch Sm90, or Decomposition::DataParallel on {arch:?})"
                    ),
                });
            }
        }
        if self.splits().is_some() && self.schedule.is_none() {
            return Ok(true);
        }
        match (self.schedule, self.arch) {
            (Some(schedule), Some(arch)) if schedule.warp_specialized() && arch != ArchKind::Sm90 => {
                Err(Error::Config {
                    config: format!("{arch:?} GEMM"),
                    reason: format!(
                        "schedule {schedule:?} with arch {arch:?}: the warp-specialized schedules run only on Sm90 (expected arch Sm90, or schedule Multistage on {arch:?})"
                    ),
                })
            }
            (Some(schedule), _) => Ok(schedule.warp_specialized()),
            (None, Some(arch)) => Ok(arch == ArchKind::Sm90),
            // 8-bit A, B or D, or D's output scale or amax: only the SM90
            // kernels have 8-bit tensor-core instructions and FP8 stores.
            (None, None) => Ok(self.cluster.is_some_and(|c| !c.is_one())
                || self.eight_bit()
                || self.output != Default::default()),
        }
    }

    /// Whether A, B or D is an 8-bit type (e4m3, e5m2, s8, u8).
    fn eight_bit(&self) -> bool {
        let (a, _, b, _, d, ..) = self.types();
        a.size_bytes() == 1 || b.size_bytes() == 1 || d.size_bytes() == 1
    }

    /// The SM90 spec of these values.
    fn sm90_spec(&self) -> Result<GemmSpec> {
        let (a, a_major, b, b_major, d, d_major, acc) = self.types();
        if self.warps.is_some() {
            return Err(Error::Config {
                config: "SM90 GEMM".to_string(),
                reason: "warps were set: the SM90 kernels run one producer and two consumer warpgroups, so warps apply to the SM80 kernel only".to_string(),
            });
        }
        let schedule = self
            .schedule
            .unwrap_or(KernelSchedule::TmaWarpSpecializedCooperative);
        let promotion = self.promotion()?;
        let bk = crate::gemm::default_tile_k(a);
        let (tile, cluster) = match (schedule, self.splits()) {
            (_, Some(_)) => ([128, 128, bk], ClusterShape::ONE),
            (KernelSchedule::TmaWarpSpecializedPingpong, _) if promotion.is_some() => {
                ([64, 128, bk], ClusterShape::ONE)
            }
            (KernelSchedule::TmaWarpSpecializedPingpong, _) => ([128, 128, bk], ClusterShape::ONE),
            (KernelSchedule::TmaWarpSpecializedSlicedK, _) => ([64, 128, bk], ClusterShape::ONE),
            _ if promotion.is_some() => ([128, 128, bk], ClusterShape::new(2, 1)),
            _ => ([128, 256, bk], ClusterShape::new(2, 1)),
        };
        let tile = self.tile.unwrap_or(tile);
        let cluster = self.cluster.unwrap_or(cluster);
        let (mut types, mut majors) = (
            GemmTypes::new(a, b, d, d, acc),
            GemmMajors::new(a_major, b_major, d_major),
        );
        let swap = self.swap_ab == Some(true);
        if swap {
            (types, majors) = (types.transposed(), majors.transposed());
        }
        let mut spec = sm90_spec(types, majors, schedule, tile, cluster)?;
        spec.reduction = self.reduction.unwrap_or_default();
        if let Some(scheduler) = self.splits() {
            spec.scheduler = scheduler;
            spec = spec.with_k_splitting_epilogue()?;
        }
        let fusion = self.fusion()?;
        spec = spec.with_fusion(if swap { fusion.transposed() } else { fusion })?;
        if let Some(interval) = promotion {
            spec = spec.with_fp8_promotion(interval)?;
        }
        if let Some(stages) = self.stages {
            spec.set_stages(stages);
        }
        check_spec(&spec)?;
        Ok(spec)
    }

    /// The epilogue: [`epilogue`](Self::epilogue)'s (or the linear
    /// combination), scaled where [`scales`](Self::scales) asks, with D's
    /// output scale and amax where [`d_scale`](Self::d_scale) and
    /// [`d_amax`](Self::d_amax) ask.
    fn fusion(&self) -> Result<Epilogue> {
        let fusion = self.epilogue.clone().unwrap_or_default();
        let fusion = match self.scale_granularity {
            Some(granularity) => fusion.with_scales(granularity)?,
            None => fusion,
        };
        Ok(match self.output == Default::default() {
            true => fusion,
            false => fusion.with_output(self.output),
        })
    }

    /// The promotion interval of an e4m3/e5m2 GEMM that promotes (see
    /// [`fast_accumulation`](Self::fast_accumulation)), `None` for one that
    /// does not; an error where an interval was set that cannot apply.
    fn promotion(&self) -> Result<Option<u32>> {
        let (a, _, b, ..) = self.types();
        let fp8 = |e| matches!(e, ElementType::F8E4M3 | ElementType::F8E5M2);
        let promotes = fp8(a) && fp8(b) && self.fast_accumulation != Some(true);
        match (promotes, self.promotion_interval) {
            (true, interval) => Ok(Some(
                interval.unwrap_or(crate::collective::DEFAULT_PROMOTION_INTERVAL),
            )),
            (false, None) => Ok(None),
            (false, Some(interval)) => Err(Error::Config {
                config: "SM90 GEMM".to_string(),
                reason: format!(
                    "promotion interval {interval} with {}: promotion applies to e4m3/e5m2 A and B without fast accumulation (expected fast_accumulation(false) and e4m3/e5m2 inputs, or no interval)",
                    if self.fast_accumulation == Some(true) {
                        "fast accumulation".to_string()
                    } else {
                        format!("a={a}, b={b}")
                    }
                ),
            }),
        }
    }

    /// Which operands run as K-major copies: an e4m3, e5m2, s8 or u8 A or
    /// B set MN-major (the 8-bit kernels read K-major operands only).
    fn copies(&self) -> KMajorCopies {
        let copied = |operand: Option<(ElementType, OperandMajor)>| {
            operand.is_some_and(|(element, major)| {
                element.size_bytes() == 1 && major == OperandMajor::MN
            })
        };
        KMajorCopies {
            a: copied(self.a),
            b: copied(self.b),
        }
    }

    /// The element types and majors, with their defaults; an MN-major
    /// 8-bit operand is the K-major copy the kernel reads.
    #[allow(clippy::type_complexity)]
    fn types(
        &self,
    ) -> (
        ElementType,
        OperandMajor,
        ElementType,
        OperandMajor,
        ElementType,
        OutputMajor,
        ElementType,
    ) {
        // Volta has no bf16 tensor cores: f16 is its default.
        let a_default = if self.arch == Some(ArchKind::Sm70) {
            ElementType::F16
        } else {
            ElementType::BF16
        };
        let (a, a_major) = self.a.unwrap_or((a_default, OperandMajor::K));
        let (b, b_major) = self.b.unwrap_or((a, OperandMajor::K));
        // An MN-major 8-bit operand runs as its K-major copy (`copies`).
        let copies = self.copies();
        let a_major = if copies.a { OperandMajor::K } else { a_major };
        let b_major = if copies.b { OperandMajor::K } else { b_major };
        let integer = matches!(a, ElementType::I8 | ElementType::U8);
        let d_default = match a {
            ElementType::TF32 => ElementType::F32,
            // s8/u8 inputs write their exact i32 sums, as `torch._int_mm`
            // and cuBLASLt's 32I compute do.
            _ if integer => ElementType::I32,
            // FP8 inputs write bf16, as `torch._scaled_mm` mostly does.
            _ if a.size_bytes() == 1 => ElementType::BF16,
            _ => a,
        };
        let (d, d_major) = self.d.unwrap_or((d_default, OutputMajor::N));
        let acc_default = if integer {
            ElementType::I32
        } else {
            ElementType::F32
        };
        let acc = self.acc.unwrap_or(acc_default);
        (a, a_major, b, b_major, d, d_major, acc)
    }

    /// The fused epilogue (default: D = alpha · acc + beta · C): an
    /// [`Epilogue`] with bias vectors, or an
    /// [`Expression`](crate::fusion::Expression) over (acc, c).
    pub fn epilogue(mut self, epilogue: impl Into<Epilogue>) -> Self {
        self.epilogue = Some(epilogue.into());
        self
    }

    /// Scales the product by `scale_a · scale_b` before the epilogue
    /// expression (the default one, or [`epilogue`](Self::epilogue)'s), as
    /// `torch._scaled_mm` does: one f32 each for A and B
    /// ([`ScaleGranularity::Tensor`]), or one per row of A and per column
    /// of B ([`ScaleGranularity::RowCol`]). The scales come with each call
    /// ([`Arguments::with_scales`]) in device memory, so new values in the
    /// same buffers need no new kernel and a captured CUDA graph reads
    /// them. The SM90 kernels read them (8-bit inputs run there); the
    /// scaled result is D = `alpha · scale_a · scale_b · (A · B) + beta ·
    /// C` by default.
    ///
    /// [`ScaleGranularity::Block`] takes DeepSeek-V3's block scales (A's
    /// per row and 128 of K, `[M][ceil(K/128)]`; B's per 128x128 block,
    /// `[ceil(N/128)][ceil(K/128)]`; f32, row-major), which the FP8
    /// mainloop applies at each promotion: e4m3/e5m2 inputs without fast
    /// accumulation, promotion interval 4, TileK 128, TileN dividing 128
    /// (swapped: TileM dividing 128, TileN at most 64). The default kernel
    /// is the promoting cooperative 128x128x128 one; a small M runs
    /// swapped, as without scales.
    ///
    /// ```
    /// use cutlet::device::gemm::Gemm;
    /// use cutlet::gemm::OperandMajor;
    /// use cutlet::kernel::gemm::{BiasAxis, ScaleGranularity};
    /// use cutlet::numeric::ElementType::{BF16, F8E4M3};
    ///
    /// let spec = Gemm::builder()
    ///     .a(F8E4M3, OperandMajor::K)
    ///     .b(F8E4M3, OperandMajor::K)
    ///     .scales(ScaleGranularity::RowCol)
    ///     .spec()
    ///     .unwrap();
    /// assert_eq!(spec.epilogue.fusion.biases(), [BiasAxis::Row, BiasAxis::Column]);
    /// // The SM80 kernel reads no scales.
    /// let err = Gemm::builder().a(BF16, OperandMajor::K).scales(ScaleGranularity::Tensor).spec();
    /// assert!(err.unwrap_err().to_string().contains("only the SM90 epilogues"));
    ///
    /// // Block scales add no epilogue vector: the mainloop applies them.
    /// let fp8 = Gemm::builder().a(F8E4M3, OperandMajor::K).b(F8E4M3, OperandMajor::K);
    /// let block = fp8.clone().scales(ScaleGranularity::Block).spec().unwrap();
    /// assert!(block.epilogue.fusion.biases().is_empty());
    /// assert_eq!(block.tile, [128, 128, 128]);
    /// // They need promotion: fast accumulation has none to apply them at.
    /// let err = fp8.scales(ScaleGranularity::Block).fast_accumulation(true).spec().unwrap_err();
    /// assert!(err.to_string().contains("block scales without promotion"), "{err}");
    /// ```
    pub fn scales(mut self, granularity: ScaleGranularity) -> Self {
        self.scale_granularity = Some(granularity);
        self
    }

    /// Multiplies each result of the epilogue by D's output scale, one f32
    /// in device memory given with each call
    /// ([`Arguments::with_d_scale`](super::Arguments::with_d_scale)), before
    /// D's conversion: D = `convert(d_scale · r)`, as cuBLASLt's
    /// `CUBLASLT_MATMUL_DESC_D_SCALE_POINTER`. With an e4m3 or e5m2 D
    /// ([`d`](Self::d)) the conversion saturates to the type's largest
    /// finite value (448 for e4m3, 57344 for e5m2; NaN stays NaN), so
    /// `d_scale = 448 / amax` of the previous step fills e4m3's range.
    ///
    /// The SM90 register-store epilogue applies it (the builder picks that
    /// epilogue); other kernels refuse it. An FP8 D (always stored by that
    /// epilogue) needs no scale: without one the results are converted as
    /// they are.
    ///
    /// ```
    /// use cutlet::arch::ArchKind;
    /// use cutlet::collective::EpiloguePolicy;
    /// use cutlet::device::gemm::Gemm;
    /// use cutlet::gemm::{OperandMajor, OutputMajor};
    /// use cutlet::numeric::ElementType::{BF16, F8E4M3};
    ///
    /// let fp8_out = Gemm::builder()
    ///     .a(F8E4M3, OperandMajor::K)
    ///     .b(F8E4M3, OperandMajor::K)
    ///     .d(F8E4M3, OutputMajor::N)
    ///     .d_scale(true)
    ///     .d_amax(true);
    /// let spec = fp8_out.spec().unwrap();
    /// assert_eq!(spec.epilogue.policy, EpiloguePolicy::Sm90NoSmem);
    /// assert!(spec.epilogue.fusion.output().d_scale && spec.epilogue.fusion.output().d_amax);
    /// // A bf16 GEMM with an amax runs on the SM90 kernels too ...
    /// let bf16 = Gemm::builder().a(BF16, OperandMajor::K).d_amax(true).spec().unwrap();
    /// assert_eq!(bf16.epilogue.policy, EpiloguePolicy::Sm90NoSmem);
    /// // ... and the SM80 kernel writes no scaled output.
    /// let sm80 = Gemm::builder().a(BF16, OperandMajor::K).arch(ArchKind::Sm80);
    /// let err = sm80.d_scale(true).spec().unwrap_err();
    /// assert!(err.to_string().contains("only the SM90 epilogues"), "{err}");
    /// ```
    pub fn d_scale(mut self, scale: bool) -> Self {
        self.output.d_scale = scale;
        self
    }

    /// Writes the amax of D, `max |r|` over the epilogue's results before
    /// [`d_scale`](Self::d_scale), to one f32 in device memory given with
    /// each call ([`Arguments::with_d_amax`](super::Arguments::with_d_amax)),
    /// as cuBLASLt's `CUBLASLT_MATMUL_DESC_AMAX_D_POINTER`: the value the
    /// next step's FP8 scale is computed from (`448 / amax` for e4m3), in
    /// the same kernel. `run` sets it to 0 on the stream before the
    /// kernel, which raises it with one atomic max per warp and tile; a
    /// NaN result makes it NaN. Any float D; the SM90 register-store
    /// epilogue (see [`d_scale`](Self::d_scale)).
    pub fn d_amax(mut self, amax: bool) -> Self {
        self.output.d_amax = amax;
        self
    }

    /// The spec these values give, validated; no device needed.
    ///
    /// Errors: [`Error::Config`] naming the configuration and the broken
    /// rule with its values (the rules of [`tile`](Self::tile)).
    pub fn spec(&self) -> Result<GemmSpec> {
        if self.wants_sm90()? {
            return self.sm90_spec();
        }
        if let Some(cluster) = self.cluster.filter(|&c| !c.is_one()) {
            return Err(Error::Config {
                config: "SM80 GEMM".to_string(),
                reason: format!(
                    "cluster {cluster}: the multistage kernel runs without clusters (expected 1x1, or arch Sm90)"
                ),
            });
        }
        let (a, a_major, b, b_major, d, d_major, acc) = self.types();
        let mut spec = if self.arch == Some(ArchKind::Sm70) {
            if let Some(stages) = self.stages.filter(|&s| s != 2) {
                return Err(Error::invalid_argument(
                    "stages",
                    stages,
                    "2 on sm_70 (the SM70 two-stage mainloop)",
                ));
            }
            sm70_default_spec(a, b, d, acc, a_major, b_major, d_major)?
        } else {
            sm80_default_spec(a, b, d, acc, a_major, b_major, d_major)?
        };
        spec.epilogue.fusion = self.fusion()?;
        if let Some(arch) = self.arch {
            spec.arch = arch;
        }
        if let Some(tile) = self.tile {
            spec.tile = tile;
        }
        match (self.warps, self.tile) {
            (Some([wm, wn]), _) => spec.mainloop.warps = [wm, wn, 1],
            (None, Some(_)) => spec.mainloop.warps = auto_warps(&spec),
            (None, None) => {}
        }
        let stages = match self.stages {
            Some(stages) => stages,
            None if self.tile.is_some() => auto_stages(&spec),
            None => spec.mainloop.stages(),
        };
        spec.set_stages(stages);
        check_spec(&spec)?;
        Ok(spec)
    }

    /// The [`Gemm`] of these values on `device`; the kernel compiles on the
    /// first run (or [`Gemm::initialize`]).
    ///
    /// Errors: as [`spec`](Self::spec), and [`Error::UnsupportedArch`] when
    /// `device` cannot run the kernel.
    pub fn build(self, device: &Device) -> Result<Gemm> {
        let gemm = Gemm {
            launcher: self.launcher(device)?,
        };
        gemm.launcher.check_device()?;
        Ok(gemm)
    }

    /// The launcher of these values on `device`: the SM90 kernel with the
    /// SM80 one behind it where the builder picks for the device (see
    /// [`arch`](Self::arch)), else the spec's own.
    fn launcher(&self, device: &Device) -> Result<Launcher> {
        Ok(self.kernel_launcher(device)?.with_copies(self.copies()))
    }

    /// [`launcher`](Self::launcher) without the copies of MN-major 8-bit
    /// operands.
    fn kernel_launcher(&self, device: &Device) -> Result<Launcher> {
        let spec = self.spec()?;
        let shape_unset = self.schedule.is_none()
            && self.tile.is_none()
            && self.warps.is_none()
            && self.stages.is_none()
            && self.cluster.is_none()
            && self.decomposition.is_none();
        let picks_here = shape_unset && device.compute_capability() == (9, 0);
        let sm_count = device.limits().sm_count;
        if spec.schedule.warp_specialized() {
            // SM90 asked for: a D that TMA cannot write runs on the same
            // kernel with the register-store epilogue; an A or B that TMA
            // cannot read is refused, stating TMA's rules. With nothing of
            // the kernel set, the kernel is picked for each problem.
            if picks_here {
                let spec = if self.swap_ab == Some(true) {
                    // The default among the picks runs the problem as given.
                    let mut unswapped = self.clone();
                    unswapped.swap_ab = None;
                    unswapped.sm90_spec()?
                } else {
                    spec
                };
                let launcher = Launcher::with_register_store(device, spec.clone(), None);
                return Ok(launcher.picking(spec, None, sm_count, self.swap_ab));
            }
            let launcher = Launcher::with_register_store(device, spec, None);
            return Ok(if self.swap_ab == Some(true) {
                launcher.swapping(None)
            } else {
                launcher
            });
        }
        if !picks_here || self.arch.is_some() {
            return Ok(Launcher::new(device, spec));
        }
        // Unpinned on compute capability 9.0: the SM90 kernels, with the
        // SM80 kernel behind them for what TMA cannot read.
        let mut sm90 = self.clone();
        sm90.arch = Some(ArchKind::Sm90);
        let Ok(sm90_spec) = sm90.sm90_spec() else {
            return Ok(Launcher::new(device, spec));
        };
        let launcher = Launcher::with_register_store(device, sm90_spec.clone(), Some(spec.clone()));
        Ok(launcher.picking(sm90_spec, Some(spec), sm_count, self.swap_ab))
    }

    /// The [`TypedGemm`] of these values on `device`, whose `run` takes
    /// buffers of exactly A's, B's and D's storage types (C has D's): a
    /// mismatch is a compile error. `A`, `B`, `D` are
    /// [`GemmElement`] tags (`half::f16`, `half::bf16`, `f32`,
    /// [`Tf32`](crate::numeric::Tf32), `cutlet::float8::F8E4M3`,
    /// `F8E5M2`, `i8` and `u8` for A and B, `i32` for D of `i8`/`u8`
    /// inputs); an element type not set with
    /// [`a`](Self::a), [`b`](Self::b) or [`d`](Self::d) is taken from them
    /// (with a K-major A and B and a row-major D).
    ///
    /// Errors: as [`build`](Self::build), and [`Error::InvalidArgument`]
    /// when an element type set on the builder is not the type parameter's.
    pub fn build_typed<A, B, D>(mut self, device: &Device) -> Result<TypedGemm<A, B, D>>
    where
        A: GemmElement,
        B: GemmElement,
        D: GemmElement,
    {
        for (name, set, wanted) in [
            ("a", self.a.map(|(element, _)| element), A::TYPE),
            ("b", self.b.map(|(element, _)| element), B::TYPE),
            ("d", self.d.map(|(element, _)| element), D::TYPE),
        ] {
            match set {
                Some(set) if set != wanted => {
                    return Err(Error::invalid_argument(
                        format!("{name} element type"),
                        set,
                        format!("{wanted}, the type parameter build_typed was given for {name}"),
                    ))
                }
                _ => {}
            }
        }
        self.a.get_or_insert((A::TYPE, OperandMajor::K));
        self.b.get_or_insert((B::TYPE, OperandMajor::K));
        self.d.get_or_insert((D::TYPE, OutputMajor::N));
        let launcher = self.launcher(device)?;
        launcher.check_device()?;
        Ok(TypedGemm::from_launcher(launcher))
    }
}

/// The warps for `spec`'s tile when only the tile is given: of the warp
/// layouts the configuration rules accept (with automatic stages), the one
/// whose warp tile is nearest 64x64 (the shape that keeps the tensor cores
/// busy with 128 f32 accumulators a thread), fewer warps first on a tie;
/// `spec`'s own warps when none is accepted (its error then names the rule).
fn auto_warps(spec: &GemmSpec) -> [u32; 3] {
    let [bm, bn, _] = spec.tile;
    let distance = |extent: u32, warps: u32| {
        let per = (extent / warps).max(1);
        (i64::from(per.ilog2()) - 6).unsigned_abs()
    };
    let mut best: Option<(u64, u32, [u32; 3])> = None;
    for wm in (0..6).map(|i| 1u32 << i) {
        for wn in (0..6).map(|i| 1u32 << i) {
            if wm * wn > 32 {
                continue;
            }
            let mut candidate = spec.clone();
            candidate.mainloop.warps = [wm, wn, 1];
            candidate.set_stages(auto_stages(&candidate));
            if check_config(&candidate.facts()).is_err() {
                continue;
            }
            let key = (distance(bm, wm) + distance(bn, wn), wm * wn, [wm, wn, 1]);
            if best.is_none_or(|b| (key.0, key.1) < (b.0, b.1)) {
                best = Some(key);
            }
        }
    }
    best.map_or(spec.mainloop.warps, |(_, _, warps)| warps)
}

/// As many stages as fit in the arch's opt-in shared memory, 2 to [`MAX_AUTO_STAGES`].
fn auto_stages(spec: &GemmSpec) -> u32 {
    let limit = spec.arch.max_dynamic_shared_bytes();
    let per_stage = spec.stage_bytes().max(1);
    (limit / per_stage).clamp(2, MAX_AUTO_STAGES)
}

impl Gemm {
    /// A builder with every field unset.
    pub fn builder() -> GemmBuilder {
        GemmBuilder::default()
    }

    /// The GEMM of an already validated `spec` (a typed config's
    /// [`spec`](super::Config::spec), or one from [`GemmBuilder::spec`]).
    pub fn from_spec(device: &Device, spec: GemmSpec) -> Gemm {
        Gemm {
            launcher: Launcher::new(device, spec),
        }
    }

    /// The GEMM that runs each problem D = A · B as its transpose D^T =
    /// B^T · A^T on `spec`, the kernel of the transposed problem (swap-AB:
    /// [`GemmBuilder::swap_ab`]; [`sm90_pick_for_problem`](crate::kernel::gemm::sm90_pick_for_problem)
    /// says when its pick is one). The arguments are the problem's own: A,
    /// B, C, D and the biases as for any GEMM; the checks read
    /// [`spec.transposed()`](GemmSpec::transposed), the problem's view, and
    /// name the caller's operands. Where `spec` stores D with TMA, the same
    /// kernel with the register-store epilogue takes a D that TMA cannot
    /// write (D^T's rows not whole 16-byte chunks).
    ///
    /// ```
    /// use cutlet::gemm::{GemmMajors, GemmTypes};
    /// use cutlet::kernel::gemm::{sm90_spec, KernelSchedule, OperandMajor, OutputMajor};
    /// use cutlet::numeric::ElementType::{BF16, F32};
    ///
    /// // The kernel of a row-major D's transpose: column-major, 128x16 tiles.
    /// let kernel = sm90_spec(
    ///     GemmTypes::new(BF16, BF16, BF16, BF16, F32),
    ///     GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::M),
    ///     KernelSchedule::TmaWarpSpecializedCooperative, [128, 16, 64], [1, 1],
    /// ).unwrap();
    /// assert_eq!(kernel.transposed().majors.d, OutputMajor::N);
    /// # fn run(device: &cutlet::device::Device, kernel: cutlet::kernel::gemm::GemmSpec) {
    /// let gemm = cutlet::device::gemm::Gemm::from_transposed_spec(device, kernel);
    /// # }
    /// ```
    pub fn from_transposed_spec(device: &Device, spec: GemmSpec) -> Gemm {
        Gemm {
            launcher: Launcher::with_register_store(device, spec, None).swapping(None),
        }
    }

    /// The GEMM that launches `kernel`, a kernel composed from parts, one
    /// written outside the crate, say (a [`TileScheduler`](crate::kernel::gemm::TileScheduler)
    /// of its own in a [`GemmUniversal`](crate::kernel::gemm::GemmUniversal)
    /// or [`Sm90GemmWarpSpecialized`](crate::kernel::gemm::Sm90GemmWarpSpecialized));
    /// `spec` is the configuration its parts were built from, whose element
    /// types, majors, tile and cluster the argument checks and the launch
    /// read (the alignment, parameters, tensor maps, shared memory and grid
    /// are the kernel's own). The kernel compiles once, at full
    /// optimization, on its first call; its modules are cached under its
    /// name beside `spec`'s own kernel.
    ///
    /// # Errors
    /// [`Error::Config`] when `spec` breaks a configuration rule,
    /// `kernel`'s parts cannot be built, or `kernel` launches clusters of
    /// another size than `spec`'s.
    pub fn from_kernel(
        device: &Device,
        spec: GemmSpec,
        kernel: Box<dyn crate::kernel::gemm::GemmKernel>,
    ) -> Result<Gemm> {
        spec.validate()?;
        kernel.can_implement()?;
        if kernel.cluster() != spec.cluster {
            return Err(Error::Config {
                config: kernel.name().to_string(),
                reason: format!(
                    "the kernel launches {} clusters, the spec {}: expected the spec's cluster",
                    kernel.cluster(),
                    spec.cluster
                ),
            });
        }
        Ok(Gemm {
            launcher: Launcher::from_kernel(device, spec, kernel),
        })
    }

    /// Whether [`can_implement`](Self::can_implement) and [`run`](Self::run)
    /// reject alpha, beta and epilogue scalars that are not finite in f32:
    /// on by default (see
    /// [`GemmUniversalAdapter::check_scalars`](super::GemmUniversalAdapter::check_scalars)).
    #[must_use]
    pub fn check_scalars(mut self, check: bool) -> Gemm {
        self.launcher.set_check_scalars(check);
        self
    }

    /// The kernel spec. Where the builder picks the kernel (on compute
    /// capability 9.0 with no tile, warps, stages, schedule or cluster
    /// set: see [`GemmBuilder::arch`]) it picks one for each problem, and
    /// this is the default among them, the cooperative 128x256 kernel in a
    /// 2x1 cluster; [`spec_for`](Self::spec_for) names the one a call runs.
    pub fn spec(&self) -> &GemmSpec {
        self.launcher.spec()
    }

    /// The spec of the kernel [`run`](Self::run) launches for `args`: the
    /// one picked for their problem where the builder picks (as
    /// [`sm90_spec_for_problem`](crate::kernel::gemm::sm90_spec_for_problem)
    /// does for the device's SM count), or the kernel behind it that takes
    /// what that one cannot (the register-store epilogue for a D that TMA
    /// cannot write, the SM80 kernel for an A or B it cannot read); else
    /// [`spec`](Self::spec). Where the call swaps A and B
    /// ([`swaps_ab_for`](Self::swaps_ab_for)) it is the spec of the kernel
    /// of the transposed problem. The kernel is not compiled here.
    ///
    /// ```no_run
    /// use cutlet::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand};
    /// use cutlet::device::Device;
    /// use cutlet::half::bf16;
    /// use cutlet::kernel::gemm::KernelSchedule;
    /// # fn main() -> cutlet::Result<()> {
    /// let device = Device::new(0)?;
    /// let stream = device.default_stream();
    /// let gemm = Gemm::builder().build(&device)?;
    /// let (m, n, k) = (8192, 8192, 1024);
    /// let a = stream.alloc_zeros::<bf16>(m * k).unwrap();
    /// let b = stream.alloc_zeros::<bf16>(n * k).unwrap();
    /// let mut d = stream.alloc_zeros::<bf16>(m * n).unwrap();
    /// let args = Arguments::product(
    ///     GemmShape::new(m, n, k, 1),
    ///     Operand::new(a.as_view(), k, 0),
    ///     Operand::new(b.as_view(), k, 0),
    ///     OutputOperand::new(d.as_view_mut(), n, 0),
    ///     1.0,
    /// );
    /// if device.compute_capability() == (9, 0) {
    ///     // A short K: ping-pong hides each tile's epilogue.
    ///     let spec = gemm.spec_for(&args);
    ///     assert_eq!(spec.schedule, KernelSchedule::TmaWarpSpecializedPingpong);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn spec_for<A, B, C, D>(&self, args: &Arguments<'_, A, B, C, D>) -> &GemmSpec
    where
        A: Element + DeviceRepr,
        B: Element + DeviceRepr,
        C: Element + DeviceRepr,
        D: Element + DeviceRepr,
    {
        let stream = self.launcher.device().default_stream();
        self.launcher.spec_for(args, &stream)
    }

    /// Whether [`run`](Self::run) computes `args`' problem as its transpose
    /// D^T = B^T · A^T (swap-AB, [`GemmBuilder::swap_ab`]): then
    /// [`spec_for`](Self::spec_for) is that kernel's spec, whose
    /// [`transposed`](GemmSpec::transposed) is the problem's view.
    pub fn swaps_ab_for<A, B, C, D>(&self, args: &Arguments<'_, A, B, C, D>) -> bool
    where
        A: Element + DeviceRepr,
        B: Element + DeviceRepr,
        C: Element + DeviceRepr,
        D: Element + DeviceRepr,
    {
        let stream = self.launcher.device().default_stream();
        self.launcher.swaps_ab_for(args, &stream)
    }

    /// The device the kernel runs on.
    pub fn device(&self) -> &Device {
        self.launcher.device()
    }

    /// Whether the kernel can compute `args`, and why not (see
    /// [`GemmUniversalAdapter::can_implement`](super::GemmUniversalAdapter::can_implement));
    /// the element types of `args` are checked here, at run time.
    pub fn can_implement<A, B, C, D>(&self, args: &Arguments<'_, A, B, C, D>) -> Result<()>
    where
        A: Element + DeviceRepr,
        B: Element + DeviceRepr,
        C: Element + DeviceRepr,
        D: Element + DeviceRepr,
    {
        let stream = self.launcher.device().default_stream();
        self.launcher.can_implement(args, &stream)
    }

    /// Bytes of device workspace `run` needs for `args`: 0 unless the
    /// kernel for their problem splits K (split-K: a record per output
    /// tile, a 128-byte flag header and the tile's f32 partial sums;
    /// stream-K: two 128-byte counters and one f32 partial tile per SM of
    /// the device; [`decomposition`](GemmBuilder::decomposition)). With
    /// `initialize(&args, None)` the GEMM owns its workspace (allocated
    /// zeroed at the first run that needs it, grown for a larger problem,
    /// reused; a buffer per layout where the picks for different problems
    /// split K differently); `initialize(&args, Some(buffer))` takes the caller's
    /// buffer instead (see [`GemmUniversalAdapter::initialize`](super::GemmUniversalAdapter::initialize)).
    pub fn workspace_size<A, B, C, D>(&self, args: &Arguments<'_, A, B, C, D>) -> usize {
        self.launcher.workspace_size(args)
    }

    /// Checks `args` and compiles the kernel that runs them (or takes it
    /// from the cache: where the builder picks for each problem, the one
    /// picked for theirs, [`spec_for`](Self::spec_for)), so that the first
    /// `run` of that problem only launches; returns the compiled kernel.
    /// A new configuration is compiled in two tiers (quick now, optimized in
    /// the background; for SM90 the quick one is a stand-in kernel of
    /// 128x128 tiles, none for a kernel that splits K, which compiles once;
    /// and the kernel is the one for `args`' beta: one for
    /// beta = 0, one for any other): `gemm.initialize(&args, None)?.wait_optimized()?`
    /// waits for the final kernel. `workspace`: `None` keeps the GEMM's own,
    /// `Some(buffer)` makes the caller's buffer the workspace of every run
    /// that follows. See
    /// [`GemmUniversalAdapter::initialize`](super::GemmUniversalAdapter::initialize)
    /// for both and the errors.
    pub fn initialize<A, B, C, D>(
        &self,
        args: &Arguments<'_, A, B, C, D>,
        workspace: Option<CudaSlice<u8>>,
    ) -> Result<&LoadedKernel>
    where
        A: Element + DeviceRepr,
        B: Element + DeviceRepr,
        C: Element + DeviceRepr,
        D: Element + DeviceRepr,
    {
        self.launcher.initialize(args, workspace)
    }

    /// Blocks until the optimized compile of every kernel compiled so far
    /// is in use, compiling the default kernel first if no call has (see
    /// [`GemmUniversalAdapter::wait_optimized`](super::GemmUniversalAdapter::wait_optimized)).
    pub fn wait_optimized(&self) -> Result<()> {
        self.launcher.wait_optimized()
    }

    /// Checks `args` and launches D = alpha · A · B + beta · C on `stream`
    /// (a stream of this GEMM's device). The element types of `args` are
    /// checked here, at run time: where they are known at compile time,
    /// [`GemmBuilder::build_typed`] makes a mismatch a compile error.
    pub fn run<A, B, C, D>(
        &self,
        args: &mut Arguments<'_, A, B, C, D>,
        stream: &Arc<CudaStream>,
    ) -> Result<()>
    where
        A: Element + DeviceRepr,
        B: Element + DeviceRepr,
        C: Element + DeviceRepr,
        D: Element + DeviceRepr,
    {
        self.launcher.run(args, stream)
    }

    /// [`run`](Self::run) with the persistent grid sized for `sm_count`
    /// SMs instead of the device's (CUTLASS's `KernelHardwareInfo::sm_count`),
    /// so that a kernel running beside it on another stream, such as a
    /// collective of [`cutlet::distributed`](crate::distributed), has the
    /// other SMs to itself. A count at or above the device's is the device's;
    /// a kernel of clusters keeps whole clusters; a kernel whose grid is not
    /// persistent (SM70, SM80) is unaffected. The result is the same bits.
    ///
    /// # Errors
    /// As [`run`](Self::run); [`Error::InvalidArgument`]
    /// for `sm_count` 0.
    pub fn run_with_sm_count<A, B, C, D>(
        &self,
        args: &mut Arguments<'_, A, B, C, D>,
        stream: &Arc<CudaStream>,
        sm_count: u32,
    ) -> Result<()>
    where
        A: Element + DeviceRepr,
        B: Element + DeviceRepr,
        C: Element + DeviceRepr,
        D: Element + DeviceRepr,
    {
        if sm_count == 0 {
            return Err(crate::Error::invalid_argument(
                "sm_count",
                0,
                "at least 1 SM for the GEMM's grid",
            ));
        }
        self.launcher.run_on(args, stream, Some(sm_count))
    }
}
