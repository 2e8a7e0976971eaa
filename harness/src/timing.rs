//! Timing device work with CUDA events: warm-up, then the median of many runs.

use std::sync::Arc;

use cudarc::driver::{sys::CUevent_flags, CudaStream};

use cutlet::Error;

/// Runs `work` `warmup` times, then times `iterations` runs one by one with
/// CUDA events on `stream`; returns each run's milliseconds.
///
/// Errors: the first of `work`'s, and [`Error::Driver`] for an event that
/// cannot be made, recorded or read.
pub fn time_ms<E: From<Error>>(
    stream: &Arc<CudaStream>,
    warmup: usize,
    iterations: usize,
    mut work: impl FnMut() -> Result<(), E>,
) -> Result<Vec<f64>, E> {
    for _ in 0..warmup {
        work()?;
    }
    let event = |what: &str| {
        stream
            .context()
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(|e| Error::driver(format!("creating the {what} timing event"), e))
    };
    let (start, end) = (event("start")?, event("end")?);
    let mut times = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        start
            .record(stream)
            .map_err(|e| Error::driver("recording the start event", e))?;
        work()?;
        end.record(stream)
            .map_err(|e| Error::driver("recording the end event", e))?;
        end.synchronize()
            .map_err(|e| Error::driver("waiting for the end event", e))?;
        let ms = start
            .elapsed_ms(&end)
            .map_err(|e| Error::driver("reading the elapsed time", e))?;
        times.push(f64::from(ms));
    }
    Ok(times)
}

/// The median of `times` (0 for none).
///
/// ```
/// use cutlet_harness::median_ms;
/// assert_eq!(median_ms(&[3.0, 1.0, 2.0]), 2.0);
/// assert_eq!(median_ms(&[4.0, 1.0, 2.0, 3.0]), 2.5);
/// ```
pub fn median_ms(times: &[f64]) -> f64 {
    if times.is_empty() {
        return 0.0;
    }
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    }
}
