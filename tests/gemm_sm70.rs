//! The SM70 kernel on the host: every shared-memory access of every
//! default configuration's mainloop is free of bank conflicts, the kernel
//! is `mma.sync.m8n8k4` with no sm_80 instruction, and the rules name what
//! sm_70 cannot run.

use cutlet::collective::{MainloopPolicy, Sm70MmaPipelined};
use cutlet::kernel::gemm::{sm70_default_spec, sm70_default_specs, OperandMajor, OutputMajor};
use cutlet::numeric::ElementType::{BF16, F16, F32};
use cutlet::tiled::Operand;

#[test]
fn every_shared_access_of_the_defaults_is_free_of_bank_conflicts() {
    for spec in sm70_default_specs() {
        let mainloop = Sm70MmaPipelined::new(&spec.context(), &spec.mainloop).unwrap();
        let warps: u32 = spec.mainloop.warps.iter().product();
        for op in [Operand::A, Operand::B] {
            for warp in 0..i64::from(warps) {
                let accesses = mainloop.shared_accesses(op, warp).unwrap();
                assert!(!accesses.is_empty());
                for (i, access) in accesses.iter().enumerate() {
                    assert_eq!(
                        access.conflicts(),
                        0,
                        "{} {op:?} warp {warp} access {i} ({} bytes): {:?}",
                        spec.kernel_name(),
                        access.bytes,
                        access.lanes
                    );
                }
            }
        }
    }
}

#[test]
fn the_kernel_is_m8n8k4_without_sm80_instructions() {
    for spec in sm70_default_specs() {
        let ptx = spec.ptx().unwrap();
        assert!(ptx.contains(".target sm_70"));
        assert!(
            ptx.contains("mma.sync.aligned.m8n8k4"),
            "{}",
            spec.kernel_name()
        );
        for sm80 in ["cp.async", "ldmatrix", "cvt.rn.f16x2", "m16n8k16"] {
            assert!(!ptx.contains(sm80), "{}: {sm80}", spec.kernel_name());
        }
    }
}

#[test]
fn the_rules_name_what_sm70_cannot_run() {
    let err = |r: cutlet::Result<cutlet::kernel::gemm::GemmSpec>| r.unwrap_err().to_string();
    let e = err(sm70_default_spec(
        BF16,
        BF16,
        F32,
        F32,
        OperandMajor::K,
        OperandMajor::K,
        OutputMajor::N,
    ));
    assert!(e.contains("bf16") && e.contains("f16/f16/f32"), "{e}");
    let e = err(sm70_default_spec(
        F16,
        F16,
        BF16,
        F32,
        OperandMajor::K,
        OperandMajor::K,
        OutputMajor::N,
    ));
    assert!(e.contains("D of bf16"), "{e}");
    let mut spec = sm70_default_spec(
        F16,
        F16,
        F16,
        F32,
        OperandMajor::K,
        OperandMajor::K,
        OutputMajor::N,
    )
    .unwrap();
    spec.tile = [96, 128, 32];
    let e = spec.validate().unwrap_err().to_string();
    assert!(e.contains("TileM 96") && e.contains("64"), "{e}");
    spec.tile = [128, 128, 32];
    spec.mainloop.policy = MainloopPolicy::Sm80CpAsync { stages: 3 };
    let e = spec.validate().unwrap_err().to_string();
    assert!(
        e.contains("sm_70") && e.contains("MainloopSm70TwoStage"),
        "{e}"
    );
    spec.mainloop.policy = MainloopPolicy::Sm70TwoStage;
    spec.arch = cutlet::arch::ArchKind::Sm80;
    let e = spec.validate().unwrap_err().to_string();
    assert!(e.contains("sm_80") && e.contains("Sm70"), "{e}");
}

#[test]
fn the_epilogue_reads_the_quad_pair_accumulators() {
    // The C partition the epilogue stages through covers the tile once.
    for spec in sm70_default_specs().into_iter().take(3) {
        let epilogue = cutlet::collective::EpilogueSm80::new(&spec.context(), &spec.epilogue);
        let p = epilogue.acc_partition().unwrap();
        let [bm, bn, _] = spec.tile;
        let mut seen = std::collections::HashSet::new();
        for t in 0..p.threads() {
            for v in 0..p.values() as usize {
                assert!(seen.insert(p.offset(t, v)));
            }
        }
        assert_eq!(seen.len() as u32, bm * bn);
    }
}
