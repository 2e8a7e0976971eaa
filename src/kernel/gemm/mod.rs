//! GEMM kernels: [`GemmSpec`], the value every GEMM configuration lowers to,
//! and the `GemmUniversal` kernel generated from it.

mod spec;

pub use spec::{GemmSpec, OperandMajor, OutputMajor};
