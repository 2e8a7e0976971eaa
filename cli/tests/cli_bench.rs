//! `cutlet bench quantize` as a user runs it: three timings of one
//! quantization where a GPU is present; a bad argument is one plain error
//! line naming it, with or without a GPU.

mod common;

use common::{assert_one_error_line, run_cutlet};
use cutlet_harness::device_or_skip;

#[test]
fn bench_quantize_names_a_bad_scale_or_output_type() {
    let stderr = assert_one_error_line(&run_cutlet(&["bench", "quantize", "--scale", "7x7"]));
    assert!(
        stderr.contains("--scale") && stderr.contains("`7x7`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("row, tensor, 1x128, 128x128 or given"),
        "{stderr}"
    );
    let stderr = assert_one_error_line(&run_cutlet(&["bench", "quantize", "--to", "e3m4"]));
    assert!(
        stderr.contains("--to") && stderr.contains("`e3m4`"),
        "{stderr}"
    );
}

#[test]
fn bench_quantize_prints_three_timings_for_each_scale() {
    if device_or_skip("bench_quantize_prints_three_timings_for_each_scale").is_none() {
        return;
    }
    for (scale, to) in [
        ("row", "e4m3"),
        ("tensor", "s8"),
        ("1x128", "e4m3"),
        ("128x128", "e5m2"),
        ("given", "e4m3"),
    ] {
        let output = run_cutlet(&[
            "bench", "quantize", "--shape", "384x1024", "--scale", scale, "--to", to, "--runs",
            "3", "--batch", "2",
        ]);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{scale}: stderr: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(stdout.contains("[384 x 1024]"), "{stdout}");
        for line in ["per call (median): ", "launch latency hidden", "batch of 2"] {
            assert!(stdout.contains(line), "{scale}: no `{line}` in {stdout}");
        }
        assert_eq!(stdout.matches("% of the ").count(), 3, "{stdout}");
    }
}
