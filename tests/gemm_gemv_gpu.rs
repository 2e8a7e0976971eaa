//! The GEMV kernel ([`GemmSpec::gemv`]) on the GPU, run as a spec of its
//! own over the GEMM sweep's ragged shapes (`tests/common/gemm_bed.rs`: M,
//! N, K in {1, 2, 7, 8, 13, 64, 127, ...}, so M past one tile too, K not a
//! multiple of the k-step nor of 8, L in {1, 3}, alpha and beta not 0 or 1,
//! C aliasing D on every other shape, the output poisoned first) against
//! the host f64 reference, with the tolerances of `tests/gemm_gpu.rs`.

mod common;

use common::gemm_bed::sweep;
use cutlet::gemm::{GemmMajors, GemmTypes};
use cutlet::kernel::gemm::{GemmSpec, OperandMajor, OutputMajor};
use cutlet::numeric::ElementType::{self, BF16, F16, F32, TF32};
use half::{bf16, f16};

fn gemv(
    ab: ElementType,
    d: ElementType,
    d_major: OutputMajor,
    tile: [u32; 2],
    warps: u32,
    unroll: u32,
) -> GemmSpec {
    let k = OperandMajor::K;
    let spec = GemmSpec::gemv(
        GemmTypes::new(ab, ab, d, d, F32),
        GemmMajors::new(k, k, d_major),
        tile,
        warps,
        unroll,
    );
    spec.validate().unwrap();
    spec
}

#[test]
fn bf16_rows_of_8_store_bf16_row_major() {
    sweep::<bf16, bf16>(
        "bf16_rows_of_8_store_bf16_row_major",
        gemv(BF16, BF16, OutputMajor::N, [8, 16], 8, 4),
        false,
    );
}

#[test]
fn bf16_rows_of_16_store_f32_column_major() {
    sweep::<bf16, f32>(
        "bf16_rows_of_16_store_f32_column_major",
        gemv(BF16, F32, OutputMajor::M, [16, 16], 8, 4),
        false,
    );
}

#[test]
fn f16_wide_tiles_on_three_warps_store_f16() {
    sweep::<f16, f16>(
        "f16_wide_tiles_on_three_warps_store_f16",
        gemv(F16, F16, OutputMajor::N, [16, 40], 3, 2),
        false,
    );
}

#[test]
fn tf32_rows_of_8_store_f32() {
    sweep::<f32, f32>(
        "tf32_rows_of_8_store_f32",
        gemv(TF32, F32, OutputMajor::N, [8, 8], 8, 4),
        false,
    );
}
