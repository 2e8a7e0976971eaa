//! The GEMM sweep on the GPU: every dtype combination and all majors over
//! ragged shapes (M, N, K in {1, 2, 7, 8, 13, 64, 127, 128, 129, 255, 1000},
//! crossed sparsely) with L in {1, 3}, alpha and beta not 0 or 1, C aliasing
//! D on every other shape, the output poisoned (NaN) first; small and medium
//! shapes against the host f64 reference, large ones against cuBLAS.
//!
//! # Tolerances
//! Inputs are random in [-1, 1) rounded to the input type, and the reference
//! reads the same rounded values, so inputs add no error, except tf32, whose
//! MMA rounds each f32 input to a 10-bit mantissa (2^-11 relative per
//! product). An element passes when
//! `|got - want| <= 2 eps_out |want| + 4 eps sqrt(K + 1) (|alpha| + |beta|)`,
//! where `eps_out` is the output type's unit roundoff (f16 2^-11, bf16 2^-8,
//! f32 2^-24) and `eps` the largest of `eps_out`, the tf32 input rounding
//! (2^-11) and, for f16 accumulation, 2^-11 · sqrt(K) (each of the K adds
//! rounds to f16; random signs make the errors grow as sqrt(K), and the
//! sums as sqrt(K) too) or, for f32 accumulation, 2^-24 · sqrt(K) (the
//! tensor cores' f32 adds do not round to nearest: they align the products
//! to the largest exponent and truncate, so the error grows with the
//! partial sums, like the f16 case; measured: 2.3e-5 at |D| = 16 for
//! 255 x 129 x 1000, where a 2^-24-only bound allowed 1.7e-5). Against
//! cuBLAS the bound is doubled (both sides round).

mod common;

use common::gemm_bed::{spec_of, sweep};
use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
use cutlet::numeric::ElementType;
use half::{bf16, f16};

/// One test per (types, majors): `name: (A storage, D storage, A type, D type, acc, a major, b major, c major)`.
macro_rules! sweep_tests {
    ($($name:ident: ($t:ty, $d:ty, $a_type:ident, $d_type:ident, $acc:ident, $am:ident, $bm:ident, $cm:ident, $large:expr);)*) => {$(
        #[test]
        fn $name() {
            let spec = spec_of(None, ElementType::$a_type, ElementType::$d_type, ElementType::$acc, (OperandMajor::$am, OperandMajor::$bm, OutputMajor::$cm));
            sweep::<$t, $d>(stringify!($name), spec, $large);
        }
    )*};
}

sweep_tests! {
    bf16_f32acc_bf16_tn_row: (bf16, bf16, BF16, BF16, F32, K, K, N, false);
    bf16_f32acc_bf16_tn_col: (bf16, bf16, BF16, BF16, F32, K, K, M, false);
    bf16_f32acc_bf16_nt_row: (bf16, bf16, BF16, BF16, F32, MN, MN, N, false);
    bf16_f32acc_bf16_nn_col: (bf16, bf16, BF16, BF16, F32, MN, K, M, false);
    bf16_f32acc_bf16_tt_row: (bf16, bf16, BF16, BF16, F32, K, MN, N, false);
    bf16_f32acc_f32_nt_col: (bf16, f32, BF16, F32, F32, MN, MN, M, false);
    bf16_f32acc_f16_tn_row: (bf16, f16, BF16, F16, F32, K, K, N, false);
    f16_f32acc_f16_tn_row: (f16, f16, F16, F16, F32, K, K, N, false);
    f16_f32acc_f16_nt_row: (f16, f16, F16, F16, F32, MN, MN, N, false);
    f16_f32acc_f16_nn_col: (f16, f16, F16, F16, F32, MN, K, M, false);
    f16_f32acc_f16_tt_col: (f16, f16, F16, F16, F32, K, MN, M, false);
    f16_f32acc_f32_tn_col: (f16, f32, F16, F32, F32, K, K, M, false);
    f16_f32acc_bf16_tt_row: (f16, bf16, F16, BF16, F32, K, MN, N, false);
    f16_f16acc_f16_tn_row: (f16, f16, F16, F16, F16, K, K, N, false);
    f16_f16acc_f16_nt_col: (f16, f16, F16, F16, F16, MN, MN, M, false);
    tf32_f32acc_f32_tn_row: (f32, f32, TF32, F32, F32, K, K, N, false);
    tf32_f32acc_f32_tn_col: (f32, f32, TF32, F32, F32, K, K, M, false);
    tf32_f32acc_bf16_tn_row: (f32, bf16, TF32, BF16, F32, K, K, N, false);
    tf32_f32acc_f32_nt_row: (f32, f32, TF32, F32, F32, MN, MN, N, false);
    tf32_f32acc_f32_nn_col: (f32, f32, TF32, F32, F32, MN, K, M, false);
    tf32_f32acc_f16_tt_row: (f32, f16, TF32, F16, F32, K, MN, N, false);
    large_bf16_tn_row_vs_cublas: (bf16, bf16, BF16, BF16, F32, K, K, N, true);
    large_f16_nt_col_vs_cublas: (f16, f16, F16, F16, F32, MN, MN, M, true);
    large_tf32_tn_row_vs_cublas: (f32, f32, TF32, F32, F32, K, K, N, true);
    large_tf32_nt_col_vs_cublas: (f32, f32, TF32, F32, F32, MN, MN, M, true);
}
