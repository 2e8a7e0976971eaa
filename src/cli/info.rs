//! `cutlet info` (to be written).

use std::process::ExitCode;

/// Runs `cutlet info`.
pub fn run() -> ExitCode {
    ExitCode::from(2)
}
