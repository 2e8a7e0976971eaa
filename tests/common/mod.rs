//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod exact;
pub mod gemm_bed;
pub mod gpu;
pub mod probe;
pub mod ptxas;
pub mod sweep;
pub mod walk;
