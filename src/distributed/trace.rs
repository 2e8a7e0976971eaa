//! A diagnostic: with `CUTLET_TP_TRACE=1` in the environment, each
//! operation of [`TpRank`](super::TpRank) records CUDA events around its
//! GEMMs and collectives and prints their start and end (µs from the
//! operation's start) on stderr once it completes, so that one can see
//! whether they overlap. The operation then waits for its work before it
//! returns; without the variable nothing is recorded.

use std::sync::Arc;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaStream};

use crate::{Error, Result};

/// The events of one operation.
pub(crate) struct Timeline {
    t0: CudaEvent,
    spans: Vec<(String, CudaEvent, CudaEvent)>,
}

fn timed_event(stream: &Arc<CudaStream>) -> Result<CudaEvent> {
    let event = stream
        .context()
        .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
        .map_err(|e| Error::driver("creating a trace event", e))?;
    event
        .record(stream)
        .map_err(|e| Error::driver("recording a trace event", e))?;
    Ok(event)
}

impl Timeline {
    /// A timeline starting now on `stream`, where `CUTLET_TP_TRACE` is set
    /// (to anything but `0`).
    pub(crate) fn start(stream: &Arc<CudaStream>) -> Result<Option<Timeline>> {
        match std::env::var("CUTLET_TP_TRACE") {
            Ok(v) if v != "0" => Ok(Some(Timeline {
                t0: timed_event(stream)?,
                spans: Vec::new(),
            })),
            _ => Ok(None),
        }
    }

    /// Runs `work` (which enqueues on `stream`), between two events where
    /// there is a timeline.
    pub(crate) fn span<R>(
        timeline: &mut Option<Timeline>,
        stream: &Arc<CudaStream>,
        label: impl FnOnce() -> String,
        work: impl FnOnce() -> Result<R>,
    ) -> Result<R> {
        let Some(timeline) = timeline else {
            return work();
        };
        let begin = timed_event(stream)?;
        let result = work()?;
        timeline.spans.push((label(), begin, timed_event(stream)?));
        Ok(result)
    }

    /// Waits for every span and prints them, one line each.
    pub(crate) fn print(timeline: Option<Timeline>, what: &str, rank: usize) -> Result<()> {
        let Some(timeline) = timeline else {
            return Ok(());
        };
        let mut lines = format!("[cutlet tp trace] rank {rank}: {what}\n");
        for (label, begin, end) in &timeline.spans {
            end.synchronize()
                .map_err(|e| Error::driver("waiting for a trace event", e))?;
            let at = |e: &CudaEvent| {
                timeline
                    .t0
                    .elapsed_ms(e)
                    .map(|ms| f64::from(ms) * 1e3)
                    .map_err(|err| Error::driver("reading a trace event", err))
            };
            let (b, e) = (at(begin)?, at(end)?);
            lines += &format!("  {b:9.1} .. {e:9.1} us  ({:8.1})  {label}\n", e - b);
        }
        eprint!("{lines}");
        Ok(())
    }
}
