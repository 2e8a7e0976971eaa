//! The GEMV kernels the SM90 pick takes for a few rows (and a spread of
//! tiles, warps, unrolls, types and D majors) assemble for sm_90a with no
//! register spills.

mod common;

use common::ptxas::assert_none_spills;
use cutlet::gemm::{GemmMajors, GemmTypes};
use cutlet::kernel::gemm::{GemmSpec, OperandMajor, OutputMajor};
use cutlet::numeric::ElementType::{self, BF16, F16, F32, TF32};

#[test]
fn gemv_kernels_assemble_without_spills() {
    let k = OperandMajor::K;
    let cases: [(ElementType, ElementType, OutputMajor, [u32; 2], u32, u32); 10] = [
        (BF16, BF16, OutputMajor::N, [8, 16], 8, 4),
        (BF16, BF16, OutputMajor::N, [8, 8], 16, 4),
        (F16, F16, OutputMajor::N, [16, 8], 16, 4),
        (BF16, BF16, OutputMajor::N, [16, 16], 8, 4),
        (BF16, BF16, OutputMajor::N, [8, 8], 8, 4),
        (BF16, BF16, OutputMajor::N, [8, 32], 4, 4),
        (F16, F32, OutputMajor::M, [8, 16], 8, 4),
        (F16, F16, OutputMajor::N, [16, 64], 8, 2),
        (TF32, F32, OutputMajor::N, [8, 16], 8, 4),
        (BF16, BF16, OutputMajor::M, [16, 16], 1, 8),
    ];
    let specs = cases.map(|(ab, d, d_major, tile, warps, unroll)| {
        let types = GemmTypes::new(ab, ab, d, d, F32);
        let spec = GemmSpec::gemv(types, GemmMajors::new(k, k, d_major), tile, warps, unroll);
        spec.validate().unwrap();
        spec
    });
    assert_layout_matches_rules(&specs);
    assert_none_spills(specs, "sm_90a");
}

/// The ring form (`GemmSpec::gemv_ring`): the pick's 8 rows x 16 columns
/// with 8 k-steps in flight, and a spread of tiles, unrolls and types.
#[test]
fn gemv_ring_kernels_assemble_without_spills() {
    let k = OperandMajor::K;
    let cases: [(ElementType, ElementType, OutputMajor, [u32; 2], u32, u32); 5] = [
        (BF16, BF16, OutputMajor::N, [8, 16], 8, 8),
        (F16, F16, OutputMajor::M, [16, 16], 8, 4),
        (BF16, F32, OutputMajor::N, [8, 64], 4, 8),
        (TF32, F32, OutputMajor::N, [8, 16], 8, 8),
        (BF16, BF16, OutputMajor::N, [16, 8], 16, 1),
    ];
    let specs = cases.map(|(ab, d, d_major, tile, warps, unroll)| {
        let types = GemmTypes::new(ab, ab, d, d, F32);
        let majors = GemmMajors::new(k, k, d_major);
        let spec = GemmSpec::gemv_ring(types, majors, tile, warps, unroll);
        spec.validate().unwrap();
        spec
    });
    assert_layout_matches_rules(&specs);
    assert_none_spills(specs, "sm_90a");
}

/// The shared memory the kernel lays out (partial tiles, staging tile,
/// rings) is the figure the rules check and the launch gives
/// (`GemmSpec::shared_mem_bytes`), and its threads are the spec's.
fn assert_layout_matches_rules(specs: &[GemmSpec]) {
    for spec in specs {
        let name = spec.kernel_name();
        let kernel = spec.kernel().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            kernel.shared_storage().bytes,
            spec.shared_mem_bytes(),
            "{name}"
        );
        assert_eq!(kernel.block_threads(), spec.block_threads(), "{name}");
    }
}
