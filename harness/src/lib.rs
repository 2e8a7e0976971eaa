//! # cutlet-harness
//!
//! What cutlet's GEMM is checked and timed against, shared by cutlet's GPU
//! tests, benches and examples (as a dev-dependency) and the `cutlet gemm`
//! command: a host GEMM with f64 accumulation, cuBLASLt and cuBLAS (loaded
//! at run time, as cudarc does), CUDA-event timing (alternating between
//! workloads, cold L2 optional), and the GPU test path's device opening. It is not part of the `cutlet` library: nothing on the kernel
//! path uses it, and it is not published.
//!
//! | item | file | what it is |
//! |---|---|---|
//! | [`host_gemm`], [`HostMatrix`], [`HostValue`], [`output_index`] | `host.rs` | the host reference, f64 accumulation |
//! | [`CublasLtGemm`], [`CUBLASLT_WORKSPACE_BYTES`] | `cublaslt.rs`, `cublaslt_plan.rs` | cuBLASLt as PyTorch calls it: heuristic's best algorithm, 32 MiB workspace, plans kept per problem |
//! | [`CublasGemm`] | `cublas.rs` | cuBLAS's `cublasGemmStridedBatchedEx` for any majors |
//! | (crate-private) | `column_major.rs` | cuBLAS's column-major view of a cutlet GEMM, shared by both |
//! | [`GemmReference`], [`ReferenceKind`], [`ReferenceChoice`] | `reference.rs` | cuBLASLt, falling back to cublasGemmEx |
//! | [`run_dense_gemm`], [`DenseGemmArgs`], [`DenseGemmReport`], ... | `dense_gemm.rs`, `args.rs` | CuTe DSL `dense_gemm.py`'s run: check and time against cuBLAS |
//! | [`cold_l2_buffer_sets`] | `cold_l2.rs` | how many operand sets `--use_cold_l2` rotates through |
//! | [`measure_host_overhead`], [`OverheadProbe`] | `overhead.rs` | host time of a GEMM call, layer by layer |
//! | [`time_ms`], [`time_alternating_ms`], [`AlternatingRuns`], [`Workload`], [`median_ms`] | `timing.rs` | CUDA-event timing, one workload or several alternately, each taking turns behind the hold |
//! | [`device_or_skip`], [`sm90_or_skip`], [`gpu_present`] | `gpu.rs` | device 0 (a Hopper one), or a skip with the reason |
//! | [`packed_product`] | `arguments.rs` | a GEMM's arguments over packed K-major A and B |
//! | [`Error`], [`Result`] | `error.rs` | cutlet's errors, cuBLAS's and cuBLASLt's |

mod args;
mod arguments;
mod cold_l2;
mod column_major;
mod cublas;
mod cublaslt;
mod cublaslt_plan;
mod dense_gemm;
mod error;
mod gpu;
mod host;
mod overhead;
mod reference;
mod timing;

pub use args::{
    parse_cluster, parse_decomposition, parse_dtype, parse_mnkl, parse_raster_order,
    parse_schedule, parse_swizzle_size, DecompositionArg, DenseGemmArgs, ScheduleArg,
};
pub use arguments::packed_product;
pub use cold_l2::cold_l2_buffer_sets;
pub use cublas::CublasGemm;
pub use cublaslt::{CublasLtGemm, CUBLASLT_WORKSPACE_BYTES};
pub use dense_gemm::{
    check_tolerance, dense_output, normalized_error, packed, random_values, run_dense_gemm,
    DenseGemmReport, HOST_CHECK_MACS,
};
pub use error::{Error, Result};
pub use gpu::{device_or_skip, devices_or_skip, gpu_present, sm90_or_skip};
pub use host::{host_gemm, lcg, output_index, small_ints, HostMatrix, HostValue};
pub use overhead::{measure_host_overhead, HostOverhead, OverheadProbe};
pub use reference::{GemmReference, ReferenceChoice, ReferenceKind};
pub use timing::{median_ms, time_alternating_ms, time_ms, AlternatingRuns, Workload};
