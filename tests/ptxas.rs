//! Assembles generated kernels with ptxas for their targets and checks the
//! report: every kernel assembles, none spills.

mod common;

use common::ptxas::{assemble, PtxasReport};
use cutlet::arch::ArchKind;
use cutlet::kernel::vector_add::VectorAddSpec;

fn assert_no_spills(report: &PtxasReport, name: &str) {
    let f = report.function(name);
    eprintln!("{name}: {f:?}");
    assert_eq!(
        (f.spill_stores, f.spill_loads),
        (0, 0),
        "{name} spills: {f:?}"
    );
}

#[test]
fn vector_add_assembles_for_every_arch_and_type() {
    for arch in ArchKind::ALL {
        for element in VectorAddSpec::SUPPORTED {
            let spec = VectorAddSpec { element, arch };
            let ptx = spec.ptx().unwrap();
            let Some(report) = assemble(&ptx, arch.ptx_target()) else {
                return;
            };
            assert_no_spills(&report, &spec.kernel_name());
        }
    }
}
