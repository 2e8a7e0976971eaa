//! What the bandwidth examples (`elementwise_add`, `reduce_sweep`) share:
//! the `ROWSxCOLS` argument, device 0 with its DRAM ceiling, and the median
//! of CUDA-event-timed runs.

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::CudaStream;
use cutlet::device::{Device, DeviceInfo};

/// Any error an example reports.
pub type AnyError = Box<dyn std::error::Error>;

/// Timed runs per figure.
pub const RUNS: usize = 30;

/// `ROWSxCOLS` from the first command-line argument, else 16384 x 8192.
pub fn shape_arg() -> Result<(usize, usize), AnyError> {
    Ok(match std::env::args().nth(1) {
        Some(shape) => {
            let (r, c) = shape.split_once('x').ok_or("shape must be ROWSxCOLS")?;
            (r.parse()?, c.parse()?)
        }
        None => (16384, 8192),
    })
}

/// Device 0, its attributes and its DRAM bandwidth ceiling in GB/s
/// (2 x memory clock x bus width).
pub fn open_device() -> Result<(Device, DeviceInfo, f64), AnyError> {
    let device = Device::new(0)?;
    let info = device.info()?;
    let ceiling = info.dram_bandwidth_gbps();
    Ok((device, info, ceiling))
}

/// Calls `run(i)` for `i` in `0..warmups`, then times `run(i)` for `i` in
/// `0..RUNS` one by one with CUDA events on `stream`; returns the median
/// milliseconds (the upper of the two middle runs).
pub fn median_ms<E: Into<AnyError>>(
    stream: &CudaStream,
    warmups: usize,
    mut run: impl FnMut(usize) -> Result<(), E>,
) -> Result<f64, AnyError> {
    for i in 0..warmups {
        run(i).map_err(Into::into)?;
    }
    let mut times = Vec::with_capacity(RUNS);
    for i in 0..RUNS {
        let start = stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        run(i).map_err(Into::into)?;
        let end = stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        end.synchronize()?;
        times.push(f64::from(start.elapsed_ms(&end)?));
    }
    times.sort_by(f64::total_cmp);
    Ok(times[RUNS / 2])
}
