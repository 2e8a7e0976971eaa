//! The CUDA driver itself: is it there, which version, how many devices.
//!
//! cudarc loads `libcuda` lazily and panics when it is missing, so every
//! entry point of the runtime asks [`driver_available`] first and returns
//! [`Error::NoDriver`] instead.

use std::sync::OnceLock;

use cudarc::driver::{result, sys};

use crate::{Error, Result};

/// Whether the CUDA driver library (`libcuda`) can be loaded in this process.
///
/// Checked once per process (a `dlopen`) and remembered.
pub fn driver_available() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    *PRESENT.get_or_init(|| {
        // SAFETY: `is_culib_present` only tries to `dlopen` the candidate
        // library names and drops what it opened; it calls no driver function.
        unsafe { sys::is_culib_present() }
    })
}

/// Returns `Err(Error::NoDriver)` unless the driver library loads.
pub(crate) fn require_driver() -> Result<()> {
    if driver_available() {
        Ok(())
    } else {
        Err(Error::NoDriver)
    }
}

/// The CUDA version the installed driver supports, as `(major, minor)`,
/// e.g. `(12, 8)` for a driver that reports 12080.
pub fn driver_version() -> Result<(u32, u32)> {
    require_driver()?;
    let mut version: std::ffi::c_int = 0;
    // SAFETY: the driver library is loaded (checked above); `version` is a
    // valid, writable `c_int` for the duration of the call.
    unsafe { sys::cuDriverGetVersion(&mut version) }
        .result()
        .map_err(|e| Error::driver("reading the driver version", e))?;
    Ok(split_driver_version(version))
}

/// Splits the driver's encoded version `1000 * major + 10 * minor` into
/// `(major, minor)`; a negative value (never reported by a real driver) is `(0, 0)`.
pub(crate) fn split_driver_version(encoded: i32) -> (u32, u32) {
    let encoded = u32::try_from(encoded).unwrap_or(0);
    (encoded / 1000, (encoded % 1000) / 10)
}

/// Initializes the driver (`cuInit`), once per process as far as the driver is
/// concerned. Returns `Ok(false)` when the driver is present but reports no device.
pub(crate) fn init() -> Result<bool> {
    require_driver()?;
    match result::init() {
        Ok(()) => Ok(true),
        Err(e) if e.0 == sys::CUresult::CUDA_ERROR_NO_DEVICE => Ok(false),
        Err(e) => Err(Error::driver("initializing the CUDA driver (cuInit)", e)),
    }
}

/// The number of CUDA devices the driver sees; 0 when the driver is present
/// but finds no GPU.
pub fn device_count() -> Result<usize> {
    if !init()? {
        return Ok(0);
    }
    let count =
        result::device::get_count().map_err(|e| Error::driver("counting CUDA devices", e))?;
    Ok(usize::try_from(count).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_versions_split_into_major_and_minor() {
        assert_eq!(split_driver_version(12080), (12, 8));
        assert_eq!(split_driver_version(13000), (13, 0));
        assert_eq!(split_driver_version(11040), (11, 4));
        assert_eq!(split_driver_version(-1), (0, 0));
    }

    #[test]
    fn no_driver_is_an_error_not_a_panic() {
        if driver_available() {
            return;
        }
        assert!(matches!(driver_version(), Err(Error::NoDriver)));
        assert!(matches!(device_count(), Err(Error::NoDriver)));
    }
}
