//! The device layer: the driver runtime that kernels run on, and the host
//! side of every kernel family.
//!
//! # Contract
//!
//! Every kernel family (GEMM, elementwise, reduction) follows one set of
//! conventions:
//!
//! | convention | what it is |
//! |---|---|
//! | device | an operation is bound to one [`Device`] when it is built: `GemmUniversalAdapter::new(&device)`, `Gemm::builder()...build(&device)`, `Elementwise::new(&device, expression)`, `Reduce::along(&device, op, dim)` |
//! | stream | `run` takes the caller's stream as `&Arc<CudaStream>` (what `Device::default_stream` and cudarc hand out), last; it must be a stream of the operation's device |
//! | scalars | `f64` (GEMM alpha, beta and epilogue scalars; elementwise scalars; reduction map scalars), rounded once to the type the kernel computes in |
//! | scalar checks | on by default: a scalar that is not finite in that type is an [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming it; `check_scalars(false)` on the operation lets NaN and infinities through |
//! | errors | every fallible call returns [`cutlet::Error`](crate::Error) naming the offending value; nothing panics on bad input |
//!
//! The GEMM has CUTLASS's host contract, in this order, on each of its
//! front doors ([`gemm::GemmUniversalAdapter`], [`gemm::Gemm`],
//! [`gemm::TypedGemm`]), with the same signatures: `can_implement` (says why
//! not), `workspace_size`, `initialize` (checks and compiles; returns the
//! [`LoadedKernel`]), `run` (launch on the caller's stream), and
//! `wait_optimized`.
//!
//! What each family needs of the GPU: the GEMM compute capability 7.0 or
//! newer for the SM70 (Volta) kernel's `sm_70` PTX, 8.0 or newer for the
//! SM80 kernel's `sm_80` PTX (the builder's default below 9.0), 9.0 exactly
//! for a spec built for `sm_90a` (the SM90 kernels); elementwise kernels, reductions and the vector add 7.0 or newer (an
//! elementwise bulk-copy schedule runs as such on 9.0 only, and falls back
//! to the default path elsewhere).
//!
//! | item | file | what it does |
//! |---|---|---|
//! | [`driver_available`], [`driver_version`], [`device_count`] | `driver.rs` | is `libcuda` there; never panics without it |
//! | [`Device`], [`DeviceInfo`], [`DeviceLimits`] | `device.rs` | a GPU through its primary context; its limits, read once |
//! | [`Module`] | `jit.rs` | PTX compiled by the driver JIT, with its error and info logs |
//! | [`Function`] | `function.rs` | one kernel: registers, spills, shared-memory opt-in |
//! | [`get_or_load`], [`get_or_load_tiered`], [`get_or_load_with_stand_in`], [`LoadedKernel`] | `cache.rs` | compile each (spec, device) once per process, slow kernels behind a quick tier |
//! | [`JitTier`], [`JIT_TIERED_ENV`] | `tiered.rs` | slow-to-compile kernels: a quick compile first, the optimized one in the background |
//! | (internal) | `exit.rs` | the process's exit waits for JIT compiles in flight, so it never crashes in the driver |
//! | [`LaunchConfig`], [`KernelArgs`], [`TensorMapArg`], [`check_cluster`], [`DEPENDENT_LAUNCH_ENV`] | `launch.rs` | validated launches with typed arguments, with or without thread-block clusters, and programmatic dependent launches |
//! | [`TmaTiled`], [`TmaSwizzle`] | `tensor_map.rs` | a TMA tensor map: checked without a driver, encoded by `cuTensorMapEncodeTiled` into a [`TensorMapArg`] |
//! | [`Elementwise`], [`check_arguments`], [`plan_problem`], [`check_overlap`] | `elementwise/` | elementwise kernels: validation, spec from the tensors, launch |
//! | [`Reduce`], [`ReduceWorkspace`] | `reduce/` | reductions: checks, plan, workspace, launches |
//! | [`quantize`](fn@quantize), [`quantize_with_scale`] | `quantize.rs` | bf16/f16/f32 into e4m3, e5m2 or s8 with row, block or tensor scales from the data, or by a given tensor scale with its amax recorded: checks, cache, launches |
//! | [`vector_add`](fn@vector_add) | `vector_add.rs` | the proving kernel's host side: checks, cache, launch |
//! | [`gemm`] | `gemm/` | `GemmUniversalAdapter`, the runtime `Gemm` builder and `TypedGemm`, arguments and their checks |
//!
//! # Assumptions
//!
//! - Every entry point checks for the driver first and returns
//!   [`Error::NoDriver`](crate::Error::NoDriver) instead of letting cudarc panic.
//! - Driver calls bind the owning context to the calling thread first, so
//!   every type here may be used from any thread.
//! - Launch limits are read when a [`Device`] opens; validating a launch
//!   costs no driver call.
//!
//! # Example (needs a GPU)
//!
//! ```no_run
//! use cutlet::device::{get_or_load, Device, KernelArgs, LaunchConfig};
//! # fn generate_ptx() -> cutlet::Result<String> {
//! #     Ok(".version 8.0\n.target sm_80\n.address_size 64\n\
//! #         .visible .entry times_three(.param .u64 out_ptr, .param .u32 n)\n{\n\
//! #         .reg .pred %p<2>;\n.reg .b32 %r<7>;\n.reg .b64 %rd<4>;\n\
//! #         ld.param.u64 %rd1, [out_ptr];\nld.param.u32 %r1, [n];\n\
//! #         mov.u32 %r2, %ctaid.x;\nmov.u32 %r3, %ntid.x;\nmov.u32 %r4, %tid.x;\n\
//! #         mad.lo.u32 %r5, %r2, %r3, %r4;\nsetp.ge.u32 %p1, %r5, %r1;\n@%p1 bra DONE;\n\
//! #         cvta.to.global.u64 %rd1, %rd1;\nmul.wide.u32 %rd2, %r5, 4;\n\
//! #         add.u64 %rd3, %rd1, %rd2;\nmul.lo.u32 %r6, %r5, 3;\n\
//! #         st.global.u32 [%rd3], %r6;\nDONE:\nret;\n}\n".to_string())
//! # }
//! # fn main() -> cutlet::Result<()> {
//! let device = Device::new(0)?;
//! let stream = device.default_stream();
//! let mut out = stream.alloc_zeros::<u32>(1000).expect("allocation");
//! let kernel = get_or_load(&device, &"times_three", || "times_three".into(), generate_ptx)?;
//! let mut args = KernelArgs::new(&stream);
//! args.output(&mut out).scalar(1000u32);
//! // SAFETY: `times_three(.u64 out, .u32 n)` writes out[0..n) and `out` holds n values.
//! unsafe { kernel.function().launch(&LaunchConfig::for_elements(1000, 256), args)? };
//! assert_eq!(stream.clone_dtoh(&out).expect("copy")[999], 2997);
//! # Ok(())
//! # }
//! ```

mod cache;
#[allow(clippy::module_inception)]
mod device;
mod driver;
mod elementwise;
mod exit;
mod function;
pub mod gemm;
mod jit;
mod jit_worker;
mod launch;
mod quantize;
mod reduce;
mod scalars;
mod tensor_map;
mod tiered;
mod transpose;
mod vector_add;

pub use cache::{get_or_load, get_or_load_tiered, get_or_load_with_stand_in, LoadedKernel};
pub use device::{Device, DeviceInfo, DeviceLimits};
pub use driver::{device_count, driver_available, driver_version};
pub use elementwise::{
    check_arguments, check_overlap, plan_problem, Elementwise, Problem, TensorDesc, MAX_INPUTS,
};
pub use function::Function;
pub use jit::{Module, JIT_FAST_COMPILE_ENV, JIT_OPT_LEVEL_ENV};
pub use launch::{
    check_cluster, KernelArgs, LaunchConfig, TensorMapArg, DEPENDENT_LAUNCH_ENV,
    MAX_PORTABLE_CLUSTER,
};
pub use quantize::{quantize, quantize_with_scale};
pub use reduce::{Reduce, ReduceDim, ReduceWorkspace};
pub use tensor_map::{TmaSwizzle, TmaTiled, TMA_MAX_BOX};
pub use tiered::{JitTier, JIT_TIERED_ENV, QUICK_LEVEL};
pub use vector_add::vector_add;
