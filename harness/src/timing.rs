//! Timing device work with CUDA events: warm-up, then the median of many
//! runs; or several workloads timed alternately, run by run, so that clock
//! and thermal drift hit them all alike.
//!
//! Each timed run (or round of runs) is queued behind a *hold*: a one-thread
//! kernel that spins on the GPU's global timer until the host has queued
//! the events and runs behind it (as nvbench's blocking kernel does). So the
//! events time the GPU's work alone, whatever the host spends in the call
//! that queues it. Without the hold, the first run after an idle stream
//! was charged its host-side preparation (tensor-map encoding, argument
//! checks, the launch call) while a run queued behind another's kernel was
//! not: with two workloads alternating, the first one paid that cost and
//! the second did not. The host's own cost is measured separately
//! (`overhead.rs`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::{sys::CUevent_flags, CudaEvent, CudaStream};

use cutlet::device::{Device, Function, KernelArgs, LaunchConfig, Module};
use cutlet::Error;

/// The shortest hold: far longer than the host needs to queue a round of
/// a few workloads (tens of microseconds), short enough that the GPU's
/// clocks do not drop while it waits.
const MIN_HOLD: Duration = Duration::from_micros(200);

/// The hold kernel: one thread spins until the global timer has advanced
/// by the nanoseconds in its parameter. PTX ISA 6.0 and sm_70, so that
/// every GPU the harness runs on can load it.
const HOLD_PTX: &str = "\
.version 6.0
.target sm_70
.address_size 64

.visible .entry cutlet_timing_hold(.param .u64 nanoseconds)
{
\t.reg .u64 %rd<4>;
\t.reg .pred %p0;
\tld.param.u64 %rd0, [nanoseconds];
\tmov.u64 %rd1, %globaltimer;
\tadd.u64 %rd2, %rd1, %rd0;
$L_spin:
\tmov.u64 %rd3, %globaltimer;
\tsetp.lt.u64 %p0, %rd3, %rd2;
\t@%p0 bra $L_spin;
\tret;
}
";

/// The hold kernel on one stream, and how long it holds: at least
/// [`MIN_HOLD`], and twice the longest time the host has taken to queue a
/// round behind it.
struct Hold<'s> {
    stream: &'s Arc<CudaStream>,
    function: Function,
    duration: Duration,
    queued_at: Option<Instant>,
}

impl<'s> Hold<'s> {
    fn new(device: &Device, stream: &'s Arc<CudaStream>) -> Result<Self, Error> {
        let module = Module::load(device, "timing hold", HOLD_PTX)?;
        Ok(Hold {
            stream,
            function: module.function("cutlet_timing_hold")?,
            duration: MIN_HOLD,
            queued_at: None,
        })
    }

    /// Queues the hold; the runs queued after it start once it ends.
    fn queue(&mut self) -> Result<(), Error> {
        let nanoseconds = u64::try_from(self.duration.as_nanos()).unwrap_or(u64::MAX);
        let mut args = KernelArgs::new(self.stream);
        args.scalar(nanoseconds);
        let config = LaunchConfig {
            grid: (1, 1, 1),
            block: (1, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: the kernel takes one .u64 parameter, the one given, touches
        // no memory and ends once the global timer has passed its deadline.
        unsafe { self.function.launch(&config, args) }?;
        self.queued_at = Some(Instant::now());
        Ok(())
    }

    /// Called once the round behind the hold is queued: lengthens later
    /// holds if this round took the host more than half of it.
    fn round_queued(&mut self) {
        if let Some(at) = self.queued_at.take() {
            self.duration = self.duration.max(2 * at.elapsed());
        }
    }
}

/// Runs `work` `warmup` times, then times `iterations` runs one by one with
/// CUDA events on `stream` of `device`, each queued behind a hold (see the
/// module's documentation); returns each run's milliseconds.
///
/// Errors: the first of `work`'s, [`Error::Driver`] for an event that
/// cannot be made, recorded or read, and the hold kernel's load or launch
/// errors.
pub fn time_ms<E: From<Error>>(
    device: &Device,
    stream: &Arc<CudaStream>,
    warmup: usize,
    iterations: usize,
    mut work: impl FnMut() -> Result<(), E>,
) -> Result<Vec<f64>, E> {
    // The alternating schedule of one workload.
    let mut times = time_alternating_ms(device, stream, warmup, iterations, &mut [&mut work])?;
    Ok(times.pop().map(|runs| runs.ms).unwrap_or_default())
}

/// One workload of [`time_alternating_ms`]: a closure that queues one run on the stream.
pub type Workload<'a, E> = &'a mut dyn FnMut() -> Result<(), E>;

/// One workload's timed runs from [`time_alternating_ms`]: each run's
/// milliseconds and its place in its round (0 for the run right behind the
/// hold).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AlternatingRuns {
    /// Each timed run's milliseconds, in the order of the rounds.
    pub ms: Vec<f64>,
    /// Each run's place in its round, in the same order.
    pub places: Vec<usize>,
}

impl AlternatingRuns {
    /// The median of the runs at each place, averaged over the places (0
    /// for no runs).
    ///
    /// The run right behind the hold starts on an idle GPU and is slower
    /// than one that follows another workload's kernel (H100, bf16 4096³
    /// GEMM: 4 to 8 µs of 175), so a workload's times gather around one
    /// value per place. Each place weighs the same, whatever the number of
    /// runs in it; the median of all runs together would fall between the
    /// clusters.
    ///
    /// ```
    /// use cutlet_harness::AlternatingRuns;
    /// let runs = AlternatingRuns {
    ///     ms: vec![0.182, 0.174, 0.181, 0.175, 0.183],
    ///     places: vec![0, 1, 0, 1, 0],
    /// };
    /// assert!((runs.median_ms() - (0.182 + 0.1745) / 2.0).abs() < 1e-12);
    /// ```
    pub fn median_ms(&self) -> f64 {
        let mut places: Vec<usize> = self.places.clone();
        places.sort_unstable();
        places.dedup();
        if places.is_empty() {
            return 0.0;
        }
        let total: f64 = places
            .iter()
            .map(|&place| {
                let at: Vec<f64> = self
                    .ms
                    .iter()
                    .zip(&self.places)
                    .filter(|(_, p)| **p == place)
                    .map(|(ms, _)| *ms)
                    .collect();
                median_ms(&at)
            })
            .sum();
        total / places.len() as f64
    }
}

/// Times `workloads` alternately: `warmup` rounds of each in turn (A, B, A,
/// B, ...), then `iterations` timed rounds in which each workload's run is
/// bracketed by its own pair of CUDA events on `stream` of `device`, the
/// round queued back to back behind a hold (see the module's
/// documentation) and read once it ends. The rounds rotate which workload
/// goes first (hold, A, B; then hold, B, A; ...), so that each takes every
/// place in a round equally often. Returns each workload's runs, in the
/// workloads' order.
///
/// Timing run by run rather than all of A then all of B means clock and
/// thermal drift over the measurement hit every workload alike; rotating
/// the order does the same for the place behind the hold, where a kernel
/// starts on an idle GPU (see [`AlternatingRuns::median_ms`]).
///
/// Errors: the first of the workloads', [`Error::Driver`] for an event
/// that cannot be made, recorded or read, and the hold kernel's load or
/// launch errors.
pub fn time_alternating_ms<E: From<Error>>(
    device: &Device,
    stream: &Arc<CudaStream>,
    warmup: usize,
    iterations: usize,
    workloads: &mut [Workload<'_, E>],
) -> Result<Vec<AlternatingRuns>, E> {
    let mut clock = EventClock::new(device, stream, workloads.len())?;
    alternate(warmup, iterations, workloads, &mut clock)
}

/// Brackets runs: `hold` before a round, `start(i)` before workload `i`'s
/// run, `stop(i)` after it, `read` after a round (the milliseconds of each
/// workload's run).
trait RoundClock<E> {
    fn hold(&mut self) -> Result<(), E>;
    fn start(&mut self, workload: usize) -> Result<(), E>;
    fn stop(&mut self, workload: usize) -> Result<(), E>;
    fn read(&mut self) -> Result<Vec<f64>, E>;
}

/// The alternating schedule of [`time_alternating_ms`], over any clock.
fn alternate<E>(
    warmup: usize,
    iterations: usize,
    workloads: &mut [Workload<'_, E>],
    clock: &mut impl RoundClock<E>,
) -> Result<Vec<AlternatingRuns>, E> {
    for _ in 0..warmup {
        for work in workloads.iter_mut() {
            work()?;
        }
    }
    let count = workloads.len();
    let mut times = vec![AlternatingRuns::default(); count];
    for round in 0..iterations {
        clock.hold()?;
        for place in 0..count {
            let index = (round + place) % count;
            clock.start(index)?;
            workloads[index]()?;
            clock.stop(index)?;
            times[index].places.push(place);
        }
        for (runs, ms) in times.iter_mut().zip(clock.read()?) {
            runs.ms.push(ms);
        }
    }
    Ok(times)
}

/// A start and an end CUDA event per workload, and the hold ahead of each
/// round.
struct EventClock<'s> {
    stream: &'s Arc<CudaStream>,
    events: Vec<(CudaEvent, CudaEvent)>,
    hold: Hold<'s>,
    /// The workload whose end event was recorded last: the round's end.
    last_stopped: Option<usize>,
}

impl<'s> EventClock<'s> {
    fn new(device: &Device, stream: &'s Arc<CudaStream>, workloads: usize) -> Result<Self, Error> {
        let event = |what: &str| {
            stream
                .context()
                .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(|e| Error::driver(format!("creating the {what} timing event"), e))
        };
        let events = (0..workloads)
            .map(|_| Ok((event("start")?, event("end")?)))
            .collect::<Result<_, Error>>()?;
        Ok(EventClock {
            stream,
            events,
            hold: Hold::new(device, stream)?,
            last_stopped: None,
        })
    }
}

impl<E: From<Error>> RoundClock<E> for EventClock<'_> {
    fn hold(&mut self) -> Result<(), E> {
        Ok(self.hold.queue()?)
    }

    fn start(&mut self, workload: usize) -> Result<(), E> {
        self.events[workload]
            .0
            .record(self.stream)
            .map_err(|e| Error::driver("recording a start event", e).into())
    }

    fn stop(&mut self, workload: usize) -> Result<(), E> {
        self.last_stopped = Some(workload);
        self.events[workload]
            .1
            .record(self.stream)
            .map_err(|e| Error::driver("recording an end event", e).into())
    }

    fn read(&mut self) -> Result<Vec<f64>, E> {
        self.hold.round_queued();
        let Some((_, last)) = self.last_stopped.take().map(|i| &self.events[i]) else {
            return Ok(Vec::new());
        };
        last.synchronize()
            .map_err(|e| Error::driver("waiting for the round's last end event", e))?;
        self.events
            .iter()
            .map(|(start, end)| {
                start
                    .elapsed_ms(end)
                    .map(f64::from)
                    .map_err(|e| Error::driver("reading an elapsed time", e).into())
            })
            .collect()
    }
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

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::{alternate, AlternatingRuns, RoundClock, Workload};
    use cutlet::Error;

    /// A clock that logs its calls and gives workload `i`'s run `round + i / 10` ms.
    struct LogClock<'l> {
        log: &'l RefCell<Vec<String>>,
        round: usize,
        workloads: usize,
    }

    impl RoundClock<Error> for LogClock<'_> {
        fn hold(&mut self) -> Result<(), Error> {
            self.log.borrow_mut().push("hold".into());
            Ok(())
        }
        fn start(&mut self, workload: usize) -> Result<(), Error> {
            self.log.borrow_mut().push(format!("start {workload}"));
            Ok(())
        }
        fn stop(&mut self, workload: usize) -> Result<(), Error> {
            self.log.borrow_mut().push(format!("stop {workload}"));
            Ok(())
        }
        fn read(&mut self) -> Result<Vec<f64>, Error> {
            self.log.borrow_mut().push("read".into());
            self.round += 1;
            Ok((0..self.workloads)
                .map(|i| self.round as f64 + i as f64 / 10.0)
                .collect())
        }
    }

    #[test]
    fn workloads_alternate_run_by_run_and_take_turns_going_first() {
        let log = RefCell::new(Vec::new());
        let mut a = || {
            log.borrow_mut().push("A".to_string());
            Ok::<(), Error>(())
        };
        let mut b = || {
            log.borrow_mut().push("B".to_string());
            Ok(())
        };
        let mut clock = LogClock {
            log: &log,
            round: 0,
            workloads: 2,
        };
        let times = alternate(
            2,
            3,
            &mut [&mut a as Workload<'_, Error>, &mut b],
            &mut clock,
        )
        .unwrap();
        let a_first = [
            "hold", "start 0", "A", "stop 0", "start 1", "B", "stop 1", "read",
        ];
        let b_first = [
            "hold", "start 1", "B", "stop 1", "start 0", "A", "stop 0", "read",
        ];
        let want: Vec<&str> = ["A", "B", "A", "B"]
            .into_iter()
            .chain(a_first)
            .chain(b_first)
            .chain(a_first)
            .collect();
        assert_eq!(*log.borrow(), want);
        assert_eq!(
            times,
            vec![
                AlternatingRuns {
                    ms: vec![1.0, 2.0, 3.0],
                    places: vec![0, 1, 0],
                },
                AlternatingRuns {
                    ms: vec![1.1, 2.1, 3.1],
                    places: vec![1, 0, 1],
                },
            ]
        );
        // Each place's median (2 and 2; 2.1 and 2.1), averaged.
        assert!((times[0].median_ms() - 2.0).abs() < 1e-12);
        assert!((times[1].median_ms() - 2.1).abs() < 1e-12);
    }

    #[test]
    fn a_failing_workload_stops_the_timing_with_its_error() {
        let log = RefCell::new(Vec::new());
        let mut runs = 0;
        let mut a = || Ok::<(), Error>(());
        let mut failing = || {
            runs += 1;
            if runs == 3 {
                Err(Error::invalid_argument("run", runs, "fewer than 3"))
            } else {
                Ok(())
            }
        };
        let mut clock = LogClock {
            log: &log,
            round: 0,
            workloads: 2,
        };
        let error = alternate(
            1,
            5,
            &mut [&mut a as Workload<'_, Error>, &mut failing],
            &mut clock,
        )
        .unwrap_err();
        assert!(error.to_string().contains("fewer than 3"), "{error}");
        // One warm-up run and one timed round before the failing third run.
        assert_eq!(log.borrow().iter().filter(|x| *x == "read").count(), 1);
    }

    #[test]
    fn no_iterations_give_empty_times_per_workload() {
        let log = RefCell::new(Vec::new());
        let mut a = || Ok::<(), Error>(());
        let mut clock = LogClock {
            log: &log,
            round: 0,
            workloads: 1,
        };
        let times = alternate(0, 0, &mut [&mut a as Workload<'_, Error>], &mut clock).unwrap();
        assert_eq!(times, vec![AlternatingRuns::default()]);
        assert_eq!(times[0].median_ms(), 0.0);
        assert!(log.borrow().is_empty());
    }
}
