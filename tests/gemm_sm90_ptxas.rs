//! The default SM90 GEMM configurations (cooperative 128x256 in a 2x1
//! cluster, ping-pong 128x128 with and without a cluster, cooperative
//! 256x128 in a 1x2 cluster, for every type combination and major, and
//! cooperative 256x160 with half-depth k-tiles in a 1x2 cluster, its 160
//! accumulators a thread, and cooperative 128x224 in a 2x1 cluster, for
//! the 16-bit inputs with a K-major B), in the two forms the launcher runs (for beta = 0
//! and for beta not 0), assemble for sm_90a with no register spills, and
//! the assembler warns of nothing (no wgmma serialized), including where an
//! M-major tf32 A passes through registers (the `_RS` wgmma); so do the
//! stand-ins that run while each compiles (`GemmSpec::sm90_stand_in`).

mod common;

use common::ptxas::assemble;
use cutlet::collective::{EpiloguePolicy, SourceRead};
use cutlet::kernel::gemm::{sm90_default_specs, GemmSpec, OperandMajor};

#[test]
fn default_sm90_configurations_assemble_without_spills() {
    let specs = sm90_default_specs();
    assert_eq!(specs.len(), 234);
    let mut bad = Vec::new();
    let mut rs = 0;
    for spec in specs {
        let kernel = spec.kernel().unwrap();
        assert_eq!(kernel.shared_storage().bytes, spec.shared_mem_bytes());
        assert_eq!(kernel.block_threads(), spec.block_threads());
        assert!(spec.shared_mem_bytes() <= 232448, "{}", spec.kernel_name());
        for read in [SourceRead::Never, SourceRead::Always] {
            // The launcher takes the parameters, shared memory, grid and
            // tensor maps from the kernel that tests beta: each form keeps them.
            let variant = kernel.for_source(read).unwrap();
            let name = format!("{}{}", spec.kernel_name(), read.name_suffix());
            assert_eq!(variant.name(), name);
            assert_eq!(variant.params(), kernel.params(), "{name}");
            assert_eq!(variant.shared_storage(), kernel.shared_storage(), "{name}");
            assert_eq!(variant.tensor_maps(), kernel.tensor_maps(), "{name}");
            assert_eq!(variant.grid(4096, 4096, 1), kernel.grid(4096, 4096, 1));
            let ptx = spec.ptx_for(read).unwrap();
            assert!(ptx.contains("wgmma.mma_async.sync.aligned.m64n"));
            assert!(ptx.contains("setmaxnreg.inc.sync.aligned.u32 232"));
            assert!(ptx.contains("cp.async.bulk.tensor.3d.shared::cluster.global"));
            // D through TMA stores, or from registers where TileN is not a
            // multiple of the TMA store's 32-column subtile (128x112).
            match spec.epilogue.policy {
                EpiloguePolicy::Sm90NoSmem => {
                    assert_eq!(spec.tile[1] % 32, 16, "{name}");
                    assert!(!ptx.contains("cp.async.bulk.tensor.3d.global.shared::cta"));
                }
                _ => assert!(ptx.contains("cp.async.bulk.tensor.3d.global.shared::cta")),
            }
            // Neither form tests beta; only the one for beta not 0 reads C
            // (with TMA where C is D's type and staged, else element by element).
            assert!(!ptx.contains("setp.neu.f32"), "{name}");
            let reads_c = ["ld.global", "ldmatrix", "ld.shared.v2.f32", "ld.shared.f32"]
                .iter()
                .any(|c| ptx.contains(c));
            assert_eq!(reads_c, read == SourceRead::Always, "{name}");
            let Some(report) = assemble(&ptx, "sm_90a") else {
                return;
            };
            let f = report.function(&name);
            eprintln!("{name}: {f:?}");
            if (f.spill_stores, f.spill_loads) != (0, 0) {
                bad.push(format!("{f:?}"));
            }
            if !report.warnings.is_empty() {
                bad.push(format!("{name}: {:?}", report.warnings));
            }
            // tf32 with an M-major A: A loaded from the stage into registers,
            // the `_RS` wgmma reading it (`{acc}, {a regs}, desc_b`).
            if spec.types.a.size_bytes() == 4 && spec.majors.a == OperandMajor::MN {
                rs += 1;
                assert!(ptx.contains("ld.shared.b32"), "{name}");
                assert!(
                    ptx.contains(".tf32.tf32 {") && ptx.contains("}, {%r"),
                    "{name}"
                );
            }
        }
    }
    // The stand-ins that run while each default compiles (the cooperative
    // 128x128 kernel of the same types, majors and epilogue) assemble as
    // cleanly, in both forms.
    let mut stand_ins: Vec<_> = sm90_default_specs()
        .iter()
        .map(|spec| spec.sm90_stand_in().expect("every default has a stand-in"))
        .collect();
    stand_ins.sort_by_key(|spec| spec.kernel_name());
    stand_ins.dedup();
    for spec in &stand_ins {
        assert_eq!(spec.tile[..2], [128, 128]);
        for read in [SourceRead::Never, SourceRead::Always] {
            let name = format!("{}{}", spec.kernel_name(), read.name_suffix());
            let ptx = spec.ptx_for(read).unwrap();
            let Some(report) = assemble(&ptx, "sm_90a") else {
                return;
            };
            let f = report.function(&name);
            eprintln!("{name}: {f:?}");
            if (f.spill_stores, f.spill_loads) != (0, 0) || !report.warnings.is_empty() {
                bad.push(format!("{f:?} {:?}", report.warnings));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "kernels that spill or warn:\n{}",
        bad.join("\n")
    );
    assert_eq!(
        rs, 12,
        "the six tf32 kernels with an M-major A read it from registers, in both forms"
    );
}

/// Every SM90 kernel launches as a programmatic dependent launch
/// (`dependent_launch`), so it may start while the kernel ahead of it on
/// the stream still runs: each form of each default, with the TMA-store
/// and the register-store epilogue, executes `griddepcontrol.wait` (every
/// thread, on the straight path from the entry) before its first
/// instruction that reads or writes global memory, and signals the kernel
/// behind once its loads are issued.
#[test]
fn every_sm90_kernel_waits_for_the_grid_ahead_before_touching_global_memory() {
    // Instructions that reach global memory: loads, stores, atomics, TMA
    // copies and prefetches of global addresses (`prefetch.tensormap` of a
    // parameter is not one).
    const GLOBAL: [&str; 7] = [
        "ld.global",
        "st.global",
        "atom.",
        "red.",
        "cp.async.bulk",
        "cp.reduce.async.bulk",
        "prefetch.global",
    ];
    for spec in sm90_default_specs() {
        let direct = spec
            .clone()
            .with_sm90_epilogue(EpiloguePolicy::Sm90NoSmem)
            .unwrap();
        for spec in [spec, direct] {
            assert!(spec.kernel().unwrap().dependent_launch());
            for read in [SourceRead::Never, SourceRead::Always] {
                let ptx = spec.ptx_for(read).unwrap();
                let name = format!("{}{}", spec.kernel_name(), read.name_suffix());
                let lines: Vec<&str> = ptx.lines().map(str::trim).collect();
                let wait = lines
                    .iter()
                    .position(|l| *l == "griddepcontrol.wait;")
                    .unwrap_or_else(|| panic!("{name}: no griddepcontrol.wait"));
                // Before the wait: no instruction reaches global memory
                // (a guard predicate `@%p` aside), and every branch jumps
                // forward to a label that is still before it, so no path
                // from the entry skips it.
                let labels: Vec<&str> = lines[..wait]
                    .iter()
                    .filter_map(|l| l.strip_suffix(':'))
                    .collect();
                for (at, line) in lines[..wait].iter().enumerate() {
                    let op = match line.strip_prefix('@') {
                        Some(guarded) => guarded.split_once(' ').map_or("", |(_, op)| op),
                        None => line,
                    };
                    assert!(
                        !GLOBAL.iter().any(|g| op.starts_with(g)),
                        "{name}: `{line}` touches global memory before griddepcontrol.wait"
                    );
                    if let Some(target) = op
                        .strip_prefix("bra")
                        .map(|t| t.trim_start_matches(".uni").trim().trim_end_matches(';'))
                    {
                        let ahead = lines[at + 1..wait].contains(&format!("{target}:").as_str());
                        assert!(
                            labels.contains(&target) && ahead,
                            "{name}: `{line}` may skip griddepcontrol.wait"
                        );
                    }
                }
                assert_eq!(
                    lines
                        .iter()
                        .filter(|l| **l == "griddepcontrol.wait;")
                        .count(),
                    1,
                    "{name}"
                );
                assert!(
                    lines.contains(&"griddepcontrol.launch_dependents;"),
                    "{name}"
                );
            }
        }
    }
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

/// Assembles a K-splitting `spec` (split-K, stream-K) for sm_90a in both
/// source forms after checking that its PTX waits on a tile's counter
/// (`wait`) and arrives on it (`arrive`); pushes onto `bad` every form that
/// spills or draws an assembler warning. False where no ptxas is found.
fn assemble_k_splitting(spec: &GemmSpec, wait: &str, arrive: &str, bad: &mut Vec<String>) -> bool {
    for read in [SourceRead::Never, SourceRead::Always] {
        let ptx = spec.ptx_for(read).unwrap();
        assert!(ptx.contains("ld.acquire.gpu.global.u32"), "{wait}");
        assert!(ptx.contains("red.release.gpu.global.add.u32"), "{arrive}");
        let name = format!("{}{}", spec.kernel_name(), read.name_suffix());
        let Some(report) = assemble(&ptx, "sm_90a") else {
            return false;
        };
        let f = report.function(&name);
        eprintln!("{name}: {f:?}");
        if (f.spill_stores, f.spill_loads) != (0, 0) || !report.warnings.is_empty() {
            bad.push(format!("{f:?} {:?}", report.warnings));
        }
    }
    true
}

/// The split-K kernels (cooperative, no cluster; the TMA-store epilogue up
/// to 128x128 tiles, the register store past them; the finisher's serial
/// sum and the spread one)
/// assemble for sm_90a with no spills and no assembler warning (the
/// reduction adds into the accumulators only after every wgmma of the unit
/// has completed, so no wgmma is serialized), in both source forms.
#[test]
fn split_k_kernels_assemble_without_spills() {
    use cutlet::device::gemm::{Decomposition, Gemm};
    use cutlet::kernel::gemm::{KernelSchedule, OutputMajor, TileSchedulerPolicy};
    use cutlet::numeric::ElementType::{BF16, F16, F32, TF32};
    let mut bad = Vec::new();
    let cooperative = KernelSchedule::TmaWarpSpecializedCooperative;
    let pingpong = KernelSchedule::TmaWarpSpecializedPingpong;
    for (ab, d, tile, splits, cluster, schedule) in [
        (BF16, BF16, [128, 128, 64], 4, [1, 1], cooperative),
        // 8 and 16 splits spread the reduction over the splits.
        (BF16, BF16, [128, 128, 64], 8, [1, 1], cooperative),
        (F16, F32, [128, 64, 64], 16, [1, 1], cooperative),
        (TF32, F32, [128, 128, 32], 3, [1, 1], cooperative),
        (BF16, BF16, [128, 256, 64], 2, [1, 1], cooperative),
        // The splits outer: the pick's 128x64 tiles, and ping-pong 64x128 ones.
        (BF16, BF16, [128, 64, 64], 4, [1, 1], cooperative),
        (BF16, BF16, [64, 128, 64], 2, [1, 1], pingpong),
        // In clusters: a record per CTA of the cluster tile.
        (BF16, BF16, [128, 128, 64], 8, [2, 1], cooperative),
        (BF16, BF16, [128, 64, 64], 4, [1, 2], cooperative),
        (BF16, BF16, [128, 128, 64], 16, [2, 2], cooperative),
    ] {
        let spec = Gemm::builder()
            .a(ab, OperandMajor::K)
            .b(ab, OperandMajor::K)
            .d(d, OutputMajor::N)
            .schedule(schedule)
            .tile(tile)
            .cluster(cluster)
            .decomposition(Decomposition::SplitK(splits))
            .spec()
            .unwrap();
        assert_eq!(spec.scheduler, TileSchedulerPolicy::SplitK { splits });
        assert!(
            spec.kernel_name().ends_with(&format!("_splitk{splits}")),
            "{}",
            spec.kernel_name()
        );
        let wait = "the last split's wait";
        if !assemble_k_splitting(&spec, wait, "the other splits' arrivals", &mut bad) {
            return;
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

/// The stream-K kernels assemble for sm_90a with no spills and no
/// assembler warning in both source forms: the producer walks segments in
/// its 40 registers, and the finisher's loop over the later blocks' slots
/// adds into the accumulators after the unit's last wgmma.
#[test]
fn stream_k_kernels_assemble_without_spills() {
    use cutlet::device::gemm::{Decomposition, Gemm};
    use cutlet::kernel::gemm::{OutputMajor, TileSchedulerPolicy};
    use cutlet::numeric::ElementType::{BF16, F16, F32, TF32};
    let mut bad = Vec::new();
    for (ab, d, tile, major) in [
        (BF16, BF16, [128, 128, 64], OutputMajor::N),
        (F16, F32, [128, 64, 64], OutputMajor::M),
        (TF32, F32, [128, 128, 32], OutputMajor::N),
        (BF16, BF16, [128, 256, 64], OutputMajor::N),
        (BF16, BF16, [128, 16, 64], OutputMajor::M),
    ] {
        let spec = Gemm::builder()
            .a(ab, OperandMajor::K)
            .b(ab, OperandMajor::K)
            .d(d, major)
            .tile(tile)
            .decomposition(Decomposition::StreamK)
            .spec()
            .unwrap();
        assert_eq!(spec.scheduler, TileSchedulerPolicy::StreamK);
        assert!(
            spec.kernel_name().ends_with("_streamk"),
            "{}",
            spec.kernel_name()
        );
        let wait = "the finisher's wait";
        if !assemble_k_splitting(&spec, wait, "the partial segments' arrivals", &mut bad) {
            return;
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

/// The atomic reductions of split-K and stream-K assemble for sm_90a with
/// no spills and no assembler warning in both source forms: the units add
/// their partial tiles with 16-byte `red.global.add.v4.f32`, and the
/// finisher reads one tile and sets it back to 0.
#[test]
fn atomic_reductions_assemble_without_spills() {
    use cutlet::device::gemm::{Decomposition, Gemm, Reduction};
    use cutlet::kernel::gemm::OutputMajor;
    use cutlet::numeric::ElementType::{BF16, F16, F32};
    let mut bad = Vec::new();
    for (ab, d, tile, decomposition, suffix) in [
        (
            BF16,
            BF16,
            [128, 128, 64],
            Decomposition::SplitK(8),
            "_splitk8_atomic",
        ),
        (
            F16,
            F32,
            [128, 64, 64],
            Decomposition::SplitK(3),
            "_splitk3_atomic",
        ),
        (
            BF16,
            BF16,
            [128, 128, 64],
            Decomposition::StreamK,
            "_streamk_atomic",
        ),
        (
            BF16,
            BF16,
            [128, 256, 64],
            Decomposition::StreamK,
            "_streamk_atomic",
        ),
    ] {
        let spec = Gemm::builder()
            .a(ab, OperandMajor::K)
            .b(ab, OperandMajor::K)
            .d(d, OutputMajor::N)
            .tile(tile)
            .decomposition(decomposition)
            .reduction(Reduction::Atomic)
            .spec()
            .unwrap();
        assert!(
            spec.kernel_name().ends_with(suffix),
            "{}",
            spec.kernel_name()
        );
        let ptx = spec.ptx().unwrap();
        assert!(
            ptx.contains("red.relaxed.gpu.global.add.v4.f32"),
            "{}",
            spec.kernel_name()
        );
        let wait = "the finisher's wait";
        if !assemble_k_splitting(&spec, wait, "the units' arrivals", &mut bad) {
            return;
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

/// The sliced-K schedule (two consumer warpgroups on alternate k-tiles of
/// one 64-row tile) assembles without spills for tiles up to 192 columns, 16-bit types and an f32 D, both epilogues, both forms of the
/// store (beta 0 and not): each warpgroup walks every tile, the second
/// hands its partial tile over through shared memory (`st.shared.v4.f32`
/// under named barrier 4, the unaligned `barrier.sync`: the warpgroups
/// reach it from different instructions), the first adds it.
#[test]
fn sliced_k_kernels_assemble_without_spills() {
    use cutlet::gemm::{GemmMajors, GemmTypes};
    use cutlet::kernel::gemm::{sm90_spec, KernelSchedule, OutputMajor};
    use cutlet::numeric::ElementType::{BF16, F16, F32};
    let mut bad = Vec::new();
    for (ab, d) in [(BF16, BF16), (F16, F32)] {
        for tile in [[64, 64, 64], [64, 128, 64], [64, 192, 64]] {
            let spec = sm90_spec(
                GemmTypes::new(ab, ab, d, d, F32),
                GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N),
                KernelSchedule::TmaWarpSpecializedSlicedK,
                tile,
                [1, 1],
            )
            .unwrap();
            let direct = spec
                .clone()
                .with_sm90_epilogue(EpiloguePolicy::Sm90NoSmem)
                .unwrap();
            for spec in [spec, direct] {
                assert!(spec.shared_mem_bytes() <= 232448, "{}", spec.kernel_name());
                let kernel = spec.kernel().unwrap();
                assert_eq!(kernel.shared_storage().bytes, spec.shared_mem_bytes());
                for read in [SourceRead::Never, SourceRead::Always] {
                    let name = format!("{}{}", spec.kernel_name(), read.name_suffix());
                    let ptx = spec.ptx_for(read).unwrap();
                    assert!(ptx.contains("st.shared.v4.f32"), "{name}");
                    assert!(ptx.contains("barrier.sync 4, 256;"), "{name}");
                    let Some(report) = assemble(&ptx, "sm_90a") else {
                        return;
                    };
                    let f = report.function(&name);
                    if (f.spill_stores, f.spill_loads) != (0, 0) {
                        bad.push(format!("{f:?}"));
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
    // A 128-row tile is refused by name.
    let wide = sm90_spec(
        GemmTypes::new(BF16, BF16, BF16, BF16, F32),
        GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N),
        KernelSchedule::TmaWarpSpecializedSlicedK,
        [128, 128, 64],
        [1, 1],
    )
    .unwrap_err()
    .to_string();
    assert!(
        wide.contains("TileM 128") && wide.contains("slicedk"),
        "{wide}"
    );
}
