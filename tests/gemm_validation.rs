//! Every bad input of the GEMM device layer is a typed error whose message
//! names the value and what was expected; checked on plain values, no GPU.

use cutlet::arch::ArchKind;
use cutlet::device::gemm::{
    check_arch, check_problem, check_scalars, Gemm, GemmShape, OperandFacts, ProblemFacts,
    MAX_EXTENT,
};
use cutlet::gemm::{GemmMajors, GemmTypes};
use cutlet::kernel::gemm::{GemmSpec, OperandMajor, OutputMajor};
use cutlet::numeric::ElementType::{self, BF16};
use cutlet::Error;

fn bf16_spec() -> GemmSpec {
    Gemm::builder()
        .a(ElementType::BF16, OperandMajor::K)
        .b(ElementType::BF16, OperandMajor::K)
        .d(ElementType::BF16, OutputMajor::N)
        .spec()
        .expect("the default bf16 configuration is valid")
}

/// A dense TN problem (A row-major M x K, B column-major, D row-major) at
/// 256-byte aligned addresses with exactly the lengths it needs.
fn dense(shape: GemmShape) -> ProblemFacts {
    let GemmShape { m, n, k, l } = shape;
    let operand = |rows: usize, cols: usize, address: u64| OperandFacts {
        element: ElementType::BF16,
        address: Some(address),
        len: rows * cols * l,
        ld: cols,
        batch_stride: rows * cols,
    };
    ProblemFacts {
        shape,
        a: operand(m, k, 0x7f00_0000_0000),
        b: operand(n, k, 0x7f00_1000_0000),
        c: Some(operand(m, n, 0x7f00_2000_0000)),
        d: operand(m, n, 0x7f00_3000_0000),
    }
}

fn invalid_message(problem: &ProblemFacts) -> String {
    let err = check_problem(&bf16_spec(), problem).expect_err("the problem is invalid");
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
    err.to_string()
}

fn assert_names(message: &str, parts: &[&str]) {
    for part in parts {
        assert!(message.contains(part), "{message:?} should name {part:?}");
    }
}

#[test]
fn a_dense_problem_passes() {
    for shape in [
        GemmShape::new(128, 256, 64, 1),
        GemmShape::new(1000, 8, 8, 3),
    ] {
        check_problem(&bf16_spec(), &dense(shape)).unwrap();
    }
}

#[test]
fn misaligned_pointer_names_the_alignment() {
    let mut problem = dense(GemmShape::new(64, 64, 64, 1));
    problem.b.address = Some(0x7f00_1000_0002); // a view at offset 1 of a bf16 buffer
    let message = invalid_message(&problem);
    assert_names(
        &message,
        &[
            "b (device address)",
            "0x7f0010000002",
            "16-byte aligned",
            "8 bf16 elements",
        ],
    );
}

#[test]
fn misaligned_leading_dimension_names_the_alignment() {
    let mut problem = dense(GemmShape::new(64, 64, 64, 1));
    problem.a.ld = 65;
    problem.a.len = 65 * 64;
    let message = invalid_message(&problem);
    assert_names(
        &message,
        &["`lda` = 65", "multiple of 8 elements", "16 bytes"],
    );
}

#[test]
fn leading_dimension_below_the_contiguous_extent_is_rejected() {
    let mut problem = dense(GemmShape::new(64, 64, 64, 1));
    problem.d.ld = 56;
    assert_names(&invalid_message(&problem), &["`ldd` = 56", "at least 64"]);
}

#[test]
fn short_buffer_names_the_length_needed() {
    let mut problem = dense(GemmShape::new(100, 64, 64, 3));
    problem.c.as_mut().unwrap().len -= 1;
    let message = invalid_message(&problem);
    assert_names(
        &message,
        &[
            "c.len()",
            &(100 * 64 * 3 - 1).to_string(),
            &format!("at least {}", 100 * 64 * 3),
        ],
    );
}

#[test]
fn misaligned_batch_stride_is_rejected() {
    let mut problem = dense(GemmShape::new(64, 64, 64, 2));
    problem.a.batch_stride = 64 * 64 + 4;
    problem.a.len = 2 * 64 * 64 + 4;
    assert_names(
        &invalid_message(&problem),
        &["a.batch_stride", "multiple of 8"],
    );
}

#[test]
fn overlapping_output_batches_are_rejected() {
    let mut problem = dense(GemmShape::new(64, 64, 64, 2));
    problem.d.batch_stride = 64 * 32;
    assert_names(
        &invalid_message(&problem),
        &["d.batch_stride", "2048", "at least 4096"],
    );
}

#[test]
fn zero_sizes_need_no_buffer() {
    for shape in [
        GemmShape::new(0, 64, 64, 1),
        GemmShape::new(64, 0, 64, 1),
        GemmShape::new(64, 64, 64, 0),
    ] {
        let mut problem = dense(shape);
        for operand in [&mut problem.a, &mut problem.b, &mut problem.d] {
            operand.len = 0;
        }
        check_problem(&bf16_spec(), &problem).unwrap_or_else(|e| panic!("{shape:?}: {e}"));
    }
}

#[test]
fn k_zero_reads_neither_a_nor_b_but_writes_d() {
    let mut problem = dense(GemmShape::new(64, 64, 0, 1));
    problem.a.len = 0;
    problem.b.len = 0;
    check_problem(&bf16_spec(), &problem).unwrap();
    problem.d.len = 10;
    assert_names(&invalid_message(&problem), &["d.len()", "at least 4096"]);
}

#[test]
fn sizes_beyond_32_bit_indexing_are_rejected() {
    let mut problem = dense(GemmShape::new(64, 64, 64, 1));
    problem.shape.k = MAX_EXTENT + 1;
    assert_names(
        &invalid_message(&problem),
        &["`k` = 2147483648", "at most 2147483647", "32-bit"],
    );
    let mut problem = dense(GemmShape::new(64, 64, 64, 1));
    problem.shape.m = 1 << 32;
    assert_names(&invalid_message(&problem), &["`m` = 4294967296"]);
    let mut problem = dense(GemmShape::new(64, 64, 64, 1));
    problem.shape.m = 1 << 30;
    problem.shape.n = 1 << 30;
    assert_names(&invalid_message(&problem), &["m x n", "output tiles"]);
    // The SM90 kernel's persistent walk: 2^26 tiles of 128x128 a batch, 64
    // batches, more than its 2^30 units.
    let sm90 = cutlet::kernel::gemm::sm90_spec_for_problem(
        GemmTypes::new(BF16, BF16, BF16, BF16, ElementType::F32),
        GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N),
        [4096, 4096, 4096, 1],
        132,
    )
    .unwrap();
    let problem = dense(GemmShape::new(1 << 20, 1 << 20, 64, 64));
    let err = check_problem(&sm90, &problem).expect_err("2^32 units are too many");
    assert_names(
        &err.to_string(),
        &[
            "m x n x l",
            "1048576 x 1048576 x 64",
            "at most 1073741824 units",
            "31 bits",
        ],
    );
    let mut problem = dense(GemmShape::new(64, 64, 64, 1));
    problem.shape.l = 70_000;
    assert_names(
        &invalid_message(&problem),
        &["`l` = 70000", "at most 65535"],
    );
}

#[test]
fn element_type_mismatch_names_both_types() {
    let mut problem = dense(GemmShape::new(64, 64, 64, 1));
    problem.a.element = ElementType::F16;
    assert_names(
        &invalid_message(&problem),
        &["a element type", "f16", "bf16"],
    );
}

#[test]
fn tf32_operands_are_stored_as_f32() {
    let spec = Gemm::builder()
        .a(ElementType::TF32, OperandMajor::K)
        .b(ElementType::TF32, OperandMajor::K)
        .d(ElementType::F32, OutputMajor::N)
        .spec()
        .unwrap();
    let mut problem = dense(GemmShape::new(64, 64, 32, 1));
    for operand in [&mut problem.a, &mut problem.b, &mut problem.d] {
        operand.element = ElementType::F32;
    }
    problem.c.as_mut().unwrap().element = ElementType::F32;
    check_problem(&spec, &problem).unwrap();
}

#[test]
fn c_can_be_d_only_when_their_types_agree() {
    let mut problem = dense(GemmShape::new(64, 64, 64, 1));
    problem.c = None;
    check_problem(&bf16_spec(), &problem).unwrap();
}

#[test]
fn an_sm90_kernel_cannot_run_on_an_ampere_gpu() {
    let mut spec = bf16_spec();
    spec.arch = ArchKind::Sm90;
    let err = check_arch(&spec, 0, (8, 6)).unwrap_err();
    assert!(matches!(err, Error::UnsupportedArch { .. }), "{err}");
    assert_names(
        &err.to_string(),
        &["sm_90a", "compute capability 9.0", "cc 8.6"],
    );
    check_arch(&spec, 0, (9, 0)).unwrap();
    let sm80 = bf16_spec();
    check_arch(&sm80, 0, (9, 0)).unwrap();
    let err = check_arch(&sm80, 1, (7, 5)).unwrap_err();
    assert_names(
        &err.to_string(),
        &["sm_80", "8.0 or newer", "device 1 is cc 7.5"],
    );
}

#[test]
fn the_builder_names_what_it_cannot_build() {
    let err = Gemm::builder()
        .a(ElementType::F16, OperandMajor::K)
        .b(ElementType::BF16, OperandMajor::K)
        .spec()
        .unwrap_err();
    assert_names(&err.to_string(), &["a=f16, b=bf16", "expected"]);
    let err = Gemm::builder().stages(9).spec().unwrap_err();
    assert_names(&err.to_string(), &["shared memory"]);
    let err = Gemm::builder().tile([128, 256, 48]).spec().unwrap_err();
    assert_names(&err.to_string(), &["gemm configuration", "128x256x48"]);
}

#[test]
fn typed_configs_and_the_builder_reach_the_same_specs() {
    use cutlet::device::gemm::{
        Config, DefaultBf16Sm80, DefaultF16AccF16Sm80, DefaultF16Sm80, DefaultTf32Sm80,
    };
    let built = |a: ElementType, d: ElementType, acc: ElementType| {
        Gemm::builder()
            .a(a, OperandMajor::K)
            .b(a, OperandMajor::K)
            .d(d, OutputMajor::N)
            .accumulator(acc)
            .spec()
            .unwrap()
    };
    use ElementType::{BF16, F16, F32, TF32};
    assert_eq!(DefaultBf16Sm80::spec(), built(BF16, BF16, F32));
    assert_eq!(DefaultF16Sm80::spec(), built(F16, F16, F32));
    assert_eq!(DefaultF16AccF16Sm80::spec(), built(F16, F16, F16));
    assert_eq!(DefaultTf32Sm80::spec(), built(TF32, F32, F32));
}

#[test]
fn non_finite_scalars_are_invalid_arguments_naming_the_scalar_and_value() {
    assert!(check_scalars(1.25, -0.75, &[f64::from(f32::MAX)]).is_ok());
    for (alpha, beta, extra, named) in [
        (f64::NAN, 0.0, vec![], "`alpha` = NaN"),
        (1.0, f64::NEG_INFINITY, vec![], "`beta` = -inf"),
        // Finite as an f64, infinite once rounded to the kernel's f32.
        (1e39, 0.0, vec![], "`alpha` = 1e39"),
        (
            1.0,
            0.0,
            vec![0.5, f64::NAN],
            "`epilogue scalars[1] (s3)` = NaN",
        ),
    ] {
        let err = check_scalars(alpha, beta, &extra).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
        assert_names(&err.to_string(), &[named, "f32"]);
    }
}

/// The SM90 pick answers every problem, empty ones, SM counts of 0 and 1
/// and a pinned swap-AB included, with a kernel or an error, never a panic
/// (a division by the batches or the SMs).
#[test]
fn the_sm90_pick_answers_empty_problems_and_tiny_sm_counts() {
    use cutlet::kernel::gemm::sm90_pick_for_problem;
    use ElementType::{F16, F32, F8E4M3, I32, I8, TF32};
    let dims = [0u32, 1, 72, 129, 256, 4096, 14336];
    let all_types = [
        GemmTypes::new(BF16, BF16, BF16, BF16, F32),
        GemmTypes::new(F16, F16, F32, F32, F32),
        GemmTypes::new(TF32, TF32, F32, F32, F32),
        GemmTypes::new(F8E4M3, F8E4M3, BF16, BF16, F32),
        GemmTypes::new(I8, I8, I32, I32, I32),
    ];
    let all_majors = [
        GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N),
        GemmMajors::new(OperandMajor::MN, OperandMajor::MN, OutputMajor::M),
    ];
    for (types, majors) in all_types
        .into_iter()
        .flat_map(|t| all_majors.map(|m| (t, m)))
    {
        for &m in &dims {
            for &n in &dims {
                for k in [0u32, 16384] {
                    for l in [0u32, 1, 3] {
                        for (sm_count, swap) in [0u32, 1, 132]
                            .into_iter()
                            .flat_map(|sms| [None, Some(true), Some(false)].map(|s| (sms, s)))
                        {
                            let problem = [m, n, k, l];
                            let caught = std::panic::catch_unwind(|| {
                                sm90_pick_for_problem(types, majors, problem, sm_count, swap)
                                    .map(|(spec, _)| spec.kernel_name())
                            });
                            assert!(
                                caught.is_ok(),
                                "{types:?} {majors:?} {problem:?} on {sm_count} SMs, swap {swap:?}, panicked"
                            );
                        }
                    }
                }
            }
        }
    }
}
