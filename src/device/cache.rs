//! The process-wide module cache: each kernel spec is generated and
//! JIT-compiled once per device per process; later calls only look it up.
//!
//! A lookup is one hash of the spec, one short global lock, an equality
//! check, and an atomic read of the slot: well under the 10 µs host budget
//! of a cached GEMM call. Concurrent first calls for the same spec and device
//! compile once: the first takes the slot's init lock and the others wait on
//! it. If compiling fails, the error goes to the caller that compiled, the
//! slot stays empty, and each waiting caller then tries again itself (so a
//! failing spec is retried, never cached as failed).
//!
//! [`get_or_load_tiered`] is the same cache for kernels that are slow to
//! compile (GEMM): a quick compile first, the optimized one in the
//! background (`tiered.rs`).

use std::any::{Any, TypeId};
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use super::device::Device;
use super::exit::JitScope;
use super::function::Function;
use super::jit::Module;
use super::tiered::{tiering_enabled, JitTier, Upgrade, QUICK_LEVEL};
use crate::Result;

/// A compiled kernel, as the cache hands it out.
#[derive(Debug)]
pub struct LoadedKernel {
    module: Module,
    function: Function,
    generate_time: Duration,
    /// For a tiered kernel: the optimized compile running in the background.
    upgrade: Option<Arc<Upgrade>>,
    /// Whether the quick compile is another kernel standing in for this
    /// one ([`get_or_load_with_stand_in`]) rather than this kernel's PTX
    /// at a lower level.
    stand_in: bool,
}

impl LoadedKernel {
    /// The module the next launch uses (its JIT info log, compile time): the
    /// optimized one once a tiered kernel has it.
    pub fn module(&self) -> &Module {
        match self.optimized() {
            Some(optimized) => &optimized.module,
            None => &self.module,
        }
    }

    /// The kernel to launch: for a tiered kernel, the quick compile until the
    /// optimized one is ready, then that one (one atomic read). Where the
    /// quick compile is a stand-in kernel ([`stand_in`](Self::stand_in)),
    /// the two take different launch geometries: read both at once with
    /// [`current`](Self::current).
    pub fn function(&self) -> &Function {
        self.current().0
    }

    /// The kernel to launch and which compile it is, read together (one
    /// atomic read): a launch of a kernel with a stand-in uses the
    /// stand-in's grid, shared memory and parameters while this says
    /// [`JitTier::Quick`].
    pub fn current(&self) -> (&Function, JitTier) {
        match self.optimized() {
            Some(optimized) => (&optimized.function, JitTier::Optimized),
            None if self.upgrade.is_some() => (&self.function, JitTier::Quick),
            None => (&self.function, JitTier::Optimized),
        }
    }

    /// Whether the quick compile is another kernel that stands in for this
    /// one while it compiles ([`get_or_load_with_stand_in`]: the SM90
    /// GEMMs), rather than this kernel's own PTX at [`QUICK_LEVEL`].
    pub fn stand_in(&self) -> bool {
        self.stand_in
    }

    /// Which compile [`function`](Self::function) returns now: always
    /// [`JitTier::Optimized`] for a kernel compiled in one tier.
    pub fn tier(&self) -> JitTier {
        self.current().1
    }

    /// Blocks until a tiered kernel's optimized compile has finished (returns
    /// at once otherwise), so that the launches after it, a benchmark's for
    /// instance, run the final code.
    ///
    /// Errors: [`Error::OptimizedCompile`](crate::Error::OptimizedCompile) with the compile's error as its source
    /// if it failed; the quick kernel then stays in use.
    pub fn wait_optimized(&self) -> Result<()> {
        let Some(upgrade) = &self.upgrade else {
            return Ok(());
        };
        upgrade.wait()
    }

    /// For a tiered kernel whose optimized compile has finished: the time
    /// from the start of the first compile until it was ready.
    pub fn optimized_after(&self) -> Option<Duration> {
        self.optimized().map(|optimized| optimized.ready_after)
    }

    fn optimized(&self) -> Option<&super::tiered::Optimized> {
        self.upgrade.as_deref().and_then(Upgrade::optimized)
    }

    /// Time spent generating the PTX (the closure given to [`get_or_load`]).
    pub fn generate_time(&self) -> Duration {
        self.generate_time
    }

    /// Time the driver spent compiling and loading the PTX before the first
    /// launch (for a tiered kernel, the quick compile: the stand-in's, for
    /// a kernel with one).
    pub fn compile_time(&self) -> Duration {
        self.module.compile_time()
    }

    /// Total first-call cost: generating plus compiling.
    pub fn first_call_time(&self) -> Duration {
        self.generate_time + self.module.compile_time()
    }
}

/// Returns the kernel compiled for (`spec`, `device`), generating its PTX
/// with `generate` and compiling it on the first call in this process.
///
/// `kernel_name` gives the `.entry` name to look up in the module (also the
/// label in errors); like `generate`, it is called only on a miss, so a
/// cached call neither formats nor hashes a name. Two specs are the same entry when they have the same
/// type and compare equal, so the spec must hold every fact that changes the
/// generated PTX.
pub fn get_or_load<K, N, F>(
    device: &Device,
    spec: &K,
    kernel_name: N,
    generate: F,
) -> Result<Arc<LoadedKernel>>
where
    K: Hash + Eq + Clone + Send + Sync + 'static,
    N: FnOnce() -> String,
    F: FnOnce() -> Result<String>,
{
    global().get_or_load(device, spec, kernel_name, generate, false)
}

/// As [`get_or_load`], for kernels that are slow to compile: on a miss the
/// PTX is compiled at JIT level [`QUICK_LEVEL`] for the first launches and,
/// on a background thread, at the full level, which later launches use once
/// it is ready ([`LoadedKernel::function`], [`LoadedKernel::wait_optimized`]).
/// With tiering off ([`JIT_TIERED_ENV`](super::JIT_TIERED_ENV) `=0`, or a
/// pinned [`JIT_OPT_LEVEL_ENV`](super::JIT_OPT_LEVEL_ENV)) this is
/// [`get_or_load`]. Both share one cache: whichever call compiles a spec
/// first decides whether it has tiers.
pub fn get_or_load_tiered<K, N, F>(
    device: &Device,
    spec: &K,
    kernel_name: N,
    generate: F,
) -> Result<Arc<LoadedKernel>>
where
    K: Hash + Eq + Clone + Send + Sync + 'static,
    N: FnOnce() -> String,
    F: FnOnce() -> Result<String>,
{
    global().get_or_load(device, spec, kernel_name, generate, tiering_enabled())
}

/// As [`get_or_load_tiered`], where the quick tier is another kernel:
/// `stand_in` gives its `.entry` name and PTX, compiled at the full level
/// on this thread for the first launches, while the kernel of `generate`
/// compiles on a background thread. The caller launches
/// [`LoadedKernel::current`]'s function with the stand-in's own launch
/// geometry while it is [`JitTier::Quick`], and must only give a stand-in
/// that computes the same bits. `stand_in` is called only on a miss, and
/// only with tiering on; with tiering off this is [`get_or_load`].
pub fn get_or_load_with_stand_in<K, N, F, S>(
    device: &Device,
    spec: &K,
    kernel_name: N,
    generate: F,
    stand_in: S,
) -> Result<Arc<LoadedKernel>>
where
    K: Hash + Eq + Clone + Send + Sync + 'static,
    N: FnOnce() -> String,
    F: FnOnce() -> Result<String>,
    S: FnOnce() -> Result<(String, String)>,
{
    if !tiering_enabled() {
        return get_or_load(device, spec, kernel_name, generate);
    }
    global().get_or_build(device, spec, || {
        let start = Instant::now();
        let (quick_name, quick_ptx) = stand_in()?;
        let ptx = generate()?;
        let generate_time = start.elapsed();
        let optimized = Some((kernel_name(), ptx));
        let quick = (quick_name, quick_ptx, None);
        compile(device, quick, optimized, generate_time, true)
    })
}

/// Compiles `quick` (`.entry` name, PTX, JIT level; `None`: the full one)
/// on this thread and, where given, `optimized` (name, PTX) at the full
/// level on the background compile thread, queued once the quick one is
/// loaded (the first launch waits only for the quick one).
fn compile(
    device: &Device,
    (name, ptx, level): (String, String, Option<u32>),
    optimized: Option<(String, String)>,
    generate_time: Duration,
    stand_in: bool,
) -> Result<LoadedKernel> {
    // The load, the kernel lookup and the start of a background compile
    // are one step for the process's exit, which waits for it (exit.rs).
    let _scope = JitScope::enter(&format!("jit compilation of `{name}`"))?;
    let compile_start = Instant::now();
    let module = match level {
        Some(level) => Module::load_at(device, &name, &ptx, Some(level))?,
        None => Module::load(device, &name, &ptx)?,
    };
    let function = module.function(&name)?;
    let upgrade = optimized.map(|(name, ptx)| Upgrade::spawn(device, name, ptx, compile_start));
    Ok(LoadedKernel {
        module,
        function,
        generate_time,
        upgrade,
        stand_in,
    })
}

/// The process-wide cache behind [`get_or_load`].
fn global() -> &'static ModuleCache {
    static CACHE: OnceLock<ModuleCache> = OnceLock::new();
    CACHE.get_or_init(ModuleCache::default)
}

/// A map from (spec type, spec hash, device ordinal) to the slots of the
/// specs with that hash (a list, so a hash collision is told apart by `==`).
#[derive(Default)]
struct ModuleCache {
    entries: Mutex<HashMap<(TypeId, u64, usize), Vec<Entry>>>,
}

struct Entry {
    spec: Box<dyn Any + Send + Sync>,
    slot: Arc<Slot>,
}

/// One (spec, device) entry: filled once, read without locking after.
#[derive(Default)]
struct Slot {
    kernel: OnceLock<Arc<LoadedKernel>>,
    init: Mutex<()>,
}

impl ModuleCache {
    fn get_or_load<K, N, F>(
        &self,
        device: &Device,
        spec: &K,
        kernel_name: N,
        generate: F,
        tiered: bool,
    ) -> Result<Arc<LoadedKernel>>
    where
        K: Hash + Eq + Clone + Send + Sync + 'static,
        N: FnOnce() -> String,
        F: FnOnce() -> Result<String>,
    {
        self.get_or_build(device, spec, || {
            let start = Instant::now();
            let ptx = generate()?;
            let generate_time = start.elapsed();
            let kernel_name = kernel_name();
            // A tiered kernel: the same PTX at the quick level now, at the
            // full one in the background.
            let optimized = tiered.then(|| (kernel_name.clone(), ptx.clone()));
            let quick = (kernel_name, ptx, tiered.then_some(QUICK_LEVEL));
            compile(device, quick, optimized, generate_time, false)
        })
    }

    /// The kernel in the slot of (`spec`, `device`), built by `build` on a
    /// miss (one caller at a time; a failed build leaves the slot empty).
    fn get_or_build<K>(
        &self,
        device: &Device,
        spec: &K,
        build: impl FnOnce() -> Result<LoadedKernel>,
    ) -> Result<Arc<LoadedKernel>>
    where
        K: Hash + Eq + Clone + Send + Sync + 'static,
    {
        let slot = self.slot(spec, device.ordinal());
        if let Some(kernel) = slot.kernel.get() {
            return Ok(kernel.clone());
        }
        let _init = slot.init.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(kernel) = slot.kernel.get() {
            return Ok(kernel.clone());
        }
        let kernel = Arc::new(build()?);
        Ok(slot.kernel.get_or_init(|| kernel).clone())
    }

    /// The slot of (`spec`, `ordinal`), created empty if new.
    fn slot<K>(&self, spec: &K, ordinal: usize) -> Arc<Slot>
    where
        K: Hash + Eq + Clone + Send + Sync + 'static,
    {
        let mut hasher = DefaultHasher::new();
        spec.hash(&mut hasher);
        let key = (TypeId::of::<K>(), hasher.finish(), ordinal);
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let bucket = entries.entry(key).or_default();
        let existing = bucket
            .iter()
            .find(|entry| entry.spec.downcast_ref::<K>() == Some(spec));
        if let Some(entry) = existing {
            return entry.slot.clone();
        }
        let slot = Arc::new(Slot::default());
        bucket.push(Entry {
            spec: Box::new(spec.clone()),
            slot: slot.clone(),
        });
        slot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, PartialEq, Eq)]
    struct CollidingSpec(u32);

    impl Hash for CollidingSpec {
        fn hash<H: Hasher>(&self, state: &mut H) {
            0u8.hash(state);
        }
    }

    #[derive(Clone, PartialEq, Eq, Hash)]
    struct OtherSpec(u32);

    #[test]
    fn same_spec_and_device_share_a_slot() {
        let cache = ModuleCache::default();
        let first = cache.slot(&OtherSpec(1), 0);
        let again = cache.slot(&OtherSpec(1), 0);
        assert!(Arc::ptr_eq(&first, &again));
    }

    #[test]
    fn other_device_other_value_or_other_type_get_other_slots() {
        let cache = ModuleCache::default();
        let base = cache.slot(&OtherSpec(1), 0);
        assert!(!Arc::ptr_eq(&base, &cache.slot(&OtherSpec(1), 1)));
        assert!(!Arc::ptr_eq(&base, &cache.slot(&OtherSpec(2), 0)));
        assert!(!Arc::ptr_eq(&base, &cache.slot(&1u32, 0)));
    }

    #[test]
    fn hash_collisions_are_told_apart_by_equality() {
        let cache = ModuleCache::default();
        let a = cache.slot(&CollidingSpec(1), 0);
        let b = cache.slot(&CollidingSpec(2), 0);
        assert!(!Arc::ptr_eq(&a, &b));
        assert!(Arc::ptr_eq(&a, &cache.slot(&CollidingSpec(1), 0)));
        assert!(Arc::ptr_eq(&b, &cache.slot(&CollidingSpec(2), 0)));
    }
}
