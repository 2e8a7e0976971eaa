//! The default configurations, named: what the collective builder picks for
//! each element-type combination with K-major A and B and row-major D.

use half::{bf16, f16};
use typenum::{U1, U128, U2, U256, U3, U32, U4, U64};

use super::config::{Cluster, GemmConfig, Majors, Tile, Types, Warps};
use super::tags::{KMajor, RowMajor};
use crate::arch::{Sm80, Sm90};
use crate::collective::{EpilogueTmaWarpSpecialized, MainloopSm90TmaGmmaWarpSpecialized};
use crate::kernel::gemm::{KernelTmaWarpSpecializedCooperative, PersistentScheduler};
use crate::numeric::Tf32;

/// bf16 × bf16 → bf16, f32 accumulation, 128 × 256 × 64 tile, 2 × 4 warps, 3 stages (TN).
pub type DefaultBf16Sm80 = GemmConfig<
    Types<bf16, bf16, bf16, bf16, f32>,
    Majors<KMajor, KMajor, RowMajor>,
    Tile<U128, U256, U64>,
    Warps<U2, U4>,
    U3,
    Sm80,
>;

/// f16 × f16 → f16, f32 accumulation, 128 × 256 × 64 tile, 2 × 4 warps, 3 stages (TN).
pub type DefaultF16Sm80 = GemmConfig<
    Types<f16, f16, f16, f16, f32>,
    Majors<KMajor, KMajor, RowMajor>,
    Tile<U128, U256, U64>,
    Warps<U2, U4>,
    U3,
    Sm80,
>;

/// f16 × f16 → f16, f16 accumulation, 128 × 256 × 64 tile, 2 × 4 warps, 3 stages (TN).
pub type DefaultF16AccF16Sm80 = GemmConfig<
    Types<f16, f16, f16, f16, f16>,
    Majors<KMajor, KMajor, RowMajor>,
    Tile<U128, U256, U64>,
    Warps<U2, U4>,
    U3,
    Sm80,
>;

/// tf32 (f32 data) → f32, f32 accumulation, 128 × 128 × 32 tile, 2 × 4 warps, 4 stages (TN).
pub type DefaultTf32Sm80 = GemmConfig<
    Types<Tf32, Tf32, f32, f32, f32>,
    Majors<KMajor, KMajor, RowMajor>,
    Tile<U128, U128, U32>,
    Warps<U2, U4>,
    U4,
    Sm80,
>;

/// The SM90 default for bf16 × bf16 → bf16, f32 accumulation (TN): the
/// cooperative warp-specialized kernel, 128 × 256 × 64 tile (two consumer
/// warpgroups of 64 rows; `Warps<U4, U1>` names a warpgroup's 4 warps),
/// 4 TMA stages, the persistent scheduler, a 2 × 1 cluster and the
/// TMA-store epilogue; what `sm90_default_spec` builds.
///
/// ```
/// use cutlet::device::gemm::{Config, DefaultBf16Sm90};
/// use cutlet::kernel::gemm::{sm90_default_spec, OperandMajor, OutputMajor};
/// use cutlet::numeric::ElementType::{BF16, F32};
///
/// let built = sm90_default_spec(BF16, BF16, BF16, F32, OperandMajor::K, OperandMajor::K, OutputMajor::N).unwrap();
/// assert_eq!(DefaultBf16Sm90::spec(), built);
/// ```
pub type DefaultBf16Sm90 = GemmConfig<
    Types<bf16, bf16, bf16, bf16, f32>,
    Majors<KMajor, KMajor, RowMajor>,
    Tile<U128, U256, U64>,
    Warps<U4, U1>,
    MainloopSm90TmaGmmaWarpSpecialized<U4>,
    Sm90,
    KernelTmaWarpSpecializedCooperative,
    PersistentScheduler,
    EpilogueTmaWarpSpecialized,
    Cluster<U2, U1>,
>;

/// The SM90 default for f16 × f16 → f16, f32 accumulation (TN), as
/// [`DefaultBf16Sm90`].
pub type DefaultF16Sm90 = GemmConfig<
    Types<f16, f16, f16, f16, f32>,
    Majors<KMajor, KMajor, RowMajor>,
    Tile<U128, U256, U64>,
    Warps<U4, U1>,
    MainloopSm90TmaGmmaWarpSpecialized<U4>,
    Sm90,
    KernelTmaWarpSpecializedCooperative,
    PersistentScheduler,
    EpilogueTmaWarpSpecialized,
    Cluster<U2, U1>,
>;
