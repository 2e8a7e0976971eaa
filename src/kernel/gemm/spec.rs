//! [`GemmSpec`]: the plain, hashable value every GEMM configuration lowers to.
//!
//! Both front doors (the typed `Config` of `GemmUniversalAdapter` and the
//! runtime `Gemm::builder()`) produce a `GemmSpec`; [`GemmSpec::kernel`]
//! composes its parts into a kernel, which generates the PTX, and the
//! device layer caches the compiled module by spec and device (an SM90 kernel
//! by spec, [`SourceRead`](crate::collective::SourceRead) form and device).
//!
//! # Kernel parameters
//!
//! The parameters are a list ([`KernelParams`](crate::gemm::KernelParams)):
//! the kernel declares the extents, each part the roles it reads, and the
//! list keeps role order. For the multistage kernel of the SM80 parts:
//!
//! | # | name | PTX type | declared by | meaning |
//! |---|---|---|---|---|
//! | 0, 1 | `a`, `b` | `.u64` | mainloop | A's and B's global addresses (element (0,0) of batch 0) |
//! | 2, 3 | `c`, `d` | `.u64` | epilogue | C's (may equal `d`) and D's global addresses |
//! | 4..=7 | `m`, `n`, `k`, `l` | `.u32` | kernel | problem shape (M, N, K, batch count L) |
//! | 8..=11 | `lda`, `ldb`, `ldc`, `ldd` | `.u64` | mainloop, epilogue | leading dimensions, in elements |
//! | 12..=15 | `batch_a` .. `batch_d` | `.u64` | mainloop, epilogue | batch strides, in elements |
//! | 16, 17 | `alpha`, `beta` | `.f32` | epilogue | epilogue scalars |
//! | 18 | `raster_log` | `.u32` | tile scheduler | rasterization swizzle: tiles are walked in groups of `2^raster_log` |
//! | 19 | `raster_order` | `.u32` | tile scheduler | 0: walk along N (groups of M tiles), 1: along M ([`RasterOrder`](super::RasterOrder)) |
//! | 20 + i | `bias{i}` | `.u64` | epilogue | bias vector `i`'s global address (C's element type; length M for a row bias, N for a column bias; shared by every batch), one per [`Epilogue::biases`](crate::gemm::Epilogue::biases) |
//! | after the biases | `s{j}` | `.f32` | epilogue | extra scalar `j` (j = 2, 3, ...), one per [`Epilogue::extra_scalars`](crate::gemm::Epilogue::extra_scalars) |
//!
//! Grid: x = output tiles of one batch (`ceil(M/BM) * ceil(N/BN)`), y = L;
//! block: [`GemmSpec::block_threads`] threads in x; dynamic shared memory:
//! [`GemmSpec::shared_mem_bytes`] (the composed kernel's own figures are
//! the same: a test holds them equal).

use super::{KernelSchedule, TileSchedulerPolicy};
use crate::arch::ArchKind;
use crate::collective::VECTOR_BYTES;
use crate::collective::{EpiloguePolicy, EpilogueSpec, MainloopPolicy, MainloopSpec, TileContext};
use crate::gemm::{ClusterShape, GemmMajors, GemmTypes};
use crate::numeric::ElementType;

/// Every static fact of one GEMM kernel, layer by layer: what every part
/// shares (arch, element types, majors, CTA tile, cluster), then the spec of
/// each part: the mainloop's, the epilogue's, the tile scheduler's, and the
/// kernel schedule that composes them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GemmSpec {
    /// The architecture the PTX targets.
    pub arch: ArchKind,
    /// Element types of A, B, C, D and the accumulator.
    pub types: GemmTypes,
    /// Contiguous dimensions of A, B, C and D.
    pub majors: GemmMajors,
    /// CTA tile (BM, BN, BK).
    pub tile: [u32; 3],
    /// Thread-block cluster; [`ClusterShape::ONE`] for kernels without clusters.
    pub cluster: ClusterShape,
    /// The mainloop: its policy (with the stage count) and warp layout.
    pub mainloop: MainloopSpec,
    /// The epilogue: its policy and the fusion expression applied to the
    /// accumulators before the store (default: D = alpha * acc + beta * C).
    pub epilogue: EpilogueSpec,
    /// Which output tiles each block computes.
    pub scheduler: TileSchedulerPolicy,
    /// How a scheduler that splits K adds its partial tiles (read only by
    /// split-K and stream-K).
    pub reduction: super::Reduction,
    /// How the kernel runs its parts.
    pub schedule: KernelSchedule,
}

impl GemmSpec {
    /// The multistage kernel ([`KernelSchedule::Multistage`], data-parallel
    /// tile scheduler, no cluster) of the SM80 mainloop with `stages` stages
    /// over `warps`, and the SM80 epilogue with the default linear
    /// combination.
    ///
    /// ```
    /// use cutlet::arch::ArchKind;
    /// use cutlet::gemm::{GemmMajors, GemmTypes, OperandMajor, OutputMajor};
    /// use cutlet::kernel::gemm::GemmSpec;
    /// use cutlet::numeric::ElementType::{BF16, F32};
    ///
    /// let spec = GemmSpec::multistage(
    ///     ArchKind::Sm80,
    ///     GemmTypes::new(BF16, BF16, BF16, BF16, F32),
    ///     GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N),
    ///     [128, 128, 64],
    ///     [2, 2, 1],
    ///     3,
    /// );
    /// assert!(spec.validate().is_ok());
    /// assert_eq!(spec.block_threads(), 128);
    /// ```
    pub fn multistage(
        arch: ArchKind,
        types: GemmTypes,
        majors: GemmMajors,
        tile: [u32; 3],
        warps: [u32; 3],
        stages: u32,
    ) -> GemmSpec {
        GemmSpec {
            arch,
            types,
            majors,
            tile,
            cluster: ClusterShape::ONE,
            mainloop: MainloopSpec {
                policy: MainloopPolicy::Sm80CpAsync { stages },
                warps,
            },
            epilogue: EpilogueSpec::default(),
            scheduler: TileSchedulerPolicy::DataParallel,
            reduction: super::Reduction::Deterministic,
            schedule: KernelSchedule::Multistage,
        }
    }

    /// What the spec's collectives share: arch, types, majors, tile, warps.
    pub fn context(&self) -> TileContext {
        TileContext {
            arch: self.arch,
            types: self.types,
            majors: self.majors,
            tile: self.tile,
            warps: self.mainloop.warps,
        }
    }

    /// Sets the mainloop's stage count.
    pub fn set_stages(&mut self, stages: u32) {
        self.mainloop.policy = match self.mainloop.policy {
            MainloopPolicy::Sm80CpAsync { .. } => MainloopPolicy::Sm80CpAsync { stages },
            MainloopPolicy::Sm90TmaGmmaWarpSpecialized { .. } => {
                MainloopPolicy::Sm90TmaGmmaWarpSpecialized { stages }
            }
            MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8 {
                promotion_interval, ..
            } => MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8 {
                stages,
                promotion_interval,
            },
            MainloopPolicy::Sm70TwoStage => MainloopPolicy::Sm70TwoStage,
            MainloopPolicy::MmaSyncGemv { .. } => MainloopPolicy::MmaSyncGemv { unroll: stages },
            MainloopPolicy::MmaSyncGemvRing { .. } => {
                MainloopPolicy::MmaSyncGemvRing { unroll: stages }
            }
        };
    }

    /// The kernel's `.entry` name; it encodes every field that changes the
    /// PTX, so two specs share a name only if they generate the same kernel
    /// (profilers and `cuobjdump` show it).
    ///
    /// The parts the kernel schedule implies are left out: the SM80
    /// (or, on `Sm70`, the SM70) mainloop, the staged epilogue and the
    /// data-parallel tile scheduler for the multistage schedule; the SM90
    /// mainloop, the TMA-store epilogue and the persistent scheduler for a
    /// warp-specialized one. A part other than the implied one adds a
    /// suffix: `_ml_sm80`, `_ml_sm90`, `_ml_sm70` for the mainloop;
    /// `_epi_staged`, `_epi_nosmem` (the SM90 register-store epilogue),
    /// `_epi_tma` for the epilogue; `_dp`, `_persistent` for the tile
    /// scheduler.
    ///
    /// ```
    /// use cutlet::kernel::gemm::sm80_default_spec;
    /// use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
    /// use cutlet::numeric::ElementType::{BF16, F32};
    ///
    /// let spec = sm80_default_spec(BF16, BF16, BF16, F32, OperandMajor::K, OperandMajor::K, OutputMajor::N).unwrap();
    /// assert_eq!(spec.kernel_name(), "gemm_sm80_bf16_bf16_bf16_bf16_f32_k_k_n_n_128x256x64_w2x4x1_s3");
    /// ```
    ///
    /// A fused epilogue adds `_e` and its [`tag`](crate::gemm::Epilogue::tag).
    ///
    /// ```
    /// use cutlet::collective::EpiloguePolicy;
    /// use cutlet::device::gemm::{Config, DefaultBf16Sm90};
    ///
    /// let tma = DefaultBf16Sm90::spec();
    /// let direct = tma.clone().with_sm90_epilogue(EpiloguePolicy::Sm90NoSmem).unwrap();
    /// assert_eq!(tma.kernel_name(), "gemm_sm90_bf16_bf16_bf16_bf16_f32_k_k_n_n_128x256x64_w4x1x1_s4_cooperative_c2x1");
    /// assert_eq!(direct.kernel_name(), "gemm_sm90_bf16_bf16_bf16_bf16_f32_k_k_n_n_128x256x64_w4x1x1_s4_cooperative_c2x1_epi_nosmem");
    /// ```
    pub fn kernel_name(&self) -> String {
        let [bm, bn, bk] = self.tile;
        let [wm, wn, wk] = self.mainloop.warps;
        let (cc_major, cc_minor) = self.arch.compute_capability();
        let fused = if self.epilogue.fusion.is_linear_combination() {
            String::new()
        } else {
            format!("_e{}", self.epilogue.fusion.tag())
        };
        let schedule = if self.schedule.warp_specialized() {
            format!(
                "_{}_c{}x{}",
                self.schedule.name(),
                self.cluster.m,
                self.cluster.n
            )
        } else {
            String::new()
        };
        let parts = self.parts_suffix();
        format!(
            "gemm_sm{cc_major}{cc_minor}_{}_{}_{}_{}_{}_{}_{}_{}_{}_{bm}x{bn}x{bk}_w{wm}x{wn}x{wk}_s{}{schedule}{parts}{fused}",
            self.types.a,
            self.types.b,
            self.types.c,
            self.types.d,
            self.types.acc,
            self.majors.a.name(),
            self.majors.b.name(),
            self.majors.c.name(),
            self.majors.d.name(),
            self.mainloop.stages()
        )
    }

    /// The [`kernel_name`](Self::kernel_name) suffixes of the parts that
    /// differ from those the kernel schedule implies (empty for every
    /// default spec).
    fn parts_suffix(&self) -> String {
        let warp_specialized = self.schedule.warp_specialized();
        let mainloop = match self.mainloop.policy {
            MainloopPolicy::Sm90TmaGmmaWarpSpecialized { .. } if warp_specialized => "",
            MainloopPolicy::Sm80CpAsync { .. }
                if !warp_specialized && self.arch != ArchKind::Sm70 =>
            {
                ""
            }
            MainloopPolicy::Sm70TwoStage if !warp_specialized && self.arch == ArchKind::Sm70 => "",
            MainloopPolicy::Sm80CpAsync { .. } => "_ml_sm80",
            MainloopPolicy::Sm90TmaGmmaWarpSpecialized { .. } => "_ml_sm90",
            MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8 {
                promotion_interval, ..
            } => &format!("_promote{promotion_interval}"),
            MainloopPolicy::Sm70TwoStage => "_ml_sm70",
            MainloopPolicy::MmaSyncGemv { .. } => "_gemv",
            MainloopPolicy::MmaSyncGemvRing { .. } => "_gemv_ring",
        };
        let epilogue = match self.epilogue.policy {
            EpiloguePolicy::Sm90TmaWarpSpecialized if warp_specialized => "",
            EpiloguePolicy::Sm80Staged if !warp_specialized => "",
            EpiloguePolicy::Sm80Staged => "_epi_staged",
            EpiloguePolicy::Sm90NoSmem => "_epi_nosmem",
            EpiloguePolicy::Sm90TmaWarpSpecialized => "_epi_tma",
        };
        let scheduler = match self.scheduler {
            TileSchedulerPolicy::Persistent if warp_specialized => "",
            TileSchedulerPolicy::DataParallel if !warp_specialized => "",
            TileSchedulerPolicy::DataParallel => "_dp",
            TileSchedulerPolicy::Persistent => "_persistent",
            TileSchedulerPolicy::SplitK { splits } => {
                return format!(
                    "{mainloop}{epilogue}_splitk{splits}{}",
                    self.reduction_suffix()
                );
            }
            TileSchedulerPolicy::StreamK => {
                return format!("{mainloop}{epilogue}_streamk{}", self.reduction_suffix());
            }
        };
        format!("{mainloop}{epilogue}{scheduler}")
    }

    /// `_atomic` for a K-splitting spec with [`Reduction::Atomic`](super::Reduction::Atomic).
    fn reduction_suffix(&self) -> &'static str {
        match self.reduction {
            super::Reduction::Atomic => "_atomic",
            super::Reduction::Deterministic => "",
        }
    }

    /// Threads per block the launch must use: 32 per warp of
    /// [`mainloop.warps`](crate::collective::MainloopSpec::warps), or 384
    /// (a producer and two consumer warpgroups) for a warp-specialized
    /// schedule.
    pub fn block_threads(&self) -> u32 {
        self.facts().block_threads()
    }

    /// Bytes of one mainloop stage: the A tile and the B tile.
    pub fn stage_bytes(&self) -> u32 {
        self.facts().stage_bytes()
    }

    /// Bytes of the epilogue's staging tile (f32 accumulators of the whole
    /// CTA tile, rows padded against bank conflicts); it reuses the
    /// mainloop's shared memory.
    pub fn epilogue_bytes(&self) -> u32 {
        self.facts().epilogue_bytes()
    }

    /// Dynamic shared memory the launch must give: the larger of the
    /// mainloop's `stages` stages and the epilogue's staging tile.
    pub fn shared_mem_bytes(&self) -> u32 {
        self.facts().shared_mem_bytes()
    }

    /// Output tiles of one batch for an `m x n` output: `(tiles_m, tiles_n)`.
    pub fn tiles(&self, m: u32, n: u32) -> (u32, u32) {
        (m.div_ceil(self.tile[0]), n.div_ceil(self.tile[1]))
    }

    /// The launch grid for problem `m x n` with `l` batches:
    /// `(tiles_m * tiles_n, l, 1)`. The product of tiles saturates at
    /// `u32::MAX`; the host checks it against the driver's grid limit.
    pub fn grid(&self, m: u32, n: u32, l: u32) -> (u32, u32, u32) {
        let (tm, tn) = self.tiles(m, n);
        (tm.saturating_mul(tn), l, 1)
    }

    /// Elements a pointer and a leading dimension of A, B, C and D must be a
    /// multiple of: one 16-byte vector each (the kernel copies A and B with
    /// 16-byte `cp.async` and reads C / writes D in 16-byte vectors of D's
    /// element type).
    ///
    /// The SM90 kernels read A and B with TMA (16-byte rows, the same
    /// figure) and store C and D as column pairs: 2 elements.
    pub fn alignment(&self) -> [u32; 4] {
        let vec = |t: ElementType| VECTOR_BYTES / t.size_bytes();
        let out = if self.epilogue.policy == EpiloguePolicy::Sm90NoSmem {
            2
        } else {
            vec(self.types.d)
        };
        [vec(self.types.a), vec(self.types.b), out, out]
    }

    /// Batch-stride alignment equals [`alignment`](Self::alignment): each
    /// batch's base address must keep 16-byte alignment.
    pub fn batch_stride_alignment(&self) -> [u32; 4] {
        self.alignment()
    }
}
