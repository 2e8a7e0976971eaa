//! The rules of FP8 outputs, D's output scale and amax, and MN-major 8-bit
//! operands, read without a GPU: which epilogue and kernel take them, what
//! is refused with which sentence, and that they change the kernel's name
//! and parameters.

use cutlet::collective::EpiloguePolicy;
use cutlet::device::gemm::Gemm;
use cutlet::gemm::{GemmMajors, GemmTypes, OperandMajor, OutputMajor, ParamRole};
use cutlet::kernel::gemm::{
    sm90_pick_for_problem, sm90_spec, Epilogue, KernelSchedule, OutputQuantization,
};
use cutlet::numeric::ElementType::{BF16, F32, F8E4M3, F8E5M2, I32, I8};

fn k_major(d: OutputMajor) -> GemmMajors {
    GemmMajors::new(OperandMajor::K, OperandMajor::K, d)
}

#[test]
fn an_fp8_d_is_stored_from_registers() {
    let types = GemmTypes::new(F8E4M3, F8E4M3, F8E4M3, F8E4M3, F32);
    let spec = sm90_spec(
        types,
        k_major(OutputMajor::N),
        KernelSchedule::TmaWarpSpecializedCooperative,
        [128, 128, 128],
        [1, 1],
    )
    .unwrap();
    assert_eq!(spec.epilogue.policy, EpiloguePolicy::Sm90NoSmem);
    let err = spec
        .with_sm90_epilogue(EpiloguePolicy::Sm90TmaWarpSpecialized)
        .unwrap_err();
    assert!(err.to_string().contains("TMA-store epilogue"), "{err}");
    // e5m2 as well; an FP8 D of integer sums is not a type the kernels write.
    let e5m2 = GemmTypes::new(F8E4M3, F8E4M3, F8E5M2, F8E5M2, F32);
    assert!(Gemm::builder()
        .a(F8E4M3, OperandMajor::K)
        .d(e5m2.d, OutputMajor::M)
        .spec()
        .is_ok());
    let err = Gemm::builder()
        .a(I8, OperandMajor::K)
        .d(F8E4M3, OutputMajor::N)
        .spec()
        .unwrap_err();
    assert!(
        err.to_string().contains("D of e4m3 with i32 accumulators"),
        "{err}"
    );
}

#[test]
fn the_output_scale_and_amax_need_the_register_store_epilogue() {
    let amax = OutputQuantization {
        d_scale: false,
        d_amax: true,
    };
    // The builder moves the TMA-store default to the register-store one.
    let spec = Gemm::builder()
        .a(BF16, OperandMajor::K)
        .d_amax(true)
        .spec()
        .unwrap();
    assert_eq!(spec.epilogue.policy, EpiloguePolicy::Sm90NoSmem);
    assert_eq!(spec.epilogue.fusion.output(), amax);
    // A spec forced back onto the TMA store is refused by name.
    let mut forced = spec.clone();
    forced.epilogue.policy = EpiloguePolicy::Sm90TmaWarpSpecialized;
    let err = forced.validate().unwrap_err();
    assert!(
        err.to_string().contains("EpilogueNoSmemWarpSpecialized"),
        "{err}"
    );
    // An i32 D computes the linear combination only.
    let err = Gemm::builder()
        .a(I8, OperandMajor::K)
        .d(I32, OutputMajor::N)
        .d_amax(true)
        .spec()
        .unwrap_err();
    assert!(err.to_string().contains("i32 D"), "{err}");
}

#[test]
fn the_output_scale_and_amax_are_kernel_parameters_and_name_the_kernel() {
    let plain = Gemm::builder()
        .a(F8E4M3, OperandMajor::K)
        .d(F8E4M3, OutputMajor::N);
    let both = plain.clone().d_scale(true).d_amax(true).spec().unwrap();
    let plain = plain.spec().unwrap();
    assert_ne!(plain.kernel_name(), both.kernel_name());
    let roles: Vec<ParamRole> = both.kernel().unwrap().params().iter().collect();
    let (scale, amax) = (
        roles
            .iter()
            .position(|&r| r == ParamRole::DScale)
            .expect("d_scale"),
        roles
            .iter()
            .position(|&r| r == ParamRole::DAmax)
            .expect("d_amax"),
    );
    assert!(scale < amax, "{roles:?}");
    if let Some(workspace) = roles.iter().position(|&r| r == ParamRole::Workspace) {
        assert!(amax < workspace, "{roles:?}");
    }
    let roles: Vec<ParamRole> = plain.kernel().unwrap().params().iter().collect();
    assert!(!roles.contains(&ParamRole::DScale) && !roles.contains(&ParamRole::DAmax));
    // The epilogue names them.
    let e = Epilogue::linear_combination().with_output(OutputQuantization {
        d_scale: true,
        d_amax: false,
    });
    assert!(e.to_string().ends_with("* d_scale"), "{e}");
    assert_ne!(e.tag(), Epilogue::linear_combination().tag());
}

#[test]
fn large_fp8_outputs_pick_the_ping_pong_kernel() {
    let types = GemmTypes::new(F8E4M3, F8E4M3, F8E4M3, F8E4M3, F32);
    for problem in [[4096, 4096, 4096, 1], [8192, 8192, 8192, 1]] {
        let (spec, swap) =
            sm90_pick_for_problem(types, k_major(OutputMajor::N), problem, 132, None).unwrap();
        assert!(!swap);
        assert_eq!(spec.schedule, KernelSchedule::TmaWarpSpecializedPingpong);
        assert_eq!(spec.tile[..2], [128, 128]);
        assert_eq!(spec.epilogue.policy, EpiloguePolicy::Sm90NoSmem);
    }
    // A decode shape still swaps A and B.
    let (_, swap) = sm90_pick_for_problem(
        types,
        k_major(OutputMajor::N),
        [16, 4096, 4096, 1],
        132,
        None,
    )
    .unwrap();
    assert!(swap);
}

#[test]
fn mn_major_8bit_operands_build_as_k_major_copies() {
    for element in [F8E4M3, F8E5M2, I8] {
        let spec = Gemm::builder()
            .a(element, OperandMajor::MN)
            .b(element, OperandMajor::MN)
            .spec()
            .unwrap();
        assert_eq!(
            (spec.majors.a, spec.majors.b),
            (OperandMajor::K, OperandMajor::K)
        );
    }
    // The kernel itself reads 8-bit operands K-major only.
    let err = sm90_spec(
        GemmTypes::new(F8E4M3, F8E4M3, BF16, BF16, F32),
        GemmMajors::new(OperandMajor::MN, OperandMajor::K, OutputMajor::N),
        KernelSchedule::TmaWarpSpecializedCooperative,
        [128, 128, 128],
        [1, 1],
    )
    .unwrap_err();
    assert!(err.to_string().contains("Gemm::builder()"), "{err}");
}
