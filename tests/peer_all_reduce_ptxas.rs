//! Every peer all-reduce kernel (each element type, 2 to 8 ranks) assembles
//! for sm_70, sm_80 and sm_90 with no spills, and the spec refuses what the
//! kernel does not take.

mod common;

use common::ptxas::assemble;
use cutlet::arch::ArchKind;
use cutlet::kernel::peer_all_reduce::PeerAllReduceSpec;
use cutlet::numeric::ElementType;

#[test]
fn peer_all_reduce_kernels_assemble_without_spills() {
    for arch in [ArchKind::Sm70, ArchKind::Sm80, ArchKind::Sm90] {
        for element in PeerAllReduceSpec::SUPPORTED {
            for world in 2..=PeerAllReduceSpec::MAX_WORLD {
                let spec = PeerAllReduceSpec {
                    element,
                    world,
                    arch,
                };
                let ptx = spec.ptx().unwrap();
                let Some(report) = assemble(&ptx, arch.ptx_target()) else {
                    return;
                };
                let f = report.function(&spec.kernel_name());
                assert_eq!((f.spill_stores, f.spill_loads), (0, 0), "{spec:?}: {f:?}");
            }
        }
    }
}

#[test]
fn peer_all_reduce_spec_refuses_other_types_and_rank_counts() {
    let spec = |element, world| PeerAllReduceSpec {
        element,
        world,
        arch: ArchKind::Sm90,
    };
    let e = spec(ElementType::I32, 2).ptx().unwrap_err().to_string();
    assert!(e.contains("i32") && e.contains("f16, bf16, f32"), "{e}");
    for world in [0, 1, 9] {
        let e = spec(ElementType::BF16, world)
            .ptx()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("{world} ranks")) && e.contains("2 to 8"),
            "{e}"
        );
    }
}
