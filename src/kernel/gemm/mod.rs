//! GEMM kernels: [`GemmSpec`], the value every GEMM configuration lowers
//! to; [`GemmUniversal`], the kernel that composes a
//! [`Mainloop`](crate::collective::Mainloop), an
//! [`Epilogue`](crate::collective::Epilogue) and a [`TileScheduler`]
//! ([`GemmSpec::kernel`] picks the parts from the spec's policies); the
//! kernel-layer dispatch policies; the one rule set both front doors check
//! ([`check_config`]); and the builder of default specs.
//!
//! | item | file |
//! |---|---|
//! | [`GemmSpec`] | `spec.rs` (its rules: `validate.rs`) |
//! | [`GemmUniversal`], [`GemmKernel`], [`GemmSpec::kernel`] | `gemm_universal.rs` |
//! | [`KernelSchedule`], [`TileSchedulerPolicy`] and their tags | `dispatch_policy.rs` |
//! | [`Sm90GemmWarpSpecialized`] | `sm90_warpspecialized.rs`: the SM90 producer/consumer skeleton, cooperative and ping-pong |
//! | [`TileScheduler`], [`PersistentTileScheduler`], [`DataParallel`], [`Persistent`] | `tile_scheduler/` |
//! | [`check_config`], [`ConfigFacts`] | `rules/`: `mod.rs` dispatches to `sm80.rs`, `sm70.rs`, `sm90.rs`, which share `facts.rs` and `common.rs` (the SM90 mainloop's own rules are in its folder) |
//! | [`sm80_default_spec`], [`sm80_spec_for_problem`], [`sm80_default_specs`], [`sm70_default_spec`], [`sm70_default_specs`] | `builder.rs` |
//! | [`sm90_spec`], [`sm90_default_spec`], [`sm90_spec_for_problem`], [`sm90_pick_for_problem`], [`sm90_default_specs`] | `builder_sm90.rs` |
//! | [`GemmSpec::transposed`] (swap-AB) | `swap_ab.rs` |
//!
//! # Adding a part
//!
//! A new mainloop is one folder under `src/collective/` implementing
//! [`Mainloop`](crate::collective::Mainloop) (its parameters, shared
//! storage, alignment, `can_implement`, its prologue) and either one body
//! (`emit_mainloop`, for [`GemmUniversal`]) or
//! [`WarpSpecializedMainloop`](crate::collective::WarpSpecializedMainloop)
//! (its ring, tensor maps, producer and consumer parts, for
//! [`Sm90GemmWarpSpecialized`]), plus a variant of
//! [`MainloopPolicy`](crate::collective::MainloopPolicy) and a tag. A new
//! tile scheduler is one file under `tile_scheduler/` implementing
//! [`TileScheduler`] (and [`PersistentTileScheduler`] for the SM90 kernel:
//! the walk), plus a variant of [`TileSchedulerPolicy`] and a tag. A new
//! kernel schedule is one file here composing the three traits (as
//! `gemm_universal.rs` does for [`KernelSchedule::Multistage`] and
//! `sm90_warpspecialized.rs` for the warp-specialized ones), a variant of
//! [`KernelSchedule`] and a tag, and one arm in [`GemmSpec::kernel`].

mod builder;
mod builder_sm90;
mod dispatch_policy;
mod gemm_universal;
mod gemv;
mod rules;
mod sm90_warpspecialized;
pub(crate) mod spec;
mod swap_ab;
mod tile_scheduler;
mod validate;

pub use crate::gemm::{
    BiasAxis, Epilogue, OperandMajor, OutputMajor, OutputQuantization, ScaleGranularity, MAX_BIASES,
};
pub use builder::{
    sm70_default_spec, sm70_default_specs, sm80_default_spec, sm80_default_specs,
    sm80_spec_for_problem,
};
pub use builder_sm90::{
    sm90_default_spec, sm90_default_specs, sm90_pick_for_problem, sm90_spec, sm90_spec_for_problem,
};
pub(crate) use builder_sm90::{Sm90Pick, Sm90PickFacts};
pub use dispatch_policy::{
    DataParallelScheduler, Decomposition, KernelMultistage, KernelSchedule, KernelScheduleTag,
    KernelTmaWarpSpecializedCooperative, KernelTmaWarpSpecializedPingpong,
    KernelTmaWarpSpecializedSlicedK, PersistentScheduler, Reduction, SplitKAtomicScheduler,
    SplitKScheduler, StreamKAtomicScheduler, StreamKScheduler, TileSchedulerPolicy,
    TileSchedulerTag,
};
pub use gemm_universal::{GemmKernel, GemmUniversal, DEFAULT_RASTER_LOG};
pub use gemv::Gemv;
pub use rules::{
    atom_shape, check_config, register_budget, swizzle_row_ok, ConfigFacts, RuleMessage,
};
pub use sm90_warpspecialized::Sm90GemmWarpSpecialized;
pub use spec::GemmSpec;
pub use tile_scheduler::{
    emit_raster, emit_tile_coord, raster_tile, DataParallel, Fixup, PartialTile, Persistent,
    PersistentParams, PersistentTileScheduler, RasterDivisors, RasterOrder, SplitK, StreamK,
    StreamKParams, StreamKPlan, StreamKSegment, TileCoord, TileScheduler, WalkLaunch,
    BALANCED_ROUNDS, SPLIT_K_OUTER_MIN_K_TILES_PER_SPLIT, SPLIT_K_RECORD_HEADER,
    SPLIT_K_SPREAD_MIN_BYTES, STREAM_K_COUNTER_BYTES, STREAM_K_MIN_K_TILES,
};
