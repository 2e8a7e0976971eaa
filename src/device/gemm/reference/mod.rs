//! References a GEMM result is checked and timed against, shared by the GPU
//! tests, the bench, `examples/dense_gemm.rs` and `cutlet gemm`: a host GEMM
//! with f64 accumulation, cuBLAS (dynamically loaded, as cudarc does), and
//! CUDA-event timing. Nothing on the library's kernel path uses this module.

mod args;
mod cublas;
mod dense_gemm;
mod host;
mod overhead;
mod timing;

pub use args::{parse_dtype, parse_mnkl, DenseGemmArgs};
pub use cublas::CublasGemm;
pub use dense_gemm::{
    check_tolerance, dense_output, normalized_error, packed, random_values, run_dense_gemm,
    DenseGemmReport, HOST_CHECK_MACS,
};
pub use host::{host_gemm, output_index, HostMatrix, HostValue};
pub use overhead::{measure_host_overhead, HostOverhead, OverheadProbe};
pub use timing::{median_ms, time_ms};
