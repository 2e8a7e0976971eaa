//! # cutlet
//!
//! GEMM and tensor kernels for NVIDIA GPUs, built the way CUTLASS 3.x is built:
//! a hierarchy of small composable layers, from one PTX instruction up to a
//! host-side adapter. Kernels are PTX assembled at run time from prewritten
//! snippets (`ptx/`) and compiled by the CUDA driver's JIT, so a user needs the
//! NVIDIA driver and cargo, nothing else.
//!
//! | layer | module | CUTLASS/CuTe counterpart |
//! |---|---|---|
//! | layout algebra | [`layout`] | `cute/layout.hpp`, `cute/swizzle.hpp` |
//! | element types | [`numeric`] | `cutlass/numeric_types.h` |
//! | arch tags | [`arch`] | `cutlass/arch/arch.h` |
//! | PTX assembler | [`ptx`] | (nvcc's job in CUTLASS) |
//! | atoms | [`atom`] | `cute/atom/mma_traits_sm*.hpp`, `copy_traits_sm*.hpp` |
//! | tiled MMA and copy | [`tiled`] | `cute/atom/mma_atom.hpp`, `copy_atom.hpp` |
//! | pipelines | [`pipeline`] | `cutlass/pipeline/` |
//! | collectives | [`collective`] | `cutlass/gemm/collective/`, `cutlass/epilogue/collective/` |
//! | fusion expressions | [`fusion`] | `cutlass/epilogue/thread/linear_combination.h`, epilogue visitor trees |
//! | kernels | [`kernel`] | `cutlass/gemm/kernel/` |
//! | device adapter and runtime | [`device`] | `cutlass/gemm/device/gemm_universal_adapter.h` |
#![warn(missing_docs)]

pub mod arch;
pub mod atom;
pub mod collective;
pub mod device;
pub mod distributed;
mod error;
pub mod fusion;
pub mod gemm;
pub mod kernel;
pub mod layout;
pub mod numeric;
pub mod pipeline;
pub mod ptx;
pub mod tensor;
pub mod tiled;

pub use error::{Error, ErrorKind, Result};

/// The cudarc that cutlet is built against (`=0.19.10`, with cutlet's
/// features), re-exported so that a downstream crate names the same
/// `CudaSlice`, `CudaStream` and `CudaContext` types that cutlet's functions
/// take, without pinning cudarc itself:
///
/// ```
/// use cutlet::cudarc::driver::{CudaSlice, CudaStream};
/// use std::sync::Arc;
///
/// fn upload(stream: &Arc<CudaStream>, host: &[f32]) -> cutlet::Result<CudaSlice<f32>> {
///     stream
///         .clone_htod(host)
///         .map_err(|e| cutlet::Error::driver("copying the input to the device", e))
/// }
/// ```
pub use cudarc;

/// The `half` crate cutlet's f16 and bf16 buffers hold (`half::f16`,
/// `half::bf16`), re-exported so that a downstream crate uses the same types:
///
/// ```
/// use cutlet::half::bf16;
///
/// assert_eq!(bf16::from_f32(1.5).to_f32(), 1.5);
/// ```
pub use half;

/// The `float8` crate whose types hold FP8 elements on the host
/// (`float8::F8E4M3`, `float8::F8E5M2`: OCP FP8, as NVIDIA's `__nv_fp8_e4m3`
/// and `__nv_fp8_e5m2`), re-exported so that a downstream crate uses the
/// same types:
///
/// ```
/// use cutlet::float8::{F8E4M3, F8E5M2};
///
/// assert_eq!(F8E4M3::from_f32(1.5).to_f32(), 1.5);
/// assert_eq!(F8E4M3::from_f32(1000.0).to_f32(), 448.0); // saturates at e4m3's largest
/// assert_eq!(F8E5M2::from_f32(0.25).to_bits(), 0x34);
/// ```
pub use float8;

/// The `typenum` crate whose numbers size a typed GEMM configuration
/// (`Tile<U128, U256, U64>`, `MainloopSm80CpAsync<U3>`), re-exported so
/// that a downstream crate writes configurations without depending on it:
///
/// ```
/// use cutlet::typenum::{Unsigned, U128};
///
/// assert_eq!(U128::U32, 128);
/// ```
pub use typenum;

/// The README's Rust code, compiled by `cargo test` as doctests (`no_run`:
/// they need a GPU to run; `tests/readme_gpu.rs` runs a copy of each
/// complete program on one, and `tests/doc_programs.rs` keeps the copies
/// word for word), so that the README cannot drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
