//! The SM90 kernels for FP8 inputs (K-major A and B, f32 accumulators)
//! assemble for sm_90a with no spills and no assembler warning: the fast-accumulation picks at
//! large, long-K, decode (swap-AB) and ragged shapes, and the FP8 mainloop
//! with promotion in its default tiles and intervals.

mod common;

use common::ptxas::assemble;
use cutlet::arch::ArchKind;
use cutlet::collective::MainloopPolicy;
use cutlet::device::gemm::Gemm;
use cutlet::gemm::{GemmMajors, GemmTypes, OperandMajor, OutputMajor};
use cutlet::kernel::gemm::{sm90_pick_for_problem, GemmSpec, KernelSchedule};
use cutlet::numeric::ElementType::{BF16, F32, F8E4M3, F8E5M2};

/// Assembles `spec` and asserts it spills nothing (skips without ptxas).
fn assert_no_spills(spec: &GemmSpec) {
    let name = spec.kernel_name();
    let ptx = spec.ptx().unwrap();
    assert!(ptx.contains("m64n") && ptx.contains("k32.f32.e"), "{name}");
    let Some(report) = assemble(&ptx, ArchKind::Sm90.ptx_target()) else {
        return;
    };
    let f = report.function(&name);
    assert_eq!((f.spill_stores, f.spill_loads), (0, 0), "{name}: {f:?}");
    // No warning either: a serialized wgmma (C7514, C7515) is one.
    assert!(report.warnings.is_empty(), "{name}: {:?}", report.warnings);
}

#[test]
fn fp8_picks_assemble_without_spills() {
    let majors = GemmMajors {
        a: OperandMajor::K,
        b: OperandMajor::K,
        c: OutputMajor::N,
        d: OutputMajor::N,
    };
    for (a, b, d) in [(F8E4M3, F8E4M3, BF16), (F8E4M3, F8E5M2, F32)] {
        let types = GemmTypes {
            a,
            b,
            c: d,
            d,
            acc: F32,
        };
        for problem in [
            [4096, 4096, 4096, 1],
            [8192, 8192, 1024, 1],
            [16, 4096, 4096, 1],
            [300, 264, 384, 1],
        ] {
            let (spec, _) = sm90_pick_for_problem(types, majors, problem, 132, None).unwrap();
            assert_no_spills(&spec);
        }
    }
}

#[test]
fn promoting_fp8_kernels_assemble_without_spills() {
    let fp8 = || {
        Gemm::builder()
            .a(F8E4M3, OperandMajor::K)
            .b(F8E4M3, OperandMajor::K)
    };
    let specs = [
        fp8().spec().unwrap(),
        fp8().promotion_interval(8).spec().unwrap(),
        fp8()
            .schedule(KernelSchedule::TmaWarpSpecializedPingpong)
            .spec()
            .unwrap(),
        fp8()
            .tile([128, 128, 64])
            .promotion_interval(2)
            .spec()
            .unwrap(),
    ];
    for spec in &specs {
        assert!(
            matches!(
                spec.mainloop.policy,
                MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8 { .. }
            ),
            "{}",
            spec.kernel_name()
        );
        assert!(
            spec.kernel_name().contains("_promote"),
            "{}",
            spec.kernel_name()
        );
        let ptx = spec.ptx().unwrap();
        // The partial sums are added into the accumulators.
        assert!(ptx.contains("add.f32"), "{}", spec.kernel_name());
        assert_no_spills(spec);
    }
    // A 128 x 256 cooperative tile leaves no room for the second set.
    let err = fp8().tile([128, 256, 128]).spec().unwrap_err();
    assert!(err.to_string().contains("two sets"), "{err}");
}

#[test]
fn scaled_fp8_kernels_assemble_without_spills() {
    use cutlet::collective::EpiloguePolicy;
    use cutlet::kernel::gemm::ScaleGranularity;
    for granularity in [ScaleGranularity::Tensor, ScaleGranularity::RowCol] {
        for fast in [false, true] {
            let builder = Gemm::builder()
                .a(F8E4M3, OperandMajor::K)
                .b(F8E4M3, OperandMajor::K)
                .fast_accumulation(fast)
                .scales(granularity);
            // The TMA-store epilogue of the default tile, split-K's, the
            // register-store one on the 128 x 128 tile that runs where TMA
            // cannot write D, ping-pong's and swap-AB's.
            let narrow = builder.clone().tile([128, 128, 128]).spec().unwrap();
            let split = builder
                .clone()
                .decomposition(cutlet::device::gemm::Decomposition::SplitK(4))
                .spec()
                .unwrap();
            // Ping-pong's 64-row tiles (one partial set) and swap-AB's.
            let pingpong = builder
                .clone()
                .schedule(KernelSchedule::TmaWarpSpecializedPingpong)
                .tile([64, 128, 128])
                .spec()
                .unwrap();
            let swapped = builder.clone().swap_ab(true).spec().unwrap();
            for spec in [
                builder.spec().unwrap(),
                split,
                narrow
                    .with_sm90_epilogue(EpiloguePolicy::Sm90NoSmem)
                    .unwrap(),
                pingpong,
                swapped,
            ] {
                let ptx = spec.ptx().unwrap();
                // The scales are f32 reads.
                assert!(
                    ptx.contains(".global.f32") || ptx.contains(".global.nc.f32"),
                    "{}",
                    spec.kernel_name()
                );
                assert_no_spills(&spec);
            }
        }
    }
}

/// Block scales (1x128 for A, 128x128 for B) applied at each promotion:
/// the builder's default, ping-pong, split-K and a 64-column tile assemble
/// without spills, and so do swap-AB's (ping-pong 64x16, split 128x64);
/// each reads both scale pointers and multiplies the partial sums by them
/// (`fma`); the configurations that cannot apply them are refused with
/// the rule they break.
#[test]
fn block_scaled_fp8_kernels_assemble_without_spills() {
    use cutlet::device::gemm::Decomposition;
    use cutlet::kernel::gemm::ScaleGranularity;
    let block = || {
        Gemm::builder()
            .a(F8E4M3, OperandMajor::K)
            .b(F8E4M3, OperandMajor::K)
            .scales(ScaleGranularity::Block)
    };
    let specs = [
        block().spec().unwrap(),
        block()
            .schedule(KernelSchedule::TmaWarpSpecializedPingpong)
            .spec()
            .unwrap(),
        block()
            .decomposition(Decomposition::SplitK(3))
            .spec()
            .unwrap(),
        block().tile([128, 64, 128]).spec().unwrap(),
        // Swap-AB's kernels: a scale of A per column.
        block()
            .swap_ab(true)
            .schedule(KernelSchedule::TmaWarpSpecializedPingpong)
            .tile([64, 16, 128])
            .spec()
            .unwrap(),
        block()
            .swap_ab(true)
            .tile([128, 64, 128])
            .decomposition(Decomposition::SplitK(2))
            .spec()
            .unwrap(),
    ];
    for spec in &specs {
        let name = spec.kernel_name();
        let ptx = spec.ptx().unwrap();
        for wanted in [
            "block_scales_a",
            "block_scales_b",
            "ld.global.nc.f32",
            "fma.rn.f32",
        ] {
            assert!(ptx.contains(wanted), "{name}: no {wanted}");
        }
        assert_no_spills(spec);
    }
    let refused = [
        (block().fast_accumulation(true), "without promotion"),
        (
            block().tile([128, 128, 64]).promotion_interval(2),
            "TileK 64",
        ),
        (block().promotion_interval(8), "interval 8"),
        (block().tile([128, 96, 128]), "TileN 96"),
        (
            block().swap_ab(true).tile([128, 128, 128]),
            "swap-AB block scales with a 128x128 tile",
        ),
    ];
    for (builder, message) in refused {
        let err = builder.spec().unwrap_err();
        assert!(err.to_string().contains(message), "{message}: {err}");
    }
}

/// FP8 outputs with an output scale and the amax: e4m3 and e5m2 D, row-
/// and column-major, fast accumulation and promotion, split-K, and the
/// builder's pick at a decode shape (swap-AB); each converts with
/// `cvt.rn.satfinite` and raises the amax with `red.global.max.u32`.
#[test]
fn fp8_output_kernels_assemble_without_spills() {
    use cutlet::device::gemm::Decomposition;
    for d in [F8E4M3, F8E5M2] {
        for (major, fast) in [
            (OutputMajor::N, true),
            (OutputMajor::M, true),
            (OutputMajor::N, false),
        ] {
            let builder = Gemm::builder()
                .a(F8E4M3, OperandMajor::K)
                .b(F8E4M3, OperandMajor::K)
                .d(d, major)
                .fast_accumulation(fast)
                .d_scale(true)
                .d_amax(true);
            let split = builder.clone().decomposition(Decomposition::SplitK(4));
            for spec in [builder.spec().unwrap(), split.spec().unwrap()] {
                let ptx = spec.ptx().unwrap();
                let name = spec.kernel_name();
                let cvt = format!("cvt.rn.satfinite.{}x2.f32", d.name());
                assert!(ptx.contains(&cvt), "{name}: no {cvt}");
                assert!(ptx.contains("red.global.max.u32"), "{name}: no amax");
                assert_no_spills(&spec);
            }
        }
    }
    let types = GemmTypes {
        a: F8E4M3,
        b: F8E4M3,
        c: F8E4M3,
        d: F8E4M3,
        acc: F32,
    };
    let majors = GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N);
    for problem in [[16, 4096, 4096, 1], [4096, 4096, 4096, 1]] {
        let (spec, _) = sm90_pick_for_problem(types, majors, problem, 132, None).unwrap();
        assert_no_spills(&spec);
    }
}
