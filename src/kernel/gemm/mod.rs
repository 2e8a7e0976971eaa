//! GEMM kernels: [`GemmSpec`], the value every GEMM configuration lowers to,
//! and the `GemmUniversal` kernel generated from it
//! ([`GemmSpec::ptx`], `gemm_universal.rs`), with its tile scheduler, and
//! the one rule set both front doors check ([`check_config`], `rules.rs`).

mod epilogue;
mod gemm_universal;
mod rules;
pub(crate) mod spec;
mod tile_scheduler;
mod validate;

pub use epilogue::{BiasAxis, Epilogue, MAX_BIASES};
pub use rules::{
    atom_shape, check_config, register_budget, swizzle_row_ok, ConfigFacts, RuleMessage,
};
pub use spec::{GemmSpec, OperandMajor, OutputMajor};
pub use tile_scheduler::{emit_tile_coord, raster_tile, TileCoord};
