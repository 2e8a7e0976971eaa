//! The byte transpose that copies an MN-major 8-bit GEMM operand K-major
//! assembles for every architecture with no spills.

mod common;

use common::ptxas::assemble;
use cutlet::arch::ArchKind;
use cutlet::kernel::transpose::TransposeSpec;

#[test]
fn the_byte_transpose_assembles_without_spills() {
    for arch in ArchKind::ALL {
        let spec = TransposeSpec { arch };
        let ptx = spec.ptx().unwrap();
        let Some(report) = assemble(&ptx, arch.ptx_target()) else {
            return;
        };
        let f = report.function(&spec.kernel_name());
        assert_eq!((f.spill_stores, f.spill_loads), (0, 0), "{arch:?}: {f:?}");
    }
}
