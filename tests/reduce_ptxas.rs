//! Every reduction kernel the GPU tests launch assembles with ptxas for
//! sm_70, sm_80 and sm_90a, without spills. The kernels are found the way
//! the device layer finds them: by planning each GPU test case.

mod common;
mod reduce;

use common::ptxas::assemble;
use cutlet::arch::ArchKind;
use reduce::planned_specs as specs;

#[test]
fn every_tested_reduction_kernel_assembles_without_spills() {
    for arch in ArchKind::ALL {
        let specs = specs(arch);
        assert!(
            specs.len() > 20,
            "{arch}: only {} kernels planned",
            specs.len()
        );
        for spec in specs {
            let name = spec.kernel_name();
            let ptx = spec.ptx().unwrap_or_else(|e| panic!("{name}: {e}"));
            let Some(report) = assemble(&ptx, arch.ptx_target()) else {
                return;
            };
            let f = report.function(&name);
            assert_eq!(
                (f.spill_stores, f.spill_loads),
                (0, 0),
                "{name} on {arch} spills: {f:?}"
            );
        }
    }
}
