//! The SM70 (Volta) GEMM on the GPU: the SM80 sweep's test bed
//! (`common/gemm_bed.rs`: ragged shapes crossed sparsely, L in {1, 3},
//! alpha and beta not 0 or 1, C aliasing D on every other shape, the output
//! poisoned first, against the host f64 reference; large shapes against
//! cuBLAS) on the kernels `.arch(ArchKind::Sm70)` builds: f16 inputs, f32
//! or f16 accumulation, all four operand majors, D row- or column-major.
//! The sm_70 PTX runs on any GPU of compute capability 7.0 or newer
//! through the driver JIT; without a GPU each test skips with a reason.

mod common;

use common::gemm_bed::{spec_of, sweep};
use cutlet::arch::ArchKind;
use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
use cutlet::numeric::ElementType;
use half::f16;

/// One test per (types, majors): `name: (D storage, D type, acc, a major, b major, c major, large)`.
macro_rules! sm70_tests {
    ($($name:ident: ($d:ty, $d_type:ident, $acc:ident, $am:ident, $bm:ident, $cm:ident, $large:expr);)*) => {$(
        #[test]
        fn $name() {
            let spec = spec_of(
                Some(ArchKind::Sm70),
                ElementType::F16,
                ElementType::$d_type,
                ElementType::$acc,
                (OperandMajor::$am, OperandMajor::$bm, OutputMajor::$cm),
            );
            assert_eq!(spec.arch, ArchKind::Sm70);
            sweep::<f16, $d>(stringify!($name), spec, $large);
        }
    )*};
}

sm70_tests! {
    sm70_f16_f32acc_f16_tn_row: (f16, F16, F32, K, K, N, false);
    sm70_f16_f32acc_f16_tn_col: (f16, F16, F32, K, K, M, false);
    sm70_f16_f32acc_f16_nt_row: (f16, F16, F32, MN, MN, N, false);
    sm70_f16_f32acc_f16_nn_col: (f16, F16, F32, MN, K, M, false);
    sm70_f16_f32acc_f16_tt_row: (f16, F16, F32, K, MN, N, false);
    sm70_f16_f32acc_f32_nt_col: (f32, F32, F32, MN, MN, M, false);
    sm70_f16_f32acc_f32_tn_row: (f32, F32, F32, K, K, N, false);
    sm70_f16_f16acc_f16_tn_row: (f16, F16, F16, K, K, N, false);
    sm70_f16_f16acc_f16_nt_col: (f16, F16, F16, MN, MN, M, false);
    sm70_f16_f16acc_f16_nn_row: (f16, F16, F16, MN, K, N, false);
    sm70_f16_f16acc_f16_tt_col: (f16, F16, F16, K, MN, M, false);
    sm70_large_f16_tn_row_vs_cublas: (f16, F16, F32, K, K, N, true);
    sm70_large_f16_nt_col_vs_cublas: (f16, F16, F32, MN, MN, M, true);
}
