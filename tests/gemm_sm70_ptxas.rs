//! The default SM70 GEMM configurations (f16 inputs, f32 or f16
//! accumulators, every operand major, D row- or column-major) assemble for
//! sm_70 with no register spills.

mod common;

use common::ptxas::spills_of;
use cutlet::kernel::gemm::sm70_default_specs;

#[test]
fn default_configurations_assemble_for_sm70_without_spills() {
    let mut spilled = Vec::new();
    let specs = sm70_default_specs();
    assert_eq!(specs.len(), 24);
    for spec in specs {
        let ptx = spec.ptx().unwrap();
        assert!(ptx.contains(".target sm_70"), "{}", spec.kernel_name());
        let Some(spill) = spills_of(&spec, "sm_70") else {
            return;
        };
        spilled.extend(spill);
    }
    assert!(
        spilled.is_empty(),
        "kernels that spill:\n{}",
        spilled.join("\n")
    );
}
