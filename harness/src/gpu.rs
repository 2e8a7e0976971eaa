//! The GPU test path: open device 0, or skip with a printed reason.
//!
//! Set `CUTLET_REQUIRE_GPU=1` on a GPU machine so that a missing driver or
//! GPU fails the tests instead of skipping them.

use cutlet::device::{device_count, driver_available, Device};

/// Device 0, or `None` after printing `skipped {test}: <reason>` to stderr
/// when there is no driver or no GPU. Panics with the reason instead when
/// `CUTLET_REQUIRE_GPU=1`. Any other failure to open the device panics.
pub fn device_or_skip(test: &str) -> Option<Device> {
    let reason = if !driver_available() {
        "no CUDA driver (libcuda) found".to_string()
    } else {
        match device_count() {
            Ok(0) => "the CUDA driver reports no GPU".to_string(),
            Ok(_) => match Device::new(0) {
                Ok(device) => return Some(device),
                Err(e) => panic!("{test}: a GPU is present but could not be opened: {e}"),
            },
            Err(e) => format!("the CUDA driver failed to count devices: {e}"),
        }
    };
    if std::env::var("CUTLET_REQUIRE_GPU").as_deref() == Ok("1") {
        panic!("{test}: CUTLET_REQUIRE_GPU=1 but {reason}");
    }
    eprintln!("skipped {test}: {reason}");
    None
}

/// Device 0 where it is a Hopper GPU (compute capability 9.0, which runs
/// the sm_90a kernels: wgmma, TMA, the 8-bit GEMMs); else `None`, after
/// printing `skipped {test}: {what} run on SM90 ...` (or
/// [`device_or_skip`]'s reason where there is no GPU at all).
pub fn sm90_or_skip(test: &str, what: &str) -> Option<Device> {
    let device = device_or_skip(test)?;
    let cc = device.compute_capability();
    if cc != (9, 0) {
        eprintln!(
            "skipped {test}: {what} run on SM90 (compute capability 9.0), the device is cc {cc:?}"
        );
        return None;
    }
    Some(device)
}

/// Whether the CUDA driver loads and reports at least one GPU.
pub fn gpu_present() -> bool {
    driver_available() && matches!(device_count(), Ok(n) if n > 0)
}

/// The first `need` devices, where the driver reports that many GPUs and
/// NCCL loads; else `None`, with the reason printed. With
/// `CUTLET_REQUIRE_GPUS=N` (N at least `need`) a missing GPU or NCCL fails
/// the test instead: a multi-GPU machine must run it.
pub fn devices_or_skip(test: &str, need: usize) -> Option<Vec<Device>> {
    let count = if driver_available() {
        device_count().unwrap_or(0)
    } else {
        0
    };
    let reason = if count < need {
        format!("it needs {need} GPUs and {count} were found")
    } else if !cutlet::distributed::nccl_available() {
        "NCCL (libnccl.so.2) could not be loaded".to_string()
    } else {
        let devices: Vec<Device> = (0..need)
            .map(|i| {
                Device::new(i)
                    .unwrap_or_else(|e| panic!("{test}: GPU {i} could not be opened: {e}"))
            })
            .collect();
        return Some(devices);
    };
    let required = std::env::var("CUTLET_REQUIRE_GPUS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    if required >= need {
        panic!("{test}: CUTLET_REQUIRE_GPUS={required} but {reason}");
    }
    eprintln!("skipped {test}: {reason}");
    None
}
