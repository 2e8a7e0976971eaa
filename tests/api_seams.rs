//! Host-side behaviour a program written from the README and the rustdoc
//! relies on (issue 26): conflicting builder requests are refused naming
//! both, SM90 warps mean one warpgroup, kernel names tell kernels apart,
//! f32 inputs build the tf32 kernel. No GPU needed.

use std::collections::HashMap;

use cutlet::arch::ArchKind;
use cutlet::collective::EpiloguePolicy;
use cutlet::device::gemm::{Config, DefaultBf16Sm90, Gemm};
use cutlet::kernel::gemm::{sm90_default_specs, KernelSchedule, OperandMajor, OutputMajor};
use cutlet::numeric::ElementType;
use cutlet::ErrorKind;

/// A warp-specialized schedule beside an explicit arch other than Sm90 is
/// an InvalidConfiguration naming both (it used to build an SM90 kernel).
#[test]
fn a_warp_specialized_schedule_on_another_arch_is_refused_naming_both() {
    for (arch, schedule) in [
        (ArchKind::Sm80, KernelSchedule::TmaWarpSpecializedPingpong),
        (
            ArchKind::Sm80,
            KernelSchedule::TmaWarpSpecializedCooperative,
        ),
        (
            ArchKind::Sm70,
            KernelSchedule::TmaWarpSpecializedCooperative,
        ),
    ] {
        let builder = Gemm::builder().arch(arch).schedule(schedule);
        let builder = if arch == ArchKind::Sm70 {
            builder.a(ElementType::F16, OperandMajor::K)
        } else {
            builder
        };
        let err = builder.spec().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidConfiguration, "{err}");
        let text = err.to_string();
        assert!(
            text.contains(&format!("{schedule:?}")) && text.contains(&format!("arch {arch:?}")),
            "{text}"
        );
    }
    // The schedule alone, or with arch Sm90, still builds the SM90 kernel;
    // Multistage on Sm90 is the SM80 kernel for sm_90a.
    let alone = Gemm::builder()
        .schedule(KernelSchedule::TmaWarpSpecializedPingpong)
        .spec()
        .unwrap();
    assert_eq!(alone.arch, ArchKind::Sm90);
    let multistage = Gemm::builder()
        .arch(ArchKind::Sm90)
        .schedule(KernelSchedule::Multistage)
        .spec()
        .unwrap();
    assert_eq!(
        (multistage.arch, multistage.schedule),
        (ArchKind::Sm90, KernelSchedule::Multistage)
    );
}

/// SM90 warps are one consumer warpgroup's four (4x1); any other warp
/// layout on an SM90 spec is refused with the rule.
#[test]
fn sm90_warps_are_one_warpgroup() {
    let spec = DefaultBf16Sm90::spec();
    assert_eq!(spec.mainloop.warps, [4, 1, 1]);
    assert!(spec.validate().is_ok());
    let mut bad = spec.clone();
    bad.mainloop.warps = [2, 2, 1];
    let err = bad.validate().unwrap_err().to_string();
    assert!(
        err.contains("warps 2x2x1") && err.contains("expected 4x1x1"),
        "{err}"
    );
    // The builder refuses warps for SM90 outright.
    let refused = Gemm::builder()
        .arch(ArchKind::Sm90)
        .warps([4, 1])
        .spec()
        .unwrap_err();
    assert!(refused.to_string().contains("warps"), "{refused}");
}

/// The cluster-share rule is stated with its boxes: 256x64 with an
/// N-major bf16 B cannot take a 2x1 cluster, and 1x1 runs it.
#[test]
fn the_cluster_share_rule_names_its_boxes() {
    let builder = Gemm::builder()
        .arch(ArchKind::Sm90)
        .b(ElementType::BF16, OperandMajor::MN)
        .tile([256, 64, 64]);
    let err = builder
        .clone()
        .cluster([2, 1])
        .spec()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("256x64") && err.contains("128-byte boxes") && err.contains("2x1"),
        "{err}"
    );
    assert!(builder.cluster([1, 1]).spec().is_ok());
}

/// Every field that changes the PTX is in the kernel name: the register-
/// store form of each SM90 default differs from its TMA-store form, and
/// no two distinct specs among the defaults and their forms share a name.
#[test]
fn kernel_names_tell_every_default_kernel_apart() {
    let mut names: HashMap<String, cutlet::kernel::gemm::GemmSpec> = HashMap::new();
    for spec in sm90_default_specs() {
        let direct = spec
            .clone()
            .with_sm90_epilogue(EpiloguePolicy::Sm90NoSmem)
            .unwrap();
        assert!(
            direct.kernel_name().ends_with("_epi_nosmem"),
            "{}",
            direct.kernel_name()
        );
        for s in [spec, direct] {
            if let Some(other) = names.insert(s.kernel_name(), s.clone()) {
                assert_eq!(other, s, "two specs named {}", s.kernel_name());
            }
        }
    }
    // The SM80 default keeps its name (the PTX golden holds it).
    let sm80 = Gemm::builder().spec().unwrap();
    assert_eq!(
        sm80.kernel_name(),
        "gemm_sm80_bf16_bf16_bf16_bf16_f32_k_k_n_n_128x256x64_w2x4x1_s3"
    );
}

/// f32 inputs build the tf32 tensor-core kernel (they multiply as tf32),
/// on SM80 and SM90 alike.
#[test]
fn f32_inputs_build_the_tf32_kernel() {
    for arch in [ArchKind::Sm80, ArchKind::Sm90] {
        let spec = Gemm::builder()
            .arch(arch)
            .a(ElementType::F32, OperandMajor::K)
            .b(ElementType::F32, OperandMajor::K)
            .d(ElementType::F32, OutputMajor::N)
            .spec()
            .unwrap();
        let ptx = spec.ptx().unwrap();
        let tf32_mma = match arch {
            ArchKind::Sm90 => ".f32.tf32.tf32",
            _ => ".f32.tf32.tf32.f32",
        };
        assert!(
            ptx.contains(tf32_mma),
            "{arch:?}: no tf32 mma in {}",
            spec.kernel_name()
        );
    }
}
