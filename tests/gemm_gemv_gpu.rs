//! The GEMV kernel ([`GemmSpec::gemv`]) on the GPU, run as a spec of its
//! own over the GEMM sweep's ragged shapes (`tests/common/gemm_bed.rs`: M,
//! N, K in {1, 2, 7, 8, 13, 64, 127, ...}, so M past one tile too, K not a
//! multiple of the k-step nor of 8, L in {1, 3}, alpha and beta not 0 or 1,
//! C aliasing D on every other shape, the output poisoned first) against
//! the host f64 reference, with the tolerances of `tests/gemm_gpu.rs`.

mod common;

use common::gemm_bed::sweep;
use cutlet::gemm::{GemmMajors, GemmTypes};
use cutlet::kernel::gemm::{GemmSpec, OperandMajor, OutputMajor};
use cutlet::numeric::ElementType::{self, BF16, F16, F32, TF32};
use half::{bf16, f16};

fn gemv(
    ab: ElementType,
    d: ElementType,
    d_major: OutputMajor,
    tile: [u32; 2],
    warps: u32,
    unroll: u32,
) -> GemmSpec {
    let k = OperandMajor::K;
    let spec = GemmSpec::gemv(
        GemmTypes::new(ab, ab, d, d, F32),
        GemmMajors::new(k, k, d_major),
        tile,
        warps,
        unroll,
    );
    spec.validate().unwrap();
    spec
}

#[test]
fn bf16_rows_of_8_store_bf16_row_major() {
    sweep::<bf16, bf16>(
        "bf16_rows_of_8_store_bf16_row_major",
        gemv(BF16, BF16, OutputMajor::N, [8, 16], 8, 4),
        false,
    );
}

#[test]
fn bf16_rows_of_16_store_f32_column_major() {
    sweep::<bf16, f32>(
        "bf16_rows_of_16_store_f32_column_major",
        gemv(BF16, F32, OutputMajor::M, [16, 16], 8, 4),
        false,
    );
}

#[test]
fn f16_wide_tiles_on_three_warps_store_f16() {
    sweep::<f16, f16>(
        "f16_wide_tiles_on_three_warps_store_f16",
        gemv(F16, F16, OutputMajor::N, [16, 40], 3, 2),
        false,
    );
}

/// The pick's narrow form past K = 4 N: one 8-column group a block, 16
/// warps slicing K.
#[test]
fn bf16_narrow_blocks_on_sixteen_warps_store_bf16() {
    sweep::<bf16, bf16>(
        "bf16_narrow_blocks_on_sixteen_warps_store_bf16",
        gemv(BF16, BF16, OutputMajor::N, [8, 8], 16, 4),
        false,
    );
    sweep::<f16, f16>(
        "f16_narrow_blocks_of_16_rows_on_sixteen_warps_store_f16",
        gemv(F16, F16, OutputMajor::M, [16, 8], 16, 4),
        false,
    );
}

/// The pick's form for a short K over many blocks: 4 warps slicing K.
#[test]
fn bf16_rows_of_16_on_four_warps_store_bf16() {
    sweep::<bf16, bf16>(
        "bf16_rows_of_16_on_four_warps_store_bf16",
        gemv(BF16, BF16, OutputMajor::N, [16, 16], 4, 4),
        false,
    );
}

/// The ring form (`GemmSpec::gemv_ring`): the pick's 8 rows with 8 k-steps
/// in flight, and 16 rows with 4 storing a column-major D.
#[test]
fn ring_of_k_steps_in_shared_memory_stores_bf16_f16_and_f32() {
    let ring = |ab, d, d_major, tile, warps, unroll| {
        let k = OperandMajor::K;
        let types = GemmTypes::new(ab, ab, d, d, F32);
        let spec = GemmSpec::gemv_ring(types, GemmMajors::new(k, k, d_major), tile, warps, unroll);
        spec.validate().unwrap();
        spec
    };
    sweep::<bf16, bf16>(
        "bf16_ring_rows_of_8_store_bf16",
        ring(BF16, BF16, OutputMajor::N, [8, 16], 8, 8),
        false,
    );
    sweep::<f16, f16>(
        "f16_ring_rows_of_16_store_f16_column_major",
        ring(F16, F16, OutputMajor::M, [16, 16], 8, 4),
        false,
    );
    sweep::<bf16, f32>(
        "bf16_ring_narrow_blocks_on_sixteen_warps_store_f32",
        ring(BF16, F32, OutputMajor::N, [8, 8], 16, 8),
        false,
    );
}

#[test]
fn tf32_rows_of_8_store_f32() {
    sweep::<f32, f32>(
        "tf32_rows_of_8_store_f32",
        gemv(TF32, F32, OutputMajor::N, [8, 8], 8, 4),
        false,
    );
}

/// A GEMM pinned to SM90 whose problem (3 x 1001 x 1000) the pick gives
/// the GEMV kernel but whose D the GEMV's 16-byte stores cannot take (ld
/// 1002 bf16, not a multiple of 8): the default SM90 kernel behind it runs
/// the problem (its register store takes an even ld), and D matches the
/// host. Without that kernel behind the GEMV, the run was refused.
#[test]
fn a_d_the_gemv_cannot_store_runs_on_the_kernel_behind_it() {
    use cutlet::arch::ArchKind;
    use cutlet::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand};
    use cutlet_harness::{device_or_skip, host_gemm, random_values, HostMatrix};
    const NAME: &str = "a_d_the_gemv_cannot_store_runs_on_the_kernel_behind_it";
    let Some(device) = device_or_skip(NAME) else {
        return;
    };
    if device.compute_capability() != (9, 0) {
        eprintln!("skipped {NAME}: the SM90 pick needs compute capability 9.0");
        return;
    }
    let stream = device.default_stream();
    let (m, n, k, ldd) = (3, 1001, 1000, 1002);
    let shape = GemmShape::new(m, n, k, 1);
    let a_host: Vec<bf16> = random_values(m * k, 7);
    let b_host: Vec<bf16> = random_values(n * k, 8);
    let c_host: Vec<bf16> = random_values(m * ldd, 9);
    let a = stream.clone_htod(&a_host).unwrap();
    let b = stream.clone_htod(&b_host).unwrap();
    let c = stream.clone_htod(&c_host).unwrap();
    let mut d = stream.clone_htod(&vec![bf16::NAN; m * ldd]).unwrap();
    let gemm = Gemm::builder().arch(ArchKind::Sm90).build(&device).unwrap();
    let (alpha, beta) = (1.25, -0.75);
    let mut args = Arguments::new(
        shape,
        Operand::new(a.as_view(), k, 0),
        Operand::new(b.as_view(), k, 0),
        Operand::new(c.as_view(), ldd, 0),
        OutputOperand::new(d.as_view_mut(), ldd, 0),
        alpha,
        beta,
    );
    // The kernel that takes them: the default SM90 kernel, not the GEMV.
    let taken = gemm.spec_for(&args);
    assert_eq!(taken.arch, ArchKind::Sm90, "{}", taken.kernel_name());
    assert!(
        !taken.kernel_name().contains("_gemv"),
        "{}",
        taken.kernel_name()
    );
    gemm.run(&mut args, &stream).unwrap();
    drop(args);
    let got = stream.clone_dtoh(&d).unwrap();
    let spec = gemm.spec().clone();
    let matrix = |data, ld| HostMatrix {
        data,
        ld,
        batch_stride: 0,
    };
    let want = host_gemm(
        &spec,
        shape,
        matrix(&a_host[..], k),
        matrix(&b_host[..], k),
        matrix(&c_host[..], ldd),
        alpha,
        beta,
    );
    for i in 0..m {
        for j in 0..n {
            let (g, w) = (f64::from(got[i * ldd + j].to_f32()), want[i * n + j]);
            assert!(
                (g - w).abs() <= 2e-2 * (1.0 + w.abs()),
                "D[{i}, {j}] is {g}, expected {w}"
            );
        }
    }
}
