//! The default configurations, named: what the collective builder picks for
//! each element-type combination with K-major A and B and row-major D.

use half::{bf16, f16};
use typenum::{U128, U2, U256, U3, U32, U4, U64};

use super::config::{GemmConfig, Majors, Tile, Types, Warps};
use super::tags::{KMajor, RowMajor};
use crate::arch::Sm80;
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
