//! Two-tier JIT for kernels that are slow to compile.
//!
//! The driver's assembler needs 200 to 300 ms at full optimization for a
//! GEMM kernel that keeps 128 accumulators per thread live across its
//! mainloop, and about 90 ms at optimization level 1, whose code runs 6 to 8%
//! slower (BENCHMARKS.md, "First run of a new configuration"). So a tiered
//! kernel is compiled twice from the same PTX: at [`QUICK_LEVEL`] on the
//! calling thread, which the first run launches at once, and at the full
//! level on the background compile thread (`jit_worker.rs`), whose kernel replaces the quick one for
//! every launch after it is ready ([`LoadedKernel::function`]). Both run the
//! same instructions in the same order on the same data (the tensor-core
//! products are exact and every float operation cutlet emits carries its
//! rounding mode, so no optimization level may contract or reorder it), so
//! the switch changes the speed, never a bit of the output.
//!
//! An SM90 kernel's level-1 compile is no quicker than its full one (H100,
//! bf16 128x256 cooperative: 596 ms against 462 ms), so its quick tier is
//! another kernel: a stand-in with 128x128 tiles, half the accumulators per
//! thread, compiled at the full level in about half the time
//! (`get_or_load_with_stand_in`, `GemmSpec::sm90_stand_in`). Every SM90
//! kernel adds each element's products in the same order and ends with the
//! same epilogue code, so the stand-in writes the same bits too.
//!
//! A process may exit while the background compile runs: the exit waits for
//! it (`exit.rs`), so the driver never tears down under it.
//!
//! [`LoadedKernel::function`]: super::LoadedKernel::function

use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use super::device::Device;
use super::exit::{exiting, JitScope};
use super::function::Function;
use super::jit::{jit_optimization_level, Module};
use super::jit_worker;
use crate::{Error, Result};

/// The environment variable that turns tiered compiles off (`0`): a tiered
/// kernel is then compiled once, at the full level, before its first run.
/// Tiering is also off when [`JIT_OPT_LEVEL_ENV`](super::JIT_OPT_LEVEL_ENV)
/// pins a level.
pub const JIT_TIERED_ENV: &str = "CUTLET_JIT_TIERED";

/// The driver JIT optimization level of the quick tier.
pub const QUICK_LEVEL: u32 = 1;

/// Whether tiered kernels compile in two tiers in this process: yes unless
/// [`JIT_TIERED_ENV`] is `0` or a JIT level is pinned.
pub(crate) fn tiering_enabled() -> bool {
    tiering_from(
        std::env::var(JIT_TIERED_ENV).ok().as_deref(),
        jit_optimization_level(),
    )
}

fn tiering_from(tiered: Option<&str>, pinned_level: Option<u32>) -> bool {
    pinned_level.is_none() && tiered.map(str::trim) != Some("0")
}

/// Which compile of a kernel a launch uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JitTier {
    /// The quick compile ([`QUICK_LEVEL`]), while the optimized one runs in
    /// the background (or after it failed).
    Quick,
    /// The fully optimized compile: the final kernel.
    Optimized,
}

/// The background compile of a tiered kernel and its result.
#[derive(Debug)]
pub(crate) struct Upgrade {
    /// The kernel being compiled, for the error of a failed compile.
    kernel: String,
    /// The optimized kernel, once ready: read on every launch, lock-free.
    optimized: OnceLock<Optimized>,
    /// `None` while compiling; then `Ok(())` or the compile's error, shared
    /// by every wait (the quick kernel stays in use).
    outcome: Mutex<Option<std::result::Result<(), Arc<Error>>>>,
    finished: Condvar,
}

/// The fully optimized module and its kernel.
#[derive(Debug)]
pub(crate) struct Optimized {
    pub(crate) module: Module,
    pub(crate) function: Function,
    /// From the start of the first compile until this one was ready.
    pub(crate) ready_after: Duration,
}

impl Upgrade {
    /// An upgrade of `kernel` whose compile has not finished.
    fn new(kernel: String) -> Upgrade {
        Upgrade {
            kernel,
            optimized: OnceLock::new(),
            outcome: Mutex::new(None),
            finished: Condvar::new(),
        }
    }

    /// Compiles `ptx` at the full level on the background compile thread
    /// (`jit_worker.rs`, after the compiles queued before it); `started`
    /// is when the first (quick) compile began.
    pub(crate) fn spawn(
        device: &Device,
        name: String,
        ptx: String,
        started: Instant,
    ) -> Arc<Upgrade> {
        let upgrade = Arc::new(Upgrade::new(name.clone()));
        // The scope is entered here, before the job is queued, and dropped
        // as the job's last act, after its context handle: the process's
        // exit waits for the job's driver calls (exit.rs).
        let what = format!("the optimized compile of `{name}`");
        let scope = match JitScope::enter(&what) {
            Ok(scope) => scope,
            Err(e) => {
                upgrade.finish(Err(e));
                return upgrade;
            }
        };
        let background = upgrade.clone();
        let device = device.clone();
        let job_what = what.clone();
        let job = Box::new(move || {
            let scope = scope;
            // Queued before the process began to exit, started after:
            // nothing enters the driver then.
            let compiled = if exiting() {
                Err(Error::Exiting { what: job_what })
            } else {
                Module::load_at(&device, &name, &ptx, None).and_then(|module| {
                    let function = module.function(&name)?;
                    Ok(Optimized {
                        module,
                        function,
                        ready_after: started.elapsed(),
                    })
                })
            };
            drop(device);
            background.finish(compiled);
            drop(background);
            drop(scope);
        });
        if let Err(source) = jit_worker::submit(job) {
            upgrade.finish(Err(Error::ThreadSpawn { what, source }));
        }
        upgrade
    }

    fn finish(&self, compiled: Result<Optimized>) {
        let outcome = compiled
            .map(|optimized| {
                let _ = self.optimized.set(optimized);
            })
            .map_err(Arc::new);
        *self.outcome.lock().unwrap_or_else(PoisonError::into_inner) = Some(outcome);
        self.finished.notify_all();
    }

    /// The optimized kernel, if it is ready.
    pub(crate) fn optimized(&self) -> Option<&Optimized> {
        self.optimized.get()
    }

    /// Blocks until the background compile has finished.
    ///
    /// Errors: [`Error::OptimizedCompile`] naming the kernel, with the
    /// compile's error as its source (the same for every wait).
    pub(crate) fn wait(&self) -> Result<()> {
        let mut outcome = self.outcome.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(done) = outcome.as_ref() {
                return done.clone().map_err(|source| Error::OptimizedCompile {
                    kernel: self.kernel.clone(),
                    source,
                });
            }
            outcome = self
                .finished
                .wait(outcome)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiering_is_on_unless_turned_off_or_a_level_is_pinned() {
        assert!(tiering_from(None, None));
        assert!(tiering_from(Some("1"), None));
        assert!(!tiering_from(Some("0"), None));
        assert!(!tiering_from(Some(" 0 "), None));
        assert!(!tiering_from(None, Some(4)));
        assert!(!tiering_from(Some("1"), Some(2)));
    }

    #[test]
    fn waiting_returns_the_outcome_of_a_finished_upgrade() {
        let upgrade = Upgrade::new("gemm_sm80_x".into());
        upgrade.finish(Err(Error::Jit {
            kernel: "gemm_sm80_x".into(),
            log: "ptxas fatal: the JIT rejected the ptx".into(),
            code: cudarc::driver::sys::CUresult::CUDA_ERROR_INVALID_PTX,
        }));
        assert!(upgrade.optimized().is_none());
        let error = upgrade.wait().unwrap_err();
        let Error::OptimizedCompile { kernel, source } = &error else {
            panic!("expected an optimized-compile error, got {error}");
        };
        assert_eq!(kernel, "gemm_sm80_x");
        assert!(matches!(**source, Error::Jit { .. }), "{source}");
        assert!(error.to_string().contains("rejected the ptx"), "{error}");
        // A second wait sees the same outcome.
        assert_eq!(upgrade.wait().unwrap_err().to_string(), error.to_string());
    }
}
