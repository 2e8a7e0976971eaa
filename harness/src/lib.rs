//! # cutlet-harness
//!
//! What cutlet's GEMM is checked and timed against, shared by cutlet's GPU
//! tests, benches and examples (as a dev-dependency) and the `cutlet gemm`
//! command: a host GEMM with f64 accumulation, cuBLAS (loaded at run time,
//! as cudarc does), CUDA-event timing, and the GPU test path's device
//! opening. It is not part of the `cutlet` library: nothing on the kernel
//! path uses it, and it is not published.
//!
//! | item | file | what it is |
//! |---|---|---|
//! | [`host_gemm`], [`HostMatrix`], [`HostValue`], [`output_index`] | `host.rs` | the host reference, f64 accumulation |
//! | [`CublasGemm`] | `cublas.rs` | cuBLAS's `cublasGemmStridedBatchedEx` for any majors |
//! | [`run_dense_gemm`], [`DenseGemmArgs`], [`DenseGemmReport`], ... | `dense_gemm.rs`, `args.rs` | CuTe DSL `dense_gemm.py`'s run: check and time against cuBLAS |
//! | [`measure_host_overhead`], [`OverheadProbe`] | `overhead.rs` | host time of a GEMM call, layer by layer |
//! | [`time_ms`], [`median_ms`] | `timing.rs` | CUDA-event timing |
//! | [`device_or_skip`], [`gpu_present`] | `gpu.rs` | device 0, or a skip with the reason |
//! | [`Error`], [`Result`] | `error.rs` | cutlet's errors and cuBLAS's |

mod args;
mod cublas;
mod dense_gemm;
mod error;
mod gpu;
mod host;
mod overhead;
mod timing;

pub use args::{parse_dtype, parse_mnkl, DenseGemmArgs};
pub use cublas::CublasGemm;
pub use dense_gemm::{
    check_tolerance, dense_output, normalized_error, packed, random_values, run_dense_gemm,
    DenseGemmReport, HOST_CHECK_MACS,
};
pub use error::{Error, Result};
pub use gpu::{device_or_skip, gpu_present};
pub use host::{host_gemm, output_index, HostMatrix, HostValue};
pub use overhead::{measure_host_overhead, HostOverhead, OverheadProbe};
pub use timing::{median_ms, time_ms};
