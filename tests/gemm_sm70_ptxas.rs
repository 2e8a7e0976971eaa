//! The default SM70 GEMM configurations (f16 inputs, f32 or f16
//! accumulators, every operand major, D row- or column-major) assemble for
//! sm_70 with no register spills.

mod common;

use common::ptxas::assert_none_spills;
use cutlet::kernel::gemm::sm70_default_specs;

#[test]
fn default_configurations_assemble_for_sm70_without_spills() {
    let specs = sm70_default_specs();
    assert_eq!(specs.len(), 24);
    for spec in &specs {
        let ptx = spec.ptx().unwrap();
        assert!(ptx.contains(".target sm_70"), "{}", spec.kernel_name());
    }
    assert_none_spills(specs, "sm_70");
}
