//! The default SM80 GEMM configurations (what the collective builder picks
//! for each dtype combination and operand major) assemble for sm_80 with no
//! register spills.

mod common;

use common::ptxas::assemble;
use cutlet::collective::{sm80_default_spec, sm80_spec_for_problem};
use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
use cutlet::numeric::ElementType::{self, BF16, F16, F32};

/// (A = B type, D type, accumulator type) of every supported combination.
const TYPES: [(ElementType, ElementType, ElementType); 6] = [
    (F16, F16, F32),
    (F16, F32, F32),
    (BF16, BF16, F32),
    (BF16, F32, F32),
    (F16, F16, F16),
    (F32, F32, F32),
];

const MAJORS: [OperandMajor; 2] = [OperandMajor::K, OperandMajor::MN];

#[test]
fn default_configurations_assemble_for_sm80_without_spills() {
    let mut spilled = Vec::new();
    for (ab, d, acc) in TYPES {
        for a_major in MAJORS {
            for b_major in MAJORS {
                for d_major in [OutputMajor::N, OutputMajor::M] {
                    // Every combination has a default configuration.
                    let spec =
                        sm80_default_spec(ab, ab, d, acc, a_major, b_major, d_major).unwrap();
                    // The builder's tile for a 4095 x 4097 problem on 132 SMs
                    // (256x128 for 16-bit inputs) as well as the default.
                    let tall = sm80_spec_for_problem(
                        ab, ab, d, acc, a_major, b_major, d_major, 4095, 4097, 1, 132,
                    )
                    .unwrap();
                    let mut specs = vec![spec.clone()];
                    if tall != spec {
                        specs.push(tall);
                    }
                    for spec in specs {
                        let ptx = spec.ptx().unwrap();
                        let Some(report) = assemble(&ptx, "sm_80") else {
                            return;
                        };
                        let f = report.function(&spec.kernel_name());
                        eprintln!("{}: {f:?}", spec.kernel_name());
                        if (f.spill_stores, f.spill_loads) != (0, 0) {
                            spilled.push(format!("{f:?}"));
                        }
                    }
                }
            }
        }
    }
    assert!(
        spilled.is_empty(),
        "kernels that spill:\n{}",
        spilled.join("\n")
    );
}
