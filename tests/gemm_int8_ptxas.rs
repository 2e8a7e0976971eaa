//! The SM90 kernels for s8/u8 inputs (K-major A and B, s32 accumulators)
//! assemble for sm_90a with no spills: the builder's picks at large,
//! long-K, decode and ragged shapes, for every signedness pair, with an
//! exact i32 D (row- and column-major) and with a dequantized bf16 D; and
//! they multiply with the
//! integer wgmma, not a float one.

mod common;

use common::ptxas::assemble;
use cutlet::arch::ArchKind;
use cutlet::collective::EpiloguePolicy;
use cutlet::device::gemm::{Decomposition, Gemm};
use cutlet::gemm::{GemmMajors, GemmTypes, OperandMajor, OutputMajor};
use cutlet::kernel::gemm::{sm90_pick_for_problem, GemmSpec, ScaleGranularity};
use cutlet::numeric::ElementType::{self, BF16, F32, I32, I8, U8};

const K_MAJOR: GemmMajors = GemmMajors {
    a: OperandMajor::K,
    b: OperandMajor::K,
    c: OutputMajor::N,
    d: OutputMajor::N,
};

/// Assembles `spec` and asserts it multiplies with `s32.{a}.{b}` wgmmas
/// and spills nothing (skips the assembly without ptxas).
fn assert_integer_kernel(spec: &GemmSpec) {
    let name = spec.kernel_name();
    let ptx = spec.ptx().unwrap();
    let wgmma = format!(
        "k32.s32{}{}",
        spec.types.a.ptx_type(),
        spec.types.b.ptx_type()
    );
    assert!(ptx.contains(&wgmma), "{name}: no {wgmma}");
    let Some(report) = assemble(&ptx, ArchKind::Sm90.ptx_target()) else {
        return;
    };
    let f = report.function(&name);
    assert_eq!((f.spill_stores, f.spill_loads), (0, 0), "{name}: {f:?}");
}

fn types(a: ElementType, b: ElementType, d: ElementType) -> GemmTypes {
    GemmTypes {
        a,
        b,
        c: d,
        d,
        acc: I32,
    }
}

#[test]
fn int8_picks_assemble_without_spills() {
    let m_major = GemmMajors {
        c: OutputMajor::M,
        d: OutputMajor::M,
        ..K_MAJOR
    };
    for (a, b, d, majors) in [
        (I8, I8, I32, K_MAJOR),
        (U8, I8, I32, K_MAJOR),
        (I8, U8, BF16, K_MAJOR),
        (U8, U8, F32, K_MAJOR),
        (I8, U8, I32, m_major),
    ] {
        for problem in [
            [4096, 4096, 4096, 1],
            [8192, 8192, 1024, 1],
            [16, 4096, 4096, 1],
            [300, 264, 384, 1],
            [1, 1000, 2048, 1],
            [512, 512, 16384, 1],
            [128, 1536, 7168, 1],
            [130, 70, 144, 3],
            [40, 4096, 4096, 1],
            [96, 8192, 1024, 1],
        ] {
            let (spec, _) = sm90_pick_for_problem(types(a, b, d), majors, problem, 132, None)
                .unwrap_or_else(|e| panic!("{a}x{b}->{d} {problem:?}: {e}"));
            assert_eq!(spec.types.acc, I32);
            assert_integer_kernel(&spec);
        }
    }
}

#[test]
fn the_builder_defaults_s8_inputs_to_s32_sums() {
    let spec = Gemm::builder()
        .a(I8, OperandMajor::K)
        .b(I8, OperandMajor::K)
        .spec()
        .unwrap();
    assert_eq!((spec.types.acc, spec.types.d), (I32, I32));
    assert_eq!(spec.arch, ArchKind::Sm90);
    assert_integer_kernel(&spec);
    // Row-wise dequantizing scales into bf16.
    let scaled = Gemm::builder()
        .a(I8, OperandMajor::K)
        .b(I8, OperandMajor::K)
        .d(BF16, OutputMajor::N)
        .scales(ScaleGranularity::RowCol)
        .spec()
        .unwrap();
    assert_integer_kernel(&scaled);
    // The register-store epilogue, which runs where TMA cannot write D
    // (rows not a multiple of 16 bytes), for both D types.
    for spec in [spec, scaled] {
        let narrow = Gemm::builder()
            .a(I8, OperandMajor::K)
            .b(I8, OperandMajor::K)
            .d(spec.types.d, OutputMajor::N)
            .tile([128, 128, 128]);
        let narrow = match spec.epilogue.fusion.scales() {
            Some(granularity) => narrow.scales(granularity),
            None => narrow,
        };
        let registers = narrow
            .spec()
            .unwrap()
            .with_sm90_epilogue(EpiloguePolicy::Sm90NoSmem)
            .unwrap();
        assert_integer_kernel(&registers);
    }
}

#[test]
fn int8_gemms_refuse_what_they_cannot_run() {
    let int8 = || {
        Gemm::builder()
            .a(I8, OperandMajor::K)
            .b(I8, OperandMajor::K)
    };
    // Scales need a float D.
    let err = int8().scales(ScaleGranularity::Tensor).spec().unwrap_err();
    assert!(err.to_string().contains("i32 D"), "{err}");
    // K-splitting reduces f32 partial tiles.
    let err = int8()
        .decomposition(Decomposition::SplitK(4))
        .spec()
        .unwrap_err();
    assert!(
        err.to_string().contains("s32 accumulators")
            || err.to_string().contains("i32 accumulators"),
        "{err}"
    );
    // wgmma cannot transpose 8-bit operands: the builder's kernel reads
    // the K-major copy of an MN-major one.
    let copied = int8().b(I8, OperandMajor::MN).spec().unwrap();
    assert_eq!(copied.majors.b, OperandMajor::K);
    // f32 accumulators have no s8 wgmma.
    let err = int8().accumulator(F32).spec().unwrap_err();
    assert!(err.to_string().contains("acc=f32"), "{err}");
    // The integer wgmma has no N = 40.
    let err = int8().tile([128, 40, 128]).spec().unwrap_err();
    assert!(err.to_string().contains("TileN 40"), "{err}");
}

/// A small M runs swapped (the tokens on wgmma's N), whole: the swapped
/// problem's narrow tile takes the integer wgmma's widths (M = 40 becomes
/// N' = 48), and no split (K-splitting reduces f32 partial tiles).
#[test]
fn a_small_m_swaps_without_splitting() {
    for (m, n_tile) in [(16, 16), (40, 48)] {
        let (spec, swap) =
            sm90_pick_for_problem(types(I8, I8, I32), K_MAJOR, [m, 4096, 4096, 1], 132, None)
                .unwrap();
        assert!(swap, "M = {m}: {}", spec.kernel_name());
        assert_eq!(spec.tile[1], n_tile, "{}", spec.kernel_name());
        assert!(
            !spec.kernel_name().contains("splitk"),
            "{}",
            spec.kernel_name()
        );
        assert_integer_kernel(&spec);
    }
}
