//! References a GEMM result is checked and timed against, shared by the GPU
//! tests, the bench, `examples/dense_gemm.rs` and `cutlet gemm`: a host GEMM
//! with f64 accumulation, cuBLAS (dynamically loaded, as cudarc does), and
//! CUDA-event timing. Nothing on the library's kernel path uses this module.

mod cublas;
mod host;
mod timing;

pub use cublas::CublasGemm;
pub use host::{host_gemm, output_index, HostMatrix, HostValue};
pub use timing::{median_ms, time_ms};
