//! GEMM kernels: [`GemmSpec`], the value every GEMM configuration lowers to,
//! and the `GemmUniversal` kernel generated from it
//! ([`GemmSpec::ptx`], `gemm_universal.rs`), with its tile scheduler, and
//! the one rule set both front doors check ([`check_config`], `rules.rs`).

mod builder;
mod dispatch_policy;
mod gemm_universal;
mod rules;
pub(crate) mod spec;
mod tile_scheduler;
mod validate;

pub use crate::gemm::{BiasAxis, Epilogue, OperandMajor, OutputMajor, MAX_BIASES};
pub use builder::{sm80_default_spec, sm80_default_specs, sm80_spec_for_problem};
pub use dispatch_policy::{
    DataParallelScheduler, KernelMultistage, KernelSchedule, KernelScheduleTag,
    TileSchedulerPolicy, TileSchedulerTag,
};
pub use rules::{
    atom_shape, check_config, register_budget, swizzle_row_ok, ConfigFacts, RuleMessage,
};
pub use spec::GemmSpec;
pub use tile_scheduler::{emit_tile_coord, raster_tile, TileCoord};
