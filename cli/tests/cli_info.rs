//! `cutlet info` as a user runs it: a report where a GPU is present, one
//! plain error line and exit code 2 where none is.

mod common;

use common::{assert_one_error_line, run_cutlet};
use cutlet_harness::{device_or_skip, gpu_present};

use cutlet::device::{device_count, driver_available, Device};

#[test]
fn without_a_gpu_info_prints_one_error_line_and_exits_2() {
    if gpu_present() {
        eprintln!("skipped without_a_gpu_info_prints_one_error_line_and_exits_2: a GPU is present");
        return;
    }
    let stderr = assert_one_error_line(&run_cutlet(&["info"]));
    let expected = if driver_available() {
        "error: no CUDA device with ordinal 0: the driver reports 0 device(s)"
    } else {
        "error: no CUDA driver found: libcuda.so could not be loaded; cutlet needs the NVIDIA driver"
    };
    assert_eq!(stderr.trim_end(), expected);
}

#[test]
fn with_a_gpu_info_names_each_compute_capability() {
    if device_or_skip("with_a_gpu_info_names_each_compute_capability").is_none() {
        return;
    }
    let output = run_cutlet(&["info"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.starts_with("CUDA driver "), "{stdout}");
    let count = device_count().expect("device count");
    for ordinal in 0..count {
        let info = Device::new(ordinal)
            .and_then(|d| d.info())
            .expect("device info");
        let (major, minor) = info.compute_capability;
        assert!(
            stdout.contains(&format!("GPU {ordinal}: {}", info.name)),
            "{stdout}"
        );
        assert!(
            stdout.contains(&format!("compute capability: {major}.{minor}")),
            "{stdout}"
        );
    }
}
