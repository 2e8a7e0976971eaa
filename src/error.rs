//! `cutlet::Error`: every failure a caller can see, with its context.
//!
//! One enum for the whole crate. Messages are lowercase, name the offending
//! value and what was expected, and keep the underlying cause reachable
//! through [`std::error::Error::source`]. [`Error::kind`] sorts every
//! variant into one of four [`ErrorKind`]s: not available here, an invalid
//! configuration, an invalid argument, or a failure at run time.

use std::sync::Arc;

use cudarc::driver::{sys::CUresult, DriverError};

use crate::fusion::FusionError;
use crate::layout::{LayoutError, ParseError};
use crate::numeric::ParseElementTypeError;
use crate::ptx::PtxError;

/// The result type of cutlet's fallible functions.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in cutlet, with enough context to act on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A layout operation was given arguments it cannot accept.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// The PTX assembler was given something it cannot emit.
    #[error(transparent)]
    Ptx(#[from] PtxError),
    /// A fusion expression cannot be built or emitted as asked.
    #[error(transparent)]
    Fusion(#[from] FusionError),
    /// The CUDA driver library (`libcuda`) could not be loaded.
    #[error(
        "no CUDA driver found: libcuda.so could not be loaded; cutlet needs the NVIDIA driver"
    )]
    NoDriver,
    /// A device ordinal was asked for that the driver does not have.
    #[error("no CUDA device with ordinal {ordinal}: the driver reports {count} device(s)")]
    NoDevice {
        /// The ordinal that was asked for.
        ordinal: usize,
        /// How many devices the driver reports.
        count: usize,
    },
    /// A CUDA driver call failed; `context` says which step, for which kernel.
    #[error("cuda driver error while {context}: {code:?}", code = .source.0)]
    Driver {
        /// The step that failed, e.g. "loading module for kernel `vector_add_f32_sm80`".
        context: String,
        /// The driver's error code.
        #[source]
        source: DriverError,
    },
    /// The driver's JIT could not compile a kernel's PTX.
    #[error("jit compilation of kernel `{kernel}` failed with {code:?}: {log}")]
    Jit {
        /// The kernel (or module) whose PTX was compiled.
        kernel: String,
        /// The JIT's error log, as it wrote it.
        log: String,
        /// The driver's result code for the load.
        code: CUresult,
    },
    /// The background compile of a tiered kernel at full optimization
    /// failed; the kernel's quick compile stays in use.
    #[error("the optimized (background) compile of kernel `{kernel}` failed, so its quick compile stays in use: {source}")]
    OptimizedCompile {
        /// The kernel.
        kernel: String,
        /// What the compile reported (the JIT's or the driver's error),
        /// shared: every wait on the compile sees the same error.
        #[source]
        source: Arc<Error>,
    },
    /// A thread cutlet needs (the background JIT's) could not be started.
    #[error("starting the thread for {what} failed: {source}")]
    ThreadSpawn {
        /// What the thread was for, e.g. "the optimized compile of `gemm_sm80_...`".
        what: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The process has begun to exit, so no new kernel compile may start
    /// (the compiles in flight finish first; see the device layer's
    /// `exit.rs`).
    #[error("{what} was not started: the process is exiting")]
    Exiting {
        /// The compile that was refused, e.g. "jit compilation of `gemm_sm80_...`".
        what: String,
    },
    /// A GEMM configuration breaks a rule of
    /// [`check_config`](crate::kernel::gemm::check_config) (or its epilogue
    /// does not fit it); the typed front door refuses the same at compile time.
    #[error("the gemm configuration `{config}` is not supported: {reason}")]
    Config {
        /// The configuration, as its kernel name.
        config: String,
        /// The broken rule, naming the values and what is expected.
        reason: String,
    },
    /// A kernel needs an architecture the device does not have.
    #[error("kernel `{kernel}` needs {required}, but device {ordinal} is cc {major}.{minor}")]
    UnsupportedArch {
        /// The kernel that cannot run.
        kernel: String,
        /// What the kernel needs, e.g. "sm_90a (compute capability 9.0)".
        required: String,
        /// The device's ordinal.
        ordinal: usize,
        /// The device's compute capability, major part.
        major: u32,
        /// The device's compute capability, minor part.
        minor: u32,
    },
    /// A launch asked for more dynamic shared memory than the device allows per block.
    #[error(
        "kernel `{kernel}` asks for {requested} bytes of dynamic shared memory \
         (plus {static_bytes} static), but the device allows at most {limit} bytes per block (opt-in limit)"
    )]
    SharedMemoryTooLarge {
        /// The kernel being launched.
        kernel: String,
        /// Dynamic shared memory requested, in bytes.
        requested: u32,
        /// Static shared memory the kernel declares, in bytes.
        static_bytes: u32,
        /// The device's opt-in limit per block, in bytes.
        limit: u32,
    },
    /// A launch configuration the device cannot run (block or grid dimensions).
    #[error("invalid launch configuration for kernel `{kernel}`: {reason}")]
    InvalidLaunchConfig {
        /// The kernel being launched.
        kernel: String,
        /// What is wrong, naming the values and the limits.
        reason: String,
    },
    /// A module has no kernel of the asked-for name.
    #[error("kernel `{name}` not found in the module loaded for `{module}`")]
    KernelNotFound {
        /// The name that was looked up.
        name: String,
        /// The label the module was loaded under.
        module: String,
    },
    /// The NCCL library (`libnccl.so.2`) could not be loaded: the
    /// multi-GPU operations of [`distributed`](crate::distributed) need it
    /// at run time (the rest of cutlet does not).
    #[error("no NCCL found: libnccl.so.2 could not be loaded; the multi-GPU operations need NCCL (the system package, or the nvidia-nccl-cu12 wheel's lib folder on LD_LIBRARY_PATH)")]
    NoNccl,
    /// An NCCL call failed; `context` says which step.
    #[error("nccl error while {context}: {code:?}")]
    Nccl {
        /// The step that failed, e.g. "all-gathering chunk 2 of A".
        context: String,
        /// NCCL's result code.
        code: cudarc::nccl::sys::ncclResult_t,
    },
    /// An argument has a value the function cannot accept.
    #[error("invalid argument `{name}` = {value}: expected {expected}")]
    InvalidArgument {
        /// The argument's name.
        name: String,
        /// The value that was given, formatted.
        value: String,
        /// What was expected instead.
        expected: String,
    },
}

impl From<ParseError> for Error {
    /// Malformed CuTe notation (`"(4,8):(8,1)".parse::<Layout>()?`), as a
    /// layout error.
    fn from(error: ParseError) -> Error {
        Error::Layout(LayoutError::Parse(error))
    }
}

impl From<ParseElementTypeError> for Error {
    /// A string that names no element type (`"f17".parse::<ElementType>()?`),
    /// as an invalid argument naming it.
    fn from(error: ParseElementTypeError) -> Error {
        Error::invalid_argument(
            "element type",
            format!("`{}`", error.value),
            "one of f16, bf16, f32, tf32, f64, i8, u8, i32, e4m3, e5m2",
        )
    }
}

/// Which kind of failure an [`Error`] is ([`Error::kind`]): what a caller
/// can do about it depends on the kind, not on the variant.
///
/// | kind | means | e.g. |
/// |---|---|---|
/// | [`Unavailable`](Self::Unavailable) | not available on this GPU, machine or build; the same request may succeed elsewhere | [`Error::NoDriver`], [`Error::NoDevice`], [`Error::UnsupportedArch`], [`Error::SharedMemoryTooLarge`] |
/// | [`InvalidConfiguration`](Self::InvalidConfiguration) | a kernel configuration no GPU runs; pick another | [`Error::Config`], [`Error::Ptx`], [`Error::InvalidLaunchConfig`] |
/// | [`InvalidArgument`](Self::InvalidArgument) | a value given to a call that it cannot accept; fix the call | [`Error::InvalidArgument`], [`Error::Layout`] |
/// | [`Runtime`](Self::Runtime) | a valid request that failed while it ran: the driver, its JIT, the operating system | [`Error::Driver`], [`Error::Jit`] |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Not available on this GPU, machine or build: no driver, no device of
    /// that ordinal, an architecture or an amount of shared memory the
    /// device lacks, or a process that is exiting.
    Unavailable,
    /// A configuration that no GPU runs: a GEMM configuration that breaks a
    /// rule, a kernel or fusion expression the PTX generator cannot emit, a
    /// launch's block or grid outside the device's limits.
    InvalidConfiguration,
    /// A value given to a call that the call cannot accept: a shape, stride
    /// or leading dimension, a layout, an element type's name, a fusion
    /// expression's inputs or scalars.
    InvalidArgument,
    /// A valid request that failed while it ran: a CUDA driver call, the
    /// driver's JIT, or the operating system.
    Runtime,
}

impl Error {
    /// Which kind of failure this is: not available here, an invalid
    /// configuration, an invalid argument, or a run-time failure.
    ///
    /// ```
    /// use cutlet::{Error, ErrorKind};
    ///
    /// let parsed = "(4,8):(8,".parse::<cutlet::layout::Layout>();
    /// let error = Error::from(parsed.unwrap_err());
    /// assert_eq!(error.kind(), ErrorKind::InvalidArgument);
    /// assert_eq!(Error::NoDriver.kind(), ErrorKind::Unavailable);
    /// let config = Error::Config { config: "gemm_x".into(), reason: "BK = 12: expected a multiple of 16".into() };
    /// assert_eq!(config.kind(), ErrorKind::InvalidConfiguration);
    /// ```
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::NoDriver
            | Error::NoNccl
            | Error::NoDevice { .. }
            | Error::UnsupportedArch { .. }
            | Error::SharedMemoryTooLarge { .. }
            | Error::Exiting { .. } => ErrorKind::Unavailable,
            Error::Config { .. } | Error::InvalidLaunchConfig { .. } | Error::Ptx(_) => {
                ErrorKind::InvalidConfiguration
            }
            Error::Fusion(error) => match error {
                FusionError::InputOutOfRange { .. }
                | FusionError::InputCount { .. }
                | FusionError::ScalarCount { .. }
                | FusionError::ScalarType { .. }
                | FusionError::RegisterClass { .. } => ErrorKind::InvalidArgument,
                FusionError::UnsupportedCompute { .. }
                | FusionError::UnsupportedOp { .. }
                | FusionError::UnsupportedConversion { .. }
                | FusionError::Ptx(_) => ErrorKind::InvalidConfiguration,
            },
            Error::Layout(_) | Error::InvalidArgument { .. } => ErrorKind::InvalidArgument,
            Error::Driver { .. }
            | Error::Nccl { .. }
            | Error::Jit { .. }
            | Error::KernelNotFound { .. }
            | Error::ThreadSpawn { .. } => ErrorKind::Runtime,
            Error::OptimizedCompile { source, .. } => source.kind(),
        }
    }

    /// A driver error with the step (and kernel) it happened in.
    pub fn driver(context: impl Into<String>, source: DriverError) -> Self {
        Error::Driver {
            context: context.into(),
            source,
        }
    }

    /// An invalid argument: its name, the value given, and what was expected.
    pub fn invalid_argument(
        name: impl Into<String>,
        value: impl std::fmt::Display,
        expected: impl Into<String>,
    ) -> Self {
        Error::InvalidArgument {
            name: name.into(),
            value: value.to_string(),
            expected: expected.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_error_names_step_and_code_and_keeps_source() {
        let err = Error::driver(
            "loading module for kernel `vector_add_f32_sm80`",
            DriverError(CUresult::CUDA_ERROR_INVALID_PTX),
        );
        let text = err.to_string();
        assert_eq!(
            text,
            "cuda driver error while loading module for kernel `vector_add_f32_sm80`: CUDA_ERROR_INVALID_PTX"
        );
        let source = std::error::Error::source(&err).expect("driver error keeps its source");
        let driver = source
            .downcast_ref::<DriverError>()
            .expect("source is the DriverError");
        assert_eq!(driver.0, CUresult::CUDA_ERROR_INVALID_PTX);
    }

    #[test]
    fn messages_name_the_values() {
        let no_device = Error::NoDevice {
            ordinal: 3,
            count: 1,
        };
        assert_eq!(
            no_device.to_string(),
            "no CUDA device with ordinal 3: the driver reports 1 device(s)"
        );
        let smem = Error::SharedMemoryTooLarge {
            kernel: "k".into(),
            requested: 300_000,
            static_bytes: 16,
            limit: 232_448,
        };
        let text = smem.to_string();
        assert!(text.contains("300000") && text.contains("232448") && text.contains("`k`"));
        let arg = Error::invalid_argument("lda", 7, "a multiple of 8");
        assert_eq!(
            arg.to_string(),
            "invalid argument `lda` = 7: expected a multiple of 8"
        );
        let arch = Error::UnsupportedArch {
            kernel: "gemm".into(),
            required: "sm_90a".into(),
            ordinal: 0,
            major: 8,
            minor: 6,
        };
        assert_eq!(
            arch.to_string(),
            "kernel `gemm` needs sm_90a, but device 0 is cc 8.6"
        );
    }

    /// Every public fallible call's error converts into `cutlet::Error`
    /// with one `?`, the parse errors of `FromStr` included.
    #[test]
    fn parse_errors_convert_with_one_question_mark() {
        fn parse(layout: &str, element: &str) -> crate::Result<()> {
            let _: crate::layout::Layout = layout.parse()?;
            let _: crate::numeric::ElementType = element.parse()?;
            Ok(())
        }
        assert!(parse("(4,8):(8,1)", "bf16").is_ok());
        let layout = parse("(4,8):(8,", "bf16").unwrap_err();
        assert!(
            matches!(layout, Error::Layout(LayoutError::Parse(_))),
            "{layout}"
        );
        let element = parse("(4,8):(8,1)", "f17").unwrap_err();
        assert_eq!(
            element.to_string(),
            "invalid argument `element type` = `f17`: expected one of f16, bf16, f32, tf32, f64, i8, u8, i32, e4m3, e5m2"
        );
    }

    #[test]
    fn jit_error_carries_the_log() {
        let err = Error::Jit {
            kernel: "broken".into(),
            log: "ptxas application ptx input, line 5; error   : syntax error".into(),
            code: CUresult::CUDA_ERROR_INVALID_PTX,
        };
        let text = err.to_string();
        assert!(text.contains("`broken`"));
        assert!(text.contains("CUDA_ERROR_INVALID_PTX"));
        assert!(text.contains("syntax error"));
    }

    #[test]
    fn optimized_compile_error_names_the_kernel_and_says_the_quick_one_stays() {
        let cause = Error::driver(
            "loading module for kernel `gemm_sm80_x`",
            DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY),
        );
        let err = Error::OptimizedCompile {
            kernel: "gemm_sm80_x".into(),
            source: Arc::new(cause),
        };
        let text = err.to_string();
        assert!(text.contains("`gemm_sm80_x`") && text.contains("CUDA_ERROR_OUT_OF_MEMORY"));
        assert!(text.contains("quick compile stays in use"));
        let source = std::error::Error::source(&err).expect("keeps the compile's error");
        assert!(source
            .to_string()
            .starts_with("cuda driver error while loading module"));
        assert_eq!(err.kind(), ErrorKind::Runtime);
    }

    #[test]
    fn kinds_separate_unavailable_configuration_and_arguments() {
        let arch = Error::UnsupportedArch {
            kernel: "gemm".into(),
            required: "sm_80".into(),
            ordinal: 0,
            major: 7,
            minor: 0,
        };
        assert_eq!(arch.kind(), ErrorKind::Unavailable);
        let no_device = Error::NoDevice {
            ordinal: 1,
            count: 1,
        };
        assert_eq!(no_device.kind(), ErrorKind::Unavailable);
        let fusion = Error::Fusion(FusionError::InputCount {
            expression: "x0 + x1".into(),
            expected: 2,
            got: 1,
        });
        assert_eq!(fusion.kind(), ErrorKind::InvalidArgument);
        let launch = Error::InvalidLaunchConfig {
            kernel: "k".into(),
            reason: "block (2048, 1, 1) has 2048 threads; the device allows at most 1024".into(),
        };
        assert_eq!(launch.kind(), ErrorKind::InvalidConfiguration);
        assert_eq!(
            Error::invalid_argument("lda", 7, "a multiple of 8").kind(),
            ErrorKind::InvalidArgument
        );
    }
}
