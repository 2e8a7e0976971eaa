//! The background compile thread: one long-lived thread, started on the
//! first background compile, runs every one of them in turn. A process
//! that compiles many configurations at once gets their optimized kernels
//! one after another (the quick ones, compiled on the calling threads,
//! are not queued): the eight processes of the SM90 test sweep, 31 kernels
//! each, took 29-31 s instead of 24-26 s.
//!
//! # Why one thread that never ends
//! A thread that called the driver runs the driver's thread-exit handlers
//! when it ends (its thread-local state freed). A background compile
//! thread that ended while the process exited ran them against the driver's
//! exit handlers on the exiting thread: "double free or corruption (out)",
//! SIGABRT after every test had passed (H100, driver 580.159.04,
//! 2026-11-24, one test process of 8 that waited for its last optimized
//! compile and returned). [`exit.rs`](super::exit) waits for the compiles
//! in flight, but a thread's end comes after its last instruction. This
//! thread never ends: when the process exits it waits in `recv`, outside
//! the driver, and `exit` runs no other thread's thread-exit handlers.

use std::panic::AssertUnwindSafe;
use std::sync::mpsc::{self, Sender};
use std::sync::{Mutex, PoisonError};

/// One background compile.
pub(crate) type Job = Box<dyn FnOnce() + Send + 'static>;

/// The thread's queue, once the thread runs.
static WORKER: Mutex<Option<Sender<Job>>> = Mutex::new(None);

/// Queues `job` on the background compile thread, starting it the first
/// time.
///
/// Errors: the thread could not be started (the job is dropped unrun).
pub(crate) fn submit(job: Job) -> std::io::Result<()> {
    let mut worker = WORKER.lock().unwrap_or_else(PoisonError::into_inner);
    let sender = match worker.as_ref() {
        Some(sender) => sender,
        None => worker.insert(start()?),
    };
    // The receiver lives in the thread, which never ends (a job's panic is
    // caught there), so the send finds it.
    sender
        .send(job)
        .map_err(|_| std::io::Error::other("the background compile thread has ended"))
}

fn start() -> std::io::Result<Sender<Job>> {
    let (sender, jobs) = mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name("cutlet-jit".into())
        .spawn(move || {
            while let Ok(job) = jobs.recv() {
                let _ = std::panic::catch_unwind(AssertUnwindSafe(job));
            }
        })?;
    Ok(sender)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;

    #[test]
    fn jobs_run_in_order_on_one_named_thread_that_outlives_them() {
        let (done, results) = channel();
        for i in 0..3 {
            let done = done.clone();
            submit(Box::new(move || {
                let name = std::thread::current().name().map(str::to_string);
                done.send((i, name, std::thread::current().id())).unwrap();
            }))
            .unwrap();
        }
        let got: Vec<_> = (0..3).map(|_| results.recv().unwrap()).collect();
        assert_eq!(got.iter().map(|g| g.0).collect::<Vec<_>>(), [0, 1, 2]);
        assert!(got.iter().all(|g| g.1.as_deref() == Some("cutlet-jit")));
        assert!(
            got.iter().all(|g| g.2 == got[0].2),
            "one thread runs them all"
        );
        // A job that panics leaves the thread running the next.
        submit(Box::new(|| panic!("a planned panic in a job"))).unwrap();
        let (after, seen) = channel();
        submit(Box::new(move || {
            after.send(std::thread::current().id()).unwrap()
        }))
        .unwrap();
        assert_eq!(seen.recv().unwrap(), got[0].2);
    }
}
