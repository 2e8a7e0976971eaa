//! The default SM90 GEMM configurations (cooperative 128x256 in a 2x1
//! cluster, ping-pong 128x128 with and without a cluster, for every type
//! combination and major) assemble for sm_90a with no register spills, and
//! the assembler warns of nothing (no wgmma serialized), including where an
//! M-major tf32 A passes through registers (the `_RS` wgmma).

mod common;

use common::ptxas::assemble;
use cutlet::kernel::gemm::{sm90_default_specs, OperandMajor};

#[test]
fn default_sm90_configurations_assemble_without_spills() {
    let specs = sm90_default_specs();
    assert_eq!(specs.len(), 132);
    let mut bad = Vec::new();
    let mut rs = 0;
    for spec in specs {
        let kernel = spec.kernel().unwrap();
        assert_eq!(kernel.shared_storage().bytes, spec.shared_mem_bytes());
        assert_eq!(kernel.block_threads(), spec.block_threads());
        assert!(spec.shared_mem_bytes() <= 232448, "{}", spec.kernel_name());
        let ptx = spec.ptx().unwrap();
        assert!(ptx.contains("wgmma.mma_async.sync.aligned.m64n"));
        assert!(ptx.contains("setmaxnreg.inc.sync.aligned.u32 232"));
        assert!(ptx.contains("cp.async.bulk.tensor.3d.shared::cluster.global"));
        assert!(ptx.contains("cp.async.bulk.tensor.3d.global.shared::cta"));
        let Some(report) = assemble(&ptx, "sm_90a") else {
            return;
        };
        let f = report.function(&spec.kernel_name());
        eprintln!("{}: {f:?}", spec.kernel_name());
        if (f.spill_stores, f.spill_loads) != (0, 0) {
            bad.push(format!("{f:?}"));
        }
        if !report.warnings.is_empty() {
            bad.push(format!("{}: {:?}", spec.kernel_name(), report.warnings));
        }
        // tf32 with an M-major A: A loaded from the stage into registers,
        // the `_RS` wgmma reading it (`{acc}, {a regs}, desc_b`).
        if spec.types.a.size_bytes() == 4 && spec.majors.a == OperandMajor::MN {
            rs += 1;
            assert!(ptx.contains("ld.shared.b32"), "{}", spec.kernel_name());
            assert!(
                ptx.contains(".tf32.tf32 {") && ptx.contains("}, {%r"),
                "{}",
                spec.kernel_name()
            );
        }
    }
    assert!(
        bad.is_empty(),
        "kernels that spill or warn:\n{}",
        bad.join("\n")
    );
    assert_eq!(
        rs, 6,
        "the six tf32 kernels with an M-major A read it from registers"
    );
}

#[test]
fn dump_matching() {
    if let Ok(dir) = std::env::var("CUTLET_DUMP_SM90") {
        let filter = std::env::var("CUTLET_DUMP_FILTER").unwrap_or_default();
        for spec in sm90_default_specs() {
            if spec.kernel_name().contains(&filter) {
                std::fs::write(
                    format!("{dir}/{}.ptx", spec.kernel_name()),
                    spec.ptx().unwrap(),
                )
                .unwrap();
            }
        }
    }
}
