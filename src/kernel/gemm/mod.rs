//! GEMM kernels: [`GemmSpec`], the value every GEMM configuration lowers to,
//! and the `GemmUniversal` kernel generated from it
//! ([`GemmSpec::ptx`], `gemm_universal.rs`), with its tile scheduler.

mod gemm_universal;
pub(crate) mod spec;
mod tile_scheduler;
mod validate;

pub use spec::{GemmSpec, OperandMajor, OutputMajor};
pub use tile_scheduler::{emit_tile_coord, raster_tile, TileCoord};
