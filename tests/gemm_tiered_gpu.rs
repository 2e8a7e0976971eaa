//! The two-tier JIT of GEMM kernels: the first run launches the quick
//! compile, the optimized compile replaces it once ready, and both write the
//! same bits (f32 output, a fused epilogue with gelu (erf form), a column
//! bias, alpha and beta, so the math snippets and the linear combination
//! are compiled at both levels). The SM70 and SM80 kernels' quick tier is
//! their own PTX at a lower level; an SM90 kernel's is a stand-in kernel
//! with smaller tiles (`GemmSpec::sm90_stand_in`), launched with its own
//! geometry, which must write the same bits too (on an H100 or H200).
//! A kernel that splits K has no stand-in (its workspace is laid out by its
//! tile): a 256x128 split-K kernel compiles once, at the full level, and its
//! runs give the bits of its serial reduction (few SMs).
//!
//! This file holds one test so that it can turn the driver's disk cache off
//! (`CUDA_CACHE_DISABLE=1`) before the driver initializes: with the cache,
//! a kernel compiled in an earlier process comes back in about a
//! millisecond and the optimized tier could win the race to the first run.

mod common;

use common::gpu::random_vec;
use cudarc::driver::{CudaSlice, CudaViewMut};
use cutlet::arch::ArchKind;
use cutlet::device::gemm::Decomposition;
use cutlet::device::gemm::{Arguments, Gemm, GemmBuilder, GemmShape, Operand, OutputOperand};
use cutlet::device::{JitTier, JIT_OPT_LEVEL_ENV, JIT_TIERED_ENV};
use cutlet::fusion::{scalar, Expr, Expression};
use cutlet::kernel::gemm::{BiasAxis, Epilogue, KernelSchedule, OperandMajor, OutputMajor};
use cutlet::numeric::ElementType;
use cutlet_harness::device_or_skip;
use half::bf16;

#[test]
fn the_quick_and_the_optimized_kernel_write_the_same_bits() {
    let test = "the_quick_and_the_optimized_kernel_write_the_same_bits";
    if std::env::var_os(JIT_OPT_LEVEL_ENV).is_some()
        || std::env::var(JIT_TIERED_ENV).as_deref() == Ok("0")
    {
        eprintln!("skipped {test}: {JIT_OPT_LEVEL_ENV} or {JIT_TIERED_ENV}=0 turns tiering off");
        return;
    }
    // Before any driver call of this process (the only test in this binary).
    std::env::set_var("CUDA_CACHE_DISABLE", "1");
    let Some(device) = device_or_skip(test) else {
        return;
    };
    let stream = device.default_stream();
    let (m, n, k) = (333, 520, 200);
    let to_bf16 = |v: Vec<f32>| v.into_iter().map(bf16::from_f32).collect::<Vec<_>>();
    let a: CudaSlice<bf16> = stream
        .clone_htod(&to_bf16(random_vec(1, m * k, -1.0f32, 1.0)))
        .unwrap();
    let b: CudaSlice<bf16> = stream
        .clone_htod(&to_bf16(random_vec(2, n * k, -1.0f32, 1.0)))
        .unwrap();
    let c: CudaSlice<f32> = stream
        .clone_htod(&random_vec(3, m * n, -1.0f32, 1.0))
        .unwrap();
    let bias: CudaSlice<f32> = stream.clone_htod(&random_vec(4, n, -0.5f32, 0.5)).unwrap();
    let mut d: CudaSlice<f32> = stream.clone_htod(&vec![f32::NAN; m * n]).unwrap();
    let expression = Expression::from_fn(|acc: Expr, c: Expr, bias: Expr| {
        (acc * scalar(0) + c * scalar(1) + bias).gelu_erf()
    });
    // Configurations of the SM80 kernel (`stages` stages: each count is a
    // configuration of its own) and, on compute capability 9.0, of the
    // SM90 kernel (each schedule and cluster).
    // (128x256x32 tiles: every count from 3 to 6 fits the shared memory
    // with an f32 D, so that a configuration lost to the race is followed
    // by one that builds.)
    let sm80 = |stages: u32| {
        Gemm::builder()
            .arch(ArchKind::Sm80)
            .tile([128, 256, 32])
            .stages(stages)
    };
    let sm90 = |schedule: KernelSchedule, cluster: [u32; 2]| {
        Gemm::builder()
            .arch(ArchKind::Sm90)
            .schedule(schedule)
            .cluster(cluster)
    };
    let build = |builder: GemmBuilder| {
        builder
            .a(ElementType::BF16, OperandMajor::K)
            .b(ElementType::BF16, OperandMajor::K)
            .d(ElementType::F32, OutputMajor::N)
            .epilogue(Epilogue::new(expression.clone(), &[BiasAxis::Column]).unwrap())
            .build(&device)
            .unwrap()
    };
    /// The test's arguments, writing `d`.
    fn arguments<'x>(
        (m, n, k): (usize, usize, usize),
        [a, b]: [&'x CudaSlice<bf16>; 2],
        [c, bias]: [&'x CudaSlice<f32>; 2],
        d: CudaViewMut<'x, f32>,
    ) -> Arguments<'x, bf16, bf16, f32, f32> {
        Arguments::new(
            GemmShape::new(m, n, k, 1),
            Operand::new(a.as_view(), k, 0),
            Operand::new(b.as_view(), k, 0),
            Operand::new(c.as_view(), n, 0),
            OutputOperand::new(d, n, 0),
            0.75,
            -0.5,
        )
        .with_biases(vec![bias.as_view()])
    }
    let (inputs, sources) = ([&a, &b], [&c, &bias]);
    let run = |gemm: &Gemm, d: &mut CudaSlice<f32>| -> Vec<f32> {
        let mut args = arguments((m, n, k), inputs, sources, d.as_view_mut());
        gemm.run(&mut args, &stream).unwrap();
        drop(args);
        stream.clone_dtoh(d).unwrap()
    };

    let mut families: Vec<(&str, Vec<GemmBuilder>)> = vec![("SM80", [3, 4, 5, 6].map(sm80).into())];
    if device.compute_capability() == (9, 0) {
        let (cooperative, pingpong) = (
            KernelSchedule::TmaWarpSpecializedCooperative,
            KernelSchedule::TmaWarpSpecializedPingpong,
        );
        families.push((
            "SM90",
            vec![
                sm90(cooperative, [2, 1]),
                sm90(cooperative, [1, 2]),
                sm90(pingpong, [1, 1]),
                sm90(pingpong, [2, 1]),
            ],
        ));
    }
    for (family, builders) in families {
        // A run launched the quick kernel where the tier is still quick
        // after it (the tier only moves from quick to optimized). The
        // optimized compile takes 100 ms or more and the launch
        // microseconds, but a loaded machine could let it win: then the next
        // configuration is compiled afresh and tried, rather than the test
        // failing on timing.
        let mut caught = None;
        for builder in builders {
            let gemm = build(builder);
            stream.memcpy_htod(&vec![f32::NAN; m * n], &mut d).unwrap();
            stream.synchronize().unwrap();
            let start = std::time::Instant::now();
            let kernel = gemm
                .initialize(
                    &arguments((m, n, k), inputs, sources, d.as_view_mut()),
                    None,
                )
                .unwrap();
            let initialized = start.elapsed();
            // The tier right after the launch is queued says which kernel
            // it launched (a copy to or from pageable host memory may wait
            // for the background compile: the driver serializes them).
            let mut args = arguments((m, n, k), inputs, sources, d.as_view_mut());
            gemm.run(&mut args, &stream).unwrap();
            drop(args);
            let tier = kernel.tier();
            let launched = start.elapsed();
            let output = stream.clone_dtoh(&d).unwrap();
            let ran = start.elapsed();
            eprintln!(
                "{test}: {family}: initialized after {initialized:?}, launched after {launched:?}, \
                 read back after {ran:?}, optimized ready after {:?}",
                kernel.optimized_after()
            );
            if tier == JitTier::Quick {
                let regs = kernel.function().num_regs();
                caught = Some((gemm, output, regs));
                break;
            }
            eprintln!("{test}: {family}: the optimized compile was in use by the first run");
        }
        let (gemm, quick, quick_regs) =
            caught.expect("a first run on the quick kernel in four configurations");
        let kernel = gemm
            .initialize(
                &arguments((m, n, k), inputs, sources, d.as_view_mut()),
                None,
            )
            .unwrap();
        assert_eq!(kernel.stand_in(), family == "SM90", "{family}");
        assert!(
            quick.iter().all(|v| v.is_finite()),
            "{family}: every element written"
        );

        kernel.wait_optimized().unwrap();
        assert_eq!(kernel.tier(), JitTier::Optimized);
        let ready = kernel
            .optimized_after()
            .expect("ready time of the optimized kernel");
        assert!(
            ready >= kernel.compile_time(),
            "{family}: {ready:?} before the quick compile ended"
        );
        stream.memcpy_htod(&vec![f32::NAN; m * n], &mut d).unwrap();
        let optimized = run(&gemm, &mut d);
        eprintln!(
            "{test}: {family}: quick compile {:?} ({quick_regs} registers), optimized ready after {ready:?} ({} registers)",
            kernel.compile_time(),
            kernel.function().num_regs()
        );
        let differing = quick
            .iter()
            .zip(&optimized)
            .filter(|(q, o)| q.to_bits() != o.to_bits())
            .count();
        assert_eq!(
            differing,
            0,
            "{family}: {differing} of {} elements differ between the tiers",
            m * n
        );
    }

    if device.compute_capability() != (9, 0) {
        return;
    }
    // Split-K over 256x128 tiles (128 accumulators a thread, which would
    // take a stand-in), 8 splits of 4 k-tiles each: its record's 7 partial
    // tiles (896 KiB) are summed spread over the splits on the whole GPU
    // and by the last split alone on 3 SMs.
    let k = 2048;
    let a: CudaSlice<bf16> = stream
        .clone_htod(&to_bf16(random_vec(5, m * k, -1.0f32, 1.0)))
        .unwrap();
    let b: CudaSlice<bf16> = stream
        .clone_htod(&to_bf16(random_vec(6, n * k, -1.0f32, 1.0)))
        .unwrap();
    let gemm = build(
        sm90(KernelSchedule::TmaWarpSpecializedCooperative, [1, 1])
            .tile([256, 128, 64])
            .decomposition(Decomposition::SplitK(8)),
    );
    let kernel = gemm
        .initialize(
            &arguments((m, n, k), [&a, &b], sources, d.as_view_mut()),
            None,
        )
        .unwrap();
    assert!(!kernel.stand_in(), "split-K: no stand-in");
    assert_eq!(kernel.tier(), JitTier::Optimized, "split-K: one compile");
    let mut runs = Vec::new();
    for sm_count in [None, None, Some(3), None] {
        stream.memcpy_htod(&vec![f32::NAN; m * n], &mut d).unwrap();
        let mut args = arguments((m, n, k), [&a, &b], sources, d.as_view_mut());
        match sm_count {
            Some(sms) => gemm.run_with_sm_count(&mut args, &stream, sms).unwrap(),
            None => gemm.run(&mut args, &stream).unwrap(),
        }
        drop(args);
        let output = stream.clone_dtoh(&d).unwrap();
        assert!(
            output.iter().all(|v| v.is_finite()),
            "split-K: every element written"
        );
        runs.push(output.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    }
    for (i, run) in runs.iter().enumerate().skip(1) {
        assert!(
            run == &runs[0],
            "split-K 256x128: run {i} differs from run 0"
        );
    }
}
