//! Loading PTX through the driver's JIT, with its error and info logs.
//!
//! cudarc's `CudaContext::load_module` calls `cuModuleLoadData` without JIT
//! options, so a bad kernel fails with a bare `CUDA_ERROR_INVALID_PTX`. cutlet
//! calls `cuModuleLoadDataEx` itself and owns the module and function handles.

use std::ffi::{c_void, CString};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::{sys, CudaContext};

use super::device::{Device, DeviceLimits};
use super::exit::JitScope;
use super::function::Function;
use crate::{Error, Result};

/// The environment variable that sets the driver JIT's optimization level
/// (0 to 4; unset: the driver's default, 4) for every module loaded after.
pub const JIT_OPT_LEVEL_ENV: &str = "CUTLET_JIT_OPT_LEVEL";

/// The level [`JIT_OPT_LEVEL_ENV`] asks for, if it holds an integer 0..=4
/// (anything else is ignored: the driver's default).
pub(crate) fn jit_optimization_level() -> Option<u32> {
    let level = std::env::var(JIT_OPT_LEVEL_ENV).ok()?.trim().parse().ok()?;
    (level <= 4).then_some(level)
}

/// The environment variable that sets the driver JIT's `CU_JIT_FAST_COMPILE`
/// option (an unsigned integer, e.g. 1; unset: the option is not passed) for
/// every module loaded after. The driver documents this option as internal;
/// cutlet passes it only on request, to measure a new configuration's
/// first-run time against the kernels' speed.
pub const JIT_FAST_COMPILE_ENV: &str = "CUTLET_JIT_FAST_COMPILE";

/// The value [`JIT_FAST_COMPILE_ENV`] asks for, if it holds an unsigned
/// integer (anything else is ignored: the option is not passed).
fn jit_fast_compile() -> Option<u32> {
    std::env::var(JIT_FAST_COMPILE_ENV)
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Capacity of each JIT log buffer, in bytes (the driver caps its logs here).
const JIT_LOG_BYTES: usize = 64 * 1024;

/// A loaded module: its PTX compiled for one device. Cheap to clone; the
/// driver module is unloaded when the last clone and the last [`Function`]
/// taken from it are dropped.
#[derive(Clone, Debug)]
pub struct Module {
    inner: Arc<ModuleHandle>,
}

/// The owned `CUmodule` and what the JIT said while compiling it.
#[derive(Debug)]
pub(crate) struct ModuleHandle {
    pub(crate) raw: sys::CUmodule,
    pub(crate) context: Arc<CudaContext>,
    pub(crate) limits: DeviceLimits,
    label: String,
    info_log: String,
    compile_time: Duration,
}

// SAFETY: a `CUmodule` is a driver handle, usable from any thread once its
// context is bound there; every use below binds the context first, and the
// handle is never mutated after creation.
unsafe impl Send for ModuleHandle {}
// SAFETY: as for `Send`; shared access only reads the handle and the logs.
unsafe impl Sync for ModuleHandle {}

impl Drop for ModuleHandle {
    fn drop(&mut self) {
        self.context.record_err(self.context.bind_to_thread());
        // SAFETY: `raw` came from a successful `cuModuleLoadDataEx`, is
        // unloaded only here, and no `Function` outlives this handle (each
        // holds an `Arc` to it).
        let unloaded = unsafe { sys::cuModuleUnload(self.raw) }.result();
        self.context.record_err(unloaded);
    }
}

impl Module {
    /// JIT-compiles `ptx` for `device`. `label` names the kernel (or family)
    /// in errors and logs.
    ///
    /// Errors: [`Error::InvalidArgument`] if `ptx` contains a NUL byte;
    /// [`Error::Jit`] with the JIT's error log if the driver rejects the PTX;
    /// [`Error::Driver`] for other driver failures (no log, e.g. out of memory);
    /// [`Error::Exiting`] once the process has begun to exit (a compile
    /// then in flight finishes before the driver's exit handlers run).
    pub fn load(device: &Device, label: &str, ptx: &str) -> Result<Module> {
        Module::load_at(device, label, ptx, jit_optimization_level())
    }

    /// As [`load`](Self::load), at JIT optimization `level` (0 to 4; `None`:
    /// the driver's default, 4) whatever [`JIT_OPT_LEVEL_ENV`] says.
    ///
    /// Errors: as [`load`](Self::load); [`Error::InvalidArgument`] for a
    /// level above 4.
    pub fn load_at(device: &Device, label: &str, ptx: &str, level: Option<u32>) -> Result<Module> {
        if let Some(level) = level.filter(|&l| l > 4) {
            return Err(Error::invalid_argument(
                "JIT optimization level",
                level,
                "0 to 4 (CU_JIT_OPTIMIZATION_LEVEL)",
            ));
        }
        let image = CString::new(ptx).map_err(|e| {
            Error::invalid_argument(
                format!("ptx of `{label}`"),
                format!("text with a NUL byte at offset {}", e.nul_position()),
                "PTX text without NUL bytes",
            )
        })?;
        // Counted until the driver returns, so that the process's exit waits
        // for this compile (exit.rs says why).
        let scope = JitScope::enter(&format!("jit compilation of `{label}`"))?;
        let context = device.context().clone();
        context
            .bind_to_thread()
            .map_err(|e| Error::driver(format!("binding the context to load `{label}`"), e))?;

        let mut error_log = vec![0u8; JIT_LOG_BYTES];
        let mut info_log = vec![0u8; JIT_LOG_BYTES];
        let mut options = vec![
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            sys::CUjit_option::CU_JIT_INFO_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
            sys::CUjit_option::CU_JIT_LOG_VERBOSE,
        ];
        // Option values are pointer-sized: buffers as pointers, sizes and
        // flags as integers cast to pointers. The driver writes the number of
        // log bytes used back into the size slots.
        let option_int = |value: usize| std::ptr::without_provenance_mut::<c_void>(value);
        let mut values: Vec<*mut c_void> = vec![
            error_log.as_mut_ptr().cast(),
            option_int(JIT_LOG_BYTES),
            info_log.as_mut_ptr().cast(),
            option_int(JIT_LOG_BYTES),
            option_int(1),
        ];
        if let Some(level) = level {
            options.push(sys::CUjit_option::CU_JIT_OPTIMIZATION_LEVEL);
            values.push(option_int(level as usize));
        }
        if let Some(value) = jit_fast_compile() {
            options.push(sys::CUjit_option::CU_JIT_FAST_COMPILE);
            values.push(option_int(value as usize));
        }
        let mut raw: sys::CUmodule = std::ptr::null_mut();
        let start = Instant::now();
        // SAFETY: the context is bound to this thread; `image` is a
        // NUL-terminated PTX string alive across the call; `options` and
        // `values` have the same length (passed as the count) and outlive the
        // call; both log buffers are `JIT_LOG_BYTES` long, as their size
        // options say; `raw` is a valid out-pointer.
        let loaded = unsafe {
            sys::cuModuleLoadDataEx(
                &mut raw,
                image.as_ptr().cast(),
                options.len() as u32,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            )
        }
        .result();
        let compile_time = start.elapsed();
        scope.loaded();
        drop(scope);
        let error_text = log_text(&error_log, values[1]);
        let info_text = log_text(&info_log, values[3]);

        if let Err(e) = loaded {
            return Err(if !error_text.is_empty() || is_jit_failure(e.0) {
                Error::Jit {
                    kernel: label.to_string(),
                    log: error_text,
                    code: e.0,
                }
            } else {
                Error::driver(format!("loading module for kernel `{label}`"), e)
            });
        }
        Ok(Module {
            inner: Arc::new(ModuleHandle {
                raw,
                context,
                limits: *device.limits(),
                label: label.to_string(),
                info_log: info_text,
                compile_time,
            }),
        })
    }

    /// The kernel `name` of this module.
    ///
    /// Errors: [`Error::KernelNotFound`] naming it when the module has no such
    /// entry; [`Error::InvalidArgument`] if `name` contains a NUL byte.
    pub fn function(&self, name: &str) -> Result<Function> {
        let label = &self.inner.label;
        let c_name = CString::new(name).map_err(|_| {
            Error::invalid_argument(
                "kernel name",
                format!("{name:?}"),
                "a name without NUL bytes",
            )
        })?;
        self.inner.context.bind_to_thread().map_err(|e| {
            Error::driver(format!("binding the context to look up kernel `{name}`"), e)
        })?;
        let mut raw: sys::CUfunction = std::ptr::null_mut();
        // SAFETY: the context is bound; `self.inner.raw` is a loaded module
        // (alive while `self` is); `c_name` is NUL-terminated; `raw` is a
        // valid out-pointer.
        let found =
            unsafe { sys::cuModuleGetFunction(&mut raw, self.inner.raw, c_name.as_ptr()) }.result();
        match found {
            Ok(()) => Function::new(raw, name, self.inner.clone()),
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_NOT_FOUND => Err(Error::KernelNotFound {
                name: name.to_string(),
                module: label.clone(),
            }),
            Err(e) => Err(Error::driver(
                format!("looking up kernel `{name}` in the module for `{label}`"),
                e,
            )),
        }
    }

    /// The label the module was loaded under.
    pub fn label(&self) -> &str {
        &self.inner.label
    }

    /// What the JIT reported while compiling (verbose): `ptxas info : Used N
    /// registers`, spill stores and loads, per kernel. Empty when the driver
    /// served the module from its disk cache (`CUDA_CACHE_DISABLE=1` turns that off).
    pub fn info_log(&self) -> &str {
        &self.inner.info_log
    }

    /// Wall time the driver spent in `cuModuleLoadDataEx` (JIT compile and load).
    pub fn compile_time(&self) -> Duration {
        self.inner.compile_time
    }
}

/// Result codes of `cuModuleLoadDataEx` that mean "the JIT could not compile this".
fn is_jit_failure(code: sys::CUresult) -> bool {
    use sys::CUresult as R;
    matches!(
        code,
        R::CUDA_ERROR_INVALID_PTX
            | R::CUDA_ERROR_UNSUPPORTED_PTX_VERSION
            | R::CUDA_ERROR_INVALID_IMAGE
            | R::CUDA_ERROR_NO_BINARY_FOR_GPU
            | R::CUDA_ERROR_JIT_COMPILER_NOT_FOUND
            | R::CUDA_ERROR_JIT_COMPILATION_DISABLED
            | R::CUDA_ERROR_INVALID_SOURCE
    )
}

/// The text of a JIT log buffer: the driver's written size (read from the
/// option slot, low 32 bits, since the option type is `unsigned int`), capped
/// at the buffer, cut at the first NUL, trailing whitespace trimmed.
fn log_text(buffer: &[u8], written: *mut c_void) -> String {
    let written = (written as usize as u32) as usize;
    let filled = &buffer[..written.min(buffer.len())];
    let end = filled.iter().position(|&b| b == 0).unwrap_or(filled.len());
    String::from_utf8_lossy(&filled[..end])
        .trim_end()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_text_stops_at_the_written_size_and_the_first_nul() {
        let mut buffer = b"ptxas info    : Used 8 registers\n\0garbage".to_vec();
        buffer.resize(64, b'x');
        let text = log_text(&buffer, 40usize as *mut c_void);
        assert_eq!(text, "ptxas info    : Used 8 registers");
        assert_eq!(log_text(&buffer, 5usize as *mut c_void), "ptxas");
        assert_eq!(log_text(&buffer, std::ptr::null_mut()), "");
        assert_eq!(log_text(&buffer, 1000usize as *mut c_void).len(), 32);
    }

    #[test]
    fn jit_failures_are_told_apart_from_other_driver_errors() {
        assert!(is_jit_failure(sys::CUresult::CUDA_ERROR_INVALID_PTX));
        assert!(is_jit_failure(
            sys::CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION
        ));
        assert!(!is_jit_failure(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY));
    }
}
