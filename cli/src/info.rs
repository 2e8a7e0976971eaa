//! `cutlet info`: the driver version and what each GPU is.

use std::fmt::Write as _;
use std::process::ExitCode;

use cutlet::device::{device_count, driver_version, Device, DeviceInfo};
use cutlet::{Error, Result};

/// Runs `cutlet info`: prints the report, or one `error: ...` line on
/// standard error and exits with code 2 when there is no driver or no GPU.
pub fn run() -> ExitCode {
    match report() {
        Ok(text) => {
            crate::out::out!("{text}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}

/// The whole report, or why there is none ([`Error::NoDriver`], or
/// [`Error::NoDevice`] for ordinal 0 when the driver reports no GPU).
fn report() -> Result<String> {
    let (major, minor) = driver_version()?;
    let count = device_count()?;
    if count == 0 {
        return Err(Error::NoDevice { ordinal: 0, count });
    }
    let mut text = format!("CUDA driver {major}.{minor}, {count} GPU(s)\n");
    for ordinal in 0..count {
        let info = Device::new(ordinal).and_then(|device| device.info())?;
        text.push_str(&describe(&info));
    }
    Ok(text)
}

/// One GPU's block of the report.
fn describe(info: &DeviceInfo) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    let (major, minor) = info.compute_capability;
    let arch = match info.arch() {
        Some(arch) => arch.to_string(),
        None => "none (cutlet needs compute capability 7.0 or newer)".to_string(),
    };
    let kernels = match major {
        8.. => "GEMM, elementwise, reductions",
        7 => "elementwise, reductions (the GEMM needs compute capability 8.0)",
        _ => "none",
    };
    let mut text = String::new();
    let lines = [
        format!("GPU {}: {}", info.ordinal, info.name),
        format!("  compute capability: {major}.{minor}"),
        format!("  cutlet arch:        {arch}"),
        format!("  cutlet kernels:     {kernels}"),
        format!("  SMs:                {}", info.sm_count),
        format!(
            "  memory:             {:.1} GiB",
            info.total_memory_bytes as f64 / GIB
        ),
        format!(
            "  shared memory:      {} KiB per block (opt-in)",
            info.max_shared_memory_per_block_optin / 1024
        ),
        format!(
            "  L2 cache:           {:.1} MiB",
            f64::from(info.l2_cache_bytes) / MIB
        ),
        format!(
            "  DRAM bandwidth:     {:.0} GB/s ceiling (2 x {} MHz x {}-bit bus)",
            info.dram_bandwidth_gbps(),
            info.memory_clock_khz / 1000,
            info.memory_bus_width_bits
        ),
    ];
    for line in lines {
        let _ = writeln!(text, "{line}");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describe_names_every_figure() {
        let info = DeviceInfo {
            ordinal: 0,
            name: "NVIDIA H100 80GB HBM3".into(),
            compute_capability: (9, 0),
            sm_count: 132,
            total_memory_bytes: 85_028_896_768,
            max_shared_memory_per_block_optin: 232_448,
            l2_cache_bytes: 52_428_800,
            memory_clock_khz: 2_619_000,
            memory_bus_width_bits: 5120,
        };
        let volta = describe(&DeviceInfo {
            compute_capability: (7, 0),
            ..info.clone()
        });
        assert!(
            volta.contains("elementwise, reductions (the GEMM needs compute capability 8.0)"),
            "{volta}"
        );
        let text = describe(&info);
        for expected in [
            "cutlet kernels:     GEMM, elementwise, reductions",
            "GPU 0: NVIDIA H100 80GB HBM3",
            "compute capability: 9.0",
            "sm_90a",
            "SMs:                132",
            "79.2 GiB",
            "227 KiB per block",
            "50.0 MiB",
            "3352 GB/s",
            "2619 MHz",
            "5120-bit",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
        }
    }
}
