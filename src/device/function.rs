//! A kernel entry point of a loaded [`Module`](super::Module).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use cudarc::driver::sys::{self, CUfunction_attribute as FuncAttr};

use super::jit::ModuleHandle;
use crate::{Error, Result};

/// Dynamic shared memory every kernel may use without opting in, in bytes.
pub(crate) const DEFAULT_DYNAMIC_SHARED_BYTES: u32 = 48 * 1024;

/// One kernel of a loaded module. Keeps its module loaded while it lives.
#[derive(Debug)]
pub struct Function {
    pub(crate) raw: sys::CUfunction,
    pub(crate) name: String,
    pub(crate) module: Arc<ModuleHandle>,
    static_shared_bytes: u32,
    /// Registers per thread (read once, when the function is looked up).
    num_regs: u32,
    /// The device's compute capability (read once, when the function is
    /// looked up: the cluster and dependent launches check it).
    pub(crate) compute_capability: (u32, u32),
    /// The largest dynamic shared memory size this function has been
    /// allowed so far (48 KiB until raised); raised at most once per size.
    dynamic_shared_allowed: AtomicU32,
}

// SAFETY: a `CUfunction` is a driver handle valid while its module is loaded
// (the `Arc<ModuleHandle>` guarantees that); driver calls on it bind the
// module's context first, and the only mutable state is an atomic.
unsafe impl Send for Function {}
// SAFETY: as for `Send`.
unsafe impl Sync for Function {}

impl Function {
    pub(crate) fn new(raw: sys::CUfunction, name: &str, module: Arc<ModuleHandle>) -> Result<Self> {
        let mut function = Function {
            raw,
            name: name.to_string(),
            module,
            static_shared_bytes: 0,
            num_regs: 0,
            compute_capability: (0, 0),
            dynamic_shared_allowed: AtomicU32::new(DEFAULT_DYNAMIC_SHARED_BYTES),
        };
        let capability = |attribute| {
            function
                .module
                .context
                .attribute(attribute)
                .map(|value| value as u32)
                .map_err(|e| Error::driver("reading the device's compute capability", e))
        };
        function.compute_capability = (
            capability(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            capability(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        );
        function.static_shared_bytes = function.attribute(
            FuncAttr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
            "static shared memory",
        )?;
        function.num_regs =
            function.attribute(FuncAttr::CU_FUNC_ATTRIBUTE_NUM_REGS, "register count")?;
        Ok(function)
    }

    /// The kernel's name (its `.entry` name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The raw driver handle, for launches cutlet does not wrap yet
    /// (`cuLaunchKernelEx` with cluster attributes). Valid while `self` lives.
    pub fn cu_function(&self) -> sys::CUfunction {
        self.raw
    }

    /// Registers per thread, as the JIT allocated them (read once, when the
    /// function was looked up: no driver call).
    pub fn num_regs(&self) -> u32 {
        self.num_regs
    }

    /// Local memory per thread in bytes; nonzero means register spills (or
    /// local arrays).
    pub fn local_size_bytes(&self) -> Result<u32> {
        self.attribute(
            FuncAttr::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
            "local memory size",
        )
    }

    /// Static shared memory the kernel declares, in bytes.
    pub fn static_shared_bytes(&self) -> u32 {
        self.static_shared_bytes
    }

    /// Allows launches with up to `bytes` of dynamic shared memory
    /// (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`), which a launch
    /// above 48 KiB needs. [`Function::launch`](Self::launch) calls this itself.
    ///
    /// Errors: [`Error::SharedMemoryTooLarge`] when `bytes` plus the static
    /// shared memory exceeds the device's opt-in limit.
    pub fn set_max_dynamic_shared_memory(&self, bytes: u32) -> Result<()> {
        self.check_shared_memory(bytes)?;
        self.module.context.bind_to_thread().map_err(|e| {
            Error::driver(format!("binding the context for kernel `{}`", self.name), e)
        })?;
        let value = i32::try_from(bytes).unwrap_or(i32::MAX);
        // SAFETY: the context is bound; `self.raw` is a function of a module
        // kept loaded by `self.module`.
        unsafe {
            sys::cuFuncSetAttribute(
                self.raw,
                FuncAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                value,
            )
        }
        .result()
        .map_err(|e| {
            Error::driver(
                format!(
                    "allowing {bytes} bytes of dynamic shared memory for kernel `{}`",
                    self.name
                ),
                e,
            )
        })?;
        self.dynamic_shared_allowed.store(bytes, Ordering::Release);
        Ok(())
    }

    /// Makes sure a launch with `bytes` of dynamic shared memory is allowed,
    /// raising the function's limit only when `bytes` exceeds what was
    /// allowed before (so the attribute is set once per new size).
    pub(crate) fn allow_dynamic_shared_memory(&self, bytes: u32) -> Result<()> {
        self.check_shared_memory(bytes)?;
        if bytes <= self.dynamic_shared_allowed.load(Ordering::Acquire) {
            return Ok(());
        }
        self.set_max_dynamic_shared_memory(bytes)
    }

    /// The opt-in limit check, against the device's limit and this kernel's
    /// static shared memory.
    fn check_shared_memory(&self, bytes: u32) -> Result<()> {
        let limit = self.module.limits.max_shared_memory_per_block_optin;
        if u64::from(bytes) + u64::from(self.static_shared_bytes) > u64::from(limit) {
            return Err(Error::SharedMemoryTooLarge {
                kernel: self.name.clone(),
                requested: bytes,
                static_bytes: self.static_shared_bytes,
                limit,
            });
        }
        Ok(())
    }

    fn attribute(&self, attribute: FuncAttr, what: &str) -> Result<u32> {
        self.module.context.bind_to_thread().map_err(|e| {
            Error::driver(format!("binding the context for kernel `{}`", self.name), e)
        })?;
        let mut value: std::ffi::c_int = 0;
        // SAFETY: the context is bound; `self.raw` is a function of a module
        // kept loaded by `self.module`; `value` is a valid out-pointer.
        unsafe { sys::cuFuncGetAttribute(&mut value, attribute, self.raw) }
            .result()
            .map_err(|e| {
                Error::driver(format!("reading the {what} of kernel `{}`", self.name), e)
            })?;
        Ok(u32::try_from(value).unwrap_or(0))
    }
}
