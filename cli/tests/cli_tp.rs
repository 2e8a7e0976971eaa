//! `cutlet tp` as a user runs it: usage errors name the value and what is
//! accepted; without the GPUs or NCCL it needs, one error line; on a
//! machine of 2 GPUs with NCCL, each operation on a small problem passes
//! its check against one GPU (GEMM + all-reduce timed with the launch
//! latency hidden).

mod common;

use common::{assert_one_error_line, run_cutlet};
use cutlet_harness::devices_or_skip;

#[test]
fn an_unknown_op_or_a_ragged_split_is_one_error_line() {
    let output = run_cutlet(&["tp", "--op", "gather"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("ag-gemm, gemm-rs or gemm-ar"), "{stderr}");
    // N = 100 does not split over 3 GPUs.
    let output = run_cutlet(&["tp", "--gpus", "3", "--mnk", "64,100,64"]);
    assert_one_error_line(&output);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("N = 100") && stderr.contains("--gpus 3"),
        "{stderr}"
    );
}

#[test]
fn two_gpus_run_and_check_an_all_gather_gemm() {
    const NAME: &str = "two_gpus_run_and_check_an_all_gather_gemm";
    if devices_or_skip(NAME, 2).is_none() {
        let output = run_cutlet(&["tp", "--gpus", "2", "--mnk", "256,512,256"]);
        assert_one_error_line(&output);
        return;
    }
    for (op, hidden) in [("ag-gemm", false), ("gemm-rs", false), ("gemm-ar", true)] {
        let mut args = vec![
            "tp",
            "--gpus",
            "2",
            "--op",
            op,
            "--mnk",
            "300,512,256",
            "--chunks",
            "3",
            "--iterations",
            "3",
            "--warmup_iterations",
            "1",
        ];
        if hidden {
            args.push("--launch_hidden");
        }
        let output = run_cutlet(&args);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{op}: {stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(stdout.contains("check: PASS"), "{op}: {stdout}");
        assert!(
            stdout.contains("overlapped") && stdout.contains("bus bandwidth"),
            "{stdout}"
        );
        assert_eq!(
            stdout.contains("launch latency hidden"),
            hidden,
            "{op}: {stdout}"
        );
    }
}
