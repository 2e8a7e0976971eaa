//! Where the `cutlet` binary under test is.

use std::path::PathBuf;

/// The `cutlet` binary: `$CUTLET_BIN` when set (on a machine where the
/// binaries were copied from the build machine, such as the GPU machine),
/// else the one cargo built for these tests.
pub fn cutlet_bin() -> PathBuf {
    std::env::var_os("CUTLET_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_cutlet")))
}
