//! Where the `cutlet` binary under test is, and how a refusal looks.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// The `cutlet` binary: `$CUTLET_BIN` when set (on a machine where the
/// binaries were copied from the build machine, such as the GPU machine),
/// else the one cargo built for these tests.
pub fn cutlet_bin() -> PathBuf {
    std::env::var_os("CUTLET_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_cutlet")))
}

/// Runs `cutlet ARGS...` with `RUST_BACKTRACE=1` (so that a panic would show
/// in stderr) and returns what it printed and its status.
pub fn run_cutlet(args: &[&str]) -> Output {
    Command::new(cutlet_bin())
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("the cutlet binary runs")
}

/// Asserts that `output` is a refusal as a user sees it: exit code 2, nothing
/// on stdout, one line on stderr and no panic; returns that stderr.
pub fn assert_one_error_line(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert!(
        output.stdout.is_empty(),
        "stdout: {}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert_eq!(stderr.lines().count(), 1, "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "stderr: {stderr}");
    stderr
}
