//! Assembles generated kernels with ptxas for their targets and checks the
//! report: every kernel assembles, none spills.

mod common;

use common::probe::{module_ptx, probe_kernel};
use common::ptxas::{assemble, PtxasReport};
use cutlet::arch::ArchKind;
use cutlet::kernel::vector_add::VectorAddSpec;
use cutlet::ptx::{Kernel, ParamType, RegClass, SpecialReg};

fn assert_no_spills(report: &PtxasReport, name: &str) {
    let f = report.function(name);
    eprintln!("{name}: {f:?}");
    assert_eq!(
        (f.spill_stores, f.spill_loads),
        (0, 0),
        "{name} spills: {f:?}"
    );
}

#[test]
fn vector_add_assembles_for_every_arch_and_type() {
    for arch in ArchKind::ALL {
        for element in VectorAddSpec::SUPPORTED {
            let spec = VectorAddSpec { element, arch };
            let ptx = spec.ptx().unwrap();
            let Some(report) = assemble(&ptx, arch.ptx_target()) else {
                return;
            };
            assert_no_spills(&report, &spec.kernel_name());
        }
    }
}

/// A kernel that stages 16 bytes per thread through shared memory with
/// `cp.async` (zero-filling past `n` bytes) and writes them back.
fn cp_async_kernel(arch: ArchKind) -> String {
    let (mut k, [src, dst, smem]) = probe_kernel("cp_async_copy", 128, 16, 128 * 16);
    let size = k.reg(RegClass::B32);
    k.push(format!("selp.b32 {size}, 16, 0, 1;"));
    let holes: [(&str, &dyn std::fmt::Display); 3] =
        [("dst", &smem), ("src", &src), ("src_size", &size)];
    k.snippet("sm80/cp_async", "cp_async_16_zfill", &holes)
        .unwrap();
    k.snippet("sm80/cp_async", "cp_async_commit", &[]).unwrap();
    k.snippet("sm80/cp_async", "cp_async_wait", &[("pending", &0)])
        .unwrap();
    k.snippet("sm70/shared_memory", "bar_sync", &[]).unwrap();
    let v = k.regs(RegClass::B32, 4);
    k.snippet(
        "sm70/shared_memory",
        "ld_shared_v4_b32",
        &[
            ("d0", &v[0]),
            ("d1", &v[1]),
            ("d2", &v[2]),
            ("d3", &v[3]),
            ("addr", &smem),
        ],
    )
    .unwrap();
    k.snippet(
        "common/global_memory",
        "st_global_v4_b32",
        &[
            ("s0", &v[0]),
            ("s1", &v[1]),
            ("s2", &v[2]),
            ("s3", &v[3]),
            ("addr", &dst),
        ],
    )
    .unwrap();
    module_ptx(arch, k)
}

#[test]
fn cp_async_family_assembles_for_sm80_and_sm90a() {
    for arch in [ArchKind::Sm80, ArchKind::Sm90] {
        let Some(report) = assemble(&cp_async_kernel(arch), arch.ptx_target()) else {
            return;
        };
        assert_no_spills(&report, "cp_async_copy");
        assert_eq!(report.function("cp_async_copy").shared_bytes, 128 * 16);
    }
}

#[test]
fn mbarrier_family_assembles_for_sm90a() {
    let mut k = Kernel::new("mbarrier_round_trip").unwrap();
    k.max_threads(128, 1, 1).min_blocks_per_sm(1);
    let tmap = k.param("tmap", ParamType::TENSOR_MAP).unwrap();
    let bar = k.shared_static("bar", 8, 8).unwrap();
    let map = k.param_address(&tmap).unwrap();
    k.push(format!("prefetch.tensormap [{map}];"));
    let tid = k.special(SpecialReg::TidX);
    let leader = k.reg(RegClass::Pred);
    let skip = k.new_label("skip_init").unwrap();
    k.push(format!("setp.ne.u32 {leader}, {tid}, 0;"));
    k.push(format!("@{leader} bra {skip};"));
    k.snippet(
        "sm90/mbarrier",
        "mbarrier_init",
        &[("bar", &bar), ("count", &128)],
    )
    .unwrap();
    k.snippet("sm90/mbarrier", "fence_mbarrier_init", &[])
        .unwrap();
    k.place_label(&skip);
    k.snippet("sm70/shared_memory", "bar_sync", &[]).unwrap();
    k.snippet(
        "sm90/mbarrier",
        "mbarrier_arrive_expect_tx",
        &[("bar", &bar), ("bytes", &0)],
    )
    .unwrap();
    k.snippet(
        "sm90/mbarrier",
        "mbarrier_wait_parity",
        &[("bar", &bar), ("phase", &0)],
    )
    .unwrap();
    k.snippet("sm90/mbarrier", "mbarrier_arrive", &[("bar", &bar)])
        .unwrap();
    k.snippet(
        "sm90/mbarrier",
        "mbarrier_wait_parity",
        &[("bar", &bar), ("phase", &1)],
    )
    .unwrap();
    let ptx = module_ptx(ArchKind::Sm90, k);
    if let Some(report) = assemble(&ptx, "sm_90a") {
        assert_no_spills(&report, "mbarrier_round_trip");
    }
}

#[test]
fn shared_memory_family_assembles_for_sm70() {
    let mut k = Kernel::new("shared_round_trip").unwrap();
    k.required_threads(64, 1, 1);
    let out_param = k.param("out", ParamType::U64).unwrap();
    let tile = k.shared_static("tile", 16, 64 * 16).unwrap();
    let spill_area = k.shared_dynamic("dynamic_smem", 16).unwrap();
    let out = k.load_param(&out_param).unwrap();
    k.cvta_to_global(out, out);
    let tid = k.special(SpecialReg::TidX);
    let addr = k.reg(RegClass::B32);
    k.push(format!("shl.b32 {addr}, {tid}, 4;"));
    let smem = k.shared_address(&tile);
    k.push(format!("add.s32 {addr}, {addr}, {smem};"));
    let v = k.regs(RegClass::B32, 4);
    for (i, r) in v.iter().enumerate() {
        k.push(format!("add.s32 {r}, {tid}, {i};"));
    }
    let stores: [(&str, &dyn std::fmt::Display); 5] = [
        ("s0", &v[0]),
        ("s1", &v[1]),
        ("s2", &v[2]),
        ("s3", &v[3]),
        ("addr", &addr),
    ];
    let loads: [(&str, &dyn std::fmt::Display); 5] = [
        ("d0", &v[0]),
        ("d1", &v[1]),
        ("d2", &v[2]),
        ("d3", &v[3]),
        ("addr", &addr),
    ];
    k.snippet("sm70/shared_memory", "st_shared_v4_b32", &stores)
        .unwrap();
    k.snippet("sm70/shared_memory", "bar_sync", &[]).unwrap();
    k.snippet("sm70/shared_memory", "ld_shared_v4_b32", &loads)
        .unwrap();
    k.snippet(
        "sm70/shared_memory",
        "st_shared_v2_b32",
        &[("s0", &v[0]), ("s1", &v[1]), ("addr", &spill_area)],
    )
    .unwrap();
    k.snippet(
        "sm70/shared_memory",
        "ld_shared_v2_b32",
        &[("d0", &v[2]), ("d1", &v[3]), ("addr", &spill_area)],
    )
    .unwrap();
    k.snippet(
        "sm70/shared_memory",
        "st_shared_b32",
        &[("src", &v[0]), ("addr", &format!("{spill_area}+8"))],
    )
    .unwrap();
    k.snippet(
        "sm70/shared_memory",
        "ld_shared_b32",
        &[("dst", &v[1]), ("addr", &format!("{spill_area}+8"))],
    )
    .unwrap();
    let wide = k.reg(RegClass::B64);
    k.push(format!("mul.wide.u32 {wide}, {tid}, 16;"));
    k.push(format!("add.s64 {out}, {out}, {wide};"));
    let pred = k.reg(RegClass::Pred);
    k.push(format!("setp.lt.u32 {pred}, {tid}, 64;"));
    k.snippet(
        "common/global_memory",
        "st_global_v4_b32_pred",
        &[
            ("pred", &pred),
            ("s0", &v[0]),
            ("s1", &v[1]),
            ("s2", &v[2]),
            ("s3", &v[3]),
            ("addr", &out),
        ],
    )
    .unwrap();
    let ptx = module_ptx(ArchKind::Sm70, k);
    if let Some(report) = assemble(&ptx, "sm_70") {
        assert_no_spills(&report, "shared_round_trip");
        assert_eq!(report.function("shared_round_trip").shared_bytes, 64 * 16);
    }
}

/// `ptxas -v` output of ptxas 12.9.86: the first function as captured, the
/// second edited (spills, smem, stack) so that every field is non-zero.
const RECORDED: &str = "\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'vector_add_f32' for 'sm_80'
ptxas info    : Function properties for vector_add_f32
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 24 registers, used 0 barriers, 384 bytes cmem[0]
ptxas info    : Compile time = 2.316 ms
ptxas info    : Compiling entry function 'gemm_tile' for 'sm_80'
ptxas info    : Function properties for gemm_tile
    48 bytes stack frame, 40 bytes spill stores, 36 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 49152 bytes smem, 400 bytes cmem[0]
ptxas info    : Compile time = 10.5 ms
";

#[test]
fn parser_reads_recorded_ptxas_output() {
    let report = PtxasReport::parse(RECORDED);
    assert_eq!(report.functions.len(), 2);
    assert_eq!(
        report.function("vector_add_f32"),
        &common::ptxas::FunctionReport {
            name: "vector_add_f32".to_string(),
            registers: 24,
            spill_stores: 0,
            spill_loads: 0,
            stack_frame: 0,
            shared_bytes: 0,
        }
    );
    assert_eq!(
        report.function("gemm_tile"),
        &common::ptxas::FunctionReport {
            name: "gemm_tile".to_string(),
            registers: 255,
            spill_stores: 40,
            spill_loads: 36,
            stack_frame: 48,
            shared_bytes: 49152,
        }
    );
}

#[test]
fn malformed_ptx_fails_with_ptxas_message() {
    let mut k = Kernel::new("broken").unwrap();
    k.push("frobnicate.u32 %r0, 1;");
    let ptx = module_ptx(ArchKind::Sm80, k);
    if common::ptxas::find_ptxas().is_none() {
        assert!(assemble(&ptx, "sm_80").is_none());
        return;
    }
    let message = common::ptxas::try_assemble(&ptx, "sm_80")
        .expect("ptxas was found above")
        .expect_err("ptxas accepted malformed PTX");
    assert!(message.contains("ptxas failed for sm_80"), "{message}");
    assert!(
        message.contains("frobnicate"),
        "ptxas's message is missing: {message}"
    );
}
