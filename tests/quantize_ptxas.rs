//! Every quantize kernel (each input, output and scale granularity, and
//! the conversion by a given tensor scale)
//! assembles for its architecture with no spills.

mod common;

use common::ptxas::assemble;
use cutlet::arch::ArchKind;
use cutlet::kernel::quantize::{QuantizeScale, QuantizeSpec, QuantizeStage};
use cutlet::numeric::ElementType;

#[test]
fn quantize_kernels_assemble_without_spills() {
    for input in QuantizeSpec::INPUTS {
        for output in QuantizeSpec::OUTPUTS {
            for scale in [
                QuantizeScale::Row,
                QuantizeScale::Tensor,
                QuantizeScale::Block1x128,
                QuantizeScale::Block128x128,
            ] {
                let arch = if output == ElementType::I8 {
                    ArchKind::Sm80
                } else {
                    ArchKind::Sm90
                };
                let spec = QuantizeSpec::new(input, output, scale, arch).unwrap();
                // A tensor's scale may also be given (one pass).
                let given = [QuantizeStage::Scaled];
                let given: &[QuantizeStage] = match scale {
                    QuantizeScale::Tensor => &given,
                    _ => &[],
                };
                for &stage in spec.stages().iter().chain(given) {
                    let name = spec.kernel_name(stage);
                    let ptx = spec.ptx(stage).unwrap();
                    let Some(report) = assemble(&ptx, arch.ptx_target()) else {
                        return;
                    };
                    let f = report.function(&name);
                    assert_eq!((f.spill_stores, f.spill_loads), (0, 0), "{name}: {f:?}");
                }
            }
        }
    }
}
