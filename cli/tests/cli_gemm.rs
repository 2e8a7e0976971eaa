//! `cutlet gemm` as a user runs it: `--emit-ptx` prints the kernel without a
//! GPU; without a GPU a run is one error line and exit code 2; bad options
//! name the value.

mod common;

use std::process::Output;

use common::{assert_one_error_line, run_cutlet};
use cutlet_harness::gpu_present;

fn cutlet_gemm(args: &[&str]) -> Output {
    run_cutlet(&[&["gemm"], args].concat())
}

/// `cutlet gemm args`, which must exit 0; its stdout.
fn cutlet_gemm_ok(args: &[&str]) -> String {
    let output = cutlet_gemm(args);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    stdout
}

#[test]
fn emit_ptx_prints_the_selected_kernel_without_a_gpu() {
    let stdout = cutlet_gemm_ok(&[
        "--emit-ptx",
        "--mnkl",
        "512,512,512,1",
        "--a_dtype",
        "Float16",
        "--b_dtype",
        "f16",
        "--c_dtype",
        "Float32",
        "--a_major",
        "m",
        "--b_major",
        "n",
        "--c_major",
        "m",
    ]);
    assert!(stdout.contains(".target sm_80"), "{stdout}");
    assert!(
        stdout.contains(".entry gemm_sm80_f16_f16_f32_f32_f32_mn_mn_m_m_"),
        "{stdout}"
    );
}

/// s8 inputs: Int32 C/D and s32 accumulators (the default for Int8 A) on
/// the SM90 kernel's integer wgmma; mixed signedness takes PTX 8.4.
#[test]
fn emit_ptx_prints_the_int8_kernels() {
    let stdout = cutlet_gemm_ok(&[
        "--emit-ptx",
        "--a_dtype",
        "Int8",
        "--b_dtype",
        "s8",
        "--c_dtype",
        "Int32",
    ]);
    assert!(
        stdout.contains(".entry gemm_sm90_i8_i8_i32_i32_i32_"),
        "{stdout}"
    );
    assert!(stdout.contains("k32.s32.s8.s8"), "{stdout}");
    let stdout = cutlet_gemm_ok(&[
        "--emit-ptx",
        "--a_dtype",
        "u8",
        "--b_dtype",
        "s8",
        "--c_dtype",
        "bf16",
    ]);
    assert!(stdout.contains(".version 8.4"), "{stdout}");
    assert!(stdout.contains("k32.s32.u8.s8"), "{stdout}");
}

#[test]
fn emit_ptx_prints_the_gemv_and_atomic_split_k_kernels() {
    let stdout = cutlet_gemm_ok(&[
        "--emit-ptx",
        "--mnkl",
        "1,4096,4096,1",
        "--gemv",
        "8,16,8,4",
    ]);
    assert!(
        stdout.contains(".entry gemm_sm80_bf16_bf16_bf16_bf16_f32_k_k_n_n_8x16x32_w1x1x8_s4_gemv"),
        "{stdout}"
    );
    let stdout = cutlet_gemm_ok(&["--emit-ptx", "--splits", "8", "--reduction", "atomic"]);
    assert!(stdout.contains(".version 8.1"), "{stdout}");
    assert!(stdout.contains("_splitk8_atomic"), "{stdout}");
    assert!(
        stdout.contains("red.relaxed.gpu.global.add.v4.f32"),
        "{stdout}"
    );
}

#[test]
fn a_bad_reduction_or_gemv_names_the_value_and_exits_2() {
    let output = cutlet_gemm(&["--emit-ptx", "--reduction", "fast"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert!(
        stderr.contains("fast") && stderr.contains("deterministic or atomic"),
        "{stderr}"
    );
    let output = cutlet_gemm(&["--emit-ptx", "--gemv", "12,16,8,4"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert!(
        stderr.contains("TileM 12") && stderr.contains("expected 8 or 16"),
        "{stderr}"
    );
}

#[test]
fn a_bad_dtype_names_the_value_and_exits_2() {
    let output = cutlet_gemm(&["--emit-ptx", "--a_dtype", "Int4"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert!(
        stderr.contains("Int4") && stderr.contains("BFloat16"),
        "{stderr}"
    );
}

#[test]
fn an_unbuildable_configuration_is_one_error_line() {
    let output = cutlet_gemm(&[
        "--emit-ptx",
        "--a_dtype",
        "Float16",
        "--b_dtype",
        "BFloat16",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: ") && stderr.contains("a=f16, b=bf16"),
        "{stderr}"
    );
}

#[test]
fn without_a_gpu_a_run_prints_one_error_line_and_exits_2() {
    if gpu_present() {
        eprintln!(
            "skipped without_a_gpu_a_run_prints_one_error_line_and_exits_2: a GPU is present"
        );
        return;
    }
    let stderr = assert_one_error_line(&cutlet_gemm(&["--mnkl", "256,256,256,1"]));
    assert!(stderr.starts_with("error: no CUDA"), "{stderr}");
}

#[test]
fn with_a_gpu_a_small_run_checks_and_reports_cublas() {
    let Some(_device) =
        cutlet_harness::device_or_skip("with_a_gpu_a_small_run_checks_and_reports_cublas")
    else {
        return;
    };
    let stdout = cutlet_gemm_ok(&[
        "--mnkl",
        "300,200,100,2",
        "--a_dtype",
        "Float16",
        "--b_dtype",
        "Float16",
        "--c_dtype",
        "Float32",
        "--a_major",
        "m",
        "--iterations",
        "3",
    ]);
    assert!(
        stdout.contains("check vs host f64") && stdout.contains("PASS"),
        "{stdout}"
    );
    assert!(stdout.contains("TFLOP/s"), "{stdout}");
    assert!(
        stdout.contains("reference: cublasLt heuristic algo")
            || stdout.contains("reference: cublasGemmEx"),
        "{stdout}"
    );
    assert!(
        stdout.contains("alternating run by run, taking turns to go first; warm L2"),
        "{stdout}"
    );
}

#[test]
fn negative_alpha_and_beta_parse_without_an_equals_sign() {
    let stdout = cutlet_gemm_ok(&[
        "--emit-ptx",
        "--mnkl",
        "64,64,64,1",
        "--alpha",
        "-2",
        "--beta",
        "-0.5",
    ]);
    assert!(stdout.contains(".entry gemm_"), "{stdout}");
}

#[test]
fn with_a_gpu_alpha_and_beta_read_c_in_place_and_check() {
    let Some(_device) =
        cutlet_harness::device_or_skip("with_a_gpu_alpha_and_beta_read_c_in_place_and_check")
    else {
        return;
    };
    for dtype in ["bf16", "f32"] {
        let stdout = cutlet_gemm_ok(&[
            "--mnkl",
            "300,200,100,2",
            "--c_dtype",
            dtype,
            "--alpha",
            "2",
            "--beta=-0.5",
            "--iterations",
            "3",
        ]);
        assert!(
            stdout.contains("D = 2 · A · B + -0.5 · C, C in place in D"),
            "{stdout}"
        );
        assert!(
            stdout.contains("check vs host f64") && stdout.contains("PASS"),
            "{stdout}"
        );
    }
}

#[test]
fn with_a_gpu_a_cold_l2_run_rotates_operand_sets() {
    let Some(_device) =
        cutlet_harness::device_or_skip("with_a_gpu_a_cold_l2_run_rotates_operand_sets")
    else {
        return;
    };
    let stdout = cutlet_gemm_ok(&[
        "--mnkl",
        "256,256,128,1",
        "--use_cold_l2",
        "--iterations",
        "3",
    ]);
    assert!(stdout.contains("operand sets rotated)"), "{stdout}");
    assert!(stdout.contains("PASS"), "{stdout}");
}

#[test]
fn help_lists_the_cold_l2_option() {
    let stdout = cutlet_gemm_ok(&["--help"]);
    assert!(stdout.contains("--use_cold_l2"), "{stdout}");
    assert!(stdout.contains("cold L2"), "{stdout}");
}

/// A reader that has gone (`cutlet gemm --emit-ptx | head -1`) ends the
/// command quietly with status 0: no "failed printing to stdout" panic.
/// The pipe's read end is closed before the command starts, so its first
/// write fails.
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::process::{Command, Stdio};
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let output = Command::new(common::cutlet_bin())
        .args(["gemm", "--emit-ptx", "--arch", "sm90"])
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// `--stages` sets the ring's depth of the kernel that runs: a ping-pong
/// 64x64 kernel keeps 13 stages by itself, 10 where asked; 16 do not fit
/// its shared memory, an error naming the bytes.
#[test]
fn stages_set_the_rings_depth_and_name_what_does_not_fit() {
    let pingpong = [
        "--emit-ptx",
        "--arch",
        "sm90",
        "--schedule",
        "pingpong",
        "--tile_shape_mnk",
        "64,64,64",
    ];
    let stdout = cutlet_gemm_ok(&pingpong);
    assert!(
        stdout.contains("_64x64x64_w4x1x1_s13_pingpong_c1x1"),
        "{stdout}"
    );
    let stdout = cutlet_gemm_ok(&[&pingpong[..], &["--stages", "10"]].concat());
    assert!(
        stdout.contains("_64x64x64_w4x1x1_s10_pingpong_c1x1"),
        "{stdout}"
    );
    let output = cutlet_gemm(&[&pingpong[..], &["--stages", "16"]].concat());
    let stderr = assert_one_error_line(&output);
    assert!(stderr.contains("16 stages of 16384 bytes"), "{stderr}");
    assert!(stderr.contains("exceeds the 232448 bytes"), "{stderr}");
}

/// `--gemv`'s UNROLL sets the GEMV kernel's k-steps in flight: `--stages`
/// beside it is a usage error naming both options, exit code 2.
#[test]
fn stages_beside_gemv_is_a_usage_error() {
    let output = cutlet_gemm(&["--emit-ptx", "--gemv", "8,16,8,4", "--stages", "6"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert!(
        stderr.contains("--stages") && stderr.contains("--gemv"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}
