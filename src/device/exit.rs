//! A process exits cleanly while the driver's JIT is compiling.
//!
//! # What goes wrong without this
//! `exit(3)` (returning from `main`, `std::process::exit`, a panic that
//! ends `main`) runs the process's exit handlers on the exiting thread
//! while every other thread keeps running. The CUDA driver registers such
//! handlers (`libcuda` and its JIT compiler free their state in them). A
//! thread still inside `cuModuleLoadDataEx` then compiles on freed memory:
//! `free(): invalid pointer` (SIGABRT) or SIGSEGV after every test passed.
//! A core dump of that crash (H100, driver 580.159.04, 2026-11-23) shows the
//! main thread in `exit` -> a `libcuda` exit handler -> `free`, and the
//! `cutlet-jit` thread in `cuModuleLoadDataEx` ->
//! `libnvidia-ptxjitcompiler` -> `free` -> `abort`. The tiered GEMM JIT
//! exposes every program that runs a new configuration and exits within
//! half a second; a user thread compiling while `main` returns is exposed
//! the same way.
//!
//! # The mechanism, and why it is sound
//! Every driver JIT load runs inside a [`JitScope`], counted here; a
//! background compile holds one for its whole job, so the job's last
//! driver call (dropping its context handle included) is inside it; the
//! thread that runs the jobs never ends (`jit_worker.rs` says why).
//! [`JitScope::enter`] registers [`drain_at_exit`] with `atexit(3)` the
//! first time (before the load) and again after the first load has
//! returned. C's `exit` runs handlers in the reverse order of their
//! registration, and both registrations come after `cuInit` (a [`Device`]
//! opened) and the second after the JIT compiler library was loaded, so
//! `drain_at_exit` runs before any handler of the driver's. It marks the
//! process as exiting, so no new load enters the driver
//! ([`Error::Exiting`]), then waits until the loads in flight have
//! returned. Only then do the driver's handlers run, with no thread inside
//! the driver's JIT. The wait is bounded by [`EXIT_WAIT`]: a compile takes
//! well under a second (BENCHMARKS.md), so the bound is never reached by a
//! working driver, and a hung one cannot hang the exit.
//!
//! Dropping a [`Device`] or an adapter while a compile runs is safe without
//! this module: the compile holds its own handle to the context.
//!
//! [`Device`]: super::Device

use std::ffi::c_int;
use std::sync::{Condvar, Mutex, Once, PoisonError};
use std::time::Duration;

use crate::{Error, Result};

/// The longest the exit handler waits for compiles in flight.
pub(crate) const EXIT_WAIT: Duration = Duration::from_secs(10);

/// Loads in flight, and whether the process has begun to exit.
#[derive(Debug, Default)]
struct State {
    in_flight: usize,
    exiting: bool,
}

/// The count of loads in flight and the door the exit handler closes.
#[derive(Debug, Default)]
pub(crate) struct ExitGate {
    state: Mutex<State>,
    drained: Condvar,
}

/// The process's gate.
static GATE: ExitGate = ExitGate {
    state: Mutex::new(State {
        in_flight: 0,
        exiting: false,
    }),
    drained: Condvar::new(),
};
static BEFORE_FIRST_LOAD: Once = Once::new();
static AFTER_FIRST_LOAD: Once = Once::new();

extern "C" {
    /// C's `atexit`: `handler` runs when the process exits through `exit`.
    fn atexit(handler: extern "C" fn()) -> c_int;
}

impl ExitGate {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts a load in flight, unless the gate is closed.
    fn enter<'g>(&'g self, what: &str) -> Result<JitScope<'g>> {
        let mut state = self.state();
        if state.exiting {
            return Err(Error::Exiting {
                what: what.to_string(),
            });
        }
        state.in_flight += 1;
        Ok(JitScope { gate: self })
    }

    /// Closes the gate and waits until no load is in flight, at most
    /// `timeout`; whether none is.
    fn close_and_drain(&self, timeout: Duration) -> bool {
        let mut state = self.state();
        state.exiting = true;
        let (state, _) = self
            .drained
            .wait_timeout_while(state, timeout, |state| state.in_flight > 0)
            .unwrap_or_else(PoisonError::into_inner);
        state.in_flight == 0
    }
}

/// One driver JIT load (or a job of them) in flight: while any scope is
/// alive, the exit handler waits.
#[derive(Debug)]
#[must_use = "the scope covers the load only while it is alive"]
pub(crate) struct JitScope<'g> {
    gate: &'g ExitGate,
}

impl JitScope<'static> {
    /// Counts a load in flight in this process, and registers the exit
    /// handler the first time. `what` names the load in the error.
    ///
    /// Errors: [`Error::Exiting`] when the process has begun to exit (no new
    /// compile may enter the driver then).
    pub(crate) fn enter(what: &str) -> Result<JitScope<'static>> {
        BEFORE_FIRST_LOAD.call_once(register);
        GATE.enter(what)
    }

    /// Called after a load returned: registers the exit handler once more,
    /// now that the driver's JIT compiler library is loaded and has
    /// registered its own handlers.
    pub(crate) fn loaded(&self) {
        AFTER_FIRST_LOAD.call_once(register);
    }
}

impl Drop for JitScope<'_> {
    fn drop(&mut self) {
        let mut state = self.gate.state();
        state.in_flight -= 1;
        if state.in_flight == 0 {
            self.gate.drained.notify_all();
        }
    }
}

fn register() {
    // SAFETY: `drain_at_exit` is an `extern "C" fn()` that lives for the
    // whole process (a static function); `atexit` only stores it. A failed
    // registration (non-zero, no room) leaves the process as it was without
    // this module.
    let _ = unsafe { atexit(drain_at_exit) };
}

/// Whether the process has begun to exit (no new load enters the driver).
pub(crate) fn exiting() -> bool {
    GATE.state().exiting
}

/// The exit handler: no new load enters the driver, and the loads in
/// flight finish (up to [`EXIT_WAIT`]) before the driver's own handlers run.
/// It may run twice (it is registered twice); the second run finds nothing
/// in flight.
extern "C" fn drain_at_exit() {
    GATE.close_and_drain(EXIT_WAIT);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Instant;

    #[test]
    fn closing_waits_for_the_loads_in_flight_and_refuses_new_ones() {
        let gate = Arc::new(ExitGate::default());
        let inside = Arc::new(std::sync::Barrier::new(2));
        let (g, i) = (gate.clone(), inside.clone());
        let load = std::thread::spawn(move || {
            let _scope = g.enter("a slow load").unwrap();
            i.wait();
            std::thread::sleep(Duration::from_millis(200));
            Instant::now()
        });
        inside.wait();
        assert!(gate.close_and_drain(Duration::from_secs(10)));
        let drained_at = Instant::now();
        let finished_at = load.join().unwrap();
        assert!(
            finished_at <= drained_at,
            "closing returned before the load finished"
        );
        let refused = gate.enter("a late load").unwrap_err();
        assert!(matches!(refused, Error::Exiting { .. }), "{refused}");
        assert!(refused.to_string().contains("a late load"), "{refused}");
    }

    #[test]
    fn closing_gives_up_after_its_bound() {
        let gate = ExitGate::default();
        let _stuck = gate.enter("a load that never returns").unwrap();
        assert!(!gate.close_and_drain(Duration::from_millis(20)));
    }
}
